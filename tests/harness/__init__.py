"""Boot the real bot without Discord and talk to it with raw gateway payloads.

    h = await Harness.boot(tmp_path / "bot.db")      # create_bot + setup hooks, as docs/interfaces.md says
    r = await h.slash("score", hand="123m456m789m123p5p+5p", variant="hefei", locale="en-US")
    r.reply.content, r.reply.ephemeral, r.reply.images  # the bot's answer, as Discord stored it
    r2 = await h.click(r.reply, label="Notation help")    # press a button on a message
    h.fake.channel_messages(h.channel_id)             # the channel as everyone sees it
    h.fake.dm_messages(user_id)                        # a player's DMs (hand images ...)
    h.fake.requests                                    # every HTTP request, decoded
    await h.close()

Every request goes through discord.py's real HTTP and webhook transports into :class:`~tests.harness.fake.FakeDiscord`
(see there), which answers as Discord does. Interactions are fed to ``bot._connection.parse_interaction_create``;
:meth:`Harness.settle` waits until the tasks they started have finished.
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import gc
import inspect
import itertools
import sys
import threading
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import discord
from discord import app_commands

from bot.app import MjBot, create_bot
from bot.config import Config
from bot.store.database import WRITE_TASK_PREFIX
from bot.store.paths import db_target
from bot.tables.manager import AHEAD_TASK_PREFIX
from tests.harness import codecache, internals
from tests.harness.fake import (
    CH_DM,
    CH_TEXT,
    Attachment,
    Channel,
    FakeDiscord,
    InteractionRecord,
    Message,
    Request,
    now_iso,
    snowflake,
    user_payload,
)

codecache.install()  # every boot executes the cogs' modules afresh: compile each source once per process

__all__ = [
    "APPLICATION_ID",
    "Attachment",
    "Channel",
    "FakeDiscord",
    "GUILD_ID",
    "CHANNEL_ID",
    "Harness",
    "InteractionRecord",
    "Message",
    "Request",
    "USER_ID",
    "ADMIN_PERMISSIONS",
    "MEMBER_PERMISSIONS",
]

APPLICATION_ID = 1_200_000_000_000_000_001
GUILD_ID = 1_200_000_000_000_000_100
CHANNEL_ID = 1_200_000_000_000_000_200
USER_ID = 1_200_000_000_000_001_001  # the default player; others: any int you like

# What an ordinary member may do in a channel, and a server manager.
# what everyone may do in a harness server (every permission but Administrator, which no channel override limits)
EVERYONE = discord.Permissions(discord.Permissions.all().value & ~discord.Permissions(administrator=True).value)
MEMBER_PERMISSIONS = discord.Permissions(view_channel=True, send_messages=True, read_message_history=True,
                                         use_application_commands=True, embed_links=True, attach_files=True)
ADMIN_PERMISSIONS = MEMBER_PERMISSIONS | discord.Permissions(manage_guild=True)

_OPTION_TYPES = {
    discord.AppCommandOptionType.string: str,
    discord.AppCommandOptionType.integer: int,
    discord.AppCommandOptionType.number: float,
    discord.AppCommandOptionType.boolean: bool,
}


# Awaiting one of these means "waiting for time or for outside input", not "working": settle() does not wait for
# such tasks (turn timers, view timeouts, worker loops on a queue).
_IDLE_AWAITS = {
    ("asyncio.tasks", "sleep"),
    ("asyncio.locks", "wait"),  # Event.wait, Condition.wait
    ("asyncio.queues", "get"),
    ("asyncio.tasks", "wait_for"),
    ("asyncio.timeouts", "__aexit__"),
    # discord.py's per-route bucket (``Ratelimit.acquire``): queued behind a request of the same route, which is
    # itself working (waited for) or parked (a retry's sleep, the global limiter's slot)
    ("discord.http", "acquire"),
}


def _started(task: asyncio.Task[Any]) -> bool:
    """Whether ``task``'s coroutine has taken its first step."""
    coro: Any = task.get_coro()
    return not (inspect.iscoroutine(coro) and inspect.getcoroutinestate(coro) == inspect.CORO_CREATED)


def _between_runs(task: asyncio.Task[Any]) -> bool:
    """Whether ``task`` is a ``discord.ext.tasks`` loop (the bot's schedulers) waiting on its timer for its next run:
    not at work, even when it was found in the middle of a run before (a loop never ends)."""
    coro: Any = task.get_coro()
    frame, code = getattr(coro, "cr_frame", None), getattr(coro, "cr_code", None)
    if frame is None or code is None or (frame.f_globals.get("__name__", ""), code.co_name) != (
            "discord.ext.tasks", "_loop"):
        return False
    handle = getattr(frame.f_locals.get("self"), "_handle", None)  # between two runs: on its timer
    return handle is not None and getattr(task, "_fut_waiter", None) is getattr(handle, "future", False)


def _idle(task: asyncio.Task[Any]) -> bool:
    """Whether ``task`` is parked on a timer, an event or a queue (following ``await other_task`` chains)."""
    coro: Any = task.get_coro()
    seen = 0
    while coro is not None and seen < 100:
        seen += 1
        frame = getattr(coro, "cr_frame", None) or getattr(coro, "gi_frame", None)
        code = getattr(coro, "cr_code", None) or getattr(coro, "gi_code", None)
        if frame is not None and code is not None:
            key = (frame.f_globals.get("__name__", ""), code.co_name)
            if key == ("discord.ext.tasks", "_loop") and _between_runs(task):  # (they run once the bot is ready)
                return True
            if key in _IDLE_AWAITS:
                if key[1] == "sleep":
                    return bool(frame.f_locals.get("delay", 0))
                if key[1] == "wait_for":
                    return frame.f_locals.get("timeout") is not None and frame.f_locals.get("timeout", 0) > 0
                return True
        awaited = getattr(coro, "cr_await", None) or getattr(coro, "gi_yieldfrom", None)
        if isinstance(awaited, asyncio.Task):
            awaited = awaited.get_coro()
        coro = awaited
    return False



class Seen:
    """A listener of the bot's observers (:mod:`bot.observe`): every event in order, read in the shapes tests use."""

    def __init__(self) -> None:
        self.events: list[tuple[str, dict[str, Any]]] = []

    def __call__(self, what: str, data: Any) -> None:
        self.events.append((what, dict(data)))

    def clear(self) -> None:
        self.events.clear()

    def of(self, what: str) -> list[dict[str, Any]]:
        return [d for w, d in self.events if w == what]

    def public_images(self) -> list[tuple[str, Any, int]]:
        """(kind, scene, table seq) of every public table image (table, score, match), in order."""
        return [(d["kind"], d["scene"], d["seq"]) for d in self.of("table_image") if d["public"]]

    def private_images(self) -> list[tuple[int, Any, int]]:
        """(user id, scene, table seq) of every private hand image, in order."""
        return [(d["user"], d["scene"], d["seq"]) for d in self.of("table_image")
                if not d["public"] and d["user"] is not None]

    def score_cards(self) -> list[Any]:
        return [d["scene"] for d in self.of("score_card")]

    def record_cards(self) -> list[Any]:
        return [d["scene"] for d in self.of("record_card")]

    def replay_images(self) -> list[tuple[int, Any]]:
        """(viewer id, ReplayScene) of every replay step image sent."""
        return [(d["viewer"], d["scene"]) for d in self.of("replay_step")]

    def animations(self) -> list[tuple[str, int, int]]:
        """(code, ms, bytes) of every animated replay file sent."""
        return [(d["code"], d["ms"], d["size"]) for d in self.of("replay_animation")]


async def session_gone(url: object, pid: int | None, timeout: float = 30.0) -> None:
    """Wait until the PostgreSQL server has ended the session ``pid`` (a killed process's: its locks are free)."""
    import asyncpg

    if pid is None:
        return
    conn = await asyncpg.connect(str(url))
    try:
        polls = int(timeout / 0.01)  # a count of polls, not a clock deadline: a stalled process misses no event
        while await conn.fetchval("SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1)", pid):
            polls -= 1
            if polls < 0:
                raise TimeoutError(f"the PostgreSQL session {pid} is still there after {timeout} s of polls")
            await asyncio.sleep(0.01)
    finally:
        await conn.close()


class Harness:
    """The bot, booted, plus its fake Discord. One per test (see the ``harness`` fixture in tests/cogs)."""

    # tasks the harness never waits for: view timeouts and other long sleepers
    IGNORED_TASK_MARKERS = internals.VIEW_TIMEOUT_TASK_MARKERS
    # tasks whose exception is re-raised in whoever awaits them (settle() does not raise it a second time)
    AWAITED_BY_CALLER = ("Store.",)
    # the table writers (bot/tables/publisher.py), which settle() does not wait to finish, and how often it looks
    # again whether they are parked (seconds: a polling interval, not a deadline)
    WORKER_PREFIXES = ("mjbot-outbox-",)
    RECHECK = 0.005
    SLICE = 0.05  # settle() waits in slices of at most this many seconds (see there)
    STALL = 1.0  # settle() counts a longer gap between two of its looks (a stall of the whole process) as this long
    WORKER_TURNS = 200  # turns of the event loop settle() watches writers for before it waits RECHECK again

    def __init__(self, bot: MjBot, fake: FakeDiscord) -> None:
        self.bot = bot
        self.fake = fake
        self.guild_id = GUILD_ID
        self.channel_id = CHANNEL_ID
        self.user_id = USER_ID
        self.ignored_task_names: set[str] = set()
        self._command_ids: dict[str, int] = {}
        self._baseline_tasks: set[asyncio.Task[Any]] = set()
        self._tokens = itertools.count(1)
        self.seen = Seen()  # what the bot reported (bot.observe): the scenes of the images it drew

    # ---- boot / shut down --------------------------------------------------------------------------------------

    @classmethod
    async def boot(cls, db_path: str | Path, *, config: Config | None = None, fake: FakeDiscord | None = None,
                   prepare: Callable[[MjBot], None] | None = None) -> Harness:
        """``create_bot(config)`` with ``db_path``, the setup hooks, and a fake Discord under both transports
        (``fake``: an existing one, so that what the bot does while starting lands in the same Discord).
        ``prepare(bot)`` runs before the setup hooks (e.g. to inject the clocks that a start-up already reads)."""
        config = config or Config(token=None, db_path=db_target(db_path) if isinstance(db_path, str) else Path(db_path))
        bot = create_bot(config)
        # AI seats decide inline (the same decisions as the product's worker processes, without starting two
        # processes per test), from the start: tables resumed during the boot included; the pool's own tests
        # (tests/cogs/test_ai_pool.py) and the benchmarks turn it off
        bot.tables.ai.inline = True
        if prepare is not None:
            prepare(bot)
        fake = fake or FakeDiscord(APPLICATION_ID, user_payload(APPLICATION_ID, "mjbot", bot=True))
        if CHANNEL_ID not in fake.channels:  # before the setup hooks: a table resumed at boot writes to it at once
            fake.add_channel(CHANNEL_ID, GUILD_ID)  # (a write to a channel Discord does not know ends its table)
        http = bot.http
        internals.install_session(http, fake.session_for(http))
        http.token = "harness.token"
        await bot._async_setup_hook()
        internals.open_global_gate(http)
        bot.limiter.rate = None  # Discord's global limit is kept where a test turns it on (test_global_limit.py)
        await bot.setup_hook()
        state = bot._connection
        state.user = discord.ClientUser(state=state, data=fake.bot_user)
        state.application_id = APPLICATION_ID
        # the table message is written as soon as Discord answers (tests read it right after settle(); the pacing
        # of the product, 1 edit per second and 5 channel writes per 5 s, is tested where a test turns it on)
        bot.tables.publisher.min_interval, bot.tables.publisher.channel_limit = 0.0, None
        h = cls(bot, fake)
        bot.observers.attach(h.seen)
        h._baseline_tasks = set(asyncio.all_tasks())
        return h

    async def close(self) -> None:
        if getattr(self, "killed", False):
            return  # killed (:meth:`kill`): there is nothing left to shut down
        await self.settle(raise_on_timeout=False)
        await self.bot.close()
        # the bot's start-up froze what it held out of the garbage collector (bot.app.freeze_startup): a process ends
        # with its bot, but a test process boots thousands, so what this one froze becomes collectable again
        gc.unfreeze()

    async def restart(self) -> Harness:
        """Close this bot and boot a new one on the same database and the same Discord (channels, messages)."""
        await self.close()
        new = await Harness.boot(self.bot.config.db_path, config=self.bot.config, fake=self.fake)
        new.fake.channels, new.fake.dm_by_user, new.fake.users = self.fake.channels, self.fake.dm_by_user, self.fake.users
        new.fake.closed_dms, new.fake.requests = self.fake.closed_dms, self.fake.requests
        # interaction tokens outlive a restart on Discord (15 minutes)
        new.fake.interactions, new.fake.expired_tokens = self.fake.interactions, self.fake.expired_tokens
        new.fake.rate_limits, new.fake.faults = self.fake.rate_limits, self.fake.faults
        return new

    async def kill(self, *, prepare: Callable[[MjBot], None] | None = None) -> Harness:
        """As ``kill -9``: the bot stops where it is - its tasks are cancelled, no shutdown runs (nothing is flushed,
        no message edited, a transaction in flight is rolled back with its connection) - and a new bot boots on the
        same database and the same Discord. Only what the old one had already written survives."""
        current = asyncio.current_task()
        doomed = [t for t in asyncio.all_tasks() if t is not current and t not in self._baseline_tasks]
        for t in doomed:
            t.cancel()
        await asyncio.gather(*doomed, return_exceptions=True)
        self.killed = True
        await self.bot.store.kill()  # the process is gone: its connection with it
        if self.bot.cluster is not None:  # and its lease session (PostgreSQL frees its shards' locks)
            pid = self.bot.cluster.backend_pid
            self.bot.cluster.kill()
            await session_gone(self.bot.config.db_path, pid)
        gc.unfreeze()  # what the killed bot froze at its start is garbage now (see close)
        new = await Harness.boot(self.bot.config.db_path, config=self.bot.config, fake=self.fake, prepare=prepare)
        new.fake.channels, new.fake.dm_by_user, new.fake.users = self.fake.channels, self.fake.dm_by_user, self.fake.users
        new.fake.closed_dms, new.fake.requests = self.fake.closed_dms, self.fake.requests
        new.fake.interactions, new.fake.expired_tokens = self.fake.interactions, self.fake.expired_tokens
        new.fake.rate_limits, new.fake.faults = self.fake.rate_limits, self.fake.faults
        return new

    # ---- waiting -----------------------------------------------------------------------------------------------

    def _pending(self) -> list[asyncio.Task[Any]]:
        current = asyncio.current_task()
        out = []
        for task in asyncio.all_tasks():
            if task is current or task in self._baseline_tasks or task.done():
                continue
            coro = task.get_coro()
            qual = getattr(coro, "__qualname__", "") or repr(coro)
            if any(m in qual for m in self.IGNORED_TASK_MARKERS) or task.get_name() in self.ignored_task_names:
                continue
            if _idle(task):
                continue
            out.append(task)
        return out

    def _is_worker(self, task: asyncio.Task[Any]) -> bool:
        return task.get_name().startswith(self.WORKER_PREFIXES)

    async def settle(self, timeout: float = 10.0, *, raise_on_timeout: bool = True) -> None:
        """Wait until every task started since boot (command handlers, view callbacks, events) has finished or is
        parked on a timer, an event or a queue (see ``_idle``); image rendering in threads is waited for.

        A task found working is waited for until it finishes (a ``discord.ext.tasks`` loop: until it waits on its
        timer again, ``_between_runs``), except the table writers (:attr:`WORKER_PREFIXES`):
        they live as long as their table and, while Discord fails, sleep between tries, so they are looked at again
        (at every turn of the event loop for a while, then every :attr:`RECHECK` seconds) and count as settled once
        they are parked."""
        loop = asyncio.get_running_loop()
        # The limit counts the time between two looks, each gap at most STALL seconds: a stall of the whole process
        # (a loaded or paused machine) counts as STALL, so the tasks it held up get their turns of the loop after it
        # before the limit is reached (a clock deadline failed on the first look after a long stall), while a task
        # that holds the loop a while at every turn (a bug) is charged all of it. Waits are cut into slices of
        # SLICE, so that only a stall makes a gap longer than STALL.
        spent, last = 0.0, loop.time()

        def left() -> float:
            nonlocal spent, last
            now = loop.time()
            spent += min(now - last, self.STALL)
            last = now
            return timeout - spent

        working: set[asyncio.Task[Any]] = set()  # found working: waited for until done
        while True:
            for _ in range(3):
                await asyncio.sleep(0)
                left()
            working = {t for t in working if not t.done() and not _between_runs(t)}
            pending = list(working.union(self._pending()))
            # only table writers at work: they park often (between tries), so look at every turn of the loop for a
            # while rather than at the pace of RECHECK, which a writer's own pace could keep in step with
            turns = 0
            while pending and turns < self.WORKER_TURNS and all(self._is_worker(t) for t in pending):
                await asyncio.sleep(0)
                left()
                turns += 1
                pending = self._pending()
            if not pending:
                return
            if left() <= 0:
                if raise_on_timeout:
                    raise TimeoutError(f"tasks still running after {timeout} s: {pending}")
                return
            if any(not _started(t) for t in pending):
                # a task that has not taken its first step is not at work yet (a timer armed just before this look):
                # let it take it and look again, rather than wait for it until it ends (for a timer: until it fires)
                await asyncio.sleep(0)
                continue
            if any(self._is_worker(t) for t in pending):
                done, _ = await asyncio.wait(pending, timeout=min(left(), self.RECHECK),
                                             return_when=asyncio.FIRST_COMPLETED)
            else:
                done, rest = set(), set(pending)
                while rest and left() > 0:  # every one of them, as one wait for all would, in slices
                    got, rest = await asyncio.wait(rest, timeout=min(left(), self.SLICE))
                    done |= got
                    rest = {t for t in rest if not _between_runs(t)}  # a scheduler's run is over: it never ends
            working.update(t for t in pending if not self._is_worker(t))
            for task in done:
                qual = getattr(task.get_coro(), "__qualname__", "")
                if qual.startswith(self.AWAITED_BY_CALLER) or task.get_name().startswith(WRITE_TASK_PREFIX):
                    continue  # the store's write tasks: their error goes to the coroutine awaiting them
                if task.get_name().startswith(AHEAD_TASK_PREFIX):
                    continue  # an AI decision asked ahead: its error goes to the table's run, which awaits it
                if not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]

    # ---- people and places -------------------------------------------------------------------------------------

    def member_payload(self, user_id: int, permissions: discord.Permissions, *, name: str | None = None) -> dict[str, Any]:
        return {
            "user": self.fake.add_user(user_id, name),
            "roles": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "nick": None,
            "permissions": str(permissions.value),
        }

    def add_channel(self, channel_id: int | None = None, *, guild_id: int | None = None, name: str = "mahjong",
                    thread: bool = False, parent_id: int | None = None) -> int:
        """Another channel of the server, or a public thread (of ``parent_id``, default the harness channel);
        returns its id."""
        cid = channel_id or snowflake()
        self.fake.add_channel(cid, guild_id or self.guild_id, name=name, type=11 if thread else CH_TEXT,
                              parent_id=(parent_id or self.channel_id) if thread else None)
        return cid

    def restrict_bot(self, permissions: discord.Permissions | None, channel_id: int | None = None, *,
                     locked: bool = False) -> None:
        """A moderator's overrides in a channel (default the harness channel): the bot has only ``permissions``
        there (None: every permission again); ``locked``: the thread is locked. Interactions there carry them as
        ``app_permissions``, and the fake refuses the posts they do not allow."""
        ch = self.fake.channels[channel_id or self.channel_id]
        ch.bot_permissions = None if permissions is None else permissions.value
        ch.locked = locked
        if ch.guild_id is not None and self.bot.get_guild(ch.guild_id) is not None:  # the gateway tells the bot
            self.gateway("THREAD_UPDATE" if ch.parent_id is not None else "CHANNEL_UPDATE", self._cached(ch))

    def time_out_bot(self, on: bool, guild_id: int | None = None) -> None:
        """A moderator times the bot's member out in a server (default the harness's; ``on`` False: the timeout
        ends): Discord refuses every post there (403 50013) meanwhile, and the gateway says so (GUILD_MEMBER_UPDATE
        with ``communication_disabled_until``)."""
        gid = guild_id or self.guild_id
        (self.fake.timed_out.add if on else self.fake.timed_out.discard)(gid)
        until = (discord.utils.utcnow() + datetime.timedelta(days=1)).isoformat() if on else None
        self.gateway("GUILD_MEMBER_UPDATE", {**self._bot_member(until), "guild_id": str(gid)})

    def _bot_member(self, timed_out_until: str | None = None) -> dict[str, Any]:
        return {"user": self.fake.bot_user, "roles": [], "joined_at": now_iso(), "deaf": False, "mute": False,
                "flags": 0, "communication_disabled_until": timed_out_until}

    def _cached(self, ch: Channel) -> dict[str, Any]:
        """A channel as the gateway shows it to the bot: its overrides for the bot (:meth:`restrict_bot`) included
        (a thread has none of its own: only whether it is locked)."""
        p = ch.payload()
        perms = ch.bot_permissions
        if perms is not None and ch.parent_id is None:
            p["permission_overwrites"] = [{"id": self.fake.bot_user["id"], "type": 1, "allow": str(perms),
                                           "deny": str(EVERYONE.value & ~perms)}]
        return p

    # ---- the gateway -------------------------------------------------------------------------------------------

    def gateway(self, event: str, data: dict[str, Any]) -> None:
        """A gateway event as Discord sends it (``event`` its name, e.g. ``GUILD_DELETE``, ``data`` its raw
        payload), through discord.py's own parser, as its gateway does (``DiscordWebSocket.received_message``)."""
        self.bot._connection.parsers[event](data)

    def guild_payload(self, guild_id: int) -> dict[str, Any]:
        """The GUILD_CREATE of a server of the fake Discord: its channels and threads as the fake has them."""
        chans = [c for c in self.fake.channels.values() if c.guild_id == guild_id and c.type != CH_DM]
        threads = [c.payload() for c in chans if c.parent_id is not None]
        everyone = {"id": str(guild_id), "name": "@everyone", "permissions": str(EVERYONE.value), "position": 0,
                    "color": 0, "hoist": False, "managed": False, "mentionable": False, "flags": 0}
        return {"id": str(guild_id), "name": f"server {guild_id}", "unavailable": False, "member_count": 2,
                "owner_id": str(self.user_id), "features": [], "roles": [everyone], "emojis": [], "stickers": [],
                "members": [self._bot_member()], "voice_states": [], "presences": [], "large": False,
                "channels": [self._cached(c) for c in chans if c.parent_id is None], "threads": threads}

    async def connect(self, guilds: Iterable[int] | None = None, *, unavailable: Iterable[int] = ()) -> None:
        """The bot's gateway connects, as discord.py's does: each shard of this process gets its READY, which names
        every server of the shard (``guilds``, default the harness's; each "unavailable" until its GUILD_CREATE),
        then a GUILD_CREATE for each of those not in ``unavailable``; discord.py then dispatches its ready (every
        shard ready). Returns once that ready's listeners are done."""
        bot, state = self.bot, self.bot._connection
        count = bot.shard_count or 1
        ids = list(bot.shard_ids) if bot.shard_ids is not None else list(range(count))
        bot.shard_count = state.shard_count = count  # (what AutoShardedClient.launch_shards sets)
        state.shard_ids = ids
        state.guild_ready_timeout = 0.01  # how long discord.py waits for one more GUILD_CREATE (all are sent at once)
        servers = list(guilds) if guilds is not None else [self.guild_id]
        down = set(unavailable)
        for shard in ids:
            mine = [g for g in servers if (g >> 22) % count == shard]
            self.gateway("READY", {"v": 10, "user": self.fake.bot_user, "session_id": f"session-{shard}",
                                   "resume_gateway_url": "wss://gateway.invalid", "shard": [shard, count],
                                   "application": {"id": str(APPLICATION_ID), "flags": 0},
                                   "guilds": [{"id": str(g), "unavailable": True} for g in mine]})
            for g in mine:
                if g not in down:
                    self.gateway("GUILD_CREATE", self.guild_payload(g))
        await bot.wait_until_ready()
        await self.settle()

    # ---- interactions ------------------------------------------------------------------------------------------

    def _base(self, kind: int, *, user: int | None, guild: int | None | bool, channel: int | None, locale: str,
              permissions: discord.Permissions | None, guild_locale: str | None, name: str | None) -> tuple[dict[str, Any], InteractionRecord]:
        user_id = user if user is not None else self.user_id
        iid = snowflake()
        token = f"itoken-{iid}-{next(self._tokens)}"
        guild_id = None if guild is False else (self.guild_id if guild in (None, True) else guild)
        data: dict[str, Any] = {
            "id": str(iid),
            "application_id": str(APPLICATION_ID),
            "type": kind,
            "token": token,
            "version": 1,
            "locale": locale,
            "entitlements": [],
            "attachment_size_limit": self.fake.upload_limit,
            "app_permissions": str(discord.Permissions.all().value),
        }
        if guild_id is not None:
            cid = channel if channel is not None else self.channel_id
            ch = self.fake.channels.get(cid) or self.fake.add_channel(cid, guild_id)
            if ch.bot_permissions is not None:
                data["app_permissions"] = str(ch.bot_permissions)
            perms = permissions if permissions is not None else MEMBER_PERMISSIONS
            data.update(
                guild_id=str(guild_id),
                guild_locale=guild_locale or "zh-CN",
                guild={"id": str(guild_id), "locale": guild_locale or "zh-CN", "features": []},
                channel_id=str(cid),
                channel={**ch.payload(), "permissions": str(perms.value)},
                member=self.member_payload(user_id, perms, name=name),
                context=0,
                authorizing_integration_owners={"0": str(guild_id)},
            )
        else:
            dm = self.fake._open_dm(user_id)
            cid = dm.id
            data.update(
                channel_id=str(cid),
                channel=dm.payload(),
                user=self.fake.add_user(user_id, name),
                context=1,
                authorizing_integration_owners={"0": str(guild_id or 0)},
            )
        rec = InteractionRecord(id=iid, token=token, type=kind, channel_id=cid, guild_id=guild_id, user_id=user_id)
        self.fake.interactions[token] = rec
        return data, rec

    def command_id(self, name: str) -> int:
        if name not in self._command_ids:
            self._command_ids[name] = snowflake()
        return self._command_ids[name]

    def find_command(self, path: str) -> app_commands.Command[Any, ..., Any]:
        """A registered slash command by its path: ``"score"``, ``"table new"``."""
        names = path.split()
        cmd: Any = self.bot.tree.get_command(names[0])
        for n in names[1:]:
            cmd = cmd.get_command(n) if isinstance(cmd, app_commands.Group) else None
        if not isinstance(cmd, app_commands.Command):
            raise LookupError(f"no slash command /{path}; registered: {[c.name for c in self.bot.tree.get_commands()]}")
        return cmd

    def slash_payload(self, path: str, *, user: int | None = None, guild: int | None | bool = None,
                      channel: int | None = None, locale: str = "en-US", guild_locale: str | None = None,
                      permissions: discord.Permissions | None = None, name: str | None = None,
                      **options: Any) -> tuple[dict[str, Any], InteractionRecord]:
        """An INTERACTION_CREATE payload for ``/path option=value ...``, checked against the registered command:
        unknown options, missing required ones and values outside the choices are refused here, as Discord's
        client would."""
        cmd = self.find_command(path)
        params = {p.name: p for p in cmd.parameters}
        opts: list[dict[str, Any]] = []
        resolved: dict[str, Any] = {}
        for key, value in options.items():
            if value is None:
                continue
            if key not in params:
                raise TypeError(f"/{path} has no option {key!r}; options: {list(params)}")
            p = params[key]
            if p.choices and value not in [c.value for c in p.choices]:
                raise ValueError(f"/{path} {key}: {value!r} is not one of {[c.value for c in p.choices]}")
            if p.type in (discord.AppCommandOptionType.user, discord.AppCommandOptionType.mentionable):
                uid = int(value)
                resolved.setdefault("users", {})[str(uid)] = self.fake.add_user(uid)
                if guild is not False and uid not in self.fake.departed:
                    member = self.member_payload(uid, MEMBER_PERMISSIONS)
                    member.pop("user")
                    resolved.setdefault("members", {})[str(uid)] = member
                value = str(uid)
            elif p.type in _OPTION_TYPES:
                value = _OPTION_TYPES[p.type](value)
            opts.append({"name": key, "type": p.type.value, "value": value})
        missing = [n for n, p in params.items() if p.required and n not in options]
        if missing:
            raise TypeError(f"/{path} needs {missing}")
        names = path.split()
        top = {"id": str(self.command_id(names[0])), "name": names[0], "type": 1}
        if len(names) == 1:
            top["options"] = opts
        elif len(names) == 2:
            top["options"] = [{"name": names[1], "type": 1, "options": opts}]
        else:
            top["options"] = [{"name": names[1], "type": 2, "options": [{"name": names[2], "type": 1, "options": opts}]}]
        if resolved:
            top["resolved"] = resolved
        data, rec = self._base(2, user=user, guild=guild, channel=channel, locale=locale, guild_locale=guild_locale,
                               permissions=permissions, name=name)
        data["data"] = top
        return data, rec

    async def slash(self, path: str, **kwargs: Any) -> InteractionRecord:
        """Run ``/path`` as a player and wait for the bot to finish. Keyword arguments: the command's options by
        name, plus ``user``, ``guild`` (an id, or False for a DM), ``channel``, ``locale`` (a Discord locale such
        as ``zh-CN``, ``zh-TW``, ``en-US``), ``guild_locale``, ``permissions`` (discord.Permissions) and
        ``name``."""
        data, rec = self.slash_payload(path, **kwargs)
        return await self.send(data, rec)

    async def send(self, data: dict[str, Any], rec: InteractionRecord, *, timeout: float = 10.0) -> InteractionRecord:
        """Feed a raw INTERACTION_CREATE payload and wait for what it started (at most ``timeout`` seconds:
        :meth:`settle`)."""
        self.bot._connection.parse_interaction_create(data)  # type: ignore[arg-type]
        await self.settle(timeout)
        return rec

    def click_payload(self, message: Message, *, custom_id: str | None = None, label: str | None = None,
                      values: Iterable[str] | None = None, user: int | None = None, locale: str = "en-US",
                      permissions: discord.Permissions | None = None,
                      guild_locale: str | None = None) -> tuple[dict[str, Any], InteractionRecord]:
        """A component interaction on ``message`` (found by ``custom_id`` or by the button's ``label``)."""
        comp = message.component(custom_id=custom_id, label=label)
        if comp.get("disabled"):
            raise ValueError(f"component {comp.get('custom_id')} is disabled: Discord would not send the click")
        ch = self.fake.channels[message.channel_id]
        guild: int | bool = ch.guild_id if ch.guild_id is not None else False
        if ch.type == CH_DM:
            user = int(ch.recipient["id"]) if user is None else user  # type: ignore[index]
        if message.ephemeral and message.visible_to is not None:
            user = message.visible_to if user is None else user
        data, rec = self._base(3, user=user, guild=guild, channel=message.channel_id, locale=locale,
                               guild_locale=guild_locale, permissions=permissions, name=None)
        inner: dict[str, Any] = {"custom_id": comp["custom_id"], "component_type": comp["type"]}
        if comp["type"] != 2:
            inner["values"] = [str(v) for v in values or []]
        if comp["type"] == 8:  # channel select: Discord resolves the picked channels
            resolved = {}
            for v in inner["values"]:
                picked = self.fake.channels.get(int(v))
                if picked is None:
                    raise LookupError(f"no channel {v} in the fake Discord: add it with harness.add_channel()")
                resolved[v] = {**picked.payload(), "permissions": str(MEMBER_PERMISSIONS.value)}
            inner["resolved"] = {"channels": resolved}
        data["data"] = inner
        data["message"] = message.payload()
        rec.message_id = message.id
        return data, rec

    async def click(self, message: Message, *, timeout: float = 10.0, **kwargs: Any) -> InteractionRecord:
        """Press a button (or pick ``values`` in a select) on ``message`` and wait for the bot (at most ``timeout``
        seconds: :meth:`settle`)."""
        data, rec = self.click_payload(message, **kwargs)
        return await self.send(data, rec, timeout=timeout)

    async def submit_modal(self, opened_by: InteractionRecord, values: dict[str, Any], *, locale: str = "en-US",
                           permissions: discord.Permissions | None = None) -> InteractionRecord:
        """Submit the modal that the bot opened in answer to ``opened_by``, with text inputs by custom_id (a select
        in a label: its picked values, a list; user selects come with Discord's resolved users and members)."""
        modal = opened_by.modal
        if modal is None:
            raise AssertionError("the bot opened no modal")
        ch = self.fake.channels[opened_by.channel_id]
        guild: int | bool = ch.guild_id if ch.guild_id is not None else False
        data, rec = self._base(5, user=opened_by.user_id, guild=guild, channel=opened_by.channel_id, locale=locale,
                               guild_locale=None, permissions=permissions, name=None)
        rows = []
        resolved: dict[str, Any] = {}
        for row in modal.get("components", []):
            inner = []
            for comp in row.get("components", []) if row.get("type") == 1 else [row.get("component", row)]:
                cid = comp.get("custom_id")
                kind = comp.get("type", 4)
                if kind in (3, 5, 6, 7, 8):  # a select in a label: its values (a list of ids for user selects)
                    picked = values.get(cid) or []
                    picked = [str(v) for v in (picked if isinstance(picked, list | tuple) else [picked])]
                    inner.append({"type": kind, "custom_id": cid, "values": picked})
                    if kind in (5, 7):  # Discord resolves the picked users (and, in a server, members)
                        for v in picked:
                            resolved.setdefault("users", {})[v] = self.fake.add_user(int(v))
                            if guild is not False and int(v) not in self.fake.departed:
                                member = self.member_payload(int(v), MEMBER_PERMISSIONS)
                                member.pop("user")
                                resolved.setdefault("members", {})[v] = member
                else:
                    inner.append({"type": kind, "custom_id": cid, "value": values.get(cid, "")})
            rows.append({"type": 1, "components": inner})
        data["data"] = {"custom_id": modal["custom_id"], "components": rows}
        if resolved:
            data["data"]["resolved"] = resolved
        if opened_by.message_id is not None:
            with contextlib.suppress(LookupError):
                data["message"] = self.fake.find_message(opened_by.message_id).payload()
                rec.message_id = opened_by.message_id
        return await self.send(data, rec)

    # ---- reading -----------------------------------------------------------------------------------------------

    def channel(self, channel_id: int | None = None, *, viewer: int | None = None) -> list[Message]:
        """The public messages of a channel (default: the harness channel), plus what ``viewer`` alone sees."""
        return self.fake.channel_messages(channel_id or self.channel_id, viewer=viewer)

    def dms(self, user_id: int) -> list[Message]:
        return self.fake.dm_messages(user_id)


__all__ += ["CH_DM", "CH_TEXT", "snowflake", "user_payload"]


def stdin_lines() -> asyncio.Queue[str]:
    """Standard input's lines, read in a thread, as a queue on the running loop ("" once input ends): how a bot
    process driven by another (``tests/bot/cluster_worker.py``, ``benchmarks/bench_cluster.py``) takes commands."""
    loop = asyncio.get_running_loop()
    lines: asyncio.Queue[str] = asyncio.Queue()

    def read() -> None:
        for line in sys.stdin:
            loop.call_soon_threadsafe(lines.put_nowait, line)
        loop.call_soon_threadsafe(lines.put_nowait, "")

    threading.Thread(target=read, daemon=True).start()
    return lines
