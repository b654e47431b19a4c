"""Per-server settings: the helpers every cog reads them through, and the ``/settings`` command."""

from __future__ import annotations

import logging
from typing import Any

from discord.ext import commands

from bot.store import GuildSettings

log = logging.getLogger(__name__)


async def guild_settings(bot: Any, guild_id: int | None) -> GuildSettings:
    """This server's settings; the defaults in DMs or when the store is not open."""
    store = getattr(bot, "store", None)
    if guild_id is None or store is None:
        return GuildSettings(guild_id=guild_id or 0)
    return await store.guild_settings(guild_id)


async def server_language(bot: Any, guild_id: int | None) -> str | None:
    """The language the server chose, or None outside a server."""
    if guild_id is None:
        return None
    return (await guild_settings(bot, guild_id)).language


def variant_rules(settings: GuildSettings, variant: Any) -> dict[str, Any]:
    """The house rules in force for ``variant`` on this server: its defaults, the server's overrides (unknown keys
    left over from older versions are ignored), and for Wuhu the server's scoring mode."""
    known = {r.key for r in variant.house_rules}
    overrides = {k: v for k, v in settings.rules_for(variant.key).items() if k in known}
    if "mode" in known and "mode" not in overrides:
        overrides["mode"] = settings.wuhu_mode
    return variant.rules(overrides)


async def setup(bot: commands.Bot) -> None:
    pass
