"""Which winning tiles come: per class of a kind (:func:`engine.strong.waits.wait_class`), the copies the other seats
discard and the seat itself draws, against the flat count that prices a ready hand's waits today (run by hand,
niced; about two minutes per 1,000 hands).

``python -m benchmarks.calibrate_waits [--variant hefei] [--hands N] [--seed wait] [--first 0] [--check N]
[--horizon window|rest] [--write]``

Four normal AIs play one-hand deals (``Table.new(variant, "{seed}:{i}")``). After every discard, from the
discarder's view only (``Table.view(seat)``), each kind with copies it has not seen (``u`` of them, ``U`` in all:
:func:`engine.strong.evaluator.still_to_come`) is filed by its class; then, over the horizon (``window``: until the
other seats have discarded 12 more tiles; ``rest``: the rest of the hand), what happened: the copies of it the other
seats discarded and the copies the seat drew, against the flat model's ``u / U`` of each of their discards and of
each of its draws. Per class and for each outcome (a discard, the seat's own draw) the factor is (happened + 2) /
(predicted + 2), scaled so that their mean over the flat model's predicted copies stays 1 (the level of a ready hand's chance is
measured elsewhere). The first ``--hands`` deals fit it; ``--check`` more deals after them check it: the Poisson
log-likelihood per copy that came, over the flat model's, and predicted against happened by the factor's band, over all
the kinds and over the waits of the seat's ready hands alone. ``--write`` rewrites the variant's table in
``engine/strong/calibration_waits.py`` (the other variant's stays).
"""

from __future__ import annotations

import argparse
import collections
import importlib
import math
import pprint
import random
from collections.abc import Sequence
from pathlib import Path

from engine.ai import choose
from engine.ai_common import SeatReader
from engine.analysis import winning_kinds
from engine.strong.evaluator import still_to_come
from engine.strong.waits import wait_classes
from engine.table import Table
from engine.tiles import NUM_KINDS, tile_name

WINDOW = 12
"""The ``window`` horizon: the other seats' next discards."""
PRIOR = 2.0
NAME = {tile_name(k): k for k in range(NUM_KINDS)}
Cells = dict[str, list[float]]  # class -> [discarded, predicted, drawn, predicted]


def play(variant: str, seed: str, i: int, horizon: str) -> list[tuple[str, bool, float, float, float, float]]:
    """One hand's rows: (class, a wait of the seat's ready hand, discarded, predicted, drawn, predicted)."""
    t = Table.new(variant, f"{seed}:{i}")
    full = sum(t.V.tile_counts(t.rules)) - 53
    rng = random.Random(i)
    ev: list[tuple[str, int, int]] = []  # (draw / discard, seat, kind)
    states: list[tuple[int, int, list[int], list[str], frozenset[int]]] = []
    while t.hand.phase in ("play", "claim", "rob"):
        s = t.awaited()[0]
        la = t.legal_actions(s)
        a = la[0] if len(la) == 1 else choose(t, s, la, "normal", rng)
        for e in t.apply(a):
            if e.type in ("draw", "discard") and e.seat is not None and "tile" in e.data:
                ev.append((e.type, e.seat, NAME[e.data["tile"]]))
        if a.type != "discard" or t.hand.phase not in ("play", "claim", "rob"):
            continue
        v = t.view(s)
        me = SeatReader(v, s)
        u = still_to_come(v, me.remaining)
        waits: frozenset[int] = frozenset()
        c = list(me.counts)
        if me.key(c, me.n_melds, me.meld_suits, me.meld_hua)[0] == 0:
            sp = bool(t.V.seven_pairs and not me.n_melds)
            waits = frozenset(winning_kinds(c, seven_pairs=sp))
        states.append((s, len(ev), u, wait_classes(v, s, full), waits))
    rows = []
    for s, at, u, cls, waits in states:
        tot = sum(u)
        if not tot:
            continue
        disc = [0] * NUM_KINDS
        drew = [0] * NUM_KINDS
        n_disc = n_draw = 0
        for typ, seat, k in ev[at:]:
            if typ == "discard" and seat != s:
                if horizon == "window" and n_disc >= WINDOW:
                    break
                disc[k] += 1
                n_disc += 1
            elif typ == "draw" and seat == s:
                drew[k] += 1
                n_draw += 1
        for k in range(NUM_KINDS):
            if u[k]:
                rows.append((cls[k], k in waits, disc[k], u[k] * n_disc / tot, drew[k], u[k] * n_draw / tot))
    return rows


def collect(variant: str, first: int, hands: int, seed: str, horizon: str) -> tuple[Cells, Cells]:
    """Per class, summed over every kind and over the waits of ready hands alone."""
    every: Cells = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    waits: Cells = collections.defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for i in range(first, first + hands):
        for cls, w, xd, pd, xs, ps in play(variant, seed, i, horizon):
            for cells in (every, waits) if w else (every,):
                c = cells[cls]
                c[0] += xd
                c[1] += pd
                c[2] += xs
                c[3] += ps
    return every, waits


def fit(cells: Cells) -> tuple[dict[str, float], dict[str, float]]:
    """(on a discard, by the seat's own draw): class -> factor, normalised to a mean of 1 over the predicted copies."""
    out = []
    for x, p in ((0, 1), (2, 3)):
        f = {k: (c[x] + PRIOR) / (c[p] + PRIOR) for k, c in cells.items()}
        norm = sum(c[p] * f[k] for k, c in cells.items()) / max(1e-9, sum(c[p] for c in cells.values()))
        out.append({k: round(v / norm, 3) for k, v in sorted(f.items())})
    return out[0], out[1]


def gain(cells: Cells, fac: dict[str, float], x: int, p: int) -> tuple[float, float, float]:
    """(happened, predicted flat, Poisson log-likelihood per happened copy over the flat model)."""
    hx = sum(c[x] for c in cells.values())
    hp = sum(c[p] for c in cells.values())
    ll = sum(c[x] * math.log(fac.get(k, 1.0)) - c[p] * (fac.get(k, 1.0) - 1) for k, c in cells.items())
    return hx, hp, ll / max(1.0, hx)


def bands(cells: Cells, fac: dict[str, float], x: int, p: int) -> str:
    by: dict[str, list[float]] = collections.defaultdict(lambda: [0.0, 0.0, 0.0])
    for k, c in cells.items():
        f = fac.get(k, 1.0)
        b = "<0.7" if f < 0.7 else "0.7-0.9" if f < 0.9 else "0.9-1.1" if f < 1.1 else "1.1-1.4" if f < 1.4 else "1.4+"
        by[b][0] += c[x]
        by[b][1] += c[p]
        by[b][2] += c[p] * f
    order = ("<0.7", "0.7-0.9", "0.9-1.1", "1.1-1.4", "1.4+")
    return "  ".join(f"{b}: happened {by[b][0]:.0f} flat {by[b][1]:.0f} factored {by[b][2]:.0f}" for b in order if b in by)


def show(title: str, cells: Cells, ron: dict[str, float], own: dict[str, float]) -> None:
    for name, fac, x, p in (("discarded by the others", ron, 0, 1), ("drawn by the seat", own, 2, 3)):
        hx, hp, ll = gain(cells, fac, x, p)
        print(f"  {title}, {name}: happened {hx:.0f}, flat {hp:.0f}; log-likelihood over flat per copy {ll:+.4f}")
        print(f"    by factor band: {bands(cells, fac, x, p)}")


def write(variant: str, hands: int, horizon: str, ron: dict[str, float], own: dict[str, float]) -> None:
    mod = importlib.import_module("engine.strong.calibration_waits")
    r_all: dict[str, dict[str, float]] = dict(mod.RON_FACTOR)
    s_all: dict[str, dict[str, float]] = dict(mod.SELF_FACTOR)
    h_all: dict[str, int] = dict(mod.HANDS)
    r_all[variant], s_all[variant], h_all[variant] = ron, own, hands
    path = Path(__file__).resolve().parent.parent / "engine" / "strong" / "calibration_waits.py"
    path.write_text(
        '"""Which winning tiles come, measured per class of a kind (:func:`engine.strong.waits.wait_class`; generated\n'
        f'by ``python -m benchmarks.calibrate_waits --variant VARIANT --horizon {horizon} --write``; do not edit by hand)."""\n\n'
        "from __future__ import annotations\n\n"
        f"HANDS: dict[str, int] = {h_all!r}\n"
        '"""Per variant: one-hand deals of four normal AIs its figures come from."""\n\n'
        f"RON_FACTOR: dict[str, dict[str, float]] = {pprint.pformat(r_all, width=116, compact=True)}\n"
        '"""Per variant: class -> the copies the other seats discarded over the flat count (mean 1 over the copies the flat count predicts)."""\n\n'
        f"SELF_FACTOR: dict[str, dict[str, float]] = {pprint.pformat(s_all, width=116, compact=True)}\n"
        '"""Per variant: class -> the copies the seat drew over the flat count (mean 1 over the copies the flat count predicts)."""\n')
    print(f"wrote {path}")


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="hefei")
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--check", type=int, default=0)
    ap.add_argument("--seed", default="wait")
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--horizon", choices=("window", "rest"), default="window")
    ap.add_argument("--write", action="store_true")
    args = ap.parse_args(argv)
    every, waits = collect(args.variant, args.first, args.hands, args.seed, args.horizon)
    ron, own = fit(every)
    print(f"{args.variant}, {args.hands} hands from {args.first}, horizon {args.horizon}")
    print("class: discarded / flat -> factor; drawn / flat -> factor")
    for k in sorted(every):
        c = every[k]
        print(f"  {k:22s} {c[0]:7.0f} / {c[1]:8.1f} -> {ron[k]:.3f}   {c[2]:6.0f} / {c[3]:7.1f} -> {own[k]:.3f}")
    show("fitted, every kind", every, ron, own)
    show("fitted, the waits of ready hands", waits, ron, own)
    if args.check:
        e2, w2 = collect(args.variant, args.first + args.hands, args.check, args.seed, args.horizon)
        show(f"held out ({args.check} hands), every kind", e2, ron, own)
        show("held out, the waits of ready hands", w2, ron, own)
    if args.write:
        write(args.variant, args.hands, args.horizon, ron, own)


if __name__ == "__main__":
    main()
