"""Languages: Simplified Chinese (``zh``), Traditional Chinese (``zh-TW``) and English (``en``).

Two halves:

- :class:`Translator`, a discord.py ``app_commands.Translator``: every command, option and choice name and
  description is a ``locale_str`` whose ``key`` extra names a catalogue key; Discord shows each player the names in
  their own client language.
- :func:`t` for messages: ``t("score.bad_hand", "zh", error=...)``. The language of a reply is worked out once per
  interaction by :mod:`bot.interactions` with :func:`text.lang.lang_for` (the player's Discord locale first when we
  speak it, the server's chosen language second, :data:`text.lang.DEFAULT` last); languages are resolved only in
  :mod:`text.lang`.

Every text lives in the string catalogue (``data/locale/*/LC_MESSAGES/mjbot.po``, read by :mod:`text.catalog`;
see docs/translating.md). :data:`COMMANDS` and :data:`MESSAGES` are only a landing place for strings code still
registers as ``key -> (English, Simplified, Traditional)`` dicts until ``tools/dicts_to_po.py`` moves them into the
catalogue; the catalogue wins when a key is in both.

>>> t("common.seat.E", "zh"), t("common.seat.E", "zh-TW"), t("common.seat.E", "en")
('东', '東', 'East')
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

from engine.variants import VARIANT_KEYS, get_variant
from text import catalog
from text.hant import named, to_hant
from text.lang import resolve

log = logging.getLogger(__name__)

#: Strings not yet in the catalogue, registered by code as key -> (English, Simplified, Traditional); to be moved
#: into data/locale with tools/dicts_to_po.py. Commands' names and descriptions:
COMMANDS: dict[str, tuple[str, str, str]] = {}
#: ... and messages (``{name}`` placeholders as in the catalogue).
MESSAGES: dict[str, tuple[str, str, str]] = {}


def _pick(entry: tuple[str, str, str], lang: str) -> str:
    en, zh, hant = entry
    return {"en": en, "zh": zh, "zh-TW": hant}[resolve(lang)]


def t(key: str, lang: str | None, /, **params: Any) -> str:
    """The message ``key`` in ``lang`` with ``params`` filled in (the catalogue; a key it lacks in one language is
    the English text, a key missing everywhere shows the key; both logged once)."""
    lang = resolve(lang)
    if not catalog.has(key):
        entry = MESSAGES.get(key) or COMMANDS.get(key)
        if entry is not None:
            text = _pick(entry, lang)
            return text.format(**params) if params else text
    return catalog.text(key, lang, **params)


def variant_name(key: str, lang: str | None) -> str:
    return t(f"variant.{key}", lang)


def notation_examples(lang: str | None) -> str:
    """One hand for each variant that scores in it as written (``Variant.example``, checked by the tests), a line
    each, for the notation help.

    >>> print(notation_examples("en"))
    `23456799m345p67s+8s` · Wuhu
    `1234678922m345s+5m` · Hefei
    `123m456p789s5z(7777z)+5z` · Chizhou
    """
    return "\n".join(f"`{get_variant(k).example}` · {variant_name(k, lang)}" for k in VARIANT_KEYS)


def seat_name(seat: int, lang: str | None) -> str:
    return t(f"common.seat.{'ESWN'[seat]}", lang)


def hant(text: str) -> str:
    """Traditional Chinese for engine texts (item names, house rules), which are not catalogue strings."""
    return to_hant(text)


def item_name(zh: str, en: str, lang: str | None) -> str:
    """An engine item's name (``Item.zh`` / ``Item.en``) in ``lang``."""
    return named(zh, en, resolve(lang))


def rule_value(value: Any, lang: str | None) -> str:
    """A house rule's value for a player: on/off words for switches, the value itself otherwise."""
    if isinstance(value, bool):
        return t("common.on" if value else "common.off", lang)
    return str(value)


def locale_str(key: str) -> app_commands.locale_str:
    """A command string: the English default with ``key`` for the translator."""
    return app_commands.locale_str(t(key, "en"), key=key)


_DISCORD_LANG: Mapping[discord.Locale, str] = {
    discord.Locale.chinese: "zh",
    discord.Locale.taiwan_chinese: "zh-TW",
    discord.Locale.american_english: "en",
    discord.Locale.british_english: "en",
}


class Translator(app_commands.Translator):
    """Command, option and choice names and descriptions for Discord's zh-CN, zh-TW and en locales."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        lang = _DISCORD_LANG.get(locale)
        key = string.extras.get("key")
        if lang is None or key is None:
            return None
        if catalog.has(key) or key in COMMANDS or key in MESSAGES:
            return t(key, lang)
        log.error("missing command string %s", key)
        return None
