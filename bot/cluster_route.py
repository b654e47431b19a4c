"""DM clicks routed through PostgreSQL to the process that drives their table (a mixin of
:class:`bot.cluster.Cluster`; docs/sharding.md): where a click on a table this process does not drive is handled,
the queue's router side (a click queued, watched, and answered "the table is moving" if nobody took it) and its
owner side (the queued clicks of this process's shards taken and fed to its discord.py).

A process whose lease connection is down cannot tell which process drives what: it acts on no such click, and tells
the player the bot cannot reach its database, once a live owner has had its moment to answer first
(:meth:`Routing.answer_blind`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import asyncpg
import discord

from text.lang import lang_for

from .cluster_dispatch import RAW_INTERACTION
from .cluster_lease import DB_ERRORS, LEASE_CLASS, THIS_DB, lease_key
from .cluster_queue import mark_answered, queue_click, take_clicks, verdict
from .i18n import t
from .ids import db_id

log = logging.getLogger("bot.cluster")


class Blind(Exception):
    """The lease connection is down: this process cannot tell which process drives what."""


def now_ms() -> int:
    return int(time.time() * 1000)


class Routing:
    """The routed clicks of :class:`bot.cluster.Cluster` (which gives the attributes and methods declared here)."""

    if TYPE_CHECKING:
        count: int
        held: set[int]
        conn: asyncpg.Connection | None
        backend_pid: int | None
        me: str
        closing: bool
        route_timeout: float
        watch_retry: float
        token_life: float
        blind_wait: float
        pause: Callable[[float], Awaitable[None]]
        deliver: Callable[[dict[str, Any], int], None] | None
        _guilds: dict[int, int]
        _drain_task: asyncio.Task[None] | None
        _drain_again: bool

        def shard_of(self, guild_id: int) -> int: ...
        def settled(self, shard: int) -> bool: ...
        def _session(self, lease: bool = False) -> contextlib.AbstractAsyncContextManager[asyncpg.Connection | None]: ...
        def _spawn(self, coro: Any, name: str | None = None) -> asyncio.Task[Any]: ...

    async def guild_of(self, match_id: int) -> int | None:
        """The server of the match (None: no such match). :class:`Blind` while the lease connection is down."""
        if db_id(match_id) is None:  # a forged custom id past what the database holds names no table
            return None
        if match_id not in self._guilds:
            async with self._session() as conn:
                if conn is None:
                    raise Blind
                found = await conn.fetchval("SELECT guild_id FROM matches WHERE id = $1", match_id)
            if found is None:
                return None
            self._guilds[match_id] = int(found)
            if len(self._guilds) > 10_000:  # the oldest forgotten (read again when clicked): a forged id is never kept
                self._guilds.pop(next(iter(self._guilds)))
        return self._guilds[match_id]

    async def owner_alive(self, shard: int) -> bool | None:
        """Whether a process holds the shard's lease; None while this process's lease connection is down (it cannot
        know). A failing statement raises (``DB_ERRORS``): it cannot know either."""
        async with self._session() as conn:
            if conn is None:
                return None
            return bool(await conn.fetchval(
                "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = $1 AND objid = $2 "
                f"AND objsubid = 2 AND granted AND {THIS_DB})", LEASE_CLASS, lease_key(self.count, shard)))

    async def knows_owner(self, shard: int) -> bool | None:
        """:meth:`owner_alive`, a failing statement read as None (this process cannot know)."""
        try:
            return await self.owner_alive(shard)
        except DB_ERRORS as e:
            log.info("whether shard %s has an owner could not be read: %s", shard, e)
            return None

    async def place(self, interaction: discord.Interaction[Any], match_id: int, owns: Callable[[int], bool],
                    on_dropped: Callable[[], Awaitable[Any]]) -> str:
        """Where a click on the table ``match_id``, which this process does not drive, is handled:

        - a DM click reaches shard 0's process only: :meth:`route` (``"here"``, ``"moving"``, ``"routed"``,
          ``"ignored"`` or ``"unknown"``);
        - a server's click reaching a process that does not hold the server's shard (a standby running the same shards
          during a restart): the owner gets the same event and answers it (``"elsewhere"``); with no owner,
          ``"moving"``; with no lease connection here to tell, ``"unknown"`` (:meth:`answer_blind`);
        - otherwise ``"here"``.
        """
        if interaction.guild_id is None:
            return await self.route(interaction, match_id, on_dropped)
        if owns(interaction.guild_id):  # its tables just being resumed: not here yet
            return "here" if self.settled(self.shard_of(interaction.guild_id)) else "moving"
        alive = await self.knows_owner(self.shard_of(interaction.guild_id))
        return "unknown" if alive is None else "elsewhere" if alive else "moving"

    async def route(self, interaction: discord.Interaction[Any], match_id: int,
                    on_dropped: Callable[[], Awaitable[Any]]) -> str:
        """What to do with a DM click on the table ``match_id`` that this process does not drive:

        - ``"here"``: the table is this process's own (or unknown): handle it here as usual;
        - ``"moving"``: no process holds the table's shard: answer "the table is moving" (nothing changes);
        - ``"routed"``: deferred and queued for the owner, which answers it (``on_dropped()`` is awaited if no
          owner takes it within ``route_timeout``: answer "the table is moving" then);
        - ``"ignored"``: a duplicate delivery, or an interaction Discord would not let us acknowledge (forged or
          expired): nothing is queued;
        - ``"unknown"``: this process's lease connection is down (the database failing over, say): it cannot tell
          who drives the table, so it neither plays nor routes the click (:meth:`answer_blind`).
        """
        if "routed" in interaction.extras:  # delivered by the queue already: never routed twice
            # its table stays here unless this process lost the shard since it took the click (then it plays on
            # once another process takes the shard: the player tries again)
            return "here" if self.settled(interaction.extras["routed"]) else "moving"
        if self.conn is None or self.conn.is_closed():
            return "unknown"
        try:
            guild = await self.guild_of(match_id)
        except (Blind, *DB_ERRORS) as e:
            log.info("routed click %s: the table's server could not be read: %r", interaction.id, e)
            return "unknown"
        if guild is None:
            return "here"
        shard = self.shard_of(guild)
        if shard in self.held:  # its tables just being resumed here: the table is not back yet
            return "here" if self.settled(shard) else "moving"
        alive = await self.knows_owner(shard)
        if not alive:
            return "unknown" if alive is None else "moving"
        try:
            await interaction.response.defer()
        except (discord.HTTPException, discord.InteractionResponded) as e:
            log.info("routed click %s not acknowledged (%s): not queued", interaction.id, e)
            return "ignored"
        data = RAW_INTERACTION.get()
        if not data or str(data.get("id")) != str(interaction.id):
            log.warning("routed click %s: its payload is not known here: not queued", interaction.id)
            return "ignored"
        try:
            async with self._session() as conn:
                if conn is None:  # deferred, and the database out of reach just now: nothing queued
                    raise Blind
                queued = await queue_click(conn, int(interaction.id), self.count, shard, match_id, data)
        except (Blind, *DB_ERRORS) as e:
            log.info("routed click %s could not be queued: %r", interaction.id, e)
            return "unknown"
        if not queued:
            return "ignored"
        self._spawn(self._watch(int(interaction.id), on_dropped), name="mjbot-route-watch")
        return "routed"

    async def answer_blind(self, interaction: discord.Interaction[Any], lang: str | None = None) -> None:
        """An interaction this process cannot place (its lease connection is down: it cannot tell which process
        drives what, nor whether one does). It acts on nothing, and tells the player that the bot cannot reach its
        database (try again); but not before ``blind_wait`` has passed, unless it has acknowledged the interaction
        already: Discord delivers a shard's events to every connection running it, and a live owner, which answers
        within Discord's 3 s, must answer first (an answer from here could win the race, and leave the owner's unsent
        while its move stands). Discord refuses a second answer to one interaction: then nothing is said here."""
        if interaction.type not in (discord.InteractionType.application_command, discord.InteractionType.component,
                                    discord.InteractionType.modal_submit):
            return  # (an autocomplete takes no message)
        if not interaction.response.is_done():
            await self.pause(self.blind_wait)
        text = t("error.lease_unreachable", lang or lang_for(interaction))
        try:
            if interaction.response.is_done():
                await interaction.followup.send(text, ephemeral=True)
            else:
                await interaction.response.send_message(text, ephemeral=True)
        except (discord.HTTPException, discord.InteractionResponded) as e:  # answered by the owner (or expired)
            log.info("interaction %s, which this process cannot place: not answered here (%s)", interaction.id, e)

    async def _watch(self, interaction_id: int, on_dropped: Callable[[], Awaitable[Any]]) -> None:
        """After ``route_timeout``: a click no owner took is dropped, and one taken by a process gone since, never
        answered, is orphaned; the player is told to try again. With the connection gone just then (the database
        restarting), it looks again every ``watch_retry`` once the lease check has reconnected, while the click's
        token lives: before, it said nothing, and the player's click kept thinking until Discord gave up on it."""
        loop = asyncio.get_running_loop()
        give_up = loop.time() + self.token_life
        await asyncio.sleep(self.route_timeout)
        while True:
            try:
                verdict = await self._verdict(interaction_id)
            except DB_ERRORS as e:
                log.info("routed click %s: its state could not be read: %s", interaction_id, e)
                verdict = None
            if verdict is not None:
                break
            if self.closing or loop.time() + self.watch_retry > give_up:
                log.warning("routed click %s: the database stayed out of reach while its token lived: not answered",
                            interaction_id)
                return
            await asyncio.sleep(self.watch_retry)
        dropped, orphaned = verdict
        if orphaned:
            log.warning("routed click %s: the process that took it is gone: told to try again", interaction_id)
        if dropped or orphaned:
            if dropped:
                log.warning("routed click %s was not taken in %.0f s: dropped", interaction_id, self.route_timeout)
            with contextlib.suppress(discord.HTTPException):
                await on_dropped()

    async def _verdict(self, interaction_id: int) -> tuple[bool, bool] | None:
        """(dropped now: no owner took it; orphaned: taken by a process whose lease session has ended since, never
        answered), or None with no connection."""
        async with self._session() as conn:
            if conn is None:
                return None
            dropped, orphaned = await verdict(conn, interaction_id)
        return dropped, orphaned

    async def answered(self, interaction_id: int) -> None:
        """A routed click taken here has been handled (applied or refused, and answered): its router has nothing
        to make good (the taken row's payload reads ``answered``). Never fails: at worst the router, seeing this
        process gone too, tells the player to try again."""
        try:
            async with self._session() as conn:
                if conn is not None:
                    await mark_answered(conn, interaction_id)
        except DB_ERRORS as e:
            log.info("routed click %s: its answer could not be noted: %s", interaction_id, e)

    def _notified(self, conn: Any, pid: int, channel: str, payload: str) -> None:
        count, _, shard = payload.partition(":")
        if count == str(self.count) and shard.isdigit() and self.settled(int(shard)):
            self._kick_drain()

    def _kick_drain(self) -> None:
        if self.closing or not self.held:
            return
        if self._drain_task is None or self._drain_task.done():
            self._drain_task = self._spawn(self._drain(), name="mjbot-cluster-drain")
        else:
            self._drain_again = True

    async def _drain(self) -> None:
        while not self.closing:
            self._drain_again = False
            try:
                taken = await self._take_clicks()
            except DB_ERRORS as e:
                # the connection failed (taken for lost if it is closed): the queue is polled again at the next
                # step, and after the lease comes back
                log.warning("routed clicks could not be taken: %s", e)
                return
            for shard, payload in taken:
                if self.deliver is not None:
                    try:
                        self.deliver(payload, shard)
                    except Exception:
                        log.exception("a routed click could not be applied")
            if not taken and not self._drain_again:
                return

    async def _take_clicks(self) -> list[tuple[int, dict[str, Any]]]:
        async with self._session() as conn:
            # (not those of a shard whose tables are still being resumed: taken once they are in)
            shards = sorted(s for s in self.held if self.settled(s))
            if conn is None or not shards:
                return []
            # a click queued longer ago than a router waits is dropped, never played late
            return await take_clicks(conn, self.count, shards, int(self.route_timeout * 1000), now_ms(),
                                     f"{self.me}@{self.backend_pid}")
