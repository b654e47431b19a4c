"""The half of the :class:`~bot.tables.publisher.Publisher` that a restart depends on (issue 10): where every message
that may carry controls is, written to the store right after the post that changed it, and the lobby and dissolve
vote messages. A mixin: it uses the publisher's outbox (``call``), channels, clock and backoff.

Message ids: a message that may carry controls and is new to the store (a table message, a DM with controls, or a
superseded message whose controls are still being removed: a *leftover*) is written at once, before the superseded
controls are removed, in one transaction for every table that needs it at that moment; anything else (controls
gone, a new decision on the same message) goes with the next batch (``flush_interval``). A bot killed at any point
therefore finds every message that may still carry controls, and :meth:`KeptMessages.strip_leftovers` finishes the
job after a restart.

A match that is over keeps its list until its writes are out (:meth:`KeptMessages.closed_out` empties it), with the
marks of what was said (:data:`MARKS`: its last result, its end, its summary), so that a start after a stop closes it
without saying anything twice (:func:`bot.tables.resume.close_left_open`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import discord

from bot.seams import Host
from bot.store import Store

from .state import LiveTable, State, Vote

log = logging.getLogger(__name__)


@dataclass
class LobbyPayload:
    """A lobby's message: the embed and its buttons; ``posted`` is told the id when a new message was posted."""

    embed: Any
    view: Any
    posted: Callable[[int], Awaitable[Any]] | None = None


class KeptMessages:
    """Message ids for a restart, lobby and vote messages (mixed into the publisher)."""

    bot: Host
    backoff: tuple[float, ...]
    sleep: Callable[[float], Awaitable[Any]]
    _dirty: dict[int, dict[str, Any]]
    _ids_stored: dict[int, Any]
    results: set[int]

    def call(self, lt: LiveTable, fn: Callable[[], Awaitable[Any]]) -> None:
        raise NotImplementedError

    def _channel(self, channel_id: int) -> discord.PartialMessageable:
        raise NotImplementedError

    def _store(self) -> Store:
        """The bot's store (``RuntimeError`` when it is not open: a write of message ids then waits)."""
        if self.bot.store is None:
            raise RuntimeError("the store is not open")
        return self.bot.store

    async def _edit_view(self, where: tuple[int, int], view: Any) -> None:
        raise NotImplementedError

    async def _delete(self, where: tuple[int, int]) -> None:
        raise NotImplementedError

    async def _retry(self, lt: LiveTable | None, what: str, send: Callable[[], Awaitable[Any]]) -> Any:
        raise NotImplementedError

    def _queue_store(self, lt: LiveTable) -> None:
        raise NotImplementedError

    def _init_lifecycle(self) -> None:
        self._ids_lock = asyncio.Lock()  # one write of message ids at a time, each a snapshot taken inside it
        self._ids_stored: dict[int, frozenset[Any]] = {}  # match id -> the messages last written (see _flat)
        self._ids_tables: dict[int, LiveTable] = {}  # match id -> its table, for a batch written later
        self._leftovers: dict[int, set[tuple[str, int, int]]] = {}  # match id -> superseded messages still to fix
        self._id_tasks: set[asyncio.Task[Any]] = set()
        self._lobby_latest: dict[int, LobbyPayload] = {}  # id(LiveTable) -> the lobby state not shown yet
        self._now: dict[int, LiveTable] = {}  # tables whose ids must be written at once (one transaction for all)
        self._now_done: asyncio.Future[None] | None = None  # resolved when the tables in ``_now`` are written
        self._now_writer: asyncio.Task[Any] | None = None

    def leftovers(self, lt: LiveTable) -> set[tuple[str, int, int]]:
        """Superseded messages of the table whose controls are being removed: ``("strip", channel, message)``
        (controls to remove) or ``("gone", channel, message)`` (an old table message to delete). Stored with the
        message ids until done, so that a restarted bot finishes the job."""
        return self._leftovers.setdefault(lt.match_id or 0, set())

    def _done_leftover(self, lt: LiveTable, key: tuple[Any, ...]) -> None:
        left = self._leftovers.get(lt.match_id or 0)
        if left is not None:
            left.discard(key)
            if not left:
                del self._leftovers[lt.match_id or 0]  # (memory per table: no empty sets kept)

    def messages_of(self, lt: LiveTable) -> dict[str, Any]:
        """What a restarted bot needs to find the table's messages (the store's ``match_meta.messages``)."""
        dms = {}
        for i, s in enumerate(lt.seats):
            if s is not None and s.dm_controls is not None:
                dms[str(i)] = [s.dm_controls[0], s.dm_controls[1], s.dm_since]
        out: dict[str, Any] = {"table": [lt.channel_id, lt.message_id] if lt.message_id else None, "dm": dms}
        if lt.message_id and lt.id in self.results:  # the table message is a hand's result card: a restarted bot
            out["result"] = True  # keeps it (without controls) below the next table, never deletes it
        if lt.shown >= 0:  # the last hand whose result went out: a restarted bot shows a later one that did not
            out["shown"] = lt.shown
        out.update(lt.said)  # (a table that is over: what of its end went out)
        left = self._leftovers.get(lt.match_id or 0)
        if left:
            out["leftovers"] = sorted(list(x) for x in left)
        return out

    def _latest(self, batch: dict[int, Any]) -> dict[int, Any]:
        """A batch with each table's ids as they are now (a snapshot queued earlier may be older); a table that
        closed meanwhile is left out (:meth:`store_closing` wrote its list)."""
        out = {}
        for m, v in batch.items():
            lt = self._ids_tables.get(m)
            if lt is None or not lt.closed:
                out[m] = self.messages_of(lt) if lt is not None else v
        return out

    async def store_ids(self, lt: LiveTable) -> None:
        """Write the table's message ids now if a message that may carry controls was posted (or superseded) since
        the last write, and return once they are stored; anything else (controls gone, a new decision on the same
        message) goes with the next batch (:meth:`_queue_store`). Tables that need it at the same moment share one
        transaction (a busy bot adds one write per round trip to the database, not one per table)."""
        if lt.match_id is None or lt.closed or self.bot.store is None:
            return
        self._ids_tables[lt.match_id] = lt
        if not self._ids_new(lt):
            self._queue_store(lt)
            return
        loop = asyncio.get_running_loop()
        if self._now_done is None:
            self._now_done = loop.create_future()
        done = self._now_done
        self._now[lt.match_id] = lt
        if self._now_writer is None or self._now_writer.done():
            self._now_writer = loop.create_task(self._write_now(), name="mjbot-message-ids-now")
        await asyncio.shield(done)

    def _ids_new(self, lt: LiveTable) -> bool:
        """Does the table show a message (with controls, or superseded) that the store does not know yet?"""
        known = self._ids_stored.get(lt.match_id or 0)
        return known is None or not _flat(_ids(self.messages_of(lt))) <= known

    async def _write_now(self) -> None:
        while self._now:
            tables, self._now = self._now, {}
            done, self._now_done = self._now_done, None
            try:
                async with self._ids_lock:
                    batch = {m: self.messages_of(t) for m, t in tables.items() if not t.closed}
                    try:
                        if batch:
                            await self._store().set_matches_messages(batch)
                    except Exception as e:
                        log.warning("could not remember the messages of %d tables now (%s); retried with the batch",
                                    len(batch), e)
                        for t in tables.values():
                            self._queue_store(t)
                    else:
                        for m, v in batch.items():
                            self._ids_stored[m] = _flat(_ids(v))
                            self._dirty.pop(m, None)
            finally:
                if done is not None and not done.done():
                    done.set_result(None)

    def store_ids_soon(self, lt: LiveTable) -> None:
        """:meth:`store_ids` in a task of its own (from code that cannot wait; :meth:`drain` waits for it)."""
        task = asyncio.get_running_loop().create_task(self.store_ids(lt), name=f"mjbot-message-ids-{lt.id}")
        self._id_tasks.add(task)
        task.add_done_callback(self._id_tasks.discard)

    async def closed_out(self, match_id: int) -> None:
        """A match that is over has its writes out (controls removed, the end said): the store forgets its messages,
        and a batch queued before cannot list them again (``Store.games_left_open`` finds a match whose list stayed)."""
        async with self._ids_lock:
            self._dirty.pop(match_id, None)
            await self._store().set_matches_messages({match_id: {}})

    async def store_closing(self, lt: LiveTable) -> None:
        """A table that closes (under its lock, before it is forgotten): its message ids as they are now are written
        at once, the last time. No batch writes a closed table's list after this (a snapshot queued before is
        dropped): only :meth:`mark_stored` adds to it, until :meth:`closed_out` empties it."""
        m = lt.match_id
        if m is None or self.bot.store is None:
            return
        try:
            async with self._ids_lock:
                self._dirty.pop(m, None)
                self._now.pop(m, None)
                await self._store().set_matches_messages({m: self.messages_of(lt)})
        except Exception as e:  # the list last written stays: a restart strips what it names
            log.warning("match %s: its message ids could not be written as it closed: %s", m, e)

    async def mark_stored(self, match_id: int, marks: dict[str, int]) -> None:
        """Merge ``marks`` into the stored list of a match that is over (no batch rewrites it now; the higher number
        of each kept); a list already emptied stays empty. A store that fails costs a second post at the next start,
        never a lost one."""
        try:
            async with self._ids_lock:
                _, stored = await self._store().match_meta(match_id)
                if not stored or all(stored.get(k, -1) >= v for k, v in marks.items()):
                    return
                await self._store().set_matches_messages({match_id: {**stored, **merged(stored, marks)}})
        except Exception as e:
            log.warning("match %s: what its channel was told could not be kept (%s): a restart may say it again",
                        match_id, e)

    async def strip_stored(self, channel_id: int, messages: dict[str, Any]) -> bool:
        """Remove the controls of every message a stored list names (a match that cannot be rebuilt: no table is
        left to queue them with); each write tried like :meth:`say_closed`, a message gone is skipped. False when a
        write still failed after every try."""
        table = messages.get("table")
        where = [tuple(table)] if table else []
        where += [tuple(v[:2]) for v in (messages.get("dm") or {}).values()]
        where += [tuple(x[1:]) for x in messages.get("leftovers") or ()]
        ok = True
        for ch, mid in dict.fromkeys((int(c), int(m)) for c, m in where):
            ok &= await self._try(f"channel {channel_id}: removing controls",
                                  functools.partial(self._edit_view, (ch, mid), None))
        return ok

    async def _try(self, what: str, write: Callable[[], Awaitable[Any]]) -> bool:
        """``write`` tried like any write of a table (``Publisher._retry``). False: it still failed after every try
        (logged); a write Discord refuses is not tried again and counts as done (logged too)."""
        try:
            await self._retry(None, what, write)
            return True
        except Exception as e:
            log.warning("%s: %s", what, e)
            return not _retryable(e)

    def forget_ids(self, lt: LiveTable) -> None:
        m = lt.match_id or 0
        self._ids_stored.pop(m, None)
        self._ids_tables.pop(m, None)
        self._leftovers.pop(m, None)

    # ---- lobbies and vote messages ----------------------------------------------------------------------------

    def lobby_message(self, lt: LiveTable, payload: LobbyPayload) -> None:
        """Show the lobby's current state on its message (latest wins; a new message if it is gone)."""
        first = id(lt) not in self._lobby_latest
        self._lobby_latest[id(lt)] = payload
        if first:
            self.call(lt, lambda: self._send_lobby(lt))

    async def _send_lobby(self, lt: LiveTable) -> None:
        """Show the lobby's latest state. It is forgotten only once shown (a write tried again after a 5xx shows
        it, not nothing), or when Discord refuses it (the lobby's next change is shown by a new write)."""
        while True:
            p = self._lobby_latest.get(id(lt))
            if p is None or lt.state is not State.LOBBY:
                self._lobby_latest.pop(id(lt), None)
                return
            try:
                await self._show_lobby(lt, p)
            except Exception as e:
                if not _retryable(e):
                    self._lobby_latest.pop(id(lt), None)
                raise
            if self._lobby_latest.get(id(lt)) is p:  # else a newer state came meanwhile: shown next
                del self._lobby_latest[id(lt)]
                return

    async def _show_lobby(self, lt: LiveTable, p: LobbyPayload) -> None:
        ch = self._channel(lt.channel_id)
        if lt.lobby_message_id is not None:
            try:
                await ch.get_partial_message(lt.lobby_message_id).edit(content=None, embed=p.embed, view=p.view)
                return
            except (discord.NotFound, discord.Forbidden):
                pass  # deleted by someone: posted again below
        msg = await ch.send(embed=p.embed, view=p.view)
        lt.lobby_message_id = msg.id
        if p.posted is not None:
            await p.posted(msg.id)

    def replace_lobby_message(self, lt: LiveTable, old: int | None) -> None:
        """The lobby was shown again (``/table show``): the old message loses its buttons."""
        if old is not None and old != lt.lobby_message_id:
            self.call(lt, lambda: self._edit_view((lt.channel_id, old), None))

    def close_lobby(self, lt: LiveTable, text: str) -> None:
        """The lobby started or closed: ``text`` on its message and its buttons gone. When it started, the message
        is kept with the match's leftovers until this is done (a restart removes its buttons)."""
        mid = lt.lobby_message_id
        if mid is None:
            return
        key = ("strip", lt.channel_id, mid)
        if lt.match_id is not None:
            self.leftovers(lt).add(key)
        self._lobby_latest.pop(id(lt), None)

        async def close() -> None:
            with contextlib.suppress(discord.NotFound, discord.Forbidden):
                await self._channel(lt.channel_id).get_partial_message(mid).edit(content=text, embed=None, view=None)
            if lt.match_id is not None:
                self._done_leftover(lt, key)
        self.call(lt, close)

    def show_vote(self, lt: LiveTable, vote: Vote) -> None:
        """A dissolve vote changed other than by a click on its message (it ended by its deadline, with the table,
        at a start-up; an answer the click could not show): its message is edited, in the table's order of writes,
        to what the vote says when the edit goes (``vote.shown``; losing its buttons once it is over), unless it
        shows that already (a click's answer showed it meanwhile)."""

        async def show() -> None:
            where = vote.message
            if where is None:
                return
            async with vote.writing:
                with contextlib.suppress(discord.NotFound, discord.Forbidden):
                    await self.write_vote(vote, self._channel(where[0]).get_partial_message(where[1]).edit)
        self.call(lt, show)

    @staticmethod
    async def write_vote(vote: Vote, edit: Callable[..., Awaitable[Any]]) -> bool:
        """Write what the vote says now to its message with ``edit`` (its buttons kept while it is open, removed once
        it is over), unless the message says it already; the caller holds ``vote.writing`` (writes in order, each
        the latest state). Whether it wrote."""
        now = (vote.shown, vote.end is not None)
        if vote.written == now:
            return False
        await edit(content=vote.shown, **({"view": None} if now[1] else {}))
        vote.written = now
        return True

    def strip_leftovers(self, lt: LiveTable, leftovers: list[Any]) -> None:
        """After a restart: finish removing what the previous run had superseded (queued in the table's order)."""
        for kind, ch, mid in leftovers:
            key = (str(kind), int(ch), int(mid))
            self.leftovers(lt).add(key)

            async def fix(key: tuple[str, int, int] = key) -> None:
                if key[0] == "gone":
                    await self._delete(key[1:])
                else:
                    await self._edit_view(key[1:], None)
                self._done_leftover(lt, key)
            self.call(lt, fix)

    async def say_closed(self, channel_id: int, text: str) -> bool:
        """Tell a channel that its match could not be restored (no live table is left to queue it with): retried
        like any write; a channel that is gone is only logged."""
        return await self._try(f"channel {channel_id}: saying its match was closed",
                               lambda: self._channel(channel_id).send(text))


MARKS = ("shown", "end", "summary")  # what a stored list says was said (Publisher._marked)


def merged(a: dict[str, Any], b: dict[str, int]) -> dict[str, int]:
    """The marks of ``a`` (:data:`MARKS`; its other entries left out) with those of ``b`` merged in, the higher number
    of each kept.

    >>> merged({"shown": 2, "table": [1, 2]}, {"shown": 1, "end": 1})
    {'shown': 2, 'end': 1}
    """
    out = {k: int(v) for k, v in a.items() if k in MARKS}
    for k, v in b.items():
        out[k] = max(v, out.get(k, -1))
    return out


def _retryable(e: BaseException) -> bool:
    """Whether a failed write may pass by itself (a 5xx, a 429, the network) and is worth another try."""
    if isinstance(e, discord.RateLimited):
        return True
    if isinstance(e, discord.HTTPException):
        return e.status >= 500 or e.status == 429
    return isinstance(e, (OSError, asyncio.TimeoutError))


def _ids(messages: dict[str, Any]) -> Any:
    """The messages of :meth:`Publisher.messages_of` without the decisions their controls are for.

    >>> _ids({"table": [1, 2], "dm": {"0": [3, 4, 7]}}) == _ids({"table": [1, 2], "dm": {"0": [3, 4, 9]}})
    True
    >>> _ids({"table": [1, 2], "dm": {}}) == _ids({"table": [1, 2], "dm": {}, "result": True})
    False
    """
    return (messages.get("table"), {k: tuple(v[:2]) for k, v in messages.get("dm", {}).items()},
            tuple(map(tuple, messages.get("leftovers", ()))), bool(messages.get("result")), messages.get("shown", -1))


def _flat(ids: Any) -> frozenset[Any]:
    """Every message of :func:`_ids`' result, as a set (what is kept of the last write: compact); a table message
    that is a result card counts once more, as ``("result", message)``, and the last hand whose result went out as
    ``("shown", hand)`` (a restart must know them, at once).

    >>> sorted(_flat(([1, 2], {"0": (3, 4)}, (("strip", 5, 6),), False, -1)))
    [(1, 2), (3, 4), (5, 6)]
    >>> ("result", 2) in _flat(([1, 2], {}, (), True, -1))
    True
    >>> ("shown", 0) in _flat(([1, 2], {}, (), True, 0))
    True
    """
    table, dms, left, result, shown = ids
    out = {tuple(table)} if table else set()
    if table and result:
        out.add(("result", table[1]))
    if shown >= 0:
        out.add(("shown", shown))
    out |= set(dms.values())
    out |= {tuple(x[1:]) for x in left}
    return frozenset(out)
