"""A logistic regression fitted by Newton's method (iteratively reweighted least squares) in pure Python, and the
report helpers the self-play fits share (``benchmarks/learn_hefei_danger.py``, ``benchmarks/learn_win_chance.py``).

A row is its features, each ``(number, value)`` (number 0 is the bias, always 1; a one-hot feature has value 1), with
how many times it was seen and how many of those were positive: identical rows are counted together, which keeps the
fit of a few hundred thousand observations to seconds.
"""

from __future__ import annotations

import math
import os
import pickle
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

Row = tuple[tuple[tuple[int, float], ...], int, int]
"""((feature number, value), ...), seen, positive."""


def solve(a: list[list[float]], b: list[float]) -> list[float]:
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


def fit_rows(rows: Sequence[Row], n: int, ridge: float, iters: int = 14, start: Sequence[float] | None = None,
             quiet: bool = False) -> list[float]:
    """The weights (numbers 0 .. n - 1) of the logistic model ``p = 1 / (1 + exp(-sum(w[i] * x)))`` over ``rows``
    (each must hold the bias ``(0, 1.0)``): Newton's method, the ridge on every weight but the bias, a step of at
    most 1 on any weight (the start may be far). ``start``: the first weights (default: the bias at the overall
    rate, the rest 0)."""
    pos = sum(pp for _, _, pp in rows)
    tot = sum(nn for _, nn, _ in rows)
    if start is not None:
        w = list(start)
    else:
        w = [0.0] * n
        w[0] = math.log(pos / (tot - pos))
    for it in range(iters):
        g = [0.0] * n
        h = [[0.0] * n for _ in range(n)]
        for feats, nn, pp in rows:
            z = max(-30.0, min(30.0, sum(w[i] * x for i, x in feats)))
            p = 1 / (1 + math.exp(-z))
            r = pp - nn * p
            q = nn * p * (1 - p)
            for i, x in feats:
                g[i] += r * x
                hi = h[i]
                qx = q * x
                for j, y in feats:
                    hi[j] += qx * y
        for i in range(1, n):
            g[i] -= ridge * w[i]
            h[i][i] += ridge
        step = solve(h, g)
        size = max(abs(s) for s in step)
        damp = min(1.0, 1.0 / size)
        w = [a + damp * b for a, b in zip(w, step, strict=True)]
        if not quiet:
            print(f"  iteration {it + 1}: largest step {size:.4f}", flush=True)
        if size < 1e-4:
            break
    return w


def one_hot_rows(agg: dict[tuple[tuple[int, ...], float], list[int]]) -> list[Row]:
    """Rows of one-hot features (numbers 1 ..) from ``(numbers, anything) -> [seen, positive]``, identical feature
    sets counted together, the bias added."""
    cells: dict[tuple[int, ...], list[int]] = {}
    for (idx, _), (nn, pp) in agg.items():
        cell = cells.setdefault((0,) + idx, [0, 0])
        cell[0] += nn
        cell[1] += pp
    return [(tuple((i, 1.0) for i in idx), nn, pp) for idx, (nn, pp) in cells.items()]


def log_likelihood(rows: Iterable[tuple[float, int, int]]) -> tuple[float, int, int]:
    """(log-likelihood summed, seen, positive) of ``(predicted chance, seen, positive)`` rows."""
    ll = 0.0
    tot = pos = 0
    for p, nn, pp in rows:
        ll += pp * math.log(max(1e-9, p)) + (nn - pp) * math.log(max(1e-9, 1 - p))
        tot += nn
        pos += pp
    return ll, tot, pos


def wrap(text: str, width: int = 116) -> list[str]:
    """``text`` in lines of at most ``width`` characters (for a generated module's docstring)."""
    out, cur = [], ""
    for word in text.split():
        if cur and len(cur) + 1 + len(word) > width:
            out.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}" if cur else word
    return out + [cur]


T = TypeVar("T")

def cached(path: str, build: Callable[[], T]) -> T:
    """What ``build()`` gives, kept in the pickle file ``path`` between runs (read back when it exists; "" keeps
    nothing): the fits' collected self-play, which takes minutes to play again."""
    if path and os.path.exists(path):
        with open(path, "rb") as f:
            return pickle.load(f)
    out = build()
    if path:
        with open(path, "wb") as f:
            pickle.dump(out, f)
    return out

