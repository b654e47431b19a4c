"""Chizhou: how often a discard deals in to a seat, by the 花 that seat shows (run by hand, niced; a minute).

``python -m benchmarks.calibrate_chizhou_danger [--deals N]`` prints the table of ``engine/strong/chizhou.py``
(``DANGER_BY_HUA``): four normal AIs play N one-hand deals (``Table.new("chizhou", "duel:0:N")``); every discard is
one exposure for each other seat, filed by that seat's shown 花 (``engine.variants.chizhou.shown_hua``, 3 = 3 or more)
and its river's length // 3; a win on it counts for that cell. The constants in the module are rounded by hand
(cells without a win but with few exposures borrow from their neighbours).
"""

from __future__ import annotations

import argparse
import collections
import random

from engine.ai import choose
from engine.table import Table
from engine.variants.chizhou import shown_hua


def measure(deals: int) -> tuple[dict[tuple[int, int], int], dict[tuple[int, int], int]]:
    ron: dict[tuple[int, int], int] = collections.Counter()
    exposure: dict[tuple[int, int], int] = collections.Counter()
    for deal in range(deals):
        t = Table.new("chizhou", f"duel:0:{deal}")
        rng = random.Random(deal)
        while t.hand.phase not in ("ended", "over"):
            seat = t.awaited()[0]
            la = t.legal_actions(seat)
            a = la[0] if len(la) == 1 else choose(t, seat, la, "normal", rng)
            if a.type == "discard":
                for o in range(4):
                    if o != seat:
                        exposure[(min(shown_hua(t.hand.melds[o]), 3), min(len(t.hand.rivers[o]) // 3, 5))] += 1
            for e in t.apply(a):
                if e.type == "win" and not e.data["self_drawn"]:
                    ron[(min(shown_hua(t.hand.melds[e.seat]), 3), min(len(t.hand.rivers[e.seat]) // 3, 5))] += 1
    return ron, exposure


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, default=2000)
    args = ap.parse_args()
    ron, exposure = measure(args.deals)
    for h in range(4):
        rates = [round(ron[(h, r)] / exposure[(h, r)], 5) if exposure[(h, r)] else 0.0 for r in range(6)]
        print(f"shown 花 {h}: rates {rates} exposures {[exposure[(h, r)] for r in range(6)]}")


if __name__ == "__main__":
    main()
