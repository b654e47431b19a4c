"""Self-play: whole hands of four AI players, with the table's invariants checked as they run.

``simulate(variant, hands, seed=0, difficulty="normal", mode=None) -> dict`` (used by ``mjbot sim``).
Same seed, same games. The engine has no clock: the caller times a run (``bot.cli`` adds ``hands_per_s``,
``benchmarks/bench_selfplay.py`` its speed figures). ``difficulty`` may also be a sequence of four (per chair) for comparisons.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from .ai import DIFFICULTIES, choose
from .errors import EngineError
from .table import Action, Event, Table
from .variants import get_variant


def play_match(table: Table, difficulties: Sequence[str], rng: random.Random, max_hands: int | None = None,
               on_hand_end: Any = None, record: list[Action] | None = None) -> int:
    """Let AIs play ``table`` until the match is over (or ``max_hands`` hands have ended). Returns hands ended."""
    ended = 0
    hand = table.hand  # the hand in play (a new one after each next_hand)
    while hand.phase != "over":
        if hand.phase == "ended":
            if max_hands is not None and ended >= max_hands:
                break
            a = table.legal_actions(0)[0]
        else:
            seat = table.awaited()[0]
            la = table.legal_actions(seat)
            # the AI reads only what this seat may see (its tiles, public melds and rivers)
            a = la[0] if len(la) == 1 else choose(table, seat, la, difficulties[seat], rng)
        if record is not None:
            record.append(a)
        ev = table.apply(a)
        hand = table.hand
        if hand.phase in ("ended", "over") and any(e.type == "hand_end" for e in ev):
            ended += 1
            if on_hand_end is not None:
                on_hand_end(table, ev)
            if max_hands is not None and ended >= max_hands:
                break
    return ended


def simulate(variant: str, hands: int, seed: int = 0, difficulty: str | Sequence[str] = "normal",
             mode: int | None = None) -> dict[str, Any]:
    """Play ``hands`` hands (new matches as needed) and report counts and invariant checks."""
    diffs = [difficulty] * 4 if isinstance(difficulty, str) else list(difficulty)
    for d in diffs:
        if d not in DIFFICULTIES:
            raise EngineError("bad_rule_value", key="difficulty", value=d, expected="/".join(DIFFICULTIES))
    if hands < 0:
        raise EngineError("bad_rule_value", key="hands", value=hands, expected=">= 0")
    has_mode = any(r.key == "mode" for r in get_variant(variant).house_rules)
    settings = {"mode": mode} if mode is not None and has_mode else {}
    stats: dict[str, Any] = {"variant": variant, "seed": seed, "hands": 0, "wins": 0, "self_draws": 0, "draws": 0,
                             "rob_kongs": 0, "multi_win_hands": 0, "zero_sum": True, "tiles_conserved": True,
                             "matches": 0, "won_by_seat": [0, 0, 0, 0], "points_by_seat": [0, 0, 0, 0]}

    def on_end(t: Table, ev: list[Event]) -> None:
        stats["hands"] += 1
        if not t.tiles_accounted():
            stats["tiles_conserved"] = False
        for e in ev:
            if e.type == "win":
                stats["wins"] += 1
                stats["won_by_seat"][e.seat] += 1
                if e.data["self_drawn"]:
                    stats["self_draws"] += 1
                if e.data["rob_kong"]:
                    stats["rob_kongs"] += 1
                if sum(e.data["payments"]) != 0 or sum(e.data["settled"]) != 0:
                    stats["zero_sum"] = False
            elif e.type == "hand_end":
                if e.data["draw"]:
                    stats["draws"] += 1
                if sum(e.data["payments"]) != 0:
                    stats["zero_sum"] = False
                for s in range(4):
                    stats["points_by_seat"][s] += e.data["payments"][s]
        if sum(1 for e in ev if e.type == "win") > 1:
            stats["multi_win_hands"] += 1

    rng = random.Random(f"selfplay|{variant}|{seed}")
    m = 0
    while stats["hands"] < hands:
        table = Table.new(variant, f"{seed}:{m}", settings)
        stats["matches"] += 1
        play_match(table, diffs, rng, hands - stats["hands"], on_end)
        if sum(table.totals()) != 0:
            stats["zero_sum"] = False
        m += 1
    return stats
