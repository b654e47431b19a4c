"""The strong AI: every decision by expected 子 from the seat's own view.

``choose(view, seat, legal_actions) -> Action`` plays; ``evaluate(view, seat) -> Evaluation`` prices every legal
action of the seat (the review shows those prices, so the AI and the review can never disagree about a number).
See :mod:`engine.strong.evaluator` for the model. Pure: no I/O, no clock, no randomness; a view gives one answer.
"""

from __future__ import annotations

from .evaluator import Evaluation, Option, choose, evaluate

__all__ = ["Evaluation", "Option", "choose", "evaluate"]
