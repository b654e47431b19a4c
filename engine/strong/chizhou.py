"""Chizhou's own figures for the strong AI (:mod:`engine.strong.evaluator` reads them only when the variant has the
花 gate).

A win on a discard needs 3 花 (C5, ``docs/rules/chizhou.md#c5``), so who can deal in to whom is decided above all by
the 花 a seat shows (shown melds and concealed kongs: :func:`engine.variants.chizhou.shown_hua`): a seat showing none
would need three concealed honour triplets. Measured with ``benchmarks/calibrate_chizhou_danger.py`` (four normal AIs,
2,000 one-hand deals ``duel:0:N``, about 460,000 discards seen by an opponent): a discard dealt in to a seat showing
0 花 never, 1 花 about 1 in 5,000, 2 花 1 in 300, 3 花 or more 1 in 25 late in the hand.
"""

from __future__ import annotations

DANGER_BY_HUA: tuple[tuple[float, ...], ...] = (
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    (0.0, 0.0, 0.00005, 0.00022, 0.00019, 0.00014),
    (0.0, 0.0005, 0.00117, 0.00159, 0.00398, 0.00292),
    (0.0, 0.005, 0.01266, 0.03003, 0.03859, 0.04482),
)
"""[shown 花 0..3 (3: 3 or more)][the seat's river length // 3, 0..5]: the chance one discard deals in to that seat
(before the tile's own factors: in its river, its suit, its rank)."""

FEED_COST = 0.1
"""子 charged for discarding an honour with two or more copies unseen, per unseen copy beyond the first, halved: an
opponent holding a pair of it pungs it, and an honour pung is 1 花, the resource every Chizhou win is short of.
Measured by duplicate duels against three normal AIs (200 deals each: 0 -> +0.14 子/hand, 0.1 -> +0.22, 0.3 -> +0.31,
0.6 -> +0.24, 1.0 -> +0.21) and with four strong AIs, who then all keep their honours (drawn hands: 0 -> 50%,
0.1 -> 59%, 0.3 -> 74%, 100 deals each): 0.1 buys part of the gain at a moderate cost in drawn hands."""
