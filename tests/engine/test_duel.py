"""Duplicate 1v3 duels (``mjbot duel``): reproducible from the seed, the same walls in every rotation, 子 per hand
as the table settles it."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.ai import DIFFICULTIES
from engine.duel import duel, play_deal, summarise
from engine.errors import EngineError
from engine.selfplay import play_match
from engine.table import Table

KEYS = {"mean_per_hand", "ci95_low", "ci95_high", "deals", "draw_rate", "decision_ms_mean", "decision_ms_p99",
        "win_rate", "deal_in_rate", "hands"}


@pytest.mark.parametrize("variant", ["wuhu", "hefei", "chizhou"])
def test_same_seed_same_duel(variant):
    a = duel(variant, "normal", "easy", 3, seed=5)
    b = duel(variant, "normal", "easy", 3, seed=5)
    assert a == b and set(a) >= KEYS
    assert a["deals"] == 3 and a["hands"] == 12
    assert a["ci95_low"] <= a["mean_per_hand"] <= a["ci95_high"]
    assert duel(variant, "normal", "easy", 3, seed=6) != a  # another seed, other walls


def test_every_rotation_plays_the_same_wall_and_dealer(monkeypatch):
    seen = []
    orig = Table.new

    def spy(variant, seed, *args, **kw):
        t = orig(variant, seed, *args, **kw)
        seen.append((seed, t.match.dealer, list(t.hand.wall)))
        return t

    monkeypatch.setattr(Table, "new", staticmethod(spy))  # the real Table.new, watched
    r = play_deal("wuhu", "normal", "easy", 4, seed=1)
    assert len(seen) == 4 and len(r.zi) == 4
    assert all(s == seen[0] for s in seen)


def test_zi_per_hand_is_what_the_tested_chair_total_moved_by():
    # test == base: one play, every chair tested; the same game as play_match with the same rng; the 子 of each
    # chair is its total after that one hand (Wuhu: stack change + 交 tally)
    for variant, deal in itertools.product(("wuhu", "hefei", "chizhou"), range(4)):
        r = play_deal(variant, "normal", "normal", deal, seed=2)
        t = Table.new(variant, f"duel:2:{deal}")
        play_match(t, ["normal"] * 4, random.Random(f"duel|{variant}|2|{deal}|0"), 1)
        assert r.zi == t.totals() and sum(r.zi) == 0
        assert r.jiao == t.match.last_result["jiao"]
        assert r.drawn == [t.match.last_result["draw"]] * 4


def test_split_deals_summarise_to_the_same_figures():
    whole = duel("hefei", "normal", "easy", 4, seed=3)
    parts = [play_deal("hefei", "normal", "easy", d, seed=3) for d in (3, 1, 0, 2)]
    assert summarise("hefei", "normal", "easy", 3, parts) == whole
    assert duel("hefei", "normal", "easy", 2, seed=3, first=2) == summarise(
        "hefei", "normal", "easy", 3, parts[0:1] + parts[3:4])


def test_decisions_are_timed_only_with_a_clock_and_only_for_the_tested_chair():
    ticks = itertools.count()
    timed = duel("chizhou", "easy", "normal", 2, seed=1, clock=lambda: next(ticks) / 1000)
    plain = duel("chizhou", "easy", "normal", 2, seed=1)
    assert plain["decision_ms_mean"] is None and plain["decision_ms_p99"] is None
    # a fake clock that moves 1 ms a reading: every timed decision took 1 ms; the games are the same
    assert timed["decision_ms_mean"] == pytest.approx(1.0) and timed["decision_ms_p99"] == pytest.approx(1.0)
    assert 0 < timed["decisions"] < next(ticks)
    assert {k: v for k, v in timed.items() if not k.startswith("decision")} == {
        k: v for k, v in plain.items() if not k.startswith("decision")}


def test_every_difficulty_can_duel_and_bad_ones_are_refused():
    for d in DIFFICULTIES:
        assert duel("wuhu", d, "normal", 1)["hands"] in (1, 4)
    with pytest.raises(EngineError):
        duel("wuhu", "expert", "normal", 1)
    with pytest.raises(EngineError):
        duel("wuhu", "normal", "easy", 0)
