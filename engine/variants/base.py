"""What every variant provides, and the shapes of a scoring result.

A variant is data plus small functions: its tile set, its claim rules, its house rules (settings with defaults) and
``score(hand, situation, rules) -> ScoreResult``. The table state machine, the CLI, ``/score`` and the renderers all
go through this interface; nothing outside ``engine/variants`` knows a variant's rules.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TypedDict

from ..errors import EngineError, HandError, Msg
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


class ItemJson(TypedDict):
    """An :class:`Item` as JSON (score breakdowns in events, results and ``mjbot score --json``)."""

    code: str
    zh: str
    en: str
    value: int
    kind: str


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

    def as_json(self) -> ItemJson:
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

    @property
    def expected(self) -> str:
        """The values it takes, as a refusal names them ("on/off", "1/4")."""
        return "on/off" if isinstance(self.default, bool) else "/".join(str(c) for c in self.choices)

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
        raise EngineError("bad_rule_value", key=self.key, value=text, expected=self.expected)


@dataclass(slots=True)
class Ledger:
    """A match's money so far, kept by the variant's :class:`Settlement` (the table only stores it).

    ``scores``: summed hand settlements (round-based variants); ``stacks`` / ``stack_base`` / ``di_no`` /
    ``di_results`` / ``jiao``: Wuhu's 底 stacks and 交 tally; ``passes``: times the deal has passed to the next seat.
    """

    scores: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    jiao: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    stacks: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    stack_base: int = 0
    di_no: int = 0
    di_results: list[int] = field(default_factory=lambda: [0, 0, 0, 0])
    passes: int = 0


@dataclass(frozen=True, slots=True)
class Paid:
    """One win as settled at the table, per chair: ``settled`` (what each chair's total moved by, zero-sum),
    ``pay`` (the same, as added to the hand's payments) and ``jiao`` (its 交 part)."""

    settled: list[int]
    jiao: list[int]


@dataclass(frozen=True, slots=True)
class LedgerView:
    """What the views show of a ledger (None = not part of this variant's settlement)."""

    stacks: list[int] | None
    jiao: list[int] | None
    di: int | None
    quan: int | None


class Settlement:
    """How a variant's match keeps money and when it ends. The default: hand settlements add up to the match scores;
    a match is ``quan_per_match`` 圈 (four passes of the deal each; the house rule's default when unset).

    A variant with another policy subclasses this (Wuhu: :class:`engine.variants.wuhu.StackSettlement`).
    """

    def __init__(self, default_quan: int = 1) -> None:
        self.default_quan = default_quan

    def new_ledger(self, rules: Mapping[str, Any]) -> Ledger:
        return Ledger()

    def settle(self, ledger: Ledger, payments: Sequence[int], stack_payments: Sequence[int],
               jiao_payments: Sequence[int]) -> Paid:
        """Apply one win's payments (per chair) to the ledger; returns what was actually settled."""
        for c in range(4):
            ledger.scores[c] += payments[c]
        return Paid(list(payments), [0, 0, 0, 0])

    def end_hand(self, ledger: Ledger, rules: Mapping[str, Any]) -> tuple[list[tuple[str, dict[str, Any]]], bool]:
        """After a hand (and the dealer rotation): (events to publish as (type, data), whether the match is over)."""
        quan = int(rules.get("quan_per_match", self.default_quan))
        return [], ledger.passes >= 4 * quan

    def totals(self, ledger: Ledger, over: bool) -> list[int]:
        """Each chair's result so far."""
        return list(ledger.scores)

    def view(self, ledger: Ledger) -> LedgerView:
        return LedgerView(None, None, None, ledger.passes // 4 + 1)


@dataclass(frozen=True, slots=True)
class AiProfile:
    """What the AI aims at in a variant (engine/ai.py reads only this, never the variant's name).

    - ``bazhi``: a legal win needs 8 tiles of one suit (八支): the distance counts the tiles missing for it.
    - ``hua_gate``: a legal win needs 花 (Chizhou): the distance counts the tiles missing for 2 花; kongs that add 花
      are taken while the distance holds, a claimable kong beats the pung of the same tile, an honour pung is
      taken whenever it does not set the hand back.
    - ``honour_waste``: (single, pair or more) how little an honour tile does for the hand (higher: discard first).
    - ``suit_focus_from``: from how many tiles of the main suit the AI discards the other suits first (0: always).
    - ``claim_max_distance``: claims only when the distance after it is at most this (None: any improvement).
    """

    bazhi: bool = False
    hua_gate: bool = False
    honour_waste: tuple[float, float] = (2.5, -0.5)
    suit_focus_from: int = 0
    claim_max_distance: int | None = None


#: The page of ``docs/rules/`` stating a ruling, by the ruling's letter: G (common), W (Wuhu), H (Hefei), C (Chizhou).
RULE_PAGES: Mapping[str, str] = {"G": "common", "W": "wuhu", "H": "hefei", "C": "chizhou"}


def rule_doc(rule: str) -> str:
    """Where a ruling is written out, as a repository path with its anchor.

    >>> rule_doc("W5"), rule_doc("G3")
    ('docs/rules/wuhu.md#w5', 'docs/rules/common.md#g3')
    """
    return f"docs/rules/{RULE_PAGES[rule[0]]}.md#{rule.lower()}"


def _always(melds: Sequence[Meld], kind: str, tiles: Sequence[int], rules: Mapping[str, Any]) -> bool:
    return True


def _any_time(melds: Sequence[Meld], rules: Mapping[str, Any]) -> bool:
    return True


def _no_alarms(melds: Sequence[Meld]) -> tuple[str, ...]:
    return ()


def _no_exemption(concealed: Sequence[int], last_own_discard: int | None, tile: int) -> bool:
    return False


@dataclass(frozen=True)
class Variant:
    """A rule set. ``score`` raises :class:`HandError` when the hand may not win; otherwise returns a result.

    Besides scoring, a variant tells the table everything its flow depends on (the table never branches on the
    variant's name): which claims are allowed (``claim_allowed``, ``allows_chi``), concealed kongs
    (``concealed_kong_allowed``), alarms (``alarms``, ``alarm_names``), the reserved last tiles (``reserve``:
    tiles that end normal play, ``final_discard``: what may be done on the discard that reaches them), the dice
    (``dice_rolls``), the passed-peng lock (``pass_locks_pung``), exceptions to 漏胡 (``furiten_exempt``), the
    settlement policy (``settlement``: money, match length) and the AI's goals (``ai``). A new variant is one
    module defining ``VARIANT`` plus its key in :data:`engine.variants.VARIANT_KEYS`.
    """

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
    # --- table flow
    claim_allowed: Callable[[Sequence[Meld], str, Sequence[int], Mapping[str, Any]], bool] = _always
    """(melds, "pung" / "kong" / "chi", the meld's tiles, rules): may a player with these melds claim it?"""
    concealed_kong_allowed: Callable[[Sequence[Meld], Mapping[str, Any]], bool] = _any_time
    alarms: Callable[[Sequence[Meld]], tuple[str, ...]] = _no_alarms
    """Public alarms raised by a player's melds (winds in ``fed_by``), recomputed after each meld."""
    alarm_names: Mapping[str, tuple[str, str]] = field(default_factory=dict)  # code -> (zh, en); empty: no alarms
    reserve: int = 0  # tiles that end normal play (the last-four phase: draw-only turns, self-draw wins only)
    final_discard: frozenset[str] = frozenset()  # action types allowed on the discard that reaches the reserve
    dice_rolls: int = 1
    pass_locks_pung: bool = False  # a passed peng may not be claimed on that kind until the player's next draw
    furiten_exempt: Callable[[Sequence[int], int | None, int], bool] = _no_exemption
    """(concealed counts, the kind the player last discarded, the discarded tile): may win despite 漏胡?"""
    settlement: Settlement = field(default_factory=Settlement)
    ai: AiProfile = field(default_factory=AiProfile)
    rule_of: Mapping[str, str] = field(default_factory=dict)
    """Item / note code -> the ruling it comes from ("W5"), so a breakdown can name it (see :func:`rule_doc`)."""
    # --- what the bot, the cogs and the images need of a variant (they never branch on its key)
    example: str = ""
    """A hand that scores, in the notation: shown with every refused hand (``/score``, ``/record``)."""
    code: str = ""
    """A short code (lowercase letters, unique) for ids that must stay short, e.g. the /score answer's Record
    button; empty: the key itself."""
    splits_jiao: bool = False
    """Payments are stack (底) chips plus 交 (Wuhu): records and the ledger keep the two parts."""
    scored_streak: bool = False
    """The dealer streak (庄数) counts in the score (Hefei): a breakdown names it."""
    scores_heavenly: bool = False
    """天胡 / 地胡 score (Wuhu, W7): a hand a player types may say so (:meth:`check_entered`); the table tells every
    variant the facts, and the others' scorers do not read them."""
    payments_fn: Callable[[Hand, Situation, Mapping[str, Any]], tuple[int, int, int, int]] | None = None
    """The ``payments`` of ``score_fn``'s result alone, by the same code without the breakdown's items, notes and
    names (what the AI reads of a win, :meth:`payments`); None: ``score_fn``'s result is read."""

    @property
    def short(self) -> str:
        """:attr:`code`, or the key when the variant has none."""
        return self.code or self.key

    def rule_for(self, code: str) -> str:
        """The ruling a breakdown line with this code comes from ("W5"), or "" for a code with none.

        >>> from engine.variants import get_variant
        >>> get_variant("wuhu").rule_for("base_ya_dang")
        'W5'
        """
        return self.rule_of.get(code, "")

    def name_msg(self) -> Msg:
        """The variant's name as a message parameter (catalogue key ``variant.<key>``; its English name otherwise)."""
        return Msg(f"variant.{self.key}", fallback=self.en)

    def next_dealer(self, dealer: int, streak: int, dealer_won: bool, drawn: bool) -> tuple[int, int, bool]:
        """(dealer, 庄数, whether the deal passed) after a hand: the dealer keeps the deal after a drawn hand or a
        win that includes the dealer, otherwise the next seat deals (W13, H8, C10).

        >>> from engine.variants import get_variant
        >>> v = get_variant("hefei")
        >>> v.next_dealer(1, 1, False, False), v.next_dealer(1, 1, True, False)
        ((2, 1, True), (1, 2, False))
        """
        if drawn or dealer_won:
            return dealer, streak + 1, False
        return (dealer + 1) % 4, 1, True

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
            if "=" not in p:  # "--rule contracts": told how a rule is written, not that '' is not on/off
                raise EngineError("rule_without_value", key=key, expected=by_key[key].expected)
            got = by_key[key].parse(value)
            if key in out and out[key] != got:  # mode=525 then mode=315: not the last one silently
                raise EngineError("rule_twice", key=key)
            out[key] = got
        return self.rules(out)

    def check_tiles(self, hand: Hand, rules: Mapping[str, Any]) -> None:
        """Refuse tiles the variant's wall does not have, or more copies than it has."""
        have = self.tile_counts(rules)
        counts = hand.all_counts
        for k in range(NUM_KINDS):
            if counts[k] and not have[k]:
                raise HandError("tile_not_in_variant", variant=self.name_msg(), tile=tile_name(k))
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
        self._check_hand(hand, rules)
        self._check_situation(hand, situation)
        result = self.score_fn(hand, situation, rules)
        assert sum(result.payments) == 0
        return result

    def check_entered(self, situation: Situation, hand: Hand | None = None) -> None:
        """Refuse what a player typed about how a hand was won (``mjbot score``, ``/score``, ``/record``) that this
        variant has no use for or that cannot happen together: a 天胡 / 地胡 where it does not score, the last four
        tiles where there is no such phase, a 天胡 / 地胡 in the last four tiles, a kong or a robbed kong in them, and,
        given the ``hand``, a robbed kong whose tile it holds more than once (the robbed pung held the other three). The
        table never builds such a situation (it tells every variant the facts, which the scorer may not read), so
        :meth:`score` itself does not refuse them.

        >>> from engine.variants import get_variant
        >>> try:
        ...     get_variant("hefei").check_entered(Situation(winner=0, heavenly=True))
        ... except HandError as e:
        ...     print(e.code)
        no_heavenly_in_variant
        """
        # first what the variant does not score at all (a Hefei 天胡 was told to be the dealer's, then, once the
        # dealer was given, that Hefei has none); then the situation alone: 地胡 typed with the dealer as winner is
        # told that, not to give --from E
        if (situation.heavenly or situation.earthly) and not self.scores_heavenly:
            raise HandError("no_heavenly_in_variant", variant=self.name_msg())
        situation.validate()
        if situation.last_tiles and not self.reserve:
            raise HandError("no_last_tiles_in_variant", variant=self.name_msg())
        if situation.last_tiles and (situation.heavenly or situation.earthly):
            raise HandError("heavenly_last_tiles")
        if situation.last_tiles and (situation.kong_draw or situation.rob_kong):
            raise HandError("last_tiles_kong")
        if situation.heavenly and situation.discarder is not None:
            raise HandError("heavenly_self_drawn")
        if situation.earthly and situation.discarder != 0:
            raise HandError("earthly_from_dealer")
        if (hand is not None and situation.rob_kong and self.rob_kong and hand.win_tile is not None
                and hand.all_counts[hand.win_tile] > 1):
            # the robbed player's pung held the other three copies: the robbed tile is the winner's only one
            raise HandError("rob_kong_copies", tile=tile_name(hand.win_tile), n=hand.all_counts[hand.win_tile])

    def _check_hand(self, hand: Hand, rules: Mapping[str, Any]) -> None:
        """The common refusals that read the hand alone (:meth:`score`)."""
        if hand.win_tile is None:
            raise HandError("no_winning_tile")
        if hand.size != 14:
            why: Msg | str = ""
            if hand.size == 15 and hand.win_tile in hand.concealed:  # the tile after '+' written among the others too?
                why = Msg("engine.wrong_size_twice", {"tile": tile_name(hand.win_tile)})
            raise HandError("wrong_size", n=hand.size, why=why)
        self.check_tiles(hand, rules)
        if not self.allows_chi:
            for m in hand.melds:
                if m.kind == "chi":
                    raise HandError("no_chi_in_variant", variant=self.name_msg(), tiles=m.notation()[1:-1])

    def _check_situation(self, hand: Hand, situation: Situation) -> None:
        """The common refusals that read the situation (:meth:`score`; ``situation.validate()`` apart)."""
        if (situation.heavenly or situation.earthly) and hand.melds:
            raise HandError("heavenly_with_melds")
        if situation.rob_kong and not self.rob_kong:
            raise HandError("rob_kong_not_allowed", variant=self.name_msg())
        if situation.kong_draw and not any(m.is_kong for m in hand.melds):
            raise HandError("kong_draw_without_kong")
        for m in hand.melds:
            if m.fed_by is not None and m.fed_by == situation.winner:
                raise HandError("fed_by_winner", meld=m.notation(), seat=SEATS[m.fed_by])

    def payments(self, hand: Hand, situations: Sequence[Situation], rules: Mapping[str, Any] | None = None
                 ) -> list[tuple[int, int, int, int] | None]:
        """``score(hand, s, rules).payments`` for each situation ``s``, None where :meth:`score` refuses the win:
        the same checks and amounts, the hand's checks made once, without the breakdown (``payments_fn``)."""
        rules = self.rules(rules)
        try:
            self._check_hand(hand, rules)
        except EngineError:
            return [None] * len(situations)
        fn = self.payments_fn
        out: list[tuple[int, int, int, int] | None] = []
        for s in situations:
            try:
                s.validate()
                self._check_situation(hand, s)
                out.append(fn(hand, s, rules) if fn is not None else self.score_fn(hand, s, rules).payments)
            except EngineError:
                out.append(None)
        return out


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
