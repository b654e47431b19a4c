"""The learned chance to win of a hand not ready (``engine/strong/learned.py``, weights in
``engine/strong/calibration_value.py``, fitted by ``benchmarks/learn_win_chance.py``): its features read the hand and
the view right, it is the logistic model of them, and the strong AI playing with it (``VALUE_LEARNED``) still reads
nothing its seat cannot see."""

from __future__ import annotations

import math
import random

import pytest

from engine.ai import choose
from engine.analysis import shanten
from engine.strong.calibration_value import VALUE_WEIGHTS
from engine.strong.evaluator import Know
from engine.strong.learned import VALUE_LEARNED, Reader, hand_features, logit, seat_features, suit_shape
from engine.table import Table
from engine.tiles import parse_hand

from .test_strong import hidden_checked  # every tile the seat cannot see dealt again


@pytest.fixture
def learned(monkeypatch):
    monkeypatch.setitem(VALUE_LEARNED, "hefei", True)
    monkeypatch.setitem(VALUE_LEARNED, "wuhu", True)


def counts(s: str) -> list[int]:
    return list(parse_hand(s).closed_counts)


def suit(s: str) -> tuple[int, ...]:
    return tuple(counts(s)[0:9])


def test_a_suit_is_read_as_its_best_partial_sets():
    # (sets, two-sided, edge or middle, pairs, isolated 3-7, isolated 1 2 8 9)
    assert suit_shape(suit("23m")) == (0, 1, 0, 0, 0, 0)
    assert suit_shape(suit("12m")) == (0, 0, 1, 0, 0, 0)  # an edge wait: only 3m
    assert suit_shape(suit("89m")) == (0, 0, 1, 0, 0, 0)
    assert suit_shape(suit("46m")) == (0, 0, 1, 0, 0, 0)  # a middle wait
    assert suit_shape(suit("55m")) == (0, 0, 0, 1, 0, 0)
    assert suit_shape(suit("5m")) == (0, 0, 0, 0, 1, 0)
    assert suit_shape(suit("2m")) == (0, 0, 0, 0, 0, 1)
    assert suit_shape(suit("123789m")) == (2, 0, 0, 0, 0, 0)
    # 23 + 45 and 234 + a lone 5 score alike (a set counts two): the two-sided waits decide
    assert suit_shape(suit("2345m")) == (0, 2, 0, 0, 0, 0)
    # 1 2 4 5 8: 12 and 45 and a lone 8, not 24 and 5
    assert suit_shape(suit("12458m")) == (0, 1, 1, 0, 0, 1)
    assert suit_shape((0,) * 9) == (0, 0, 0, 0, 0, 0)


def test_the_hand_features_read_the_hand():
    # 13 tiles of Hefei (八支, seven pairs): 345m + 23m (a set and a two-sided wait), 57p (a middle wait), 11s (a
    # pair), 9s alone at the edge, 55z a pair, 6z alone
    c = counts("23345m57p119s55z6z")
    sh = shanten(c, 0, seven_pairs=True)
    f = dict(hand_features(c, 0, [0, 0, 0], True, sh, 3, 7, 20, 36, True, True))
    assert suit_shape(tuple(c[0:9])) == (1, 1, 0, 0, 0, 0)
    assert suit_shape(tuple(c[9:18])) == (0, 0, 1, 0, 0, 0)  # 57p
    assert suit_shape(tuple(c[18:27])) == (0, 0, 0, 1, 0, 1)  # 11s and a lone 9s
    assert f["ryan"] == "1" and f["kan"] == "1" and f["pairs"] == "2"  # 11s and the 55z pair
    assert f["iso_m"] == "0" and f["iso_e"] == "1" and f["hon1"] == "1"  # 9s; 6z alone
    assert f["blocks"] == "0"  # 345m, 23m, 57p, 11s, 55z: five blocks
    assert f["dt"] == "32" and f["gap"] == str(min(3 - sh, 3)) and f["uk"] == f"{min(sh, 3)}1"
    assert f["slack"] == "-2"  # the main suit (万) holds 5 of the 7 a 13-tile hand needs
    assert f["melds"] == "0c" and f["p7"] == "3"  # 33m 11s 55z
    # with a shown meld: no seven pairs, the melds' tiles count for 八支
    f = dict(hand_features(counts("23345m57p119s6z"), 1, [3, 0, 0], False, 2, 2, 0, 40, 36, True, True))
    assert f["melds"] == "1o" and "p7" not in f and f["slack"] == "1" and f["dt"] == "20" and f["uk"] == "23"
    # no 八支 (a variant without it): no slack
    assert "slack" not in dict(hand_features(c, 0, [0, 0, 0], True, sh, 3, 7, 20, 36, False, False))


def test_the_seat_features_read_the_view():
    t = Table.new("hefei", 1, dealer=2)
    v = t.view(2)
    v["melds"] = [[{"kind": "pung", "tile": 0}], [{"kind": "pung", "tile": 9}, {"kind": "chi", "tile": 18}], [], []]
    v["alarms"] = [[], [], [], []]
    assert dict(seat_features(v, 2)) == {"dealer": "Y", "om_max": "2", "om_sum": "3", "alarm": "N"}
    assert dict(seat_features(v, 1))["dealer"] == "N" and dict(seat_features(v, 1))["om_max"] == "1"


def _play(variant: str, deals: int, check) -> int:
    checked = 0
    for deal in range(deals):
        t = Table.new(variant, f"learned:{deal}")
        rng = random.Random(deal)
        while t.hand.phase in ("play", "claim", "rob"):
            s = t.awaited()[0]
            la = t.legal_actions(s)
            a = la[0] if len(la) == 1 else choose(t, s, la, "normal", rng)
            if any(x.type == "discard" for x in la):
                checked += check(t, s)
            t.apply(a)
    return checked


@pytest.mark.parametrize("variant", ["hefei", "wuhu"])
def test_the_learned_chance_is_the_logistic_model_of_the_features(variant, learned):
    # at every discard of real play, every hand a discard leaves short of ready is priced by the strong AI at the
    # logistic model of its features (bias, the table's logit, the seat's and the hand's one-hot weights)
    w = VALUE_WEIGHTS[variant]

    def check(t, s):
        v = t.view(s)
        kn = Know(v, s)
        me = kn.me
        n = 0
        for x in sorted(set(v["hand"])):
            c = list(me.counts)
            c[x] -= 1
            sp = me.seven_pairs and me.n_melds == 0
            sh = shanten(c, me.n_melds, seven_pairs=sp)
            key = me.key_sh(c, sh, me.meld_suits, me.meld_hua, me.upg)
            if key[0] == 0 and sh == 0:
                continue
            d, u, typ, p0 = kn.far_chance(c, me.n_melds, sh, key, kn.turns)
            feats = seat_features(v, s) + hand_features(c, me.n_melds, me.meld_suits, not me.n_melds, sh, d,
                                                          kn.turns, u, typ, me.ai.bazhi, sp)
            z = w["bias"][""] + w["logp"][""] * logit(p0) + sum(w.get(g, {}).get(val, 0.0) for g, val in feats)
            rd = Reader(v, s, me.ai.bazhi, sp or me.seven_pairs)
            got = rd.chance(c, me.n_melds, me.meld_suits, not me.n_melds, sh, d, kn.turns, u, typ, p0)
            assert math.isclose(got, 1 / (1 + math.exp(-z)))
            hv = kn.hand_value(c, me.n_melds, me.meld_suits, me.meld_hua, me.upg, tuple(kn.own_melds))
            if hv.plan == "":
                assert math.isclose(hv.win, got)
            n += 1
        return n

    assert _play(variant, 2, check) > 50


def test_the_learned_chance_is_off_by_default():
    assert VALUE_LEARNED == {"hefei": False, "wuhu": False}


@pytest.mark.parametrize("variant", ["hefei", "wuhu"])
def test_the_strong_ai_with_the_learned_chance_ignores_hidden_information(variant, learned):
    # every hidden tile dealt again: the same decisions and the same prices of every option
    assert hidden_checked(variant, 2, 7) > 10


def test_at_the_tables_level_the_learned_chance_is_scaled_per_distance_and_draws(monkeypatch):
    # RANK: the learned chance times the fit's level of its distance and own draws left (the table's mean chance
    # over the learned one's there), so only which hand of a distance is likelier changes
    t = Table.new("hefei", 3, dealer=0)
    v = t.view(0)
    c = counts("23345m157p1199s6s")
    args = (c, 0, [0, 0, 0], True, 3, 3, 7, 20, 36, 0.1)
    plain = Reader(v, 0, True, True).chance(*args)
    monkeypatch.setattr("engine.strong.learned.RANK", True)
    level = VALUE_WEIGHTS["hefei"]["level"]["32"]
    assert level != 1.0
    assert math.isclose(Reader(v, 0, True, True).chance(*args), plain * level)
