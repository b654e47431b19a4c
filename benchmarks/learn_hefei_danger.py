"""Hefei: learn the danger of a discard from self-play (run by hand, niced; about six minutes with ``--every``).

``python -m benchmarks.learn_hefei_danger [--deals 2500] [--test 700] [--seed cal] [--every] [--write]``: four normal
AIs (the duel's opponents) play one-hand deals ``Table.new("hefei", "duel:S:N")`` (not the duel's own ``duel:0:N``).
Every discard is one exposure for each other seat that did not let the tile go by since its own last discard (those
cannot win on it: ``engine.rivers.passed_since``), labelled by whether that seat won on it; with
``--every``, every tile the discarder held is one (labelled by whether that seat could have won on it then, read from
the table: the hidden hands serve only as labels). Each exposure's features are read from the discarder's view only
(``engine.strong.hefei.DangerReader.features``: public rivers, melds and wall, and the discarder's own unseen counts).
A logistic regression on those one-hot features is fitted (Newton's method with a small ridge, pure Python) on the
first ``--deals`` deals and compared on the next ``--test`` deals with today's product of measured factors
(``DANGER_BASE`` x ``DANGER_FACTOR`` x ``WAYS_FACTOR``): log-likelihood per exposure and the share of the deal-ins
caught among the most dangerous 10% / 20% of exposures, over the discards made and (with ``--every``) over every
tile held. ``--write`` rewrites ``engine/strong/calibration_hefei.py`` with the fitted weights (the module there was
written by ``--every --write`` with the defaults).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from typing import Any

from benchmarks.calibrate_hefei_danger import labelled
from benchmarks.logistic import cached, fit_rows, one_hot_rows, wrap
from engine.ai_common import SeatReader
from engine.strong.calibration import DANGER_BASE, DANGER_FACTOR
from engine.strong.evaluator import danger_features, passed_since
from engine.strong.hefei import WAYS_FACTOR, DangerReader, ways_bucket
from engine.table import Table

Feat = tuple[str, str]
Agg = dict[tuple[tuple[int, ...], float], list[int]]
"""(the features' numbers, today's chance) -> [exposures, deal-ins]: identical exposures counted together."""


def today(view: dict[str, Any], o: int, k: int, unseen: list[int]) -> float:
    """Today's model (``Know.deal_in_chance`` in Hefei, for a tile not let go by since the seat's last discard)."""
    m, rl, inriv, rel, dshare, _, alarm = danger_features(view, o, k)
    fac = DANGER_FACTOR["hefei"]
    p = DANGER_BASE["hefei"][m][rl]
    for name, val in (("inriv", inriv), ("rel", rel), ("dshare", dshare), ("alarm", alarm)):
        p *= fac.get(name, {}).get(val, 1.0)
    return round(min(0.35, p * WAYS_FACTOR[ways_bucket(unseen, k)]), 7)


def collect(first: int, deals: int, seed: str, names: dict[Feat, int], every: bool) -> tuple[Agg, Agg]:
    """Both ways of labelling the same deals: (each discard made, labelled by a win on it; with ``every``, each
    tile the discarder held, labelled by whether that seat could win on it then, read from the table, else empty).
    A seat that let the tile go by since its own last discard, or the last four tiles, are no exposure."""
    made: Agg = {}
    held: Agg = {}

    def row(rd: DangerReader, v: dict[str, Any], o: int, k: int, unseen: list[int]) -> tuple[tuple[int, ...], float]:
        return tuple(sorted(names.setdefault(f, len(names) + 1) for f in rd.features(o, k))), today(v, o, k, unseen)

    def read(t: Table, seat: int, tile: int) -> list[tuple[int, tuple[tuple[int, ...], float]]]:
        v = t.view(seat)
        if v.get("last_four"):
            return []
        unseen = SeatReader(v, seat).remaining
        passed = passed_since(v)
        rd = DangerReader(v, unseen)
        out = []
        for o in range(4):
            if o == seat:
                continue
            for k in sorted(set(v["hand"])) if every else ():
                if passed is not None and k in passed[o]:
                    continue
                cell = held.setdefault(row(rd, v, o, k, unseen), [0, 0])
                cell[0] += 1
                cell[1] += not t.hand.furiten[o] and t._can_win(o, k, seat)
            if passed is None or tile not in passed[o]:
                out.append((o, row(rd, v, o, tile, unseen)))
        return out

    for key, won in labelled(first, deals, seed, read):
        cell = made.setdefault(key, [0, 0])
        cell[0] += 1
        cell[1] += won
    return made, held


def fit(agg: Agg, n: int, ridge: float, iters: int = 14) -> list[float]:
    """A logistic regression on the one-hot features (numbers 1 .. n - 1; 0 is the bias): Newton's method, the
    ridge on every weight but the bias (:func:`benchmarks.logistic.fit_rows`)."""
    return fit_rows(one_hot_rows(agg), n, ridge, iters)


def report(name: str, agg: Agg, pred: Any) -> dict[str, float]:
    """Log-likelihood per exposure of ``pred((features, today's chance))``, the chances' sum against the deal-ins,
    and the share of the deal-ins among the most dangerous 10% / 20% of exposures (ties split in proportion)."""
    rows = sorted(((pred(key), nn, pp) for key, (nn, pp) in agg.items()), key=lambda x: -x[0])
    tot = sum(nn for _, nn, _ in rows)
    pos = sum(pp for _, _, pp in rows)
    ll = sum(pp * math.log(max(1e-9, p)) + (nn - pp) * math.log(max(1e-9, 1 - p)) for p, nn, pp in rows)
    out = {"ll": ll / tot, "pred": sum(p * nn for p, nn, _ in rows), "wins": pos, "n": tot}
    for share in (0.1, 0.2):
        room, got = share * tot, 0.0
        for _, nn, pp in rows:
            take = min(nn, room)
            got += pp * take / nn
            room -= take
            if room <= 0:
                break
        out[f"top{int(share * 100)}"] = got / max(1, pos)
    print(f"{name:>8}: log-likelihood per exposure {out['ll']:.5f}, predicted {out['pred']:.0f} for {pos} deal-ins, "
          f"caught in the dangerous 10% {out['top10']:.1%}, 20% {out['top20']:.1%}", flush=True)
    return out


def write(w: list[float], names: dict[Feat, int], info: str) -> None:
    bias = w[0]
    groups: dict[str, dict[str, float]] = {}
    for (g, v), i in sorted(names.items()):
        groups.setdefault(g, {})[v] = round(w[i], 4)
    lines = ['"""Hefei\'s learned danger model (generated by ``python -m benchmarks.learn_hefei_danger --write``; do '
             'not edit by hand).', "", info.strip(), '"""', "", "from __future__ import annotations", "",
             f"DANGER_BIAS: float = {bias:.4f}",
             '"""The logit of the chance that a discard deals in to a seat, before the features\' weights."""', "",
             "DANGER_WEIGHTS: dict[str, dict[str, float]] = {"]
    for g, vals in groups.items():
        lines.append(f"    {g!r}: {vals!r},")
    lines += ["}", '"""feature group -> value -> weight on the logit (``engine.strong.hefei.DangerReader.features``; a '
              'value not listed weighs 0)."""', ""]
    path = os.path.join(os.path.dirname(__file__), "..", "engine", "strong", "calibration_hefei.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2500)
    ap.add_argument("--test", type=int, default=700)
    ap.add_argument("--seed", default="cal")
    ap.add_argument("--ridge", type=float, default=2.0)
    ap.add_argument("--every", action="store_true",
                    help="fit on every tile the discarder held (could that seat win on it then) instead of the "
                    "discards made")
    ap.add_argument("--cache", default="", help="a pickle file to keep the collected exposures in between runs")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    t0 = time.time()

    def played() -> tuple[dict[Feat, int], tuple[Agg, Agg], tuple[Agg, Agg]]:
        names: dict[Feat, int] = {}
        return (names, collect(0, args.deals, args.seed, names, args.every),
                collect(args.deals, args.test, args.seed, names, args.every))

    names, train, test = cached(args.cache, played)
    which = 1 if args.every else 0
    for label, agg in (("made", train[0]), ("held", train[1])):
        if agg:
            print(f"training, {label}: {sum(x[0] for x in agg.values())} exposures, "
                  f"{sum(x[1] for x in agg.values())} deal-ins, {time.time() - t0:.0f} s", flush=True)
    w = fit(train[which], len(names) + 1, args.ridge)

    def new(key: tuple[tuple[int, ...], float]) -> float:
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, w[0] + sum(w[i] for i in key[0])))))

    res = {}
    for label, agg in (("made", test[0]), ("held", test[1])):
        if agg:
            print(f"held-out deals, {label}:")
            res[label] = (report("today", agg, lambda key: key[1]), report("learned", agg, new))
    old, got = res["made"]
    if args.write:
        info = (f"Fitted on {args.deals} one-hand deals of four normal AIs (``duel:{args.seed}:0`` ..), "
                f"{'every tile the discarder held' if args.every else 'the discards made'}, ridge {args.ridge}; on "
                f"the {args.test} deals after them ({got['n']} discards made, {got['wins']} deal-ins) the "
                f"log-likelihood per exposure is {got['ll']:.5f} against {old['ll']:.5f} for the product of measured "
                f"factors, and the dangerous 10% / 20% of exposures hold {got['top10']:.1%} / {got['top20']:.1%} of "
                f"the deal-ins against {old['top10']:.1%} / {old['top20']:.1%}.")
        if "held" in res:
            old, got = res["held"]
            info += (f" Over every tile the discarders held ({got['n']} exposures, {got['wins']} that would have "
                     f"dealt in): {got['ll']:.5f} against {old['ll']:.5f}, {got['top10']:.1%} / {got['top20']:.1%} "
                     f"against {old['top10']:.1%} / {old['top20']:.1%}.")
        write(w, names, "\n".join(wrap(info)))


if __name__ == "__main__":
    main()
