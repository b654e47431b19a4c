"""AI figures, run by hand (niced on a shared machine): ``python benchmarks/bench_ai.py [options] [--json]``.

Per variant:

- ``duel``: ``--test`` against three ``--base`` seats, duplicate (``engine.duel``: every deal played four times,
  the tested difficulty in each chair): 子 per hand with its 95% interval, win / deal-in / draw rates, decision time
  (mean, p99, wall clock);
- ``draws``: per difficulty, four of it at the table over ``--draw-deals`` deals: drawn hands, win rate, 交 share of
  the wins, decision time;
- ``speed``: self-play hands per second of CPU time, four normal AIs (``mjbot sim``'s figure), best of 3;
- ``longest``: per difficulty, ``--matches`` whole default matches of four of it: hands per match (max, mean);
  a match still running after ``--max-hands`` hands is cut there and counted in ``capped``.

The defaults run in a few minutes; the issue's figures use ``--deals 2000 --draw-deals 300 --matches 200``.
``--json`` prints one object on the last line.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.cli import timed_duel, timed_simulate  # noqa: E402  (the engine has no clock: the timing is the caller's)
from engine.ai import DIFFICULTIES  # noqa: E402
from engine.selfplay import play_match, simulate  # noqa: E402
from engine.table import Table  # noqa: E402

VARIANTS = ("wuhu", "hefei", "chizhou")
DUEL_KEYS = ("deals", "hands", "mean_per_hand", "ci95_low", "ci95_high", "win_rate", "deal_in_rate", "draw_rate",
             "jiao_win_share", "decision_ms_mean", "decision_ms_p99", "seconds")


def longest(variant: str, difficulty: str, matches: int, max_hands: int, seed: int = 0) -> dict:
    """Whole default matches of four ``difficulty`` AIs: hands per match."""
    lengths = []
    capped = 0
    for m in range(matches):
        t = Table.new(variant, f"long:{seed}:{m}")
        n = play_match(t, [difficulty] * 4, random.Random(f"long|{variant}|{seed}|{m}"), max_hands)
        if t.hand.phase != "over":
            capped += 1
        lengths.append(n)
    return {"matches": matches, "hands_max": max(lengths), "hands_mean": round(sum(lengths) / len(lengths), 1),
            "capped": capped}


def speed(variant: str, hands: int, repeat: int = 3) -> dict:
    runs = [timed_simulate(simulate, variant, hands, seed=11) for _ in range(repeat)]
    best = max(runs, key=lambda x: x["hands_per_s"])
    return {"hands": hands, "draws": best["draws"], "hands_per_s": best["hands_per_s"],
            "hands_per_s_runs": [x["hands_per_s"] for x in runs]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", action="append", choices=VARIANTS, help="repeatable; default all")
    ap.add_argument("--test", choices=DIFFICULTIES, default="normal")
    ap.add_argument("--base", choices=DIFFICULTIES, default="easy")
    ap.add_argument("--deals", type=int, default=100, help="duel deals (default 100)")
    ap.add_argument("--draw-deals", type=int, default=100, help="deals of four alike per difficulty (default 100)")
    ap.add_argument("--difficulty", action="append", choices=DIFFICULTIES,
                    help="difficulties for draws and longest matches, repeatable; default easy and normal")
    ap.add_argument("--matches", type=int, default=30, help="whole matches per difficulty (default 30; 0: skip)")
    ap.add_argument("--max-hands", type=int, default=1000, help="cut a match after this many hands (default 1000)")
    ap.add_argument("--sim-hands", type=int, default=300, help="self-play hands for the speed (default 300; 0: skip)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=1, help="processes for the duels (default 1)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    diffs = args.difficulty or ["easy", "normal"]
    res: dict = {}
    t0 = time.perf_counter()
    for v in args.variant or VARIANTS:
        r: dict = {}
        if args.deals:
            d = timed_duel(v, args.test, args.base, args.deals, args.seed, args.jobs)
            r["duel"] = {"test": args.test, "base": args.base, **{k: d[k] for k in DUEL_KEYS}}
        if args.draw_deals:
            r["draws"] = {}
            for diff in diffs:
                d = timed_duel(v, diff, diff, args.draw_deals, args.seed, args.jobs)
                r["draws"][diff] = {k: d[k] for k in ("deals", "draw_rate", "win_rate", "jiao_win_share",
                                                      "decision_ms_mean", "decision_ms_p99")}
        if args.sim_hands:
            r["speed"] = speed(v, args.sim_hands)
        if args.matches:
            r["longest"] = {diff: longest(v, diff, args.matches, args.max_hands, args.seed) for diff in diffs}
        res[v] = r
        if not args.json:
            print(v, json.dumps(r, ensure_ascii=False), flush=True)
    res["seconds"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(res, ensure_ascii=False))
    return 0


if __name__ == "__main__":
    sys.exit(main())
