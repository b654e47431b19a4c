"""Every Discord write of a table goes through here: the table message, DMs, announcements, score cards.

The manager decides under the table's lock and hands the publisher finished payloads; each table has one
:class:`Outbox` whose worker sends them in order, OUTSIDE the lock (a slow Discord never holds up a click):

* a write failing with a 5xx or a 429 (after discord.py's own retries) is tried again with :attr:`Publisher.backoff`;
* the table message is one slot, latest wins: while an edit is on its way, newer states replace the one waiting
  (``min_interval`` > 0 spaces edits of one table; 0 = as fast as Discord answers);
* a DM that cannot be delivered (closed DMs, 50007, or failing after every retry) marks the seat: its hand is
  then shown by the table's My hand button and the channel is told once;
* when newer controls are sent, the message that carried the old ones loses them, so no superseded button stays.

The message ids that a restarted bot needs (the table message, each seat's DM with controls, and any superseded
message whose controls are still being removed) are written to the store (``Store.set_matches_messages``) right
after the post that changed them, before the superseded controls are removed: a bot killed at any point finds every
message that may still carry controls. A change of decision on the same message only is written with the next batch
(at most ``flush_interval`` later): a restarted bot that finds an older decision there just replaces its controls.

Lobby messages (their seats, the start, the close) and dissolve vote messages are written here too, and the
message ids are kept for a restart: both in :mod:`.kept`.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import io
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from .kept import KeptMessages, _flat, _ids
from .state import LiveTable, Seat
from .strings import t

log = logging.getLogger(__name__)

MAX_TABLE_EDITS = 40  # edits of one table message before it is re-posted at the bottom of the channel
MAX_POSTS_BELOW = 6  # our own messages posted under the table message before it is re-posted
MAX_MESSAGE_AGE = 45 * 60  # seconds: Discord rate-limits edits of messages older than an hour harder
TABLE_EDIT_INTERVAL = 1.0  # seconds between two edits of one table message: a view of the latest state
CHANNEL_WRITES = (5, 5.05)  # at most 5 writes per 5 s to a table's channel (Discord's per-channel limit in practice)
MENTIONS = discord.AllowedMentions(users=True, everyone=False, roles=False)


@dataclass
class Png:
    """An image to attach (bytes are re-wrapped for each try: a discord.File can be sent once)."""

    data: bytes
    name: str

    def file(self) -> discord.File:
        return discord.File(io.BytesIO(self.data), filename=self.name)

    @property
    def key(self) -> int:
        """What the image shows (equal keys: the same picture, nothing to upload again)."""
        return hash(self.data)


@dataclass
class TablePayload:
    content: str
    png: Png
    view: Any
    fresh: bool = False  # re-post at the bottom of the channel


@dataclass
class HandPayload:
    seat: int
    user_id: int
    content: str
    png: Png
    view: Any  # None: nothing to decide (the latest hand message is edited, no notification)
    new_hand: bool
    since: int | None  # the decision the controls are for (stored for a restart)


@dataclass
class Outbox:
    """One table's pending writes, in order; the table message is a single coalescing slot."""

    jobs: collections.deque[tuple[str, Any]] = field(default_factory=collections.deque)
    table: TablePayload | None = None  # the latest table message not sent yet
    worker: asyncio.Task[Any] | None = None
    # the private hands go by their own queue: a slow or rate-limited table channel never holds up a player's DM
    dm_jobs: collections.deque[tuple[str, Any]] = field(default_factory=collections.deque)
    dm_worker: asyncio.Task[Any] | None = None
    last_edit: float = -1e9
    writes: collections.deque[float] = field(default_factory=collections.deque)  # times of the channel's writes
    remember: bool = False  # the message ids changed: store them once the queue is empty


def _idle(worker: asyncio.Task[Any] | None) -> bool:
    return worker is None or worker.done()


def _components(view: Any) -> Any:
    """The controls of a view, comparable (None: no controls)."""
    return None if view is None else repr(view.to_components())


def _retryable(e: BaseException) -> bool:
    if isinstance(e, discord.RateLimited):
        return True
    if isinstance(e, discord.HTTPException):
        return e.status >= 500 or e.status == 429
    return isinstance(e, (OSError, asyncio.TimeoutError))


class Publisher(KeptMessages):
    """The Discord side of every table of one bot."""

    def __init__(self, bot: Any, on_dm_failed: Callable[[LiveTable, int], Awaitable[None]]) -> None:
        self.bot = bot
        self.on_dm_failed = on_dm_failed
        self.backoff: tuple[float, ...] = (0.5, 2.0, 5.0, 15.0)  # seconds between tries of a failing write
        self.min_interval = TABLE_EDIT_INTERVAL  # seconds between two edits of one table message (0: no spacing)
        self.channel_limit: tuple[int, float] | None = CHANNEL_WRITES  # (writes, seconds) per table channel
        # the clock and the sleeper of every wait here (backoff, edit spacing): a benchmark injects simulated ones
        self.clock: Callable[[], float] = lambda: asyncio.get_running_loop().time()
        self.sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
        self.flush_interval = 0.5  # seconds: message ids of every table are stored together, at most this often
        self._dirty: dict[int, dict[str, Any]] = {}
        self._flusher: asyncio.Task[Any] | None = None
        self.boxes: dict[int, Outbox] = {}  # by LiveTable object id
        # (table id, seat) -> ((channel, message), image key) of the DM message showing that seat's hand image
        self.shown: dict[tuple[int, int], tuple[tuple[int, int], int]] = {}
        # table id -> (content, image key, controls) of the table message as sent (an identical state is not sent)
        self.table_sent: dict[int, tuple[str, int, Any]] = {}
        self.parked: dict[tuple[int, int], list[tuple[str, Any]]] = {}  # (table id, seat) -> writes held back
        self._init_lifecycle()

    # ---- queueing (called under the table's lock) ------------------------------------------------------------

    def _box(self, lt: LiveTable) -> Outbox:
        return self.boxes.setdefault(id(lt), Outbox())

    def _kick(self, lt: LiveTable, dm: bool = False) -> None:
        box = self._box(lt)
        loop = asyncio.get_running_loop()
        if dm:
            if box.dm_worker is None or box.dm_worker.done():
                box.dm_worker = loop.create_task(self._work(lt, box, True), name=f"mjbot-outbox-dm-{lt.id}")
        elif box.worker is None or box.worker.done():
            box.worker = loop.create_task(self._work(lt, box, False), name=f"mjbot-outbox-{lt.id}")

    def post(self, lt: LiveTable, content: str, files: list[Png] | None = None) -> None:
        self._box(lt).jobs.append(("post", (content, files or [])))
        self._kick(lt)

    def table_message(self, lt: LiveTable, payload: TablePayload) -> None:
        box = self._box(lt)
        if box.table is not None:
            payload.fresh = payload.fresh or box.table.fresh  # latest wins, but a re-post asked for stays asked
        else:
            box.jobs.append(("table", None))
        box.table = payload
        self._kick(lt)

    def strip_table_message(self, lt: LiveTable) -> None:
        self._box(lt).jobs.append(("strip", None))
        self._kick(lt)

    def hand(self, lt: LiveTable, payload: HandPayload) -> None:
        if self._park(lt, payload.seat, ("hand", payload)):
            return
        self._box(lt).dm_jobs.append(("hand", payload))
        self._kick(lt, dm=True)

    def strip_dm(self, lt: LiveTable, seat: int) -> None:
        if self._park(lt, seat, ("strip_dm", seat)):
            return
        self._box(lt).dm_jobs.append(("strip_dm", seat))
        self._kick(lt, dm=True)

    def hold(self, lt: LiveTable, seat: int) -> None:
        """Keep the seat's private hand writes back while its click is decided: the click's answer shows them
        (:meth:`take_hand`); :meth:`release` sends them as usual."""
        self.parked.setdefault((lt.id, seat), [])

    def release(self, lt: LiveTable, seat: int) -> None:
        jobs = self.parked.pop((lt.id, seat), None)
        if jobs:
            self._box(lt).dm_jobs.extend(jobs)
            self._kick(lt, dm=True)

    def _park(self, lt: LiveTable, seat: int, job: tuple[str, Any]) -> bool:
        held = self.parked.get((lt.id, seat))
        if held is None:
            return False
        held.append(job)
        return True

    def take_hand(self, lt: LiveTable, seat: int, where: tuple[int, int]) -> HandPayload | bool | None:
        """The seat's private hand writes held back (:meth:`hold`), to be shown by the clicked DM message ``where``
        itself (the click's interaction response, exempt from the global budget): the latest :class:`HandPayload`,
        True when the controls must only go (a hand ended), None when there is nothing to show (or ``where`` is not
        the seat's latest hand message: the writes are then sent as usual). The seat's bookkeeping is updated as if
        sent; call :meth:`hand` with the payload if the response fails."""
        s = lt.seats[seat]
        mine = self.parked.get((lt.id, seat)) or []
        if s is None or s.dm_failed or s.dm_last != where or not mine or any(
                j[0] == "hand" and j[1].new_hand for j in mine):
            self.release(lt, seat)
            return None
        del self.parked[(lt.id, seat)]
        kind, last = mine[-1]
        if kind == "strip_dm":
            s.dm_controls = None
            return True
        old = s.dm_controls
        s.dm_controls = where if last.view is not None else None
        s.dm_since = last.since if last.view is not None else None
        if old is not None and old != where:  # older controls elsewhere go away (in the queue's order)
            self.leftovers(lt).add(("strip", *old))
            self._box(lt).dm_jobs.append(("strip_old", old))
            self._kick(lt, dm=True)
        self._remember_soon(lt)
        return last

    def image_shown(self, lt: LiveTable, seat: int, where: tuple[int, int], png: Png) -> bool:
        """Does the DM message ``where`` already show ``png``? (Then an edit keeps its attachment.)"""
        return self.shown.get((lt.id, seat)) == (where, png.key)

    def showing(self, lt: LiveTable, seat: int, where: tuple[int, int], png: Png) -> None:
        self.shown[(lt.id, seat)] = (where, png.key)

    def call(self, lt: LiveTable, fn: Callable[[], Awaitable[Any]]) -> None:
        """Run ``fn`` in the table's order of writes (e.g. a lobby message edit)."""
        self._box(lt).jobs.append(("call", fn))
        self._kick(lt)

    async def drain(self) -> None:
        """Wait until every outbox is empty (tests, shutdown)."""
        while True:
            workers = [w for b in self.boxes.values() for w in (b.worker, b.dm_worker) if w is not None and not w.done()]
            workers += [w for w in (*self._id_tasks, self._now_writer) if w is not None and not w.done()]
            if not workers:
                return
            await asyncio.wait(workers)

    def forget(self, lt: LiveTable) -> None:
        self.forget_ids(lt)
        self.table_sent.pop(lt.id, None)
        for k in [k for k in self.shown if k[0] == lt.id]:
            del self.shown[k]
        box = self.boxes.get(id(lt))
        if box is not None and not box.jobs and not box.dm_jobs and _idle(box.worker) and _idle(box.dm_worker):
            del self.boxes[id(lt)]

    async def close(self) -> None:
        for box in self.boxes.values():
            for w in (box.worker, box.dm_worker):
                if w is not None:
                    w.cancel()
        await asyncio.gather(*(w for b in self.boxes.values() for w in (b.worker, b.dm_worker) if w),
                             return_exceptions=True)
        if self._flusher is not None:
            self._flusher.cancel()
        if self.bot.store is not None:
            await self.flush()

    # ---- sending (the worker) ---------------------------------------------------------------------------------

    async def _work(self, lt: LiveTable, box: Outbox, dm: bool) -> None:
        queue = box.dm_jobs if dm else box.jobs
        try:
            while queue:
                kind, arg = queue.popleft()
                try:
                    if kind == "post":
                        await self._pace(lt, box)
                        await self._retry(lt, "post", lambda a=arg: self._send_post(lt, *a))
                    elif kind == "table":
                        wait = box.last_edit + self.min_interval - self.clock()
                        if wait > 0:
                            await self.sleep(wait)
                        if box.table is not None:
                            await self._pace(lt, box)
                        payload, box.table = box.table, None  # the latest state, after every wait
                        if payload is not None:
                            await self._retry(lt, "table message", lambda p=payload: self._send_table(lt, p))
                            box.last_edit = self.clock()
                    elif kind == "strip":
                        await self._pace(lt, box)
                        await self._retry(lt, "strip", lambda: self._strip_table(lt))
                    elif kind == "hand":
                        await self._send_hand(lt, arg)
                    elif kind == "strip_dm":
                        seat = lt.seats[arg]
                        if seat is not None and seat.dm_controls is not None:
                            old, seat.dm_controls = seat.dm_controls, None
                            await self._retry(lt, "strip DM", lambda o=old: self._edit_view(o, None))
                            await self._remember(lt)
                    elif kind == "strip_old":
                        await self._retry(lt, "strip DM", lambda o=arg: self._edit_view(o, None))
                        self._done_leftover(lt, ("strip", *arg))
                    elif kind == "call":
                        await self._retry(lt, "call", arg)
                except asyncio.CancelledError:
                    raise
                except Exception:
                    log.exception("table %s: %s could not be sent", lt.id, kind)
                if not queue and box.remember:
                    box.remember = False
                    await self._store_messages(lt)
        finally:
            # an idle table keeps no outbox (memory per table), unless edits are spaced and it must remember when
            other = box.worker if dm else box.dm_worker
            if not box.jobs and not box.dm_jobs and box.table is None and (other is None or other.done()) and (
                    lt.closed or self.min_interval <= 0):
                self.boxes.pop(id(lt), None)

    async def _pace(self, lt: LiveTable, box: Outbox) -> None:
        """Wait so that the table's channel gets at most ``channel_limit`` writes in any window of that length."""
        if self.channel_limit is None:
            return
        n, per = self.channel_limit
        if len(box.writes) >= n:
            wait = box.writes[-n] + per - self.clock()
            if wait > 0:
                await self.sleep(wait)
        box.writes.append(self.clock())
        while len(box.writes) > n:
            box.writes.popleft()

    async def _retry(self, lt: LiveTable, what: str, send: Callable[[], Awaitable[Any]]) -> Any:
        """``send()``, tried again after 5xx / 429 / network errors with backoff; the last error propagates."""
        for attempt in range(len(self.backoff) + 1):
            try:
                return await send()
            except Exception as e:
                if not _retryable(e) or attempt == len(self.backoff):
                    raise
                log.warning("table %s: %s failed (%s); retrying in %.1f s", lt.id, what, e, self.backoff[attempt])
                await self.sleep(self.backoff[attempt])
        return None

    def _channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    async def _send_post(self, lt: LiveTable, content: str, files: list[Png]) -> discord.Message:
        kw: dict[str, Any] = {"files": [f.file() for f in files]} if files else {}
        msg = await self._channel(lt.channel_id).send(content, allowed_mentions=MENTIONS, **kw)
        lt.posts_below += 1
        return msg

    async def _edit_view(self, where: tuple[int, int], view: Any) -> None:
        with contextlib.suppress(discord.NotFound, discord.Forbidden):
            await self._channel(where[0]).get_partial_message(where[1]).edit(view=view)

    async def _send_table(self, lt: LiveTable, p: TablePayload) -> None:
        age = self.clock() - lt.message_at
        repost = (p.fresh or lt.message_id is None or lt.edits >= MAX_TABLE_EDITS or lt.posts_below >= MAX_POSTS_BELOW
                  or age > MAX_MESSAGE_AGE)
        state = (p.content, p.png.key, _components(p.view))
        if not repost:
            sent = self.table_sent.get(lt.id)
            if sent == state:
                return  # the message already shows this (e.g. a pass that changed nothing on the table)
            try:
                msg = self._channel(lt.channel_id).get_partial_message(lt.message_id)  # type: ignore[arg-type]
                kw = {} if sent is not None and sent[1] == p.png.key else {"attachments": [p.png.file()]}
                await msg.edit(content=p.content, view=p.view, **kw)  # no attachments given: the image stays
                lt.edits += 1
                self.table_sent[lt.id] = state
                return
            except (discord.NotFound, discord.Forbidden):
                pass  # deleted by someone: post it again
        old = lt.message_id
        kw: dict[str, Any] = {"view": p.view} if p.view is not None else {}
        msg = await self._channel(lt.channel_id).send(p.content, file=p.png.file(), allowed_mentions=MENTIONS, **kw)
        lt.message_id, lt.message_at, lt.edits, lt.posts_below = msg.id, self.clock(), 0, 0
        self.table_sent[lt.id] = state
        superseded = (lt.channel_id, old) if old is not None and old != msg.id else None
        if superseded:
            self.leftovers(lt).add(("gone", *superseded))  # stored with the new id: a restart deletes it too
        await self._remember(lt)
        if superseded:
            await self._pace(lt, self._box(lt))
            with contextlib.suppress(discord.HTTPException):  # failing, it stays listed: a restart deletes it
                with contextlib.suppress(discord.NotFound, discord.Forbidden):
                    await self._channel(lt.channel_id).get_partial_message(old).delete()
                self._done_leftover(lt, ("gone", *superseded))

    async def _strip_table(self, lt: LiveTable) -> None:
        if lt.message_id is not None:
            await self._edit_view((lt.channel_id, lt.message_id), None)

    async def _send_hand(self, lt: LiveTable, p: HandPayload) -> None:
        s: Seat | None = lt.seats[p.seat]
        if s is None or s.dm_failed or lt.closed:
            return
        if p.new_hand:
            s.dm_last = None  # a new hand starts in a new message
        try:
            if p.view is None and s.dm_last is not None:
                # nothing to decide: the last hand message shows the new hand (no new notification)
                try:
                    last = s.dm_last
                    kw = {} if self.image_shown(lt, p.seat, last, p.png) else {"attachments": [p.png.file()]}
                    await self._retry(lt, "DM edit", lambda: self._channel(last[0]).get_partial_message(last[1]).edit(
                        content=p.content, view=None, **kw))
                    self.showing(lt, p.seat, last, p.png)
                    if s.dm_controls == last:
                        s.dm_controls = None
                    return
                except discord.NotFound:
                    pass
            # a decision to make (or no message yet): a new message, so that the player is notified
            dm = await self._retry(lt, "open DM", lambda: self.bot.create_dm(discord.Object(p.user_id)))
            kw: dict[str, Any] = {"view": p.view} if p.view is not None else {}
            shown = self.shown.get((lt.id, p.seat))
            # a decision on an unchanged hand (a claim offer): the hand image just above is not sent again
            reuse = not p.new_hand and shown is not None and shown[1] == p.png.key and shown[0] == s.dm_last
            if not reuse:
                kw["file"] = p.png.file()
            msg = await self._retry(lt, "DM", lambda: dm.send(p.content, **kw))
            if not reuse:
                self.showing(lt, p.seat, (dm.id, msg.id), p.png)
        except discord.Forbidden as e:
            log.info("table %s: DMs closed for %s (%s)", lt.id, p.user_id, getattr(e, "code", "?"))
            await self.on_dm_failed(lt, p.seat)
            return
        except Exception as e:
            if not _retryable(e):
                raise
            log.warning("table %s: DM to %s failed after retries (%s): My hand takes over", lt.id, p.user_id, e)
            await self.on_dm_failed(lt, p.seat)
            return
        old, s.dm_controls = s.dm_controls, ((dm.id, msg.id) if p.view is not None else None)
        s.dm_last = (dm.id, msg.id)
        s.dm_since = p.since if p.view is not None else None
        superseded = old is not None and old != s.dm_controls
        if superseded:  # stored with the new message first: a bot killed before the edit below still finds it
            self.leftovers(lt).add(("strip", *old))  # type: ignore[misc]
        await self._remember(lt)
        if superseded:  # the superseded controls go away (failing, they stay listed: a restart removes them)
            with contextlib.suppress(discord.HTTPException):
                await self._edit_view(old, None)  # type: ignore[arg-type]
                self._done_leftover(lt, ("strip", *old))  # type: ignore[misc]

    def _remember_soon(self, lt: LiveTable) -> None:
        self.store_ids_soon(lt)

    async def _remember(self, lt: LiveTable) -> None:
        """Store the table's message ids now when a message was posted or dropped (else with the next batch)."""
        await self.store_ids(lt)

    async def _store_messages(self, lt: LiveTable) -> None:
        self._queue_store(lt)

    def _queue_store(self, lt: LiveTable) -> None:
        """Queue where the table message and the DMs with controls are, for a restarted bot (written for all
        tables at once by :meth:`flush`, so that a busy bot adds one store write per ``flush_interval``)."""
        if lt.match_id is None or lt.closed:
            return
        self._dirty[lt.match_id] = self.messages_of(lt)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush_later(), name="mjbot-message-ids")

    async def _flush_later(self) -> None:
        while self._dirty:
            await asyncio.sleep(self.flush_interval)
            await self.flush()

    async def flush(self) -> None:
        """Store the queued message ids now."""
        async with self._ids_lock:
            batch, self._dirty = self._dirty, {}
            if not batch:
                return
            batch = self._latest(batch)
            try:
                await self.bot.store.set_matches_messages(batch)
                self._ids_stored.update({m: _flat(_ids(v)) for m, v in batch.items()})
            except Exception as e:  # losing this costs a stale button after a restart, never a game
                log.warning("could not remember the messages of %d tables: %s", len(batch), e)
                self._dirty = {**batch, **self._dirty}

    def told_once(self, lt: LiveTable, user_id: int) -> bool:
        """True the first time (per table) a player's closed DMs are announced."""
        if user_id in lt.told_dm:
            return False
        lt.told_dm.add(user_id)
        return True


def dm_closed_text(lt: LiveTable, user_id: int) -> str:
    return t("tables.dm_closed", lt.lang, mention=f"<@{user_id}>")
