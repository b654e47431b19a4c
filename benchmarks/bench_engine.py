"""Engine speed against the `mahjong` package, on the same hands in the same run.

    python benchmarks/bench_engine.py [--json] [--hands N] [--seed S]

Three measures, each the median per-hand time of this project divided by `mahjong`'s:
- win_check_ratio: engine.analysis.is_complete vs Agari.is_agari, on random 14-tile hands (mostly not complete)
  and on complete ones, half and half;
- score_ratio: a variant's full scoring (every decomposition, every item, settlement) vs
  HandCalculator.estimate_hand_value, on complete hands valid in both (one suit holding 8+ tiles so that 八支
  holds; riichi declared so that mahjong always has a yaku and scores the whole hand). The worst variant counts;
- shanten_ratio: engine.analysis.shanten vs Shanten.calculate_shanten, on random 13-tile hands.
Medians are of repeated timings of the whole batch, divided by the batch size. Goals (issue 2): win check <= 0.5,
scoring <= 1.0, shanten <= 0.5. The last line of stdout is one JSON object with --json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from mahjong.agari import Agari  # noqa: E402
from mahjong.hand_calculating.hand import HandCalculator  # noqa: E402
from mahjong.hand_calculating.hand_config import HandConfig  # noqa: E402
from mahjong.shanten import Shanten  # noqa: E402

from engine.analysis import is_complete, shanten  # noqa: E402
from engine.tiles import Hand, from_counts  # noqa: E402
from engine.variants import Situation, get_variant  # noqa: E402


def random_hand(rng: random.Random, size: int) -> list[int]:
    wall = [k for k in range(34) for _ in range(4)]
    counts = [0] * 34
    for t in rng.sample(wall, size):
        counts[t] += 1
    return counts


def complete_hand(rng: random.Random, *, suited: bool, main_suit_min: int = 0) -> list[int]:
    """A random complete 14-tile closed hand: a pair and four sets; optionally suited only with one suit >= N."""
    while True:
        counts = [0] * 34
        top = 27 if suited else 34
        main = rng.randrange(3)
        blocks = [("pair", rng.randrange(top))] + [
            ("seq" if rng.random() < 0.6 else "tri", rng.randrange(top)) for _ in range(4)
        ]
        if main_suit_min:
            # bias sets into one suit so that 八支 holds
            blocks = [(kind, main * 9 + k % 9) if i < 4 else (kind, k) for i, (kind, k) in enumerate(blocks)]
        ok = True
        for kind, k in blocks:
            if kind == "seq":
                if k >= 27 or k % 9 > 6:
                    ok = False
                    break
                tiles = (k, k + 1, k + 2)
            else:
                tiles = (k,) * (2 if kind == "pair" else 3)
            for t in tiles:
                counts[t] += 1
        if not ok or max(counts) > 4:
            continue
        if main_suit_min and max(sum(counts[s * 9 : s * 9 + 9]) for s in range(3)) < main_suit_min:
            continue
        return counts


def timed(fn, items, repeat: int) -> float:
    """Median seconds per item over ``repeat`` passes of the batch."""
    runs = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for x in items:
            fn(x)
        runs.append((time.perf_counter() - t0) / len(items))
    return statistics.median(runs)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--hands", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    n = args.hands

    agari, shan, calc = Agari(), Shanten(), HandCalculator()
    win_hands = [random_hand(rng, 14) if i % 2 else complete_hand(rng, suited=False) for i in range(n)]
    ours_win = timed(is_complete, win_hands, args.repeat)
    theirs_win = timed(agari.is_agari, win_hands, args.repeat)

    shanten_hands = [random_hand(rng, 13) for _ in range(n)]
    ours_sh = timed(shanten, shanten_hands, args.repeat)
    theirs_sh = timed(shan.calculate_shanten, shanten_hands, args.repeat)

    # scoring: complete hands valid in Wuhu and Hefei (suited, one suit >= 8 tiles), won on a discard
    score_hands = [complete_hand(rng, suited=True, main_suit_min=8) for _ in range(max(200, n // 4))]
    prepared = []
    for counts in score_hands:
        tiles = from_counts(counts)
        win = rng.choice(tiles)
        concealed = list(tiles)
        concealed.remove(win)
        prepared.append((counts, Hand(tuple(concealed), (), win), win))
    config = HandConfig(is_riichi=True)

    def theirs_score(p):
        counts, _, win = p
        tiles_136 = []
        seen = [0] * 34
        for k in from_counts(counts):
            tiles_136.append(k * 4 + seen[k])
            seen[k] += 1
        calc.estimate_hand_value(tiles_136, win * 4, config=config)

    theirs_score_t = timed(theirs_score, prepared, max(3, args.repeat // 2))
    per_variant = {}
    situation = Situation(winner=1, discarder=2)
    for key in ("wuhu", "hefei"):
        variant = get_variant(key)
        rules = variant.rules()

        def ours_score(p, variant=variant, rules=rules):
            variant.score(p[1], situation, rules)

        per_variant[key] = timed(ours_score, prepared, max(3, args.repeat // 2))
    worst = max(per_variant.values())

    out = {
        "hands": n,
        "win_check_ratio": round(ours_win / theirs_win, 3),
        "score_ratio": round(worst / theirs_score_t, 3),
        "shanten_ratio": round(ours_sh / theirs_sh, 3),
        "win_check_us": round(ours_win * 1e6, 2),
        "win_check_mahjong_us": round(theirs_win * 1e6, 2),
        "score_us": round(worst * 1e6, 2),
        "score_us_by_variant": {k: round(v * 1e6, 2) for k, v in per_variant.items()},
        "score_mahjong_us": round(theirs_score_t * 1e6, 2),
        "shanten_us": round(ours_sh * 1e6, 2),
        "shanten_mahjong_us": round(theirs_sh * 1e6, 2),
    }
    if not args.json:
        for k, v in out.items():
            print(f"{k}: {v}")
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
