"""The ``/settings`` options another cog owns, registered by that cog when it loads: ``/settings`` applies them
through this registry and never imports the cog (``/history``'s ``replays_show_all_hands`` is :mod:`cogs.memory`'s,
``record_expiry_hours`` :mod:`cogs.record`'s). Not an extension: a module imported once, so the registry is one.

>>> async def apply(bot, interaction, lang, value): return f"set to {value}"
>>> register(SettingsOption("demo_option", apply))
>>> get("demo_option").name, get("no_such_option")
('demo_option', None)
>>> unregister("demo_option")
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.app import MjBot

#: ``(bot, interaction, lang, value) -> the line saying what is now in force`` (raises UserError on a bad value)
Apply = Callable[[MjBot, discord.Interaction[MjBot], str, Any], Awaitable[str]]
#: ``(bot, guild_id, lang) -> a line /settings always shows``
Status = Callable[[MjBot, "int | None", str], Awaitable[str]]


@dataclass(frozen=True)
class SettingsOption:
    name: str  # the /settings command's parameter
    apply: Apply
    status: Status | None = None


_OPTIONS: dict[str, SettingsOption] = {}


def register(option: SettingsOption) -> None:
    """Register (or replace: a cog reloaded registers again) ``option``."""
    _OPTIONS[option.name] = option


def unregister(name: str) -> None:
    _OPTIONS.pop(name, None)


def get(name: str) -> SettingsOption | None:
    """The option registered as ``name``; None when the cog owning it is not loaded."""
    return _OPTIONS.get(name)
