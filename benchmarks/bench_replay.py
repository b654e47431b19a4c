"""Replays: time of one replay step, of the animated file of a whole hand (and its size), and of one seat's review.

    python benchmarks/bench_replay.py [--json] [--repeat N] [--hands N]

Hands: real AI matches of each variant (seat 0 the easy AI, so the review has disagreements); for each variant the
longest of ``--hands`` hands is used. Figures per variant and overall:

Times are wall-clock milliseconds (``*_cpu_ms``: CPU time of this process, steadier on a shared machine).

- ``step_ms``: median time to rebuild the hand to a step (``HandReplay.table`` from the stored actions, as a button
  click does: ``HandReplay.build`` + the table at step k) and render its PNG, viewer's hand and review annotation
  included; ``step_bytes``: that PNG.
- ``animation_ms`` / ``animation_bytes``: the GIF of the whole hand for one viewer with every hand shown (the
  larger case); ``apng_bytes``: the same as APNG, for the record of why GIF was chosen; ``frames``.
- ``review_ms``: ``review_hand`` of one seat over the hand.
- ``match_review_ms`` (``_cpu_ms``): the match review of seat 0 over a whole match of ``--match-hands`` hands (every
  hand replayed in one pass, ``HandReplay.each``, and reviewed, ``review_match``), what the Match review button
  computes; ``match_hands``, ``match_decisions``, ``match_review_per_hand_ms`` (the mean per hand) and
  ``match_card_ms`` (drawing and encoding its card).

With ``--json`` the last line of stdout is one JSON object: the maxima over the variants at the top level
(``step_ms``, ``animation_ms``, ``animation_bytes``, ``review_ms``, ``match_review_ms``) and ``variants`` with each variant's figures.
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

from engine.replay import HandReplay  # noqa: E402
from engine.review import review_hand, review_match  # noqa: E402
from engine.selfplay import play_match  # noqa: E402
from engine.table import Table  # noqa: E402
from render.match_review import render_match_review  # noqa: E402
from render.replay import MAX_UPLOAD, render_replay_animation, render_replay_step  # noqa: E402

NAMES = ("小明", "Alice", "王大锤", "Bob the Builder")


def longest(variant: str, hands: int) -> tuple[str, list, int]:
    """(seed, actions, hand number) of the longest of ``hands`` hands of AI play."""
    best: tuple[int, str, list, int] | None = None
    m = 0
    played = 0
    while played < hands:
        seed = f"bench{m}"
        t = Table.new(variant, seed)
        acts: list = []
        n = play_match(t, ["easy", "normal", "normal", "normal"], random.Random(m), max_hands=min(6, hands - played),
                       record=acts)
        for h in range(n):
            r = HandReplay.build(variant, seed, {}, acts, h)
            if best is None or r.n > best[0]:
                best = (r.n, seed, [a.to_json() for a in acts], h)
        played += max(n, 1)
        m += 1
    assert best is not None
    return best[1], best[2], best[3]


def bench_variant(variant: str, repeat: int, hands: int, match_hands: int = 8) -> dict:
    seed, acts, h = longest(variant, hands)
    r = HandReplay.build(variant, seed, {}, acts, h)
    rv = review_hand(r, 0)
    render_replay_step(r, 1, 0, names=NAMES, review=rv)  # sprites and fonts warm, as in a running bot
    steps = [rv.decisions[i % len(rv.decisions)].step for i in range(repeat)] if rv.decisions else [1] * repeat
    times, cpu, size = [], [], 0
    for k in steps:
        t, c = time.perf_counter(), time.process_time()
        rr = HandReplay.build(variant, seed, {}, acts, h)
        png = render_replay_step(rr, k, 0, names=NAMES, review=rv)
        times.append(time.perf_counter() - t)
        cpu.append(time.process_time() - c)
        size = max(size, len(png))
    rtimes = []
    for _ in range(max(3, repeat // 10)):
        t = time.perf_counter()
        review_hand(r, 0)
        rtimes.append(time.perf_counter() - t)
    t, c = time.perf_counter(), time.process_time()
    gif = render_replay_animation(r, 0, names=NAMES, review=rv, show_all=True)
    anim_ms = (time.perf_counter() - t) * 1000
    anim_cpu = (time.process_time() - c) * 1000
    apng = render_replay_animation(r, 0, names=NAMES, review=rv, show_all=True, fmt="png")
    # a whole match: what the Match review button computes (the store's actions replayed once, every hand reviewed)
    mt = Table.new(variant, "bench-match")
    macts: list = []
    play_match(mt, ["easy", "normal", "normal", "normal"], random.Random(1), max_hands=match_hands, record=macts)
    mjson = [a.to_json() for a in macts]
    t, c = time.perf_counter(), time.process_time()
    mr = review_match(HandReplay.each(variant, "bench-match", {}, mjson), 0)
    match_ms = (time.perf_counter() - t) * 1000
    match_cpu = (time.process_time() - c) * 1000
    t = time.perf_counter()
    render_match_review(mr, variant, "dark", "zh", NAMES)
    card_ms = (time.perf_counter() - t) * 1000
    return {
        "steps": r.n,
        "frames": len(r.visible_steps(0, show_all=True)),
        "step_ms": round(statistics.median(times) * 1000, 1),
        "step_cpu_ms": round(statistics.median(cpu) * 1000, 1),
        "step_bytes": size,
        "animation_ms": round(anim_ms, 1),
        "animation_cpu_ms": round(anim_cpu, 1),
        "animation_bytes": len(gif),
        "apng_bytes": len(apng),
        "under_upload_limit": len(gif) < MAX_UPLOAD,
        "review_ms": round(statistics.median(rtimes) * 1000, 1),
        "decisions": len(rv.decisions),
        "match_review_ms": round(match_ms, 1),
        "match_review_cpu_ms": round(match_cpu, 1),
        "match_hands": len(mr.hands),
        "match_decisions": mr.decisions,
        "match_review_per_hand_ms": round(match_ms / max(1, len(mr.hands)), 1),
        "match_card_ms": round(card_ms, 1),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--hands", type=int, default=12, help="hands played per variant to pick the longest")
    ap.add_argument("--match-hands", type=int, default=8, help="hands of the match whose match review is timed")
    args = ap.parse_args(argv)
    per = {v: bench_variant(v, args.repeat, args.hands, args.match_hands) for v in ("wuhu", "hefei", "chizhou")}
    res = {k: max(p[k] for p in per.values()) for k in ("step_ms", "step_cpu_ms", "animation_ms",
                                                          "animation_cpu_ms", "animation_bytes", "review_ms",
                                                          "match_review_ms", "match_review_cpu_ms")}
    res["variants"] = per
    if args.json:
        print(json.dumps(res, ensure_ascii=False))
    else:
        for v, p in per.items():
            print(f"{v:8s} {p['steps']} steps: step {p['step_ms']} ms ({p['step_bytes']} B), animation "
                  f"{p['animation_ms']} ms {p['animation_bytes'] / 1e6:.2f} MB GIF ({p['apng_bytes'] / 1e6:.2f} MB "
                  f"as APNG, {p['frames']} frames), review {p['review_ms']} ms ({p['decisions']} decisions); match "
                  f"review {p['match_review_ms']} ms ({p['match_hands']} hands, {p['match_decisions']} decisions), "
                  f"card {p['match_card_ms']} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
