"""Measure the chance of Wuhu's 清一色 plan (run by hand, niced; a minute or two).

``python -m benchmarks.calibrate_wuhu_flush [--hands N] [--write]``

In hand i the seat i % 4 plays :func:`engine.strong.wuhu.flush_choice` (for 清一色 of its longest suit, from the
first discard) against three normal AIs (seeds ``flush:i``). At each of its discards it records the distance to a
ready 清一色 the discard leaves (:func:`engine.strong.wuhu.flush_distance`) and its own draws left, and whether the
seat went on to win a 交 (its 清一色). Prints the table (distance 0..D_MAX x draws left 0..T_MAX, the same smoothing
as ``calibrate_strong.py``: cells with < 40 samples borrow from their neighbours; more draws never hurt, a longer
distance never helps) and the plain wins the seat still made; ``--write`` rewrites
``engine/strong/calibration_wuhu.py``.
"""

from __future__ import annotations

import argparse
import collections
import pathlib
import random

from engine.ai import SeatReader, choose
from engine.strong.wuhu import flush_choice, flush_distance, flush_suit
from engine.table import Table

D_MAX, T_MAX = 6, 20


def collect(hands: int, first: int = 0) -> tuple[dict[tuple[int, int], list[int]], list[int]]:
    win: dict[tuple[int, int], list[int]] = collections.defaultdict(lambda: [0, 0])
    tally = [0, 0, 0, 0]  # hands, 交 wins, plain wins, 子 of the seat
    for i in range(first, first + hands):
        t = Table.new("wuhu", f"flush:{i}")
        rng = random.Random(i)
        me_seat = i % 4
        recs: list[tuple[int, int]] = []
        while t.hand.phase in ("play", "claim", "rob"):
            s = t.awaited()[0]
            la = t.legal_actions(s)
            if len(la) == 1:
                a = la[0]
            elif s == me_seat:
                v = t.view(s)
                a = flush_choice(v, s, la)
            else:
                a = choose(t, s, la, "normal", rng)
            if s == me_seat and a.type == "discard" and a.tile is not None:
                v = t.view(s)
                me = SeatReader(v, s)
                c = list(me.counts)
                c[a.tile] -= 1
                d, _sh, _off = flush_distance(c, me.n_melds, flush_suit(c, me.meld_suits))
                turns = max(0, v["wall_count"] - t.V.reserve) // 4
                recs.append((min(d, D_MAX), min(turns, T_MAX)))
            t.apply(a)
        result = t.match.last_result or {}
        winners = {w["seat"] for w in result.get("winners", [])}
        jiao = me_seat in winners and result["jiao"][me_seat] > 0
        tally[0] += 1
        tally[1] += jiao
        tally[2] += me_seat in winners and not jiao
        tally[3] += result["payments"][me_seat]
        for key in recs:
            x = win[key]
            x[0] += 1
            x[1] += jiao
    return win, tally


def smooth(win: dict[tuple[int, int], list[int]]) -> list[list[float]]:
    table = [[0.0] * (T_MAX + 1) for _ in range(D_MAX + 1)]
    for d in range(D_MAX + 1):
        for t in range(T_MAX + 1):
            n = w = 0
            for dt in range(0, 8):
                for tt in {t - dt, t + dt}:
                    if 0 <= tt <= T_MAX and (d, tt) in win:
                        n += win[(d, tt)][0]
                        w += win[(d, tt)][1]
                if n >= 40:
                    break
            table[d][t] = w / n if n else -1.0
    for d in range(D_MAX + 1):
        for t in range(T_MAX + 1):
            if table[d][t] < 0:
                table[d][t] = table[d - 1][t] * 0.5 if d else 0.0
    for d in range(D_MAX + 1):
        for t in range(1, T_MAX + 1):
            table[d][t] = max(table[d][t], table[d][t - 1])
        if d:
            for t in range(T_MAX + 1):
                table[d][t] = min(table[d][t], table[d - 1][t])
    return [[round(x, 4) for x in row] for row in table]


def _one(args: tuple[int, int]) -> tuple[dict[tuple[int, int], list[int]], list[int]]:
    w, tl = collect(*args)
    return dict(w), tl


def main() -> None:
    import multiprocessing

    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    per = args.hands // args.jobs
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        parts = pool.map(_one, [(per, j * per) for j in range(args.jobs)])
    win: dict[tuple[int, int], list[int]] = collections.defaultdict(lambda: [0, 0])
    tally = [0, 0, 0, 0]
    for w, tl in parts:
        for k, x in w.items():
            win[k][0] += x[0]
            win[k][1] += x[1]
        tally = [a + b for a, b in zip(tally, tl, strict=True)]
    print(f"hands {tally[0]}: 交 {tally[1]} ({tally[1] / tally[0]:.1%}), plain wins {tally[2]}, "
          f"子/hand {tally[3] / tally[0]:+.2f}")
    for d in range(D_MAX + 1):
        print(d, [(t, win[(d, t)][0], win[(d, t)][1]) for t in range(T_MAX + 1) if (d, t) in win])
    table = smooth(win)
    for d, row in enumerate(table):
        print(d, row)
    if args.write:
        path = pathlib.Path(__file__).resolve().parent.parent / "engine" / "strong" / "calibration_wuhu.py"
        path.write_text(
            '"""Wuhu\'s 清一色 plan, measured (generated by ``benchmarks/calibrate_wuhu_flush.py``; do not edit by hand)."""'
            f"\n\nHANDS = {tally[0]}\n\"\"\"Hands of play its figures come from.\"\"\"\n\nFLUSH_WIN: list[list[float]] = "
            f"{table!r}\n\"\"\"[distance to a ready 清一色 0..{D_MAX}][own draws left 0..{T_MAX}]: the chance a seat "
            "playing for it completes it.\"\"\"\n", encoding="utf-8")
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
