"""Images drawn with Pillow: tiles, a player's hand, the public table, score cards, match summaries, boards.

Every ``render_*`` function is pure: plain data in (see :mod:`render.scene`), PNG bytes out, safe to run in a thread
(``await asyncio.to_thread(render_hand, scene)``). Themes: ``"dark"`` (default) and ``"light"``; languages: ``"zh"``,
``"zh-TW"``, ``"en"`` (Discord locales accepted). Sprites, fonts and palettes are built once and cached.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import text  # noqa: F401, I001 - the string catalogue; registers the engine's translator

if TYPE_CHECKING:
    from .board import BoardLine, BoardScene, StatsScene, draw_board, draw_stats, render_board, render_stats
    from .card import draw_score, render_score, render_score_card
    from .hand import draw_hand, render_hand
    from .match import draw_match, render_match
    from .scene import HandScene, MatchScene, ScoreScene, SeatScene, TableScene, discard_numbers, hand_slots
    from .table import draw_table, render_table
    from .tiles import BACK, contact_sheet, tile_sprite

#: the public names and their modules, imported on first use: the store and the CLI import ``text`` for
#: their messages without paying for Pillow and the image modules
_LAZY = {
    **dict.fromkeys(("BoardLine", "BoardScene", "StatsScene", "draw_board", "draw_stats", "render_board",
                     "render_stats"), "board"),
    **dict.fromkeys(("draw_score", "render_score", "render_score_card"), "card"),
    **dict.fromkeys(("draw_hand", "render_hand"), "hand"),
    **dict.fromkeys(("draw_match", "render_match"), "match"),
    **dict.fromkeys(("HandScene", "MatchScene", "ScoreScene", "SeatScene", "TableScene", "discard_numbers",
                     "hand_slots"), "scene"),
    **dict.fromkeys(("draw_table", "render_table"), "table"),
    **dict.fromkeys(("BACK", "contact_sheet", "tile_sprite"), "tiles"),
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'render' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def warm(themes: tuple[str, ...] = ("dark", "light")) -> None:
    """Build the sprites, fonts and palettes the images use (about half a second), e.g. in a thread at start-up,
    so the first image a player asks for comes as fast as the rest."""
    from . import samples
    from .board import render_board, render_stats
    from .card import render_score
    from .hand import render_hand
    from .match import render_match
    from .table import render_table
    from .tiles import BACK, tile_sprite

    for theme in themes:
        render_hand(samples.hand_scene(), theme)
        render_table(samples.table_scene(), theme)
        render_score(samples.score_scene(), theme)
        render_match(samples.match_scene(), theme)
        render_board(samples.board_scene(), theme)
        render_stats(samples.stats_scene(), theme)
    from .card import HAND_TILE_W
    from .hand import TILE_W
    from .table import BACK_W, RIVER_W

    hand_w = TILE_W  # render_hand's default
    upright = {hand_w, round(hand_w * 0.86), RIVER_W, HAND_TILE_W, round(HAND_TILE_W * 0.86)}
    sideways = {round(hand_w * 0.86), RIVER_W, round(HAND_TILE_W * 0.86)}
    for kind in (*range(34), BACK):
        for width in upright:
            tile_sprite(kind, width)
        for width in sideways:
            tile_sprite(kind, width, True)
    tile_sprite(BACK, BACK_W)


__all__ = [
    "BACK",
    "BoardLine",
    "BoardScene",
    "StatsScene",
    "draw_board",
    "draw_stats",
    "render_board",
    "render_stats",
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
    "discard_numbers",
    "hand_slots",
    "render_hand",
    "render_match",
    "render_score",
    "render_score_card",
    "render_table",
    "tile_sprite",
    "warm",
]
