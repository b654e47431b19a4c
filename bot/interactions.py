"""What the bot reads once per interaction: the server's settings and the language of every reply to it.

A command, a click or a form may need the server's settings and the reply's language in several places (the
command, its checks, the error handler). :func:`settings_of` and :func:`lang_of` work them out the first time they are
asked and keep them on the interaction (``interaction.extras``), so the store is read at most once per interaction
and every reply to it speaks the same language. The command tree asks for the language as soon as a command arrives
(:func:`install`: after ``bot.options``' check of the raw payload); a click or a form resolves it at its first use.
A read that fails is not tried again within the interaction: the error handler answers in the player's language.

The language (:func:`text.lang.lang_for`): the player's Discord language when we speak it; else, in a server, the
language the server chose in ``/settings``; else :data:`text.lang.DEFAULT`. The store is read only when the
player's own language does not decide. A reply after this interaction changed the settings speaks the new language
(:func:`settings_changed`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
from discord import app_commands

from text.lang import Lang, lang_for, lang_of_locale

from .settings import GuildSettings

__all__ = ["Asked", "asked", "install", "lang_of", "resolve_on_arrival", "settings_changed", "settings_of"]

EXTRAS_KEY = "mjbot.asked"


class Asked:
    """The settings and the language of one interaction, each worked out once (see the module)."""

    __slots__ = ("interaction", "_settings", "_failed", "_lang", "_lock", "reads")

    def __init__(self, interaction: discord.Interaction[Any]) -> None:
        self.interaction = interaction
        self._settings: GuildSettings | None = None
        self._failed: Exception | None = None
        self._lang: Lang | None = None
        self._lock = asyncio.Lock()
        self.reads = 0  # store reads made for this interaction (0 or 1)

    async def settings(self) -> GuildSettings:
        """The server's settings (the defaults outside a server or when the store is not open). A read that failed
        is not tried again for this interaction: its error is raised again."""
        if self._settings is not None:
            return self._settings
        async with self._lock:
            if self._failed is not None:
                raise self._failed
            if self._settings is None:
                guild_id = self.interaction.guild_id
                store = getattr(self.interaction.client, "store", None)
                if guild_id is None or store is None:
                    self._settings = GuildSettings(guild_id=guild_id or 0)
                else:
                    self.reads += 1
                    try:
                        self._settings = await store.guild_settings(guild_id)
                    except Exception as e:
                        self._failed = e
                        raise
            return self._settings

    async def lang(self) -> Lang:
        """The language of every reply to this interaction."""
        if self._lang is None:
            lang = lang_of_locale(getattr(self.interaction, "locale", None))
            if lang is None:
                server = (await self.settings()).language if self.interaction.guild_id is not None else None
                lang = lang_for(self.interaction, server)
            self._lang = lang
        return self._lang

    def changed(self, settings: GuildSettings) -> None:
        """This interaction changed the server's settings: later replies read (and speak) the new ones."""
        self._settings, self._failed = settings, None
        self._lang = None


def asked(interaction: discord.Interaction[Any]) -> Asked:
    """The interaction's :class:`Asked` (made at the first call)."""
    extras = interaction.extras
    found = extras.get(EXTRAS_KEY)
    if found is None:
        found = extras[EXTRAS_KEY] = Asked(interaction)
    return found


async def settings_of(interaction: discord.Interaction[Any]) -> GuildSettings:
    """The server's settings for this interaction, read from the store at most once."""
    return await asked(interaction).settings()


async def lang_of(interaction: discord.Interaction[Any]) -> Lang:
    """The language of every reply to this interaction, worked out once."""
    return await asked(interaction).lang()


def settings_changed(interaction: discord.Interaction[Any], settings: GuildSettings) -> None:
    """Keep the settings this interaction just wrote: the replies after the change speak their language."""
    asked(interaction).changed(settings)


async def resolve_on_arrival(interaction: discord.Interaction[Any]) -> None:
    """Work out the language of a command as it arrives (the command tree's check), before the command runs; an
    autocomplete asks for none. A failing store is not this check's to report: the command meets it again."""
    if interaction.type is discord.InteractionType.autocomplete:
        return
    try:
        await lang_of(interaction)
    except Exception:  # the store failing: raised again where the command asks for the settings, and answered there
        return


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Make the tree's check (``bot.options``' check of the raw payload, if installed) also work out the language of
    every command as it arrives. Installed once, after ``bot.options.install``."""
    before = tree.interaction_check
    if getattr(before, "__wrapped_by_asked__", False):
        return

    async def check(interaction: discord.Interaction[Any]) -> bool:
        if not await before(interaction):
            return False
        await resolve_on_arrival(interaction)
        return True

    check.__wrapped_by_asked__ = True  # type: ignore[attr-defined]  # (a marker: install once)
    tree.interaction_check = check  # type: ignore[method-assign]  # the tree's documented hook, set on the instance
