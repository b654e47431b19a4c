"""Self-play summaries (``mjbot sim``) and terminal play (``mjbot local``)."""

from __future__ import annotations

import pytest

from bot.cli import timed_simulate
from bot.local import run_local
from engine.selfplay import simulate

KEYS = {"hands", "wins", "self_draws", "draws", "zero_sum", "tiles_conserved", "hands_per_s"}


@pytest.mark.parametrize("variant", ["wuhu", "hefei", "chizhou"])
def test_simulate_reports_and_is_reproducible(variant):
    # the engine has no clock: mjbot sim adds the timing (timed_simulate) around the engine's self-play
    a = timed_simulate(simulate, variant, 12, seed=3)
    b = timed_simulate(simulate, variant, 12, seed=3)
    assert set(a) >= KEYS
    assert a["hands"] == 12 and a["zero_sum"] and a["tiles_conserved"]
    assert a["wins"] + a["draws"] >= 12 - a["multi_win_hands"] and a["self_draws"] <= a["wins"]
    timing = {"hands_per_s", "wall_hands_per_s", "seconds", "cpu_seconds"}
    assert {k: v for k, v in a.items() if k not in timing} == {k: v for k, v in b.items() if k not in timing}
    c = simulate(variant, 12, seed=4)
    assert c["points_by_seat"] != a["points_by_seat"] or c["won_by_seat"] != a["won_by_seat"]


def test_simulate_wuhu_525_mode():
    r = simulate("wuhu", 8, seed=1, mode=525)
    assert r["hands"] == 8 and r["zero_sum"]


def _run(inputs, variant="wuhu", seed=5):
    out: list[str] = []
    it = iter(inputs)

    def inp(prompt):
        try:
            return next(it)
        except StopIteration:
            raise EOFError from None

    code = run_local(variant, seed, input_fn=inp, print_fn=lambda *a: out.append(" ".join(map(str, a))), lang="en")
    return code, "\n".join(out)


def test_local_shows_hand_rivers_and_numbered_actions_then_quits():
    code, out = _run(["1", "1", "q"])
    assert code == 0
    assert "Your hand:" in out and "river:" in out and "1) discard" in out and "totals:" in out
    assert out.rstrip().endswith("bye")


def test_local_eof_and_bad_input():
    code, out = _run(["x", "999"])
    assert code == 0 and "or one of the numbers 1, 2, 3" in out


@pytest.mark.parametrize("variant", ["hefei", "chizhou"])
def test_local_plays_a_whole_hand(variant):
    code, out = _run(["1"] * 400 + ["q"], variant=variant, seed=2)
    assert code == 0 and ("settlement" in out or "drawn hand" in out)


def test_simulate_refuses_bad_difficulty():
    from engine.errors import EngineError

    with pytest.raises(EngineError) as e:
        simulate("wuhu", 1, difficulty="hard")
    assert "difficulty" in e.value.message("en")
