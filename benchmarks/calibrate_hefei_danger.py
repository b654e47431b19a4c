"""Hefei: how the chance that a discard deals in follows the ways another seat can wait on the tile (run by hand,
niced; a minute or two).

``python -m benchmarks.calibrate_hefei_danger [--deals 3000] [--seed cal]`` prints the factors of
``engine/strong/hefei.py`` (``WAYS_FACTOR``): four normal AIs play N one-hand deals (``Table.new("hefei",
"duel:S:N")``); every discard is one exposure for each other seat that did not let the tile go by since its own last
discard. Each exposure is priced by the strong AI's danger model without the tile's rank factor (what the
discarder's view shows: ``engine.strong.evaluator.danger_features`` and the measured base), and filed by the bucket of
``engine.strong.hefei.wait_ways`` counted from the discarder's unseen tiles; a win on it counts for that bucket.
A bucket's factor is its wins over its priced exposures ((wins + 2) / (priced + 2): a thin bucket stays near 1).
It also prints the log-likelihood of the wins under the model with the rank factor and with the ways factor.
"""

from __future__ import annotations

import argparse
import collections
import math
import random
from collections.abc import Callable
from typing import TypeVar

from engine.ai import choose
from engine.ai_common import SeatReader
from engine.strong.calibration import DANGER_BASE, DANGER_FACTOR
from engine.strong.evaluator import danger_features, passed_since
from engine.strong.hefei import WAYS_EDGES, WAYS_FACTOR, ways_bucket
from engine.table import Table


def _no_rank(view: dict, o: int, k: int) -> tuple[float, str]:
    m, rl, inriv, rel, dshare, edge, alarm = danger_features(view, o, k)
    fac = DANGER_FACTOR["hefei"]
    p = DANGER_BASE["hefei"][m][rl]
    for name, val in (("inriv", inriv), ("rel", rel), ("dshare", dshare), ("alarm", alarm)):
        p *= fac.get(name, {}).get(val, 1.0)
    return p, edge


R = TypeVar("R")


def labelled(first: int, deals: int, seed: str, read: Callable[[Table, int, int], list[tuple[int, R]]]
             ) -> list[tuple[R, bool]]:
    """Four normal AIs' one-hand Hefei deals ``duel:{seed}:{first}`` ..: at each discard (tile ``k`` by ``seat``,
    the table before it), ``read(t, seat, k)`` gives its exposures (another seat, a row), each labelled by whether
    that seat won on that discard."""
    rows: list[tuple[R, bool]] = []
    for deal in range(first, first + deals):
        t = Table.new("hefei", f"duel:{seed}:{deal}")
        rng = random.Random(deal)
        pending: list[tuple[int, R]] = []
        won: set[int] = set()
        while t.hand.phase not in ("ended", "over"):
            seat = t.awaited()[0]
            la = t.legal_actions(seat)
            a = la[0] if len(la) == 1 else choose(t, seat, la, "normal", rng)
            if a.type == "discard" and a.tile is not None:
                rows += [(r, o in won) for o, r in pending]
                pending, won = read(t, seat, a.tile), set()
            for e in t.apply(a):  # a win on the discard comes with the winner's own action, in the claim window
                if e.type == "win" and e.data["from"] is not None and e.data["from"] != e.seat:
                    won.add(e.seat)
        rows += [(r, o in won) for o, r in pending]
    return rows


def measure(deals: int, seed: str) -> list[tuple[float, str, int, bool]]:
    """One row per exposure: (the model's chance without the rank factor, the tile's rank, its ways bucket, won)."""

    def read(t: Table, seat: int, k: int) -> list[tuple[int, tuple[float, str, int]]]:
        v = t.view(seat)
        unseen = SeatReader(v, seat).remaining
        passed = passed_since(v)
        out = []
        for o in range(4):
            if o == seat or (passed is not None and k in passed[o]):
                continue
            p, edge = _no_rank(v, o, k)
            out.append((o, (p, edge, ways_bucket(unseen, k))))
        return out

    return [(p, edge, b, won) for (p, edge, b), won in labelled(0, deals, seed, read)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=3000)
    ap.add_argument("--seed", default="cal")
    args = ap.parse_args()
    rows = measure(args.deals, args.seed)
    by: dict[int, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0])
    for p, _, b, won in rows:
        by[b][0] += 1
        by[b][1] += p
        by[b][2] += won
    fac = []
    for b in range(len(WAYS_EDGES) + 1):
        n, pred, hits = by[b]
        fac.append(round((hits + 2) / (pred + 2), 3))
        print(f"ways bucket {b}: exposures {int(n)}, predicted {pred:.1f}, wins {int(hits)}, factor {fac[-1]}")
    print("WAYS_FACTOR =", tuple(fac))
    rank = DANGER_FACTOR["hefei"]["edge"]
    for name, f in (("rank", lambda e, b: rank.get(e, 1.0)), ("ways (module)", lambda e, b: WAYS_FACTOR[b]),
                    ("ways (measured)", lambda e, b: fac[b])):
        ll = 0.0
        for p, e, b, won in rows:
            q = min(0.35, max(1e-6, p * f(e, b)))
            ll += math.log(q) if won else math.log(1 - q)
        print(f"log-likelihood with the {name} factor: {ll:.1f}")


if __name__ == "__main__":
    main()
