"""Hefei's learned danger model (``engine/strong/hefei.py`` ``DangerReader``, weights in
``engine/strong/calibration_hefei.py``): every feature is read from the discarder's view as the table played it, and
the strong AI, when it plays with the model (``engine.strong.hefei.LEARNED``, measured and off: docs/strong-ai-rounds.md),
prices a discard by it and still reads nothing its seat cannot see."""

from __future__ import annotations

import math
import random

import pytest

from engine.ai import choose
from engine.ai_common import SeatReader
from engine.rivers import discard_order
from engine.strong import evaluate
from engine.strong.calibration_hefei import DANGER_BIAS, DANGER_WEIGHTS
from engine.strong.evaluator import Know, passed_since
from engine.strong.hefei import DangerReader, wait_ways
from engine.table import Action, Table
from engine.tiles import parse_hand

from .test_strong import hidden_checked  # every tile the seat cannot see dealt again


@pytest.fixture
def learned(monkeypatch):
    monkeypatch.setattr("engine.strong.evaluator.HEFEI_LEARNED", True)


def k(s: str) -> int:
    return parse_hand(s).concealed[0]


def r(*ts: str) -> list[dict]:
    return [{"tile": k(x), "status": ""} for x in ts]


def _view(hand: str, rivers, melds=None, wall=30):
    t = Table.new("hefei", 1, dealer=0)
    v = t.view(0)
    v["hand"] = list(parse_hand(hand).concealed)
    v["melds"] = melds or [[], [], [], []]
    v["rivers"] = rivers
    seen = [0] * 34
    for ms in v["melds"]:
        for m in ms:
            for x in m["tiles"]:
                seen[x] += 1
    for riv in rivers:
        for x in riv:
            seen[x["tile"]] += 1
    v["seen"] = seen
    v["alarms"] = [[], [], [], []]
    v["wall_count"] = wall
    v["last_discard"] = None
    v["legal"] = [Action("discard", 0, x).to_json() for x in sorted(set(v["hand"]))]
    return v


def _play_and_check(deals: int, check) -> int:
    """Play ``deals`` Hefei hands of four normal AIs; at every discard call ``check(table, seat, truth)`` where truth
    holds, from the table's own record of the play, each seat's discards since its claimed meld (None: none) and the
    tiles the others discarded between its last two discards."""
    checked = 0
    for deal in range(deals):
        t = Table.new("hefei", f"danger:{deal}")
        rng = random.Random(deal)
        order: list[tuple[int, int, str]] = []
        meld_at: dict[int, int] = {}
        while t.hand.phase in ("play", "claim", "rob"):
            s = t.awaited()[0]
            la = t.legal_actions(s)
            a = la[0] if len(la) == 1 else choose(t, s, la, "normal", rng)
            if any(x.type == "discard" for x in la):
                since, prev = [], []
                for o in range(4):
                    own = [i for i, x in enumerate(order) if x[0] == o]
                    since.append(None if o not in meld_at else len(own) - meld_at[o])
                    prev.append(frozenset(q for p, q, st in order[own[-2] + 1 : own[-1]] if p != o and st != "dead")
                                if len(own) >= 2 else frozenset())
                check(t, s, (since, prev))
                checked += 1
            claim = t.hand.phase == "claim" and a.type in ("pung", "kong")
            t.apply(a)
            if claim:
                meld_at[s] = sum(1 for x in order if x[0] == s)
            if a.type == "discard":
                order.append((s, a.tile, t.hand.rivers[s][-1][1]))
    return checked


def test_the_danger_reader_reads_the_play_back_from_the_view():
    # the turns since a seat's claimed meld and the tiles it let go by in the round before its last discard, read
    # from the discarder's view alone (rivers and melds), are what the table really played
    def check(t, s, truth):
        v = t.view(s)
        rd = DangerReader(v, SeatReader(v, s).remaining)
        assert discard_order(v) is not None
        assert rd.since_meld == truth[0]
        assert rd.prev_passed == truth[1]

    assert _play_and_check(12, check) > 300


def test_the_learned_danger_is_the_logistic_model_of_the_features(learned):
    # at every discard of real play, the strong AI's chance that a tile deals in to another seat is the learned
    # model over the features the reader lists (0 for a tile that seat let go by since its own last discard)
    def check(t, s, truth):
        v = t.view(s)
        kn = Know(v, s)
        rd = DangerReader(v, kn.unseen)
        passed = passed_since(v)
        for o in range(4):
            if o == s:
                continue
            for x in sorted(set(v["hand"])):
                got = kn.deal_in_chance(o, x)
                if passed is not None and x in passed[o]:
                    assert got == 0.0
                    continue
                z = DANGER_BIAS + sum(DANGER_WEIGHTS[g].get(val, 0.0) for g, val in rd.features(o, x))
                assert math.isclose(got, min(0.35, 1 / (1 + math.exp(-z))))

    assert _play_and_check(3, check) > 50


def test_the_danger_reader_reads_a_seats_river():
    # seat 1 discarded 9s 1s 2m 5p 8p 3p: its last three discards are middle tiles of 筒 (a river turned from
    # edges to the middle), 2p is next to two of them, 8p is in its river, 2m is in it but not among the last three;
    # 5s has 2s and 8s beside it three apart (筋), neither in its river; every 4s and 6s in sight
    rivers = [r("9m"), r("9s", "1s", "2m", "5p", "8p", "3p"), r("4s", "6s", "4s"), r("6s", "4s", "6s")]
    v = _view("123456789m46s5s5p", rivers, wall=25)
    rd = DangerReader(v, SeatReader(v, 0).remaining)
    f = dict(rd.features(1, k("2p")))
    assert f["base"] == "02" and f["mid3"] == "2L" and f["wall"] == "3" and f["since_meld"] == "-"
    assert f["inriv"] == "N" and f["rec_suit"] == "2" and f["near"] == "1" and f["lastnear"] == "Y"
    assert f["dshare"] == "1L" and f["rank"] == "1" and f["suji"] == "11"  # 2p: 5p three above is in its river
    assert dict(rd.features(1, k("8p")))["inriv"] == "R"
    assert dict(rd.features(1, k("2m")))["inriv"] == "O"
    five_s = dict(rd.features(1, k("5s")))
    assert five_s["suji"] == "20" and five_s["rec_suit"] == "0"
    assert wait_ways(rd.unseen, k("5s")) == 3 + 3  # a pair of the three unseen 5s and a lone copy
    assert five_s["ways"] == f"{2}L" and five_s["unseen"] == "3"


def test_hefei_strong_prices_a_tile_let_go_by_in_the_round_before_as_safer(learned):
    # the order of play: 5s (seat 0), 9s (seat 1), 5p (seat 2), 7m, 2m, 9p (seat 1), 3m, 4m, and seat 0 discards.
    # Seat 1 let 5p go by between its two discards (it may have changed its wait since, but mostly had not: the
    # learned weight); 5s came out before its first discard. The two are alike otherwise (one copy in sight each,
    # one in seat 0's hand, the same river of seat 1 in both suits), so 5p is priced safer against seat 1
    rivers = [r("5s", "2m"), r("9s", "9p"), r("5p", "3m"), r("7m", "4m")]
    v = _view("123456789m5p5s1p9p1s", rivers, wall=40)
    rd = DangerReader(v, SeatReader(v, 0).remaining)
    assert rd.prev_passed[1] == frozenset({k("5p"), k("7m"), k("2m")})
    f_p, f_s = dict(rd.features(1, k("5p"))), dict(rd.features(1, k("5s")))
    assert f_p.pop("prev") == "Y" and f_s.pop("prev") == "N" and f_p == f_s
    kn = Know(v, 0)
    assert 0 < kn.deal_in_chance(1, k("5p")) < kn.deal_in_chance(1, k("5s")) * 0.7
    ev = evaluate(v, 0)
    five_p, five_s = ev.of(Action("discard", 0, k("5p"))), ev.of(Action("discard", 0, k("5s")))
    assert five_p is not None and five_s is not None


def test_the_strong_ai_with_the_learned_danger_ignores_hidden_information(learned):
    # every hidden tile dealt again: the same decisions and the same prices of every option
    assert hidden_checked("hefei", 3, 5) > 20
