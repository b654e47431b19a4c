"""Several bot processes over one PostgreSQL database: which process drives which table, and DM clicks routed to it.

A table belongs to the process that runs its server's shard (:mod:`bot.shards`). Ownership is a **lease**: a
session-level advisory lock per shard, ``pg_try_advisory_lock(LEASE_CLASS, count * 65536 + shard)``, held on a
connection of its own (not the store's). PostgreSQL releases a session's locks when the session ends, so a process
that stops, crashes or is killed with ``kill -9`` frees its shards at once (the server sees the socket close), and a
process whose connection the server drops has lost them. Only the holder of a shard's lock resumes, opens and plays
that shard's tables; a second process started with an overlapping shard set holds nothing of what is taken and
waits (a standby), taking each shard the moment it is free, and resuming its tables from the store.

Every step of the lease is checked by the connection that holds it (:meth:`Cluster.step`, every ``tick`` seconds):
a lost lock drops the tables of those shards from memory at once (no write: the store has them), then the process
tries to take them again. What is left is fenced in the store (:mod:`bot.store.fence`): taking a lease bumps the
shard's epoch, which every write of a table checks, so a process that has not yet noticed its loss cannot write.
A hung holder (stopped, its event loop blocked: no statement on its lease connection for ``beat_grace``) has its
session ended by a standby, which takes the lease (:class:`bot.cluster_lease.HungOwners`).

DM clicks: Discord delivers every DM event to shard 0's process. For a click on a table it does not drive, that
process defers the interaction (within Discord's 3 seconds), writes the click to ``routed_clicks`` (the interaction
id is the key: a duplicate delivery is written once) and ``NOTIFY``\\ s the owners. The owner ``LISTEN``\\ s, takes
the row (``queued`` -> ``taken`` in one statement: exactly one taker) and feeds the click to its own discord.py as an
already deferred interaction, so the move is applied by the usual code and answered through the interaction's
token (webhook edits and follow-ups). A NOTIFY lost while the owner restarts is made good by the queue: every
owner also polls it each ``tick`` and when it takes a shard. A click whose table's owner is down (no one holds the
lease), or that no owner took within ``route_timeout`` seconds (then it is ``dropped`` in one statement, so it is
either applied or dropped, never both), is answered "the table is moving, try again in a moment" and changes
nothing. The routed clicks are :mod:`bot.cluster_route`'s (a mixin of :class:`Cluster`), and a process whose lease
connection is down acts on no click of a table it does not drive: it cannot tell who drives it
(:meth:`Cluster.answer_blind`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import asyncpg

from .cluster_lease import (
    DB_ERRORS,
    LEASE_CLASS,
    SETUP_KEY,
    HungOwners,
    end_session,
    held_shards,
    holders,
    other_counts,
    take,
)
from .cluster_queue import CHANNEL, clear_old
from .cluster_route import Routing, now_ms
from .cluster_turns import Turns
from .shards import ShardPlan, shard_of

log = logging.getLogger(__name__)

class ClusterError(Exception):
    """A process that must not run as configured (the message says why): exit status 2."""


class Cluster(Routing):
    """One process's leases and routed clicks. ``owns_guild`` says whether a server's tables are this process's.

    ``on_gain(shards)`` is awaited after shards are taken (resume their tables), ``on_lose(shards)`` after shards
    are lost (drop their tables), ``deliver(payload, shard)`` for each routed click taken (apply it)."""

    #: seconds between lease checks and queue polls
    tick = 2.0
    #: seconds a routed click waits to be taken before "the table is moving"
    route_timeout = 10.0
    #: seconds a router whose connection is gone when a routed click's wait ends waits before it looks again (the
    #: lease check reconnects meanwhile)
    watch_retry = 2.0
    #: seconds after a click its router may still answer it (Discord keeps an interaction's token 15 minutes)
    token_life = 14 * 60.0
    #: seconds a start waits for a lease still held (a killed predecessor's session may still be closing)
    lease_wait = 3.0
    #: seconds the lease check waits for the server's answer before the shards are given up
    check_timeout = 10.0
    #: seconds a take waits for a previous holder's write (the epoch's row lock) before it leaves that shard to a
    #: later round: the lease connection, which every routed click uses too, is not held longer than that
    take_wait = 0.5
    #: seconds a process whose lease connection is down leaves an interaction to a live owner before it says it
    #: cannot reach its database (Discord allows 3 for the first answer): :meth:`answer_blind`
    blind_wait = 2.5
    #: seconds a lease's holder may go without a statement on its lease connection (its beat, every ``tick``)
    #: before a standby ends its session and takes the lease (a hung owner: stopped, frozen, its event loop blocked)
    beat_grace = 30.0

    def __init__(self, url: str, plan: ShardPlan) -> None:
        self.url = url
        self.plan = plan
        self.count, self.shards = plan.lease_keys()
        self.held: set[int] = set()
        # held shards whose tables are still being resumed (taken by a round, not yet through ``on_gain``): their
        # clicks are told the table is moving, never that it is over (:meth:`settled`)
        self.settling: set[int] = set()
        self.epochs: dict[int, int] = {}  # the epoch each lease got when taken (bot.store.fence: what writes check)
        self.conn: asyncpg.Connection | None = None
        self.backend_pid: int | None = None
        self.me = f"{socket.gethostname()}:{os.getpid()}"
        self.on_gain: Callable[[set[int]], Awaitable[None]] | None = None
        self.on_lose: Callable[[set[int]], Awaitable[None]] | None = None
        self.deliver: Callable[[dict[str, Any], int], None] | None = None
        self.closing = False
        self._lock = Turns()  # one statement at a time on the connection, the lease's own first
        self._loop_task: asyncio.Task[None] | None = None
        self._drain_task: asyncio.Task[None] | None = None
        self._drain_again = False
        self._guilds: dict[int, int] = {}  # match id -> its server; only ids of real matches, the newest 10,000
        self._tasks: set[asyncio.Task[Any]] = set()
        self._steps = 0
        self._losing: asyncio.Task[None] | None = None  # dropping the tables of a lost connection's shards
        # on_gain and on_lose one at a time: a loss noticed while a gain's tables are still being resumed drops them
        # once they are in, not before (they would stay, stale, in a process that no longer drives them)
        self._handlers = asyncio.Lock()
        self.clock: Callable[[], float] = time.monotonic  # times the hung owners' silence (tests set it)
        self.pause: Callable[[float], Awaitable[None]] = asyncio.sleep  # waits out blind_wait (tests set it)
        self._hung = HungOwners()

    # ------------------------------------------------------------------------------------------- ownership

    def shard_of(self, guild_id: int) -> int:
        return shard_of(guild_id, self.count)

    def owns_guild(self, guild_id: int) -> bool:
        """Whether this process holds the lease of the server's shard now."""
        return self.shard_of(guild_id) in self.held

    def settled(self, shard: int) -> bool:
        """Whether the shard's tables are in this process: held, and not being resumed since it was taken."""
        return shard in self.held and shard not in self.settling

    def settling_guild(self, guild_id: int) -> bool:
        """Whether the server's shard was just taken here and its tables are not back yet (a click on one of them
        finds no table: "the table is moving, try again", never "the table is over")."""
        shard = self.shard_of(guild_id)
        return shard in self.held and shard in self.settling

    def epoch(self, shard: int) -> int | None:
        """The store's fence (:class:`bot.store.fence.Fence`): the shard's epoch while its lease is held."""
        return self.epochs.get(shard) if shard in self.held else None

    @classmethod
    async def open(cls, url: str, plan: ShardPlan, **settings: Any) -> Cluster:
        """Connect, take every lease of ``plan`` that is free (waiting up to ``lease_wait`` for one still held),
        and listen for routed clicks. :class:`ClusterError` when another process runs another shard count."""
        self = cls(url, plan)
        for k, v in settings.items():
            setattr(self, k, v)
        await self._connect()
        self._spawn(self._beats(), name="mjbot-cluster-beat")  # from now: the start-up's resume may take a while
        loop = asyncio.get_running_loop()
        deadline = loop.time() + self.lease_wait
        try:
            await self._take_free()
            while set(self.shards) - self.held and loop.time() < deadline:
                await asyncio.sleep(0.05)
                await self._take_free()
        except BaseException:
            await self.close()
            raise
        self.settling = set()  # the start-up resumes them (the bot's ``tables_follow_leases``), before any event comes
        missing = sorted(set(self.shards) - self.held)
        if missing:
            log.warning("shards %s of %d are held by another process: waiting for them (standby)", missing,
                        self.count)
        log.info("holding the leases of shards %s of %d", sorted(self.held), self.count)
        return self

    async def _connect(self) -> None:
        conn = await asyncpg.connect(self.url, timeout=10, server_settings={
            "application_name": "mjbot-lease",
            # a peer that vanished without closing (a machine lost) is noticed within about a minute
            "tcp_keepalives_idle": "20", "tcp_keepalives_interval": "5", "tcp_keepalives_count": "4"})
        try:  # set up before anything else may use it (a statement of another task's would meet these midway)
            async with asyncio.timeout(self.check_timeout):
                pid = int(await conn.fetchval("SELECT pg_backend_pid()"))
                await conn.add_listener(CHANNEL, self._notified)
        except BaseException:
            conn.terminate()
            raise
        self.conn, self.backend_pid = conn, pid
        conn.add_termination_listener(self._terminated)

    def _terminated(self, conn: Any) -> None:
        """The lease connection has closed (the server's locks went with it): its shards stop being this process's
        at once, without waiting for the lock a statement may hold, and their tables are dropped (``on_lose``). A
        :meth:`step` reconnects (a closed connection reads as none), but not before those tables are dropped."""
        if conn is self.conn and not self.closing:
            lost, self.held = set(self.held), set()
            if lost:
                self._losing = self._spawn(self._lost_connection(lost), name="mjbot-cluster-lost")

    async def _lost_connection(self, lost: set[int]) -> None:
        log.error("the lease connection is gone: shards %s are no longer this process's", sorted(lost))
        await self._lose(lost)

    def following(self) -> asyncio.Lock:
        """Held while this process's tables follow its leases: a gain's tables resumed, a loss's dropped, one at a
        time. The start-up's resume holds it too (the bot's ``tables_follow_leases``), so that a loss noticed while
        it runs drops those tables once they are in."""
        return self._handlers

    async def _lose(self, lost: set[int]) -> None:
        async with self._handlers:
            if self.on_lose is not None:
                await self.on_lose(lost)

    async def _gain(self, gained: set[int]) -> None:
        try:
            async with self._handlers:
                if self.on_gain is not None:
                    await self.on_gain(gained)
        finally:  # their tables are in (or their resume failed: whatever is not in is not coming back this way)
            self.settling -= gained
            self._kick_drain()  # the routed clicks of those shards were left queued meanwhile

    @contextlib.asynccontextmanager
    async def _session(self, lease: bool = False) -> AsyncIterator[asyncpg.Connection | None]:
        """The lease connection for a few statements, one user at a time, the ``lease``'s own first (None when there
        is no open one). A connection found closed when they are done is taken for lost here, as its termination
        callback takes it: asyncpg ends a connection that fails while a statement is being sent (the server gone
        just then) without calling its termination listeners, and the loss would otherwise wait for a :meth:`step`."""
        async with self._lock.turn(lease):
            conn = self.conn
            try:
                yield None if conn is None or conn.is_closed() else conn
            finally:
                if conn is not None and conn.is_closed():
                    self._terminated(conn)

    async def _other_counts(self, conn: asyncpg.Connection) -> list[int]:
        return await other_counts(conn, self.count)

    async def _take_free(self) -> set[int]:
        """Take every lease of ours that is free; the newly taken shards. Nothing while another process is taking
        leases (it holds the setup key): waiting for it would make a stalled process stall every other's checks;
        the next round tries again."""
        gained: set[int] = set()
        if not set(self.shards) - self.held:
            return gained
        async with self._session(lease=True) as conn:
            if conn is None:
                return gained
            async with conn.transaction():
                if not await conn.fetchval("SELECT pg_try_advisory_xact_lock($1, $2)", LEASE_CLASS, SETUP_KEY):
                    return gained
                others = await self._other_counts(conn)
                if others:
                    raise ClusterError(
                        f"another process runs this bot with shard count {others[0]} on this database, and this "
                        f"one with {self.count}: every process must use the same --shard-count")
                for shard in self.shards:
                    if shard in self.held:
                        continue
                    # (waits a moment for a previous holder's write; longer, and the shard waits for a later round)
                    epoch = await take(conn, self.count, shard, int(self.take_wait * 1000))
                    if epoch is not None:
                        self.epochs[shard] = epoch
                        self.settling.add(shard)
                        self.held.add(shard)
                        gained.add(shard)
        return gained

    async def _beats(self) -> None:
        """Every ``tick`` while a lease is held: :meth:`beat`, the proof that this process lives (bounded as a check:
        no answer, and the shards are given up)."""
        while not self.closing:
            await asyncio.sleep(self.tick)
            lost = await self._bounded("the lease's beat", self.beat) if self.held else set()
            if lost:
                self._losing = self._spawn(self._lost_connection(lost), name="mjbot-cluster-lost")

    async def beat(self) -> set[int]:
        """A statement on the lease connection: its session's last activity moves (:class:`HungOwners`)."""
        async with self._session(lease=True) as conn:
            if conn is not None:
                await conn.execute("SELECT 1")
        return set()

    async def _end_hung(self) -> set[int]:
        """End the sessions of the holders of our missing shards that have been silent for ``beat_grace``: their
        leases are free then (the store's fence keeps such a holder from writing when it wakes)."""
        async with self._session(lease=True) as conn:
            missing = set(self.shards) - self.held
            if conn is None or not missing:
                return set()
            for pid, mark in self._hung.hung(await holders(conn, self.count, missing), self.clock(),
                                             self.beat_grace).items():
                await end_session(conn, pid, mark, int(self.check_timeout * 500), self.beat_grace)
        return set()

    async def _check_held(self) -> set[int]:
        """The shards whose lock this session no longer holds (lost)."""
        async with self._session(lease=True) as conn:
            if conn is None:
                return set()
            have = await held_shards(conn, self.count)
            lost = self.held - have
            self.held -= lost
        return lost

    def start(self) -> None:
        """Start the background work: lease checks and retries, and the queue poll (the first at once)."""
        if self._loop_task is None:
            self._loop_task = asyncio.get_running_loop().create_task(self._run(), name="mjbot-cluster")
            self._kick_drain()

    async def _run(self) -> None:
        while not self.closing:
            await asyncio.sleep(self.tick)
            try:
                await self.step()
            except ClusterError as e:
                log.error("%s", e)
            except Exception:
                log.exception("lease check failed")

    async def step(self) -> None:
        """One round: reconnect if needed, drop lost shards, take free ones, poll the queue. Nothing while the tables
        of a lost connection's shards are still being dropped (a table's move may hold it a while: a store write
        retrying while the database restarts): a shard taken back before its old table has stopped here would
        stay this process's with that table dropped and not resumed (it was still in memory when the shard came
        back), played by nobody."""
        if self.closing:
            return
        if self._losing is not None and not self._losing.done():
            return
        if self.conn is None or self.conn.is_closed():
            lost, self.held = set(self.held), set()
            if lost:
                await self._lose(lost)
            try:
                await self._connect()
            except DB_ERRORS as e:
                log.warning("cannot reach PostgreSQL for the leases: %s", e)
                return
        lost = await self._bounded("the lease check", self._check_held)
        if lost:
            log.error("the leases of shards %s are gone: their tables stop here", sorted(lost))
            await self._lose(lost)
        await self._bounded("ending hung owners' sessions", self._end_hung, give_up=True)
        gained = await self._bounded("taking the free leases", self._take_free, give_up=True)
        if gained:
            log.info("took the leases of shards %s of %d", sorted(gained), self.count)
            await self._gain(gained)
        self._steps += 1
        if self._steps % 100 == 0:
            await self._bounded("clearing old routed clicks", self._clear_old, give_up=True)
        self._kick_drain()

    async def _bounded(self, what: str, statements: Callable[[], Awaitable[set[int]]], give_up: bool = False
                       ) -> set[int]:
        """A round's ``statements`` (their shards), bounded: the server's answer within ``check_timeout``, the
        wait for the connection included (a statement hung on a silent network holds it; asyncpg keeps no time of
        its own). Past it the connection is ended, which fails whatever waits on it at once (a cancelled statement
        would wait for the server's answer to the cancel), and every shard is given up as for any lost connection.
        A failure gives every shard up too: from the check, the shards given up are its answer (lost); otherwise
        (``give_up``) they are dropped here and the answer is empty."""
        timer = asyncio.get_running_loop().call_later(self.check_timeout, self._expire, self.conn, what)
        try:
            return await statements()
        except DB_ERRORS as e:
            lost = self._give_up(what, e)
            if give_up and lost:
                await self._lose(lost)
                return set()
            return set() if give_up else lost
        finally:
            timer.cancel()

    def _expire(self, conn: asyncpg.Connection | None, what: str) -> None:
        if conn is not self.conn or conn is None or conn.is_closed():
            return
        log.error("%s got no answer in %.0f s: the lease connection is ended", what, self.check_timeout)
        conn.terminate()

    async def _clear_old(self) -> set[int]:
        async with self._session(lease=True) as conn:
            if conn is not None:
                await clear_old(conn, now_ms())
        return set()

    def _give_up(self, what: str, e: BaseException) -> set[int]:
        """No answer (or a failure) from the server: the session, and its locks, may be gone already. Stop driving
        at once: the connection is ended (what hung on it fails) and every shard given up until a later step takes
        it again. The shards given up."""
        log.error("%s failed (%s): the shards are dropped until the server answers again", what,
                  str(e) or type(e).__name__)
        if self.conn is not None:
            self.conn.terminate()
        self.conn = None
        lost, self.held = set(self.held), set()
        return lost

    # ------------------------------------------------------------------------------------------- end

    def _spawn(self, coro: Any, name: str | None = None) -> asyncio.Task[Any]:
        """A background task of the cluster's, whose failure is logged when it ends (a database failure in one
        line, anything else with its traceback) rather than left for asyncio to report as never retrieved."""
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._task_done)
        return task

    def _task_done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if task.cancelled() or task.exception() is None:
            return
        e = task.exception()
        if isinstance(e, DB_ERRORS):
            log.warning("%s: the database failed: %s", task.get_name(), e)
        else:
            log.error("%s failed", task.get_name(), exc_info=e)

    async def close(self) -> None:
        """Stop, and give the leases back (closing the session releases its locks)."""
        self.closing = True
        tasks = [t for t in (self._loop_task, *self._tasks) if t is not None]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        conn, self.conn = self.conn, None
        self.held = set()
        if conn is not None and not conn.is_closed():
            with contextlib.suppress(Exception):
                await conn.close(timeout=5)

    def kill(self) -> None:
        """As ``kill -9``: the session is dropped, nothing else runs (tests)."""
        self.closing = True
        for t in [t for t in (self._loop_task, *self._tasks) if t is not None]:
            t.cancel()
        if self.conn is not None:
            self.conn.terminate()
