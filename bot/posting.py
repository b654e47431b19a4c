"""What the bot needs to post in a channel, and the refusal that names what it lacks.

Slash commands and button answers work in any channel (an interaction's answer needs no permission), but a table
writes to its channel: the table message and score cards carry images (Attach Files), the lobby is an embed (Embed
Links), and every post needs View Channel and Send Messages (in a thread: Send Messages in Threads; a locked thread
also Manage Threads). Discord sends the bot's permissions in the channel with every interaction
(``interaction.app_permissions``), so a command that would start writing there can refuse up front, naming the
missing permissions as the Discord client shows them in the player's language. ``cogs.help`` checks its welcome post
with the same list.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.i18n import t

#: Discord's limit on a message's text (characters); every message the bot writes fits it
MESSAGE_LIMIT = 2000

#: Discord's error codes for a write refused because the bot may not post there (its permissions in the channel)
NO_ACCESS = frozenset({
    50001,  # Missing Access: the bot may not see the channel
    50013,  # Missing Permissions: e.g. Send Messages or Attach Files removed
    160005,  # the thread is locked
})


def missing_to_post(perms: discord.Permissions, *, thread: bool = False, locked: bool = False, files: bool = True,
                    embeds: bool = True) -> list[str]:
    """The permissions (discord.py's flag names, in the order Discord lists them) that ``perms`` lacks for posts in
    a channel (``thread``: a thread; ``locked``: a locked one) carrying images (``files``) and embeds (``embeds``)."""
    need = ["view_channel", "send_messages_in_threads" if thread else "send_messages"]
    if thread and locked:
        need.append("manage_threads")
    if embeds:
        need.append("embed_links")
    if files:
        need.append("attach_files")
    return [name for name in need if not getattr(perms, name)]


def refusal_may_pass(guild: discord.Guild | None, channel_id: int) -> bool | None:
    """What the gateway's cache says of a post that Discord just refused (403) in the channel ``channel_id`` of
    ``guild``: True when the refusal may pass, because the bot's member is timed out (a moderator's Timeout: Discord
    refuses every post in the server until it ends) or its permissions there still allow a table's posts (a one-off
    refusal); False when they lack what a table needs (:func:`missing_to_post`); None when the cache cannot tell
    (the server, the bot's member or the channel is not in it)."""
    me = guild.me if guild is not None else None
    if guild is None or me is None:
        return None
    if me.is_timed_out():
        return True
    channel = guild.get_channel_or_thread(channel_id)
    if channel is None or isinstance(channel, discord.CategoryChannel):
        return None
    thread = isinstance(channel, discord.Thread)
    try:
        perms = channel.permissions_for(me)
    except discord.ClientException:  # a thread whose parent is not in the cache
        return None
    return not missing_to_post(perms, thread=thread, locked=bool(thread and getattr(channel, "locked", False)))


def named(missing: list[str], lang: str) -> str:
    """The permissions ``missing`` by the names Discord's client shows in ``lang``, joined as a list."""
    return t("perm.sep", lang).join(t(f"perm.{name}", lang) for name in missing)


def post_refusal(interaction: discord.Interaction[Any], lang: str) -> str | None:
    """What to answer, in ``lang``, to a command that would post a table in the interaction's channel where the bot
    may not (None: it may). Only in a server: a DM has no such permissions."""
    if interaction.guild_id is None:
        return None
    channel = interaction.channel
    thread = isinstance(channel, discord.Thread)
    locked = bool(thread and getattr(channel, "locked", False))
    missing = missing_to_post(interaction.app_permissions, thread=thread, locked=locked)
    if not missing:
        return None
    key = "tables.no_post_locked" if "manage_threads" in missing else "tables.no_post"
    return t(key, lang, perms=named(missing, lang))
