"""One place where errors become replies: short, ephemeral, in the player's language; never a traceback.

Expected errors are the ones with a message for players: the engine's :class:`~engine.errors.EngineError`, the
store's ``StoreError`` and our own :class:`bot.errors.UserError` (also importable from here); discord.py's
permission and check failures get their own sentences, and so does an option's value that discord.py's conversion
refused (a user who left the server, named where a member is asked): the player's choice, not a fault to retry. A failure that passes by itself (the database busy, Discord failing with a 5xx: :func:`transient`) says
so and asks to try again, unless the command had already stored what it was asked (:func:`saved`): then the player
is told it was done. Anything else is logged with its traceback and answered with a short generic apology.

Views and modals of other cogs route their errors here too: subclass :class:`SafeView` / :class:`SafeModal`, or
call :func:`report` from an ``on_error``.
"""

from __future__ import annotations

import logging
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import MjBot
from bot.errors import UserError
from bot.i18n import t
from bot.interactions import lang_of
from bot.store.errors import StoreError
from bot.store.failures import failure_kind
from bot.tables.strings import shown_name
from engine.errors import EngineError
from text.lang import lang_for

log = logging.getLogger(__name__)


def transient(error: BaseException) -> str | None:
    """The message key for a failure of what the bot stands on - the database busy or locked by another writer, or
    failing (disk, permissions); Discord failing with a 5xx after discord.py's own retries - or None (a bug: the
    generic apology, logged with its traceback). A store failure changed nothing (its transaction rolled back); a
    Discord failure may come after the command's own write, which a command that writes says with :func:`saved`,
    and otherwise the player is told to try again (a repeat finds what was done and says so). Logged as a warning,
    without a traceback.

    >>> import sqlite3
    >>> transient(sqlite3.OperationalError("database is locked")), transient(ValueError("x"))
    ('error.store_busy', None)
    >>> transient(sqlite3.OperationalError("disk I/O error")), transient(sqlite3.OperationalError("no such table: x"))
    ('error.store_unavailable', None)
    """
    kind = failure_kind(error)  # SQLite's and PostgreSQL's failures alike (bot.store.failures)
    if kind is not None:
        return f"error.store_{kind}"
    if isinstance(error, discord.DiscordServerError):
        return "error.discord_unavailable"
    return None


def message_for(error: BaseException, lang: str) -> tuple[str, bool]:
    """The player's message for ``error`` and whether it was expected (unexpected ones are logged)."""
    original = _unwrap(error)
    if isinstance(original, EngineError | UserError | StoreError):
        return original.message(lang), True
    key = transient(original)
    if key is not None:
        return t(key, lang), True
    if isinstance(original, app_commands.CommandNotFound | app_commands.CommandSignatureMismatch):
        return t("error.command_outdated", lang), True  # Discord's client still shows an older version's command
    if isinstance(original, app_commands.MissingPermissions):
        return t("error.no_permission", lang), True
    if isinstance(original, app_commands.NoPrivateMessage):
        return t("error.guild_only", lang), True
    if isinstance(original, app_commands.CommandOnCooldown):
        return t("error.cooldown", lang, seconds=max(1, round(original.retry_after))), True
    if isinstance(original, app_commands.BotMissingPermissions):
        return t("error.bot_missing_permissions", lang, perms=", ".join(original.missing_permissions)), True
    if isinstance(original, app_commands.CheckFailure):
        return t("error.no_permission", lang), True
    if isinstance(original, app_commands.TransformerError) and isinstance(original.__cause__, EngineError):
        return original.__cause__.message(lang), True
    if isinstance(original, app_commands.TransformerError) and original.__cause__ is None:
        return _option_message(original, lang), True
    return t("error.generic", lang), False


def _option_message(error: app_commands.TransformerError, lang: str) -> str:
    """An option's value that discord.py's own conversion refused (nothing raised inside it: that would be a
    bug): the player's choice, never a fault of the bot, nor "try again" (the same value fails the same way). A
    user who is not a member of the server (they left: Discord then sends their user and no member data), named
    where the option takes a member, is said by name."""
    if error.type is discord.AppCommandOptionType.user and isinstance(error.value, discord.User):
        return t("error.not_member", lang, name=shown_name(error.value.display_name))
    return t("error.bad_option", lang)


async def reply_ephemeral(interaction: discord.Interaction[MjBot], text: str) -> None:
    """An ephemeral answer whether or not the interaction was already answered; never raises."""
    try:
        if interaction.response.is_done():
            await interaction.followup.send(text, ephemeral=True)
        else:
            await interaction.response.send_message(text, ephemeral=True)
    except discord.HTTPException as e:  # expired token, Discord hiccup: nothing more we can tell the player
        log.warning("could not send the error reply for interaction %s: %s", interaction.id, e)


EXPIRED_CODES = (10062, 10015, 50027)  # unknown interaction, unknown webhook, invalid webhook token


def saved(interaction: discord.Interaction[MjBot], text: str, *, when: bool = True) -> str:
    """Note (``when`` something was written) that the command has stored what ``text`` (its answer) tells, and
    return ``text``. If the answer then fails, the player reads that it was done, with the answer, instead of
    "nothing was changed, try again" (:func:`report`): trying again would count it twice."""
    if when:
        interaction.extras["saved"] = text
    return text


def _unwrap(error: BaseException) -> BaseException:
    while isinstance(error, app_commands.CommandInvokeError | commands.CommandInvokeError):
        error = error.original
    return error


async def report(interaction: discord.Interaction[MjBot], error: BaseException, *, where: str = "") -> None:
    """Answer ``error`` to the player and log it when it was not expected."""
    original = _unwrap(error)
    if isinstance(original, discord.HTTPException) and original.code in EXPIRED_CODES:
        # the interaction expired (too slow, or a restart): there is nobody left to answer
        log.warning("interaction %s expired in %s: %s", interaction.id, where or _describe(interaction), original)
        return
    try:
        lang = await lang_of(interaction)  # worked out once per interaction (bot.interactions)
    except Exception:  # the settings may be the very thing that failed
        lang = lang_for(interaction, None)
    text, expected = message_for(error, lang)
    done = interaction.extras.get("saved")
    if done and not interaction.response.is_done():
        # the command's write went through and only its answer failed (Discord, or a read after the write): say so,
        # with the answer as far as it was made
        log.warning("%s was done for user %s but its answer failed: %r", where or _describe(interaction),
                    interaction.user.id, original, exc_info=None if expected else error)
        key = "error.saved_unshown" if isinstance(original, discord.HTTPException) else "error.saved_unfinished"
        await reply_ephemeral(interaction, t(key, lang, text=done))
        return
    if transient(original) is not None:
        log.warning("%s failed for user %s, told to try again: %r", where or _describe(interaction),
                    interaction.user.id, original)
    elif expected:
        log.info("refused %s for user %s: %s", where or _describe(interaction), interaction.user.id, error)
    else:
        log.error("error in %s", where or _describe(interaction), exc_info=error)
    await reply_ephemeral(interaction, text)


def _describe(interaction: discord.Interaction[MjBot]) -> str:
    if interaction.command is not None:
        return f"/{interaction.command.qualified_name}"
    data = cast(dict[str, Any], interaction.data or {})
    return f"component {data.get('custom_id', '?')}"


class SafeView(discord.ui.View):
    """A view whose callback errors are answered like command errors."""

    async def on_error(self, interaction: discord.Interaction[Any], error: Exception, item: discord.ui.Item[Any]) -> None:
        await report(interaction, error, where=f"{type(self).__name__} {getattr(item, 'custom_id', '')}")


class SafeModal(discord.ui.Modal):
    async def on_error(self, interaction: discord.Interaction[Any], error: Exception) -> None:  # type: ignore[override]  # as discord.ui.Modal's own: no item
        await report(interaction, error, where=type(self).__name__)


class Errors(commands.Cog):
    """Installs the command tree's error handler."""

    def __init__(self, bot: MjBot) -> None:
        self.bot = bot
        self._previous = bot.tree.on_error
        bot.tree.on_error = self.on_app_command_error  # type: ignore[method-assign]  # discord.py: the tree's handler is replaced so

    async def cog_unload(self) -> None:
        self.bot.tree.on_error = self._previous  # type: ignore[method-assign]  # put back on unload

    async def on_app_command_error(self, interaction: discord.Interaction[MjBot], error: app_commands.AppCommandError) -> None:
        await report(interaction, error)


async def setup(bot: MjBot) -> None:
    await bot.add_cog(Errors(bot))
