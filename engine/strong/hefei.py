"""Hefei's own figures for the strong AI (:mod:`engine.strong.evaluator` reads them when the variant is Hefei).

In Hefei the discarder pays the whole win ([H6](docs/rules/hefei.md#h6)), so which tile deals in matters more than in
the other variants. A seat waits on a tile through the tiles around it: a run missing it (the two below, the two
above, or the one on each side) or a pair of it (a pung wait) or a lone copy (a pair wait). Those shapes are made of
tiles this seat has not seen, so the unseen copies around a tile say how many ways another seat can be waiting on it
(:func:`wait_ways`): a tile whose neighbours are all in sight can only be won on through a pair or a lone copy of it,
one with every copy in sight not at all. Measured with ``benchmarks/calibrate_hefei_danger.py`` (four normal AIs,
3,000 one-hand deals ``duel:cal:N``, about 280,000 exposures): against the model without the tile's rank, a tile with
no way to wait on it never dealt in (2,254 exposures; the factor keeps 0.05), one with few ways (1-3) at a quarter of the model's chance, one
with many (36 or more) at 1.16 times it (:data:`WAYS_FACTOR`). It replaces the rank factor (an edge tile is safer
because fewer runs hold it, which the ways count directly) and prices the strong AI's own discards as they deal in:
over 300 duel deals (seed 0) the model with the rank factor gave its chosen discards 247 deal-ins for 175 that
happened, with the ways 196 for 195.

A learned danger model (:class:`DangerReader`, measured and off: :data:`LEARNED`) reads more of the discarder's view:
the seat's melds and river, the turns since its claimed meld, the character of its last three discards, the wall
left, and for the tile: in the seat's river recently or early, its suit's share of that river, its rank among the
seat's suits (八支), the seat's recent discards of the suit, the tiles three apart (筋), the tiles within two in the
river, the seat's last discard next to it, the ways to wait, its rank, its unseen copies, and whether the seat let it
go by in the round before its last discard. A logistic regression over those one-hot features
(``benchmarks/learn_hefei_danger.py``, the weights in :mod:`engine.strong.calibration_hefei`) is fitted on every tile
the discarders of four normal AIs' deals held, labelled by whether that seat could have won on it then.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from ..rivers import discard_order
from .calibration_hefei import DANGER_BIAS, DANGER_WEIGHTS
from .waits import third

LEARNED = False
"""Hefei's danger of a discard is the learned model (:class:`DangerReader`, weights in
:mod:`engine.strong.calibration_hefei`) instead of the product of measured factors with :data:`WAYS_FACTOR`.
Measured and off: it tells the tiles that deal in apart better on held-out deals, but the strong AI playing with it
made -0.03 子 a hand (± 0.15, 2,000 duel deals of seed 0, paired): it dealt in less (14.3% of its hands against
15.3%) and won less (27.2% against 27.6%); docs/strong-ai-rounds.md, Hefei's fifth round."""

WAYS_EDGES: tuple[int, ...] = (1, 4, 9, 16, 25, 36)
"""The bucket of :func:`wait_ways` is the number of these edges it reaches (0 .. 6)."""

WAYS_FACTOR: tuple[float, ...] = (0.047, 0.255, 0.456, 0.715, 0.95, 1.044, 1.164)
"""[bucket of :func:`wait_ways`]: factor on the deal-in chance of a tile (in place of the rank factor)."""


def meld_cell(melds: Sequence[Mapping[str, Any]], wall: int, full: int) -> str:
    """The cell of :data:`engine.strong.calibration_hefei_melds.MELD_FACTOR` of a seat: its shown melds ("none",
    "concealed": concealed kongs only, still 门清; "open1": one meld and not concealed, "open2": two or more) and the
    wall left in thirds of the wall at the first discard (``full``): "early", "mid", "late"."""
    if not melds:
        m = "none"
    elif all(x["kind"] == "concealed_kong" for x in melds):
        m = "concealed"
    else:
        m = "open1" if len(melds) == 1 else "open2"
    return f"{m}:{third(wall, full)}"


def wait_ways(unseen: Sequence[int], k: int) -> int:
    """How many ways, made of tiles this seat has not seen, another seat can be waiting on suited tile ``k``: the
    runs missing it (both tiles of the run unseen: the product of their unseen copies), the pairs of it (pung
    wait: two of its unseen copies) and its lone unseen copies (pair wait)."""
    r = k % 9
    base = k - r

    def u(x: int) -> int:
        return unseen[base + x] if 0 <= x <= 8 else 0

    n = u(r)
    ways = u(r - 2) * u(r - 1) + u(r - 1) * u(r + 1) + u(r + 1) * u(r + 2)
    return ways + n * (n - 1) // 2 + n


def ways_bucket(unseen: Sequence[int], k: int) -> int:
    """The bucket of :func:`wait_ways` (0 .. len(:data:`WAYS_EDGES`))."""
    w = wait_ways(unseen, k)
    return sum(1 for e in WAYS_EDGES if w >= e)


# ------------------------------------------------------------------------------------------------ the learned danger


_NONE: dict[str, float] = {}


def _bucket(x: int, edges: Sequence[int]) -> int:
    return sum(1 for e in edges if x >= e)


class DangerReader:
    """The learned danger model's features of discarding tile ``k`` against seat ``o``, read from one seat's view
    (its public rivers, melds and wall count, and the tiles it has not seen): :meth:`features` lists them as
    ``(group, value)`` pairs (the fit, ``benchmarks/learn_hefei_danger.py``, and the play read the same list), and
    :meth:`chance` is the logistic model of :mod:`engine.strong.calibration_hefei` over them. The seat's own part
    (its melds, river length, the turns since its claimed meld, the character of its last discards, the wall) is
    summed once per seat; a (seat, tile) chance is kept for the life of the reader (one decision)."""

    def __init__(self, view: Mapping[str, Any], unseen: Sequence[int]) -> None:
        self.view = view
        self.unseen = unseen
        seq = discard_order(view)
        self.rivers = [[int(x["tile"]) for x in view["rivers"][o]] for o in range(4)]
        # per seat: its discards in order, and how many of them it made since its claimed meld (None: no meld)
        self.since_meld: list[int | None] = [None] * 4
        self.prev_passed: list[frozenset[int]] = [frozenset()] * 4
        if seq is not None:
            own = [[i for i, x in enumerate(seq) if x[0] == o] for o in range(4)]
            for i, x in enumerate(seq):
                if x[3] >= 0:
                    self.since_meld[x[3]] = sum(1 for j in own[x[3]] if j > i)
            for o in range(4):
                if len(own[o]) >= 2:  # the round before its last: tiles it let go by then
                    a, b = own[o][-2], own[o][-1]
                    self.prev_passed[o] = frozenset(x[1] for x in seq[a + 1 : b] if x[0] != o and x[2] != "dead")
        self.wall = int(view["wall_count"])
        # per seat: its suits by how many of its discards each holds, fewest first (八支: a hand holds 8 of one suit)
        self.suit_rank: list[list[int]] = []
        for o in range(4):
            n_suit = [sum(1 for x in self.rivers[o] if x // 9 == st) for st in range(3)]
            self.suit_rank.append([sum(1 for y in n_suit if y < n_suit[st]) for st in range(3)])
        self._seats: dict[int, tuple[float, list[float], str, list[int], list[int], int | None]] = {}
        self._tile: dict[tuple[int, str], float] = {}
        self._p: dict[tuple[int, int], float] = {}

    def seat_features(self, o: int) -> list[tuple[str, str]]:
        river = self.rivers[o]
        n = len(river)
        m = min(len(self.view["melds"][o]), 3)
        rl = min(n // 3, 5)
        late = "L" if n >= 6 else "E"
        last3 = river[-3:]
        mid = sum(1 for x in last3 if 2 <= x % 9 <= 6)
        sm = self.since_meld[o]
        out = [("base", f"{m}{rl}"), ("wall", str(_bucket(self.wall, (8, 16, 24, 32, 40)))),
               ("mid3", f"{mid}{late}"),
               ("since_meld", "-" if sm is None else str(_bucket(sm, (2, 3, 5, 8))))]
        return out

    def tile_features(self, o: int, k: int) -> list[tuple[str, str]]:
        river = self.rivers[o]
        n = len(river)
        late = "L" if n >= 6 else "E"
        r = k % 9
        suit = k // 9
        base = k - r
        recent = river[-3:]
        inriv = "R" if k in recent else ("O" if k in river else "N")
        melds = self.view["melds"][o]
        ms = [int(x["tile"]) // 9 for x in melds]
        rel = "none" if not ms else ("same" if suit in ms and len(set(ms)) == 1 else ("mixed" if suit in ms else
                                                                                      "other"))
        dsuit = sum(1 for x in river if x // 9 == suit)
        dshare = min(dsuit * 3 // max(1, n), 2) if river else 0
        rec_suit = min(sum(1 for x in river[-4:] if x // 9 == suit), 2)
        lo = k - 3 if r >= 3 else None
        hi = k + 3 if r <= 5 else None
        sides = [x for x in (lo, hi) if x is not None]
        got = sum(1 for x in sides if x in river)
        suji = f"{len(sides)}{got}"
        near = min(sum(1 for x in river if x != k and x // 9 == suit and abs(x - k) <= 2), 2)
        last = river[-1] if river else None
        lastnear = "Y" if last is not None and last != k and last // 9 == suit and abs(last - k) <= 2 else "N"
        ways = _bucket(wait_ways(self.unseen, k), _WAYS)
        fold = min(r, 8 - r)
        return [("inriv", inriv), ("rel", rel), ("dshare", f"{dshare}{late}"), ("rec_suit", str(rec_suit)),
                ("suji", suji), ("near", str(near)), ("lastnear", lastnear), ("ways", f"{ways}{late}"),
                ("rank", str(fold)), ("unseen", str(self.unseen[base + r])),
                ("prev", "Y" if k in self.prev_passed[o] else "N"),
                ("suit_rank", f"{self.suit_rank[o][suit]}{late}")]

    def features(self, o: int, k: int) -> list[tuple[str, str]]:
        return self.seat_features(o) + self.tile_features(o, k)

    def chance(self, o: int, k: int) -> float:
        """The learned chance that discarding ``k`` now deals in to seat ``o``: the logistic model over
        :meth:`features`, its weights summed by parts (the seat's, the seat's for the tile's suit, the tile's own
        for a river as long, the tile's against the seat's river) so that a decision pays for each part once."""
        got = self._p.get((o, k))
        if got is not None:
            return got
        st = self._seats.get(o)
        if st is None:
            st = self._seats[o] = self._seat_part(o)
        s, by_suit, late, river, recent, last = st
        suit = k // 9
        r = k % 9
        tk = (k, late)
        t = self._tile.get(tk)
        if t is None:
            w = DANGER_WEIGHTS
            t = self._tile[tk] = (w.get("ways", _NONE).get(f"{_bucket(wait_ways(self.unseen, k), _WAYS)}{late}", 0.0)
                                  + w.get("rank", _NONE).get(str(min(r, 8 - r)), 0.0)
                                  + w.get("unseen", _NONE).get(str(self.unseen[k]), 0.0))
        z = s + by_suit[suit] + t
        z += _W_INRIV[0 if k in recent else (1 if k in river else 2)]
        sides = (1 if r >= 3 else 0) + (1 if r <= 5 else 0)
        z += _W_SUJI.get((sides, (1 if r >= 3 and k - 3 in river else 0) + (1 if r <= 5 and k + 3 in river else 0)),
                         0.0)
        z += _W_NEAR[min(sum(1 for x in river if x != k and x // 9 == suit and abs(x - k) <= 2), 2)]
        z += _W_LASTNEAR[last is not None and last != k and last // 9 == suit and abs(last - k) <= 2]
        z += _W_PREV[k in self.prev_passed[o]]
        p = self._p[(o, k)] = 1.0 / (1.0 + math.exp(-z))
        return p

    def _seat_part(self, o: int) -> tuple[float, list[float], str, list[int], list[int], int | None]:
        """Seat o's part of :meth:`chance`: (its features' weights with the bias, per suit the weights of its suit
        features, its river's lateness, its river, its last three discards, its last discard)."""
        w = DANGER_WEIGHTS
        s = DANGER_BIAS + sum(w.get(g, _NONE).get(v, 0.0) for g, v in self.seat_features(o))
        by_suit = []
        for suit in range(3):
            fs = dict(self.tile_features(o, suit * 9 + 4))
            by_suit.append(sum(w.get(g, _NONE).get(fs[g], 0.0) for g in _SUIT_GROUPS))
        river = self.rivers[o]
        return s, by_suit, "L" if len(river) >= 6 else "E", river, river[-3:], river[-1] if river else None


_WAYS = (1, 4, 9, 16, 25, 36, 49)
_SUIT_GROUPS = ("rel", "dshare", "rec_suit", "suit_rank")
"""The tile features that depend only on its suit (summed once per seat and suit)."""
_W_INRIV = tuple(DANGER_WEIGHTS.get("inriv", _NONE).get(v, 0.0) for v in ("R", "O", "N"))
_W_SUJI = {(int(v[0]), int(v[1])): x for v, x in DANGER_WEIGHTS.get("suji", _NONE).items()}
_W_NEAR = tuple(DANGER_WEIGHTS.get("near", _NONE).get(str(v), 0.0) for v in range(3))
_W_LASTNEAR = (DANGER_WEIGHTS.get("lastnear", _NONE).get("N", 0.0), DANGER_WEIGHTS.get("lastnear", _NONE).get("Y", 0.0))
_W_PREV = (DANGER_WEIGHTS.get("prev", _NONE).get("N", 0.0), DANGER_WEIGHTS.get("prev", _NONE).get("Y", 0.0))
