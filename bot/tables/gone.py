"""Tables whose place in Discord is gone: their channel (or thread) was deleted, the bot may no longer post there, or
the bot was removed from their server. Such a table has nowhere left to show its Next / I'm back buttons and no /table command reaches it, so it
would hold its players ("You already sit at a table") in every server until a restart: it is ended at once, as by
``/table end`` (the hands already settled stay in the ledger, a hand the store has not settled yet is settled first,
the hand in play counts for nothing), its players are free and each is told by DM, in their own language, why.

How the bot learns it (``cogs.tables`` listens):

* the channel: Discord's CHANNEL_DELETE / THREAD_DELETE (the ``guilds`` intent), or a write to the channel that
  Discord refuses with 404 Unknown Channel (:class:`~bot.tables.publisher.Publisher`);
* the bot's permissions in the channel: a post, table message or strip there that Discord refuses with 403 Missing
  Access (50001) or Missing Permissions (50013), or because the thread is locked (a moderator took the bot's View
  Channel, Send Messages or Attach Files away while the match was in play). A refusal is not final by itself: a
  moderator may time the bot's member out for a while (Discord then refuses every post in the server), or Discord
  may refuse one post once. So each refusal is first checked against the gateway's cache
  (:func:`bot.posting.refusal_may_pass`, :meth:`Gone.refusal_passes`): when the bot is timed out, or its
  permissions in the channel still allow a table's posts, the table plays on and the write is tried again as in an
  outage (the publisher's backoff), and the next refusal is checked again; the table ends when the permissions
  lack what it needs (or the cache cannot tell), or when Discord has refused for ``REFUSAL_LIMIT`` (10 minutes) on
  end (:class:`~bot.tables.publisher.Publisher`). The DM says the bot may no longer post in that channel and which
  permissions it needs. (5xx and 429 are tried again and never end a table; ``/table new``, Start and ``/table
  show`` refuse up front in a channel where the interaction's ``app_permissions`` lack them: :mod:`bot.posting`);
* the server: GUILD_DELETE without ``unavailable`` (a GUILD_DELETE with ``"unavailable": true`` is a Discord outage:
  nothing ends); and, for the tables resumed from the store, once the gateway has delivered the whole list of the
  bot's servers (discord.py's ready, every shard of this process; a lease taken later, its resume) and the table's
  server is not among them (:attr:`Gone.server_left`, the cog's). A server Discord lists as unavailable is among them.

Only the process that drives a table ends it (a standby of its shard holds no such table). Nothing more is posted to
the lost channel (a lobby's message edit, refused there, is dropped): the DMs are the players' news (a DM that Discord
refuses, closed DMs, is logged and dropped).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import discord

from .publisher import Publisher
from .state import LiveTable, Refusal, State
from .strings import t

if TYPE_CHECKING:
    from bot.seams import Host

log = logging.getLogger(__name__)

#: why a table's place is gone -> the log's words
CAUSES = {"channel": "its channel was deleted", "server": "the bot was removed from its server",
          "access": "Discord refuses the bot's posts in its channel (its permissions there were taken away)"}


class Gone:
    """The part of :class:`~bot.tables.TableManager` that ends the tables whose channel or server is gone (a mixin:
    it uses the manager's lock discipline, store and publisher)."""

    bot: Host
    publisher: Publisher
    by_channel: dict[int, LiveTable]
    closing: bool
    store_backoff: tuple[float, ...]
    #: ``server_left(guild_id)``: True when the gateway has delivered every server of the guild's shard and the bot
    #: is not in that one (set by ``cogs.tables``; None: never known, as in a process without a gateway)
    server_left: Callable[[int], bool] | None = None
    #: ``listed()``: True once the gateway has listed every server of this process's shards (discord.py's ready; set
    #: by ``cogs.tables``; None: no gateway to wait for)
    listed: Callable[[], bool] | None = None
    #: tables whose channel refused the bot's writes (403) before the servers were listed, by channel: ended once
    #: they are (a server the bot was removed from refuses them too, and its players are told that instead)
    refused: dict[int, LiveTable]
    #: ``may_post(guild_id, channel_id)``: what the gateway's cache says of a 403 there
    #: (:func:`bot.posting.refusal_may_pass`: True it may pass, False the permissions lack, None the cache cannot
    #: tell; set by ``cogs.tables``; None: no cache, every such refusal ends the table)
    may_post: Callable[[int, int], bool | None] | None = None

    if TYPE_CHECKING:  # the manager's own methods
        def owns(self, guild_id: int) -> bool: ...
        def _spawn(self, coro: Any, name: str | None = None) -> asyncio.Task[Any]: ...
        async def _keep_lobby(self, lt: LiveTable, undo: Callable[[], Any], *, gone: bool = False,
                              adding: int | None = None) -> None: ...
        async def _end_in_store(self, lt: LiveTable, reason: str) -> None: ...
        def _close_lobby(self, lt: LiveTable, key: str) -> None: ...
        async def _close(self, lt: LiveTable, text: str | None, why: str = "table_closed", *, summary: bool = True,
                         channel: bool = True) -> None: ...

    def channel_deleted(self, channel_id: int) -> None:
        """Discord deleted the channel or thread ``channel_id``: its table or lobby (if this process drives one
        there) ends."""
        lt = self.by_channel.get(channel_id)
        if lt is not None and not lt.closed and self.owns(lt.guild_id):
            self._spawn(self._channel_gone(lt), name=f"mjbot-gone-{lt.channel_id}")

    def channel_lost(self, lt: LiveTable, cause: str) -> None:
        """A write to the table's channel was refused for good (:class:`~bot.tables.publisher.Publisher`): the channel
        is gone (``cause`` "channel", 404 Unknown Channel) or the bot may not post there any more ("access", 403
        Missing Access / Missing Permissions): the table or lobby ends, if this process still drives it."""
        if lt.closed or not self.owns(lt.guild_id):
            return
        if cause == "access":
            if self.listed is not None and not self.listed():
                self.refused[lt.channel_id] = lt  # (servers_left ends it, once it can tell which it is)
                return
            if self.server_left is not None and self.server_left(lt.guild_id):
                cause = "server"
        self._spawn(self._channel_gone(lt, cause), name=f"mjbot-gone-{lt.channel_id}")

    def refusal_passes(self, lt: LiveTable) -> bool:
        """Discord refused a write to the table's channel (403): True when the gateway's cache says it may pass
        (the bot's member is timed out, or its permissions there still allow a table's posts), so the table plays on
        and the write is tried again; False when the table is to end (:meth:`channel_lost`)."""
        verdict = None if self.may_post is None else self.may_post(lt.guild_id, lt.channel_id)
        if verdict:
            log.warning("table %s in %s: Discord refused a post, but the bot may still post there (or is timed out):"
                        " tried again", lt.id, lt.channel_id)
        return bool(verdict)

    def server_removed(self, guild_id: int) -> None:
        """The bot was removed from the server ``guild_id`` (not an outage): every table and lobby of it that this
        process drives ends."""
        for lt in list(self.by_channel.values()):
            if lt.guild_id == guild_id and not lt.closed and self.owns(guild_id):
                self._spawn(self._channel_gone(lt, "server"), name=f"mjbot-gone-{lt.channel_id}")

    def servers_left(self) -> None:
        """The tables of servers the bot is no longer in (:attr:`server_left`) end: at start-up once the gateway has
        listed the bot's servers, and after every resume from the store; so do the tables whose channel refused the
        bot's writes meanwhile (:attr:`refused`)."""
        left = self.server_left
        pending, self.refused = self.refused, {}
        if left is not None:
            for guild_id in {lt.guild_id for lt in self.by_channel.values() if not lt.closed}:
                if guild_id and left(guild_id):
                    log.warning("server %s: the bot is not in it any more: its tables end", guild_id)
                    self.server_removed(guild_id)
        for lt in pending.values():  # refused while the servers were not listed yet, in a server the bot is in
            if left is None or not left(lt.guild_id):
                self.channel_lost(lt, "access")

    async def _channel_gone(self, lt: LiveTable, cause: str = "channel") -> None:
        """The table's channel was deleted (``cause`` "channel") or the bot was removed from its server ("server"):
        the table is ended as by ``/table end`` (its settled hands stay, a hand the store has not settled yet is
        settled first), retried while the store does not answer; nothing is written to the channel; its players'
        hand messages lose their controls, each player is told by DM why, and they may sit at another table."""
        n = 0
        while not self.closing:
            async with lt.lock:
                if lt.closed:
                    return
                lobby = lt.state is State.LOBBY
                try:
                    if lobby:
                        await self._keep_lobby(lt, lambda: None, gone=True)
                    else:
                        await self._end_in_store(lt, CAUSES[cause])
                except Refusal:
                    pass
                else:
                    log.warning("table %s in %s: %s: the table is ended", lt.id, lt.channel_id, CAUSES[cause])
                    players = [(s.user_id, s.lang) for s in lt.seats if s is not None and s.user_id is not None]
                    if lobby:
                        self._close_lobby(lt, "tables.channel_gone")
                    else:
                        await self._close(lt, None, summary=False, channel=False)
                    for user_id, lang in players:
                        self._tell(lt, user_id, t(f"tables.gone_dm.{cause}", lang, channel=lt.channel_id))
                    return
            await asyncio.sleep(self.store_backoff[min(n, len(self.store_backoff) - 1)])
            n += 1

    def _tell(self, lt: LiveTable, user_id: int, text: str) -> None:
        """A DM to the player (a new message: it notifies them), queued with the table's writes."""
        async def send() -> None:
            try:
                dm = await self.bot.create_dm(discord.Object(user_id))
                await dm.send(text)
            except discord.Forbidden as e:  # closed DMs: nothing else reaches them
                log.info("table %s: %s not told by DM that the table ended (%s)", lt.id, user_id, e.code)

        self.publisher.call(lt, send)
