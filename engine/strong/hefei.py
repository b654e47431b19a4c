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
"""

from __future__ import annotations

from collections.abc import Sequence

WAYS_EDGES: tuple[int, ...] = (1, 4, 9, 16, 25, 36)
"""The bucket of :func:`wait_ways` is the number of these edges it reaches (0 .. 6)."""

WAYS_FACTOR: tuple[float, ...] = (0.047, 0.255, 0.456, 0.715, 0.95, 1.044, 1.164)
"""[bucket of :func:`wait_ways`]: factor on the deal-in chance of a tile (in place of the rank factor)."""


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

