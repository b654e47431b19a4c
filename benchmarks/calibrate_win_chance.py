"""The strong AI's chance to win and value of a win, against what happened when it plays (run by hand, niced; about a
minute per 1,000 hands of Hefei or Wuhu).

``python -m benchmarks.calibrate_win_chance [--variant hefei] [--hands N] [--seed wc] [--first 0] [--rows FILE [--load]]
[--write]``

One strong AI and three normal AIs play N one-hand deals (``Table.new(variant, "{seed}:{i}")``, the strong AI in
chair ``i % 4``; not the duel's ``duel:0:N`` deals). At every decision of the strong seat with a real choice (not a
win, not a forced action), its own evaluation (:func:`engine.strong.evaluator.evaluate`, the numbers it chose by)
gives, for the option it took and for the runner-up (the next by ev and margin): the predicted chance to win
(``Option.win``), the value of a win (``Option.value``), the ev, the distance, the plan and the deal-in chance of that
discard; with the seat's own draws left (``Know.turns``), whether the hand is ready, whether it is open (melds other
than concealed kongs, after the action). Then what happened: whether the seat won the hand and the 子 it won, the 子 it
lost by dealing in and by the others' self-draws (the hand's ``payments``: Wuhu's 交 included, as the duel counts).

Per cell: decisions (and hands: the decisions of a hand share its outcome), the predicted wins (the sum of the chances),
the wins that happened and their ratio; over the decisions whose hand was won, the value predicted and the 子 won and
their ratio; the predicted gain (chance x value) and the 子 won and their ratio. Cells: the chance's band, distance x
own draws left, ready or not, the plan, open or concealed, the action's type. The chosen option's estimate is biased
up (the winner's curse: it is the largest of noisy estimates).

``--write`` rewrites ``engine/strong/calibration_win.py`` for the variant (the others' figures stay): per band of own
draws left (0-2, 3-5, 6-8, 9-11, 12+: :func:`turns_band`) the factor on the chance of an option that leaves the hand
ready (plain plan) that makes it match the wins: the factor the rows were priced with times (wins + 2) / (predicted +
2), read by the evaluator (:data:`engine.strong.evaluator.READY_WIN`). ``--factors`` prints the same ratio for every
cell of distance (0, 1, 2, 3+) and band of draws left (not written: the evaluator reads only the ready row).
"""

from __future__ import annotations

import argparse
import json
import random
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from engine.ai import choose
from engine.ai_common import forced, plain_actions
from engine.strong.evaluator import Know, Option, evaluate
from engine.table import Table

BANDS = (0.0, 0.02, 0.05, 0.10, 0.20, 0.35, 0.50, 0.70)
BAND_NAMES = ("0-2%", "2-5%", "5-10%", "10-20%", "20-35%", "35-50%", "50-70%", "70%+")
TURNS = (0, 3, 6, 9, 12)
"""The own draws left, in bands: 0-2, 3-5, 6-8, 9-11, 12+ (:func:`turns_band`)."""


def band(p: float) -> int:
    return max(i for i, b in enumerate(BANDS) if p >= b)


def turns_band(t: int) -> int:
    return max(i for i, b in enumerate(TURNS) if t >= b)


def _opt(o: Option) -> dict[str, Any]:
    return {"type": o.action.type, "win": o.win, "value": o.value, "ev": o.ev, "deal_in": o.deal_in,
            "cost": o.cost, "plan": o.plan, "d": o.distance, "margin": o.margin}


def collect(variant: str, hands: int, seed: str, first: int = 0) -> list[dict[str, Any]]:
    """One row per decision of the strong seat (see the module docstring)."""
    rows: list[dict[str, Any]] = []
    for i in range(first, first + hands):
        t = Table.new(variant, f"{seed}:{i}")
        me = i % 4
        rng = random.Random(f"wc|{variant}|{i}")
        mine: list[dict[str, Any]] = []
        ev: list[Any] = []
        while t.hand.phase not in ("ended", "over"):
            s = t.awaited()[0]
            la = t.legal_actions(s)
            if len(la) == 1:
                a = la[0]
            elif s != me:
                a = choose(t, s, la, "normal", rng)
            else:
                acts = plain_actions(la)
                f = forced(acts)
                if f is not None:
                    a = f
                else:
                    v = t.view(s)
                    e = evaluate(v, s, acts)
                    best = e.best
                    a = best.action
                    if a.type not in ("win", "next_hand"):
                        rest = [o for o in e.options if o.action != a]
                        second = max(rest, key=lambda o: o.ev + o.margin) if rest else None
                        kn = Know(v, s)
                        melds = v["melds"][s]
                        is_open = (any(m["kind"] != "concealed_kong" for m in melds)
                                   or a.type in ("pung", "chi") or (a.type == "kong" and sum(kn.me.counts) % 3 == 1))
                        mine.append({"hand": i, "seat": s, "turns": kn.turns + (1 if a.type == "kong" else 0),
                                     "wall": int(v["wall_count"]), "open": is_open, "n": len(e.options),
                                     "chosen": _opt(best), "second": _opt(second) if second else None})
            ev = t.apply(a)
        end = next(x for x in ev if x.type == "hand_end")
        pay = [int(x) for x in end.data["payments"]]
        wins = [x for x in ev if x.type == "win"]
        won = any(w.seat == me for w in wins)
        dealt_in = any(w.data["from"] == me and w.seat != me for w in wins)
        others_self = any(w.seat != me and (w.data["from"] is None or w.data["from"] == w.seat) for w in wins)
        out = {"won": won, "zi": pay[me], "won_zi": pay[me] if won else 0,
               "lost_deal_in": -pay[me] if dealt_in and not won else 0,
               "lost_self": -pay[me] if others_self and not won and not dealt_in else 0,
               "drawn": bool(end.data["draw"])}
        for r in mine:
            r.update(out)
        rows += mine
    return rows


def _table(title: str, rows: Iterable[dict[str, Any]], key: Callable[[dict[str, Any]], Any],
           order: Sequence[Any] | None = None, opt: str = "chosen") -> None:
    cells: dict[Any, list[dict[str, Any]]] = defaultdict(list)
    for r in rows:
        if r.get(opt) is None:
            continue
        cells[key(r)].append(r)
    print(f"\n{title} ({opt})")
    print(f"{'cell':<22}{'dec':>7}{'hands':>7}{'pred win':>10}{'won':>8}{'o/p':>7}{'val pred':>10}{'val won':>9}"
          f"{'o/p':>7}{'gain pred':>11}{'gain':>9}{'o/p':>7}{'lost':>8}")
    keys = list(order) if order is not None else sorted(cells, key=str)
    for k in keys:
        rs = cells.get(k)
        if not rs:
            continue
        n = len(rs)
        h = len({r["hand"] for r in rs})
        pw = sum(r[opt]["win"] for r in rs)
        w = sum(1 for r in rs if r["won"])
        wr = [r for r in rs if r["won"]]
        vp = sum(r[opt]["value"] for r in wr) / len(wr) if wr else 0.0
        vw = sum(r["won_zi"] for r in wr) / len(wr) if wr else 0.0
        gp = sum(r[opt]["win"] * r[opt]["value"] for r in rs)
        g = sum(r["won_zi"] for r in rs)
        lost = sum(r["lost_deal_in"] + r["lost_self"] for r in rs) / n
        print(f"{str(k):<22}{n:>7}{h:>7}{pw:>10.1f}{w:>8}{w / pw if pw else 0:>7.2f}{vp:>10.2f}{vw:>9.2f}"
              f"{vw / vp if vp else 0:>7.2f}{gp:>11.0f}{g:>9}{g / gp if gp else 0:>7.2f}{lost:>8.2f}")


def dcell(r: dict[str, Any], opt: str = "chosen") -> str:
    d = r[opt]["d"]
    return f"d{min(max(d, 0), 3)}{'+' if d >= 3 else ''} t{TURNS[turns_band(r['turns'])]}+"


def report(rows: list[dict[str, Any]]) -> None:
    hands = len({r["hand"] for r in rows})
    won = len({r["hand"] for r in rows if r["won"]})
    print(f"{len(rows)} decisions of the strong seat in {hands} hands; it won {won} of them")
    for opt in ("chosen", "second"):
        _table("by the predicted chance", rows, lambda r, o=opt: BAND_NAMES[band(r[o]["win"])], BAND_NAMES, opt)
    _table("by distance x own draws left", rows, dcell)
    _table("ready or not", rows, lambda r: "ready" if r["chosen"]["d"] == 0 else "not ready")
    _table("by plan", rows, lambda r: r["chosen"]["plan"] or "plain")
    _table("open or concealed", rows, lambda r: "open" if r["open"] else "concealed")
    _table("by action", rows, lambda r: r["chosen"]["type"])
    _table("by plan x ready", rows, lambda r: f"{r['chosen']['plan'] or 'plain'} {'ready' if r['chosen']['d'] == 0 else 'not'}")
    _table("open x ready", rows, lambda r: f"{'open' if r['open'] else 'conc'} {'ready' if r['chosen']['d'] == 0 else 'not'}")
    # the runner-up against the chosen: how often it was predicted a better chance, and by how much
    pairs = [r for r in rows if r["second"] is not None]
    hi = [r for r in pairs if r["second"]["win"] > r["chosen"]["win"] + 1e-9]
    print(f"\nrunner-up with a higher predicted chance than the chosen: {len(hi)} of {len(pairs)} decisions")


def ready_factors(rows: list[dict[str, Any]], old: Sequence[float] | None) -> list[float]:
    """Per band of own draws left: the factor on a ready hand's chance (the chosen option, plain plan) that makes it
    match the wins: the factor the rows were priced with times (wins + 2) / (predicted + 2)."""
    cells = [[0.0, 0.0] for _ in TURNS]
    for r in rows:
        c = r["chosen"]
        if c["d"] != 0 or c["plan"]:
            continue
        b = turns_band(r["turns"])
        cells[b][0] += c["win"]
        cells[b][1] += 1 if r["won"] else 0
    base = list(old) if old else [1.0] * len(TURNS)
    return [round(base[i] * (w + 2) / (p + 2), 3) for i, (p, w) in enumerate(cells)]


def write(variant: str, rows: list[dict[str, Any]], hands: int) -> str:
    """Rewrite ``engine/strong/calibration_win.py`` with the variant's ready factors (the others' stay)."""
    import pathlib

    from engine.strong import calibration_win as cw

    got = ready_factors(rows, cw.READY_FACTOR.get(variant))
    hands_by = {**cw.HANDS, variant: hands}
    ready = {**cw.READY_FACTOR, variant: got}
    path = pathlib.Path(__file__).resolve().parent.parent / "engine" / "strong" / "calibration_win.py"
    text = path.read_text()
    head = text[: text.index("HANDS: dict")]
    body = (f"HANDS: dict[str, int] = {{{', '.join(f'{k!r}: {v}' for k, v in sorted(hands_by.items()))}}}\n"
            + text[text.index('"""variant -> the one-hand'): text.index("READY_FACTOR: dict")]
            + f"READY_FACTOR: dict[str, list[float]] = {{{', '.join(f'{k!r}: {v}' for k, v in sorted(ready.items()))}}}\n"
            + text[text.index('"""variant -> [own draws'):])
    path.write_text(head + body)
    return f"{variant}: ready {got}"


def factors(rows: list[dict[str, Any]]) -> dict[str, float]:
    """Per cell of distance (0..3, 3 = 3 or more) and own draws left: (wins + 2) / (predicted + 2), plain plan."""
    cells: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0])
    for r in rows:
        c = r["chosen"]
        if c["plan"]:
            continue
        k = f"{min(max(c['d'], 0), 3)}:{turns_band(r['turns'])}"
        cells[k][0] += c["win"]
        cells[k][1] += 1 if r["won"] else 0
    return {k: round((w + 2) / (p + 2), 3) for k, (p, w) in sorted(cells.items())}


def main(argv: Sequence[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="hefei")
    ap.add_argument("--hands", type=int, default=1000)
    ap.add_argument("--seed", default="wc")
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--rows", help="save the rows here (JSON lines), or read them with --load")
    ap.add_argument("--load", action="store_true")
    ap.add_argument("--factors", action="store_true", help="print the factor table by distance x draws left")
    ap.add_argument("--write", action="store_true", help="rewrite engine/strong/calibration_win.py (this variant)")
    args = ap.parse_args(argv)
    if args.load:
        with open(args.rows) as f:
            rows = [json.loads(x) for x in f]
    else:
        rows = collect(args.variant, args.hands, args.seed, args.first)
        if args.rows:
            with open(args.rows, "w") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
    report(rows)
    if args.factors:
        print(json.dumps(factors(rows), indent=1))
    if args.write:
        print(write(args.variant, rows, len({r["hand"] for r in rows})))


if __name__ == "__main__":
    main()
