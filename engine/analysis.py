"""Hand analysis on 34-count arrays: decompositions, win check, winning tiles and shanten.

Work is done one suit at a time (a suit is a 9-count tuple) with per-suit caches, then combined: the cache keys are
small and shared by every hand, the way table-driven calculators do it.

>>> from engine.tiles import parse_hand, tile_name
>>> h = parse_hand("11122233344455m")
>>> is_complete(h.closed_counts)
True
>>> [tile_name(k) for k in winning_kinds(parse_hand("1112345678999m").closed_counts)]
['1m', '2m', '3m', '4m', '5m', '6m', '7m', '8m', '9m']
>>> shanten(parse_hand("123m456p789s1122z").closed_counts)
0
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, lru_cache
from itertools import product
from typing import NamedTuple

from .tiles import HONOR, NUM_KINDS

SEQ, TRIPLET, PAIR = "seq", "triplet", "pair"


class Block(NamedTuple):
    """A set or the pair inside the closed part of a hand: ``kind`` is SEQ, TRIPLET or PAIR, ``tile`` its lowest kind."""

    kind: str
    tile: int

    @property
    def tiles(self) -> tuple[int, ...]:
        if self.kind == SEQ:
            return (self.tile, self.tile + 1, self.tile + 2)
        return (self.tile,) * (3 if self.kind == TRIPLET else 2)


class Decomposition(NamedTuple):
    """One way to read a closed part as a pair plus sets (``seven_pairs``: as seven pairs, ``sets`` empty)."""

    pair: int | None
    sets: tuple[Block, ...]
    pairs: tuple[int, ...] = ()  # seven pairs only: the pair kinds, a four of a kind twice

    @property
    def seven_pairs(self) -> bool:
        return bool(self.pairs)

    @property
    def blocks(self) -> tuple[Block, ...]:
        if self.pairs:
            return tuple(Block(PAIR, k) for k in self.pairs)
        return (Block(PAIR, self.pair),) + self.sets if self.pair is not None else self.sets


# ---------------------------------------------------------------------------------------------------------------
# per-suit tables


@cache
def _suit_decomps(c: tuple[int, ...], pair_allowed: bool) -> tuple[tuple[int | None, tuple[tuple[str, int], ...]], ...]:
    """Every way to split a 9-count suit into sets (and at most one pair if allowed): (pair rank idx, sets)."""
    i = next((j for j in range(9) if c[j]), -1)
    if i < 0:
        return ((None, ()),)
    out: set[tuple[int | None, tuple[tuple[str, int], ...]]] = set()
    lst = list(c)
    if c[i] >= 3:
        lst[i] -= 3
        for p, sets in _suit_decomps(tuple(lst), pair_allowed):
            out.add((p, tuple(sorted(((TRIPLET, i),) + sets))))
        lst[i] += 3
    if i <= 6 and c[i + 1] and c[i + 2]:
        lst[i] -= 1
        lst[i + 1] -= 1
        lst[i + 2] -= 1
        for p, sets in _suit_decomps(tuple(lst), pair_allowed):
            out.add((p, tuple(sorted(((SEQ, i),) + sets))))
        lst[i] += 1
        lst[i + 1] += 1
        lst[i + 2] += 1
    if pair_allowed and c[i] >= 2:
        lst[i] -= 2
        for p, sets in _suit_decomps(tuple(lst), False):
            assert p is None
            out.add((i, sets))
        lst[i] += 2
    return tuple(sorted(out, key=lambda d: (d[0] is None, d[0] or 0, d[1])))


def _suit_flag(c: tuple[int, ...]) -> int:
    """0: the suit cannot be split; 1: it splits into sets alone (or is empty); 2: into sets and one pair."""
    n = sum(c)
    if n % 3 == 1:
        flag = 0
    elif n % 3 == 0:
        flag = 1 if any(p is None for p, _ in _suit_decomps(c, False)) else 0
    else:
        flag = 2 if _suit_decomps(c, True) else 0
    _SUIT_FLAGS[c] = flag
    return flag


def _honor_flag(c: tuple[int, ...]) -> int:
    """Like :func:`_suit_flag` for the seven honour counts (only triplets and one pair)."""
    pairs = 0
    flag = 1
    for n in c:
        if n == 2:
            pairs += 1
        elif n == 1 or n == 4:
            flag = 0
    if flag and pairs:
        flag = 2 if pairs == 1 else 0
    _HONOR_FLAGS[c] = flag
    return flag


_SUIT_FLAGS: dict[tuple[int, ...], int] = {}
_HONOR_FLAGS: dict[tuple[int, ...], int] = {}


def is_complete(counts: Sequence[int]) -> bool:
    """Whether closed counts (3n+2 tiles) form pair + sets. Melds are not passed: they are sets already.

    >>> from engine.tiles import parse_hand
    >>> is_complete(parse_hand("123456789m11p").closed_counts), is_complete(parse_hand("123456789m12p").closed_counts)
    (True, False)
    """
    get = _SUIT_FLAGS.get
    c = tuple(counts)
    m, p, s, z = c[0:9], c[9:18], c[18:27], c[27:34]
    fm = get(m)
    if fm is None:
        fm = _suit_flag(m)
    if not fm:
        return False
    fp = get(p)
    if fp is None:
        fp = _suit_flag(p)
    if not fp:
        return False
    fs = get(s)
    if fs is None:
        fs = _suit_flag(s)
    if not fs:
        return False
    fz = _HONOR_FLAGS.get(z)
    if fz is None:
        fz = _honor_flag(z)
    return fz != 0 and fm + fp + fs + fz == 5


_EMPTY = (0,) * 9


def is_seven_pairs(counts: Sequence[int], *, four_as_two: bool = True) -> bool:
    """Seven pairs over 14 closed tiles; with ``four_as_two`` a four of a kind counts as two pairs.

    >>> from engine.tiles import parse_hand
    >>> is_seven_pairs(parse_hand("11112233445566m").closed_counts)
    True
    >>> is_seven_pairs(parse_hand("11112233445566m").closed_counts, four_as_two=False)
    False
    """
    for n in counts:
        if n & 1:
            return False
    return sum(counts) == 14 and (four_as_two or 4 not in counts)


def decompositions(counts: Sequence[int], *, seven_pairs: bool = False) -> list[Decomposition]:
    """Every reading of closed counts as pair + sets (and as seven pairs when ``seven_pairs`` and it fits).

    >>> from engine.tiles import parse_hand
    >>> len(decompositions(parse_hand("111222333m11p789s").closed_counts))
    2
    """
    groups: list[tuple[tuple[int | None, tuple[Block, ...]], ...]] = []
    for base in (0, 9, 18):
        c = tuple(counts[base : base + 9])
        if c == _EMPTY:
            continue
        r = sum(c) % 3
        if r == 1:
            groups = []
            break
        raw = _suit_decomps(c, r == 2)
        opts = tuple(
            (None if p is None else p + base, tuple(Block(kind, i + base) for kind, i in sets))
            for p, sets in raw
            if (p is None) == (r == 0)
        )
        if not opts:
            groups = []
            break
        groups.append(opts)
    else:
        honor_sets: list[Block] = []
        honor_pair: int | None = None
        ok = True
        for k in range(HONOR, NUM_KINDS):
            n = counts[k]
            if n == 3:
                honor_sets.append(Block(TRIPLET, k))
            elif n == 2 and honor_pair is None:
                honor_pair = k
            elif n:
                ok = False
                break
        if ok:
            groups.append(((honor_pair, tuple(honor_sets)),))
        else:
            groups = []
    out: list[Decomposition] = []
    if groups:
        for combo in product(*groups):
            pairs = [p for p, _ in combo if p is not None]
            if len(pairs) != 1:
                continue
            sets = tuple(sorted(b for _, s in combo for b in s))
            out.append(Decomposition(pairs[0], sets))
    if seven_pairs and is_seven_pairs(counts):
        out.append(Decomposition(None, (), tuple(k for k in range(NUM_KINDS) for _ in range(counts[k] // 2))))
    return out


def winning_kinds(counts: Sequence[int], *, seven_pairs: bool = False, held: Sequence[int] | None = None) -> list[int]:
    """Kinds that would complete closed counts of 3n+1 tiles; kinds ``held`` four times (whole hand) are left out.

    >>> from engine.tiles import parse_hand, tile_name
    >>> [tile_name(k) for k in winning_kinds(parse_hand("1235m").closed_counts)]
    ['5m']
    """
    held = held if held is not None else counts
    return [k for k in completing_kinds(counts, seven_pairs=seven_pairs) if held[k] < 4]


COMPLETING_CACHE = 4096
"""How many hands' :func:`completing_kinds` one process keeps (least recently used first out): the strong AI's look-ahead
finds a ready hand's winning kinds, and the scorer asks for the same 13 tiles' again for each winning tile (Hefei's
卡, Wuhu's single wait)."""


def completing_kinds(counts: Sequence[int], *, seven_pairs: bool = False) -> tuple[int, ...]:
    """Every kind, in order, whose one more copy makes the closed counts (3n+1 tiles) complete: :func:`is_complete`,
    or :func:`is_seven_pairs` when ``seven_pairs`` (a kind held four times too: the counts alone are read). Kept per
    process (:data:`COMPLETING_CACHE`).

    >>> from engine.tiles import parse_hand, tile_name
    >>> c = parse_hand("113355m1133p557s").closed_counts
    >>> completing_kinds(c), [tile_name(k) for k in completing_kinds(c, seven_pairs=True)]
    ((), ['7s'])
    """
    return _kept_completing(bytes(counts), seven_pairs)


@lru_cache(maxsize=COMPLETING_CACHE)
def _kept_completing(counts: bytes, seven_pairs: bool) -> tuple[int, ...]:
    c = list(counts)
    out = []
    for k in _candidates(counts):
        c[k] += 1
        if is_complete(c) or (seven_pairs and is_seven_pairs(c)):
            out.append(k)
        c[k] -= 1
    return tuple(out)


def _candidates(counts: Sequence[int]) -> list[int]:
    """Kinds that could possibly complete a hand: equal to a held tile (the only ones for seven pairs) or next to one."""
    out = []
    for k in range(NUM_KINDS):
        if counts[k]:
            out.append(k)
        elif k < HONOR:
            r = k % 9
            if (r >= 1 and counts[k - 1]) or (r <= 7 and counts[k + 1]) or (r >= 2 and counts[k - 2]) or (
                r <= 6 and counts[k + 2]
            ):
                out.append(k)
    return out


# ---------------------------------------------------------------------------------------------------------------
# shanten


def _prune(opts: set[tuple[int, int, int]]) -> tuple[tuple[int, int, int], ...]:
    """Keep only options not dominated in every coordinate by another."""
    keep = [o for o in opts if not any(p != o and p[0] >= o[0] and p[1] >= o[1] and p[2] >= o[2] for p in opts)]
    return tuple(sorted(keep, reverse=True))


@cache
def _suit_blocks(c: tuple[int, ...]) -> tuple[tuple[int, int, int], ...]:
    """Non-dominated (sets, partial sets, head) choices for one suit."""
    i = next((j for j in range(9) if c[j]), -1)
    if i < 0:
        return ((0, 0, 0),)
    opts: set[tuple[int, int, int]] = set()
    lst = list(c)

    def take(delta: tuple[int, int, int], *idx: int) -> None:
        for j in idx:
            lst[j] -= 1
        for m, t, h in _suit_blocks(tuple(lst)):
            if h + delta[2] <= 1:
                opts.add((m + delta[0], t + delta[1], h + delta[2]))
        for j in idx:
            lst[j] += 1

    take((0, 0, 0), i)  # the tile at i left isolated
    if c[i] >= 3:
        take((1, 0, 0), i, i, i)
    if c[i] >= 2:
        take((0, 1, 0), i, i)
        take((0, 0, 1), i, i)
    if i <= 6 and c[i + 1] and c[i + 2]:
        take((1, 0, 0), i, i + 1, i + 2)
    if i <= 7 and c[i + 1]:
        take((0, 1, 0), i, i + 1)
    if i <= 6 and c[i + 2]:
        take((0, 1, 0), i, i + 2)
    return _prune(opts)


@cache
def _honor_options(c: tuple[int, ...]) -> tuple[tuple[int, int, int], ...]:
    """Non-dominated (sets, partial sets, head) choices for the seven honour counts."""
    trip = sum(1 for n in c if n >= 3)
    pair = sum(1 for n in c if n == 2)
    opts = {(trip, pair, 0)}
    if pair:
        opts.add((trip, pair - 1, 1))
    if trip:
        opts.add((trip - 1, pair, 1))
    return _prune(opts)


Group = tuple[tuple[int, int, int], ...]


def shanten_groups(counts: Sequence[int]) -> list[Group]:
    """The (sets, partial sets, head) options of each suit and of the honours: what :func:`combine_groups` needs.

    A caller that changes one tile can recompute only that tile's group (:func:`group_of`), as the AI does.
    """
    return [
        _suit_blocks(tuple(counts[0:9])),
        _suit_blocks(tuple(counts[9:18])),
        _suit_blocks(tuple(counts[18:27])),
        _honor_options(tuple(counts[27:34])),
    ]


def group_options(seg: tuple[int, ...]) -> Group:
    """The (sets, partial sets, head) options of one group from its own counts: a suit's nine or the honours' seven.

    >>> group_options((1, 1, 1, 0, 0, 0, 0, 0, 0))  # 123: a set, or a partial set
    ((1, 0, 0), (0, 1, 0))
    >>> group_options((2, 0, 0, 0, 0, 0, 0))  # a pair of 1z: a partial set, or the head
    ((0, 1, 0), (0, 0, 1))
    """
    return _honor_options(seg) if len(seg) == 7 else _suit_blocks(seg)


def group_of(kind: int, counts: Sequence[int]) -> Group:
    """The options of the group (suit or honours) that ``kind`` belongs to."""
    s = kind // 9
    if s < 3:
        return _suit_blocks(tuple(counts[s * 9 : s * 9 + 9]))
    return _honor_options(tuple(counts[27:34]))


def combine_groups(groups: Sequence[Group], melds: int = 0) -> int:
    """Regular-shape shanten from the four groups' options and ``melds`` declared sets."""
    g0, g1, g2, g3 = groups
    best = 8
    for m0, t0, h0 in g0:
        for m1, t1, h1 in g1:
            h01 = h0 + h1
            if h01 > 1:
                continue
            for m2, t2, h2 in g2:
                h012 = h01 + h2
                if h012 > 1:
                    continue
                for m3, t3, h3 in g3:
                    h = h012 + h3
                    if h > 1:
                        continue
                    m = melds + m0 + m1 + m2 + m3
                    if m > 4:
                        m = 4
                    t = t0 + t1 + t2 + t3
                    if t > 4 - m:
                        t = 4 - m
                    sh = 8 - 2 * m - t - h
                    if sh < best:
                        best = sh
    return best


def seven_pairs_shanten(counts: Sequence[int]) -> int:
    """Shanten toward seven pairs, a four of a kind counting as two pairs (Hefei H3).

    >>> from engine.tiles import parse_hand
    >>> seven_pairs_shanten(parse_hand("11112222333344m").closed_counts)
    -1
    """
    return 6 - min(sum(n // 2 for n in counts), 7)


def shanten(counts: Sequence[int], melds: int = 0, *, seven_pairs: bool = False) -> int:
    """Tiles away from ready: 0 = ready (waiting), -1 = complete. ``melds`` declared sets are not in ``counts``.

    >>> from engine.tiles import parse_hand
    >>> shanten(parse_hand("123456789m1234p").closed_counts)
    0
    >>> shanten(parse_hand("19m19p19s1234567z").closed_counts)
    8
    >>> shanten(parse_hand("11223344556677z").closed_counts, seven_pairs=True)
    -1
    """
    best = combine_groups(shanten_groups(counts), melds)
    if seven_pairs and melds == 0:
        best = min(best, seven_pairs_shanten(counts))
    return best
