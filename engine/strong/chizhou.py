"""Chizhou's own figures for the strong AI (:mod:`engine.strong.evaluator` reads them only when the variant has the
花 gate).

A win on a discard needs 3 花 (C5, ``docs/rules/chizhou.md#c5``), so who can deal in to whom is decided above all by
the 花 a seat shows (shown melds and concealed kongs: :func:`engine.variants.chizhou.shown_hua`): a seat showing none
would need three concealed honour triplets. Measured with ``benchmarks/calibrate_chizhou_danger.py`` (four normal AIs,
2,000 one-hand deals ``duel:0:N``, about 460,000 discards seen by an opponent; measured again after the normal AI
learnt to let go late, :func:`engine.ai_common.feed_discard`): a discard dealt in to a seat showing 0 花 never, 1 花
about 1 in 3,000, 2 花 1 in 300, 3 花 or more 1 in 20 late in the hand.
"""

from __future__ import annotations

DANGER_BY_HUA: tuple[tuple[float, ...], ...] = (
    (0.0, 0.0, 0.0, 0.0, 0.0, 0.0),
    (0.0, 0.0, 0.00005, 0.00026, 0.00046, 0.00005),
    (0.0, 0.0005, 0.00117, 0.00218, 0.00407, 0.00314),
    (0.0, 0.005, 0.00929, 0.03383, 0.03762, 0.0475),
)
"""[shown 花 0..3 (3: 3 or more)][the seat's river length // 3, 0..5]: the chance one discard deals in to that seat
(before the tile's own factors: in its river, its suit, its rank)."""

DEAL_IN_PAYS = 1.8
"""子 the discarder pays on a deal-in (C8: the winner's 番 f, 1 or 3 (a 蜡子), 承包 aside), the mean of four normal AIs'
1,526 deal-ins (6,000 one-hand deals ``cd:N``, ``python -m benchmarks.calibrate_alarm_danger --variant chizhou --threat
any``: 899 paid 1, 588 paid 3; 1.77 into a seat showing a one-suit line, 1.84 otherwise). The scorer's typical hands
(:data:`engine.strong.evaluator._REPS`) have 2 花 and may not be won on a discard (C5 needs 3), so before this the
price of every deal-in read 0 and its cost the floor (0.3 子)."""

FEED_COST = 0.3
"""子 charged for discarding an honour with two or more copies unseen, per unseen copy beyond the first, halved: an
opponent holding a pair of it pungs it, and an honour pung is 1 花, the resource every Chizhou win is short of.
Measured by duplicate duels against three normal AIs (200 deals each: 0 -> +0.14 子/hand, 0.1 -> +0.22, 0.3 -> +0.31,
0.6 -> +0.24, 1.0 -> +0.21) and with four strong AIs, who then all keep their honours (drawn hands: 0 -> 50%,
0.1 -> 59%, 0.3 -> 74%, 100 deals each). Since the strong AI also lets go of what it cannot use late (:data:`LET_GO`),
measured again against the normal AI that does the same (600 deals, seed 0; four strong: 300 deals): 0.1 -> +0.11 子/hand,
42% drawn; 0.3 -> +0.16, 44% drawn; 0.6 -> +0.18, 50% drawn."""

LET_GO = 0.5
"""子 credited to the discard the normal AI lets go of when its hand is too far from 2 花 for the wall that is left
(:func:`engine.ai_common.feed_discard`: an honour a pair holder pungs, a lone suited tile a concealed triplet kongs).
The hand will not win; holding on to them keeps the others from 花 too, and four strong AIs then drew 82% of the
hands (``FEED_COST`` 0.6, 300 deals) against 50% letting go. It costs the strong AI about 0.07 子 a hand against
three normal AIs (600 deals, seed 0: +0.25 without, +0.18 with): the price of fewer drawn hands at its tables."""

FLUSH_RATE = 300
"""The one-suit plan's chance (清一色 / 混一色, a 蜡子), as a share (/1000) of the measured chance one step further
(the other variants: :data:`engine.strong.evaluator.FLUSH_RATE`, 700). The strong AI's departures for the one-suit
plan at 700 lost about 0.2 子 each (``benchmarks/analyse_departures.py --variant chizhou``, 400 deals: 124 of them,
-0.21 ± 0.41); against three normal AIs on the same 600 deals (seed 0, paired): 1100 -> -0.035 ± 0.049 子 a hand,
300 -> +0.037 ± 0.044, 0 (no one-suit plan) -> +0.028 ± 0.048, against 700."""

LET_GO_WALL: tuple[int, int] | None = None
"""The strong AI's own wall thresholds for letting go (``(base, step)``: a hand :data:`LET_GO_NEED` tiles short of
2 花 lets go once the wall is down to ``base``, ``step`` more per tile short beyond that); None: the normal AI's
(:data:`engine.ai_common.CHIZHOU_FEED_WALL`). A switch for measuring four strong AIs' drawn hands."""

LET_GO_NEED: int | None = None
"""The strong AI's own least tiles short of 2 花 for letting go; None: the normal AI's
(:data:`engine.ai_common.CHIZHOU_FEED_NEED`)."""

LET_GO_PICK = False
"""Whether the discard the strong AI lets go of keeps the normal AI's margin (as the normal AI plays it outright) in
place of the normal AI's shape choice (:func:`engine.ai_common.best_discard`)."""

KONG_FIRST = True
"""Whether a kong the normal AI takes in its own turn (:func:`engine.ai.choose`: it plays the kong before it lets go)
is the choice that keeps the normal AI's margin, with no letting-go credit (:data:`LET_GO`) for a discard beside it.
Without it the credit (0.5 子) outranked such a kong: four strong AIs passed 32 of the 104 added suited kongs offered
in 150 deals (the normal AI none). Four strong AIs, duel deals 0..1199 of seed 0, paired: drawn hands 42.67% ->
41.00% (-1.67 ± 1.13 points; deals 600..1199 -2.33 ± 1.59); docs/strong-ai-rounds.md, "Chizhou, drawn hands, 2026-12-03"."""

HOPELESS: tuple[float, int] | None = None
"""``(eps, wall)``: while another seat shows 3 花 or more (it may win on a discard, C5) and the wall is down to
``wall``, a hand whose best discard leaves it worth less than ``eps`` 子 (chance x value, the danger aside) throws the
tile such a seat most likely waits on (:func:`engine.ai_common.ron_feed_pick`, the normal AI's feeding without its
thresholds) instead of folding. None: off. Four strong AIs draw fewer hands with it, but the strong AI loses 子 against
three normal AIs (docs/strong-ai-rounds.md, "Chizhou, hopeless hands, 2026-12-03"): a measuring switch."""

CHI_AS_NORMAL = True
"""Whether the strong AI claims a chi only where the normal AI claims that chi (:func:`engine.ai_common.claim_choice`:
with fewer than 2 花 a chi binds the hand to one suit, C6, so the normal AI chis only to get ready); the chi keeps its
price (the review charges what it shows) and is ranked below every other option
(:data:`engine.strong.evaluator.OUTRANK_MARGIN`). Its other chis gained nothing (their first departures from the
normal AI -0.01 ± 0.33 子 each, 205 games of 400 deals); against three normal AIs, duel deals 0..1999 of seed 0,
paired: +0.041 ± 0.029 子 a hand (deals 1000..1999, not used to choose, +0.051 ± 0.041); docs/strong-ai-rounds.md,
"Chizhou, chis and a win passed for the self-draw, 2026-12-03"."""
