"""A chance to win learned from self-play, for a hand not ready (Hefei, Wuhu; measured, see :data:`VALUE_LEARNED`).

The evaluator prices a hand short of ready by the measured chance at its distance (the normal AI's: shanten, 八支)
and own draws left, scaled by its useful tiles against a typical hand's (``Know.hand_value``): two hands at the same
distance with about as many useful tiles get the same price. The model here reads more of the hand, all of it from
the seat's view: the kinds of partial sets it holds (two-sided, edge or middle waits, pairs) after the best reading
of each suit, the isolated tiles and their ranks, the honours, the blocks against the five a hand needs, the 八支
slack (the main suit's tiles against the 7 a 13-tile hand needs), its melds and whether it is concealed, the seat
being the dealer, how far along the other seats look (their melds, alarms), and the price it replaces (its logit, so
the fit starts from it). A logistic regression over them (``benchmarks/learn_win_chance.py``, the weights in
:mod:`engine.strong.calibration_value`) is fitted on the afterstates of the discards four normal AIs made while not
ready, labelled by whether that seat went on to win the hand.

Measured and off (:data:`VALUE_LEARNED`): it predicts the wins of held-out deals better than the table's chance and
ranks the options of a decision a little better when they are played out, but the strong AI playing with it did not
gain beyond the noise (it dealt in more: docs/strong-ai-rounds.md, the sixth round).

The seat's part (dealer, the other seats) is summed once per decision (:class:`Reader`), a suit's reading once per
process (:func:`suit_shape`), so a price costs a few dictionary look-ups.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from ..tiles import HONOR
from .calibration_value import VALUE_WEIGHTS

VALUE_LEARNED: dict[str, bool] = {"hefei": False, "wuhu": False}
"""Per variant: a hand not ready is priced by the learned chance (:meth:`Reader.chance`) instead of the measured
table scaled by the useful tiles. Off in both: on 1,000 duel deals (seed 0, paired) Hefei -0.03 子 a hand (± 0.43),
Wuhu -0.09 (± 0.26)."""
MIN_D = 1
"""The learned chance prices hands at least this many steps from a legal win (the normal AI's distance)."""
MAX_D = 99
"""... and at most this many."""
SCALE = 1.0
"""The learned chance times this (1: as fitted)."""
RANK = False
"""Keep the table's level: the learned chance times the ratio of the table's mean chance to the learned one over the
fit's afterstates of the same distance and own draws left (the weights' ``level``), so that only which hand of a
distance is likelier changes, not how likely a hand of that distance is."""

_NONE: dict[str, float] = {}
_TURNS = (3, 6, 9, 12, 15)
_REL = (0.5, 0.75, 1.0, 1.3, 1.6)
_LOGIT = (-7.0, 2.0)


def _bucket(x: float, edges: Sequence[float]) -> int:
    return sum(1 for e in edges if x >= e)


@cache
def suit_shape(t: tuple[int, ...]) -> tuple[int, int, int, int, int, int]:
    """The best reading of one suit's counts (nine ranks): (sets, two-sided partial sets, edge or middle partial
    sets, pairs, isolated tiles of rank 3-7, isolated tiles of rank 1, 2, 8, 9). Best: the most sets and partial
    sets (a set counting two), then the most two-sided ones, then the fewest isolated tiles."""
    c = list(t)
    best: tuple[tuple[int, int, int], tuple[int, int, int, int, int, int]] | None = None

    def go(i: int, sets: int, ryan: int, kan: int, pairs: int, iso_m: int, iso_e: int) -> None:
        nonlocal best
        while i < 9 and not c[i]:
            i += 1
        if i == 9:
            score = (2 * sets + ryan + kan + pairs, ryan, -(iso_m + iso_e))
            if best is None or score > best[0]:
                best = (score, (sets, ryan, kan, pairs, iso_m, iso_e))
            return
        if c[i] >= 3:
            c[i] -= 3
            go(i, sets + 1, ryan, kan, pairs, iso_m, iso_e)
            c[i] += 3
        if i <= 6 and c[i + 1] and c[i + 2]:
            c[i] -= 1
            c[i + 1] -= 1
            c[i + 2] -= 1
            go(i, sets + 1, ryan, kan, pairs, iso_m, iso_e)
            c[i] += 1
            c[i + 1] += 1
            c[i + 2] += 1
        if c[i] >= 2:
            c[i] -= 2
            go(i, sets, ryan, kan, pairs + 1, iso_m, iso_e)
            c[i] += 2
        if i <= 7 and c[i + 1]:
            two_sided = 1 <= i <= 6  # 23 .. 78; 12 and 89 wait on one side
            c[i] -= 1
            c[i + 1] -= 1
            go(i, sets, ryan + two_sided, kan + (not two_sided), pairs, iso_m, iso_e)
            c[i] += 1
            c[i + 1] += 1
        if i <= 6 and c[i + 2]:
            c[i] -= 1
            c[i + 2] -= 1
            go(i, sets, ryan, kan + 1, pairs, iso_m, iso_e)
            c[i] += 1
            c[i + 2] += 1
        c[i] -= 1
        mid = 2 <= i <= 6
        go(i, sets, ryan, kan, pairs, iso_m + mid, iso_e + (not mid))
        c[i] += 1

    go(0, 0, 0, 0, 0, 0, 0)
    assert best is not None
    return best[1]


def hand_features(c: Sequence[int], n_melds: int, meld_suits: Sequence[int], concealed: bool, sh: int, d: int,
                  turns: int, u: int, typical: int, bazhi: bool, seven_pairs: bool) -> list[tuple[str, str]]:
    """The hand's features, ``(group, value)``: the distance ``d`` (the normal AI's) by own draws left ``turns``,
    the 八支 gap (``d`` over the shanten ``sh``), the useful tiles ``u`` against the ``typical`` count at that
    shanten, the partial sets of the best reading of each suit (:func:`suit_shape`) and of the honours, the isolated
    tiles, the blocks against five, the 八支 slack, the melds and whether the hand is concealed, the pairs (seven
    pairs)."""
    sets = ryan = kan = pairs = iso_m = iso_e = 0
    for s in range(3):
        a, b, k, p, im, ie = suit_shape(tuple(c[s * 9 : s * 9 + 9]))
        sets += a
        ryan += b
        kan += k
        pairs += p
        iso_m += im
        iso_e += ie
    hon1 = hon2 = hon3 = 0
    for n in c[HONOR:]:
        if n == 1:
            hon1 += 1
        elif n == 2:
            hon2 += 1
        elif n >= 3:
            hon3 += 1
    blocks = n_melds + sets + hon3 + ryan + kan + pairs + hon2
    tb = _bucket(turns, _TURNS)
    out = [("dt", f"{min(d, 4)}{tb}"), ("gap", str(min(max(d - max(sh, 0), 0), 3))),
           ("uk", f"{min(max(sh, 0), 3)}{_bucket(u / typical, _REL)}"),
           ("ryan", str(min(ryan, 3))), ("kan", str(min(kan, 2))), ("pairs", str(min(pairs + hon2, 3))),
           ("iso_m", str(min(iso_m, 3))), ("iso_e", str(min(iso_e, 3))), ("hon1", str(min(hon1, 2))),
           ("blocks", str(min(max(blocks - 5, -2), 2))),
           ("melds", f"{min(n_melds, 3)}{'c' if concealed else 'o'}")]
    if bazhi:
        best = max(sum(c[s * 9 : s * 9 + 9]) + meld_suits[s] for s in range(3))
        out.append(("slack", str(min(max(best - 7, -3), 5))))
    if seven_pairs and n_melds == 0:
        out.append(("p7", str(min(sum(n // 2 for n in c), 6))))
    return out


def seat_features(view: Mapping[str, Any], seat: int) -> list[tuple[str, str]]:
    """The seat's features, the same for every hand of one decision: the dealer, the other seats' melds (the most
    any one shows, their sum) and alarms."""
    others = [o for o in range(4) if o != seat]
    melds = [len(view["melds"][o]) for o in others]
    return [("dealer", "Y" if view["dealer"] == seat else "N"), ("om_max", str(min(max(melds), 3))),
            ("om_sum", str(min(sum(melds), 4))), ("alarm", "Y" if any(view["alarms"][o] for o in others) else "N")]


def logit(p: float) -> float:
    """The logit of the table's chance, clipped (the one real-valued feature, ``logp``)."""
    p = min(max(p, 1e-6), 1 - 1e-6)
    return min(max(math.log(p / (1 - p)), _LOGIT[0]), _LOGIT[1])


class Reader:
    """The learned chance of one decision: the seat's part summed once."""

    __slots__ = ("w", "seat_z", "w_logp", "bazhi", "seven_pairs")

    def __init__(self, view: Mapping[str, Any], seat: int, bazhi: bool, seven_pairs: bool) -> None:
        w = VALUE_WEIGHTS[view["variant"]]
        self.w = w
        self.seat_z = w["bias"][""] + sum(w.get(g, _NONE).get(v, 0.0) for g, v in seat_features(view, seat))
        self.w_logp = w["logp"][""]
        self.bazhi = bazhi
        self.seven_pairs = seven_pairs

    def chance(self, c: Sequence[int], n_melds: int, meld_suits: Sequence[int], concealed: bool, sh: int, d: int,
               turns: int, u: int, typical: int, p0: float) -> float:
        """The learned chance to win of the 3n+1 hand ``c`` (the features of :func:`hand_features` and
        :func:`seat_features`, and the table's chance ``p0``)."""
        w = self.w
        z = self.seat_z + self.w_logp * logit(p0)
        dt = ""
        for g, v in hand_features(c, n_melds, meld_suits, concealed, sh, d, turns, u, typical, self.bazhi,
                                  self.seven_pairs):
            z += w.get(g, _NONE).get(v, 0.0)
            if g == "dt":
                dt = v
        p = SCALE / (1.0 + math.exp(-max(-30.0, min(30.0, z))))
        if RANK:
            p *= w.get("level", _NONE).get(dt, 1.0)
        return p
