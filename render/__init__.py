"""Images of the game drawn with Pillow: tiles, a player's hand, the public table, score cards, match summaries.

Every ``render_*`` function is pure: plain data in (see :mod:`render.scene`), PNG bytes out, safe to run in a thread
(``await asyncio.to_thread(render_hand, scene)``). Themes: ``"dark"`` (default) and ``"light"``; languages: ``"zh"``,
``"zh-TW"``, ``"en"`` (Discord locales accepted). Sprites, fonts and palettes are built once and cached.
"""

from __future__ import annotations

from .card import draw_score, render_score, render_score_card
from .hand import draw_hand, render_hand
from .match import draw_match, render_match
from .scene import HandScene, MatchScene, ScoreScene, SeatScene, TableScene, hand_slots
from .table import draw_table, render_table
from .tiles import BACK, contact_sheet, tile_sprite

__all__ = [
    "BACK",
    "HandScene",
    "MatchScene",
    "ScoreScene",
    "SeatScene",
    "TableScene",
    "contact_sheet",
    "draw_hand",
    "draw_match",
    "draw_score",
    "draw_table",
    "hand_slots",
    "render_hand",
    "render_match",
    "render_score",
    "render_score_card",
    "render_table",
    "tile_sprite",
]
