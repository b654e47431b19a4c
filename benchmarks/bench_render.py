"""Rendering speed and size: median time to render and encode the PNG of a hand and of a table.

    python benchmarks/bench_render.py [--json] [--repeat N]

With ``--json`` the last line of stdout is one JSON object with ``hand_ms``, ``table_ms`` (medians, sprites already
cached as in a running bot), ``hand_bytes``, ``table_bytes``, plus the score card and match chart figures and the
one-off cost of building the sprites (``warmup_ms``). Goals: hand <= 5 ms and <= 60 KB, table <= 25 ms.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from render import (  # noqa: E402
    render_hand,
    render_match,
    render_score,
    render_table,
    samples,  # noqa: E402
)


def median_ms(fn, repeat: int) -> tuple[float, bytes]:
    times = []
    out = b""
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=60)
    args = ap.parse_args(argv)
    hand, table, score, match = samples.hand_scene(), samples.table_scene(), samples.score_scene(), samples.match_scene()
    t = time.perf_counter()
    for theme in ("dark", "light"):
        render_hand(hand, theme), render_table(table, theme), render_score(score, theme), render_match(match, theme)
    warm = (time.perf_counter() - t) * 1000
    res = {}
    for name, fn in (
        ("hand", lambda: render_hand(hand)),
        ("table", lambda: render_table(table)),
        ("score", lambda: render_score(score)),
        ("match", lambda: render_match(match)),
    ):
        ms, data = median_ms(fn, args.repeat)
        res[f"{name}_ms"] = round(ms, 3)
        res[f"{name}_bytes"] = len(data)
    res["warmup_ms"] = round(warm, 1)
    if not args.json:
        for k in ("hand", "table", "score", "match"):
            print(f"{k:6s} {res[k + '_ms']:8.2f} ms  {res[k + '_bytes'] / 1024:7.1f} KB")
        print(f"warm-up (sprites, palettes, fonts, both themes): {warm:.0f} ms")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
