"""Chizhou: a discard against another seat by the 花 it shows, measured against the rest of the danger model (generated
by ``python -m benchmarks.calibrate_alarm_danger --variant chizhou --threat any --write``; do not edit by hand)."""

from __future__ import annotations

HANDS = 4000
"""One-hand deals of four normal AIs its figures come from."""

HUA_FACTOR: dict[int, float] = {1: 0.445, 2: 0.671, 3: 0.895}
"""The 花 the seat shows (1, 2, 3: 3 or more) -> the factor on the rest of the danger model
(:data:`engine.strong.chizhou.DANGER_BY_HUA` and the tile's factors)."""
