"""Self-play figures, run by hand: ``python benchmarks/bench_selfplay.py [--hands N] [--compare N] [--json]``.

- speed: complete hands per second of CPU time on one core, normal AI at all four seats, per variant (goal >= 100);
- size: a table's state in memory (pickle size and tracemalloc of a deep copy) in the middle of a hand (goal <= 50 KB);
- strength: 2 normal vs 2 easy seats over N hands per variant, the seating rotated; wins and points per hand.
"""

from __future__ import annotations

import argparse
import copy
import json
import pickle
import random
import sys
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import timed_simulate  # noqa: E402  (the engine has no clock: the timing is the caller's)
from engine.selfplay import play_match, simulate  # noqa: E402
from engine.table import Table  # noqa: E402

VARIANTS = ("wuhu", "hefei", "chizhou")
SEATINGS = (("normal", "easy", "normal", "easy"), ("easy", "normal", "easy", "normal"),
            ("normal", "normal", "easy", "easy"), ("easy", "easy", "normal", "normal"))


def speed(variant: str, hands: int, repeat: int = 3) -> dict:
    """Best of ``repeat`` runs of the same games (the machine may be shared: the best run is the least disturbed)."""
    runs = [timed_simulate(simulate, variant, hands, seed=11) for _ in range(repeat)]
    r = max(runs, key=lambda x: x["hands_per_s"])
    out = {k: r[k] for k in ("hands", "wins", "self_draws", "draws", "zero_sum", "tiles_conserved", "hands_per_s",
                             "wall_hands_per_s")}
    out["hands_per_s_runs"] = [x["hands_per_s"] for x in runs]
    return out


def size(variant: str) -> dict:
    t = Table.new(variant, "size")
    play_match(t, ["normal"] * 4, random.Random(1), 6)  # a few hands in: a match in progress
    t.apply(t.legal_actions(0)[0])  # next hand
    for _ in range(60):  # the middle of a hand
        if t.phase not in ("play", "claim", "rob"):
            break
        s = t.awaited()[0]
        t.apply(t.legal_actions(s)[-1])
    pickled = len(pickle.dumps(t))
    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    clone = copy.deepcopy(t)
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    mem = sum(s.size_diff for s in after.compare_to(before, "filename"))
    del clone
    return {"pickle_bytes": pickled, "tracemalloc_bytes": mem}


def compare(variant: str, hands: int) -> dict:
    out = {"normal": {"wins": 0, "points": 0, "seats": 0}, "easy": {"wins": 0, "points": 0, "seats": 0}}
    per = hands // len(SEATINGS)
    for i, seating in enumerate(SEATINGS):
        r = simulate(variant, per, seed=100 + i, difficulty=seating)
        for s, d in enumerate(seating):
            out[d]["wins"] += r["won_by_seat"][s]
            out[d]["points"] += r["points_by_seat"][s]
    total = per * len(SEATINGS)
    for d in out:
        out[d]["win_rate_per_seat"] = round(out[d]["wins"] / (2 * total), 3)
        out[d]["points_per_seat_hand"] = round(out[d]["points"] / (2 * total), 2)
        del out[d]["seats"]
    out["hands"] = total
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=300)
    ap.add_argument("--compare", type=int, default=2000)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    res = {}
    for v in VARIANTS:
        res[v] = {"speed": speed(v, args.hands), "size": size(v)}
        if args.compare:
            res[v]["normal_vs_easy"] = compare(v, args.compare)
        if not args.json:
            print(v, json.dumps(res[v], ensure_ascii=False))
    print(json.dumps(res, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
