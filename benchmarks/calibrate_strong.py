"""Calibrate the strong AI's chance model from self-play of the normal AI (run by hand, niced; minutes).

``python -m benchmarks.calibrate_strong [--hands N] [--variant V ...] [--write]`` prints the module it measured; with
``--write`` it rewrites ``engine/strong/calibration.py`` (the table every strong decision reads: a small trial run
without ``--write`` changes nothing), as every script here that writes an engine table does.

With ``--variant``, only those variants' figures are measured again; the others are kept as they are. Each table is
written one line per variant, so a change to one variant's figures is a change to its own lines.

Four normal AIs play N hands per variant (seeds ``cal:0`` ...). For every discard it records

- the discarding seat's distance to a legal win after it (``engine.ai_common.SeatReader.key``: shanten, 八支, the 花 gate)
  and its own draws left, and whether that seat went on to win the hand: the chance to win from a distance with
  so many draws left (:data:`WIN`);
- the winners' gains: what a win is worth on average (:data:`MEAN_VALUE`);
- for each other seat (:func:`engine.strong.evaluator.danger_features`): its shown melds, the length of its river, whether the tile is in its river, the share of
  its river in the tile's suit, the tile's rank (edge / next to edge / middle), whether its melds are of the
  tile's suit, honours, its alarms; and whether that seat won on the discard: the chance of dealing in, as a base
  by (melds, river length) times one factor per feature (:data:`DANGER_BASE`, :data:`DANGER_FACTOR`; factors are
  the marginal ratios to the overall rate, smoothed, a deliberately simple model).

Every figure is a plain rate with its sample behind it (cells with < 40 samples borrow from their
neighbours).
"""

from __future__ import annotations

import argparse
import collections
import multiprocessing
import random
from typing import Any

from engine.ai import SeatReader, choose
from engine.strong.evaluator import danger_features as features
from engine.table import Table

VARIANTS = ("wuhu", "hefei", "chizhou")
D_MAX, T_MAX, M_MAX, R_MAX = 5, 20, 3, 5


NAMES = ("inriv", "rel", "dshare", "edge", "alarm")


def collect(variant: str, hands: int) -> tuple[dict[tuple[int, int], list[int]], dict[tuple[Any, ...], list[int]],
                                               float]:
    win: dict[tuple[int, int], list[int]] = collections.defaultdict(lambda: [0, 0])
    gains: list[int] = []
    dng: dict[tuple[Any, ...], list[int]] = collections.defaultdict(lambda: [0, 0])
    for i in range(hands):
        t = Table.new(variant, f"cal:{i}")
        rng = random.Random(i)
        recs: list[tuple[int, int, int]] = []
        last: tuple[int, dict[int, tuple[Any, ...]]] | None = None
        hits: list[tuple[dict[int, tuple[Any, ...]], int]] = []
        disc: list[dict[int, tuple[Any, ...]]] = []
        while t.hand.phase in ("play", "claim", "rob"):
            s = t.awaited()[0]
            la = t.legal_actions(s)
            a = la[0] if len(la) == 1 else choose(t, s, la, "normal", rng)
            if a.type == "discard" and a.tile is not None:
                v = t.view(s)
                me = SeatReader(v, s)
                c = list(me.counts)
                c[a.tile] -= 1
                key = me.key(c, me.n_melds, me.meld_suits, me.meld_hua)
                turns = max(0, v["wall_count"] - t.V.reserve) // 4
                recs.append((s, min(key[0], D_MAX), min(turns, T_MAX)))
                last = (s, {o: features(v, o, a.tile) for o in range(4) if o != s})
                disc.append(last[1])
            for e in t.apply(a):
                if e.type == "win" and e.data["from"] is not None and last is not None and e.data["from"] == last[0]:
                    hits.append((last[1], e.seat))
        result = t.match.last_result or {}
        winners = {w["seat"] for w in result.get("winners", [])}
        gains += [result["payments"][w] for w in winners]
        for s, d, turns in recs:
            x = win[(d, turns)]
            x[0] += 1
            x[1] += s in winners
        hit_set = {(id(f), o) for f, o in hits}
        for f in disc:
            for o, feat in f.items():
                y = dng[feat]
                y[0] += 1
                y[1] += (id(f), o) in hit_set
    return win, dng, sum(gains) / max(1, len(gains))


def smooth_win(win: dict[tuple[int, int], list[int]], d_max: int = D_MAX, t_max: int = T_MAX, window: int = 6,
               digits: int = 3) -> list[list[float]]:
    """The chance table [distance 0..d_max][own draws left 0..t_max] from ``win`` ((distance, draws left) -> [seen,
    won]): each cell pools its neighbours in draws left (up to ``window`` either side) until it has 40 samples; a cell
    with none is half the one a step nearer; more draws never hurt, a longer distance never helps."""
    table = [[0.0] * (t_max + 1) for _ in range(d_max + 1)]
    for d in range(d_max + 1):
        for t in range(t_max + 1):
            n = w = 0
            for dt in range(0, window):  # widen the window in turns until the cell has a sample
                for tt in {t - dt, t + dt}:
                    if 0 <= tt <= t_max and (d, tt) in win:
                        n += win[(d, tt)][0]
                        w += win[(d, tt)][1]
                if n >= 40:
                    break
            table[d][t] = w / n if n else -1.0
    for d in range(d_max + 1):  # no sample: one step worse than the distance before, at the same turns
        for t in range(t_max + 1):
            if table[d][t] < 0:
                table[d][t] = table[d - 1][t] * 0.5 if d else 0.0
    for d in range(d_max + 1):  # more draws never hurt, a longer distance never helps
        for t in range(1, t_max + 1):
            table[d][t] = max(table[d][t], table[d][t - 1])
        if d:
            for t in range(t_max + 1):
                table[d][t] = min(table[d][t], table[d - 1][t])
    return [[round(x, digits) for x in row] for row in table]


def _danger(dng: dict[tuple[Any, ...], list[int]]) -> tuple[list[list[float]], dict[str, dict[Any, float]]]:
    n_all = sum(x[0] for x in dng.values())
    h_all = sum(x[1] for x in dng.values())
    rate = h_all / max(1, n_all)
    base = [[0.0] * (R_MAX + 1) for _ in range(M_MAX + 1)]
    for m in range(M_MAX + 1):
        for r in range(R_MAX + 1):
            n = h = 0
            for mm in range(m, -1, -1):  # borrow from fewer melds when the cell is thin
                n += sum(x[0] for k, x in dng.items() if k[0] == mm and k[1] == r)
                h += sum(x[1] for k, x in dng.items() if k[0] == mm and k[1] == r)
                if n >= 400:
                    break
            base[m][r] = round(h / n, 5) if n else rate
    for m in range(M_MAX + 1):
        for r in range(1, R_MAX + 1):
            base[m][r] = max(base[m][r], base[m][r - 1] * 0.8)
    factor: dict[str, dict[Any, float]] = {}
    for i, name in enumerate(NAMES, start=2):
        g: dict[Any, list[int]] = collections.defaultdict(lambda: [0, 0])
        for k, x in dng.items():
            g[k[i]][0] += x[0]
            g[k[i]][1] += x[1]
        # (hits + 2) / (expected + 2): a thin or hitless cell stays near 1 instead of claiming perfect safety
        factor[name] = {kk: round((x[1] + 2) / (x[0] * rate + 2), 3) for kk, x in g.items()}
    return base, factor


def _one(variant: str, hands: int) -> tuple[Any, Any, Any, float]:
    win, dng, value = collect(variant, hands)
    base, factor = _danger(dng)
    return smooth_win(win), base, factor, round(value, 2)


def _table(name: str, kind: str, table: dict[str, Any], doc: str) -> str:
    rows = "".join(f"    {v!r}: {table[v]!r},\n" for v in VARIANTS if v in table)
    return f"{name}: {kind} = {{\n{rows}}}\n{doc}\n"


def main() -> None:
    import importlib
    import pathlib

    ap = argparse.ArgumentParser()
    ap.add_argument("--hands", type=int, default=3000)
    ap.add_argument("--variant", action="append", choices=VARIANTS, help="measure only this variant (repeatable)")
    ap.add_argument("--write", action="store_true",
                    help="rewrite engine/strong/calibration.py with the figures (without it they are printed only)")
    args = ap.parse_args()
    todo = tuple(args.variant or VARIANTS)
    old = importlib.import_module("engine.strong.calibration")
    win_t: dict[str, Any] = dict(old.WIN)
    base_t: dict[str, Any] = dict(old.DANGER_BASE)
    fac_t: dict[str, Any] = dict(old.DANGER_FACTOR)
    val_t: dict[str, Any] = dict(old.MEAN_VALUE)
    hands: dict[str, Any] = dict(getattr(old, "HANDS", {}))
    with multiprocessing.get_context("spawn").Pool(len(todo)) as pool:
        got = pool.starmap(_one, [(v, args.hands) for v in todo])
    for v, (w, b, f, x) in zip(todo, got, strict=True):
        win_t[v], base_t[v], fac_t[v], val_t[v], hands[v] = w, b, f, x, args.hands
    out = ('"""The strong AI\'s measured chances (generated by ``benchmarks/calibrate_strong.py``: four normal AIs,'
           '\nper variant; do not edit by hand)."""\n\nfrom __future__ import annotations\n\nfrom typing import Any\n\n')
    out += _table("HANDS", "dict[str, int]", hands, '"""variant -> the hands of self-play its figures come from."""\n')
    out += _table("WIN", "dict[str, list[list[float]]]", win_t,
                  '"""variant -> [distance 0..5][own draws left 0..20]: the chance that a seat at that distance to a'
                  ' legal win wins\nthe hand."""\n')
    out += _table("DANGER_BASE", "dict[str, list[list[float]]]", base_t,
                  '"""variant -> [shown melds 0..3][river length // 3, 0..5]: the chance a discard deals in to that'
                  ' seat."""\n')
    out += _table("MEAN_VALUE", "dict[str, float]", val_t,
                  '"""variant -> 子 the winner of a hand gains on average (the scale of a plain win)."""\n')
    out += _table("DANGER_FACTOR", "dict[str, dict[str, dict[Any, float]]]", fac_t,
                  '"""variant -> feature -> value -> factor on the base (in its river, its melds\' suit, its river\'s'
                  ' share of\nthe suit, the tile\'s rank, its alarms)."""')
    if not args.write:
        print(out)
        return
    path = pathlib.Path(__file__).resolve().parent.parent / "engine" / "strong" / "calibration.py"
    path.write_text(out, encoding="utf-8")
    print(f"wrote {path} ({', '.join(todo)}: {args.hands} hands each)")


if __name__ == "__main__":
    main()
