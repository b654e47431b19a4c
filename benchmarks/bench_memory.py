"""Replays as served by the bot, run by hand: ``python benchmarks/bench_memory.py [--json] [--variant hefei]``.

Records a match of two members and two AIs through the store's recorder (as the bot does), boots the bot on it
(tests/harness: real discord.py dispatch, fake Discord), then: ``/replay`` (the first step), ▶ ten times, ⏭, and
the animated GIF, in both themes. Reports the render time of one step image as the cog measures it (median ms), the
whole interaction wall time (median ms), and the GIF's render time (ms) and size (bytes).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.store import Store  # noqa: E402
from engine.replay import encode_code  # noqa: E402
from tests.cogs.test_memory import NAMES, A, record_match  # noqa: E402
from tests.harness import GUILD_ID, Harness  # noqa: E402


async def bench(variant: str) -> dict[str, object]:
    out: dict[str, object] = {"variant": variant}
    with tempfile.TemporaryDirectory() as d:
        db = Path(d) / "bot.db"
        store = await Store.open(db)
        rec = await record_match(store, GUILD_ID, variant, "bench", 1)
        await store.close()
        h = await Harness.boot(db)
        for p, n in NAMES.items():
            h.fake.add_user(p, n)
        try:
            code = encode_code(rec.match_id, 0)
            walls = []
            for theme_label in (None, "☀ light"):
                t0 = time.perf_counter()
                r = await h.slash("replay", user=A, code=code)
                walls.append((time.perf_counter() - t0) * 1000)
                msg = r.reply
                if theme_label:
                    await h.click(msg, label=theme_label, user=A)
                for _ in range(10):
                    if any(b.get("label") == "▶" and not b.get("disabled") for b in msg.buttons()):
                        t0 = time.perf_counter()
                        await h.click(msg, label="▶", user=A)
                        walls.append((time.perf_counter() - t0) * 1000)
                await h.click(msg, label="⏭", user=A)
                t0 = time.perf_counter()
                await h.click(msg, label="Animation", user=A)
                gif_wall = (time.perf_counter() - t0) * 1000
                _code, ms, size = h.seen.animations()[-1]
                key = "light" if theme_label else "dark"
                out[f"gif_{key}_render_ms"] = ms
                out[f"gif_{key}_wall_ms"] = round(gif_wall)
                out[f"gif_{key}_bytes"] = size
            steps = [d["ms"] for d in h.seen.of("replay_step")]
            out["match_actions"] = rec.table.seq
            out["step_render_ms_median"] = statistics.median(steps)
            out["step_interaction_ms_median"] = round(statistics.median(walls))
        finally:
            await h.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--variant", default="hefei")
    args = ap.parse_args()
    res = asyncio.run(bench(args.variant))
    print(json.dumps(res) if args.json else "\n".join(f"{k}: {v}" for k, v in res.items()))


if __name__ == "__main__":
    main()
