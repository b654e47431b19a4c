"""Where the strong AI deals in, and whether its pushes pay as priced (run by hand, niced):
``python -m benchmarks.analyse_pushes --variant hefei [--deals N] [--first F] [--forks] [--rows FILE]``.

Plays the duel's deals (``Table.new(variant, "duel:0:{deal}")``, the strong AI in each chair in turn against three
normal AIs, as the duel plays them: the same games). At every discard of the strong seat it keeps what the
evaluator priced: the option taken (its chance to deal in, its cost, ev, the hand it leaves and its distance) and
the safest option (the lowest chance to deal in). A discard is a **push** when its chance is above 1.5 times the
safest one's and at least 0.3 points above it.

Without ``--forks`` it files every deal-in of the strong seat: (a) the tile was priced as the safest or near it
(the model did not see the danger), (b) a push (a safer tile was priced), (c) no option was safe (every discard
would have dealt in, read from the other hands: a measure, not a player); with the seat's distance, the wall left,
whether the winner was concealed, and the model's chance on the strong seat's chosen discards against what
happened.

With ``--forks`` (a measure that reads the wall: it plays the hand on) it plays, at every push, the rest of the hand
from the same table (the same wall, the same players) once more with the safest option instead, and at every
discard near the safest whose hand is priced at least 0.2 子 below a dearer tile's, once more with that tile: the
evaluator's ev gap (the option taken less the other) against the realized one (the 子 the hand paid the strong seat
each way), by the distance taken, the wall left, the gaps.
"""

from __future__ import annotations

import argparse
import collections
import copy
import json
import math
import random
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.analyse_departures import _deals_in
from engine.ai import choose
from engine.ai_common import forced, plain_actions
from engine.strong import Evaluation, Option, evaluate
from engine.table import Action, Table


def _strong(t: Table, s: int, la: Sequence[Action]) -> tuple[Action, Evaluation | None]:
    """The strong AI's action (as ``engine.strong.choose`` takes it) and its evaluation (None when forced)."""
    acts = plain_actions(la)
    a = forced(acts)
    if a is not None:
        return a, None
    e = evaluate(t.view(s), s, acts)
    return e.best.action, e


def _finish(t: Table, r: int, chairs: Sequence[str], rng: random.Random) -> list[Any]:
    ev: list[Any] = []
    while t.hand.phase not in ("ended", "over"):
        s = t.awaited()[0]
        la = t.legal_actions(s)
        a = la[0] if len(la) == 1 else (_strong(t, s, la)[0] if s == r else choose(t, s, la, chairs[s], rng))
        ev = t.apply(a)
    return ev


def _paid(ev: list[Any], r: int) -> int:
    return int(next(x for x in ev if x.type == "hand_end").data["payments"][r])


def _opt(o: Option) -> dict[str, Any]:
    return {"tile": o.action.tile, "p": round(o.deal_in, 5), "ev": round(o.ev, 3), "hv": round(o.win * o.value, 3),
            "d": o.distance, "cost": round(o.cost, 2)}


def _is_push(p: float, p_min: float) -> bool:
    return p > max(1.5 * p_min, p_min + 0.003)


def play(variant: str, first: int, deals: int, forks: bool) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for deal in range(first, first + deals):
        for r in range(4):
            chairs = ["normal"] * 4
            chairs[r] = "strong"
            rng = random.Random(f"duel|{variant}|0|{deal}|{r}")
            t = Table.new(variant, f"duel:0:{deal}")
            ev: list[Any] = []
            game: list[dict[str, Any]] = []
            latest: dict[str, Any] | None = None  # the row of the strong seat's last discard (None: no row)
            while t.hand.phase not in ("ended", "over"):
                s = t.awaited()[0]
                la = t.legal_actions(s)
                row: dict[str, Any] | None = None
                if len(la) == 1:
                    a = la[0]
                elif s == r:
                    a, e = _strong(t, s, la)
                    if e is not None and a.type == "discard" and a.tile is not None:
                        ds = [o for o in e.options if o.action.type == "discard"]
                        ch = e.of(a)
                        assert ch is not None
                        safest = min(ds, key=lambda o: (o.deal_in, -o.ev))
                        v = t.view(s)
                        row = {"deal": deal, "r": r, "wall": int(v["wall_count"]), "ch": _opt(ch),
                               "safe": _opt(safest), "normal": ch.margin > 0, "dealt": False,
                               "winner_concealed": None,
                               "concealed": [all(x["kind"] == "concealed_kong" for x in v["melds"][o])
                                             for o in range(4)]}
                        if not forks and _deals_in(t, s, a.tile):
                            row["any_safe"] = any(not _deals_in(t, s, o.action.tile) for o in ds
                                                  if o.action.tile is not None)
                        if forks:
                            alt: Option | None = None
                            if _is_push(ch.deal_in, safest.deal_in):
                                alt, row["kind"] = safest, "fold"
                            else:
                                best = max(ds, key=lambda o: o.win * o.value)
                                if best.win * best.value > ch.win * ch.value + 0.2 and _is_push(best.deal_in,
                                                                                                  ch.deal_in):
                                    alt, row["kind"] = best, "push"
                            if alt is not None:
                                u = copy.deepcopy(t)
                                u.apply(alt.action)
                                row["alt"] = _opt(alt)
                                row["zf"] = _paid(_finish(u, r, chairs, random.Random(0)), r)
                            else:
                                row = None
                else:
                    a = choose(t, s, la, chairs[s], rng)
                ev = t.apply(a)
                if s == r and a.type == "discard":
                    latest = row
                if row is not None:
                    game.append(row)
                for x in ev:  # a win on the strong seat's last discard
                    if x.type == "win" and x.data.get("from") == r and x.seat != r and latest is not None:
                        latest["dealt"] = True
                        latest["winner_concealed"] = latest["concealed"][x.seat]
            zi = _paid(ev, r)
            for row in game:
                row["zi"] = zi
            rows.extend(game)
    return rows


def _wall(w: int) -> str:
    return "late (<24)" if w < 24 else ("24-39" if w < 40 else ("40-55" if w < 56 else "early (56+)"))


def dealins(rows: list[dict[str, Any]], games: int) -> None:
    di = [r for r in rows if r["dealt"]]
    print(f"{games} games, {len(rows)} discards of the strong seat, {len(di)} deal-ins"
          f" ({sum(r['zi'] for r in di) / games:+.2f} 子 a game)")

    def kind(r: dict[str, Any]) -> str:
        if not r.get("any_safe", True):
            return "(c) no safe option"
        return "(b) a push" if _is_push(r["ch"]["p"], r["safe"]["p"]) else "(a) priced (near) safest"

    groups: list[tuple[str, Callable[[dict[str, Any]], Any]]] = [
        ("kind", kind), ("kind x distance", lambda r: f"{kind(r)[:3]} d{min(r['ch']['d'], 2)}"),
        ("the normal AI's choice or its own", lambda r: f"{kind(r)[:3]} {'normal' if r['normal'] else 'own'}"),
        ("wall", lambda r: _wall(r["wall"])),
        ("winner", lambda r: "concealed" if r["winner_concealed"] else "open")]
    for name, f in groups:
        t: dict[Any, list[int]] = collections.defaultdict(lambda: [0, 0])
        for r in di:
            t[f(r)][0] += 1
            t[f(r)][1] += r["zi"]
        print(f" deal-ins by {name}:")
        for k, (n, z) in sorted(t.items(), key=lambda x: str(x[0])):
            print(f"   {str(k):30s} {n:5d}  {z:7d} 子  ({z / n:.1f} each)")
    print(" the chance to deal in of the chosen discards, predicted / happened:")
    for name, f in (("distance", lambda r: min(r["ch"]["d"], 3)), ("wall", lambda r: _wall(r["wall"])),
                    ("push", lambda r: "push" if _is_push(r["ch"]["p"], r["safe"]["p"]) else "near safest")):
        tt: dict[Any, list[float]] = collections.defaultdict(lambda: [0, 0.0, 0])
        for r in rows:
            x = tt[f(r)]
            x[0] += 1
            x[1] += r["ch"]["p"]
            x[2] += r["dealt"]
        for k, (n, p, g) in sorted(tt.items(), key=lambda x: str(x[0])):
            print(f"   {name} {str(k):14s} {int(n):6d} discards  {p:7.1f} predicted  {int(g):5d} happened"
                  f"  {g / max(p, 1e-9):.2f}x")


def fork_table(rows: list[dict[str, Any]]) -> None:
    for kind, title in (("fold", "pushes, played on with the safest option instead"),
                        ("push", "discards near the safest, played on with the dearer tile of the better hand")):
        sel = [r for r in rows if r.get("kind") == kind]
        print(f" {title}: n, ev gap (taken - other), realized 子 gap ± 95%, hands that differ")
        for name, f in (("distance taken", lambda r: min(r["ch"]["d"], 3)),
                        ("distance x wall", lambda r: (min(r["ch"]["d"], 3), _wall(r["wall"])))):
            t: dict[Any, list[dict[str, Any]]] = collections.defaultdict(list)
            for r in sel:
                t[f(r)].append(r)
            for k, v in sorted(t.items(), key=lambda x: str(x[0])):
                n = len(v)
                pred = sum(x["ch"]["ev"] - x["alt"]["ev"] for x in v) / n
                real = [x["zi"] - x["zf"] for x in v]
                m = sum(real) / n
                sd = math.sqrt(sum((y - m) ** 2 for y in real) / (n - 1)) if n > 1 else 0.0
                print(f"   {name} {str(k):22s} {n:6d}  {pred:+6.2f}  {m:+6.2f} ± {1.96 * sd / math.sqrt(n):5.2f}"
                      f"  {sum(1 for y in real if y):5d}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="hefei")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--forks", action="store_true")
    ap.add_argument("--rows", default=None, help="write the rows (one JSON object a line) to this file")
    ap.add_argument("--load", action="store_true", help="read the rows from --rows instead of playing")
    a = ap.parse_args()
    if a.load:
        with open(a.rows) as fh:
            rows = [json.loads(line) for line in fh]
        a.deals = len({(r["deal"], r["r"]) for r in rows}) // 4 if not a.forks else a.deals
    else:
        rows = play(a.variant, a.first, a.deals, a.forks)
    if a.rows and not a.load:
        with open(a.rows, "w") as fh:
            for r in rows:
                fh.write(json.dumps(r) + "\n")
    if a.forks:
        fork_table(rows)
    else:
        dealins(rows, 4 * a.deals)


if __name__ == "__main__":
    main()
