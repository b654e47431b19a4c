"""Hefei: learn the danger of a discard from self-play (run by hand, niced; a few minutes).

``python -m benchmarks.learn_hefei_danger [--deals 4000] [--test 1000] [--seed cal] [--write]``: four normal AIs
(the duel's opponents) play one-hand deals ``Table.new("hefei", "duel:S:N")`` (not the duel's own ``duel:0:N``);
every discard is one exposure for each other seat that did not let the tile go by since its own last discard
(those cannot win on it: ``engine.strong.evaluator.passed_since``), labelled by whether that seat won on it. Each
exposure's features are read from the discarder's view only (``engine.strong.hefei.DangerReader.features``: public
rivers, melds and wall, and the discarder's own unseen counts). A logistic regression on those one-hot features is
fitted (Newton's method with a small ridge, pure Python) on the first ``--deals`` deals and compared on the next
``--test`` deals with today's product of measured factors (``DANGER_BASE`` x ``DANGER_FACTOR`` x ``WAYS_FACTOR``):
log-likelihood per exposure and the share of the deal-ins caught among the most dangerous 10% / 20% of exposures.
``--write`` rewrites ``engine/strong/calibration_hefei.py`` with the fitted weights.
"""

from __future__ import annotations

import argparse
import math
import os
import pickle
import random
import time
from typing import Any

from engine.ai import choose
from engine.ai_common import SeatReader
from engine.strong.calibration import DANGER_BASE, DANGER_FACTOR
from engine.strong.evaluator import danger_features, passed_since
from engine.strong.hefei import WAYS_FACTOR, DangerReader, ways_bucket
from engine.table import Table

Row = tuple[list[tuple[str, str]], float, bool]


def today(view: dict[str, Any], o: int, k: int, unseen: list[int]) -> float:
    """Today's model (``Know.deal_in_chance`` in Hefei, for a tile not let go by since the seat's last discard)."""
    m, rl, inriv, rel, dshare, _, alarm = danger_features(view, o, k)
    fac = DANGER_FACTOR["hefei"]
    p = DANGER_BASE["hefei"][m][rl]
    for name, val in (("inriv", inriv), ("rel", rel), ("dshare", dshare), ("alarm", alarm)):
        p *= fac.get(name, {}).get(val, 1.0)
    return min(0.35, p * WAYS_FACTOR[ways_bucket(unseen, k)])


def collect(first: int, deals: int, seed: str) -> list[Row]:
    rows: list[Row] = []
    for deal in range(first, first + deals):
        t = Table.new("hefei", f"duel:{seed}:{deal}")
        rng = random.Random(deal)
        pending: list[tuple[int, list[tuple[str, str]], float]] = []
        won: set[int] = set()
        while t.hand.phase not in ("ended", "over"):
            seat = t.awaited()[0]
            la = t.legal_actions(seat)
            a = la[0] if len(la) == 1 else choose(t, seat, la, "normal", rng)
            if a.type == "discard" and a.tile is not None:
                rows += [(f, p, o in won) for o, f, p in pending]
                pending, won = [], set()
                v = t.view(seat)
                unseen = SeatReader(v, seat).remaining
                passed = passed_since(v)
                rd = DangerReader(v, unseen)
                for o in range(4):
                    if o == seat or (passed is not None and a.tile in passed[o]):
                        continue
                    pending.append((o, rd.features(o, a.tile), today(v, o, a.tile, unseen)))
            for e in t.apply(a):  # a win on the discard comes with the winner's own action, in the claim window
                if e.type == "win" and e.data["from"] is not None and e.data["from"] != e.seat:
                    won.add(e.seat)
        rows += [(f, p, o in won) for o, f, p in pending]
    return rows


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (a is symmetric positive definite here)."""
    n = len(b)
    m = [row[:] + [b[i]] for i, row in enumerate(a)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[piv] = m[piv], m[c]
        d = m[c][c]
        for r in range(c + 1, n):
            f = m[r][c] / d
            if f:
                mr, mc = m[r], m[c]
                for j in range(c, n + 1):
                    mr[j] -= f * mc[j]
    x = [0.0] * n
    for c in range(n - 1, -1, -1):
        x[c] = (m[c][n] - sum(m[c][j] * x[j] for j in range(c + 1, n))) / m[c][c]
    return x


def fit(rows: list[Row], ridge: float, iters: int = 8) -> tuple[float, dict[tuple[str, str], float]]:
    """A logistic regression on the one-hot features: Newton's method, the ridge on every weight but the bias."""
    names = sorted({f for fs, _, _ in rows for f in fs})
    ix = {f: i + 1 for i, f in enumerate(names)}
    agg: dict[tuple[int, ...], list[int]] = {}  # identical feature rows together: [exposures, deal-ins]
    for fs, _, y in rows:
        cell = agg.setdefault(tuple(sorted(ix[f] for f in fs)), [0, 0])
        cell[0] += 1
        cell[1] += y
    data = [((0,) + idx, nn, pp) for idx, (nn, pp) in agg.items()]
    n = len(names) + 1
    pos = sum(y for _, _, y in rows)
    w = [0.0] * n
    w[0] = math.log(pos / (len(rows) - pos))
    for it in range(iters):
        g = [0.0] * n
        h = [[0.0] * n for _ in range(n)]
        for idx, nn, pp in data:
            z = sum(w[i] for i in idx)
            p = 1 / (1 + math.exp(-z))
            r = pp - nn * p
            q = nn * p * (1 - p)
            for i in idx:
                g[i] += r
                hi = h[i]
                for j in idx:
                    hi[j] += q
        for i in range(1, n):
            g[i] -= ridge * w[i]
            h[i][i] += ridge
        step = _solve(h, g)
        w = [a + b for a, b in zip(w, step, strict=True)]
        size = max(abs(s) for s in step)
        print(f"  iteration {it + 1}: largest step {size:.4f}", flush=True)
        if size < 1e-4:
            break
    return w[0], {f: w[ix[f]] for f in names}


def learned(bias: float, wts: dict[tuple[str, str], float], fs: list[tuple[str, str]]) -> float:
    z = bias + sum(wts.get(f, 0.0) for f in fs)
    return 1 / (1 + math.exp(-z))


def report(name: str, preds: list[float], ys: list[bool]) -> dict[str, float]:
    ll = sum(math.log(max(1e-9, p)) if y else math.log(max(1e-9, 1 - p)) for p, y in zip(preds, ys, strict=True))
    order = sorted(range(len(preds)), key=lambda i: -preds[i])
    pos = sum(ys)
    out = {"ll": ll / len(preds), "pred": sum(preds), "wins": pos}
    for share in (0.1, 0.2):
        top = order[: int(len(order) * share)]
        out[f"top{int(share * 100)}"] = sum(1 for i in top if ys[i]) / max(1, pos)
    print(f"{name:>8}: log-likelihood per exposure {out['ll']:.5f}, predicted {out['pred']:.0f} for {pos} deal-ins, "
          f"caught in the dangerous 10% {out['top10']:.1%}, 20% {out['top20']:.1%}")
    return out


def write(bias: float, wts: dict[tuple[str, str], float], info: str) -> None:
    groups: dict[str, dict[str, float]] = {}
    for (g, v), x in sorted(wts.items()):
        groups.setdefault(g, {})[v] = round(x, 4)
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
    ap.add_argument("--deals", type=int, default=4000)
    ap.add_argument("--test", type=int, default=1000)
    ap.add_argument("--seed", default="cal")
    ap.add_argument("--ridge", type=float, default=2.0)
    ap.add_argument("--cache", default="", help="a pickle file to keep the collected rows in between runs")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args()
    t0 = time.time()
    if args.cache and os.path.exists(args.cache):
        with open(args.cache, "rb") as f:
            train, test = pickle.load(f)
    else:
        train = collect(0, args.deals, args.seed)
        test = collect(args.deals, args.test, args.seed)
        if args.cache:
            with open(args.cache, "wb") as f:
                pickle.dump((train, test), f)
    print(f"{len(train)} training exposures ({sum(y for _, _, y in train)} deal-ins), {len(test)} held out "
          f"({sum(y for _, _, y in test)}), {time.time() - t0:.0f} s", flush=True)
    bias, wts = fit(train, args.ridge)
    ys = [y for _, _, y in test]
    old = report("today", [p for _, p, _ in test], ys)
    new = report("learned", [learned(bias, wts, fs) for fs, _, _ in test], ys)
    report("(train)", [learned(bias, wts, fs) for fs, _, _ in train], [y for _, _, y in train])
    if args.write:
        info = (f"Fitted on {args.deals} one-hand deals of four normal AIs (``duel:{args.seed}:0`` ..), "
                f"{len(train)} exposures, ridge {args.ridge}; on the {args.test} deals after them "
                f"({len(test)} exposures, {sum(ys)} deal-ins) the log-likelihood per exposure is "
                f"{new['ll']:.5f} against {old['ll']:.5f} for the product of measured factors, and the dangerous 10% / "
                f"20% of exposures hold {new['top10']:.1%} / {new['top20']:.1%} of the deal-ins against "
                f"{old['top10']:.1%} / {old['top20']:.1%}.")
        write(bias, wts, "\n".join(_wrap(info)))


def _wrap(text: str, width: int = 116) -> list[str]:
    out, cur = [], ""
    for word in text.split():
        if cur and len(cur) + 1 + len(word) > width:
            out.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    return out + [cur]


if __name__ == "__main__":
    main()
