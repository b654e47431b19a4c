"""芜湖麻将 scoring and settlement: the seed's two tables, every item, 交, 包, refusals, zero-sum.

Seats: E=0 (dealer), S=1, W=2, N=3. Unless a test says otherwise the winner is S, so W (and N) are the
"non-dealer payer" column of the seed's tables and E the "dealer payer" column.
"""

from __future__ import annotations

import re
from itertools import permutations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.analysis import winning_kinds
from engine.errors import HandError
from engine.tiles import RED, Hand, Meld, MeldKind, parse_hand, suit_of
from engine.variants import Situation, get_variant
from engine.variants.wuhu import ALARM_NAMES, VARIANT, alarms

E, S, W, N = 0, 1, 2, 3


def score(text: str, *, winner: int = S, frm: int | None = None, mode: int = 315, rules=None, **situation):
    r = {"mode": mode, **(rules or {})}
    return VARIANT.score(parse_hand(text), Situation(winner=winner, discarder=frm, **situation), r)


def codes(result) -> list[str]:
    return [i.code for i in result.items]


def item(result, code: str) -> int:
    return next(i.value for i in result.items if i.code == code)


def note_codes(result) -> list[str]:
    return [i.code for i in result.notes]


# ---------------------------------------------------------------------------------------------------------------
# the seed's tables, copied verbatim (315 then 525); a cell is [non-dealer payer, dealer payer]

SEED_315 = """
8支 3-4 6-9
9支 3-4 7-10
10支 3-4 7-10
11支 3-4 7-10
12支 3-4 8-11 13支 4-5 8-11
14支 4-5 9-12
8支压2 4-6 8-12
8支压3 4-6 8-12
8支压4 4-6 9-13
8支压5 5-7 9-13
8支压6 5-7 10-14
8支压7 5-7 10-14
8支压8 5-7 10-14
9支压2 4-6 8-12
9支压3 4-6 9-13
9支压4 5-7 9-13
9支压5 5-7 10-14
9支压6 5-7 10-14
9支压7 5-7 10-14
9支压8 5-7 11-15
10支压2 4-6 9-13
10支压3 5-7 9-13
10支压4 5-7 10-14
10支压5 5-7 10-14
10支压6 5-7 10-14
10支压7 5-7 11-15
10支压8 6-8 11-15
11支压2 5-7 9-13
11支压3 5-7 10-14
11支压4 5-7 10-14
11支压5 5-7 10-14
11支压6 5-7 11-15
11支压7 6-8 11-15
11支压8 6-8 12-16
12支压2 5-7 10-14
12支压3 5-7 10-14
12支压4 5-7 10-14
12支压5 5-7 11-15
12支压6 6-8 11-15
12支压7 6-8 14-16
12支压8 6-8 14-16
13支压2 5-7 10-14
13支压3 5-7 10-14
13支压4 5-7 11-15
13支压5 6-8 11-15
13支压6 6-8 12-16
13支压7 6-8 12-16
13支压8 6-8 12-16
14支压2 5-7 10-14
14支压3 5-7 11-15
14支压4 6-8 11-15
14支压5 6-8 12-16
14支压6 6-8 12-16
14支压7 6-8 12-16
14支压8 6-8 13-17
"""

SEED_525 = """
8支 6-8 14-20
9支 7-9 15-21
10支 7-9 16-22
11支 8-10 17-23
12支 8-10 18-24
13支 9-11 19-25
14支 9-11 20-26
8支压2 9-13 18-26
8支压3 10-14 19-27
8支压4 10-14 20-28
8支压5 11-15 21-29
8支压6 11-15 22-30
8支压7 12-16 23-31
8支压8 12-16 24-32
9支压2 10-14 19-27
9支压3 10-14 20-28
9支压4 11-15 21-29
9支压5 11-15 22-30
9支压6 11-15 23-31
9支压7 12-16 24-32
9支压8 13-17 25-33
10支压2 10-14 20-28
10支压3 11-15 21-29
10支压4 11-15 22-30
10支压5 12-16 23-31
10支压6 12-16 24-32
10支压7 13-17 25-33
10支压8 13-17 26-34
11支压2 11-15 21-29
11支压3 11-15 22-30
11支压4 12-16 23-31
11支压5 12-16 24-32
11支压6 13-17 25-33
11支压7 13-17 26-34
11支压8 14-18 27-35
12支压2 11-15 22-30
12支压3 12-16 23-31
12支压4 12-16 24-32
12支压5 13-17 25-33
12支压6 13-17 26-34
12支压7 14-18 27-35
12支压8 14-18 28-36
13支压2 12-16 23-31
13支压3 13-17 24-32
13支压4 13-17 25-33
13支压5 13-17 26-34
13支压6 14-18 27-35
13支压7 14-18 28-36
13支压8 15-19 29-37
14支压2 12-16 24-32
14支压3 13-17 25-33
14支压4 13-17 26-34
14支压5 14-18 27-35
14支压6 14-18 28-36
14支压7 15-19 29-37
14支压8 15-19 30-38
"""

# DECISIONS W9: four cells are typos and lose to the formula.
TYPOS = {
    (315, 12, 7, True): (12, 16),  # 底 4 + round((12+7) x 4 / 10 = 7.6) = 8 -> 12; dealer +4 -> 16 (seed 14-16)
    (315, 12, 8, True): (12, 16),  # 4 + round(20 x 4 / 10 = 8) = 8 -> 12; +4 -> 16 (seed 14-16)
    (525, 9, 6, False): (12, 16),  # 4 + round((9+6) / 2 = 7.5) = 8 -> 12; +4 -> 16 (seed 11-15)
    (525, 13, 3, False): (12, 16),  # 4 + round(16 / 2) = 8 -> 12; +4 -> 16 (seed 13-17)
}


def _table_cells():
    out = []
    for mode, text in ((315, SEED_315), (525, SEED_525)):
        rows = re.findall(r"(\d+)支(?:压(\d))?\s+(\d+)-(\d+)\s+(\d+)-(\d+)", text)
        assert len(rows) == 56
        for zhi, ya, r1, r2, s1, s2 in rows:
            for self_drawn, cell in ((False, (int(r1), int(r2))), (True, (int(s1), int(s2)))):
                key = (mode, int(zhi), int(ya or 0), self_drawn)
                out.append((*key, TYPOS.get(key, cell)))
    return out


TABLE_CELLS = _table_cells()
assert len(TABLE_CELLS) == 224

# Per 支数: the m-suit fillers beside the 3-tile core (t = concealed triplet, p = pair, K = exposed kong,
# A = concealed kong) and the tiles of the other suits. 10, 13 and 14 支 need kongs (DECISIONS W9).
FILLERS = {
    8: ("tp", "234p678s"),  # core 3 + 3 + 2 = 8 m
    9: ("tt", "234p55s"),  # 3 + 3 + 3 = 9
    10: ("Kt", "234p55s"),  # 3 + 4 + 3 = 10
    11: ("ttp", "234p"),  # 3 + 3 + 3 + 2 = 11
    12: ("ttt", "55p"),  # 3 + 9 = 12
    13: ("Att", "55p"),  # 3 + 4 + 3 + 3 = 13
    14: ("KAt", "55p"),  # 3 + 4 + 4 + 3 = 14
}
KONG_FAN = {"K": {315: 1, 525: 2}, "A": {315: 2, 525: 4}}


def table_hand(zhi: int, ya: int) -> tuple[str, str]:
    """A real hand with ``zhi`` 支 of 万 winning on a 压档 of rank ``ya`` (0: a two-sided wait), no 嘴子.

    The 压档 core is (ya-1, ya+1) waiting ya; a plain core is (a, a+1) waiting a-1 or a+2. The fillers are m
    triplets / kongs / a pair on ranks outside the core and not next to each other, so no 四核, 通天 or 对对胡 can
    arise; the wait is checked with ``engine.analysis.winning_kinds`` (not with the scorer under test).
    Returns (hand text, filler spec).
    """
    spec, others = FILLERS[zhi]
    cores = [((ya - 1, ya + 1), ya)] if ya else [((a, a + 1), a + 2) for a in range(2, 8)]
    for core, win in cores:
        used = set(core) | {win}
        free = [r for r in range(1, 10) if r not in used]
        for ranks in permutations(free, len(spec)):
            if any(abs(a - b) < 2 for i, a in enumerate(ranks) for b in ranks[i + 1 :]):
                continue
            concealed = list(core)
            melds = ""
            for kind, r in zip(spec, ranks, strict=True):
                if kind == "t":
                    concealed += [r] * 3
                elif kind == "p":
                    concealed += [r] * 2
                elif kind == "K":
                    melds += f"[{r}{r}{r}{r}m:N]"
                else:
                    melds += f"({r}{r}{r}{r}m)"
            text = "".join(str(r) for r in sorted(concealed)) + "m" + others + melds + f"+{win}m"
            hand = parse_hand(text)
            closed = hand.closed_counts
            closed[hand.win_tile] -= 1
            held = hand.all_counts
            held[hand.win_tile] -= 1
            kinds = winning_kinds(closed, held=held)
            if (ya and kinds == [hand.win_tile]) or (not ya and len(kinds) >= 2):
                return text, spec
    raise AssertionError(f"no table hand for {zhi} 支 压 {ya}")


@pytest.mark.parametrize(("mode", "zhi", "ya", "self_drawn", "cell"), TABLE_CELLS)
def test_seed_table_cell(mode, zhi, ya, self_drawn, cell):
    # Expected: the seed's cell (typo cells: the formula, see TYPOS), plus the 杠番 of the hand's kongs.
    # Formula: 底番 (315: 1/2/3/4, 525: 2/4/6/8) + 支番 of n = 支数 + 压档 rank; the dealer adds one more 底番.
    text, spec = table_hand(zhi, ya)
    kong = sum(KONG_FAN[k][mode] for k in spec if k in KONG_FAN)
    r = score(text, frm=None if self_drawn else W, mode=mode)
    assert r.extra["zhi"] == zhi and r.extra["ya_dang"] == ya and r.extra["jiao"] == 0, text
    assert [r.per_payer[W], r.per_payer[E]] == [cell[0] + kong, cell[1] + kong], text
    assert r.per_payer[N] == r.per_payer[W]
    assert r.payments[S] == sum(r.per_payer.values())
    assert r.stack_payments == r.payments and r.jiao_payments == (0, 0, 0, 0)


def test_table_hand_examples():
    # two of the builder's hands written out.
    # 8支压5: 111m 33m 456m (46m waits only 5m) 234p 678s.
    assert table_hand(8, 5)[0] == "1113346m234p678s+5m"
    r = score("1113346m234p678s+5m", frm=W)
    # 底 2 + round((8 + 5) x 2 / 10 = 2.6) = 3 -> 5; dealer 2 + 3 + 2 = 7 (seed 8支压5: 5-7)
    assert (r.per_payer[W], r.per_payer[E]) == (5, 7)
    assert codes(r) == ["zhi", "base_ya_dang", "ya_dang_rank", "zhi_fan", "dealer_pays"]
    # 14支压5 with a 明杠 and an 暗杠: 456m 777m [1111m] (3333m) 55p, self-drawn, 315:
    # 底 4 + round((14 + 5) x 4 / 10 = 7.6) = 8 -> 12 (seed 14支压5 自摸 12-16) + 明杠 1 + 暗杠 2 = 15; E 19
    assert table_hand(14, 5)[0] == "46777m55p[1111m:N](3333m)+5m"
    r = score("46777m55p[1111m:N](3333m)+5m")
    assert (r.per_payer[W], r.per_payer[E]) == (15, 19)
    assert item(r, "ming_gang") == 1 and item(r, "an_gang") == 2


# ---------------------------------------------------------------------------------------------------------------
# the contract hand of the CLI and plain items


def test_cli_contract_hand():
    # 234m 567m 99m 345p 678s, 8 万 = 8支, won on 8s (67s waits 5s/8s: no 压档), from W
    # 平胡 1 + 支番 round(8 x 2 / 10 = 1.6) = 2 -> 3 each; the dealer E pays 3 + 1 = 4; S gets 10
    r = score("23456799m345p67s+8s", frm=W)
    assert r.payments == (-4, 10, -3, -3)
    assert item(r, "zhi") == 8 and item(r, "base_ping") == 1 and item(r, "zhi_fan") == 2
    assert r.as_json()["ok"] is True


def test_dealer_extra_as_winner_and_payer():
    # winner E (dealer), ron from W: every payer adds one more 底番: 1 + 2 + 1 = 4 each -> E gets 12
    r = score("23456799m345p67s+8s", winner=E, frm=W)
    assert r.payments == (12, -4, -4, -4)
    assert item(r, "dealer") == 1
    # 525 self-drawn by S: 底 6 + 支番 8 = 14; the dealer pays 14 + 6 = 20
    r = score("23456799m345p67s+8s", mode=525)
    assert r.per_payer == {E: 20, W: 14, N: 14}
    # 525 self-drawn by E: 14 + 6 = 20 from each
    r = score("23456799m345p67s+8s", winner=E, mode=525)
    assert r.payments == (60, -20, -20, -20)


def test_ya_dang_edge_waits_and_pair_wait():
    # 12m waits 3m (边张): 压3. 123m 456m 888m 99m + 234p: 11支, ron: 2 + round((11+3) x 2/10 = 2.8) = 3 -> 5
    r = score("12456888m99m234p+3m", frm=W)
    assert r.extra["ya_dang"] == 3 and r.per_payer[W] == 5
    # 89m waits 7m (边张): 压7. 456m 789m 22m 111p 234s, 8支: 2 + round((8+7) x 2/10 = 3.0) = 3 -> 5
    r = score("45689m22m111p234s+7m", frm=W)
    assert r.extra["ya_dang"] == 7 and r.per_payer[W] == 5
    # 单吊 (pair wait) 9p, the only winning tile: never 压档. 对对胡 12支 ron: 1 + round(2.4) = 2 + 2 = 5
    r = score("111333555777m9p+9p", frm=W)
    assert r.extra["ya_dang"] == 0 and "base_ping" in codes(r) and r.per_payer[W] == 5


def test_ya_dang_ignores_a_kind_held_four_times():
    # 6888m + [666m] waits 6m (66 + 888) and 7m (678 + 88); all four 6m are held, so 7m is the only wait -> 压7.
    # 6666m is also a 四核 (pung 666m + 678m). 8支: 底 2 + round((8 + 7) x 2 / 10 = 3.0) = 3 + 四核 2 = 7; E 9
    r = score("6888m234p567s[666m:N]+7m", frm=W)
    assert r.extra["ya_dang"] == 7
    assert "si_he" in codes(r)
    assert (r.per_payer[W], r.per_payer[E]) == (7, 9)


