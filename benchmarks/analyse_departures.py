"""Where the strong AI departs from the normal AI, and what each kind of departure gains (run by hand, niced):
``python -m benchmarks.analyse_departures --variant hefei [--deals N] [--seed S] [--oracle] [--detail]``.

Every deal of the duel (``Table.new(variant, "duel:{seed}:{deal}")``, one hand) is played once with four normal AIs
and then, like the duel, once per chair with the strong AI in it. In each strong game the first decision where the
strong AI's choice is not the normal AI's is filed by its kind (a pung or kong of the normal AI declined, a discard
that is safer by the strong AI's own price, with the seat's distance then, or one chosen for its shape or value, early
or late in the hand ...), and the game's result for that chair, less the same chair's result with four normal AIs
on the same wall, is that departure's gain (everything after the first departure included). Prints per kind: how
many, the mean gain with its 95% interval, and its share of the 子 per hand.

``--detail`` splits the discards chosen for shape or value by what each AI throws (an honour or a suited tile) and
whether the strong AI's discard leaves the hand nearer a legal win than the normal AI's, as far, or farther (the
normal AI's distance, :attr:`engine.strong.evaluator.Option.distance`).

``--oracle`` (a bound, not a player: it reads the other hands) plays instead a strong AI that, when its discard would
deal in, discards the best-priced tile that would not: what perfect defence, and nothing else, would add.
"""

from __future__ import annotations

import argparse
import collections
import math
import random
from typing import Any

from engine.ai import choose
from engine.errors import EngineError
from engine.strong import evaluate
from engine.table import Action, Table
from engine.tiles import HONOR, Hand
from engine.variants.base import Situation


def _deals_in(t: Table, seat: int, tile: int) -> bool:
    h = t.hand
    for o in range(4):
        if o == seat:
            continue
        concealed = tuple(k for k, n in enumerate(h.counts[o]) for _ in range(n))
        try:
            if t.V.can_win(Hand(concealed, tuple(h.melds[o]), tile), Situation(winner=o, discarder=seat),
                           t.match.rules):
                return True
        except EngineError:
            continue
    return False


def _kind(t: Table, seat: int, la: list[Action], a: Action, b: Action, detail: bool = False) -> str:
    """The kind of departure: the strong AI took ``a`` where the normal AI takes ``b``."""
    if a.type == "pass" and b.type in ("pung", "kong", "chi"):
        return f"{b.type} declined"
    if a.type != "discard" or b.type != "discard":
        return f"{a.type} for {b.type}"
    ev = evaluate(t.view(seat), seat, la)
    oa, ob = ev.of(a), ev.of(b)
    assert oa is not None and ob is not None
    late = "late" if t.hand.live < 24 else "early"
    if oa.deal_in < ob.deal_in - 0.005:
        return f"safer discard, {late}, distance {min(ob.distance, 2)}"
    if oa.plan:
        return f"discard for a plan ({oa.plan})"
    if not detail or a.tile is None or b.tile is None:
        return f"discard for shape or value, {late}"
    what = f"{'honour' if a.tile >= HONOR else 'suited'} for {'honour' if b.tile >= HONOR else 'suited'}"
    near = "nearer" if oa.distance < ob.distance else "farther" if oa.distance > ob.distance else "as near"
    return f"discard for shape or value, {late}, {what}, {near}"


def _play(variant: str, deal: int, seed: str, chairs: list[str], watch: int | None, oracle: bool,
          detail: bool = False) -> tuple[list[int], str | None]:
    t = Table.new(variant, f"duel:{seed}:{deal}")
    rng = random.Random(f"departures|{variant}|{seed}|{deal}")
    first: str | None = None
    ev: list[Any] = []
    while t.hand.phase not in ("ended", "over"):
        s = t.awaited()[0]
        la = t.legal_actions(s)
        a = la[0] if len(la) == 1 else choose(t, s, la, chairs[s], rng)
        if s == watch and len(la) > 1:
            if oracle and a.type == "discard" and a.tile is not None and _deals_in(t, s, a.tile):
                safe = [o for o in evaluate(t.view(s), s, la).options
                        if o.action.type == "discard" and o.action.tile is not None
                        and not _deals_in(t, s, o.action.tile)]
                if safe:
                    a = max(safe, key=lambda o: o.ev).action
            if first is None:
                b = choose(t, s, la, "normal", rng)
                if a != b:
                    first = _kind(t, s, la, a, b, detail)
        ev = t.apply(a)
    end = next(e for e in ev if e.type == "hand_end")
    return [int(x) for x in end.data["payments"]], first


def analyse(variant: str, deals: int, seed: str, oracle: bool, detail: bool = False) -> dict[str, Any]:
    gains: dict[str, list[int]] = collections.defaultdict(list)
    for deal in range(deals):
        base, _ = _play(variant, deal, seed, ["normal"] * 4, None, False)
        for r in range(4):
            chairs = ["normal"] * 4
            chairs[r] = "strong"
            pay, first = _play(variant, deal, seed, chairs, r, oracle, detail)
            gains[first or "no departure"].append(pay[r] - base[r])
    hands = 4 * deals
    out = {}
    for k, v in sorted(gains.items(), key=lambda x: -len(x[1])):
        m = sum(v) / len(v)
        sd = math.sqrt(sum((x - m) ** 2 for x in v) / (len(v) - 1)) if len(v) > 1 else 0.0
        out[k] = {"n": len(v), "mean": round(m, 2), "half": round(1.96 * sd / math.sqrt(len(v)), 2),
                  "per_hand": round(sum(v) / hands, 3)}
    total = sum(sum(v) for v in gains.values()) / hands
    return {"variant": variant, "deals": deals, "oracle": oracle, "per_hand": round(total, 3), "kinds": out}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="hefei")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", default="0")
    ap.add_argument("--oracle", action="store_true")
    ap.add_argument("--detail", action="store_true")
    a = ap.parse_args()
    out = analyse(a.variant, a.deals, a.seed, a.oracle, a.detail)
    print(f"{out['variant']}: {out['deals']} deals, strong - normal {out['per_hand']:+.3f} 子/hand"
          + (" (with perfect defence)" if out["oracle"] else ""))
    for k, v in out["kinds"].items():
        print(f"  {k:70s} n={v['n']:5d}  gain {v['mean']:+7.2f} ± {v['half']:5.2f}  {v['per_hand']:+.3f}/hand")


if __name__ == "__main__":
    main()
