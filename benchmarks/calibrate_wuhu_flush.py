"""Measure the chance of Wuhu's 清一色 plan, of its one-suit all-pungs plan or of its 混一色 play (run by hand, niced; a
few minutes).

``python -m benchmarks.calibrate_wuhu_flush [--hands N] [--plan flush|pungs|hun] [--keep-sihe] [--write]``

``--variant hefei``: Hefei's 清一色 (each payer's share x3, H5) measured the same way (the seat plays
:func:`engine.strong.wuhu.flush_choice`; the plan counts a 清一色 win): printed only, never written (the strong AI priced
with that table gained nothing, docs/strong-ai-rounds.md).

``--plan hun``: the seat plays :func:`engine.strong.wuhu.hun_choice` (one suit and 红中: 混一色, with a 四核, 对对胡 or
通天 a 交, else 清一色), the distance is :func:`engine.strong.wuhu.hun_distance`, and the table is the chance of any
win of the seat with, beside it, the 子 its wins bring per discard; ``--write`` rewrites
``engine/strong/calibration_wuhu_hun.py``. ``--keep-sihe``: the play keeps a fourth copy that can join a run (四核)
rather than kong it (:data:`engine.strong.wuhu.KEEP_SIHE`; measured only, never written).

``--plan pungs``: the seat plays :func:`engine.strong.wuhu.pung_choice` instead (对对胡 of one suit and 红中: with
混一色 or 清一色 a 交), the distance is :func:`engine.strong.wuhu.pung_distance`, ``--write`` rewrites
``engine/strong/calibration_wuhu_pungs.py``. Both also print, per bucket of the plan suit's tiles still unseen from the
seat, the 交 made from discards within ``UNSEEN_D`` steps over what the table expects (1.0: the unseen count adds
nothing to the distance and the draws left).

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
import bisect
import collections
import pathlib
import random

from benchmarks.calibrate_strong import smooth_win
from engine.ai import SeatReader, choose
from engine.strong import wuhu
from engine.strong.wuhu import (
    flush_choice,
    flush_distance,
    flush_suit,
    hun_choice,
    hun_distance,
    pung_choice,
    pung_distance,
    pung_suit,
)
from engine.table import Table

D_MAX, T_MAX = 6, 20
UNSEEN_EDGES = (12, 15, 18, 21)
"""Buckets of the plan suit's tiles still unseen from the seat (fewer than 12, 12-14, ..., 21 or more)."""
UNSEEN_D = 3
"""The unseen-tile factors are measured on discards this near a ready hand."""


def unseen_bucket(unseen: int) -> int:
    """The bucket of the suit's tiles still unseen from the seat (:data:`UNSEEN_EDGES`)."""
    return bisect.bisect_right(UNSEEN_EDGES, unseen)


def flush_won(result: dict, seat: int, variant: str) -> bool:
    """Whether ``seat`` won the hand with its one-suit plan's pay: in Wuhu a 交, in Hefei a 清一色."""
    if variant == "hefei":
        return any(w["seat"] == seat and any(it["code"] == "qingyise" for it in w["items"])
                   for w in result.get("winners", []))
    return any(w["seat"] == seat for w in result.get("winners", [])) and result["jiao"][seat] > 0


def collect(hands: int, first: int = 0, plan: str = "flush", keep_sihe: bool = False, variant: str = "wuhu"
            ) -> tuple[dict[tuple[int, int], list[int]], list[int], list[tuple[int, int, int, int]]]:
    """(distance, draws left) -> [discards, 交 (Hefei: 清一色; ``hun``: any win of the seat), 子 its wins brought],
    the tally, the rows of the unseen-tile factors. ``keep_sihe``: the play keeps 四核 rather than kong
    (``wuhu.KEEP_SIHE``)."""
    wuhu.KEEP_SIHE = keep_sihe
    win: dict[tuple[int, int], list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    rows: list[tuple[int, int, int, int]] = []  # (distance, draws left, unseen bucket, 交) of every discard
    tally = [0, 0, 0, 0]  # hands, 交 wins, plain wins, 子 of the seat
    for i in range(first, first + hands):
        t = Table.new(variant, f"flush:{i}")
        rng = random.Random(i)
        me_seat = i % 4
        recs: list[tuple[int, int, int]] = []
        while t.hand.phase in ("play", "claim", "rob"):
            s = t.awaited()[0]
            la = t.legal_actions(s)
            if len(la) == 1:
                a = la[0]
            elif s == me_seat:
                v = t.view(s)
                a = {"pungs": pung_choice, "hun": hun_choice}.get(plan, flush_choice)(v, s, la)
            else:
                a = choose(t, s, la, "normal", rng)
            if s == me_seat and a.type == "discard" and a.tile is not None:
                v = t.view(s)
                me = SeatReader(v, s)
                c = list(me.counts)
                c[a.tile] -= 1
                if plan == "pungs":
                    suit = pung_suit(c, [int(m["tile"]) for m in v["melds"][s]])
                    d = pung_distance(c, me.n_melds, suit, me.remaining)[0]
                else:
                    suit = flush_suit(c, me.meld_suits)
                    d = (hun_distance if plan == "hun" else flush_distance)(c, me.n_melds, suit)[0]
                turns = max(0, v["wall_count"] - t.V.reserve) // 4
                recs.append((min(d, D_MAX), min(turns, T_MAX), unseen_bucket(sum(me.remaining[suit * 9 : suit * 9 + 9]))))
            t.apply(a)
        result = t.match.last_result or {}
        winners = {w["seat"] for w in result.get("winners", [])}
        jiao = flush_won(result, me_seat, variant)
        tally[0] += 1
        tally[1] += jiao
        tally[2] += me_seat in winners and not jiao
        tally[3] += result["payments"][me_seat]
        won = me_seat in winners
        gain = result["payments"][me_seat] if won else 0
        for d, tt, b in recs:
            x = win[(d, tt)]
            x[0] += 1
            x[1] += won if plan == "hun" else jiao
            x[2] += gain
            rows.append((d, tt, b, int(jiao)))
    return win, tally, rows


def smooth(win: dict[tuple[int, int], list[int]]) -> list[list[float]]:
    """The measured 清一色 table: the strong AI's smoothing (a wider window: the plan's hands are fewer)."""
    return smooth_win(win, D_MAX, T_MAX, window=8, digits=4)


def unseen_factors(table: list[list[float]], rows: list[tuple[int, int, int, int]]) -> list[float]:
    """Per bucket of the suit's unseen tiles: the 交 made from discards within ``UNSEEN_D`` steps of a ready 清一色
    over what the distance-and-draws table expects them to make (1.0 for a bucket with fewer than 40 samples)."""
    got = [0.0] * (len(UNSEEN_EDGES) + 1)
    exp = [0.0] * (len(UNSEEN_EDGES) + 1)
    n = [0] * (len(UNSEEN_EDGES) + 1)
    for d, t, b, j in rows:
        if d <= UNSEEN_D:
            got[b] += j
            exp[b] += table[d][t]
            n[b] += 1
    return [round(g / e, 3) if e >= 5 and x >= 40 else 1.0 for g, e, x in zip(got, exp, n, strict=True)]


def _one(args: tuple[int, int, str, bool, str]
         ) -> tuple[dict[tuple[int, int], list[int]], list[int], list[tuple[int, int, int, int]]]:
    w, tl, rows = collect(*args)
    return dict(w), tl, rows


def main() -> None:
    import multiprocessing

    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=4000)
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--plan", choices=("flush", "pungs", "hun"), default="flush",
                    help="flush: 清一色 (calibration_wuhu.py); pungs: one-suit all pungs (calibration_wuhu_pungs.py); "
                         "hun: one suit and 红中, any win and its 子 (calibration_wuhu_hun.py)")
    ap.add_argument("--variant", choices=("wuhu", "hefei"), default="wuhu",
                    help="hefei: Hefei's 清一色 plan, measured only (--plan flush, no --write)")
    ap.add_argument("--keep-sihe", action="store_true",
                    help="the play keeps a fourth copy that can join a run (四核) rather than kong it (not with --write)")
    args = ap.parse_args()
    if args.variant == "hefei" and (args.plan != "flush" or args.write):
        ap.error("Hefei: the 清一色 plan is measured only (no honours: no 混一色; priced from this table the strong AI "
                 "gained nothing: docs/strong-ai-rounds.md)")
    if args.keep_sihe and args.write:
        ap.error("--keep-sihe measures the play that keeps 四核; the tables are those of the play the strong AI uses")
    per = args.hands // args.jobs
    with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
        parts = pool.map(_one, [(per, j * per, args.plan, args.keep_sihe, args.variant) for j in range(args.jobs)])
    win: dict[tuple[int, int], list[int]] = collections.defaultdict(lambda: [0, 0, 0])
    tally = [0, 0, 0, 0]
    rows: list[tuple[int, int, int, int]] = []
    for w, tl, r in parts:
        rows += r
        for k, x in w.items():
            for i in range(3):
                win[k][i] += x[i]
        tally = [a + b for a, b in zip(tally, tl, strict=True)]
    made = "清一色" if args.variant == "hefei" else "交"
    print(f"hands {tally[0]}: {made} {tally[1]} ({tally[1] / tally[0]:.1%}), plain wins {tally[2]}, "
          f"子/hand {tally[3] / tally[0]:+.2f}")
    for d in range(D_MAX + 1):
        print(d, [(t, win[(d, t)][0], win[(d, t)][1]) for t in range(T_MAX + 1) if (d, t) in win])
    table = smooth(win)
    for d, row in enumerate(table):
        print(d, row)
    factors = unseen_factors(table, rows)
    print("unseen edges", UNSEEN_EDGES, "samples", [sum(1 for r in rows if r[0] <= UNSEEN_D and r[2] == b)
                                                    for b in range(len(factors))], "factors", factors)
    if args.plan == "hun":
        ev = smooth_win({k: [x[0], x[2]] for k, x in win.items()}, D_MAX, T_MAX, window=8, digits=3)
        print("子 won per discard")
        for d, row in enumerate(ev):
            print(d, row)
    if args.write and args.plan == "hun":
        write_tables("calibration_wuhu_hun.py", "one-suit-and-红中 play (混一色; 清一色, 四核, 对对胡 ...)", " --plan hun",
                     tally[0], [("HUN_WIN", table, f"[distance to a ready hand of one suit and 红中 0..{D_MAX}][own draws "
                                 f"left 0..{T_MAX}]: the chance a seat playing for it wins."),
                                ("HUN_EV", ev, "The same cells: the 子 its wins bring, per discard.")])
    elif args.write and args.plan == "pungs":
        write_tables("calibration_wuhu_pungs.py", "one-suit all-pungs plan (对对胡 with 混一色 or 清一色)", " --plan pungs",
                     tally[0], [("PUNGS_WIN", table, f"[distance to a ready one-suit all-pungs hand 0..{D_MAX}][own "
                                 f"draws left 0..{T_MAX}]: the chance a seat playing for it completes a 交.")])
    elif args.write:
        write_tables("calibration_wuhu.py", "清一色 plan", "", tally[0],
                     [("FLUSH_WIN", table, f"[distance to a ready 清一色 0..{D_MAX}][own draws left 0..{T_MAX}]: the "
                       "chance a seat playing for it completes it.")])


def tables_text(title: str, flag: str, hands: int, tables: list[tuple[str, object, str]]) -> str:
    """A generated calibration module: its docstring, HANDS and each (name, table, docstring)."""
    text = (f'"""Wuhu\'s {title}, measured (generated by ``benchmarks/calibrate_wuhu_flush.py{flag}``; do not edit by '
            f'hand)."""\n\nHANDS = {hands}\n"""Hands of play its figures come from."""\n')
    for name, table, doc in tables:
        text += f'\n{name}: list[list[float]] = {table!r}\n"""{doc}"""\n'
    return text


def write_tables(module: str, title: str, flag: str, hands: int, tables: list[tuple[str, object, str]]) -> None:
    """engine/strong/<module>, as :func:`tables_text` writes it."""
    path = pathlib.Path(__file__).resolve().parent.parent / "engine" / "strong" / module
    path.write_text(tables_text(title, flag, hands, tables), encoding="utf-8")
    print(f"wrote {path}")

if __name__ == "__main__":
    main()
