"""Duplicate 1v3 matches: how much better one AI difficulty plays than another, in 子 per hand.

``duel(variant, test, base, deals, seed=0, clock=None) -> dict`` (used by ``mjbot duel`` and
``benchmarks/bench_ai.py``).

A *deal* is one hand of a new match with the default rules: its wall and dealer come from the seed
(``Table.new(variant, "duel:{seed}:{deal}")``). Every deal is played four times, the ``test`` difficulty in each
chair in turn and ``base`` in the other three, on the same wall with the same dealer, so the luck of the tiles
cancels out: what is left is the difference in play. When ``test == base`` the four rotations would be the same
game, so the deal is played once and every chair counts as the tested one.

子 per hand of the tested chair = what its total moved by in that hand: the hand's settled payment
(``hand_end`` ``payments``), which in Wuhu is the stack change plus the 交 tally change (W11: each deal is the
first hand of a fresh 底, so a payer's stack of 30 子 caps only a payment above 30; 交 is never capped), in Hefei
and Chizhou the hand's score. A drawn hand is 0 (no variant pays on a draw).

A deal's sample is the mean over its four rotations (the four are not independent: they share a wall), and the
95% interval is mean ± 1.96 · sd / √deals over those samples. Rates are over all hands the tested chair played
(win: it won, alone or with another winner; deal-in: a winner won on its discard or robbed its kong; draw: nobody
won).

The engine has no clock: ``clock`` (a callable returning seconds, e.g. ``time.perf_counter``) is given by the caller
to time the tested difficulty's decisions (only those with a real choice, i.e. more than one legal action); without
it the decision figures are None. Same seed, same games, same figures (the timing aside).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from .ai import DIFFICULTIES, choose
from .errors import EngineError
from .table import Table

Clock = Callable[[], float]


@dataclass(slots=True)
class DealResult:
    """One deal, all its rotations: per rotation the tested chair's 子, whether it won / dealt in, whether the hand
    was drawn, its 交 part; and the tested difficulty's decision times in ms (empty without a clock)."""

    deal: int
    zi: list[int] = field(default_factory=list)
    won: list[bool] = field(default_factory=list)
    dealt_in: list[bool] = field(default_factory=list)
    drawn: list[bool] = field(default_factory=list)
    jiao: list[int] = field(default_factory=list)
    jiao_win: list[bool] = field(default_factory=list)
    decision_ms: list[float] = field(default_factory=list)

    @property
    def sample(self) -> float:
        """The deal's one sample: the tested chair's mean 子 over the rotations."""
        return sum(self.zi) / len(self.zi)


def _check(test: str, base: str) -> None:
    for d in (test, base):
        if d not in DIFFICULTIES:
            raise EngineError("bad_rule_value", key="difficulty", value=d, expected="/".join(DIFFICULTIES))


def play_deal(variant: str, test: str, base: str, deal: int, seed: int | str = 0,
              clock: Clock | None = None) -> DealResult:
    """Play deal number ``deal`` of the duel seeded ``seed``: four rotations (one when ``test == base``)."""
    _check(test, base)
    out = DealResult(deal)
    table_seed = f"duel:{seed}:{deal}"
    rotations = range(1) if test == base else range(4)
    for r in rotations:
        chairs = [base] * 4
        tested: Sequence[int] = range(4) if test == base else (r,)
        chairs[r] = test
        rng = random.Random(f"duel|{variant}|{seed}|{deal}|{r}")
        table = Table.new(variant, table_seed)
        ev: list[Any] = []
        while table.hand.phase not in ("ended", "over"):
            seat = table.awaited()[0]
            la = table.legal_actions(seat)
            if len(la) == 1:
                a = la[0]
            elif clock is not None and seat in tested:
                t0 = clock()
                a = choose(table, seat, la, chairs[seat], rng)
                out.decision_ms.append((clock() - t0) * 1000.0)
            else:
                a = choose(table, seat, la, chairs[seat], rng)
            ev = table.apply(a)
        end = next(e for e in ev if e.type == "hand_end")
        winners = [e for e in ev if e.type == "win"]
        result = table.match.last_result
        assert result is not None
        for s in tested:
            out.zi.append(int(end.data["payments"][s]))
            out.won.append(any(w.seat == s for w in winners))
            out.dealt_in.append(any(w.data["from"] == s and w.seat != s for w in winners))
            out.drawn.append(bool(end.data["draw"]))
            out.jiao.append(int(result["jiao"][s]))
            out.jiao_win.append(any(w.seat == s for w in winners) and result["jiao"][s] > 0)
    return out


def _percentile(xs: Sequence[float], q: float) -> float:
    """The q-th percentile (0..100) by the nearest rank."""
    s = sorted(xs)
    i = max(0, min(len(s) - 1, math.ceil(q / 100 * len(s)) - 1))
    return s[i]


def summarise(variant: str, test: str, base: str, seed: int | str, results: Iterable[DealResult]) -> dict[str, Any]:
    """The duel's figures from its deals (in any order: they are sorted by deal number first)."""
    rs = sorted(results, key=lambda r: r.deal)
    n = len(rs)
    samples = [r.sample for r in rs]
    hands = sum(len(r.zi) for r in rs)
    mean = sum(samples) / n if n else 0.0
    sd = math.sqrt(sum((x - mean) ** 2 for x in samples) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n) if n > 1 else 0.0
    wins = sum(sum(r.won) for r in rs)
    times = [t for r in rs for t in r.decision_ms]

    def rate(k: int) -> float:
        return round(k / hands, 4) if hands else 0.0

    return {
        "variant": variant, "test": test, "base": base, "seed": seed, "deals": n, "hands": hands,
        "mean_per_hand": round(mean, 3), "ci95_low": round(mean - half, 3), "ci95_high": round(mean + half, 3),
        "sd_per_deal": round(sd, 3),
        "win_rate": rate(wins), "deal_in_rate": rate(sum(sum(r.dealt_in) for r in rs)),
        "draw_rate": rate(sum(sum(r.drawn) for r in rs)),
        "jiao_per_hand": round(sum(sum(r.jiao) for r in rs) / hands, 3) if hands else 0.0,
        "jiao_win_share": round(sum(sum(r.jiao_win) for r in rs) / wins, 4) if wins else 0.0,
        "decisions": len(times),
        "decision_ms_mean": round(sum(times) / len(times), 3) if times else None,
        "decision_ms_p99": round(_percentile(times, 99), 3) if times else None,
        "decision_ms_max": round(max(times), 3) if times else None,
    }


def duel(variant: str, test: str, base: str, deals: int, seed: int | str = 0, clock: Clock | None = None,
         first: int = 0) -> dict[str, Any]:
    """Deals ``first .. first + deals - 1`` of the duel seeded ``seed``, summarised (see the module's doc).
    A caller may split the deals into ranges (e.g. over processes) and :func:`summarise` the :class:`DealResult`
    of :func:`play_deal` itself: the figures are the same."""
    _check(test, base)
    if deals < 1:
        raise EngineError("bad_rule_value", key="deals", value=deals, expected=">= 1")
    return summarise(variant, test, base, seed,
                     (play_deal(variant, test, base, d, seed, clock) for d in range(first, first + deals)))
