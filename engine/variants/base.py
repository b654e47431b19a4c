"""What every variant provides, and the shapes of a scoring result.

A variant is data plus small functions: its tile set, its claim rules, its house rules (settings with defaults) and
``score(hand, situation, rules) -> ScoreResult``. The table state machine, the CLI, ``/score`` and the renderers all
go through this interface; nothing outside ``engine/variants`` knows a variant's rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import EngineError, HandError
from ..tiles import NUM_KINDS, SEATS, Hand, Meld, tile_name


@dataclass(frozen=True, slots=True)
class Situation:
    """How a hand was won. Seats are 0-3 = E S W N; E (0) is the dealer.

    ``discarder`` is the seat that dealt in (None = self-drawn); with ``rob_kong`` it is the seat whose added kong was
    robbed. ``melds_by_seat`` gives every seat's declared melds (the winner's included) and ``concealed_by_seat``
    their concealed tiles, when the table knows them: Chizhou's 反包 judges the other players' hands. Wuhu's alarms are derived from the winner's melds and their
    ``fed_by`` seats, so nothing else is needed for them.
    """

    winner: int = 1
    discarder: int | None = None
    kong_draw: bool = False
    rob_kong: bool = False
    last_tiles: bool = False
    heavenly: bool = False
    earthly: bool = False
    dealer_streak: int = 1
    melds_by_seat: tuple[tuple[Meld, ...], ...] | None = None
    concealed_by_seat: tuple[tuple[int, ...], ...] | None = None  # every seat's concealed kinds, when known

    @property
    def self_drawn(self) -> bool:
        return self.discarder is None

    def validate(self) -> None:
        if self.dealer_streak < 1:
            raise HandError("bad_dealer_streak", n=self.dealer_streak)
        if self.discarder is not None and self.discarder == self.winner:
            raise HandError("from_self")
        if self.rob_kong and self.discarder is None:
            raise HandError("rob_kong_needs_from")
        if self.kong_draw and self.discarder is not None:
            raise HandError("kong_draw_and_discard")
        if self.heavenly and self.winner != 0:
            raise HandError("heavenly_not_dealer")
        if self.earthly and self.winner == 0:
            raise HandError("earthly_dealer")


@dataclass(frozen=True, slots=True)
class Item:
    """One line of a breakdown: a stable code, its Chinese and English names, and its value.

    ``value`` is in the unit the variant's card shows (番, 分, 花 ...); ``kind`` tells how it combines:
    ``add`` (summed), ``mul`` (a multiplier), ``info`` (shown, not summed: e.g. 支数, 花).
    """

    code: str
    zh: str
    en: str
    value: int
    kind: str = "add"

    def as_json(self) -> dict[str, Any]:
        return {"code": self.code, "zh": self.zh, "en": self.en, "value": self.value, "kind": self.kind}


@dataclass(frozen=True, slots=True)
class ScoreResult:
    """A scored hand: the breakdown and the settlement of this one hand.

    ``payments[s]`` is what seat s gains (negative: pays); they sum to 0. Wuhu splits them into ``stack_payments``
    (out of the 底 stacks) and ``jiao_payments`` (the separate 交 tally); other variants leave those as zeros.
    ``per_payer`` is the amount each paying seat owes before any 包 / contract moves it (for the card).
    """

    variant: str
    items: tuple[Item, ...]
    payments: tuple[int, int, int, int]
    winner: int
    per_payer: Mapping[int, int] = field(default_factory=dict)
    stack_payments: tuple[int, int, int, int] = (0, 0, 0, 0)
    jiao_payments: tuple[int, int, int, int] = (0, 0, 0, 0)
    notes: tuple[Item, ...] = ()  # 包 / contract explanations, alarms: shown under the breakdown
    extra: Mapping[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        assert sum(self.payments) == 0, self.payments

    def as_json(self) -> dict[str, Any]:
        return {
            "ok": True,
            "variant": self.variant,
            "winner": SEATS[self.winner],
            "items": [i.as_json() for i in self.items],
            "notes": [i.as_json() for i in self.notes],
            "per_payer": {SEATS[s]: v for s, v in sorted(self.per_payer.items())},
            "payments": {SEATS[s]: self.payments[s] for s in range(4)},
            "stack_payments": {SEATS[s]: self.stack_payments[s] for s in range(4)},
            "jiao_payments": {SEATS[s]: self.jiao_payments[s] for s in range(4)},
            **{k: v for k, v in self.extra.items()},
        }


@dataclass(frozen=True, slots=True)
class HouseRule:
    """A per-server setting: key, default, allowed values, names and a one-line description in both languages."""

    key: str
    default: Any
    choices: tuple[Any, ...]
    zh: str
    en: str
    help_zh: str = ""
    help_en: str = ""

    def parse(self, text: str) -> Any:
        """A value from text (CLI ``--rule``, settings forms)."""
        if isinstance(self.default, bool):
            t = str(text).strip().lower()
            if t in ("1", "true", "on", "yes", "y", "开", "是"):
                return True
            if t in ("0", "false", "off", "no", "n", "关", "否"):
                return False
        else:
            for c in self.choices:
                if str(c) == str(text).strip():
                    return c
        expected = "on/off" if isinstance(self.default, bool) else "/".join(str(c) for c in self.choices)
        raise EngineError("bad_rule_value", key=self.key, value=text, expected=expected)


@dataclass(frozen=True)
class Variant:
    """A rule set. ``score`` raises :class:`HandError` when the hand may not win; otherwise returns a result."""

    key: str  # wuhu, hefei, chizhou
    zh: str
    en: str
    tile_counts: Callable[[Mapping[str, Any]], tuple[int, ...]]  # copies of each of the 34 kinds in the wall
    score_fn: Callable[[Hand, Situation, Mapping[str, Any]], ScoreResult]
    house_rules: tuple[HouseRule, ...] = ()
    allows_chi: bool = False
    seven_pairs: bool = False
    multiple_winners: bool = False
    rob_kong: bool = False
    modes: tuple[int, ...] = ()  # Wuhu: 315, 525
    # Fast legality (shape, 八支, 花 gate ...) for the table and the AI; None = try scoring.
    can_win_fn: Callable[[Hand, Situation, Mapping[str, Any]], bool] | None = None

    def rules(self, overrides: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """House rules with defaults filled in; unknown keys are refused."""
        out = {r.key: r.default for r in self.house_rules}
        for k, v in (overrides or {}).items():
            if k not in out:
                raise EngineError("bad_rule", key=k, known=", ".join(out) or "-")
            out[k] = v
        return out

    def parse_rules(self, pairs: Sequence[str]) -> dict[str, Any]:
        """``KEY=VALUE`` strings to a rules dict."""
        by_key = {r.key: r for r in self.house_rules}
        out: dict[str, Any] = {}
        for p in pairs:
            key, _, value = p.partition("=")
            key = key.strip()
            if key not in by_key:
                raise EngineError("bad_rule", key=key, known=", ".join(by_key) or "-")
            out[key] = by_key[key].parse(value)
        return self.rules(out)

    def check_tiles(self, hand: Hand, rules: Mapping[str, Any]) -> None:
        """Refuse tiles the variant's wall does not have, or more copies than it has."""
        have = self.tile_counts(rules)
        counts = hand.all_counts
        for k in range(NUM_KINDS):
            if counts[k] and not have[k]:
                raise HandError("tile_not_in_variant", variant=self.zh, tile=tile_name(k))
            if counts[k] > have[k]:
                raise HandError("five_copies", tile=tile_name(k))

    def can_win(self, hand: Hand, situation: Situation, rules: Mapping[str, Any] | None = None) -> bool:
        """Whether ``hand`` (with its winning tile) may win in ``situation``. Never raises for a legal table state."""
        rules = self.rules(rules)
        if self.can_win_fn is not None:
            return self.can_win_fn(hand, situation, rules)
        try:
            self.score(hand, situation, rules)
        except EngineError:
            return False
        return True

    def score(self, hand: Hand, situation: Situation, rules: Mapping[str, Any] | None = None) -> ScoreResult:
        """Validate the hand and situation against this variant, then score it."""
        rules = self.rules(rules)
        situation.validate()
        if hand.win_tile is None:
            raise HandError("no_winning_tile")
        if hand.size != 14:
            raise HandError("wrong_size", n=hand.size)
        self.check_tiles(hand, rules)
        if not self.allows_chi:
            for m in hand.melds:
                if m.kind == "chi":
                    raise HandError("no_chi_in_variant", variant=self.zh, tiles=m.notation()[1:-1])
        if (situation.heavenly or situation.earthly) and hand.melds:
            raise HandError("heavenly_with_melds")
        if situation.rob_kong and not self.rob_kong:
            raise HandError("rob_kong_not_allowed", variant=self.zh)
        result = self.score_fn(hand, situation, rules)
        assert sum(result.payments) == 0
        return result


def settle(winner: int, per_payer: Mapping[int, int]) -> tuple[int, int, int, int]:
    """Zero-sum payments from what each payer owes the winner.

    >>> settle(1, {0: 4, 2: 3, 3: 3})
    (-4, 10, -3, -3)
    """
    pay = [0, 0, 0, 0]
    for seat, amount in per_payer.items():
        pay[seat] -= amount
        pay[winner] += amount
    return (pay[0], pay[1], pay[2], pay[3])
