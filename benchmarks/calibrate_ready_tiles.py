"""How much a ready hand's winning tiles change its chance to win, against what happened (run by hand, niced; about
two minutes per 1,200 hands on a loaded machine).

``python -m benchmarks.calibrate_ready_tiles [--variant wuhu] [--hands N] [--seed rw] [--first 0] [--powers 0.3,0.4,0.6,1]
[--waits on|off]``

Four normal AIs play N one-hand deals (``Table.new(variant, "{seed}:{i}")``). After every discard that leaves the
discarder ready (the normal AI's distance 0: shanten and 八支), the discarder's own evaluator
(:class:`engine.strong.evaluator.Know`, its view only) reads what the strong AI's chance of a ready hand reads: the
measured chance of a ready hand with so many own draws left (``Know.chance``) and the winning tiles
(``Know.tenpai``: the self-drawn ones and a third of the discard wins, :meth:`engine.strong.evaluator.Know.hand_value`);
then whether the seat went on to win the hand. For each power p of :data:`engine.strong.evaluator.READY_TILES_POW`
it prints the chance the evaluator gives (``chance x min(1.8, max(0.15, tiles / 6)) ** p``, before the factor
``READY_WIN`` measured on the strong AI's own play) against the wins, by the unseen winning tiles self-drawn (1-2,
3-4, 5-6, 7-8, 9+) and over all, and the mean log-loss (lower: the chance tells the hands that win from those that
do not better). The states of one hand share its outcome (the seat-hands are counted too). ``--waits on`` / ``off``:
the winning tiles weighted by the measured factors of their class (:data:`engine.strong.evaluator.WAIT_FACTORS` at
1, 1) or every unseen copy alike, whatever the variant's switch says (default: as the evaluator has it).
"""

from __future__ import annotations

import argparse
import collections
import math
import random
from collections.abc import Sequence
from typing import Any

from engine.ai import choose
from engine.strong.evaluator import Know
from engine.table import Table

CAP = 1.8
"""The cap on the winning tiles against a typical ready hand's (:meth:`engine.strong.evaluator.Know.hand_value`)."""


def ready_row(kn: Know) -> dict[str, Any] | None:
    """What the evaluator reads of the seat's ready 3n+1 hand (None: not ready, or no winning tile unseen): its own
    draws left, the unseen winning tiles self-drawn, the winning tiles counted (a discard win at a third) and the
    measured chance of a ready hand with those draws left."""
    me = kn.me
    c = list(me.counts)
    if sum(c) % 3 != 1 or me.key(c, me.n_melds, me.meld_suits, me.meld_hua)[0] != 0:
        return None
    qs, _, qr, _ = kn.tenpai(c, tuple(kn.own_melds))
    if qs <= 0 and qr <= 0:
        return None
    q_ron = 1 - (1 - qr) ** 3 if kn.ron_ok else 0.0
    return {"turns": kn.turns, "u": round(qs * kn.U), "tiles": (qs + q_ron / 3) * kn.U,
            "base": kn.chance(0, kn.turns)}


def collect(variant: str, hands: int, seed: str, first: int) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for i in range(first, first + hands):
        t = Table.new(variant, f"{seed}:{i}")
        rng = random.Random(i)
        got: list[dict[str, Any]] = []
        ev: list[Any] = []
        while t.hand.phase in ("play", "claim", "rob"):
            s = t.awaited()[0]
            la = t.legal_actions(s)
            a = la[0] if len(la) == 1 else choose(t, s, la, "normal", rng)
            ev = t.apply(a)
            if a.type != "discard" or t.hand.phase not in ("play", "claim", "rob"):
                continue
            r = ready_row(Know(t.view(s), s))
            if r is not None:
                got.append({"hand": i, "seat": s, **r})
        winners = {e.seat for e in ev if e.type == "win"}
        for r in got:
            r["won"] = r["seat"] in winners
        rows += got
    return rows


def predicted(r: dict[str, Any], power: float) -> float:
    return min(0.97, r["base"] * min(CAP, max(0.15, r["tiles"] / 6)) ** power)


def bucket(u: int) -> str:
    return "1-2" if u <= 2 else "3-4" if u <= 4 else "5-6" if u <= 6 else "7-8" if u <= 8 else "9+"


def report(rows: Sequence[dict[str, Any]], powers: Sequence[float]) -> dict[float, float]:
    print(f"{len(rows)} ready states of {len({(r['hand'], r['seat']) for r in rows})} seat-hands, "
          f"{sum(r['won'] for r in rows)} of the states in a hand the seat won")
    out = {}
    for p in powers:
        by: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0])
        loss = 0.0
        for r in rows:
            q = predicted(r, p)
            b = by[bucket(r["u"])]
            b[0] += 1
            b[1] += q
            b[2] += r["won"]
            q = min(0.99, max(0.01, q))
            loss -= math.log(q if r["won"] else 1 - q)
        out[p] = loss / len(rows)
        cells = "  ".join(f"{k}: {by[k][2] / by[k][1]:.2f} ({by[k][0]})" for k in sorted(by))
        tot = sum(r["won"] for r in rows) / sum(predicted(r, p) for r in rows)
        print(f"power {p:.2f}: log-loss {out[p]:.4f}; won / predicted by unseen winning tiles {cells}; all {tot:.2f}")
    return out


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="wuhu")
    ap.add_argument("--hands", type=int, default=1200)
    ap.add_argument("--seed", default="rw")
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--powers", default="0.3,0.4,0.5,0.6,0.8,1.0")
    ap.add_argument("--waits", choices=("on", "off"))
    args = ap.parse_args(argv)
    if args.waits is not None:
        from engine.strong import evaluator

        evaluator.WAIT_FACTORS.pop(args.variant, None)
        if args.waits == "on":
            evaluator.WAIT_FACTORS[args.variant] = (1.0, 1.0)
    rows = collect(args.variant, args.hands, args.seed, args.first)
    report(rows, [float(x) for x in args.powers.split(",")])


if __name__ == "__main__":
    main()
