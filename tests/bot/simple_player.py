"""A small, fast player for the store's tests: takes every win, sometimes claims, discards towards ready.

Only the engine's public table API and ``engine.analysis.shanten`` are used, so the store's tests do not depend
on the AI module. Quality does not matter here; wins (and so non-zero ledgers) happen often enough.
"""

from __future__ import annotations

import random

from engine.analysis import shanten
from engine.table import Action, Table


def next_action(table: Table, rng: random.Random) -> Action:
    """An action for the seat the table waits on (``next_hand`` between hands)."""
    if table.phase == "ended":
        return table.legal_actions(0)[0]
    seat = table.awaited()[0]
    legal = table.legal_actions(seat)
    for a in legal:
        if a.type == "win":
            return a
    if any(a.type == "pass" for a in legal):  # a claim window
        claims = [a for a in legal if a.type in ("pung", "kong")]
        if claims and rng.random() < 0.5:
            return rng.choice(claims)
        return next(a for a in legal if a.type == "pass")
    discards = [a for a in legal if a.type == "discard"]
    if not discards:
        return rng.choice(legal)
    counts = list(table.counts[seat])
    melds = len(table.melds[seat])
    best: list[Action] = []
    best_s = 99
    for a in {d.tile: d for d in discards}.values():
        counts[a.tile] -= 1
        s = shanten(counts, melds)
        counts[a.tile] += 1
        if s < best_s:
            best, best_s = [a], s
        elif s == best_s:
            best.append(a)
    return rng.choice(best)
