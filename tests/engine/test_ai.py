"""AI players: legal, greedy for wins, aware of 八支 and 花, blind to what their seat may not see, and normal beats
easy."""

from __future__ import annotations

import copy
import random

from engine.ai import choose
from engine.selfplay import simulate
from engine.table import Action, Table
from engine.tiles import parse_hand, tile_name


def _table(variant, seed=4):
    return Table.new(variant, seed, dealer=0)


def _fake_view(variant, hand, melds=(), seen=None, legal=None):
    """A seat view in the shape Table.view returns, for the parts the AI reads."""
    kinds = list(parse_hand(hand).concealed)
    t = Table.new(variant, 1)
    v = t.view(0)
    v["hand"] = kinds
    v["melds"] = [list(melds), [], [], []]
    v["rivers"] = [[], [], [], []]
    v["seen"] = seen or [0] * 34
    v["last_discard"] = None
    return v, [Action("discard", 0, k) for k in sorted(set(kinds))]


def test_takes_a_win():
    v, acts = _fake_view("wuhu", "123456789m11p345p")
    acts = [Action("win", 0)] + acts
    assert choose(v, 0, acts).type == "win"


def test_wuhu_normal_keeps_to_bazhi_suit():
    # 7 万 and scattered other tiles: the normal AI throws an off-suit tile, never a 万 it needs for 八支
    v, acts = _fake_view("wuhu", "1235789m19p159s7z7z")
    a = choose(v, 0, acts, "normal")
    assert tile_name(a.tile)[-1] != "m"


def test_chizhou_normal_keeps_honour_pairs_for_hua():
    v, acts = _fake_view("chizhou", "11z55z123m456m78p9s1p")
    a = choose(v, 0, acts, "normal")
    assert tile_name(a.tile) not in ("1z", "5z")


def test_ai_decision_ignores_hidden_information():
    t = _table("hefei")
    rng = random.Random(0)
    for _ in range(40):  # into the hand
        s = t.awaited()[0]
        t.apply(choose(t.view(s), s, t.legal_actions(s), "normal", random.Random(1)))
        if t.phase != "play":
            break
    s = t.awaited()[0]
    before = choose(t.view(s), s, t.legal_actions(s), "normal", random.Random(7))
    other = copy.deepcopy(t)
    live = other.wall[other.head : other.tail]
    rng.shuffle(live)
    other.wall[other.head : other.tail] = live
    assert choose(other.view(s), s, other.legal_actions(s), "normal", random.Random(7)) == before
    assert choose(t, s, t.legal_actions(s), "normal", random.Random(7)) == before  # a Table reads the same


def test_normal_clearly_beats_easy():
    res = {"normal": 0, "easy": 0}
    for i, seating in enumerate([("normal", "easy") * 2, ("easy", "normal") * 2]):
        r = simulate("wuhu", 60, seed=20 + i, difficulty=seating)
        for s, d in enumerate(seating):
            res[d] += r["won_by_seat"][s]
    assert res["normal"] > 2 * res["easy"]
