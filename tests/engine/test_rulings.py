"""The rulings of 2026-11-30 (docs/rules/: W3, W7, W12, C3) and Hefei's 海捞 (H7), played on scripted walls."""

from __future__ import annotations

from collections import Counter

import pytest

from engine.table import Action, Table, arrange
from engine.tiles import parse_hand, tile_name
from engine.variants import get_variant
from engine.variants.base import Situation
from engine.variants.wuhu import VARIANT as WUHU

from .test_table_flow import BASE, K, build, discard_drawn, do, pass_all, types


def _last_discard_table(variant: str, hands: list[str], last: str, early: str = "") -> Table:
    """A table whose wall gives ``last`` as the draw that leaves 4 tiles (chair 3 draws it when every discard goes
    unclaimed); tiles of the kinds in ``early`` are drawn first, so that nobody is still under 漏胡 for them then."""
    V = get_variant(variant)
    pool = Counter({k: n for k, n in enumerate(V.tile_counts(V.rules())) if n})
    hs = [list(parse_hand(h).concealed) for h in hands]
    for k in [x for h in hs for x in h] + [K(last)]:
        pool[k] -= 1
        assert pool[k] >= 0, tile_name(k)
    first = {K(x) for x in early.split()}
    rest = sorted(pool.elements(), key=lambda k: (k not in first, k))
    n_before = sum(pool.values()) - 4  # draws before the one that leaves four tiles
    wall = arrange(hs, rest[:n_before] + [K(last)], rest[n_before:])
    t = Table.new(variant, 1, wall=wall, dealer=0)
    do(t, "discard", 0, "1m")  # the dealer's extra tile; from then on every seat discards what it draws
    pass_all(t)
    while not (t.phase == "play" and t.live == 4):
        discard_drawn(t, t.turn)
    assert t.turn == 3 and t.drawn[3] == K(last) and t.last_four < 0
    return t


# chair 0 (dealer) waits on 3p / 6p after discarding its 1m (the 1m is passed: 漏胡 does not matter, the dealer
# draws again before the last discard); chair 2 holds a pair of 1m
READY0 = ["123456789s99p45p1m", "2468m2468p2468s1s", "11m2468p2468s246m", "3579m13579p1357s"]


@pytest.mark.parametrize("variant", ["wuhu", "hefei"])
def test_w3_h7_no_pung_on_the_discard_that_leaves_four(variant):
    t = _last_discard_table(variant, READY0, "1m")
    ev = do(t, "discard", 3, "1m")
    assert t.phase == "play" and not any(e.type == "claim_window" for e in ev)
    assert t.last_four == 1 and t.turn == 0  # straight into the four draw-only turns
    assert {a.type for a in t.legal_actions(0)} <= {"win", "pass"}  # nobody discards at 4 left


def test_w3_wuhu_no_win_on_the_discard_that_leaves_four():
    t = _last_discard_table("wuhu", READY0, "3p", early="3p 6p")
    assert t._can_win(0, K("3p"), 3)  # the shape would win on it
    ev = do(t, "discard", 3, "3p")
    assert not any(e.type == "claim_window" for e in ev) and t.phase == "play" and t.last_four == 1
    for _ in range(4):  # then the four draw-only turns and a drawn hand (the last tiles give nobody a win)
        s = t.turn
        assert "discard" not in {a.type for a in t.legal_actions(s)}
        t.apply(Action("pass", s))
    assert t.phase == "ended" and t.last_result["draw"] and t.tiles_accounted()


def test_h7_hefei_win_but_no_claim_on_the_discard_that_leaves_four():
    # Hefei's H7 forbids claims and discards once 4 tiles remain but says nothing against winning on that discard:
    # the win is offered (a plain win, not a 海捞 one), the pung is not
    hands = list(READY0)
    hands[1] = "2468m2468p246s33p"  # chair 1 could pung 3p, if claims were allowed
    t = _last_discard_table("hefei", hands, "3p", early="3p 6p")
    do(t, "discard", 3, "3p")
    assert t.phase == "claim" and types(t, 0) == {("win", None), ("pass", None)}
    assert types(t, 1) == set()  # no pung
    ev = do(t, "win", 0)
    win = next(e for e in ev if e.type == "win")
    assert win.data["from"] == 3 and "hailao" not in {i["code"] for i in win.data["items"]}


def test_w7_earthly_after_the_dealers_concealed_kong():
    hands = ["9999m357m13579p17s", *BASE[1:]]
    t = build("wuhu", hands, tail="9s")
    do(t, "kong", 0, "9m")
    assert t.melds[0] and t.drawn[0] == K("9s")
    do(t, "discard", 0, "3p")
    ev = do(t, "win", 3)
    win = next(e for e in ev if e.type == "win")
    assert "di_hu" in {i["code"] for i in win.data["items"]}


def test_w7_third_si_he_beside_double_si_he_is_one_zuizi():
    # 222p 333p 444p 234p + 99s: three 四核 (each kind a triplet and one copy in the run). 双四核 is a direct 交
    # and the third 四核 one 嘴子: an extra 10 in 315
    hand = parse_hand("222233334444p9s+9s")
    r = WUHU.score(hand, Situation(winner=1, discarder=2), {"mode": 315})
    codes = [i.code for i in r.items]
    assert "shuang_si_he" in codes and codes.count("si_he") == 1
    assert {i.code: i.value for i in r.items}["si_he"] == 10


def test_w12_double_eight_alarm_on_concealed_kongs_at_the_table():
    hands = ["1111m9999m13579p1s", "2468m2468p2468s9s", "22m2468p2468s246m", "123456789s99p45p"]
    t = build("wuhu", hands, tail="3s 5s")
    ev = do(t, "kong", 0, "1m")
    assert not any(e.type == "alarm" for e in ev)
    ev = do(t, "kong", 0, "9m")
    alarms = [e for e in ev if e.type == "alarm"]
    assert [(e.seat, e.data["code"], e.to) for e in alarms] == [(0, "alarm_double_eight", None)]
    assert t.view(None)["alarms"][0] == ["alarm_double_eight"]


def test_w12_double_eight_bao_with_concealed_kongs():
    # (1111m)(9999m) and a claimed 筒 pung: the discarder W pays for all, as with exposed kongs
    r = WUHU.score(parse_hand("2355p(1111m)(9999m)[999p:E]+4p"), Situation(winner=1, discarder=2), {"mode": 315})
    assert "alarm_double_eight" in {n.code for n in r.notes} and "bao" in {n.code for n in r.notes}
    assert r.payments == (0, 90, -90, 0)


def _dadiaoche_table() -> Table:
    hands = ["123p468p123s468s4z6z", "1111z2222z3333z9s", "1234m1579p15s6z77z", "567p56s999m55z66z8p"]
    t = build("chizhou", hands, draws="5m 5m 7m", tail="5m 7m 7m")
    do(t, "discard", 0, "4z")
    pass_all(t)
    for k in ("1z", "2z", "3z"):  # three concealed honour kongs: 9 花
        do(t, "kong", 1, k)
    do(t, "discard", 1, "9s")
    pass_all(t)
    assert sorted(tile_name(k) for k in t.view(1)["hand"]) == ["5m", "5m", "7m", "7m"]
    do(t, "discard", 2, "5m")
    assert ("win", None) in types(t, 1) and ("pung", "5m") in types(t, 1)
    do(t, "pung", 1, "5m")  # passes the win for the pung: 漏胡 until chair 1 draws again
    pass_all(t)
    assert t.furiten[1]
    do(t, "discard", 1, "7m")  # 大吊车 on 7m, the kind chair 1 has just discarded
    pass_all(t)
    return t


def test_c3_dadiaoche_exception_to_louhu():
    t = _dadiaoche_table()
    assert t.turn == 2 and t.drawn[2] == K("7m") and t.furiten[1]
    do(t, "discard", 2, "7m")
    assert ("win", None) in types(t, 1)
    ev = do(t, "win", 1)
    win = next(e for e in ev if e.type == "win")
    assert win.seat == 1 and win.data["from"] == 2
    assert "dadiaoche" in {i["code"] for i in win.data["items"]}


def test_c3_no_exception_for_another_kind():
    # the same 漏胡 seat is refused a win on a kind it did not last discard (here: nothing else completes it, so
    # check the rule itself: the exception needs the wait to be the kind last discarded)
    t = _dadiaoche_table()
    assert t._furiten_exempt(1, K("7m"))
    t.rivers[1][-1][0] = K("9s")  # as if chair 1 had last discarded 9s
    assert not t._furiten_exempt(1, K("7m"))
