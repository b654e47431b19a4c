"""Wuhu's one-suit plan (清一色, a direct 交: W7): how far a hand is from it, a plain policy that plays for it, and
the measured chance of completing it.

A 交 is paid from the uncapped 交 tally (W8, W11): 30 子 per payer on a discard, 40 self-drawn (315), against ~14 for a
plain win on a discard. The strong AI prices the plan by :data:`engine.strong.calibration_wuhu.FLUSH_WIN`: the
measured chance that a seat playing :func:`flush_choice` (every tile of another suit or 红中 out first, every tile of
its suit punged or konged) completes the 清一色 from a given distance with so many own draws left, against three
normal AIs (``benchmarks/calibrate_wuhu_flush.py``). The evaluator (:mod:`engine.strong.evaluator`) calls
:func:`flush_chance` for the plan's chance and, when the plan is worth most, gives :func:`flush_choice`'s action the
margin the normal AI's choice has otherwise.

Beside it the **混一色 play** (:func:`hun_choice`: one suit and 红中; 混一色 alone is a 嘴子, with a 四核, 对对胡 or 通天
a 交, W8; without 红中 a 清一色), priced by what it is measured to win (:data:`HUN_WIN`, :data:`HUN_EV`: the chance and
the 子 of its wins, whatever the scorer finds in them). Both plays keep a fourth copy that can join a run (四核,
:func:`sihe_room`) rather than kong it (:data:`KEEP_SIHE`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..ai_common import SeatReader, near_kinds
from ..analysis import shanten
from ..table.actions import Action
from ..tiles import HONOR, NUM_KINDS
from .calibration_wuhu import FLUSH_WIN
from .calibration_wuhu_hun import HUN_EV, HUN_WIN
from .lookahead import kept_shanten

RED = HONOR + 6
"""红中 (7z), the one honour of Wuhu's tiles."""


def _in_plan(k: int, suit: int, red: bool = True) -> bool:
    """Whether tile kind ``k`` belongs to a one-suit hand of ``suit`` (``red``: 红中 too, as 混一色 and the all-pungs
    play keep it)."""
    return (red and k == RED) or (k < HONOR and k // 9 == suit)


def flush_suit(c: Sequence[int], meld_suits: Sequence[int]) -> int:
    """The suit a one-suit hand would be of: the one holding most tiles (concealed and in melds)."""
    tot = [sum(c[s * 9 : s * 9 + 9]) + meld_suits[s] for s in range(3)]
    return max(range(3), key=lambda x: tot[x])


def flush_distance(c: Sequence[int], n_melds: int, suit: int) -> tuple[int, int, int]:
    """(distance, shanten of the suit's tiles alone, tiles of other suits and 红中 still held) of a 3n+1 hand to a
    ready 清一色 of ``suit``: every other tile must be drawn over by a tile of the suit, so the distance is at least
    their count."""
    rc = [0] * NUM_KINDS
    rc[suit * 9 : suit * 9 + 9] = c[suit * 9 : suit * 9 + 9]
    off = sum(c) - sum(rc)
    sh = kept_shanten(rc, n_melds)
    return max(sh, off), sh, off


def _off_waste(c: Sequence[int], k: int) -> tuple[int, int]:
    """How little an off-suit tile does for a plain hand (lower: let it go first): pairs and neighbours kept."""
    if k >= HONOR:
        return (c[k], 0)
    s, r = divmod(k, 9)
    near = sum(c[s * 9 + j] for j in range(max(0, r - 2), min(9, r + 3)) if j != r)
    return (c[k], near)


def _plan_discard(c: Sequence[int], tiles: Sequence[int], in_plan: Callable[[int], bool],
                  key: Callable[[list[int], int], tuple[int, int]]) -> int:
    """The discard of a seat playing for a plan: a tile outside it (the least useful first), else the plan's tile whose
    hand after it (``key`` of the counts without it, and the tile) is best, the highest kind on a tie."""
    off = [k for k in tiles if not in_plan(k)]
    if off:
        return min(off, key=lambda k: (_off_waste(c, k), -k))
    cc = list(c)

    def after(k: int) -> tuple[int, int, int]:
        cc[k] -= 1
        out = (*key(cc, k), -k)
        cc[k] += 1
        return out

    return min(sorted(set(tiles)), key=after)


def flush_discard(me: SeatReader, c: Sequence[int], n_melds: int, suit: int, tiles: Sequence[int],
                  red: bool = False) -> int:
    """The discard of a seat playing for 清一色 of ``suit`` (``red``: 混一色, 红中 kept too) among ``tiles``: a tile
    outside the plan (the least useful first), else the plan's tile that leaves the lowest shanten with the most unseen
    useful tiles."""

    def key(cc: list[int], _k: int) -> tuple[int, int]:
        sh = shanten(cc, n_melds)
        useful = 0
        for j in near_kinds(cc):
            if not _in_plan(j, suit, red) or not me.remaining[j]:
                continue
            cc[j] += 1
            if shanten(cc, n_melds) < sh:
                useful += me.remaining[j]
            cc[j] -= 1
        return sh, -useful

    return _plan_discard(c, tiles, lambda k: _in_plan(k, suit, red), key)


def flush_choice(view: Mapping[str, Any], seat: int, acts: Sequence[Action]) -> Action:
    """A plain policy that plays for 清一色 only (used to measure the plan's chance): wins are taken, tiles of the
    suit punged and konged, everything else let go first."""
    return flush_play(SeatReader(view, seat), acts)


KEEP_SIHE = False
"""The one-suit plays keep a fourth copy that may sit in a run (四核, a 嘴子: with 混一色 a 交, with 清一色 an extra
嘴子, W6-W8) instead of a kong (a claimed fourth copy is punged, the held one kept). A better play on its own
(``calibrate_wuhu_flush.py --keep-sihe``: the 清一色 play makes a 交 in 1.8% of hands instead of 1.3% and loses 2.36 子 a
hand instead of 3.1, 20,000 hands), but the strong AI with it and its table won no more in the duel (docs/strong-ai-rounds.md):
off, so the tables are those of the play that kongs."""


def sihe_room(c: Sequence[int], k: int) -> bool:
    """Whether a fourth copy of suited ``k`` may go into a sequence beside its triplet (四核): a tile of its suit
    within two ranks is held."""
    if k >= HONOR:
        return False
    r = k % 9
    return any(0 <= r + d < 9 and c[k + d] for d in (-2, -1, 1, 2))


def flush_play(me: SeatReader, acts: Sequence[Action], red: bool = False) -> Action:
    """:func:`flush_choice` from the seat's reading of its view (the strong AI has it already); ``red``: the 混一色
    play (:func:`hun_choice`)."""
    c = list(me.counts)
    suit = flush_suit(c, me.meld_suits)
    return _plan_play(acts, c, lambda k: _in_plan(k, suit, red),
                      lambda tiles: flush_discard(me, c, me.n_melds, suit, tiles, red), KEEP_SIHE)


def _plan_play(acts: Sequence[Action], c: Sequence[int], in_plan: Callable[[int], bool],
               discard: Callable[[list[int]], int], keep_sihe: bool = False) -> Action:
    """The action of a plain plan policy: a win taken; a kong, else a pung, of a plan tile (a fourth copy that may
    sit in a run kept, ``keep_sihe``: :func:`sihe_room`); else the plan's ``discard`` among the tiles it may let go;
    else passing."""
    win = next((a for a in acts if a.type in ("win", "next_hand")), None)
    if win is not None:
        return win
    for a in acts:
        if a.type == "kong" and a.tile is not None and in_plan(a.tile) and not (keep_sihe and sihe_room(c, a.tile)):
            return a
    pungs = [a for a in acts if a.type == "pung" and a.tile is not None and in_plan(a.tile)]
    if pungs:
        return pungs[0]
    discards = [a for a in acts if a.type == "discard" and a.tile is not None]
    if discards:
        k = discard([int(a.tile) for a in discards if a.tile is not None])
        return next(a for a in discards if a.tile == k)
    return next((a for a in acts if a.type == "pass"), acts[0])


def hun_choice(view: Mapping[str, Any], seat: int, acts: Sequence[Action]) -> Action:
    """A plain policy that plays for one suit and 红中 (混一色, a 嘴子; with 四核, 对对胡 or 通天 beside it a 交, W8;
    清一色 when no 红中 comes): wins taken, tiles of the suit and 红中 punged and konged, everything else let go first."""
    return flush_play(SeatReader(view, seat), acts, red=True)


def hun_distance(c: Sequence[int], n_melds: int, suit: int) -> tuple[int, int, int]:
    """(distance, shanten of the suit's tiles and 红中, other tiles still held) of a 3n+1 hand to a ready hand of
    ``suit`` and 红中 (:func:`flush_distance` with 红中 in the plan)."""
    rc = [0] * NUM_KINDS
    rc[suit * 9 : suit * 9 + 9] = c[suit * 9 : suit * 9 + 9]
    rc[RED] = c[RED]
    off = sum(c) - sum(rc)
    sh = kept_shanten(rc, n_melds)
    return max(sh, off), sh, off


FLUSH_PRIOR = 0.3
"""The margin the one-suit play keeps when the plan is worth most (the normal AI's choice keeps ``PRIOR``)."""
FLUSH_MAX_D = 2
"""The plan is counted only this near a ready 清一色. Farther, the measured chances are small and the plan won
(duplicate duels against three normal AIs) fewer 子 than the plain hand it gave up: counted within 3, 4 or 6 steps it
gained +0.23, +0.14 and +0.11 子 a hand over the strong AI before it, within 2 +0.46 (600 deals, seed 1); within 2
and 3 alike on 2,000 deals (seed 0: +0.33 and +0.38, each ± 0.2)."""


def flush_chance(c: Sequence[int], n_melds: int, meld_suits: Sequence[int], meld_tiles: Sequence[int],
                 turns: int) -> tuple[float, int] | None:
    """(the measured chance to complete a 清一色, its distance) of a 3n+1 hand with ``turns`` own draws left; None
    when a meld of another suit or of 红中 rules it out. (How many of the suit's tiles are still unseen changes
    nothing measurable once the distance and draws are known: ``calibrate_wuhu_flush.py`` prints the factors.)"""
    suit = flush_suit(c, meld_suits)
    if any(t >= HONOR or t // 9 != suit for t in meld_tiles):
        return None
    d = flush_distance(c, n_melds, suit)[0]
    if d > FLUSH_MAX_D:
        return None
    row = FLUSH_WIN[min(d, len(FLUSH_WIN) - 1)]
    return row[min(max(turns, 0), len(row) - 1)], d


# ------------------------------------------------------------------------------------------------ the pung play
# 对对胡 (a 嘴子, W6) of one suit and 红中: with 混一色 (one suit + 红中) two 嘴子 = 1 交, with 清一色 a 交 and an
# extra 嘴子 (W8). Wuhu has no chi and a pung may be claimed from any seat, so a pair is half a pung. Measured by
# ``benchmarks/calibrate_wuhu_flush.py --plan pungs`` (engine/strong/calibration_wuhu_pungs.py); priced beside the
# 清一色 plan it gained nothing in the duel (docs/strong-ai-rounds.md), so the evaluator does not use it.



def pung_suit(c: Sequence[int], meld_tiles: Sequence[int]) -> int:
    """The suit an all-pungs one-suit hand would be of: the one with most tiles in pairs or better (then most tiles),
    melds counting three each."""
    def score(s: int) -> tuple[int, int]:
        own = c[s * 9 : s * 9 + 9]
        m = sum(3 for t in meld_tiles if t < HONOR and t // 9 == s)
        return (m + sum(x for x in own if x >= 2), m + sum(own))
    return max(range(3), key=score)


def pung_distance(c: Sequence[int], n_melds: int, suit: int, remaining: Sequence[int]) -> tuple[int, int, int]:
    """(distance, pung shanten of the plan's tiles, tiles outside the plan still held) of a 3n+1 hand to a ready
    all-pungs hand of ``suit`` and 红中: a pair counts only while a copy of it is unseen (it must be punged or drawn),
    and every tile outside the plan must be drawn over."""
    s = 4 - n_melds
    trip = pairs = off = 0
    for k in range(NUM_KINDS):
        x = c[k]
        if not x:
            continue
        if not _in_plan(k, suit):
            off += x
        elif x >= 3:
            trip += 1
        elif x == 2 and remaining[k]:
            pairs += 1
    trip = min(trip, s)
    pairs = min(pairs, s - trip + 1)
    sh = max(0, 2 * (s - trip) - pairs)
    return max(sh, off), sh, off


def pung_discard(me: SeatReader, c: Sequence[int], suit: int, tiles: Sequence[int]) -> int:
    """The discard of a seat playing for one-suit all pungs: a tile outside the plan (the least useful first), else a
    plan tile that leaves the nearest hand, the one with fewest unseen copies first."""

    def key(cc: list[int], k: int) -> tuple[int, int]:
        return pung_distance(cc, me.n_melds, suit, me.remaining)[0], me.remaining[k] + (2 if c[k] >= 2 else 0)

    return _plan_discard(c, tiles, lambda k: _in_plan(k, suit), key)


def pung_choice(view: Mapping[str, Any], seat: int, acts: Sequence[Action]) -> Action:
    """A plain policy that plays for one-suit all pungs only (used to measure the plan's chance): wins are taken,
    tiles of the suit and 红中 punged and konged, everything else let go first."""
    me = SeatReader(view, seat)
    c = list(me.counts)
    suit = pung_suit(c, [int(m["tile"]) for m in view["melds"][seat]])
    return _plan_play(acts, c, lambda k: _in_plan(k, suit), lambda tiles: pung_discard(me, c, suit, tiles))


# ------------------------------------------------------------------------------------------------ the 混一色 play
# One suit and 红中 (:func:`hun_choice`): 混一色 alone is a 嘴子, with 四核, 对对胡 or 通天 beside it a 交 (W8), without
# 红中 a 清一色. Its worth is measured on play that goes for it (``calibrate_wuhu_flush.py --plan hun``): the chance
# to win and the 子 the wins bring, whatever the scorer finds in them.

HUN_MAX_D = 2
"""The 混一色 play is counted only this near a ready hand of one suit and 红中 (1 or 2 steps: a ready hand is priced
by the scorer, wait by wait)."""


HUN_NEED_RED = True
"""The 混一色 play is priced only for a hand holding or showing 红中 (else the 清一色 plan prices the one-suit hand)."""


def hun_chance(c: Sequence[int], n_melds: int, meld_suits: Sequence[int], meld_tiles: Sequence[int],
               turns: int) -> tuple[float, float, int] | None:
    """(the measured chance to win playing for one suit and 红中, the 子 a win brings on average, the distance) of a
    3n+1 hand with ``turns`` own draws left; None when a meld of another suit rules it out, when the hand holds no
    红中 (the 清一色 plan prices it) or is ready or farther than :data:`HUN_MAX_D`."""
    suit = flush_suit(c, meld_suits)
    if any(t != RED and (t >= HONOR or t // 9 != suit) for t in meld_tiles):
        return None
    if HUN_NEED_RED and not c[RED] and RED not in meld_tiles:
        return None
    d = hun_distance(c, n_melds, suit)[0]
    if d == 0 or d > HUN_MAX_D:
        return None
    t = min(max(turns, 0), len(HUN_WIN[0]) - 1)
    p = HUN_WIN[d][t]
    if p <= 0:
        return None
    return p, HUN_EV[d][t] / p, d



# ------------------------------------------------------------------------------------------------ alarms (报警, W12)

ALARM_KINDS = ("alarm_three_pure", "alarm_three_mixed", "alarm_double_eight", "alarm_double_sihe")
"""The alarms in the order a seat showing several is filed by (the 3对 alarms first: theirs is the 包 that bites)."""


def alarm_kind(codes: Sequence[str]) -> str:
    """The alarm a seat is priced by: the first of :data:`ALARM_KINDS` among its alarm codes ("" when none)."""
    return next((k for k in ALARM_KINDS if k in codes), "")


def alarm_class(melds: Sequence[Mapping[str, Any]], k: int) -> str:
    """Tile ``k`` against a seat's alarm: ``suit`` (of the suit most of its shown suited melds are of: its alarm's),
    ``other`` (another suit) or ``red`` (红中)."""
    if k >= HONOR:
        return "red"
    suits = [int(m["tile"]) // 9 for m in melds if int(m["tile"]) < HONOR]
    main = max(range(3), key=suits.count) if suits else None
    return "suit" if k // 9 == main else "other"


def alarm_bao(kind: str, melds: Sequence[Mapping[str, Any]]) -> bool:
    """Whether a discarder who deals a 交 into this alarm pays for everyone (包, W12): a 3对 alarm always (the rule
    of one feeder of all three aside), a 双八支 alarm when the seat shows a claimed pung or kong of another suit; a
    双四核 alarm only on the tile of its own pungs (a fourth copy), not counted here."""
    if kind in ("alarm_three_pure", "alarm_three_mixed"):
        return True
    if kind == "alarm_double_eight":
        suits = {int(m["tile"]) // 9 for m in melds if int(m["tile"]) < HONOR and str(m["kind"]) in ("pung", "kong")}
        return len(suits) >= 2
    return False


WALL_THIRDS = (40, 20)
"""The wall left at which a hand enters its second and its last third (a Wuhu hand's first discard sees 59)."""


def wall_third(wall_count: int) -> int:
    """0 (the first third of the hand, by the wall left), 1 or 2 (the last)."""
    return sum(1 for w in WALL_THIRDS if wall_count < w)
