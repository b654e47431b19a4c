"""Rendering speed and size: median time to render and encode the PNG of a hand and of a table.

    python benchmarks/bench_render.py [--json] [--repeat N]

With ``--json`` the last line of stdout is one JSON object with ``hand_ms``, ``table_ms`` (medians, sprites already
cached as in a running bot), ``hand_bytes``, ``table_bytes``, plus the score card, match chart, leaderboard and stats
card figures, the one-off cost of building the sprites (``warmup_ms``), the same medians in CPU time of this process
(``*_cpu_ms``: steadier than wall time on a busy machine) and what a phone shows (``hand_tile_px_400``,
``river_tile_px_400``: a hand tile's and a river tile's width when the image is shown 400 px wide;
``hand_number_px_400``: the size of the discard numbers under the hand's tiles). Goals: hand <= 5
ms and <= 60 KB, table <= 25 ms; on a phone a hand tile >= 36 px and a river tile >= 20 px.
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
    render_board,
    render_hand,
    render_match,
    render_score,
    render_stats,
    render_table,
    samples,  # noqa: E402
)
from render.hand import hand_layout, shown_px  # noqa: E402
from render.table import table_layout  # noqa: E402


def median_ms(fn, repeat: int) -> tuple[float, float, bytes]:
    """Median wall time and median CPU time (ms) of ``fn()``, and its last result."""
    times, cpu = [], []
    out = b""
    for _ in range(repeat):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
    return statistics.median(times) * 1000, statistics.median(cpu) * 1000, out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=60)
    args = ap.parse_args(argv)
    hand, table, score, match = samples.hand_scene(), samples.table_scene(), samples.score_scene(), samples.match_scene()
    board, stats = samples.board_scene(), samples.stats_scene()
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
        ("board", lambda: render_board(board)),
        ("stats", lambda: render_stats(stats)),
    ):
        ms, cpu_ms, data = median_ms(fn, args.repeat)
        res[f"{name}_ms"] = round(ms, 3)
        res[f"{name}_cpu_ms"] = round(cpu_ms, 3)
        res[f"{name}_bytes"] = len(data)
    res["warmup_ms"] = round(warm, 1)
    res["hand_tile_px_400"] = round(hand_layout(hand).shown_tile(400), 1)
    res["river_tile_px_400"] = round(table_layout(table).shown_river_tile(400), 1)
    lay = hand_layout(hand)
    res["hand_number_px_400"] = round(shown_px(lay.label_size, lay.width), 1)  # the discard numbers' text
    if not args.json:
        for k in ("hand", "table", "score", "match", "board", "stats"):
            print(f"{k:6s} {res[k + '_ms']:8.2f} ms ({res[k + '_cpu_ms']:.2f} ms CPU)  {res[k + '_bytes'] / 1024:7.1f} KB")
        print(f"warm-up (sprites, palettes, fonts, both themes): {warm:.0f} ms")
        print(f"on a phone (400 px): hand tile {res['hand_tile_px_400']} px, river tile {res['river_tile_px_400']} px, "
              f"discard numbers {res['hand_number_px_400']} px")
    print(json.dumps(res))
    return 0


if __name__ == "__main__":
    sys.exit(main())
