"""Hand analysis against brute force and against the `mahjong` package."""

from itertools import combinations_with_replacement

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mahjong.agari import Agari
from mahjong.shanten import Shanten

from engine.analysis import (
    PAIR,
    SEQ,
    TRIPLET,
    Block,
    combine_groups,
    completing_kinds,
    decompositions,
    group_of,
    is_complete,
    is_seven_pairs,
    shanten,
    shanten_groups,
    winning_kinds,
)
from engine.tiles import format_tiles, parse_hand, tile_name

# --- brute force references -------------------------------------------------------------------------------------


def brute_decompositions(counts):
    """Every (pair, sorted sets) by trying every multiset of sets over the kinds present: no caching, no recursion."""
    n = sum(counts)
    if n % 3 != 2:
        return set()
    present = [k for k in range(34) if counts[k]]
    candidates = [Block(TRIPLET, k) for k in present if counts[k] >= 3]
    candidates += [Block(SEQ, k) for k in present if k < 27 and k % 9 <= 6 and counts[k + 1] and counts[k + 2]]
    out = set()
    for pair in (k for k in present if counts[k] >= 2):
        for sets in combinations_with_replacement(candidates, (n - 2) // 3):
            used = [0] * 34
            used[pair] += 2
            for b in sets:
                for k in b.tiles:
                    used[k] += 1
            if used == list(counts):
                out.add((pair, tuple(sorted(sets))))
    return out


@st.composite
def complete_counts(draw):
    """A closed part that is complete by construction: a pair plus 0-4 sets, at most four of each kind."""
    counts = [0] * 34
    pair = draw(st.integers(0, 33))
    counts[pair] += 2
    for _ in range(draw(st.integers(0, 4))):
        if draw(st.booleans()):
            k = draw(st.integers(0, 26).filter(lambda k: k % 9 <= 6))
            tiles = (k, k + 1, k + 2)
        else:
            k = draw(st.integers(0, 33))
            tiles = (k, k, k)
        if all(counts[t] + tiles.count(t) <= 4 for t in set(tiles)):
            for t in tiles:
                counts[t] += 1
    return counts


@st.composite
def random_counts(draw, size=14, suits_only=False):
    """Exactly ``size`` tiles drawn from a wall (so never a fifth copy)."""
    top = 27 if suits_only else 34
    tiles = draw(st.lists(st.integers(0, 4 * top - 1), min_size=size, max_size=size, unique=True))
    counts = [0] * 34
    for t in tiles:
        counts[t // 4] += 1
    return counts


# --- properties -------------------------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(complete_counts() | random_counts(14, suits_only=True))
def test_decompositions_equal_brute_force(counts):
    got = {(d.pair, d.sets) for d in decompositions(counts)}
    assert got == brute_decompositions(counts)
    assert is_complete(counts) == bool(got)


@settings(max_examples=300, deadline=None)
@given(complete_counts())
def test_every_decomposition_uses_exactly_the_tiles(counts):
    for d in decompositions(counts):
        used = [0] * 34
        for b in d.blocks:
            for k in b.tiles:
                used[k] += 1
        assert used == counts


@settings(max_examples=200, deadline=None)
@given(random_counts(13, suits_only=True) | random_counts(13))
def test_winning_kinds_equal_trying_all_34(counts):
    expected = []
    for k in range(34):
        if counts[k] >= 4:
            continue
        c = list(counts)
        c[k] += 1
        if is_complete(c):
            expected.append(k)
    assert winning_kinds(counts) == expected


@settings(max_examples=200, deadline=None)
@given(random_counts(13))
def test_winning_kinds_with_seven_pairs(counts):
    expected = [k for k in range(34) if counts[k] < 4 and (
        is_complete([c + (i == k) for i, c in enumerate(counts)])
        or is_seven_pairs([c + (i == k) for i, c in enumerate(counts)])
    )]
    assert winning_kinds(counts, seven_pairs=True) == expected


@settings(max_examples=300, deadline=None)
@given(random_counts(13) | random_counts(13, suits_only=True), st.booleans())
def test_the_kept_completing_kinds_equal_trying_all_34(counts, seven_pairs):
    # completing_kinds is kept per process (the strong AI's look-ahead and the scorers' single-wait tests ask for the
    # same 13 tiles): every kind whose copy completes the counts, a kind held four times too, cold and kept alike
    expected = tuple(k for k in range(34) if is_complete([c + (i == k) for i, c in enumerate(counts)])
                     or (seven_pairs and is_seven_pairs([c + (i == k) for i, c in enumerate(counts)])))
    assert completing_kinds(counts, seven_pairs=seven_pairs) == expected
    assert completing_kinds(tuple(counts), seven_pairs=seven_pairs) == expected  # (kept: the same answer)


def test_completing_kinds_count_a_kind_held_four_times():
    # 1111m 234m 567m 789p: a fifth 1m would complete the counts (111m 11m ...): counted by the counts alone;
    # winning_kinds leaves out a kind held four times
    c = parse_hand("1111234567m789p").closed_counts
    assert 0 in completing_kinds(c) and 3 in completing_kinds(c)  # 1m, 4m
    assert winning_kinds(c) == [k for k in completing_kinds(c) if k != 0]


@settings(max_examples=500, deadline=None)
@given(complete_counts() | random_counts(14) | random_counts(14, suits_only=True))
def test_win_check_agrees_with_mahjong_agari(counts):
    if sum(counts) != 14:
        return
    # mahjong's Agari also accepts seven pairs and thirteen orphans; compare on the standard shape only
    theirs = Agari().is_agari(counts) and not is_seven_pairs(counts, four_as_two=False) and not _kokushi(counts)
    assert is_complete(counts) == theirs or (is_complete(counts) and Agari().is_agari(counts))


def _kokushi(counts):
    terminals = [0, 8, 9, 17, 18, 26, *range(27, 34)]
    return all(counts[k] for k in terminals) and sum(counts[k] for k in terminals) == 14


@settings(max_examples=500, deadline=None)
@given(random_counts(13) | random_counts(14))
def test_shanten_agrees_with_mahjong(counts):
    assert shanten(counts) == Shanten().calculate_shanten_for_regular_hand(counts)


@settings(max_examples=200, deadline=None)
@given(random_counts(14), st.integers(0, 33))
def test_shanten_after_a_discard_from_one_recomputed_group(counts, kind):
    # the AI's incremental path: discard one tile, recompute only that tile's group
    kind = next(k for k in [*range(kind, 34), *range(kind)] if counts[k])
    after = list(counts)
    after[kind] -= 1
    groups = shanten_groups(counts)
    groups[kind // 9 if kind < 27 else 3] = group_of(kind, after)
    assert combine_groups(groups) == shanten(after) == Shanten().calculate_shanten_for_regular_hand(after)


@settings(max_examples=200, deadline=None)
@given(random_counts(13))
def test_shanten_zero_iff_waiting(counts):
    assert (shanten(counts) <= 0) == bool(winning_kinds(counts, held=[0] * 34))


# --- examples a player would check ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hand", "readings"),
    [
        ("111222333m789s55p", 2),  # three triplets, or 123 123 123
        ("11122233344455m", 4),
        ("22334455667788m", 3),  # 88 + 234 234 567 567 / 22 + 345 345 678 678 / 55 + 234 234 678 678
        ("123456789m11p789s", 1),
        ("11123m456p789s77z", 0),  # two pairs and no fourth set
        ("12345m", 0),
    ],
)
def test_number_of_readings(hand, readings):
    assert len(decompositions(parse_hand(hand).closed_counts)) == readings


@pytest.mark.parametrize(
    ("hand", "waits"),
    [
        ("1112345678999m", "123456789m"),  # nine gates
        ("1235m", "5m"),
        ("13m55p", "2m"),
        ("12m55p", "3m"),
        ("89m55p", "7m"),
        ("1122m", "12m"),
        ("123456789m1234p", "14p"),
        ("1111m234p789s999s", ""),  # its only wait, 1m, is dead: all four are in the hand
    ],
)
def test_waits(hand, waits):
    got = winning_kinds(parse_hand(hand).closed_counts)
    assert format_tiles(got) == waits


def test_a_kind_held_four_times_is_not_a_wait():
    # 1m234567p waits on a single 1m; with 111m melded the fourth 1m is the player's own: no wait at all
    h = parse_hand("1m234567p[111m]")
    assert [tile_name(k) for k in winning_kinds(h.closed_counts)] == ["1m"]
    assert winning_kinds(h.closed_counts, held=h.all_counts) == []


def test_seven_pairs_four_of_a_kind():
    assert is_seven_pairs(parse_hand("11112233445566p").closed_counts)
    d = decompositions(parse_hand("11112233445566p").closed_counts, seven_pairs=True)
    assert any(x.seven_pairs for x in d)
    assert [b.kind for b in next(x for x in d if x.seven_pairs).blocks] == [PAIR] * 7
