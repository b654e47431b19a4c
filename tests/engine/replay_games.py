"""Real hands for the replay and review tests: AI self-play recorded as the store records it (the action list)."""

from __future__ import annotations

import random
from functools import cache

from engine.selfplay import play_match
from engine.table import Action, Table
from engine.table.wall import deal_order

VARIANTS = ("wuhu", "hefei", "chizhou")


@cache
def played(variant: str, seed: str, hands: int = 1, difficulties: tuple[str, ...] = ("easy", "normal", "normal", "normal"),
           scripted: bool = False) -> tuple[dict, tuple[Action, ...]]:
    """``(table_kwargs, actions)`` of ``hands`` hands played by AIs (seat 0 the easy AI, so it errs). ``scripted``:
    the first hand's wall and dealer are passed explicitly (``Table.new(wall=..., dealer=...)``) so tests can change
    its hidden tiles."""
    t = Table.new(variant, seed)
    kw: dict = {}
    if scripted:
        kw = {"wall": list(t.wall), "dealer": t.dealer}
        t = Table.new(variant, seed, wall=kw["wall"], dealer=kw["dealer"])
    acts: list[Action] = []
    play_match(t, list(difficulties), random.Random(seed), max_hands=hands, record=acts)
    return kw, tuple(acts)


def positions_by_seat(replay) -> tuple[list[list[int]], int, int]:
    """Wall positions each chair received in the hand (dealt, drawn, replacement), and the final head / tail."""
    n = len(replay._start.wall)
    got: list[list[int]] = [[], [], [], []]
    for pos, (p, _i) in enumerate(deal_order()):
        got[(replay.dealer + p) % 4].append(pos)
    head, tail = 53, n
    for s in replay.steps:
        for e in s.events:
            if e.type == "draw":
                if e.data["replacement"]:
                    tail -= 1
                    got[e.seat].append(tail)
                else:
                    got[e.seat].append(head)
                    head += 1
    return got, head, tail
