"""The strong AI's evaluator: the expected 子 of every legal action, from one seat's view.

For every choice the evaluator looks at the hand it leaves (a 3n+1 hand still to draw) and estimates

- **the chance to win** before the hand ends: the steps to a *legal* win (shanten, 八支, the 花 gate: the normal AI's
  distance, :class:`engine.ai_common.SeatReader`) and the unseen tiles that shorten it, turned into a probability over the
  seat's draws still to come (and the others' discards, where a discard may be won on) with a small per-turn chance
  that someone else wins first;
- **the value of winning**: when ready, every winning tile is scored by the variant's own scorer (self-drawn and on
  a discard, weighted by the copies still unseen, in Hefei and Wuhu times how often a kind of their class comes:
  :data:`WAIT_FACTORS`); before that, the value of the shape the hand aims at (a plain
  win, or a one-suit hand: Wuhu's 清一色 交, Hefei's 清一色 x3, Chizhou's 清一色 / 混一色 蜡子) is the scorer's
  value of a typical such hand, cached; the best plan counts;
- **the risk and cost of dealing in** (a discard only): for each other seat, how likely it is ready (its melds, its
  river's length, its 报警 alarms, the 花 it shows), which suit it collects (its melds, the suits it stopped
  discarding), how safe the tile is against it (its own river, tiles three apart, tiles it let go by since its last
  discard, in Wuhu and Hefei; in Hefei its melds and the wall left, in Wuhu its melds and the third of the hand,
  measured), and what dealing in would cost (the scorer's payment from this seat, with the 点炮包三家 house rule;
  against a Wuhu alarm or one-suit line a 交, with its 包 where W12 gives it, at the measured share of such
  deal-ins), plus the chance of winning it gives up.

``ev = (1 - deal_in) * win * value - deal_in * cost``. Claims and kongs are priced by the hand they leave (a pung's
by its best discard). Everything read comes from the view (``Table.view(seat)``): the seat's own tiles, melds,
rivers, alarms, the wall's count and the rules; never another seat's tiles or the wall. No randomness, no clock.

Over 600 lines on purpose: the three parts of one price (chance, value, danger) are tuned against each other and
read together; the variant-specific pieces that stand alone live beside it (``engine/strong/chizhou.py``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from typing import Any

from ..ai_common import (
    SeatReader,
    best_discard,
    claim_choice,
    feed_discard,
    forced,
    gate_distance,
    normal_kong,
    plain_actions,
    ron_feed_pick,
)
from ..analysis import (
    is_complete,
    is_seven_pairs,
    seven_pairs_shanten,
)
from ..errors import EngineError
from ..rivers import passed_since
from ..rivers import wind_meld as _wind_meld
from ..table.actions import Action
from ..tiles import HONOR, NUM_KINDS, Hand, Meld, MeldKind, parse_hand
from ..variants import get_variant
from ..variants.base import Situation
from ..variants.chizhou import shown_hua
from . import chizhou as chizhou_mod
from . import learned as learned_mod
from .calibration import DANGER_BASE, DANGER_FACTOR, MEAN_VALUE, WIN
from .calibration_chizhou_hua import HUA_FACTOR as CHIZHOU_MEASURED_HUA_FACTOR
from .calibration_hailao import BONUS as HEFEI_HAILAO_BONUS
from .calibration_hailao import REACH as HEFEI_HAILAO_REACH
from .calibration_hefei_melds import MELD_FACTOR as HEFEI_MELD_FACTOR
from .calibration_self_share import SELF_SHARE as MEASURED_SELF_SHARE
from .calibration_waits import RON_FACTOR as WAITS_RON_FACTOR
from .calibration_waits import SELF_FACTOR as WAITS_SELF_FACTOR
from .calibration_win import READY_FACTOR
from .calibration_wuhu import FLUSH_WIN as WUHU_FLUSH_WIN
from .calibration_wuhu_alarm import ALARM_FACTOR as WUHU_ALARM_FACTOR
from .calibration_wuhu_alarm import ALARM_JIAO as WUHU_ALARM_JIAO
from .chizhou import DANGER_BY_HUA as CHIZHOU_DANGER_BY_HUA
from .chizhou import DEAL_IN_PAYS as CHIZHOU_DEAL_IN_PAYS
from .chizhou import FEED_COST as CHIZHOU_FEED_COST
from .chizhou import FLUSH_RATE as CHIZHOU_FLUSH_RATE
from .chizhou import LET_GO as CHIZHOU_LET_GO
from .hefei import LEARNED as HEFEI_LEARNED
from .hefei import WAYS_FACTOR as HEFEI_WAYS_FACTOR
from .hefei import DangerReader as HefeiDangerReader
from .hefei import meld_cell as hefei_meld_cell
from .hefei import ways_bucket as hefei_ways_bucket
from .learned import VALUE_LEARNED
from .learned import Reader as LearnedReader
from .lookahead import MAX_D as LOOKAHEAD_MAX_D
from .lookahead import PRIOR as LOOKAHEAD_PRIOR
from .lookahead import VARIANTS as LOOKAHEAD_VARIANTS
from .lookahead import kept_shanten
from .lookahead import one_away as lookahead_one_away
from .lookahead import refine as lookahead_refine
from .lookahead import wait_payments as lookahead_wait_payments
from .waits import wait_classes
from .wuhu import FLUSH_PRIOR as WUHU_FLUSH_PRIOR
from .wuhu import alarm_bao, alarm_class, alarm_kind, wall_third
from .wuhu import flush_chance as wuhu_flush_chance
from .wuhu import flush_play as wuhu_flush_play
from .wuhu import hun_chance as wuhu_hun_chance

# The shapes a hand may aim at, as typical hands the variant's scorer prices (concealed, with a claimed meld).
# plan "" = any legal win; "flush" = one suit (``honours``: whether honours may stay: 混一色 counts in Chizhou).
_REPS: dict[str, dict[str, tuple[str, str]]] = {
    "wuhu": {"": ("23456799m345p67s+8s", "23456799m345p67s+8s"),
             "flush": ("1112344567899m+9m", "2344567899m[111m]+9m")},
    "hefei": {"": ("11134567899m56p+7p", "34567899m56p[111m]+7p"),
              "flush": ("1112344567899m+9m", "2344567899m[111m]+9m")},
    "chizhou": {"": ("123m456p1z[555z][666z]+1z", "123m456p1z[555z][666z]+1z"),
                "flush": ("123m456m1z[555z][666z]+1z", "123m456m1z[555z][666z]+1z"),
                "pungs": ("111m999p1z[555z][666z]+1z", "111m999p1z[555z][666z]+1z")},
}
_FLUSH_HONOURS = {"wuhu": False, "hefei": False, "chizhou": True}
PRIOR = 0.3
"""The normal AI's choice keeps the decision unless another option is worth this much more (a share of its ev)."""
FLUSH_RATE = 700
"""A one-suit plan's chance: this share (/1000) of the measured chance one step further (only one suit serves)."""
WUHU_HUN = False
"""Wuhu: price the 混一色 play (one suit and 红中, :func:`engine.strong.wuhu.hun_chance`) beside the 清一色, its play
keeping the margin when it is worth most. Measured and not kept (docs/strong-ai-rounds.md: as many 子 as without it)."""
PLAN_ITEMS = {"wuhu": "qing_yi_se", "hefei": "qingyise", "chizhou": "qingyise"}
"""The scorer's item a "flush" plan aims at, per variant (the review names it)."""
PUNGS_ITEMS = {"chizhou": "duiduihu"}
"""The scorer's item a "pungs" plan (all pungs: Chizhou's 对对胡, a 蜡子 whose pungs are also its 花) aims at."""
PUNGS_RATE = 1200
"""An all-pungs plan's chance: this share (/1000) of the measured chance at its distance (only pairs serve, but
they may be claimed from any seat)."""


KONG_PREMIUM = (0.05, 0.02)
"""A kong's tie-break premium over the hand it leaves: this much plus this share of the hand's value when won (a kong
pays in every variant: 杠番, 花, 杠, which the hand's price does not count). It ranks (``Option.margin``), it is not
charged as 子 by the review."""


HUN_ITEMS = {"wuhu": "hun_yi_se"}
"""The scorer's item a "hun" plan (Wuhu: one suit and 红中, :func:`engine.strong.wuhu.hun_chance`) aims at."""


def plan_item(variant: str, plan: str) -> str:
    """The scorer's item the plan aims at ("" for the plain plan)."""
    if plan == "pungs":
        return PUNGS_ITEMS.get(variant, "")
    if plan == "hun":
        return HUN_ITEMS.get(variant, "")
    return PLAN_ITEMS.get(variant, "") if plan else ""


@dataclass(frozen=True, slots=True)
class HandValue:
    """What a 3n+1 hand is worth: ``win`` chance, ``value`` when won (子), the ``plan`` aimed at, its distance."""

    win: float
    value: float
    plan: str
    distance: int

    @property
    def ev(self) -> float:
        return self.win * self.value


@dataclass(frozen=True, slots=True)
class Option:
    """One legal action, priced. ``ev``: expected 子 of the hand after it. ``win``/``value``: the chance and the
    value of winning it leaves; ``deal_in``: the chance this discard deals in now; ``cost``: 子 lost if it does;
    ``threat``: the seat that tile is most dangerous against (None: no danger); ``plan``: "" or "flush".
    ``margin``: what the decision adds to ``ev`` when it ranks the options, not 子: the trust the normal AI's
    choice, or the one-suit play, keeps (:data:`PRIOR`), a kong's tie-break premium (:data:`KONG_PREMIUM`) and
    Chizhou's credit for letting go (:data:`engine.strong.chizhou.LET_GO`); ``ev`` stays the price the review
    shows."""

    action: Action
    ev: float
    win: float
    value: float
    deal_in: float
    cost: float
    plan: str
    distance: int
    threat: int | None
    margin: float = 0.0


@dataclass(frozen=True, slots=True)
class Evaluation:
    seat: int
    variant: str
    options: tuple[Option, ...]
    unseen: tuple[int, ...] = ()
    """The copies of each kind still to come from the seat's view, as the prices counted them (:func:`still_to_come`)."""
    let_go: Action | None = None
    """Chizhou: the discard credited for letting go (:data:`engine.strong.chizhou.LET_GO`, by the thresholds the
    evaluator reads: :data:`engine.strong.chizhou.LET_GO_WALL`, :data:`engine.strong.chizhou.LET_GO_NEED`), or None."""

    @property
    def best(self) -> Option:
        """The option the strong AI takes: a win whenever one is legal, otherwise the first of the highest ev with
        its margin."""
        for o in self.options:
            if o.action.type in ("win", "next_hand"):
                return o
        best = self.options[0]
        for o in self.options[1:]:
            if o.ev + o.margin > best.ev + best.margin + 1e-9:
                best = o
        return best

    def of(self, action: Action) -> Option | None:
        return next((o for o in self.options if o.action == action), None)


# ------------------------------------------------------------------------------------------------ chance model


_TYPICAL = (6, 20, 36, 50, 62, 72, 80, 86, 90)
"""Typical count of unseen useful tiles of a hand at shanten 0 (its winning tiles), 1, 2 ...: a hand's own count
against this says how good it is at its distance; the steps after the first go at the typical rate."""


SeatFeatures = tuple[int, int, frozenset[int], frozenset[int], tuple[int, int, int, int], int, bool]


def seat_features(view: Mapping[str, Any], o: int) -> SeatFeatures:
    """What :func:`danger_features` reads of seat ``o`` whatever the tile, read once: (its shown melds 0-3, its
    river's length // 3 0-5, its river's kinds, its suited melds' suits, its river's tiles per suit (honours as the
    fourth), its river's length, whether it raised an alarm)."""
    river = [int(x["tile"]) for x in view["rivers"][o]]
    melds = view["melds"][o]
    ms = frozenset(int(x["tile"]) // 9 for x in melds if int(x["tile"]) < HONOR)
    per_suit = [0, 0, 0, 0]
    for x in river:
        per_suit[min(x // 9, 3)] += 1
    return (min(len(melds), 3), min(len(river) // 3, 5), frozenset(river), ms,
            (per_suit[0], per_suit[1], per_suit[2], per_suit[3]), len(river), bool(view["alarms"][o]))


def tile_features(sf: SeatFeatures, tile: int) -> tuple[int, int, bool, str, int, str, bool]:
    """:func:`danger_features` of ``tile`` against the seat whose :func:`seat_features` are ``sf``."""
    m, rl, river, ms, per_suit, n_river, alarm = sf
    suit = min(tile // 9, 3)
    rel = "none" if not ms else ("same" if suit in ms and len(ms) == 1 else ("mixed" if suit in ms else "other"))
    dshare = min(per_suit[suit] * 3 // max(1, n_river), 2) if n_river else 0
    r9 = tile % 9
    edge = "honour" if tile >= HONOR else ("edge" if r9 in (0, 8) else ("near" if r9 in (1, 7) else "mid"))
    return m, rl, tile in river, rel, dshare, edge, alarm


def danger_features(view: Mapping[str, Any], o: int, tile: int) -> tuple[int, int, bool, str, int, str, bool]:
    """What the danger of discarding ``tile`` against seat ``o`` is measured by (all public): its shown melds (0-3),
    its river's length // 3 (0-5), whether the tile is in its river, whether its melds are of the tile's suit
    ("none", "same": all of it, "mixed", "other"), its river's share of the tile's suit (0-2), the tile's rank
    ("honour", "edge" 1/9, "near" 2/8, "mid") and whether it raised an alarm. The calibration
    (``benchmarks/calibrate_strong.py``) and the evaluator read them through this one function (the evaluator reads
    a seat's part once a decision: :func:`seat_features`, :func:`tile_features`)."""
    return tile_features(seat_features(view, o), tile)


STEP_CAP: dict[str, float] = {"wuhu": 0.65}
"""Per variant: a step further from a legal win keeps at most this share of the chance (beyond two steps, where the
measured cells are few and borrow from each other)."""
READY_PUNG_ONLY = frozenset({"hefei"})
"""Variants whose strong AI pungs only to get ready (each of its pungs short of ready is priced below passing): Hefei,
where the one claimed meld of a hand (H2) also costs 门清 10. Measured on 2,000 deals (seed 0) against the strong AI
that pungs by its price: +0.15 子 a hand (paired, ± 0.21; +0.10 and +0.13 on 600 and 1,000 deals)."""
DEAL_IN_COST: dict[str, float] = {}
"""Per variant: a multiplier on the 子 a deal-in costs (:meth:`Know.danger`, so the evaluator's and the look-ahead's
prices alike); 1 where absent. A switch for measuring (docs/strong-ai-rounds.md, the seventh round)."""
FAR_DEAL_IN_COST: dict[str, tuple[int, float]] = {}
"""Per variant: (distance, factor): a discard that leaves the hand at least that many steps from a legal win ranks
with its deal-in cost times the factor (:func:`_discard_option`; the price the review shows, ``Option.ev``, keeps
the cost as read). A switch for measuring; no variant uses it (docs/strong-ai-rounds.md, Hefei's fifteenth round: the
strong AI's pushes three or more steps away lost 0.39 子 each where +0.60 was priced, but Hefei at (3, 20) made
-0.07 ± 0.16 子 a hand on 2,000 duel deals)."""
MARGIN_FLOOR = 0.02
"""子 the normal AI's choice keeps besides its share :data:`PRIOR` of its ev (a hand of little ev still keeps some)."""
PRIOR_FAR: dict[str, float] = {}
"""Per variant: the margin the normal AI's choice keeps when it leaves the hand further from ready than the
look-ahead looks (``lookahead.MAX_D``), in place of the variant's margin. A switch for measuring (docs/strong-ai-rounds.md,
the seventh round); no variant uses it."""
PRIOR_BY_DANGER: dict[str, tuple[float, float]] = {}
"""Per variant: (safer, riskier): the margin the normal AI's choice keeps against a discard less / more likely to
deal in than it, in place of the one margin (:func:`_margin_by_danger`). A switch for measuring (docs/strong-ai-rounds.md,
the seventh round); no variant uses it."""
PASS_PRIOR: dict[str, float] = {"wuhu": 0.0}
"""Per variant: the margin the normal AI's pass keeps against a pung or kong offered on a discard (where the normal AI
passes, the strong AI's claim must beat the pass by this share of the pass's ev, besides :data:`MARGIN_FLOOR`), in
place of the variant's margin. Wuhu 0: its pungs beyond the normal AI's gained (a Wuhu pung gives up no concealed
hand's extra), and with no margin for the pass +0.11 子 a hand (± 0.11) on 2,000 duel deals (docs/strong-ai-rounds.md,
Wuhu's fifteenth round)."""
ALARM_FACTOR: dict[str, dict[str, float]] = {"wuhu": WUHU_ALARM_FACTOR}
"""Per variant with alarms: "alarm:class" -> the factor on the rest of the danger model of a discard against a seat
showing that alarm (:func:`engine.strong.wuhu.alarm_kind`, :func:`engine.strong.wuhu.alarm_class`), in place of the
marginal alarm factor of :data:`DANGER_FACTOR` (measured by ``benchmarks/calibrate_alarm_danger.py``)."""
HEFEI_FLUSH_JIAO = {"flush_line": 0.111}
"""Hefei: the share of the deal-ins to a seat showing a one-suit line that were a 清一色 ((清一色 + 1) / (deal-ins +
2): 1 of 16 on 6,000 one-hand deals of four normal AIs, ``calibrate_alarm_danger --variant hefei --threat any
--after``, seeds ``sd:N``; priced as a 清一色 each, 39.9 子 read where 14.6 were paid)."""
ALARM_JIAO: dict[str, dict[str, float]] = {"wuhu": WUHU_ALARM_JIAO, "hefei": HEFEI_FLUSH_JIAO}
"""Per variant: alarm (or "flush_line") -> the share of the deal-ins to a seat showing it that were a 交 (Hefei: a
清一色; the rest were plain wins): what a deal-in to it costs mixes the two (:meth:`Know._threat`)."""
MELD_FACTOR: dict[str, dict[str, float]] = {"hefei": HEFEI_MELD_FACTOR}
"""Per variant: the seat's melds and the wall left (:func:`engine.strong.hefei.meld_cell`) -> the factor on the rest
of the danger model (its base and factors count the melds, and the factor of the melds' suit counts them again:
measured by ``benchmarks/calibrate_alarm_danger.py --threat any``)."""
CHIZHOU_HUA_FACTOR: dict[int, float] = CHIZHOU_MEASURED_HUA_FACTOR
"""Chizhou: the 花 a seat shows (1, 2, 3: 3 or more) -> the factor on the rest of the danger model of a discard against
it (:data:`engine.strong.chizhou.DANGER_BY_HUA` counts the exposures and the tile's factors were measured over every
seat: measured against both by ``benchmarks/calibrate_alarm_danger.py --variant chizhou --threat any``); 1 where
absent."""
SELF_SHARE: dict[str, float] = MEASURED_SELF_SHARE
"""Per variant: the share of what this seat would pay if the other seat self-drew that a deal-in's cost takes off
(:meth:`Know._threat`: a deal-in ends the hand, and this seat would have paid about that much to the wins still to
come), measured (``benchmarks/calibrate_alarm_danger.py --threat any --after``); 0.35 where absent."""
READY_WIN: dict[str, list[float]] = READY_FACTOR
"""Per variant: [own draws left 0-2, 3-5, 6-8, 9-11, 12+] (:func:`ready_turns_band`) -> the factor on the chance to win
of an option that leaves the hand ready (plain plan; after the look-ahead, as the option is priced), measured on the
strong AI's own play against what happened (``benchmarks/calibrate_win_chance.py``, the twelfth round); 1 where
absent."""
FAR_VALUE: dict[str, float] = {}
"""Per variant: the factor on the value of a win of a hand not ready on the plain plan (:meth:`Know.hand_value`), the
same for every distance, so that the level of such hands against a deal-in's cost moves and their ranking among
themselves does not; 1 where absent. A switch for measuring (docs/strong-ai-rounds.md, the thirteenth round: Wuhu at the
measured 1.45 lost); no variant uses it."""
KONG_VALUE: dict[str, tuple[float, float]] = {}
"""Per variant: (exposed, concealed): 子 a plain win of a hand not ready gains for each kong among its melds, at the
rules' smaller stakes (Wuhu 315; 525 pays twice), added to the typical plain value (:meth:`Know.hand_value`; a ready
hand's winning tiles are priced by the scorer, kongs in). Wuhu's 杠番 (W9: 明杠 1, 暗杠 2 from each of the three
payers of every win, W10) is in no typical hand's value, so a kong made or held short of ready is priced as none. A
switch for measuring; no variant uses it (docs/strong-ai-rounds.md, Wuhu's sixteenth round: Wuhu at (3, 6) made -0.03 ±
0.07 子 a hand on duel deals 0..999, 36 deals played differently)."""
READY_TILES_POW: dict[str, float] = {"wuhu": 0.4}
"""Per variant: the power of a ready hand's winning tiles against a typical ready hand's (capped at 1.8 times) in its
chance to win (:meth:`Know.hand_value`); 0.6 where absent. Wuhu 0.4: four normal AIs' ready hands won as that power
says by their unseen winning tiles (within 0.95-1.05 for one to eight on held-out deals), where 0.6 read a ready
hand of one or two such tiles 1.2-1.3 times low (``python -m benchmarks.calibrate_ready_tiles``, docs/strong-ai-rounds.md,
the fourteenth round)."""
HAILAO: dict[str, tuple[float, ...]] = {"hefei": HEFEI_HAILAO_REACH}
"""Per variant with a last-four phase where a self-draw pays more (Hefei's 海捞, H5, H7: +10 from each payer): own
draws left (0, 1, 2, ...; the last for all beyond) -> the share of the hands still going on that reach the last four
(each seat then draws once; ``benchmarks/calibrate_hailao.py``, four normal AIs). A ready hand's value adds the part
of its wins that come there: that share x its self-drawn winning tiles' share of the unseen x :data:`HAILAO_BONUS`
(the scorer prices its winning tiles as ordinary self-draws). Absent: not priced."""
HAILAO_BONUS: dict[str, float] = {"hefei": HEFEI_HAILAO_BONUS}
"""Per variant: 子 a 海捞 self-draw adds (10 from each of three payers) times the share of seats whose own draw in the
last four comes (no other seat won there before it)."""
WAIT_FACTORS: dict[str, tuple[float, float]] = {"hefei": (1.0, 1.0), "wuhu": (1.0, 1.0)}
"""Per variant: (on a discard, self-drawn): a ready hand's winning tiles weighted by the measured factor of their
class (:func:`engine.strong.waits.wait_class`: the copies the other seats discard and the seat draws against the flat
count, :mod:`engine.strong.calibration_waits`) to that power (0: every copy alike), the factors of the unseen copies
scaled to a mean of 1 in each view (:meth:`Know.wait_factors`). Absent: every unseen copy alike. Hefei and Wuhu: a
truer price at no measured loss (four normal AIs' ready hands on held-out deals: log-loss 0.6645 -> 0.6493 in Hefei,
0.6540 -> 0.6476 in Wuhu; the duel +0.003 ± 0.079 子 a hand in Hefei, +0.010 ± 0.076 in Wuhu over 2,000 deals;
docs/strong-ai-rounds.md, the round "Which winning tiles come")."""
READY_TURNS = (0, 3, 6, 9, 12)
"""The bands of own draws left of :data:`READY_WIN`."""


def ready_turns_band(turns: int) -> int:
    """The band of ``turns`` own draws left (:data:`READY_TURNS`)."""
    return max(i for i, b in enumerate(READY_TURNS) if turns >= b)


def _ready_win(out: list[Option], factors: Sequence[float], turns: int) -> list[Option]:
    """The options that leave the hand ready on the plain plan with their chance to win times the measured factor of
    the draws left (a kong's hand draws one more), their ev moved by the same share of chance x value (:data:`READY_WIN`)."""
    res = []
    for o in out:
        if o.distance == 0 and not o.plan and o.action.type not in ("win", "next_hand") and o.win > 0:
            f = factors[ready_turns_band(turns + (1 if o.action.type == "kong" else 0))]
            o = replace(o, win=o.win * f, ev=o.ev + (1 - o.deal_in) * (f - 1) * o.win * o.value)
        res.append(o)
    return res


PASSED_SAFE = frozenset({"wuhu", "hefei"})
"""Variants whose danger reads :func:`passed_since`: a tile another seat let go by since its own last discard does
not win for it now (it did not wait on it, or it passed a win and 漏胡 bars it from any discard win until it draws)."""




# ------------------------------------------------------------------------------------------------ the seat's view



@cache
def _rep_payments(variant: str, rules_key: tuple[tuple[str, Any], ...], plan: str, is_open: bool, winner: int,
                  discarder: int | None) -> tuple[int, int, int, int] | None:
    """The scorer's payments (by wind) of the plan's typical hand won by ``winner`` (None: it may not win so)."""
    reps = _REPS.get(variant)
    if reps is None or plan not in reps:
        return None
    hand = parse_hand(reps[plan][1 if is_open else 0])
    try:
        return get_variant(variant).score(hand, Situation(winner=winner, discarder=discarder), dict(rules_key)).payments
    except EngineError:
        return None


def flush_line(melds: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a seat's shown melds are a one-suit line: two or more melds, the suited ones all of one suit (read
    as a threat of a one-suit hand by the danger, the price of a deal-in and the review)."""
    return len(melds) >= 2 and len({min(int(x["tile"]) // 9, 3) for x in melds if int(x["tile"]) < HONOR}) == 1


def still_to_come(view: Mapping[str, Any], remaining: Sequence[int]) -> list[int]:
    """The copies of each kind the seat may still draw or be offered, from its view: ``remaining`` (the variant's
    copies less every river and meld tile and the seat's own, :attr:`engine.ai_common.SeatReader.remaining`) less,
    while a kong may be robbed, the tile being added to it (shown to all, in no river or meld yet: not one still to
    come). The one count of what is unseen for the evaluator (:attr:`Know.unseen`) and the review, which reads it from
    the evaluation (:attr:`Evaluation.unseen`)."""
    out = list(remaining)
    rob = view.get("robbing")
    if rob:
        k = int(rob["tile"])
        out[k] = max(0, out[k] - 1)
    return out


class Know:
    """Everything the evaluator reads, all of it from the seat's view."""

    def __init__(self, view: Mapping[str, Any], seat: int) -> None:
        self.view = view
        self.seat = seat
        self.variant: str = view["variant"]
        self.V = get_variant(self.variant)
        self.rules: dict[str, Any] = dict(view["rules"])
        self.rules_key = tuple(sorted(self.rules.items()))
        self.me = SeatReader(view, seat)
        self.dealer: int = view["dealer"]
        self.wind = (seat - self.dealer) % 4
        self.unseen = still_to_come(view, self.me.remaining)
        self.U = max(1, sum(self.unseen))
        self.turns = max(0, (int(view["wall_count"]) - self.V.reserve)) // 4
        self.full_wall = sum(self.V.tile_counts(self.rules)) - 53
        """The wall at the first discard (the dealer's 14 and the others' 13 tiles dealt)."""
        self.melds = view["melds"]
        self.own_melds = [_wind_meld(m, self.dealer) for m in self.melds[seat]]
        self.wind_melds = tuple(tuple(_wind_meld(m, self.dealer) for m in self.melds[(self.dealer + w) % 4])
                                for w in range(4))
        self.ron_ok = not view.get("last_four")
        self.honours_in_flush = _FLUSH_HONOURS.get(self.variant, True)
        self._tenpai_cache: dict[tuple[Any, ...], tuple[float, float, float, float]] = {}
        self._scale: float | None = None
        self._main = self.me.main_suit(self.me.counts)
        self.threats = [self._threat(o) for o in range(4)]
        self.win_table = WIN.get(self.variant)
        self.passed = passed_since(view) if self.variant in PASSED_SAFE else None
        self._hefei_danger: HefeiDangerReader | None = None  # Hefei's learned danger, built at its first use
        self._danger: dict[int, tuple[float, float, int | None]] = {}
        self._seat_fac: dict[int, tuple[float, str, float]] = {}  # _seat_factors, per seat
        self._seat_feat: list[SeatFeatures | None] = [None, None, None, None]  # seat_features, per seat
        self._mean: dict[tuple[str, bool], float] = {}  # mean_value, per plan and concealed / open
        self._plan: dict[tuple[str, bool], tuple[float, float | None]] = {}  # plan_value, the same way
        self._learned: LearnedReader | None = None  # the learned chance to win (learned.py), built at its first use
        self._wait_f: tuple[list[float], list[float]] | None = None  # wait_factors, built at its first use
        self._flush_caps: dict[tuple[int, int, bool], float] = {}  # _flush_cap, per shanten, draws left, open

    # -------------------------------------------------------------- values
    def rep(self, plan: str, is_open: bool, winner: int, discarder: int | None) -> tuple[int, int, int, int] | None:
        return _rep_payments(self.variant, self.rules_key, plan, is_open, winner, discarder)

    def plan_value(self, plan: str, is_open: bool) -> tuple[float, float | None]:
        """(self-drawn, on a discard or None) 子 this seat gains winning the plan's typical hand (kept for the
        decision)."""
        got = self._plan.get((plan, is_open))
        if got is None:
            w = self.wind
            s = self.rep(plan, is_open, w, None)
            r = self.rep(plan, is_open, w, (w + 1) % 4)
            got = self._plan[(plan, is_open)] = (float(s[w]) if s else 1.0), (float(r[w]) if r else None)
        return got

    def wait_factors(self) -> tuple[list[float], list[float]] | None:
        """Per kind, (on a discard, self-drawn): how much likelier than another unseen copy one of its copies is to be
        another seat's discard / this seat's draw (:data:`WAIT_FACTORS`: the measured factor of its class to the
        variant's power, scaled so that the unseen copies' mean is 1); None: every copy alike. Kept for the view."""
        pw = WAIT_FACTORS.get(self.variant)
        if pw is None:
            return None
        if self._wait_f is None:
            cls = wait_classes(self.view, self.seat, self.full_wall)
            u = self.unseen
            out = []
            for tab, p in ((WAITS_RON_FACTOR.get(self.variant, {}), pw[0]),
                           (WAITS_SELF_FACTOR.get(self.variant, {}), pw[1])):
                f = [tab.get(cls[k], 1.0) ** p for k in range(NUM_KINDS)]
                tot = sum(u[k] * f[k] for k in range(NUM_KINDS))
                scale = self.U / tot if tot > 0 else 1.0
                out.append([x * scale for x in f])
            self._wait_f = (out[0], out[1])
        return self._wait_f

    def tenpai(self, c: Sequence[int], melds: tuple[Meld, ...], kong_draw: bool = False
               ) -> tuple[float, float, float, float]:
        """A ready hand's winning tiles priced by the scorer: (q_self, v_self, q_ron, v_ron): the chance a draw wins
        and its mean value, the same for a discard (each unseen copy weighted by :meth:`wait_factors` where the
        variant has them)."""
        key = (tuple(c), melds, kong_draw)
        got = self._tenpai_cache.get(key)
        if got is not None:
            return got
        ns = nr = 0.0
        vs = vr = 0.0
        wf = self.wait_factors()
        # every winning kind's payments, kept per process (engine/strong/lookahead.py); a kind counts when unseen
        for k, ps, r1, r2 in lookahead_wait_payments(self, c, melds, kong_draw):
            u = self.unseen[k]
            if not u:
                continue
            us, ur = (u * wf[1][k], u * wf[0][k]) if wf is not None else (u, u)
            if ps is not None:
                ns += us
                vs += us * ps
            for r in (r1, r2):
                if r is not None:
                    nr += ur
                    vr += ur * r
        out = (ns / self.U, vs / ns if ns else 0.0, nr / 2 / self.U, vr / nr if nr else 0.0)
        self._tenpai_cache[key] = out
        return out

    def ukeire(self, c: list[int], n_melds: int, sh: int, sp: bool) -> int:
        """Unseen tiles that lower the shanten of a 3n+1 hand."""
        pairs = sum(n // 2 for n in c) if sp else 0  # seven pairs: a drawn copy of an odd count makes a pair
        unseen = self.unseen
        out = 0
        # the shanten with each near kind drawn, by its group against the other groups' sums (lookahead.py)
        for k, sh2 in lookahead_one_away(c, n_melds, True):
            u = unseen[k]
            if not u:
                continue
            if (sp and 6 - min(pairs + (c[k] & 1), 7) < sh) or sh2 < sh:
                out += u
        return out

    def shape(self, c: Sequence[int], k: int) -> float:
        """What the chance model misses of a discard's shape, in 子: the normal AI's sense of how little tile k does
        (a lone tile, an edge, a suit the hand does not keep for 八支 / a one-suit hand), at the scale of a win."""
        if self._scale is None:
            vs, vr = self.plan_value("", bool(self.own_melds))
            self._scale = 0.006 * (vs if vr is None else (vs + vr) / 2)
        return self._scale * self.me.waste(c, k, self._main)

    # -------------------------------------------------------------- threats
    def _threat(self, o: int) -> tuple[float, bool, bool]:
        """(the cost of dealing in to seat o in 子: what this seat pays, less what it would pay anyway if o won by
        self-draw, plus the win this seat gives up, counted in :func:`_discard_option`), whether o shows a
        one-suit line, whether o has an alarm)."""
        if o == self.seat:
            return 0.0, False, False
        pay_ron, pay_self = self.deal_in_pays(o)
        share = SELF_SHARE.get(self.variant, 0.35)
        return max(0.3, pay_ron - share * pay_self), self._flush_line(o), bool(self.view["alarms"][o])

    def _flush_line(self, o: int) -> bool:
        return flush_line(self.melds[o])

    def deal_in_pays(self, o: int) -> tuple[float, float]:
        """(what this seat pays when it deals in to seat o, what it pays when o self-draws), by the scorer's typical
        hands: a plain win, or a one-suit 交 when o shows a one-suit line or an alarm; in Wuhu, against an alarm or
        a one-suit line, the 交 (with its 包, :func:`engine.strong.wuhu.alarm_bao`) at the measured share of such
        seats' wins (:data:`ALARM_JIAO`) and a plain win otherwise (in Hefei, against a one-suit line, its 清一色 the
        same way: :data:`HEFEI_FLUSH_JIAO`); in Chizhou a deal-in pays the measured mean
        (:data:`engine.strong.chizhou.DEAL_IN_PAYS`)."""
        melds = self.melds[o]
        alarms = bool(self.view["alarms"][o])
        is_open = any(x["kind"] != "concealed_kong" for x in melds)  # concealed kongs keep it concealed (门清)
        ow = (o - self.dealer) % 4
        kind = alarm_kind(self.view["alarms"][o]) if alarms else ("flush_line" if self._flush_line(o) else "")
        jiao = ALARM_JIAO.get(self.variant, {}).get(kind)
        if jiao is not None:
            pay_ron, pay_self = self._pays("flush", is_open, ow, alarm_bao(kind, melds))
            plain_ron, plain_self = self._pays("", is_open, ow, False)
            return jiao * pay_ron + (1 - jiao) * plain_ron, jiao * pay_self + (1 - jiao) * plain_self
        pay_ron, pay_self = self._pays("flush" if (self._flush_line(o) or alarms) else "", is_open, ow,
                                       alarms and self.me.ai.bazhi)
        if self.me.ai.hua_gate:  # Chizhou: the typical hands may not be won on a discard (C5); the measured payment
            pay_ron = CHIZHOU_DEAL_IN_PAYS
        return pay_ron, pay_self

    def _pays(self, plan: str, is_open: bool, ow: int, bao: bool) -> tuple[float, float]:
        """(what this seat pays when seat wind ``ow`` wins the plan's typical hand on its discard (``bao``: for all
        three, 包), what it pays when that seat self-draws it)."""
        r = self.rep(plan, is_open, ow, self.wind)
        s_ = self.rep(plan, is_open, ow, None)
        pay_ron = -float(r[self.wind]) if r else 0.0
        if bao and r:  # dealing into it pays for all three (包)
            pay_ron = float(r[ow])
        return pay_ron, (-float(s_[self.wind]) if s_ else 0.0)

    def deal_in_chance(self, o: int, k: int) -> float:
        """The measured chance that discarding k now deals in to seat o (:mod:`engine.strong.calibration`; in Wuhu,
        the factor measured against the rest of the model (:data:`ALARM_FACTOR`): against a seat showing an alarm by
        the alarm and the tile, against a one-suit line by the tile, against any other seat by its shown melds and the
        third of the hand)."""
        if self.variant == "hefei" and HEFEI_LEARNED and DANGER_BASE.get(self.variant) is not None:
            if self.passed is not None and k in self.passed[o]:
                return 0.0  # let go by o since its last discard: no discard win on it now
            if self._hefei_danger is None:  # Hefei: the learned model (engine/strong/hefei.py)
                self._hefei_danger = HefeiDangerReader(self.view, self.unseen)
            return min(0.35, self._hefei_danger.chance(o, k))
        p, _ = self.rest_chance(o, k)
        by_melds, by_class, by_seat = self._seat_factors(o)
        p *= by_melds
        if by_class:  # an alarm or a one-suit line: the factor by the alarm (or line) and the tile's class
            p *= ALARM_FACTOR[self.variant].get(f"{by_class}:{alarm_class(self.melds[o], k)}", 1.0)
        else:
            p *= by_seat
        return min(0.35, p)

    def _seat_factors(self, o: int) -> tuple[float, str, float]:
        """What the danger of any tile against seat o is multiplied by for what o shows, read once a decision:
        (the factor by its melds and the wall left (Hefei), the alarm or "flush_line" whose factor goes by the tile's
        class ("" none), the factor otherwise: an alarm's marginal one where none is measured by class, in Wuhu any
        other seat's by its shown melds and the third of the hand)."""
        got = self._seat_fac.get(o)
        if got is None:
            wall = int(self.view["wall_count"])
            by_melds = MELD_FACTOR.get(self.variant)
            # measured against the rest of the model, by the seat's melds and the wall left
            f_melds = by_melds.get(hefei_meld_cell(self.melds[o], wall, self.full_wall), 1.0) if by_melds else 1.0
            by = ALARM_FACTOR.get(self.variant)
            cls, f_seat = "", 1.0
            if self.view["alarms"][o]:
                kind = alarm_kind(self.view["alarms"][o])
                if by and kind:  # measured against the rest of the model (calibrate_alarm_danger.py)
                    cls = kind
                else:
                    f_seat = DANGER_FACTOR[self.variant].get("alarm", {}).get(True, 1.0)
            elif by and self._flush_line(o):  # a one-suit line and no alarm: measured the same way
                cls = "flush_line"
            elif by:  # any other seat: by its shown melds and the third of the hand
                f_seat = by.get(f"plain:{min(3, len(self.melds[o]))}:{wall_third(wall)}", 1.0)
            got = self._seat_fac[o] = (f_melds, cls, f_seat)
        return got

    def rest_chance(self, o: int, k: int) -> tuple[float, bool]:
        """(the product of the measured base and factors for discarding k against seat o, without the cap and
        without the factor of its alarm; whether o shows an alarm). 0 when the tile cannot deal in to o now."""
        base = DANGER_BASE.get(self.variant)
        if base is None:
            return 0.0, False
        if self.passed is not None and k in self.passed[o]:
            return 0.0, False  # let go by o since its last discard: no discard win on it now
        sf = self._seat_feat[o]
        if sf is None:  # what the danger reads of seat o whatever the tile: once a decision
            sf = self._seat_feat[o] = seat_features(self.view, o)
        m, rl, inriv, rel, dshare, edge, alarm = tile_features(sf, k)
        p = base[m][rl]
        if self.me.ai.hua_gate:  # Chizhou: a discard win needs 3 花 (C5), so the 花 the seat shows decide
            hua = min(shown_hua(self.wind_melds[(o - self.dealer) % 4]), 3)
            p = CHIZHOU_DANGER_BY_HUA[hua][rl] * CHIZHOU_HUA_FACTOR.get(hua, 1.0)
        fac = DANGER_FACTOR[self.variant]
        for name, val in (("inriv", inriv), ("rel", rel), ("dshare", dshare), ("edge", edge)):
            if name == "edge" and self.variant == "hefei":  # Hefei: the ways to wait on it (engine/strong/hefei.py)
                p *= HEFEI_WAYS_FACTOR[hefei_ways_bucket(self.unseen, k)]
                continue
            p *= fac.get(name, {}).get(val, 1.0)
        if not alarm:
            p *= fac.get("alarm", {}).get(False, 1.0)
        if k >= HONOR and self.unseen[k] == 0:
            p = 0.0  # every copy in sight: nobody waits on it
        return p, alarm

    def danger(self, k: int) -> tuple[float, float, int | None]:
        """(chance discarding k deals in now, expected 子 it costs, the seat it is most dangerous against); kept
        per kind for the decision (the discards priced and the look-ahead's follow-up discards ask again)."""
        got = self._danger.get(k)
        if got is None:
            got = self._danger[k] = self._danger_now(k)
        return got

    def _danger_now(self, k: int) -> tuple[float, float, int | None]:
        if not self.ron_ok:
            return 0.0, 0.0, None
        p_tot = 0.0
        cost = 0.0
        worst: tuple[float, int] | None = None
        for o in range(4):
            if o == self.seat:
                continue
            c = self.threats[o][0]
            p = self.deal_in_chance(o, k)
            p_tot += p
            cost += p * c
            if worst is None or p * c > worst[0]:
                worst = (p * c, o)
        p_tot = min(0.95, p_tot)
        cost *= DEAL_IN_COST.get(self.variant, 1.0)
        return p_tot, (cost / p_tot if p_tot > 0 else 0.0), (worst[1] if worst and worst[0] > 0.05 else None)

    def danger_by_seat(self, k: int, won: float) -> tuple[float, ...]:
        """What discarding k now is expected to cost against each seat, as :meth:`_danger_now` builds its price:
        the chance to deal in to it times what that costs, plus ``won`` (子: the win of this seat's own hand, which
        a deal-in ends); 0 against this seat and when no deal-in is possible now. Read by the review only, to say
        whom a risky tile is dangerous against where no single seat's payment makes a named threat."""
        if not self.ron_ok:
            return (0.0,) * 4
        f = DEAL_IN_COST.get(self.variant, 1.0)
        return tuple(0.0 if o == self.seat else self.deal_in_chance(o, k) * (self.threats[o][0] * f + won)
                     for o in range(4))

    # -------------------------------------------------------------- the hand
    def chance(self, d: int, turns: int) -> float:
        """The measured chance to win from distance ``d`` with ``turns`` own draws left (:data:`WIN`)."""
        tab = self.win_table
        if tab is None:
            return 0.5 ** (d + 1)
        t = min(max(turns, 0), len(tab[0]) - 1)
        d = max(d, 0)
        step = STEP_CAP.get(self.variant)
        if step is None:
            return tab[min(d, len(tab) - 1)][t]
        # few hands are that far: the measured cells beyond two steps borrow from each other, so each step further
        # keeps at most ``step`` of the chance one step nearer (a farther hand is never as likely to win)
        p = tab[0][t]
        for i in range(1, d + 1):
            p = min(tab[min(i, len(tab) - 1)][t], p * step) if i >= 3 else tab[i][t]
        return p

    def far_chance(self, c: list[int], n_melds: int, sh: int, key: tuple[int, ...], turns: int
                   ) -> tuple[int, int, int, float]:
        """A hand not ready (shanten ``sh``, the normal AI's distance ``key``): (its distance, at least 1; its useful
        tiles; a typical hand's at its shanten; the measured chance at its distance and ``turns`` own draws left,
        scaled by the useful tiles against the typical count)."""
        d = max(1, key[0])
        sp = self.me.seven_pairs and n_melds == 0
        u = max(self.ukeire(c, n_melds, sh, sp), 1) if sh > 0 else _TYPICAL[0]
        typ = _TYPICAL[min(max(sh, 0), len(_TYPICAL) - 1)]
        rel = min(1.6, max(0.3, u / typ)) ** 0.5
        return d, u, typ, self.chance(d, turns) * rel

    def hand_value(self, c: list[int], n_melds: int, meld_suits: Sequence[int], meld_hua: int, upg: int,
                   melds: tuple[Meld, ...], extra_draw: bool = False) -> HandValue:
        """The chance and value of winning a 3n+1 hand (counts ``c``) with these melds: the measured chance at its
        distance and draws left, scaled by how its useful tiles compare with a typical hand's at that distance;
        when ready, the winning tiles priced one by one by the scorer."""
        me = self.me
        sp = me.seven_pairs and n_melds == 0
        sh = kept_shanten(c, n_melds, sp)
        # the normal AI's distance (shanten, 八支, the 花 gate): me.key(c, ...), whose shanten is this one
        key = me.key_sh(c, sh, meld_suits, meld_hua, upg)
        turns = self.turns + (1 if extra_draw else 0)
        is_open = any(m.kind is not MeldKind.CONCEALED_KONG for m in melds)
        best: HandValue | None = None
        if key[0] == 0 and sh == 0:
            qs, vs, qr, vr = self.tenpai(c, melds, extra_draw)
            if qs > 0 or qr > 0:
                q_ron = 1 - (1 - qr) ** 3 if self.ron_ok else 0.0
                tiles = (qs + q_ron / 3) * self.U  # unseen winning tiles (weighted: WAIT_FACTORS), a discard win at a third
                p = min(0.97, self.chance(0, turns) * min(1.8, max(0.15, tiles / _TYPICAL[0]))
                        ** READY_TILES_POW.get(self.variant, 0.6))
                tot = qs + q_ron
                value = (qs * vs + q_ron * vr) / tot if tot else 0.0
                reach = HAILAO.get(self.variant)
                if reach and p > 0:  # the last four's self-draw bonus, at the chance the hand gets there (H7)
                    value += reach[min(max(turns, 0), len(reach) - 1)] * qs * HAILAO_BONUS.get(self.variant, 0.0) / p
                best = HandValue(p, value, "", 0)
        if best is None:
            d, u, typ, p = self.far_chance(c, n_melds, sh, key, turns)
            # the chance learned from self-play (learned.py; off: docs/strong-ai-rounds.md, the sixth round)
            if VALUE_LEARNED.get(self.variant) and learned_mod.MIN_D <= d <= learned_mod.MAX_D:
                if self._learned is None:
                    self._learned = LearnedReader(self.view, self.seat, me.ai.bazhi, sp or me.seven_pairs)
                p = self._learned.chance(c, n_melds, meld_suits, not is_open, sh, d, turns, u, typ, p)
            value = self.mean_value("", is_open) * FAR_VALUE.get(self.variant, 1.0)
            kv = KONG_VALUE.get(self.variant)
            if kv and melds:  # the kongs' 杠番, which the typical hand's value does not count
                big = 2 if self.rules.get("mode") == 525 else 1
                value += big * sum(kv[1] if m.kind is MeldKind.CONCEALED_KONG else kv[0]
                                   for m in melds if m.kind in (MeldKind.KONG, MeldKind.CONCEALED_KONG))
            best = HandValue(p, value, "", key[0])
        # the one-suit plan
        fl = self._flush(c, n_melds, meld_suits, meld_hua, upg, melds, turns, is_open, best.ev, sh)
        if fl is not None and fl.ev > best.ev:
            best = fl
        pu = self._pungs(c, n_melds, meld_hua, upg, melds, turns, is_open)
        if pu is not None and pu.ev > best.ev:
            best = pu
        return best

    def _live_waits(self, c: list[int], has_melds: bool) -> Iterator[int]:
        """The kinds a ready 3n+1 hand waits on that this seat has not seen all copies of (seven pairs only when the
        variant has them and the hand shows no meld)."""
        sp = self.V.seven_pairs and not has_melds
        for k in range(NUM_KINDS):
            if not self.unseen[k]:
                continue
            c[k] += 1
            ok = is_complete(c) or (sp and is_seven_pairs(c))
            c[k] -= 1
            if ok:
                yield k

    def _pungs(self, c: list[int], n_melds: int, meld_hua: int, upg: int, melds: tuple[Meld, ...], turns: int,
               is_open: bool) -> HandValue | None:
        """Chizhou's all-pungs plan (对对胡, a 蜡子): no chi shown; the distance counts concealed triplets and pairs
        (pairs beyond the sets still missing count as the pair), with the 花 gate as for any win."""
        if "pungs" not in _REPS.get(self.variant, {}) or any(m.kind is MeldKind.CHI for m in melds):
            return None
        s = 4 - n_melds
        t = min(sum(1 for k in range(NUM_KINDS) if c[k] >= 3), s)
        pairs = min(sum(1 for k in range(NUM_KINDS) if c[k] == 2), s - t + 1)
        sh = max(0, 2 * s - 2 * t - pairs)
        if sh > 4:
            return None
        d = gate_distance(sh, self.me.hua_need(c, meld_hua, upg))
        p = self.chance(max(d, 1), turns) * PUNGS_RATE / 1000
        return HandValue(p, self.mean_value("pungs", is_open), "pungs", d)

    def mean_value(self, plan: str, is_open: bool) -> float:
        """子 a win of the plan is worth: the scorer's typical hands (self-drawn and on a discard, 1 : 1.2), scaled
        so that a plain win, concealed and open alike, is worth on average what a plain win is measured to be worth
        (:data:`MEAN_VALUE`): the scale is one for both, so what the scorer pays for a concealed hand (Hefei's 门清 10)
        stays in the value."""
        got = self._mean.get((plan, is_open))
        if got is not None:
            return got
        got = self._mean[(plan, is_open)] = self._mean_value(plan, is_open)
        return got

    def _mean_value(self, plan: str, is_open: bool) -> float:
        vs, vr = self.plan_value(plan, is_open)
        v = vs if vr is None else (vs + vr * 1.2) / 2.2
        plains = []
        for o in (False, True):
            ps, pr = self.plan_value("", o)
            plains.append(ps if pr is None else (ps + pr * 1.2) / 2.2)
        plain = (plains[0] + plains[1]) / 2
        want = MEAN_VALUE.get(self.variant)
        return v * (want / plain) if want and plain > 0 else v

    def _flush_cap(self, sh: int, turns: int, is_open: bool) -> float:
        """The most the one-suit plan of a hand can be worth (:meth:`_flush`, not Wuhu's) when the whole hand's
        shanten is ``sh`` (the seven pairs counted or not): the suit's tiles alone are a part of the hand, so their
        shanten and the plan's distance ``d`` are at least ``sh``, and the plan's chance, the measured chance at
        ``d + 1`` steps (:meth:`chance`) times the rate, is at most the table's highest at ``sh + 1`` steps or more
        times the rate, multiplied as :meth:`_flush` multiplies (a float product of non-negative numbers never
        falls when a factor rises). Kept for the decision. Infinite (no cap) where the chance is not read from the
        table alone (:data:`STEP_CAP`, no table) or the plan's value is negative."""
        key = (sh, turns, is_open)
        got = self._flush_caps.get(key)
        if got is None:
            tab = self.win_table
            mv = self.mean_value("flush", is_open)
            if tab is None or self.variant in STEP_CAP or mv < 0:
                got = float("inf")
            else:
                t = min(max(turns, 0), len(tab[0]) - 1)
                top = max(tab[i][t] for i in range(min(max(sh + 1, 0), len(tab) - 1), len(tab)))
                got = top * (CHIZHOU_FLUSH_RATE if self.me.ai.hua_gate else FLUSH_RATE) / 1000 * mv
            self._flush_caps[key] = got
        return got

    def _flush(self, c: list[int], n_melds: int, meld_suits: Sequence[int], meld_hua: int, upg: int,
               melds: tuple[Meld, ...], turns: int, is_open: bool, floor: float | None = None, sh: int = 0
               ) -> HandValue | None:
        """The one-suit plan's chance and value, or None. ``floor``: the ev another plan of the hand is worth (the
        plain plan's, whose shanten is ``sh``); the plan counts only above it (:meth:`hand_value`), so None is
        returned at once when it cannot get there (:meth:`_flush_cap`): the same plan wherever it counts."""
        if "flush" not in _REPS.get(self.variant, {}):
            return None
        if floor is not None and self.variant != "wuhu" and floor >= self._flush_cap(sh, turns, is_open):
            return None
        if self.variant == "wuhu":  # the plan's chance measured on play that goes for it (engine/strong/wuhu.py)
            got = wuhu_flush_chance(c, n_melds, meld_suits, [m.tile for m in melds], turns)
            hun = wuhu_hun_chance(c, n_melds, meld_suits, [m.tile for m in melds], turns) if WUHU_HUN else None
            hv = None if hun is None else HandValue(hun[0], hun[1], "hun", hun[2])  # one suit and 红中 (混一色)
            if got is None:
                return hv
            if got[1] == 0 and next(self._live_waits(c, bool(melds)), None) is None:
                # ready, but every tile it waits on is in sight: the wait must change first, a step from ready
                row = WUHU_FLUSH_WIN[1]
                got = (row[min(max(turns, 0), len(row) - 1)], 1)
            vs, vr = self.plan_value("flush", is_open)  # a 交 is paid uncapped: the scorer's amount as it is
            fl = HandValue(got[0], vs if vr is None else (vs + vr * 1.2) / 2.2, "flush", got[1])
            return hv if hv is not None and hv.ev > fl.ev else fl
        tot = [sum(c[s * 9 : s * 9 + 9]) + meld_suits[s] for s in range(3)]
        s = max(range(3), key=lambda x: tot[x])
        off = sum(tot) - tot[s]
        if off == 0 and not (not self.honours_in_flush and any(c[HONOR:])):
            return None  # already one suit: the plain plan's scoring sees it
        for m in melds:
            if m.tile >= HONOR:
                if not self.honours_in_flush:
                    return None
            elif m.tile // 9 != s:
                return None
        if tot[s] < 7:
            return None
        rc = [0] * NUM_KINDS
        rc[s * 9 : s * 9 + 9] = c[s * 9 : s * 9 + 9]
        if self.honours_in_flush:
            rc[HONOR:] = c[HONOR:]
        sh = kept_shanten(rc, n_melds)
        # self.me.key(rc, ...): its shanten counts the seven pairs too where they may be won
        sh_key = min(sh, seven_pairs_shanten(rc)) if self.me.seven_pairs and n_melds == 0 else sh
        key = self.me.key_sh(rc, sh_key, meld_suits, meld_hua, upg)
        d = max(key[0], sh)
        # one suit's tiles only: a step further than the same distance to any win, and fewer tiles serve it
        p = self.chance(d + 1, turns) * (CHIZHOU_FLUSH_RATE if self.me.ai.hua_gate else FLUSH_RATE) / 1000
        return HandValue(p, self.mean_value("flush", is_open), "flush", d)


# ------------------------------------------------------------------------------------------------ pricing actions


def _after_discard(kn: Know, c: list[int], n_melds: int, ms: Sequence[int], mh: int, upg: int,
                   melds: tuple[Meld, ...], tile: int, extra_draw: bool = False) -> tuple[HandValue, float, float,
                                                                                             int | None]:
    c[tile] -= 1
    hv = kn.hand_value(c, n_melds, ms, mh, upg, melds, extra_draw)
    c[tile] += 1
    p, cost, threat = kn.danger(tile)
    return hv, p, cost, threat


def _discard_option(a: Action, hv: HandValue, p: float, cost: float, threat: int | None, shape: float = 0.0,
                    far: tuple[int, float] | None = None) -> Option:
    ev = (1 - p) * (hv.ev + shape) - p * cost
    # a hand far from ready: its deal-in cost weighs more when ranking (FAR_DEAL_IN_COST); the price stays ev
    margin = -(far[1] - 1) * p * cost if far is not None and hv.distance >= far[0] else 0.0
    return Option(a, ev, hv.win, hv.value, p, cost, hv.plan, hv.distance, threat, margin)


def _margin_by_danger(out: list[Option], pick: Action, prior: float, safer: float, riskier: float) -> list[Option]:
    """The discards safer than the normal AI's choice (a lower chance to deal in) depart from it at a margin of
    ``safer`` of its ev, the riskier ones at ``riskier``, instead of ``prior`` (:data:`PRIOR_BY_DANGER`)."""
    po = next(o for o in out if o.action == pick)
    res = []
    for o in out:
        if o.action != pick and o.action.type == "discard":
            if o.deal_in < po.deal_in - 1e-9:
                o = replace(o, margin=o.margin + (prior - safer) * abs(po.ev))
            elif o.deal_in > po.deal_in + 1e-9:
                o = replace(o, margin=o.margin + (prior - riskier) * abs(po.ev))
        res.append(o)
    return res


def _best_after_claim(kn: Know, c: list[int], n_melds: int, ms: Sequence[int], mh: int, upg: int,
                      melds: tuple[Meld, ...], seat: int) -> tuple[float, HandValue, float, float, int | None]:
    """A 3n+2 hand after a claim: the best of its discards (ev, hand value, deal-in, cost, threat)."""
    best: tuple[float, HandValue, float, float, int | None] | None = None
    for k in range(NUM_KINDS):
        if not c[k]:
            continue
        hv, p, cost, threat = _after_discard(kn, c, n_melds, ms, mh, upg, melds, k)
        ev = (1 - p) * hv.ev - p * cost
        if best is None or ev > best[0] + 1e-9:
            best = (ev, hv, p, cost, threat)
    assert best is not None
    return best


def _meld_of(kind: MeldKind, tile: int, fed: int | None) -> Meld:
    return Meld(kind, tile, fed)


def _win_value(kn: Know, a: Action) -> float:
    """The scorer's payment to this seat of winning now (1 when it cannot tell)."""
    view = kn.view
    c = list(kn.me.counts)
    w = kn.wind
    rob = view.get("robbing")
    ld = view.get("last_discard")
    disc: int | None = None
    if sum(c) % 3 == 2:
        d = view.get("drawn")
        tile = d if d is not None else next(k for k in range(NUM_KINDS) if c[k])
        c[tile] -= 1
    else:
        src = rob or ld
        if not src:
            return 1.0
        tile = int(src["tile"])
        disc = (int(src["seat"]) - kn.dealer) % 4
    concealed = tuple(k for k in range(NUM_KINDS) for _ in range(c[k]))
    try:
        res = kn.V.score(Hand(concealed, tuple(kn.own_melds), tile),
                         Situation(winner=w, discarder=disc, rob_kong=rob is not None and disc is not None,
                                   melds_by_seat=kn.wind_melds, last_tiles=bool(view.get("last_four"))), kn.rules)
    except EngineError:
        return 1.0
    return float(res.payments[w])


OUTRANK_MARGIN = 100.0
"""A margin (子 added or taken away when ranking, not a price) beyond any price's reach: added, no other option
outranks the one that keeps it (the discard of a hopeless Chizhou hand, :data:`engine.strong.chizhou.HOPELESS`);
taken away, every other option outranks it (a Chizhou chi the normal AI would not take,
:data:`engine.strong.chizhou.CHI_AS_NORMAL`)."""


def _hopeless_pick(me: SeatReader, out: Sequence[Option], discards: Sequence[Action], normal_pick: Action,
                   kong_first: Action | None, let_go: Action | None) -> Action | None:
    """Chizhou (:data:`engine.strong.chizhou.HOPELESS`): when the hand is hopeless late and another seat shows 3 花,
    the tile such a seat most likely waits on (:func:`engine.ai_common.ron_feed_pick`), or when it may win on none of
    them the normal AI's discard; else None."""
    cfg = chizhou_mod.HOPELESS
    if cfg is None or not discards or kong_first is not None or me.wall > cfg[1]:
        return None
    if max((o.win * o.value for o in out if o.action.type == "discard"), default=0.0) >= cfg[0]:
        return None
    fed = ron_feed_pick(me, discards)
    if fed is not None:
        return fed
    if not me.shown_threats():
        return None
    return let_go or feed_discard(me, discards) or normal_pick


def evaluate(view: Mapping[str, Any], seat: int, legal: Sequence[Action | Mapping[str, Any]] | None = None
             ) -> Evaluation:
    """Price every legal action of ``seat`` (``legal``: default the view's own list) from its view alone."""
    acts = [a if isinstance(a, Action) else Action.from_json(a) for a in (view["legal"] if legal is None else legal)]
    acts = [a for a in acts if a.type != "timeout"]
    kn = Know(view, seat)
    me = kn.me
    c = list(me.counts)
    n = me.n_melds
    ms = list(me.meld_suits)
    mh = me.meld_hua
    melds = tuple(kn.own_melds)
    out: list[Option] = []
    ld = view.get("last_discard")
    offered = int(ld["tile"]) if ld else None
    fed = None if ld is None else (int(ld["seat"]) - kn.dealer) % 4
    now: HandValue | None = None
    real: dict[Action, float] = {}  # the price of an option whose ev below carries a credit that only ranks it
    # Chizhou: a hand too far from 2 花 for the wall left lets go of what gives the others 花 (the normal AI's rule)
    discards = [a for a in acts if a.type == "discard"]
    # the normal AI's best discard and the distance it leaves (shape: shanten, 八支, 花, 进张, the main suit)
    normal = best_discard(me, me.counts, me.n_melds, me.meld_suits, me.meld_hua, discards) if discards else None
    let_go = (feed_discard(me, discards, chizhou_mod.LET_GO_WALL, chizhou_mod.LET_GO_NEED)
              if me.ai.hua_gate else None)
    # Chizhou: a kong the normal AI takes comes before its letting go (it plays the kong first), so the credit
    # does not outrank it (engine.strong.chizhou.KONG_FIRST)
    kong_first = (normal_kong(me, acts, normal[1])
                  if normal is not None and me.ai.hua_gate and chizhou_mod.KONG_FIRST else None)
    if kong_first is not None:
        let_go = None
    for a in acts:
        t = a.tile
        if a.type in ("win", "next_hand"):
            v = _win_value(kn, a) if a.type == "win" else 0.0
            out.append(Option(a, v, 1.0, v, 0.0, 0.0, "", -1, None))
        elif a.type == "discard" and t is not None:
            hv, p, cost, threat = _after_discard(kn, c, n, ms, mh, me.upg, melds, t)
            feed = 0.0
            if me.ai.hua_gate and t >= HONOR and kn.unseen[t] >= 2:  # Chizhou: a live honour may feed a pung (花)
                feed = CHIZHOU_FEED_COST * (kn.unseen[t] - 1) / 2
            if a == let_go:  # the credit ranks it; its price is the discard's own (no 花 fed is charged either)
                real[a] = _discard_option(a, hv, p, cost, threat, kn.shape(c, t)).ev
                feed = -CHIZHOU_LET_GO
            out.append(_discard_option(a, hv, p, cost, threat, kn.shape(c, t) - feed,
                                       FAR_DEAL_IN_COST.get(kn.variant)))
        elif a.type == "pass":
            if sum(c) % 3 == 2:  # the last four: the drawn tile is laid aside
                d = view.get("drawn")
                k = d if d is not None else next(x for x in range(NUM_KINDS) if c[x])
                c[k] -= 1
                hv = kn.hand_value(c, n, ms, mh, me.upg, melds)
                c[k] += 1
            else:
                if now is None:
                    now = kn.hand_value(c, n, ms, mh, me.upg, melds)
                hv = now
            out.append(Option(a, hv.ev, hv.win, hv.value, 0.0, 0.0, hv.plan, hv.distance, None))
        elif a.type in ("pung", "chi") and t is not None:
            c2 = list(c)
            ms2 = list(ms)
            mh2 = mh
            if a.type == "chi":
                for x in (t, t + 1, t + 2):
                    if x != offered:
                        c2[x] -= 1
                ms2[t // 9] += 3
                m_new = Meld(MeldKind.CHI, t, fed, offered)
            else:
                c2[t] -= 2
                if t < HONOR:
                    ms2[t // 9] += 3
                else:
                    mh2 += 1
                m_new = _meld_of(MeldKind.PUNG, t, fed)
            upg = me.upg + (1 if a.type == "pung" and me.remaining[t] else 0)
            if min(c2) < 0 or not any(c2):
                continue
            ev, hv, p, cost, threat = _best_after_claim(kn, c2, n + 1, ms2, mh2, upg, melds + (m_new,), seat)
            out.append(Option(a, ev, hv.win, hv.value, p, cost, hv.plan, hv.distance, threat))
        elif a.type == "kong" and t is not None:
            c2 = list(c)
            ms2 = list(ms)
            held = c2[t]
            if held == 4:  # concealed
                c2[t] = 0
                nm = n + 1
                mh2 = mh + (3 if t >= HONOR else 2)
                if t < HONOR:
                    ms2[t // 9] += 4
                m_list = melds + (Meld(MeldKind.CONCEALED_KONG, t),)
                upg = me.upg
            elif held == 3 and sum(c2) % 3 == 1:  # claimed on a discard
                c2[t] = 0
                nm = n + 1
                mh2 = mh + (2 if t >= HONOR else 1)
                if t < HONOR:
                    ms2[t // 9] += 4
                m_list = melds + (Meld(MeldKind.KONG, t, fed),)
                upg = me.upg
            else:  # added to a shown pung
                c2[t] -= 1
                nm = n
                mh2 = mh + 1
                if t < HONOR:
                    ms2[t // 9] += 1
                m_list = tuple(Meld(MeldKind.KONG, m.tile, m.fed_by, None, True) if m.kind is MeldKind.PUNG
                               and m.tile == t else m for m in melds)
                upg = max(0, me.upg - 1)
            hv = kn.hand_value(c2, nm, ms2, mh2, upg, m_list, extra_draw=True)
            # a kong pays in every variant (杠番, 花, 杠): a small premium keeps it ahead of an equal discard
            ev = hv.ev + KONG_PREMIUM[0] + KONG_PREMIUM[1] * abs(hv.value)
            real[a] = hv.ev
            out.append(Option(a, ev, hv.win, hv.value, 0.0, 0.0, hv.plan, hv.distance, None))
        else:
            out.append(Option(a, 0.0, 0.0, 0.0, 0.0, 0.0, "", 99, None))
    if not out:
        out = [Option(a, 0.0, 0.0, 0.0, 0.0, 0.0, "", 99, None) for a in acts[:1]]
    # the normal AI's choice (shape: shanten, 八支, 花, 进张, the main suit) is trusted unless another option is
    # clearly worth more: it carries a margin of PRIOR of its own value
    pass_act = next((a for a in acts if a.type == "pass"), None)
    pick: Action | None = None
    hopeless: Action | None = None
    prior = LOOKAHEAD_PRIOR.get(kn.variant, PRIOR) if kn.variant in LOOKAHEAD_VARIANTS else PRIOR
    if normal is not None:
        pick = normal[0]
        if kong_first is not None:
            pick = kong_first
        if let_go is not None and chizhou_mod.LET_GO_PICK:  # Chizhou: the letting go keeps the margin instead
            pick = let_go
        hopeless = _hopeless_pick(me, out, discards, normal[0], kong_first, let_go) if me.ai.hua_gate else None
        if hopeless is not None:  # Chizhou: a hopeless hand feeds a seat showing 3 花 (chizhou.HOPELESS)
            pick = hopeless
    elif pass_act is not None and any(a.type in ("pung", "chi", "kong") for a in acts):
        pick = claim_choice(me, acts, pass_act)
    if pick is not None and pick == pass_act and kn.variant in PASS_PRIOR:
        prior = PASS_PRIOR[kn.variant]  # the normal AI passes on a claim: the pass keeps this margin
    if kn.variant in LOOKAHEAD_VARIANTS:  # the discards near ready priced over the next own draw (lookahead.py)
        out = lookahead_refine(kn, out, c, n, ms, mh, me.upg, melds, keep=pick)
    ready_f = READY_WIN.get(kn.variant)
    if ready_f:  # a ready hand's chance as measured on the strong AI's own play
        new = _ready_win(out, ready_f, kn.turns)
        for o, o2 in zip(out, new, strict=True):
            if o.action in real:  # a kong's price without its premium moves as its ev does
                real[o.action] += o2.ev - o.ev
        out = new
    if kn.variant == "wuhu" and (discards or pick is not None):
        # Wuhu: when the hand the one-suit play leaves is worth most as a 清一色, that play keeps the margin
        for red in (False, True) if WUHU_HUN else (False,):  # 清一色, then one suit and 红中 (混一色)
            fl = wuhu_flush_play(me, acts, red)
            fo = next((o for o in out if o.action == fl), None)
            if fo is not None and fo.plan == ("hun" if red else "flush"):
                pick = fl
                prior = WUHU_FLUSH_PRIOR
                break
    if pick is not None:  # the margin ranks the options; the price (ev) stays chance x value
        po = next((o for o in out if o.action == pick), None)
        if kn.variant in PRIOR_FAR and po is not None and po.distance > LOOKAHEAD_MAX_D:
            prior = PRIOR_FAR[kn.variant]  # a choice the look-ahead does not price
        out = [replace(o, margin=o.margin + prior * abs(o.ev) + MARGIN_FLOOR) if o.action == pick else o for o in out]
        if kn.variant in PRIOR_BY_DANGER:
            out = _margin_by_danger(out, pick, prior, *PRIOR_BY_DANGER[kn.variant])
    if hopeless is not None:
        out = [replace(o, margin=o.margin + OUTRANK_MARGIN) if o.action == hopeless else o for o in out]
    if chizhou_mod.CHI_AS_NORMAL and me.ai.hua_gate and pick is not None and pass_act is not None:
        # Chizhou: a chi only where the normal AI claims it (chizhou.CHI_AS_NORMAL)
        out = [replace(o, margin=o.margin - OUTRANK_MARGIN) if o.action.type == "chi" and o.action != pick else o
               for o in out]
    if kn.variant in READY_PUNG_ONLY and pass_act is not None:
        # one claimed meld a hand (H2): a pung that leaves the hand short of ready is priced below passing
        po = next(o for o in out if o.action == pass_act)
        out = [replace(o, ev=min(o.ev, po.ev - 0.01),
                       margin=min(o.ev + o.margin, po.ev + po.margin - 0.01) - min(o.ev, po.ev - 0.01))
               if o.action.type == "pung" and o.distance > 0 else o for o in out]
    # the credits (a kong's premium, Chizhou's let-go) move from the price to the margin: the ranking (ev + margin)
    # is the one above, the price the review charges is the hand's own
    out = [replace(o, ev=real[o.action], margin=o.margin + (o.ev - real[o.action])) if o.action in real else o
           for o in out]
    return Evaluation(seat, kn.variant, tuple(out), tuple(kn.unseen), let_go)


def danger_by_seat(view: Mapping[str, Any], seat: int, tile: int, won: float = 0.0) -> tuple[float, ...]:
    """Per seat, the expected 子 that discarding ``tile`` now costs ``seat`` against it (:meth:`Know.danger_by_seat`:
    the deal-in's payment and ``won``, the win a deal-in ends), from the seat's view: the same chances and payments
    the price of that discard reads. Prices nothing and decides nothing."""
    return Know(view, seat).danger_by_seat(tile, won)


def choose(view: Mapping[str, Any], seat: int, legal: Sequence[Action | Mapping[str, Any]]) -> Action:
    """The strong AI's action: a win whenever one is legal, otherwise the option of the highest expected 子."""
    acts = plain_actions(legal)
    return forced(acts) or evaluate(view, seat, acts).best.action
