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

# W9 (docs/rules/wuhu.md#w9): four cells are typos and lose to the formula.
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
# A = concealed kong) and the tiles of the other suits. 10, 13 and 14 支 need kongs (W9).
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


# ---------------------------------------------------------------------------------------------------------------
# 嘴子 (W6) in plain hands: 2 each (315) / 5 (525), doubled on self-draw except 杠后开花


def test_hun_yi_se():
    # 123m 456m 888m 999m + 中中, 12支; 99m/中中 waits 9m or 中 (no 压档)
    # ron: 1 + round(12 x 2/10 = 2.4) = 2 + 混一色 2 = 5; E 6. self: 3 + round(4.8) = 5 + 2 x 2 = 12; E 15
    r = score("12345688899m77z+9m", frm=W)
    assert "hun_yi_se" in codes(r) and (r.per_payer[W], r.per_payer[E]) == (5, 6)
    r = score("12345688899m77z+9m")
    assert item(r, "hun_yi_se") == 4 and (r.per_payer[W], r.per_payer[E]) == (12, 15)
    # 525 ron: 2 + round(12 / 2) = 6 + 5 = 13; self: 6 + 12 + 10 = 28
    assert score("12345688899m77z+9m", frm=W, mode=525).per_payer[W] == 13
    assert score("12345688899m77z+9m", mode=525).per_payer[W] == 28


def test_tong_tian():
    # 123m 456m 789m 99m + 234p, 11支. ron: 1 + round(2.2) = 2 + 通天 2 = 5; self: 3 + round(4.4) = 4 + 4 = 11
    r = score("12345678999m23p+4p", frm=W)
    assert "tong_tian" in codes(r) and r.per_payer[W] == 5
    assert score("12345678999m23p+4p").per_payer[W] == 11


def test_si_he_concealed_and_not_as_pair():
    # 1111m as 111m + 123m: 四核. 111m 123m 456m 99m + 234p, 11支, ron: 1 + 2 + 2 = 5
    r = score("11112345699m23p+4p", frm=W)
    assert "si_he" in codes(r) and r.per_payer[W] == 5
    # 1111m as 11 (pair) + 123m + 123m: two of the four are the pair -> no 四核. 8支 ron: 1 + 2 = 3
    r = score("1111223m456p789s+3m", frm=W)
    assert "si_he" not in codes(r) and r.per_payer[W] == 3


def test_dui_dui_hu():
    # 111m 333m 555m 777m 99p, 12支, 单吊 9p. self: 3 + round(4.8) = 5 + 2 x 2 = 12; E 15
    r = score("111333555777m9p+9p")
    assert item(r, "dui_dui_hu") == 4 and (r.per_payer[W], r.per_payer[E]) == (12, 15)


def test_dui_dui_hu_chosen_over_sequences():
    # 111m 222m 333m can be read as 123m x3 too; the triplet reading pays more (对对胡 嘴子).
    # 9支 ron: 1 + round(1.8) = 2 + 对对胡 2 = 5; E 6
    r = score("11122233m444p99p+3m", frm=W)
    assert "dui_dui_hu" in codes(r) and (r.per_payer[W], r.per_payer[E]) == (5, 6)


def test_gang_kai_not_doubled():
    # 234m 567m 99m 345s + (1111p), won on the replacement 5s (34s waits 2s/5s: no 压档), 8支.
    # 自摸 3 + round(8 x 4/10 = 3.2) = 3 + 杠后开花 2 (not doubled) + 暗杠 2 = 10; E 13
    r = score("234567m99m34s(1111p)+5s", kong_draw=True)
    assert item(r, "gang_kai") == 2 and (r.per_payer[W], r.per_payer[E]) == (10, 13)


# ---------------------------------------------------------------------------------------------------------------
# 交 (W7, W8): 30 / 50 per 交, extras 10 / 20, self-draw 10 / 20; nothing else counts


def test_qing_yi_se():
    # 123m 123m 456m 999m 77m: 清一色 = 1 交. ron 30 each (the dealer too: no dealer extra); self 30 + 10 = 40
    r = score("1122334567999m+7m", frm=W)
    assert r.per_payer == {E: 30, W: 30, N: 30} and r.extra["jiao"] == 1
    assert r.jiao_payments == (-30, 90, -30, -30) and r.stack_payments == (0, 0, 0, 0)
    assert "zhi_fan" not in codes(r) and "dealer_pays" not in codes(r)
    assert score("1122334567999m+7m").per_payer[W] == 40
    assert score("1122334567999m+7m", frm=W, mode=525).per_payer[E] == 50


def test_direct_jiao_with_extra_zuizi():
    # 111m 333m 555m 777m 99m: 清一色 交 + 对对胡 extra. ron 30 + 10 = 40; 525: 50 + 20 = 70; self 315: 30+10+10
    assert score("1113335557779m+9m", frm=W).per_payer[W] == 40
    assert score("1113335557779m+9m", frm=W, mode=525).per_payer[W] == 70
    r = score("1113335557779m+9m")
    assert r.per_payer[W] == 50 and item(r, "jiao_zimo") == 10


def test_shuang_ba_zhi_without_other_meld():
    # [1111m][9999m] + 234p 567p 99p (8 筒): 双八支 = 1 交. Alarm (two exposed 万 kongs), but no meld of another
    # suit shown: plain 交, no 包: 30 each
    r = score("2345699p[1111m:W][9999m:N]+7p", frm=W)
    assert "shuang_ba_zhi" in codes(r) and r.payments == (-30, 90, -30, -30)
    assert "alarm_double_eight" in note_codes(r) and "bao" not in note_codes(r)


def test_shuang_ba_zhi_with_other_meld_discarder_pays():
    # [1111m][9999m][999p] + 234p 55p (8 筒): 双八支 showing a 筒 meld: the discarder W pays for all 3 x 30 = 90
    r = score("2355p[1111m:W][9999m:N][999p:E]+4p", frm=W)
    assert r.payments == (0, 90, -90, 0) and r.per_payer == {E: 30, W: 30, N: 30}
    assert "bao" in note_codes(r)
    # self-drawn: no discarder, no 包: 30 + 10 = 40 each
    assert score("2355p[1111m:W][9999m:N][999p:E]+4p").payments == (-40, 120, -40, -40)
    # the other suit only in a concealed kong: nothing 对下来 of another suit, no 包
    r = score("2355p[1111m:W][9999m:N](9999p)+4p", frm=W)
    assert r.payments == (-30, 90, -30, -30) and "alarm_double_eight" in note_codes(r)


def test_shuang_si_he_concealed():
    # 3333m 4444m as 333m 444m 345m + 99m + 678p: two 四核 = 双四核 交 (not 嘴子): 30 each
    r = score("33334444599m67p+8p", frm=W)
    assert "shuang_si_he" in codes(r) and "si_he" not in codes(r)
    assert r.per_payer == {E: 30, W: 30, N: 30}


def test_tian_hu_and_di_hu():
    # 天胡: the dealer's 14 dealt tiles, self-drawn: 30 + 10 = 40 from each
    assert score("23456799m345p67s+8s", winner=E, heavenly=True).payments == (120, -40, -40, -40)
    # 地胡: S wins on E's first discard: 30 each, E pays no extra
    assert score("23456799m345p67s+8s", frm=E, earthly=True).payments == (-30, 90, -30, -30)
    # 天胡 + 清一色: 2 交 + self = 60 + 10 = 70
    assert score("1122334567999m+7m", winner=E, heavenly=True).per_payer[S] == 70


def test_gang_kai_ya_dang():
    # (1111p) + 234m 567m 99m + 35s, the replacement 4s is the only wait (压4): 杠后压档 = 1 交, its 杠后开花
    # consumed. 30 + self 10 = 40 each; 525: 50 + 20 = 70
    r = score("234567m99m35s(1111p)+4s", kong_draw=True)
    assert "gang_kai_ya_dang" in codes(r) and "gang_kai" not in codes(r)
    assert r.per_payer == {E: 40, W: 40, N: 40}
    assert score("234567m99m35s(1111p)+4s", kong_draw=True, mode=525).per_payer[W] == 70


def test_two_zuizi_make_one_jiao():
    # 111m 333m 555m 中中中 99m: 对对胡 + 混一色 = 1 交 (no extra). ron 30; self 40; 525 ron 50
    r = score("1113335559m777z+9m", frm=W)
    assert "jiao_two_zuizi" in codes(r) and r.per_payer[W] == 30
    assert score("1113335559m777z+9m").per_payer[W] == 40
    assert score("1113335559m777z+9m", frm=W, mode=525).per_payer[W] == 50
    # 通天四核: 111m 123m 456m 789m + 55p: 通天 + 四核 = 1 交: 30
    assert score("111123456789m5p+5p", frm=W).per_payer[W] == 30


def test_three_zuizi_one_extra():
    # (1111m) 333m 555m 中中中 99m won on a kong replacement: 对对胡 + 混一色 + 杠后开花 = 1 交 + 1 extra
    # self: 30 + 10 + 10 = 50; 525: 50 + 20 + 20 = 90
    r = score("3335559m777z(1111m)+9m", kong_draw=True)
    assert r.per_payer[W] == 50 and r.extra["jiao"] == 1
    assert score("3335559m777z(1111m)+9m", kong_draw=True, mode=525).per_payer[W] == 90


# ---------------------------------------------------------------------------------------------------------------
# 报警 and 包 (W12)

PURE_ONE_FEEDER = "5699p[111p:W][444p:W][888p:W]+7p"  # 清一色 (14 筒): 1 交, 3对 all fed by W


def test_three_pure_single_feeder_pays_on_any_discard_and_self_draw():
    # N deals in: W fed all three pungs, W pays 3 x 30 = 90
    r = score(PURE_ONE_FEEDER, frm=N)
    assert r.payments == (0, 90, -90, 0) and r.jiao_payments == r.payments
    assert r.per_payer == {E: 30, W: 30, N: 30}
    assert note_codes(r) == ["alarm_three_pure", "bao"]
    assert next(i for i in r.notes if i.code == "bao").value == 90
    # self-drawn: W still pays for all: 3 x (30 + 10) = 120
    assert score(PURE_ONE_FEEDER).payments == (0, 120, -120, 0)


def test_three_pure_mixed_feeders():
    # W, N, W fed the three: the discarder pays for all; E deals in -> E pays 90
    hand = "5699p[111p:W][444p:N][888p:W]+7p"
    assert score(hand, frm=E).payments == (-90, 90, 0, 0)
    # self-drawn: no 包, 40 each
    r = score(hand)
    assert r.payments == (-40, 120, -40, -40) and note_codes(r) == ["alarm_three_pure"]
    # feeders unknown: no single feeder can be named, the discarder pays
    assert score("5699p[111p][444p][888p]+7p", frm=N).payments == (0, 90, 0, -90)


def test_three_mixed_alarm_single_feeder():
    # [111p][中中中][444p] all fed by W (混 3对) + 888p 55p: 混一色 + 对对胡 = 1 交 = 30; N deals in, W pays 3 x 30
    r = score("8885p[111p:W][777z:W][444p:W]+5p", frm=N)
    assert "alarm_three_mixed" in note_codes(r)
    assert r.payments == (0, 90, -90, 0)


def test_fourth_pung_transfers_bao():
    # alarm raised by W's three 筒 pungs; N fed the 4th (中): 混一色 + 对对胡 = 1 交; N pays for all
    hand = "5p[111p:W][444p:W][888p:W][777z:N]+5p"
    assert score(hand, frm=E).payments == (0, 90, 0, -90)
    assert score(hand).payments == (0, 120, 0, -120)
    # 4th feeder unknown: back to the single feeder W
    assert score("5p[111p:W][444p:W][888p:W][777z]+5p", frm=E).payments == (0, 90, -90, 0)


def test_double_si_he_alarm():
    # [333m][444m] shown; 345m completes both 四核: 双四核 交. E deals the 4m (one of those ranks): E pays 90
    r = score("3599m678p[333m:N][444m:W]+4m", frm=E)
    assert r.payments == (-90, 90, 0, 0) and "alarm_double_sihe" in note_codes(r)
    # E deals 5m (not 3m or 4m): 双四核 交 still, no 包: 30 each
    r = score("3499m678p[333m:N][444m:W]+5m", frm=E)
    assert r.payments == (-30, 90, -30, -30) and "bao" not in note_codes(r)


def test_no_bao_without_jiao():
    # three 筒 pungs from W but a plain win (234m 99m, 9 筒): no 交 -> no 包. 9支 ron: 1 + round(1.8) = 2 = 3; E 4
    r = score("2399m[111p:W][444p:W][888p:W]+4m", frm=N)
    assert r.extra["jiao"] == 0 and r.payments == (-4, 10, -3, -3)
    assert note_codes(r) == ["alarm_three_pure"]


def test_dianpao_bao_san():
    # on: the discarder W pays all three shares 3 + 3 + 4 = 10
    hand = "23456799m345p67s+8s"
    r = score(hand, frm=W, rules={"dianpao_bao_san": True})
    assert r.payments == (0, 10, -10, 0) and "dianpao_bao_san" in note_codes(r)
    assert r.per_payer == {E: 4, W: 3, N: 3}
    # off (default): everyone pays their own share
    assert score(hand, frm=W).payments == (-4, 10, -3, -3)
    # self-drawn: nobody dealt in, each pays: 3 + 3 = 6, E 9
    assert score(hand, rules={"dianpao_bao_san": True}).payments == (-9, 21, -6, -6)
    # a 包 takes precedence: N deals into W's 3对 -> W pays
    assert score(PURE_ONE_FEEDER, frm=N, rules={"dianpao_bao_san": True}).payments == (0, 90, -90, 0)


def test_alarms_helper():
    def melds(text: str):
        return parse_hand("1z" + text + "+1z").melds

    assert alarms(melds("[111p][444p][888p]")) == ("alarm_three_pure",)
    assert alarms(melds("[111p][777z][444p]")) == ("alarm_three_mixed",)
    assert alarms(melds("[111p][777z][444s]")) == ()
    assert alarms(melds("[111p][444p](8888p)")) == ()  # a concealed kong is not 对下来
    assert alarms(melds("[1111m][9999m]")) == ("alarm_double_eight",)
    # W12 (ruling 2026-11-30): any two kongs of one suit, exposed or concealed (the seed's 任意两杠)
    assert alarms(melds("(1111m)[9999m]")) == ("alarm_double_eight",)
    assert alarms(melds("(1111m)(9999m)")) == ("alarm_double_eight",)
    assert alarms(melds("(1111m)[9999p]")) == ()  # two suits: no alarm
    assert alarms(melds("[333m][555m]")) == ("alarm_double_sihe",)
    assert alarms(melds("[333m][666m]")) == ()  # 36 is not related
    assert alarms(melds("[333m][444s]")) == ()
    assert set(ALARM_NAMES) == {"alarm_three_pure", "alarm_three_mixed", "alarm_double_eight", "alarm_double_sihe"}


# ---------------------------------------------------------------------------------------------------------------
# refusals


@pytest.mark.parametrize(
    ("text", "code", "en_part", "zh_part"),
    [
        ("1133557799m22p4s+4s", "no_seven_pairs", "seven pairs", "七对"),  # 七对 shape
        ("123456m456p78s11s+9s", "no_bazhi", "the most here is 6", "八支"),  # 6 万, 3 筒, 5 条
        ("23456799m345p11z+1z", "tile_not_in_variant", "without 1z", "没有"),  # only 红中 is in the wall
        ("2345679m345p[678s]+9m", "no_chi_in_variant", "no chi", "不能吃"),
        ("23456799m345p68s+9s", "not_complete", "not complete", "没有和"),
    ],
)
def test_refusals(text, code, en_part, zh_part):
    hand = parse_hand(text)
    with pytest.raises(HandError) as exc:
        VARIANT.score(hand, Situation(winner=S, discarder=W), {"mode": 315})
    assert exc.value.code == code
    assert en_part in exc.value.message("en") and zh_part in exc.value.message("zh")
    assert VARIANT.can_win(hand, Situation(winner=S, discarder=W)) is False


@pytest.mark.parametrize(
    ("situation", "code"),
    [
        (Situation(winner=S, discarder=W, earthly=True), "earthly_from_dealer"),
        (Situation(winner=S, earthly=True), "earthly_from_dealer"),
        (Situation(winner=E, discarder=W, heavenly=True), "heavenly_self_drawn"),
        (Situation(winner=S, kong_draw=True), "kong_draw_without_kong"),
    ],
)
def test_impossible_situations_refused(situation, code):
    with pytest.raises(HandError) as exc:
        VARIANT.score(parse_hand("23456799m345p67s+8s"), situation, {"mode": 315})
    assert exc.value.code == code and exc.value.message("zh") != code


def test_meld_fed_by_the_winner_refused():
    with pytest.raises(HandError) as exc:
        score("5699p[111p:S][444p:W][888p:W]+7p", frm=N)
    assert exc.value.code == "fed_by_winner" and "[111p:S]" in exc.value.message("en")


def test_variant_shape():
    v = get_variant("wuhu")
    assert v is VARIANT and v.modes == (315, 525) and not v.allows_chi and not v.seven_pairs
    counts = v.tile_counts(v.rules())
    assert sum(counts) == 112 and counts[RED] == 4
    assert v.rules() == {"mode": 315, "dianpao_bao_san": False, "di_per_match": 1}
    assert v.parse_rules(["mode=525", "dianpao_bao_san=on", "di_per_match=3"]) == {
        "mode": 525,
        "dianpao_bao_san": True,
        "di_per_match": 3,
    }


# ---------------------------------------------------------------------------------------------------------------
# properties: random legal wins settle to zero; can_win agrees with scoring

SUITED = list(range(27))
ALLOWED = SUITED + [RED]


@st.composite
def wuhu_wins(draw):
    main = draw(st.sampled_from([0, 9, 18]))

    def kind(seq: bool) -> int:
        top = 7 if seq else 9
        if draw(st.integers(0, 9)) < 7:
            return main + draw(st.integers(0, top - 1))
        pool = [k for k in SUITED if (k % 9) < top] + ([] if seq else [RED])
        return draw(st.sampled_from(pool))

    pair = kind(False)
    winner = draw(st.integers(0, 3))
    others = [s for s in range(4) if s != winner]
    concealed = [pair, pair]
    melds: list[Meld] = []
    for _ in range(4):
        if draw(st.booleans()):
            k = kind(True)
            concealed += [k, k + 1, k + 2]
            continue
        k = kind(False)
        how = draw(st.sampled_from(["closed", "pung", "kong", "ckong"]))
        fed = draw(st.sampled_from(others + [None]))
        if how == "closed":
            concealed += [k] * 3
        elif how == "pung":
            melds.append(Meld(MeldKind.PUNG, k, fed_by=fed))
        elif how == "kong":
            melds.append(Meld(MeldKind.KONG, k, fed_by=fed))
        else:
            melds.append(Meld(MeldKind.CONCEALED_KONG, k))
    win = draw(st.sampled_from(concealed))
    concealed.remove(win)
    hand = Hand(tuple(concealed), tuple(melds), win)
    counts = hand.all_counts
    assume(max(counts) <= 4)
    assume(max(sum(counts[b : b + 9]) for b in (0, 9, 18)) >= 8)
    self_drawn = draw(st.booleans())
    discarder = None if self_drawn else draw(st.sampled_from(others))
    kong_draw = self_drawn and any(m.is_kong for m in melds) and draw(st.booleans())
    heavenly = winner == 0 and self_drawn and not melds and draw(st.booleans())
    earthly = winner != 0 and discarder == 0 and not melds and draw(st.booleans())
    situation = Situation(winner=winner, discarder=discarder, kong_draw=kong_draw, heavenly=heavenly, earthly=earthly)
    rules = {"mode": draw(st.sampled_from([315, 525])), "dianpao_bao_san": draw(st.booleans())}
    return hand, situation, rules


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(wuhu_wins())
def test_every_settlement_sums_to_zero(case):
    hand, situation, rules = case
    assert VARIANT.can_win(hand, situation, rules)
    r = VARIANT.score(hand, situation, rules)
    assert sum(r.payments) == 0
    assert r.payments == tuple(a + b for a, b in zip(r.stack_payments, r.jiao_payments, strict=True))
    assert (r.stack_payments == (0, 0, 0, 0)) == (r.extra["jiao"] > 0)
    assert r.payments[situation.winner] == sum(r.per_payer.values()) > 0
    assert set(r.per_payer) == {s for s in range(4) if s != situation.winner}
    assert all(r.payments[s] <= 0 for s in range(4) if s != situation.winner)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(wuhu_wins(), st.data())
def test_can_win_agrees_with_scoring(case, data):
    # swap one concealed tile for another kind of the wall: sometimes still a win, mostly not
    hand, situation, rules = case
    tiles = list(hand.concealed)
    if tiles and data.draw(st.booleans()):
        i = data.draw(st.integers(0, len(tiles) - 1))
        tiles[i] = data.draw(st.sampled_from(ALLOWED))
        hand = Hand(tuple(tiles), hand.melds, hand.win_tile)
        assume(max(hand.all_counts) <= 4)
    try:
        VARIANT.score(hand, situation, rules)
        scored = True
    except HandError:
        scored = False
    assert VARIANT.can_win(hand, situation, rules) == scored
    if scored:
        assert max(sum(hand.all_counts[b : b + 9]) for b in (0, 9, 18)) >= 8
        assert any(suit_of(k) < 3 for k in hand.concealed + (hand.win_tile,))
