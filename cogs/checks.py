"""Checks several cogs make before they act. Not an extension: a module the cogs import (``/settings``,
``/season`` ...), so that no cog imports another for them."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.errors import UserError
from bot.settings import guild_settings
from bot.store import GuildSettings


async def check_manager(bot: Any, interaction: discord.Interaction) -> GuildSettings:
    """The server's settings if the user may change them (Manage Server), else a refusal."""
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    if not interaction.permissions.manage_guild:
        raise UserError("error.no_permission")
    return await guild_settings(bot, interaction.guild_id)
