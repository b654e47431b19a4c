"""Where a difficulty wins and loses its 子, run by hand (niced): ``python -m benchmarks.analyse_losses
--variant wuhu [--hands N] [--seat-ai strong] [--base normal] [--seed S] [--json]``.

Plays the duel's deals (``Table.new(variant, "duel:{seed}:{deal}")``, default rules, one hand each) with
``--base`` in every chair, or ``--seat-ai`` in chair 0..3 in turn (one rotation per deal, like the duel but cheaper),
and splits the measured chairs' results into

- **wins**: self-drawn / on a discard, count and 子 (and how many were 交 hands);
- **deal-ins**: count and 子 lost, and what the winner showed when the tile went out (claimed melds, an alarm, a
  one-suit meld line, its river's length), and how far the discarder itself was from a legal win then (the normal
  AI's distance) with how many own draws left: a far hand late that still deals in is a hand that should have folded;
- **others' self-draws** and **others' deal-ins** (a hand won by someone else on a third player's tile: in Wuhu
  every win is paid by all three);
- drawn hands.

Prints one line per bucket (share of the total loss) and, with ``--json``, one object on the last line.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
from typing import Any

from engine.ai import choose
from engine.ai_common import SeatReader
from engine.table import Table
from engine.tiles import HONOR


def analyse(variant: str, hands: int, base: str, seat_ai: str | None, seed: int | str) -> dict[str, Any]:
    b: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
    dealin_by: dict[str, list[float]] = collections.defaultdict(lambda: [0, 0.0])
    push: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])  # (far, late) -> [discards, deal-ins]
    total = 0.0
    measured_hands = 0
    for deal in range(hands):
        r = deal % 4
        chairs = [base] * 4
        if seat_ai:
            chairs[r] = seat_ai
        measured = [r] if seat_ai else [0, 1, 2, 3]
        t = Table.new(variant, f"duel:{seed}:{deal}")
        rng = random.Random(f"analyse|{variant}|{seed}|{deal}")
        last: dict[str, Any] = {}
        ev: list[Any] = []
        while t.hand.phase not in ("ended", "over"):
            s = t.awaited()[0]
            la = t.legal_actions(s)
            a = la[0] if len(la) == 1 else choose(t, s, la, chairs[s], rng)
            if a.type == "discard" and a.tile is not None:
                me = SeatReader(t, s)
                c = list(me.counts)
                c[a.tile] -= 1
                d = me.key(c, me.n_melds, me.meld_suits, me.meld_hua)[0]
                v = t.view(s)
                turns = max(0, int(v["wall_count"]) - t.V.reserve) // 4
                others = {}
                for o in range(4):
                    if o == s:
                        continue
                    melds = v["melds"][o]
                    suits = {int(x["tile"]) // 9 for x in melds if int(x["tile"]) < HONOR}
                    others[o] = {"melds": len(melds), "alarm": bool(v["alarms"][o]),
                                 "flush_line": len(melds) >= 2 and len(suits) == 1,
                                 "river": len(v["rivers"][o])}
                last = {"seat": s, "far": d, "turns": turns, "others": others}
                if s in measured:
                    key = f"d{min(d, 4)}|{'late' if turns <= 4 else ('mid' if turns <= 9 else 'early')}"
                    push[key][0] += 1
            ev = t.apply(a)
        end = next(e for e in ev if e.type == "hand_end")
        wins = [e for e in ev if e.type == "win"]
        res = t.match.last_result
        assert res is not None
        for s in measured:
            measured_hands += 1
            p = float(end.data["payments"][s])
            total += p
            if not wins:
                b["drawn"][0] += 1
                continue
            mine = [w for w in wins if w.seat == s]
            if mine:
                w = mine[0]
                kind = "win self-drawn" if w.data["self_drawn"] else "win on a discard"
                b[kind][0] += 1
                b[kind][1] += p
                if res["jiao"][s] > 0:
                    b[kind + " (交)"][0] += 1
                    b[kind + " (交)"][1] += p
                continue
            w = wins[0]
            jiao = res["jiao"][s] < 0
            if any(x.data["from"] == s for x in wins):
                b["deal-in"][0] += 1
                b["deal-in"][1] += p
                if jiao:
                    b["deal-in (交)"][0] += 1
                    b["deal-in (交)"][1] += p
                if last and last["seat"] == s:
                    o = last["others"][w.seat]
                    dealin_by[f"winner melds={o['melds']}"][0] += 1
                    dealin_by[f"winner melds={o['melds']}"][1] += p
                    for flag in ("alarm", "flush_line"):
                        if o[flag]:
                            dealin_by["winner " + flag][0] += 1
                            dealin_by["winner " + flag][1] += p
                    key = f"d{min(last['far'], 4)}|{'late' if last['turns'] <= 4 else ('mid' if last['turns'] <= 9 else 'early')}"
                    dealin_by["me " + key][0] += 1
                    dealin_by["me " + key][1] += p
                    push[key][1] += 1
            elif w.data["self_drawn"]:
                b["other self-drawn"][0] += 1
                b["other self-drawn"][1] += p
                if jiao:
                    b["other self-drawn (交)"][0] += 1
                    b["other self-drawn (交)"][1] += p
            else:
                b["other's deal-in"][0] += 1
                b["other's deal-in"][1] += p
                if jiao:
                    b["other's deal-in (交)"][0] += 1
                    b["other's deal-in (交)"][1] += p
    n = max(1, measured_hands)
    return {
        "variant": variant, "hands": measured_hands, "mean": round(total / n, 3),
        "buckets": {k: {"n": int(v[0]), "share": round(v[0] / n, 4), "zi": round(v[1], 1),
                        "per_hand": round(v[1] / n, 3)} for k, v in sorted(b.items())},
        "deal_in_by": {k: {"n": int(v[0]), "zi": round(v[1], 1), "mean": round(v[1] / v[0], 2) if v[0] else 0}
                       for k, v in sorted(dealin_by.items())},
        "push": {k: {"discards": v[0], "deal_ins": v[1], "rate": round(v[1] / v[0], 4) if v[0] else 0}
                 for k, v in sorted(push.items())},
    }


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variant", default="wuhu")
    ap.add_argument("--hands", type=int, default=200)
    ap.add_argument("--base", default="normal")
    ap.add_argument("--seat-ai", default=None)
    ap.add_argument("--seed", default="0")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out = analyse(a.variant, a.hands, a.base, a.seat_ai, a.seed)
    print(f"{out['variant']}: {out['hands']} measured hands, mean {out['mean']} 子/hand")
    for k, v in out["buckets"].items():
        print(f"  {k:28s} {v['n']:6d} ({v['share']:.1%})  {v['zi']:9.1f} 子  {v['per_hand']:+.3f}/hand")
    print("  deal-ins by:")
    for k, v in out["deal_in_by"].items():
        print(f"    {k:26s} {v['n']:6d}  {v['zi']:9.1f} 子  mean {v['mean']}")
    print("  discards by own distance | time (deal-in rate):")
    for k, v in out["push"].items():
        print(f"    {k:12s} {v['discards']:6d}  {v['deal_ins']:5d}  {v['rate']:.3%}")
    if a.json:
        print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
