"""Invariants over seeded self-play games of each variant: tile conservation, zero-sum settlements, no illegal or
out-of-turn action accepted, replay reproduces the state, a seat's view never holds others' tiles or the wall."""

from __future__ import annotations

import copy
import json
import pickle
import random

import pytest

from engine.ai import choose
from engine.table import ACTION_TYPES, Action, Event, IllegalAction, Table

HANDS = {"wuhu": 600, "hefei": 600, "chizhou": 450}


def _random_illegal(t: Table, rng: random.Random) -> Action | None:
    seat = rng.randrange(4)
    a = Action(rng.choice(ACTION_TYPES), seat, rng.choice([None, rng.randrange(34)]))
    if a in t.legal_actions(seat) or (a.type == "timeout" and seat in t.awaited()):
        return None
    return a


def _check_view_private(t: Table, seat: int) -> None:
    v = t.view(seat)
    json.dumps(v)  # plain data
    assert v["hand"] == [k for k in range(34) for _ in range(t.counts[seat][k])]
    assert "wall" not in v and sum(v["hand_sizes"]) == sum(sum(c) for c in t.counts)
    # the view does not change when the other seats' concealed tiles or the unseen wall change
    other = copy.deepcopy(t)
    others = [s for s in range(4) if s != seat]
    a, b = others[0], others[1]
    if sum(other.counts[a]) == sum(other.counts[b]):
        other.counts[a], other.counts[b] = other.counts[b], other.counts[a]
        other.drawn[a], other.drawn[b] = other.drawn[b], other.drawn[a]
    live = other.wall[other.head : other.tail]
    random.Random(0).shuffle(live)
    other.wall[other.head : other.tail] = live
    w = other.view(seat)
    for key in ("legal", "claim"):  # others' options are not in this view; own options depend on own tiles only
        v.pop(key), w.pop(key)
    assert w == v
    pub = t.view(None)
    assert pub["hand"] == [] and pub["drawn"] is None and pub["legal"] == [] and pub["claim"] is None


@pytest.mark.parametrize("variant", sorted(HANDS))
def test_invariants_over_seeded_games(variant):
    rng = random.Random(variant)
    hands = 0
    match = 0
    while hands < HANDS[variant]:
        settings = {}
        if match % 2:
            settings = {"wuhu": {"mode": 525}, "hefei": {"short_deck": True}, "chizhou": {"contracts": False}}[variant]
        t = Table.new(variant, f"inv{match}", settings)
        diffs = [rng.choice(["easy", "normal", "random"]) for _ in range(4)]
        log: list[dict] = []
        steps = 0
        while t.phase != "over" and hands < HANDS[variant]:
            steps += 1
            if steps % 7 == 0:
                bad = _random_illegal(t, rng)
                if bad is not None:
                    h = t.state_hash()
                    with pytest.raises(IllegalAction) as e:
                        t.apply(bad)
                    assert e.value.message("en") and e.value.message("zh")
                    assert t.state_hash() == h
            if steps % 41 == 0:
                _check_view_private(t, rng.randrange(4))
            seat = rng.choice(t.awaited())
            la = t.legal_actions(seat)
            if t.phase == "ended":
                a = la[0]
            elif rng.random() < 0.02:
                a = Action("timeout", seat)
            elif diffs[seat] == "random":
                a = rng.choice(la)
            else:
                a = choose(t.view(seat), seat, la, diffs[seat], rng)
            ev = t.apply(a)
            log.append(a.to_json())
            assert t.tiles_accounted()
            for e in ev:
                assert Event.from_json(json.loads(json.dumps(e.to_json()))) == e
                if e.type == "win":
                    assert sum(e.data["payments"]) == 0 and sum(e.data["settled"]) == 0
                if e.type == "hand_end":
                    hands += 1
                    assert sum(e.data["payments"]) == 0
            assert sum(t.totals()) == 0
        assert len(pickle.dumps(t)) < 50_000  # a table's state stays small (issue: <= 50 KB)
        again = Table.replay(variant, f"inv{match}", settings, log)
        assert again.state_hash() == t.state_hash() and again.seq == t.seq == len(log)
        match += 1


def test_replay_from_json_and_same_seed_same_game():
    from engine.selfplay import play_match

    t = Table.new("chizhou", "r1")
    rec: list[Action] = []
    play_match(t, ["normal"] * 4, random.Random(3), 3, record=rec)
    text = json.dumps([a.to_json() for a in rec])
    again = Table.replay("chizhou", "r1", None, json.loads(text))
    assert again.state_hash() == t.state_hash()
    assert Table.new("wuhu", 9).state_hash() == Table.new("wuhu", 9).state_hash()
    assert Table.new("wuhu", 9).state_hash() != Table.new("wuhu", 10).state_hash()
