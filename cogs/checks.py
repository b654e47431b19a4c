"""Checks several cogs make before they act. Not an extension: a module the cogs import (``/settings``,
``/season`` ...), so that no cog imports another for them."""

from __future__ import annotations

import discord
from discord import app_commands

from bot.app import MjBot
from bot.errors import UserError
from bot.interactions import settings_of
from bot.store import GuildSettings


def guild_of(interaction: discord.Interaction[MjBot]) -> int:
    """The server an interaction comes from; a command or control that works only in a server refuses a DM."""
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    return interaction.guild_id


async def check_manager(bot: MjBot, interaction: discord.Interaction[MjBot]) -> GuildSettings:
    """The server's settings if the user may change them (Manage Server), else a refusal."""
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    if not interaction.permissions.manage_guild:
        raise UserError("error.no_permission")
    return await settings_of(interaction)  # read once per interaction (bot.interactions)
