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
from text.tiles import tile_label as tile_label  # (one naming for the table, the replays and the reviews)

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


def discard_label(number: int | None, kind: int, lang: str) -> str:
    """A discard button's label: the number under the tile in the hand image, then the tile (``3 · 五万``,
    ``3 · 5m``): short enough for five buttons to a row on a phone."""
    return tile_label(kind, lang) if number is None else f"{number} · {tile_label(kind, lang)}"


def wind_label(w: int, lang: str) -> str:
    return t(f"common.seat.{'ESWN'[w]}", lang)


