"""The table lifecycle's strings: the catalogue's ``tables.*`` keys (data/locale, docs/translating.md), read with
:func:`t`; and the tile and wind labels the messages use."""

from __future__ import annotations

from bot.i18n import hant, t
from engine.tiles import tile_name, tile_zh


def tile_label(k: int, lang: str) -> str:
    """A tile's short name for buttons and texts: 五万 / 5m."""
    return tile_name(k) if lang == "en" else (tile_zh(k) if lang == "zh" else hant(tile_zh(k)))


def wind_label(w: int, lang: str) -> str:
    return t(f"common.seat.{'ESWN'[w]}", lang)


