"""Scripted games from fixed walls: one flow rule per test (the rulings of docs/rules/: G*, W*, H*, C*).

Chair 0 is the first dealer in every script (so chairs and winds coincide in the first hand).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

from engine.errors import EngineError
from engine.selfplay import play_match
from engine.table import Action, IllegalAction, Table, arrange, verify_commitment
from engine.tiles import parse_hand, tile_name
from engine.variants import get_variant


def T(s: str) -> list[int]:
    return list(parse_hand(s).concealed)


def K(name: str) -> int:
    return T(name)[0]


def build(variant, hands, draws="", tail="", settings=None, seed=1, dealer=0):
    """A table whose first hand deals ``hands`` (chair 0 = dealer, 14 tiles), then draws ``draws`` in order, then
    the rest of the tiles sorted; ``tail`` are the replacement tiles (first replacement first)."""
    V = get_variant(variant)
    rules = V.rules(settings)
    pool = Counter({k: n for k, n in enumerate(V.tile_counts(rules)) if n})
    hs = [T(h) for h in hands]
    assert [len(h) for h in hs] == [14, 13, 13, 13], [len(h) for h in hs]
    dr = [K(x) for x in draws.split()]
    tl = [K(x) for x in tail.split()]
    for k in [x for h in hs for x in h] + dr + tl:
        pool[k] -= 1
        assert pool[k] >= 0, f"too many {tile_name(k)}"
    rest = sorted(pool.elements())
    wall = arrange(hs, dr, rest + list(reversed(tl)))
    return Table.new(variant, seed, settings, wall=wall, dealer=dealer)


def do(t, typ, seat, tile=None):
    return t.apply(Action(typ, seat, None if tile is None else K(tile)))


def pass_all(t):
    ev = []
    while t.phase in ("claim", "rob"):
        ev += t.apply(Action("pass", t.awaited()[0]))
    return ev


def discard_drawn(t, seat):
    return t.apply(Action("discard", seat, t.drawn[seat])) + pass_all(t)


def types(t, seat):
    return {(a.type, None if a.tile is None else tile_name(a.tile)) for a in t.legal_actions(seat)}


# Base deal. Chair 2 may pung 1m; chair 3 waits on 3p / 6p with 9 条 (八支, and 通天: one 嘴子, no 交).
BASE = ["13579m13579p1357s", "2468m2468p2468s9s", "11m2468p2468s246m", "123456789s99p45p"]


def test_deal_dealer_has_14_and_wall_count():
    t = build("wuhu", BASE)
    v = t.view(0)
    assert len(v["hand"]) == 14 and v["hand_sizes"] == [14, 13, 13, 13]
    assert v["wall_count"] == 112 - 53
    assert v["drawn"] == K("7s")  # the dealer's 14th tile counts as drawn
    assert t.turn == 0 and t.phase == "play" and t.tiles_accounted()


def test_discard_then_next_seat_draws_privately():
    t = build("wuhu", BASE, draws="5p 9p")
    ev = do(t, "discard", 0, "9m")
    assert t.turn == 1 and t.drawn[1] == K("5p")
    assert [e.type for e in ev] == ["discard", "draw"]
    assert ev[1].to == 1 and ev[1].data["tile"] == "5p" and "tile" not in ev[1].for_seat(2).data


def test_pung_claim_moves_the_turn():
    t = build("wuhu", BASE)
    do(t, "discard", 0, "1m")
    assert t.phase == "claim" and t.awaited() == [2]
    assert ("pung", "1m") in types(t, 2)
    do(t, "pung", 2, "1m")
    assert t.turn == 2 and t.phase == "play"
    m = t.melds[2][0]
    assert (str(m.kind), tile_name(m.tile), m.fed_by) == ("pung", "1m", 0)
    assert t.view(None)["rivers"][0][-1]["status"] == "claimed"
    assert {a.type for a in t.legal_actions(2)} == {"discard"}  # after a claim: discard only
    assert t.tiles_accounted()


def test_claimed_kong_draws_replacement_from_wall_end():
    hands = list(BASE)
    hands[2] = "111m2468p2468s24m"
    t = build("wuhu", hands, tail="9p")
    do(t, "discard", 0, "1m")
    assert ("kong", "1m") in types(t, 2)
    do(t, "kong", 2, "1m")
    assert t.turn == 2 and t.drawn[2] == K("9p")
    assert t.kong_draw and t.live == 112 - 53 - 1
    assert (str(t.melds[2][0].kind), t.melds[2][0].fed_by) == ("kong", 0)


KONG = ["1111m234m678m55p99s", "2468p2468s2468p9p", "3579p3578s3578s5m", "2468s2468m9m3579m"]


def test_concealed_kong_replacement():
    t = build("wuhu", KONG, tail="9p")
    assert ("kong", "1m") in types(t, 0)
    do(t, "kong", 0, "1m")
    assert str(t.melds[0][0].kind) == "concealed_kong"
    assert t.drawn[0] == K("9p") and t.kong_draw and t.live == 112 - 53 - 1
    do(t, "discard", 0, "9p")
    assert not t.kong_draw


def test_win_on_kong_replacement_is_kong_draw():
    t = build("wuhu", KONG, tail="9s")
    do(t, "kong", 0, "1m")
    assert ("win", None) in types(t, 0)
    ev = do(t, "win", 0)
    win = next(e for e in ev if e.type == "win")
    assert win.data["kong_draw"] and win.data["self_drawn"]
    codes = {i["code"] for i in win.data["items"]}
    assert codes & {"gang_kai", "gang_kai_ya_dang"}


def _to_fourth_1m(variant, hands):
    """Chair 2 pungs the dealer's 1m; three rounds later it draws the 4th 1m."""
    t = build(variant, hands, draws="7p 7p 7p 1m")
    do(t, "discard", 0, "1m")
    pass_all_but = [s for s in t.awaited() if s != 2]
    for s in pass_all_but:
        do(t, "pass", s)
    do(t, "pung", 2, "1m")
    do(t, "discard", 2, "2p")
    pass_all(t)
    for s in (3, 0, 1):
        assert t.turn == s
        discard_drawn(t, s)
    assert t.turn == 2 and t.drawn[2] == K("1m")
    return t


def test_added_kong():
    hands = list(BASE)
    t = _to_fourth_1m("wuhu", hands)
    assert ("kong", "1m") in types(t, 2)
    ev = do(t, "kong", 2, "1m")
    assert [e.data.get("kind") for e in ev if e.type == "kong"] == ["added"]
    m = t.melds[2][0]
    assert (str(m.kind), m.added, m.fed_by) == ("kong", True, 0)
    assert t.kong_draw and t.drawn[2] == t.wall[-1]


ROB = list(BASE[:3]) + ["23m456m789m999p55p"]  # chair 3 waits on 1m / 4m


def test_rob_kong_hefei():
    t = _to_fourth_1m("hefei", ROB)
    do(t, "kong", 2, "1m")
    assert t.phase == "rob" and t.awaited() == [3]
    ev = do(t, "win", 3)
    win = next(e for e in ev if e.type == "win")
    assert win.data["rob_kong"] and win.data["from"] == 2
    pay = next(e for e in ev if e.type == "hand_end").data["payments"]
    assert pay[2] < 0 and pay[0] == 0 and pay[1] == 0 and pay[3] == -pay[2]  # the robbed seat pays all (H6)


def test_no_rob_kong_in_wuhu():
    t = _to_fourth_1m("wuhu", ROB)
    ev = do(t, "kong", 2, "1m")
    assert t.phase == "play" and t.turn == 2 and "rob_window" not in [e.type for e in ev]


def test_win_beats_pung():
    hands = list(BASE)
    hands[2] = "33p2468s2468m199s"
    t = build("wuhu", hands)
    do(t, "discard", 0, "3p")
    assert ("pung", "3p") in types(t, 2) and ("win", None) in types(t, 3)
    do(t, "pung", 2, "3p")
    ev = do(t, "win", 3)
    assert [e.seat for e in ev if e.type == "win"] == [3]
    assert not t.melds[2] and t.phase == "ended"


def test_wuhu_one_winner_nearest_after_discarder():
    hands = list(BASE)
    hands[1] = "123456789m77p45p"  # also waits on 3p / 6p
    t = build("wuhu", hands)
    do(t, "discard", 0, "3p")
    assert set(t.awaited()) == {1, 3}
    do(t, "win", 3)
    ev = do(t, "win", 1)
    assert [e.seat for e in ev if e.type == "win"] == [1]


def test_hefei_several_winners_each_paid_by_discarder():
    hands = list(BASE)
    hands[1] = "123456789m77p45p"
    t = build("hefei", hands)
    do(t, "discard", 0, "3p")
    do(t, "win", 1)
    ev = do(t, "win", 3)
    wins = [e for e in ev if e.type == "win"]
    assert [e.seat for e in wins] == [1, 3]
    pay = next(e for e in ev if e.type == "hand_end").data["payments"]
    assert pay[0] == -(wins[0].data["payments"][1] + wins[1].data["payments"][3]) < 0
    assert pay[2] == 0 and sum(pay) == 0


def test_hefei_dealer_passes_after_non_dealer_win_and_keeps_after_own():
    hands = list(BASE)
    hands[1] = "123456789m77p45p"
    t = build("hefei", hands)
    do(t, "discard", 0, "3p")
    do(t, "win", 1)
    pass_all(t)
    assert t.phase == "ended" and t.dealer == 1 and t.streak == 1
    t2 = build("hefei", ["123456789m11p345p", *BASE[1:]])  # the dealer is dealt a complete hand
    do(t2, "win", 0)
    assert t2.dealer == 0 and t2.streak == 2
    do(t2, "next_hand", 3)
    assert t2.view(None)["dealer_streak"] == 2 and t2.phase == "play"


def test_hefei_one_claimed_meld_per_hand():
    hands = ["13579m13579p1357s", "2468m2468p2468s9s", "11m33p2468s2468m9s", "123456789s99p16p"]
    t = build("hefei", hands, draws="7m 7m 7m")
    do(t, "discard", 0, "1m")
    do(t, "pung", 2, "1m")
    do(t, "discard", 2, "9s")
    pass_all(t)
    discard_drawn(t, 3)
    assert t.turn == 0
    do(t, "discard", 0, "3p")
    assert t.phase == "play" and t.turn == 1  # chair 2 holds 33p but has used its one claim
    t2 = build("wuhu", hands, draws="7m 7m 7m")  # Wuhu has no such limit
    do(t2, "discard", 0, "1m")
    do(t2, "pung", 2, "1m")
    do(t2, "discard", 2, "9s")
    pass_all(t2)
    discard_drawn(t2, 3)
    do(t2, "discard", 0, "3p")
    assert ("pung", "3p") in types(t2, 2)


CHI = ["19m19p19s1234567z5m", "23m1p5p9p1s5s9s1z2z3z4z5z", "23m1p6p9p1s5s9s6z7z1z2z3z", "23m1p6p9p1s5s9s4z5z6z7z1z"]


def test_chizhou_chi_only_from_previous_seat():
    t = build("chizhou", CHI)
    do(t, "discard", 0, "1m")
    assert ("chi", "1m") in types(t, 1)
    assert not any(a.type == "chi" for a in t.legal_actions(2) + t.legal_actions(3))
    do(t, "chi", 1, "1m")
    m = t.melds[1][0]
    assert (str(m.kind), tile_name(m.tile), tile_name(m.claimed), m.fed_by) == ("chi", "1m", "1m", 0)
    assert t.turn == 1 and {a.type for a in t.legal_actions(1)} == {"discard"}


def test_chizhou_chi_limit_under_two_hua():
    hands = list(CHI)
    hands[1] = "23m55p1s5s9s1z2z3z4z5z6z"
    t = build("chizhou", hands, draws="5p")
    do(t, "discard", 0, "1m")
    do(t, "chi", 1, "1m")
    do(t, "discard", 1, "6z")
    pass_all(t)
    assert t.turn == 2 and t.drawn[2] == K("5p")
    do(t, "discard", 2, "5p")
    # chair 1 holds 55p but chowed 万 with < 2 花: no peng of a 筒 tile (C6)
    assert t.phase == "play" and t.turn == 3
    t2 = build("chizhou", hands, draws="9m 5p")
    do(t2, "discard", 0, "1m")
    do(t2, "pass", 1)
    discard_drawn(t2, 1)
    do(t2, "discard", 2, "5p")
    assert ("pung", "5p") in types(t2, 1)  # without the chi the peng is allowed


def test_louhu_passed_win_locks_until_own_draw():
    hands = list(BASE)
    hands[0] = "13579m133579p157s"
    t = build("wuhu", hands, draws="8m 8m 9m")
    do(t, "discard", 0, "3p")
    assert ("win", None) in types(t, 3)
    do(t, "pass", 3)
    assert t.furiten[3] and t.turn == 1
    discard_drawn(t, 1)
    assert t.furiten[3]
    discard_drawn(t, 2)
    assert t.turn == 3 and not t.furiten[3]


def test_louhu_blocks_a_second_discard_win():
    hands = list(BASE)
    hands[0] = "13579m133579p157s"
    t = build("wuhu", hands, draws="3p")
    do(t, "discard", 0, "3p")
    do(t, "pass", 3)
    do(t, "discard", 1, "3p")  # the same winning tile before chair 3 drew again
    assert t.phase == "play" and t.turn == 2


def test_chizhou_passed_peng_lock():
    hands = list(CHI)
    hands[2] = "55m1p6p9p1s5s9s6z7z1z2z3z"
    t = build("chizhou", hands, draws="5m")
    do(t, "discard", 0, "5m")
    assert ("pung", "5m") in types(t, 2)
    do(t, "pass", 2)
    assert K("5m") in t.pung_lock[2]
    do(t, "discard", 1, "5m")  # another 5m before chair 2 drew: no peng offered
    assert t.phase == "play" and t.turn == 2 and not t.pung_lock[2]  # chair 2 has drawn: lock lifted


def _to_last_four(t):
    while t.last_four < 0 and t.phase == "play":
        s = t.turn
        t.apply(Action("discard", s, t.drawn[s] if t.drawn[s] is not None else max(
            k for k in range(34) if t.counts[s][k])))
        pass_all(t)


@pytest.mark.parametrize("variant", ["wuhu", "hefei"])
def test_last_four_draw_only_then_drawn_hand(variant):
    hands = ["13579m13579p1357s", "2468m2468p2468s9s", "11m2468p2468s246m", "123456789s99p16p"]
    t = build(variant, hands)
    _to_last_four(t)
    assert t.view(None)["last_four"] and t.live == 3
    for _ in range(4):
        s = t.turn
        assert {a.type for a in t.legal_actions(s)} <= {"win", "pass"}
        t.apply(Action("pass", s))
    assert t.phase == "ended" and t.last_result["draw"] and t.tiles_accounted()
    assert t.dealer == 0 and t.streak == 2  # a drawn hand: the dealer keeps the deal


def test_chizhou_has_no_last_four_phase():
    t = build("chizhou", CHI)
    _to_last_four(t)
    assert t.phase == "ended" and t.live == 0 and t.last_four < 0


def test_heavenly_hand():
    t = build("wuhu", ["123456789m11p345p", *BASE[1:]])
    ev = do(t, "win", 0)
    win = next(e for e in ev if e.type == "win")
    assert "tian_hu" in {i["code"] for i in win.data["items"]}


def test_earthly_hand():
    t = build("wuhu", BASE)
    do(t, "discard", 0, "3p")
    ev = do(t, "win", 3)
    win = next(e for e in ev if e.type == "win")
    assert "di_hu" in {i["code"] for i in win.data["items"]}


def _second_turn_3p():
    t = build("wuhu", BASE, draws="9m 9m 9m 5s")
    for s in (0, 1, 2, 3):
        discard_drawn(t, s)
    do(t, "discard", 0, "3p")
    return t


def test_earthly_needs_the_dealers_first_discard():
    t = _second_turn_3p()
    ev = do(t, "win", 3)
    win = next(e for e in ev if e.type == "win")
    assert "di_hu" not in {i["code"] for i in win.data["items"]}


def test_wuhu_three_pung_alarm_is_public():
    hands = ["2468p13579m1357s9s", "22p44p66p13579m99p", "11m2468s2468s246m", "123456789s99m45m"]
    t = build("wuhu", hands, draws="7p 7p 1p 7p 1p 1p")
    do(t, "discard", 0, "2p")
    do(t, "pung", 1, "2p")
    do(t, "discard", 1, "1m")
    pass_all(t)
    discard_drawn(t, 2)
    discard_drawn(t, 3)
    do(t, "discard", 0, "4p")
    do(t, "pung", 1, "4p")
    do(t, "discard", 1, "3m")
    pass_all(t)
    discard_drawn(t, 2)
    discard_drawn(t, 3)
    do(t, "discard", 0, "6p")
    ev = do(t, "pung", 1, "6p")
    alarms = [e for e in ev if e.type == "alarm"]
    assert [(e.seat, e.data["code"]) for e in alarms] == [(1, "alarm_three_pure")]  # new with the third pung
    assert alarms[0].to is None and "alarm_three_pure" in t.view(None)["alarms"][1]


def test_wuhu_stack_pays_at_most_what_it_holds_and_the_di_ends():
    t = _second_turn_3p()
    t.stacks = [2, 30, 30, 30]  # the dealer has 2 子 left in this 底
    ev = do(t, "win", 3)
    win = next(e for e in ev if e.type == "win")
    owed = win.data["payments"]
    settled = win.data["settled"]
    assert -owed[0] > 2 and settled[0] == -2
    assert settled[3] == 2 - owed[1] - owed[2] and sum(settled) == 0
    assert [e.type for e in ev][-2:] == ["di_end", "match_end"] and t.phase == "over"


def test_illegal_and_out_of_turn_change_nothing():
    t = build("wuhu", BASE)
    h = t.state_hash()
    with pytest.raises(IllegalAction) as e:
        do(t, "discard", 1, "2m")
    assert "turn" in e.value.message("en") and "轮" in e.value.message("zh")
    with pytest.raises(IllegalAction):
        do(t, "discard", 0, "2m")  # not in hand
    with pytest.raises(IllegalAction):
        do(t, "win", 0)
    with pytest.raises(IllegalAction):
        do(t, "next_hand", 0)
    with pytest.raises(EngineError):
        t.apply({"type": "fly", "seat": 0})
    with pytest.raises(EngineError):
        t.apply({"type": "discard", "seat": 7, "tile": "1m"})
    assert t.state_hash() == h and t.seq == 0


def test_timeout_discards_the_drawn_tile_and_passes_claims():
    t = build("wuhu", BASE)
    ev = t.apply(Action("timeout", 0))
    assert ev[0].type == "timeout" and ev[1].data["tile"] == "7s"
    t2 = build("wuhu", BASE)
    do(t2, "discard", 0, "1m")
    t2.apply(Action("timeout", 2))
    assert t2.phase == "play" and t2.turn == 1 and not t2.melds[2]


def test_commitment_published_at_start_verifiable_at_end():
    t = Table.new("chizhou", 7)
    commit = next(e for e in t.start_events if e.type == "hand_start").data["commitment"]
    assert t.view(2)["commitment"] == commit
    ends = []
    play_match(t, ["normal"] * 4, random.Random(1), 1, lambda tb, ev: ends.extend(ev))
    end = next(e for e in ends if e.type == "hand_end")
    assert end.data["commitment"] == commit and verify_commitment(commit, end.data["reveal"])
    bad = dict(end.data["reveal"])
    bad["wall"] = bad["wall"][1:] + bad["wall"][:1]
    assert not verify_commitment(commit, bad)
    assert not verify_commitment(commit, {"salt": "x", "wall": end.data["reveal"]["wall"]})


def test_dice_shown_chizhou_rolls_twice():
    assert len(Table.new("chizhou", 3).view(None)["dice"]) == 2
    assert len(Table.new("wuhu", 3).view(None)["dice"]) == 1
    assert len(Table.new("hefei", 3).view(None)["dice"]) == 1


def test_hefei_match_is_quan_of_four_dealers():
    t = Table.new("hefei", 5, {"quan_per_match": 1})
    n = play_match(t, ["normal"] * 4, random.Random(2))
    assert t.phase == "over" and t.passes == 4 and n >= 4
    assert sum(t.totals()) == 0
    with pytest.raises(IllegalAction):
        t.apply(Action("next_hand", 0))


def test_hefei_hailao_win_adds_ten():
    hands = ["13579m13579p1357s", "2468m2468p2468s1s", "2468m2468p2468s3s", "123456789m99p78s"]
    t = build("hefei", hands)  # the four 9s are the last four tiles
    _to_last_four(t)
    assert t.last_four >= 0
    for _ in range(4):
        s = t.turn
        if ("win", None) in types(t, s):
            ev = do(t, "win", s)
            break
        t.apply(Action("pass", s))
    win = next(e for e in ev if e.type == "win")
    assert win.seat == 3 and win.data["self_drawn"]
    assert {i["code"]: i["value"] for i in win.data["items"]}.get("hailao") == 10


def test_scorer_gets_winds_and_every_seats_melds():
    # chair 1 deals; chair 3 (wind W) pungs the dealer's 1m: the scorer sees fed_by = E (wind 0)
    t = build("wuhu", BASE, dealer=1)
    assert t.wind(1) == 0 and t.wind(3) == 2
    do(t, "discard", 1, "1m")
    do(t, "pung", 3, "1m")
    assert t.melds[3][0].fed_by == 1  # chairs in the table and its views
    _hand, sit = t._hand_situation(3, K("2p"), 0)
    assert sit.winner == 2 and sit.discarder == 3
    assert sit.melds_by_seat[2][0].fed_by == 0 and len(sit.melds_by_seat) == 4


FANBAO = ["1z1z1z2z2z2z123p456p1m4m", "23m56m89m1p5p9p4s5s6s7s", "3z3z4z4z6z6z7z1s1s2s2s8s8s",
          "5z5z7z7z3s3s4s6s7s9p9p3p3p"]


@pytest.mark.parametrize("contracts", [True, False])
def test_chizhou_fanbao_settled(contracts):
    """Chair 1 chows three 万 melds from chair 0 with no 花; chair 0 then self-draws: chair 1 pays 3 x f (C9)."""
    t = build("chizhou", FANBAO, draws="9m 2p 7m 9m 2p 9s 9m 2p 9s", settings={"contracts": contracts})
    for fed, drop in (("1m", "1p"), ("4m", "5p"), ("7m", "9p")):
        do(t, "discard", 0, fed)
        do(t, "chi", 1, fed)
        do(t, "discard", 1, drop)
        pass_all(t)
        discard_drawn(t, 2)
        discard_drawn(t, 3)
    assert [m.fed_by for m in t.melds[1]] == [0, 0, 0]
    ev = do(t, "win", 0)
    pay = next(e for e in ev if e.type == "hand_end").data["payments"]
    assert pay == ([5, -3, -1, -1] if contracts else [3, -1, -1, -1])


def test_chizhou_pung_beats_chi():
    hands = list(CHI)
    hands[2] = "11m1p6p9p1s5s9s6z7z1z2z3z"
    t = build("chizhou", hands)
    do(t, "discard", 0, "1m")
    assert ("chi", "1m") in types(t, 1) and ("pung", "1m") in types(t, 2)
    do(t, "chi", 1, "1m")  # declared first, but a peng outranks a chi (C3)
    ev = do(t, "pung", 2, "1m")
    assert [e.type for e in ev if e.type in ("chi", "pung")] == ["pung"]
    assert t.turn == 2 and not t.melds[1] and str(t.melds[2][0].kind) == "pung"
