"""The table lifecycle's strings: the catalogue's ``tables.*`` keys (data/locale, docs/translating.md), read with
:func:`t`; and the tile and wind labels the messages use.

Players' display names are chosen by the players: ``<@id> @everyone **x**`` is a legal name. :func:`t` writes every
name it is given (the ``name``, ``names`` and ``host`` fields) with its mentions and markdown escaped, so a name is
shown as typed and never pings anyone nor restyles a message (the images draw names as they are).
"""

from __future__ import annotations

from typing import Any

import discord

from bot import i18n
from bot.i18n import hant
from engine.tiles import is_honor, tile_en, tile_name, tile_zh

#: The message fields that hold display names.
NAME_FIELDS = ("name", "names", "host")


def shown_name(name: str) -> str:
    """A display name for message text: mentions and markdown escaped.

    >>> s = shown_name("<@123456789012345678> @everyone **x**")
    >>> "<@123456789012345678>" in s, "@everyone" in s, "**" in s
    (False, False, False)
    """
    return discord.utils.escape_markdown(discord.utils.escape_mentions(str(name)))


def t(key: str, lang: str | None, /, **params: Any) -> str:
    """The message ``key`` in ``lang`` (:func:`bot.i18n.t`), its display names escaped (:func:`shown_name`)."""
    for f in NAME_FIELDS:
        if isinstance(params.get(f), str):
            params[f] = shown_name(params[f])
    return i18n.t(key, lang, **params)


def tile_label(k: int, lang: str) -> str:
    """A tile's short name for buttons and texts: 五万 / 5m, 中 / Red (an honour in English by its name: "7z" is the
    notation of /score, which a player at the table has never been shown).

    >>> tile_label(4, "en"), tile_label(33, "en"), tile_label(27, "en"), tile_label(33, "zh-TW"), tile_label(4, "zh")
    ('5m', 'Red', 'East', '中', '五万')
    """
    if lang == "en":
        return tile_en(k) if is_honor(k) else tile_name(k)
    return tile_zh(k) if lang == "zh" else hant(tile_zh(k))


def discard_label(number: int | None, kind: int, lang: str) -> str:
    """A discard button's label: the number under the tile in the hand image, then the tile (``3 · 五万``,
    ``3 · 5m``): short enough for five buttons to a row on a phone."""
    return tile_label(kind, lang) if number is None else f"{number} · {tile_label(kind, lang)}"


def wind_label(w: int, lang: str) -> str:
    return t(f"common.seat.{'ESWN'[w]}", lang)


