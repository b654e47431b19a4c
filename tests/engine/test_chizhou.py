"""池州麻将 Chizhou: 花, the 花 gate, 番 and its cap, payments, 承包 / 反包 and the chi limit (docs/rules/chizhou.md C4-C9).

Seats: E=0 S=1 W=2 N=3. Unless said otherwise the winner is S; S chis only from E, W chis only from S.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.errors import HandError
from engine.tiles import HONOR, Hand, Meld, MeldKind, parse_hand, seat_index
from engine.variants import Situation, get_variant
from engine.variants.chizhou import VARIANT, can_win, claim_allowed, shown_hua

E, S, W, N = 0, 1, 2, 3


def melds(text: str) -> tuple[Meld, ...]:
    return parse_hand(text).melds if text else ()


def sc(text, *, winner="S", frm=None, rob=False, kong_draw=False, rules=None, by_seat=None):
    """Score ``text``; ``by_seat`` maps seat letters to meld strings of the other players (None: unknown)."""
    w = seat_index(winner)
    hand = parse_hand(text)
    table = None
    if by_seat is not None:
        table = tuple(hand.melds if s == w else melds(by_seat.get("ESWN"[s], "")) for s in range(4))
    sit = Situation(
        winner=w,
        discarder=None if frm is None else seat_index(frm),
        rob_kong=rob,
        kong_draw=kong_draw,
        melds_by_seat=table,
    )
    return VARIANT.score(hand, sit, rules)


def codes(result) -> dict[str, int]:
    return {i.code: i.value for i in result.items}


def adds(result) -> int:
    return sum(i.value for i in result.items if i.kind == "add")


def test_variant_shape():
    v = get_variant("chizhou")
    assert v is VARIANT
    assert (v.key, v.zh, v.allows_chi, v.seven_pairs, v.multiple_winners, v.rob_kong) == (
        "chizhou", "池州麻将", True, False, True, True,
    )  # fmt: skip
    assert v.tile_counts(v.rules()) == (4,) * 34  # 136 tiles, honours included
    assert v.rules() == {"big_hands_skip_hua": False, "contracts": True, "quan_per_match": 1}
    assert v.parse_rules(["quan_per_match=4", "contracts=off"])["quan_per_match"] == 4
    with pytest.raises(Exception, match="1/4"):
        v.parse_rules(["quan_per_match=2"])
    for r in v.house_rules:
        assert r.zh and r.en and r.help_zh and r.help_en


# ---------------------------------------------------------------------------------------------------------------
# 花 (C5): every source


@pytest.mark.parametrize(
    "hand, frm, hua, item, value",
    [
        # two shown honour pungs (字碰): 1 + 1 = 2
        ("123m456p1z[555z][666z]+1z", None, 2, "hua_honour_pung", 2),
        # two concealed honour triplets (字暗刻): 1 + 1 = 2
        ("123m456p5556661z+1z", None, 2, "hua_honour_concealed", 2),
        # 555z finished by E's discard counts as a pung (1), 666z and 777z concealed (1 + 1): 3
        ("123m5566677711z+5z", "E", 3, "hua_honour_pung", 1),
        ("123m5566677711z+5z", "E", 3, "hua_honour_concealed", 2),
        # won on the pair: all three honour triplets stay concealed: 1 + 1 + 1 = 3
        ("123m5556667771z+1z", "E", 3, "hua_honour_concealed", 3),
        # suited 明杠 1 + 字碰 1 = 2
        ("123m456p1z[555z][7777s]+1z", None, 2, "hua_kong", 1),
        # suited 暗杠 = 2
        ("123m456p789m1z(7777s)+1z", None, 2, "hua_concealed_kong", 2),
        # honour 明杠 = 2
        ("123m456p789s1z[5555z]+1z", None, 2, "hua_honour_kong", 2),
        # honour 暗杠 = 3, enough even on a discard
        ("123m456p789s1z(5555z)+1z", "E", 3, "hua_honour_concealed_kong", 3),
        # added kong (加杠) is a 明杠: honour 2 + suited 暗杠 2 = 4
        ("123m456p1z[5555z](9999s)+1z", None, 4, "hua_honour_kong", 2),
    ],
)
def test_hua_sources(hand, frm, hua, item, value):
    r = sc(hand, frm=frm)
    assert r.extra["hua"] == hua
    assert codes(r)["hua"] == hua
    assert codes(r)[item] == value
    assert all(i.kind == "info" for i in r.items if i.code.startswith("hua"))  # 花 are not paid


@pytest.mark.parametrize(
    "hand",
    [
        "123m456p1z[555p][678s]+1z",  # suited pung and chi: 0 花
        "1112223334445p+5p",  # suited concealed triplets: 0 花
    ],
)
def test_no_hua_from_suited_pungs_or_chis(hand):
    with pytest.raises(HandError) as e:
        sc(hand)
    assert e.value.code == "hua_gate" and e.value.params["have"] == 0


# ---------------------------------------------------------------------------------------------------------------
# the gate: self-draw >= 2, discard >= 3, robbing a kong >= 2

H1 = "123m456p78s11z[555z]+9s"  # 字碰: 1 花
H2 = "123m456p78s11z[5555z]+9s"  # 字明杠: 2 花
H3 = "123m456p78s11z(5555z)+9s"  # 字暗杠: 3 花


@pytest.mark.parametrize(
    "hand, have, frm, rob, ok, need",
    [
        (H1, 1, None, False, False, 2),
        (H2, 2, None, False, True, 2),
        (H3, 3, None, False, True, 2),
        (H1, 1, "E", False, False, 3),
        (H2, 2, "E", False, False, 3),
        (H3, 3, "E", False, True, 3),
        (H1, 1, "W", True, False, 2),
        (H2, 2, "W", True, True, 2),
        (H3, 3, "W", True, True, 2),
    ],
)
def test_hua_gate(hand, have, frm, rob, ok, need):
    sit = Situation(winner=S, discarder=None if frm is None else seat_index(frm), rob_kong=rob)
    h = parse_hand(hand)
    assert VARIANT.can_win(h, sit) is ok
    if ok:
        assert VARIANT.score(h, sit).extra["hua"] == have
        return
    with pytest.raises(HandError) as e:
        VARIANT.score(h, sit)
    assert e.value.code == "hua_gate"
    assert (e.value.params["need"], e.value.params["have"]) == (need, have)


def test_hua_gate_messages():
    with pytest.raises(HandError) as e:
        sc(H2, frm="E")
    assert (
        e.value.message("en") == "not enough flowers (花) to win: 3 needed when winning on a discard, this hand has 2"
    )
    assert e.value.message("zh") == "花不够，不能和：接炮需要 3 花，这手牌只有 2 花"
    with pytest.raises(HandError) as e:
        sc(H1)
    assert e.value.message("zh") == "花不够，不能和：自摸需要 2 花，这手牌只有 1 花"
    with pytest.raises(HandError) as e:
        sc(H1, frm="W", rob=True)
    assert e.value.message("en") == "not enough flowers (花) to win: 2 needed when robbing a kong, this hand has 1"
    assert e.value.message("zh") == "花不够，不能和：抢杠需要 2 花，这手牌只有 1 花"


@pytest.mark.parametrize(
    "hand, frm, fan",
    [
        ("1112345678999m+5m", "E", 3),  # 清一色, 0 花, on a discard
        ("111222333m555p7s+7s", None, 3),  # 0 花; only the all-triplets reading (对对胡) is a big hand
        ("1112223334445z+5z", "E", 3),  # never short of 花 (4 concealed honour triplets): 字一色 + 对对胡
    ],
)
def test_big_hands_skip_hua(hand, frm, fan):
    on = {"big_hands_skip_hua": True}
    r = sc(hand, frm=frm, rules=on)
    assert r.extra["fan"] == fan and r.extra["big_hand"]
    if r.extra["hua"] < (3 if frm else 2):
        with pytest.raises(HandError, match="not enough flowers \\(花\\)"):
            sc(hand, frm=frm)
        assert not VARIANT.can_win(
            parse_hand(hand), Situation(winner=S, discarder=seat_index(frm) if frm else None)
        )


def test_big_hands_skip_hua_keeps_the_gate_for_small_hands():
    on = {"big_hands_skip_hua": True}
    with pytest.raises(HandError, match="not enough flowers \\(花\\)"):
        sc(H1, rules=on)  # 1 花, no big hand: still refused
    # 111222333m read as three sequences is no big hand; the 对对胡 reading is the one that may win (3 x 1 each)
    r = sc("111222333m555p7s+7s", rules=on)
    assert "duiduihu" in codes(r) and r.payments == (-3, 9, -3, -3)


# ---------------------------------------------------------------------------------------------------------------
# 番 (C7)


@pytest.mark.parametrize(
    "hand, kong_draw, expected, fan",
    [
        # 小胡: no 番 item, f = 1
        (H3, False, {"xiaohu": 1}, 1),
        # 对对胡 alone (three suits and honours): 3
        ("111m555p999s1z(5555z)+1z", False, {"duiduihu": 3}, 3),
        # 清一色 alone (sequences, suited 暗杠 gives the 2 花): 3
        ("1231234568m(9999m)+8m", False, {"qingyise": 3}, 3),
        # 混一色 alone: 3
        ("23456789m11z(5555z)+1m", False, {"hunyise": 3}, 3),
        # 大吊车 alone: four melds, won on the pair: 2
        ("1z[123m][456p][789s](5555z)+1z", False, {"dadiaoche": 2}, 2),
        # 杠开 alone: 2
        (H3, True, {"gangkai": 2}, 2),
        # 对对胡 3 + 清一色 3 = 6, capped at 3
        ("111555999m2m(7777m)+2m", False, {"duiduihu": 3, "qingyise": 3, "cap": 3}, 3),
        # 字一色 3 + 对对胡 3 = 6, capped at 3
        ("1112223334445z+5z", False, {"duiduihu": 3, "ziyise": 3, "cap": 3}, 3),
        # 大吊车 2 + 杠开 2 = 4, capped at 3: 蜡子 (seed item 22)
        ("1z[123m][456p][789s](5555z)+1z", True, {"dadiaoche": 2, "gangkai": 2, "cap": 3}, 3),
        # 大吊车 2 + 混一色 3 = 5 -> 3
        ("1z[123m][456m][789m](5555z)+1z", False, {"dadiaoche": 2, "hunyise": 3, "cap": 3}, 3),
    ],
)
def test_fan(hand, kong_draw, expected, fan):
    r = sc(hand, kong_draw=kong_draw)
    fan_items = {i.code: i.value for i in r.items if i.kind == "add" or i.code == "cap"}
    assert fan_items == expected
    assert min(3, adds(r)) == fan == r.extra["fan"]
    assert r.extra["lazi"] is (fan == 3)
    assert codes(r)["fan"] == fan
    assert r.payments[S] == 3 * fan  # self-drawn: each of three pays f


def test_lazi_item_name():
    r = sc("1z[123m][456p][789s](5555z)+1z", kong_draw=True)
    assert [i.zh for i in r.items if i.code == "fan"] == ["蜡子"]
    assert [i.zh for i in sc(H3).items if i.code == "fan"] == ["番"]


def test_no_seven_pairs():
    with pytest.raises(HandError) as e:
        sc("1122m3344p5566s7z+7z")
    assert e.value.code == "not_complete"
    assert not VARIANT.can_win(parse_hand("1122m3344p5566s7z+7z"), Situation(winner=S))


def test_best_reading_is_kept():
    # 111222333m: three pungs (对对胡 3 with the 7z kong) or three sequences (小胡 1). The pung reading pays 3 each.
    r = sc("111222333m1z(7777z)+1z")
    assert codes(r).get("duiduihu") == 3
    assert r.payments == (-3, 9, -3, -3)


# ---------------------------------------------------------------------------------------------------------------
# payments (C8), 底 1


@pytest.mark.parametrize(
    "hand, frm, rob, payments, per_payer",
    [
        (H3, "E", False, (-1, 1, 0, 0), {E: 1}),  # ron, f 1: E pays 1
        (H3, None, False, (-1, 3, -1, -1), {E: 1, W: 1, N: 1}),  # self-draw: 1 each
        (H3, "W", True, (0, 3, -3, 0), {W: 3}),  # 抢杠 from W: 3 x 1
        ("23456789m11z(5555z)+1m", "N", False, (0, 3, 0, -3), {N: 3}),  # 混一色 f 3, ron: N pays 3
        ("23456789m11z(5555z)+1m", None, False, (-3, 9, -3, -3), {E: 3, W: 3, N: 3}),  # 3 each
        ("23456789m11z(5555z)+1m", "W", True, (0, 9, -9, 0), {W: 9}),  # 抢杠: 3 x 3 by W
    ],
)
def test_payments(hand, frm, rob, payments, per_payer):
    r = sc(hand, frm=frm, rob=rob)
    assert r.payments == payments
    assert dict(r.per_payer) == per_payer
    assert r.notes == ()


def test_rob_kong_item():
    r = sc(H3, frm="W", rob=True)
    assert codes(r)["qianggang"] == 3 and adds(r) == 1  # 小胡 1, the robbed W pays 3 x 1
    assert "qianggang" not in codes(sc(H3, frm="W"))


def test_dealer_wins_the_same():
    # no dealer extra in Chizhou: E self-draws H3 (f 1): 1 each
    assert sc(H3, winner="E").payments == (3, -1, -1, -1)


# ---------------------------------------------------------------------------------------------------------------
# 承包: feeder pays (C9, seed 19 二). S holds 3 口 of 万 from E and wins with 蜡子 (大吊车 2 + 混一色 3 -> 3).

FED = "1z[123m:E][456m:E][789m:E](5555z)+1z"


@pytest.mark.parametrize(
    "frm, rob, payments",
    [
        # another player (W) deals in: W pays f 3, E pays f 3 more
        ("W", False, (-3, 6, -3, 0)),
        # the feeder E deals in: E pays 3 x 3 = 9
        ("E", False, (-9, 9, 0, 0)),
        # S self-draws: E pays 3 x 3 = 9, W and N 3 each
        (None, False, (-9, 15, -3, -3)),
        # S robs W's kong (a self-draw): W pays the three plain shares 3 x 3 = 9, E its extra 2 x 3 = 6
        ("W", True, (-6, 15, -9, 0)),
        # S robs E's kong: E pays 9 + 6 = 15
        ("E", True, (-15, 15, 0, 0)),
    ],
)
def test_feeder_pays(frm, rob, payments):
    r = sc(FED, frm=frm, rob=rob)
    assert r.extra["fan"] == 3
    assert r.payments == payments
    assert [n.code for n in r.notes] == ["contract_feeder"]
    assert r.notes[0].value == -payments[E] - r.per_payer.get(E, 0)  # the note names E's extra
    assert " E " in r.notes[0].en and "东家" in r.notes[0].zh


@pytest.mark.parametrize(
    "hand, kong_draw, rules, payments",
    [
        # the same hand with contracts off: plain self-draw, 3 each
        (FED, False, {"contracts": False}, (-3, 9, -3, -3)),
        # 3 口 of 万 from E but no 蜡子 (f 1): plain, 1 each
        ("1p555z[123m:E][456m:E][7777m:E]+1p", False, None, (-1, 3, -1, -1)),
        # 蜡子 (大吊车 + 杠开) but E fed 2 口 of 万 and 1 of 筒: no 3 of one suit, plain 3 each
        ("1z[123m:E][456m:E][789p:E](5555z)+1z", True, None, (-3, 9, -3, -3)),
        # one of the three 万 melds has no known feeder: plain
        ("1z[123m:E][456m:E][789m](5555z)+1z", False, None, (-3, 9, -3, -3)),
    ],
)
def test_feeder_pays_does_not_apply(hand, kong_draw, rules, payments):
    r = sc(hand, kong_draw=kong_draw, rules=rules)
    assert r.payments == payments
    assert r.notes == ()


# ---------------------------------------------------------------------------------------------------------------
# 反包 (C9, seed 19 一): the winner S fed W >= 3 口 of one suit; W's melds come from the table.

SMALL = H3  # S wins with f 1
LAZI = "23456789m11z(5555z)+1m"  # S wins with 混一色, f 3
NO_HUA = "[123m:S][456m:S][789m:S][555p:N]"  # 0 花, two suits, not all pungs
BIG_SUIT = "[123m:S][456m:S][789m:S][7777z:N]"  # 字明杠 2 花, one suit + honours
BIG_PUNGS = "[111m:S][555m:S][999m:S][7777p:N]"  # 明杠 1 花, two suits, all pungs/kongs
PLAIN = "[123m:S][456m:S][789m:S][7777p:N]"  # 明杠 1 花, two suits, chis: no 反包
FOUR = "[123m:S][456p:S][789s:S][555z:S]"  # 4 口 from S, any suits, 字碰 1 花


@pytest.mark.parametrize(
    "hand, w_melds, frm, payments",
    [
        # W has 0 花. E deals in: E pays f 1, W pays 1 x 1
        (SMALL, NO_HUA, "E", (-1, 2, -1, 0)),
        # W deals in: W pays 2 x 1
        (SMALL, NO_HUA, "W", (0, 2, -2, 0)),
        # S self-draws: E 1, W 3 x 1, N 1
        (SMALL, NO_HUA, None, (-1, 5, -3, -1)),
        # the same for a 蜡子 winner (f 3): 3 / 6 / 9 (seed: 本来是1，2，3，现在就是3，6，9)
        (LAZI, NO_HUA, "E", (-3, 6, -3, 0)),
        (LAZI, NO_HUA, "W", (0, 6, -6, 0)),
        (LAZI, NO_HUA, None, (-3, 15, -9, -3)),
        # W has 花 but one suit with honours: 反包 applies
        (SMALL, BIG_SUIT, "N", (0, 2, -1, -1)),
        (SMALL, BIG_SUIT, None, (-1, 5, -3, -1)),
        # W has 花 but all pungs/kongs: 反包 applies
        (SMALL, BIG_PUNGS, "W", (0, 2, -2, 0)),
        (LAZI, BIG_PUNGS, None, (-3, 15, -9, -3)),
        # W has 花 and no big-hand shape: plain settlement
        (SMALL, PLAIN, "E", (-1, 1, 0, 0)),
        (SMALL, PLAIN, "W", (0, 1, -1, 0)),
        (SMALL, PLAIN, None, (-1, 3, -1, -1)),
        # 4 口 from S, with 花 and no shape, still: 2 / 4 / 6 x f
        (SMALL, FOUR, "E", (-1, 3, -2, 0)),  # E 1, W 2 x 1
        (SMALL, FOUR, "W", (0, 4, -4, 0)),  # W 4 x 1
        (SMALL, FOUR, None, (-1, 8, -6, -1)),  # E 1, W 6 x 1, N 1
        (LAZI, FOUR, None, (-3, 24, -18, -3)),  # E 3, W 6 x 3, N 3
    ],
)
def test_reverse_contract(hand, w_melds, frm, payments):
    r = sc(hand, frm=frm, by_seat={"W": w_melds})
    assert r.payments == payments
    if payments[W] != r.per_payer.get(W, 0) * -1:
        assert [n.code for n in r.notes] == ["contract_reverse"]
        assert " W " in r.notes[0].en and "西家" in r.notes[0].zh
    else:
        assert r.notes == ()


def test_reverse_contract_rob_kong():
    # S robs N's kong with f 1: N pays the three plain shares 3 x 1; W (0 花, 3 口 from S) its extra 3 - 1 = 2
    r = sc(SMALL, frm="N", rob=True, by_seat={"W": NO_HUA})
    assert r.payments == (0, 5, -2, -3)
    assert "robbing a kong" in r.notes[0].en and "W pays 2 on top" in r.notes[0].en


@pytest.mark.parametrize("rules, by_seat", [({"contracts": False}, {"W": NO_HUA}), (None, None)])
def test_reverse_contract_off_or_unknown(rules, by_seat):
    # contracts off, or the table gave no melds (melds_by_seat None): plain self-draw, 1 each
    r = sc(SMALL, rules=rules, by_seat=by_seat)
    assert r.payments == (-1, 3, -1, -1) and r.notes == ()


def test_reverse_needs_melds_fed_by_the_winner():
    # W's three 万 chis were fed by S, but E won: no 反包 for E
    r = sc(SMALL, winner="E", by_seat={"W": NO_HUA})
    assert r.payments == (3, -1, -1, -1)


def test_feeder_and_reverse_together():
    # S (3 口 of 万 from E, 蜡子) self-draws; S also fed W 4 口.
    # E: 3 x 3 = 9 (承包); W: 6 x 3 = 18 (反包, 4 口); N: 3. S gets 30.
    r = sc(FED, by_seat={"W": "[123p:S][456p:S][789s:S][555s:S]"})
    assert r.payments == (-9, 30, -18, -3)
    assert sorted(n.code for n in r.notes) == ["contract_feeder", "contract_reverse"]


# ---------------------------------------------------------------------------------------------------------------
# melds that cannot have happened


def test_chi_only_from_previous_seat():
    with pytest.raises(HandError) as e:
        sc("1z[123m:W][456m:E][789m:E](5555z)+1z")
    assert e.value.code == "chi_not_from_previous"
    assert "only from E" in e.value.message("en") and "上家" in e.value.message("zh")


def test_meld_fed_by_winner():
    with pytest.raises(HandError) as e:
        sc("1z[123m:E][456m:E][777m:S](5555z)+1z")
    assert e.value.code == "fed_by_winner"  # one code in every variant (tests/engine/test_entered_situations.py)


# ---------------------------------------------------------------------------------------------------------------
# chi limit (C6) and shown 花


@pytest.mark.parametrize(
    "held, hua",
    [
        ("", 0),
        ("[123m][555p]", 0),
        ("[555z]", 1),
        ("[5555p]", 1),
        ("(5555p)", 2),
        ("[5555z]", 2),
        ("(5555z)", 3),
    ],
)
def test_shown_hua(held, hua):
    assert shown_hua(melds(held) if held else ()) == hua


M1, P5, S7, Z5 = 0, 13, 24, 31


@pytest.mark.parametrize(
    "held, kind, tiles, ok",
    [
        ("", "chi", (M1, M1 + 1, M1 + 2), True),
        ("", "pung", (P5,), True),
        ("[234m]", "chi", (4, 5, 6), True),  # same suit
        ("[234m]", "chi", (P5 - 1, P5, P5 + 1), False),  # 0 花: chis of one suit only
        ("[234m]", "pung", (P5,), False),  # after a 万 chi, no 筒 peng
        ("[234m]", "peng", (P5,), False),
        ("[234m]", "kong", (P5,), False),  # a claimed kong is judged like a peng
        ("[234m]", "pung", (3,), True),  # same suit peng
        ("[234m]", "pung", (Z5,), True),  # honour pengs always
        ("[234m]", "kong", (Z5,), True),
        ("[234m][555z]", "chi", (P5 - 1, P5, P5 + 1), False),  # 1 花: still limited
        ("[234m][5555z]", "chi", (P5 - 1, P5, P5 + 1), True),  # 2 花: free
        ("[234m](2222p)", "pung", (S7,), True),  # 暗杠 2 花: free
        ("[555p]", "chi", (M1, M1 + 1, M1 + 2), True),  # only pengs so far: any chi
        ("[555p][777s]", "pung", (M1,), True),  # pengs are never limited by pengs
        ("[555p][123m]", "pung", (S7,), False),  # after the 万 chi, no 条 peng
        ("[555p][123m]", "chi", (S7 - 2, S7 - 1, S7), False),
        ("", "chi", (HONOR, HONOR + 1, HONOR + 2), False),  # honours never chow
    ],
)
def test_claim_allowed(held, kind, tiles, ok):
    assert claim_allowed(melds(held) if held else (), kind, tiles) is ok


def test_claim_allowed_bad_kind():
    with pytest.raises(ValueError):
        claim_allowed((), "ron", (1,))


# ---------------------------------------------------------------------------------------------------------------
# property: random legal winning hands with random tables always settle to zero, and can_win agrees with score


@st.composite
def deals(draw):
    pool = [4] * 34
    winner = draw(st.integers(0, 3))
    prev = (winner + 3) % 4
    others = [s for s in range(4) if s != winner]

    def take(tiles):
        for t in tiles:
            if pool[t] <= 0:
                for u in tiles[: tiles.index(t)]:
                    pool[u] += 1
                return False
            pool[t] -= 1
        return True

    # a favourite suit and feeder make one-suit hands and contracts common
    fav = draw(st.integers(0, 2))
    feeder = draw(st.sampled_from([prev, *others]))
    suits = st.sampled_from([fav] * 6 + [0, 1, 2])

    def any_tile():
        if draw(st.booleans()):
            return draw(st.integers(27, 33))
        return draw(suits) * 9 + draw(st.integers(0, 8))

    sets: list[tuple[str, int]] = []
    while len(sets) < 4:
        if draw(st.booleans()):
            t = draw(suits) * 9 + draw(st.integers(0, 6))
            if take([t, t + 1, t + 2]):
                sets.append(("seq", t))
        else:
            t = any_tile()
            if take([t] * 3):
                sets.append(("tri", t))
    while True:
        t = any_tile()
        if take([t, t]):
            break
    pair = t
    hand_melds: list[Meld] = []
    closed: list[int] = [pair, pair]
    for kind, t in sets:
        how = draw(st.sampled_from(["closed", "meld", "meld", "meld", "kong"]))
        if kind == "seq":
            if how == "closed":
                closed += [t, t + 1, t + 2]
            else:
                hand_melds.append(Meld(MeldKind.CHI, t, fed_by=prev))
        elif how == "closed":
            closed += [t] * 3
        elif how == "kong" and pool[t] > 0:
            pool[t] -= 1
            k = draw(st.sampled_from([MeldKind.KONG, MeldKind.CONCEALED_KONG]))
            by = draw(st.sampled_from([feeder, feeder, *others]))
            hand_melds.append(Meld(k, t, fed_by=by if k is MeldKind.KONG else None))
        else:
            hand_melds.append(Meld(MeldKind.PUNG, t, fed_by=draw(st.sampled_from([feeder, feeder, *others]))))
    win = draw(st.sampled_from(closed))
    closed.remove(win)
    hand = Hand(tuple(closed), tuple(hand_melds), win)

    table: list[tuple[Meld, ...]] = []
    for s in range(4):
        if s == winner:
            table.append(hand.melds)
            continue
        ms: list[Meld] = []
        for _ in range(draw(st.integers(0, 4)) if s != others[0] else 4):
            by = draw(st.sampled_from([winner] * 4 + [o for o in range(4) if o != s]))
            if draw(st.booleans()) and by == (s + 3) % 4:
                t = draw(suits) * 9 + draw(st.integers(0, 6))
                if take([t, t + 1, t + 2]):
                    ms.append(Meld(MeldKind.CHI, t, fed_by=by))
            else:
                t = (
                    draw(suits) * 9 + draw(st.integers(0, 8))
                    if draw(st.integers(0, 3))
                    else draw(st.integers(0, 33))
                )
                kong = draw(st.integers(0, 3)) == 0
                if take([t] * (4 if kong else 3)):
                    ms.append(Meld(MeldKind.KONG if kong else MeldKind.PUNG, t, fed_by=by))
        table.append(tuple(ms))

    discarder = draw(st.sampled_from([None, *others]))
    rob = discarder is not None and draw(st.booleans())
    # a kong replacement follows a kong of the winner's (a table never says otherwise; score refuses it)
    kong_draw = discarder is None and any(m.is_kong for m in hand.melds) and draw(st.booleans())
    sit = Situation(
        winner=winner,
        discarder=discarder,
        rob_kong=rob,
        kong_draw=kong_draw,
        melds_by_seat=tuple(table) if draw(st.integers(0, 3)) else None,
    )
    rules = {"big_hands_skip_hua": draw(st.booleans()), "contracts": draw(st.booleans())}
    return hand, sit, rules


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.large_base_example],
)
@given(deals())
def test_random_wins_settle_to_zero(deal):
    hand, sit, rules = deal
    full = VARIANT.rules(rules)
    ok = can_win(hand, sit, full)
    try:
        r = VARIANT.score(hand, sit, rules)
    except HandError as e:
        assert not ok
        assert e.code == "hua_gate"
        return
    assert ok
    assert sum(r.payments) == 0
    f = r.extra["fan"]
    assert 1 <= f <= 3 and min(3, adds(r)) == f
    assert ("cap" in codes(r)) is (adds(r) > 3)
    plain = 3 * f if (sit.discarder is None or sit.rob_kong) else f
    assert sum(r.per_payer.values()) == plain
    assert r.payments[sit.winner] >= plain  # contracts only ever add
    assert all(r.payments[s] <= 0 for s in range(4) if s != sit.winner)
    if not rules["contracts"]:
        assert r.payments[sit.winner] == plain and r.notes == ()
    extra = sum(n.value for n in r.notes)
    assert r.payments[sit.winner] == plain + extra


@pytest.mark.parametrize(
    ("w_concealed", "payments"),
    [
        # W shows 123m 456m 789m and a 中 kong (2 花) and holds 5m: all 万 plus honours, 反包: W pays 1 x 1
        ("5m", (0, 2, -1, -1)),
        # the same melds but W holds 5p: W's own tiles are not one suit -> no 反包, N pays the plain f 1
        ("5p", (0, 1, 0, -1)),
    ],
)
def test_reverse_contract_judges_the_concealed_tiles_when_the_table_gives_them(w_concealed, payments):
    hand = parse_hand(SMALL)
    table = tuple(hand.melds if s == S else melds(BIG_SUIT if s == W else "") for s in range(4))
    concealed = tuple(parse_hand(w_concealed).concealed if s == W else () for s in range(4))
    sit = Situation(winner=S, discarder=N, melds_by_seat=table, concealed_by_seat=concealed)
    assert VARIANT.score(hand, sit).payments == payments
