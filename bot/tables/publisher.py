"""Every Discord write of a table goes through here: the table message, DMs, announcements, score cards.

The manager decides under the table's lock and hands the publisher finished payloads; each table has one
:class:`Outbox` whose worker sends them in order, OUTSIDE the lock (a slow Discord never holds up a click):

* a write failing with a 5xx or a 429 (after discord.py's own retries) is tried again with :attr:`Publisher.backoff`;
  still failing after every try (a long storm), it stays first in the table's queue and is tried again, more slowly
  (up to ``STORM_BACKOFF`` times the last backoff apart), until Discord answers: no announcement, wall reveal or
  result is lost. Meanwhile the queue stays short: the table message is one slot, announcements waiting are joined
  into one message where they fit, a strip of the controls waits once. A 403 on the table's channel that may pass
  (the bot's member timed out, or its permissions there intact: :attr:`Publisher.refusal_passes`) waits the same
  way, for at most ``REFUSAL_LIMIT``. Only a write Discord refuses (4xx), or one
  still failing when the bot shuts down, is given up, and the log says which and why;
* the table message is one slot, latest wins: while an edit is on its way, newer states replace the one waiting
  (``min_interval`` > 0 spaces edits of one table; 0 = as fast as Discord answers);
* a DM refused because the player's DMs are closed (403 with code 50007, and only that) marks the seat: its hand
  is then shown by the table's My hand button and the channel is told once; the seat's hand is tried by DM again at
  each new hand (one request), and the first DM that goes through clears the mark: DMs resume;
* a DM that Discord fails after every try (a 5xx, a 429, the network: an outage, not the player's choice) is no
  closed DM: the seat's latest hand stays in its lane and is tried again, one request at a time ever more slowly
  (up to ``STORM_BACKOFF`` times the last backoff apart), until it lands; meanwhile the table message names the seat
  among the delayed DMs (no ping) and My hand shows the hand;
* each seat's private hand is one slot too (:class:`DmLane`): while a write to that player's DM channel waits for
  the channel's pacing (``channel_limit``, the same 5 writes per 5 s as a table channel), newer states of the hand
  replace the waiting one, the last always lands, and a decision's controls wait for nothing but that pacing;
* when newer controls are sent, the message that carried the old ones loses them, so no superseded button stays.

The message ids that a restarted bot needs (the table message, each seat's DM with controls, and any superseded
message whose controls are still being removed) are written to the store (``Store.set_matches_messages``) right
after the post that changed them, before the superseded controls are removed: a bot killed at any point finds every
message that may still carry controls. A change of decision on the same message only is written with the next batch
(at most ``flush_interval`` later): a restarted bot that finds an older decision there just replaces its controls.

Lobby messages (their seats, the start, the close) and dissolve vote messages are written here too, and the
message ids are kept for a restart: both in :mod:`.kept`. The answer to a click on a table control (the clicker's
new hand on the clicked message) is :mod:`.clicks`.

Over 600 lines on purpose: the outbox worker and the writes whose order it keeps are read together.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import io
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import discord

from bot.posting import NO_ACCESS
from bot.seams import Host

from .announce import CHUNK as POST_LIMIT
from .clicks import ClickAnswers, Strip
from .kept import KeptMessages, _flat, _ids, _retryable, merged
from .state import LiveTable, Seat
from .strings import t

log = logging.getLogger(__name__)

MAX_TABLE_EDITS = 40  # edits of one table message before it is re-posted at the bottom of the channel
MAX_POSTS_BELOW = 6  # our own messages posted under the table message before it is re-posted
MAX_MESSAGE_AGE = 45 * 60  # seconds: Discord rate-limits edits of messages older than an hour harder
TABLE_EDIT_INTERVAL = 1.0  # seconds between two edits of one table message: a view of the latest state
CHANNEL_WRITES = (5, 5.05)  # at most 5 writes per 5 s to a table's channel (Discord's per-channel limit in practice)
MAX_FILES = 10  # attachments of one message (Discord's limit)
#: seconds (the publisher's clock) that Discord may keep refusing a table's posts (403) while the gateway's cache
#: says the refusal may pass (the bot timed out, or its permissions there intact) before the table ends all the same
REFUSAL_LIMIT = 10 * 60.0
STORM_BACKOFF = 4  # a write failing after every try waits up to this many times the last backoff between tries
# what a kind of job carries, for the log when it has to be given up
WHAT_IS_LOST = {"post": "an announcement", "table": "the table message", "strip": "removing the table's controls",
                "call": "a lobby or vote message write"}
MENTIONS = discord.AllowedMentions(users=False, everyone=False, roles=False)  # table texts ping nobody


def pinging(users: tuple[int, ...]) -> discord.AllowedMentions:
    """A post that pings ``users`` and nobody else."""
    if not users:
        return MENTIONS
    return discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(u) for u in users])


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
    # the hand's result: the table message becomes its result card (text, score cards instead of the table image)
    # and stays in the channel when the next hand's table is posted (losing its controls)
    result: bool = False
    shows: int | None = None  # the hand (hand_no) whose result it carries (``result``)
    more: list[Png] = field(default_factory=list)  # more images (a second winner's score card)

    @property
    def pngs(self) -> list[Png]:
        return [self.png, *self.more]

    @property
    def marks(self) -> dict[str, int]:
        """What it says that a restarted bot must not say again (:meth:`Publisher.post`)."""
        return {} if self.shows is None else {"shown": self.shows}

    @property
    def key(self) -> tuple[int, ...]:
        return tuple(p.key for p in self.pngs)


@dataclass
class HandPayload:
    seat: int
    user_id: int
    content: str
    png: Png
    view: Any  # None: nothing to decide (the latest hand message is edited, no notification)
    new_hand: bool
    since: int | None  # the decision the controls are for (stored for a restart)
    probe: bool = False  # the seat's DMs were closed: sent once at a new hand, to find out whether they are open now


@dataclass
class DmLane:
    """One seat's private hand writes not sent yet, coalesced: the latest hand (``pending``; it carries its
    decision's controls, if any), or only that the seat's controls must go (``strip``), plus superseded controls
    on older messages (``olds``). Sent by its own worker, paced per DM channel."""

    pending: HandPayload | None = None
    strip: Strip | None = None
    olds: list[tuple[int, int]] = field(default_factory=list)
    worker: asyncio.Task[Any] | None = None
    busy: bool = False  # a write of this seat is on its way
    failing: int = 0  # its first write has failed after every try this many times in a row (Discord failing)

    def empty(self) -> bool:
        return self.pending is None and self.strip is None and not self.olds

    def restore(self, p: HandPayload) -> None:
        """``p`` did not go out (Discord failing): it waits again, unless a newer state replaced it meanwhile (that
        one goes, a new message if either was one); controls taken away meanwhile are taken from it too."""
        if self.pending is not None:
            self.pending.new_hand = self.pending.new_hand or p.new_hand
            return
        strip, self.pending, self.strip = self.strip, p, None
        if strip is not None:
            self.put_strip(strip)

    def put(self, p: HandPayload) -> None:
        """The newest hand state replaces the waiting one (a new hand stays a new message). Sending any hand
        state removes the seat's older controls, so a waiting ``strip`` is part of it."""
        if self.pending is not None:
            p.new_hand = p.new_hand or self.pending.new_hand
        self.pending, self.strip = p, None

    def put_strip(self, strip: Strip) -> None:
        """The seat has nothing left to decide: a waiting hand state is shown without its (never sent) controls
        (and with the strip's text and picture, when it has them)."""
        if self.pending is not None:
            self.pending.view, self.pending.since = None, None
            if strip.text is not None:
                self.pending.content = strip.text
            if strip.png is not None:
                self.pending.png = strip.png
        elif self.strip is None:
            self.strip = strip
        else:  # (a strip with a reason keeps it; one to reword the message stays one; the newest picture wins)
            png = strip.png if strip.png is not None else self.strip.png
            if strip.text is not None:
                self.strip = Strip(strip.text, strip.reword or self.strip.reword, png)
            else:
                self.strip = Strip(self.strip.text, self.strip.reword, png)


@dataclass
class Outbox:
    """One table's pending writes, in order; the table message is a single coalescing slot."""

    jobs: collections.deque[tuple[str, Any]] = field(default_factory=collections.deque)
    table: TablePayload | None = None  # the latest table message not sent yet
    worker: asyncio.Task[Any] | None = None
    # the private hands go by their own lanes (one per seat): a slow or rate-limited table channel never holds up a
    # player's DM, nor one player's DM channel another's
    lanes: dict[int, DmLane] = field(default_factory=dict)
    last_edit: float = -1e9
    failing: int = 0  # the first job has failed after every try this many times in a row (a storm)
    refused_at: float | None = None  # when Discord began refusing the first job (403) though it may pass
    storm_wait: bool = False  # the worker waits before trying the first job again
    writes: collections.deque[float] = field(default_factory=collections.deque)  # times of the channel's writes
    remember: bool = False  # the message ids changed: store them once the queue is empty


def _result_post(p: TablePayload) -> tuple[str, list[Png], tuple[int, ...], dict[str, int] | None]:
    """A hand's result card that a newer table message replaced before it was shown (a long storm), as a post: the
    result and the wall's reveal are what a player needs to verify the hand. It pings nobody."""
    return p.content, p.pngs, (), p.marks


NONCE_LETTERS = {"shown": "r", "end": "e", "summary": "t"}  # a mark's letter in a nonce (each its own)


def nonce(match_id: int, marks: dict[str, int]) -> str:
    """The nonce of a post that says ``marks`` of a match (at most 25 characters, as Discord takes).

    >>> nonce(1234, {"shown": 1}), nonce(1234, {"summary": 1}), nonce(1234, {"summary": 1, "end": 1})
    ('mj1234r1', 'mj1234t1', 'mj1234e1t1')
    """
    return (f"mj{match_id}" + "".join(f"{NONCE_LETTERS[k]}{v}" for k, v in sorted(marks.items())))[:25]


def _idle(worker: asyncio.Task[Any] | None) -> bool:
    return worker is None or worker.done()


def _dm_idle(box: Outbox) -> bool:
    return all(lane.empty() and _idle(lane.worker) for lane in box.lanes.values())


def _workers(box: Outbox) -> list[asyncio.Task[Any]]:
    return [w for w in (box.worker, *(lane.worker for lane in box.lanes.values())) if w is not None and not w.done()]


def _components(view: Any) -> Any:
    """The controls of a view, comparable (None: no controls)."""
    return None if view is None else repr(view.to_components())


UNKNOWN_CHANNEL = 10003  # Discord's error code for a channel that no longer exists
DMS_CLOSED = 50007  # Discord's error code for a user who does not take DMs from the bot (only this marks a seat)


def _place_lost(e: BaseException) -> str | None:
    """Why a write Discord refused means the table's channel is lost for good: "channel" (404 Unknown Channel: it was
    deleted) or "access" (403 Missing Access / Missing Permissions, a locked thread: the bot may not post there any
    more: a refusal that may pass, the bot timed out, is tried again first, :meth:`Publisher._may_pass`); None for
    any other refusal."""
    if isinstance(e, discord.NotFound) and e.code == UNKNOWN_CHANNEL:
        return "channel"
    if isinstance(e, discord.HTTPException) and e.status in (400, 403) and e.code in NO_ACCESS:
        return "access"
    return None


class Publisher(ClickAnswers, KeptMessages):
    """The Discord side of every table of one bot."""

    def __init__(self, bot: Host, on_dm_failed: Callable[[LiveTable, int], Awaitable[None]],
                 on_channel_gone: Callable[[LiveTable, str], object] | None = None) -> None:
        self.bot = bot
        self.on_dm_failed = on_dm_failed
        # a seat's DMs were found failing (Discord down) or working again: the table message says who is delayed
        self.on_dm_change: Callable[[LiveTable], Awaitable[None]] | None = None
        # the table's channel was deleted (404 Unknown Channel on a write to it: cause "channel") or the bot may not
        # post there any more (403 Missing Access / Missing Permissions: "access"): the manager ends the table, whose
        # Next / I'm back buttons were there (it waited on them for ever, its players kept from any other table)
        self.on_channel_gone = on_channel_gone
        # a 403 on a write to the table's channel: True when it may pass (the bot's member timed out, or its
        # permissions there intact in the gateway's cache): the write is tried again as in an outage, and the table
        # ends only if Discord still refuses after ``REFUSAL_LIMIT`` (None: every such refusal ends the table)
        self.refusal_passes: Callable[[LiveTable], bool] | None = None
        self.backoff: tuple[float, ...] = (0.5, 2.0, 5.0, 15.0)  # seconds between tries of a failing write
        self.min_interval = TABLE_EDIT_INTERVAL  # seconds between two edits of one table message (0: no spacing)
        # (writes, seconds) per channel: a table's channel and each player's DM channel (None: no pacing)
        self.channel_limit: tuple[int, float] | None = CHANNEL_WRITES
        self.dm_writes: dict[int, collections.deque[float]] = {}  # user id -> times of the writes to their DMs
        # the clock and the sleeper of every wait here (backoff, edit spacing): a benchmark injects simulated ones
        self.clock: Callable[[], float] = lambda: asyncio.get_running_loop().time()
        self.sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
        self.closing = False  # shutting down: a write failing after every try is given up (and logged)
        self.flush_interval = 0.5  # seconds: message ids of every table are stored together, at most this often
        self._dirty: dict[int, dict[str, Any]] = {}
        self._flusher: asyncio.Task[Any] | None = None
        self.boxes: dict[int, Outbox] = {}  # by LiveTable object id
        # (table id, seat) -> ((channel, message), image key) of the DM message showing that seat's hand image
        self.shown: dict[tuple[int, int], tuple[tuple[int, int], int]] = {}
        # table id -> (content, image keys, controls) of the table message as sent (an identical state is not sent)
        self.table_sent: dict[int, tuple[str, tuple[int, ...], Any]] = {}
        self.results: set[int] = set()  # tables whose message is a hand's result card (kept when the table re-posts)
        self.answered: set[int] = set()  # result cards whose controls a click's interaction response removed
        # table id -> (text, score cards) of the hand just ended: shown by the table message until the next hand
        self.result_parts: dict[int, tuple[str, list[Png], int]] = {}  # (and the hand's number)
        self.parked: dict[tuple[int, int], list[tuple[str, Any]]] = {}  # (table id, seat) -> writes held back
        self._emptied: dict[int, asyncio.Event] = {}  # by LiveTable object id: set when its outbox is dropped
        self._init_lifecycle()

    # ---- queueing (called under the table's lock) ------------------------------------------------------------

    def _box(self, lt: LiveTable) -> Outbox:
        return self.boxes.setdefault(id(lt), Outbox())

    def _kick(self, lt: LiveTable) -> None:
        box = self._box(lt)
        if box.worker is None or box.worker.done():
            box.worker = asyncio.get_running_loop().create_task(self._work(lt, box), name=f"mjbot-outbox-{lt.id}")

    def _lane(self, lt: LiveTable, seat: int) -> DmLane:
        return self._box(lt).lanes.setdefault(seat, DmLane())

    def _kick_dm(self, lt: LiveTable, seat: int) -> None:
        box = self._box(lt)
        lane = box.lanes.setdefault(seat, DmLane())
        if lane.worker is None or lane.worker.done():
            lane.worker = asyncio.get_running_loop().create_task(self._dm_work(lt, box, seat, lane),
                                                                 name=f"mjbot-outbox-dm-{lt.id}-{seat}")

    def post(self, lt: LiveTable, content: str, files: list[Png] | None = None, pings: tuple[int, ...] = (),
             marks: dict[str, int] | None = None) -> None:
        """Post ``content`` in the table's channel; it pings the members ``pings`` and nobody else. ``marks``: what
        it says that a restarted bot must not say again, stored once it is sent (:meth:`_marked`)."""
        box = self._box(lt)
        files = files or []
        if box.failing and len(box.jobs) > 1 and box.jobs[-1][0] == "post":
            # Discord is failing (a storm): announcements waiting behind the failing write are joined into one
            # message where they fit, so that a long storm keeps the queue short and loses nothing
            text, pngs, pinged, marked = box.jobs[-1][1]
            joined = f"{text}\n{content}" if text and content else text or content
            if len(joined) <= POST_LIMIT and len(pngs) + len(files) <= MAX_FILES:
                both = merged(marked or {}, marks or {})
                box.jobs[-1] = ("post", (joined, [*pngs, *files], tuple(dict.fromkeys((*pinged, *pings))), both))
                return
        box.jobs.append(("post", (content, files, pings, marks)))
        self._kick(lt)

    def table_message(self, lt: LiveTable, payload: TablePayload) -> None:
        box = self._box(lt)
        if box.table is not None:
            payload.fresh = payload.fresh or box.table.fresh  # latest wins, but a re-post asked for stays asked
            if box.table.result and not payload.result:  # a hand's result never shown: posted, not lost
                at = next(i for i, j in enumerate(box.jobs) if j[0] == "table")
                busy = not _idle(box.worker) and not box.storm_wait  # (the first job may be on its way)
                box.jobs.insert(max(at, 1 if busy else 0), ("post", _result_post(box.table)))
        else:
            box.jobs.append(("table", None))
        box.table = payload
        self._kick(lt)

    def strip_table_message(self, lt: LiveTable) -> None:
        box = self._box(lt)
        if len(box.jobs) > 1 and box.jobs[-1][0] == "strip":
            return  # the controls are about to go already
        box.jobs.append(("strip", None))
        self._kick(lt)

    def hand(self, lt: LiveTable, payload: HandPayload) -> None:
        if self._park(lt, payload.seat, ("hand", payload)):
            return
        self._lane(lt, payload.seat).put(payload)
        self._kick_dm(lt, payload.seat)

    def strip_dm(self, lt: LiveTable, seat: int, text: str | None = None, *, reword: bool = False,
                 png: Png | None = None) -> None:
        """The seat's controls go; ``text``: what its hand message says instead of the decision it asked for
        (``reword``: even when it had no controls, a player waiting for the others: the latest hand message is
        edited unless it says ``text`` already); ``png``: the hand as it ended, shown by that same edit when the
        latest hand message is edited (it costs no request of its own)."""
        self._strip_dm(lt, seat, Strip(text, reword, png))

    def _strip_dm(self, lt: LiveTable, seat: int, strip: Strip) -> None:
        if self._park(lt, seat, ("strip_dm", strip)):
            return
        self._lane(lt, seat).put_strip(strip)
        self._kick_dm(lt, seat)

    def _strip_old(self, lt: LiveTable, seat: int, where: tuple[int, int]) -> None:
        self._lane(lt, seat).olds.append(where)
        self._kick_dm(lt, seat)

    def hold(self, lt: LiveTable, seat: int) -> None:
        """Keep the seat's private hand writes back while its click is decided: the click's answer shows them
        (:meth:`take_hand`); :meth:`release` sends them as usual."""
        self.parked.setdefault((lt.id, seat), [])

    def release(self, lt: LiveTable, seat: int) -> None:
        jobs = self.parked.pop((lt.id, seat), None)
        for kind, arg in jobs or ():
            if kind == "hand":
                self.hand(lt, arg)
            else:
                self._strip_dm(lt, seat, arg)  # (the whole Strip: a rewording stays one)

    def _park(self, lt: LiveTable, seat: int, job: tuple[str, Any]) -> bool:
        held = self.parked.get((lt.id, seat))
        if held is None:
            return False
        held.append(job)
        return True

    def take_hand(self, lt: LiveTable, seat: int, where: tuple[int, int]) -> HandPayload | Strip | None:
        """The seat's private hand writes held back (:meth:`hold`), to be shown by the clicked DM message ``where``
        itself (the click's interaction response, exempt from the global budget): the latest :class:`HandPayload`,
        a :class:`Strip` when the controls must only go (a hand ended), None when there is nothing to show (or ``where`` is not
        the seat's latest hand message: the writes are then sent as usual). The seat's bookkeeping is updated as if
        sent; call :meth:`hand` with the payload if the response fails."""
        s = lt.seats[seat]
        mine = self.parked.get((lt.id, seat)) or []
        box = self.boxes.get(id(lt))
        lane = None if box is None else box.lanes.get(seat)
        if s is None or s.dm_failed or s.dm_last != where or not mine or any(
                j[0] == "hand" and j[1].new_hand for j in mine) or (lane is not None and (
                lane.busy or (lane.pending is not None and lane.pending.new_hand))):
            self.release(lt, seat)  # (a write of this seat on its way: the answer could land before it)
            return None
        del self.parked[(lt.id, seat)]
        if lane is not None:  # an older state still waiting for the DM channel's pacing: the answer shows a newer one
            lane.pending, lane.strip = None, None
        kind, last = mine[-1]
        if kind == "strip_dm":
            s.dm_controls = None
            if last.text is not None:
                s.dm_text = last.text
            return last  # a Strip
        old = s.dm_controls
        s.dm_text = last.content
        s.dm_controls = where if last.view is not None else None
        s.dm_since = last.since if last.view is not None else None
        if old is not None and old != where:  # older controls elsewhere go away (listed until they are gone)
            self.leftovers(lt).add(("strip", *old))
            self._strip_old(lt, seat, old)
        self._remember_soon(lt)
        return last

    def image_shown(self, lt: LiveTable, seat: int, where: tuple[int, int], png: Png) -> bool:
        """Does the DM message ``where`` already show ``png``? (Then an edit keeps its attachment.)"""
        return self.shown.get((lt.id, seat)) == (where, png.key)

    def picture_shown(self, lt: LiveTable, seat: int, png: Png) -> bool:
        """Is ``png`` the picture the seat's DMs show last? On its latest hand message, or on the one just above it:
        a decision on an unchanged hand is posted without the picture (:meth:`_send_hand`)."""
        shown = self.shown.get((lt.id, seat))
        return shown is not None and shown[1] == png.key

    def showing(self, lt: LiveTable, seat: int, where: tuple[int, int], png: Png) -> None:
        self.shown[(lt.id, seat)] = (where, png.key)

    def call(self, lt: LiveTable, fn: Callable[[], Awaitable[Any]]) -> None:
        """Run ``fn`` in the table's order of writes (e.g. a lobby message edit)."""
        self._box(lt).jobs.append(("call", fn))
        self._kick(lt)

    async def drain(self) -> None:
        """Wait until every outbox is empty (tests, shutdown)."""
        while True:
            workers = [w for b in self.boxes.values() for w in _workers(b)]
            workers += [w for w in (*self._id_tasks, self._now_writer) if w is not None and not w.done()]
            if not workers:
                return
            await asyncio.wait(workers)

    async def sent(self, lt: LiveTable) -> bool:
        """Wait until the writes of a closed table are out (sent, or refused by Discord: its outbox is dropped);
        False when the bot shuts down meanwhile or a write of a hand message failed after every try (a restarted
        bot does it again)."""
        while id(lt) in self.boxes and not self.closing:
            await self._emptied.setdefault(id(lt), asyncio.Event()).wait()
        return not self.closing and not lt.unsent

    def _clear(self, lt: LiveTable) -> None:
        """Forget what is kept about a table that is over (its last writes sent)."""
        self.table_sent.pop(lt.id, None)
        self.results.discard(lt.id)
        self.result_parts.pop(lt.id, None)
        self.answered.discard(lt.message_id)
        for s in lt.seats:  # the pacing of DM channels nobody wrote to lately is not kept
            uid = None if s is None else s.user_id
            times = None if uid is None else self.dm_writes.get(uid)
            if uid is not None and times is not None and (not times or self.channel_limit is None
                                                          or times[-1] + self.channel_limit[1] < self.clock()):
                del self.dm_writes[uid]
        for k in [k for k in self.shown if k[0] == lt.id]:
            del self.shown[k]

    async def close(self) -> None:
        for emptied in self._emptied.values():  # (closing: whoever waits for a table's writes is told so)
            emptied.set()
        workers = [w for b in self.boxes.values() for w in _workers(b)]
        for w in workers:
            w.cancel()
        await asyncio.gather(*workers, return_exceptions=True)
        if self._flusher is not None:
            self._flusher.cancel()
        if self.bot.store is not None:
            await self.flush()

    # ---- sending (the worker) ---------------------------------------------------------------------------------

    async def _work(self, lt: LiveTable, box: Outbox) -> None:
        queue = box.jobs
        try:
            while queue:
                kind, arg = queue[0]  # stays queued (and first) until it is sent or given up
                payload = None
                try:
                    if kind == "post":
                        await self._pace(lt, box)
                        await self._retry(lt, "post", functools.partial(self._send_post, lt, *arg))
                    elif kind == "table":
                        wait = box.last_edit + self.min_interval - self.clock()
                        if wait > 0:
                            await self.sleep(wait)
                        if box.table is not None:
                            await self._pace(lt, box)
                        payload, box.table = box.table, None  # the latest state, after every wait
                        if payload is not None:
                            await self._retry(lt, "table message", functools.partial(self._send_table, lt, payload))
                            box.last_edit = self.clock()
                    elif kind == "strip":
                        sent = self.table_sent.get(lt.id)
                        if lt.message_id is not None and (sent is None or sent[2] is not None):
                            await self._pace(lt, box)
                            await self._retry(lt, "strip", lambda: self._strip_table(lt))
                    elif kind == "call":
                        await self._retry(lt, "call", arg)
                    box.failing, box.refused_at = 0, None
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    cause = _place_lost(e) if kind in ("post", "table", "strip") else None
                    if (_retryable(e) or cause == "access" and self._may_pass(lt, box)) and not self.closing:
                        # Discord keeps failing (a long 5xx storm, or a 403 that may pass: the bot timed out):
                        # nothing a player needs may be lost, so the write stays first in the queue and is tried
                        # again, more and more slowly, until Discord answers. A table message waiting meanwhile is
                        # the latest state (newer states replace it).
                        if kind == "table" and payload is not None:
                            if box.table is None:
                                box.table = payload
                            else:
                                box.table.fresh = box.table.fresh or payload.fresh
                                if payload.result and not box.table.result:  # the result goes out as a post
                                    queue.appendleft(("post", _result_post(payload)))
                        box.failing += 1
                        top = self.backoff[-1] * STORM_BACKOFF if self.backoff else 1.0
                        wait = min(top, (self.backoff[-1] if self.backoff else 1.0) * 2 ** min(box.failing, 16))
                        log.warning("table %s: %s still failing after every try (%s); %d writes waiting, "
                                    "next try in %.1f s", lt.id, kind, e, len(queue), wait)
                        box.storm_wait = True  # the first job is not on its way: a job may go before it
                        try:
                            await self._storm_wait(wait)
                        finally:
                            box.storm_wait = False
                        continue
                    self._given_up(lt, kind, e)
                    if cause is not None and self.on_channel_gone is not None and not lt.closed:
                        self.on_channel_gone(lt, cause)  # (it starts the ending: this worker goes on with its queue)
                queue.popleft()
                if not queue and box.remember:
                    box.remember = False
                    await self._store_messages(lt)
        finally:
            self._drop_if_idle(lt, box)

    def _may_pass(self, lt: LiveTable, box: Outbox) -> bool:
        """Whether a 403 on the table's first write is tried again: the refusal may pass (:attr:`refusal_passes`)
        and Discord has not been refusing it for ``REFUSAL_LIMIT`` already (asked again at each refusal)."""
        if self.refusal_passes is None or self.closing or lt.closed:
            return False
        now = self.clock()
        if box.refused_at is None:
            box.refused_at = now
        if now - box.refused_at >= REFUSAL_LIMIT:
            log.warning("table %s: Discord has refused its posts for %.0f s: the table ends", lt.id,
                        now - box.refused_at)
            return False
        return self.refusal_passes(lt)

    async def _storm_wait(self, seconds: float) -> None:
        """Wait ``seconds`` before the next try of a failing write, cut short when the bot shuts down."""
        while seconds > 0 and not self.closing:
            step = min(seconds, 1.0)
            await self.sleep(step)
            seconds -= step

    def _given_up(self, lt: LiveTable, kind: str, e: BaseException) -> None:
        """Say in the log what was given up and why (a write Discord refuses is not tried again)."""
        what = WHAT_IS_LOST.get(kind, kind)
        if self.closing and _retryable(e):
            log.warning("table %s: %s given up: the bot is shutting down and Discord still fails (%s)", lt.id,
                        what, e)
        elif isinstance(e, discord.HTTPException):
            log.warning("table %s: %s given up: Discord refuses it (%s %s: %s)", lt.id, what, e.status,
                        getattr(e, "code", "?"), e.text)
        else:
            log.error("table %s: %s given up: %s", lt.id, what, e, exc_info=e)

    def _drop_if_idle(self, lt: LiveTable, box: Outbox) -> None:
        """An idle table keeps no outbox (memory per table), unless edits are spaced and it must remember when."""
        if self.boxes.get(id(lt)) is not box:
            return
        me = asyncio.current_task()
        if (not box.jobs and box.table is None and all(w is me for w in _workers(box))
                and all(lane.empty() for lane in box.lanes.values()) and (lt.closed or self.min_interval <= 0)):
            self.boxes.pop(id(lt), None)
            if lt.closed:
                self._clear(lt)
            emptied = self._emptied.pop(id(lt), None)
            if emptied is not None:
                emptied.set()

    async def _dm_work(self, lt: LiveTable, box: Outbox, seat: int, lane: DmLane) -> None:
        """Send one seat's private hand: the latest state after every wait for its DM channel's pacing. A write that
        Discord fails after every try stays in the lane and is tried again (:meth:`_dm_failing`)."""
        try:
            while not lane.empty():
                s = lt.seats[seat]
                if s is None or s.user_id is None:
                    break
                await self._pace_times(self.dm_writes.setdefault(s.user_id, collections.deque()))
                lane.busy = True
                once = lane.failing > 0  # Discord kept failing this lane: one try each time, ever more slowly
                taken: tuple[str, Any] | None = None
                try:
                    if lane.pending is not None:  # the newest state first (a decision goes before old controls)
                        p, lane.pending = lane.pending, None
                        taken = ("hand", p)
                        old = await self._send_hand(lt, p, once=once)
                        if old is not None:
                            lane.olds.append(old)
                    elif lane.olds:
                        old = lane.olds.pop(0)
                        taken = ("old", old)
                        if old != s.dm_controls:
                            await self._retry(lt, "strip DM", functools.partial(self._edit_view, old, None),
                                              once=once)
                        self._done_leftover(lt, ("strip", *old))  # (failing, it stays listed: a restart does it)
                    elif lane.strip is not None:
                        strip, lane.strip = lane.strip, None
                        controls = s.dm_controls
                        # no controls: a rewording goes on the latest hand message, unless it says that already
                        # (one edit for what changed, none for a state told before)
                        reword = strip.reword and strip.text is not None and strip.text != s.dm_text
                        target = controls or (s.dm_last if reword else None)
                        if target is not None:
                            old, s.dm_controls = target, None
                            taken = ("strip", (strip, controls))
                            # the hand as it ended goes on the latest hand message (after a restart: the one
                            # with controls) in the same edit
                            latest = s.dm_last in (None, old)
                            png = strip.png if strip.png is not None and latest and not self.picture_shown(
                                lt, seat, strip.png) else None
                            await self._retry(lt, "strip DM", functools.partial(self._edit_view, old, None,
                                                                                strip.text, png), once=once)
                            if png is not None:
                                self.showing(lt, seat, old, png)
                            if strip.text is not None and old == s.dm_last:
                                s.dm_text = strip.text
                            await self._remember(lt)
                    lane.failing = 0
                except asyncio.CancelledError:
                    raise
                except Exception as e:
                    if not _retryable(e):
                        log.exception("table %s: the hand of seat %s could not be sent", lt.id, seat)
                        lane.failing = 0
                    elif self.closing or taken is None:  # (a restart sends the hand messages again)
                        log.warning("table %s: the hand of seat %s given up: %s (%s)", lt.id, seat,
                                    "the bot is shutting down and Discord still fails" if self.closing
                                    else "Discord fails", e)
                        lt.unsent = True
                    else:
                        lane.busy = False
                        await self._dm_failing(lt, seat, lane, taken, e)
                finally:
                    lane.busy = False
            if box.remember and not box.jobs and _idle(box.worker):
                box.remember = False
                await self._store_messages(lt)
        finally:
            self._drop_if_idle(lt, box)

    async def _dm_failing(self, lt: LiveTable, seat: int, lane: DmLane, taken: tuple[str, Any],
                          e: BaseException) -> None:
        """Discord failed a seat's DM write after every try (an outage: a 5xx, a 429, the network; not closed DMs):
        what was taken goes back into the lane (newer states that came meanwhile win), the table message names the
        seat among the delayed DMs, and the lane waits before its next try, longer each time (one request per try:
        an outage costs each waiting seat a request a minute at most, not a storm)."""
        s = lt.seats[seat]
        kind, arg = taken
        if kind == "hand":
            lane.restore(arg)
        elif kind == "old":
            lane.olds.insert(0, arg)
        else:
            strip, old = arg  # (old: the controls it took away, None for a reworded message without any)
            if s is not None and s.dm_controls is None and old is not None:
                s.dm_controls = old
            if lane.pending is None and lane.strip is None:
                lane.strip = strip
        lane.failing += 1
        last = self.backoff[-1] if self.backoff else 1.0
        wait = min(last * STORM_BACKOFF, last * 2 ** min(lane.failing, 16))
        log.warning("table %s: the DM of seat %s still failing (%s); tried again in %.1f s, My hand shows the hand",
                    lt.id, seat, e, wait)
        if s is not None and not s.dm_down and not s.dm_failed:
            s.dm_down = True
            await self._dm_changed(lt)
        await self._storm_wait(wait)

    async def _dm_changed(self, lt: LiveTable) -> None:
        if self.on_dm_change is not None and not lt.closed:
            await self.on_dm_change(lt)

    async def _dm_delivered(self, lt: LiveTable, s: Seat) -> None:
        """A DM reached the player: a seat marked closed (they opened their DMs) or delayed gets its DMs again."""
        if not (s.dm_failed or s.dm_down):
            return
        if s.dm_failed:
            log.info("table %s: DMs to %s work again: their hand comes by DM again", lt.id, s.user_id)
            lt.told_dm.discard(s.user_id)  # (closed again later: the channel is told again)
        s.dm_failed = s.dm_down = False
        await self._dm_changed(lt)

    async def _pace(self, lt: LiveTable, box: Outbox) -> None:
        """Wait so that the table's channel gets at most ``channel_limit`` writes in any window of that length."""
        await self._pace_times(box.writes)

    async def _pace_times(self, writes: collections.deque[float]) -> None:
        """Wait so that a channel whose writes were at ``writes`` gets at most ``channel_limit`` writes in any
        window of that length, then count one more."""
        if self.channel_limit is None:
            return
        n, per = self.channel_limit
        if len(writes) >= n:
            wait = writes[-n] + per - self.clock()
            if wait > 0:
                await self.sleep(wait)
        writes.append(self.clock())
        while len(writes) > n:
            writes.popleft()

    async def _retry(self, lt: LiveTable | None, what: str, send: Callable[[], Awaitable[Any]], *,
                     once: bool = False) -> Any:
        """``send()``, tried again after 5xx / 429 / network errors with backoff; the last error propagates. ``lt``:
        the table it is for (None: a match no table is left for). ``once``: a single try (a write that keeps
        failing, tried again by its own slower loop)."""
        tries = 0 if once else len(self.backoff)
        for attempt in range(tries + 1):
            try:
                return await send()
            except Exception as e:
                if not _retryable(e) or attempt == tries:
                    raise
                log.warning("%s%s failed (%s); retrying in %.1f s", "" if lt is None else f"table {lt.id}: ", what, e,
                            self.backoff[attempt])
                await self.sleep(self.backoff[attempt])
        return None

    def _channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    async def _send_post(self, lt: LiveTable, content: str, files: list[Png], pings: tuple[int, ...] = (),
                         marks: dict[str, int] | None = None) -> discord.Message:
        kw: dict[str, Any] = {"files": [f.file() for f in files]} if files else {}
        if marks and lt.match_id is not None:
            # a post a restart may make again (its mark not stored yet when the bot stopped): Discord returns the
            # first instead of posting it twice, if it came in the last few minutes (a nonce it enforces)
            kw["nonce"] = nonce(lt.match_id, marks)
        msg = await self._channel(lt.channel_id).send(content, allowed_mentions=pinging(pings), **kw)
        lt.posts_below += 1
        if marks:
            await self._marked(lt, marks)
        return msg

    async def _marked(self, lt: LiveTable, marks: dict[str, int]) -> None:
        """What a post or a result card said, kept for a restart (each mark a number; the higher kept): ``shown``,
        the last hand whose result went out (with the table's message ids while it plays); and of a table that is
        over, whose list no batch rewrites now, also ``end`` (its end said) and ``summary`` (:meth:`mark_stored`)."""
        lt.shown = max(lt.shown, marks.get("shown", -1))
        if not lt.closed:
            await self._remember(lt)  # (``shown`` is among the ids: written at once when it is new)
        elif lt.match_id is not None:
            lt.said = merged(lt.said, {k: v for k, v in marks.items() if k != "shown"})
            await self.mark_stored(lt.match_id, marks)

    async def _edit_view(self, where: tuple[int, int], view: Any, content: str | None = None,
                         png: Png | None = None) -> None:
        kw: dict[str, Any] = {"view": view} if content is None else {"view": view, "content": content}
        if png is not None:  # (the picture replaces the message's one)
            kw["attachments"] = [png.file()]
        with contextlib.suppress(discord.NotFound, discord.Forbidden):
            await self._channel(where[0]).get_partial_message(where[1]).edit(**kw)

    async def _delete(self, where: tuple[int, int]) -> None:
        with contextlib.suppress(discord.NotFound, discord.Forbidden):
            await self._channel(where[0]).get_partial_message(where[1]).delete()

    async def _send_table(self, lt: LiveTable, p: TablePayload) -> None:
        age = self.clock() - lt.message_at
        repost = (p.fresh or lt.message_id is None or lt.edits >= MAX_TABLE_EDITS or lt.posts_below >= MAX_POSTS_BELOW
                  or age > MAX_MESSAGE_AGE)
        state = (p.content, p.key, _components(p.view))
        sent = self.table_sent.get(lt.id)
        # a hand's result card stays in the channel: the next table message is posted below it (a result is
        # written into the table message in place, where Discord lets it be edited)
        keep = lt.id in self.results or (sent is None and lt.table is not None and lt.table.phase == "ended")
        if keep and not p.result:
            repost = True
        if not repost:
            if sent == state:
                return  # the message already shows this (e.g. a pass that changed nothing on the table)
            try:
                msg = self._channel(lt.channel_id).get_partial_message(lt.message_id)  # type: ignore[arg-type]  # posted before
                kw: dict[str, Any] = {} if sent is not None and sent[1] == p.key else {"attachments": [f.file() for f in p.pngs]}
                await msg.edit(content=p.content, view=p.view, **kw)  # no attachments given: the images stay
                lt.edits += 1
                self.table_sent[lt.id] = state
                self._mark_result(lt, p)
                if p.result:  # stored at once: a restarted bot keeps the card below the next table
                    await self._marked(lt, p.marks)
                return
            except (discord.NotFound, discord.Forbidden):
                pass  # deleted by someone: post it again
        old = lt.message_id
        kw = {"view": p.view} if p.view is not None else {}
        msg = await self._channel(lt.channel_id).send(p.content, files=[f.file() for f in p.pngs],
                                                      allowed_mentions=MENTIONS, **kw)
        lt.message_id, lt.message_at, lt.edits, lt.posts_below = msg.id, self.clock(), 0, 0
        self.table_sent[lt.id] = state
        self._mark_result(lt, p)
        superseded = (lt.channel_id, old) if old is not None and old != msg.id else None
        if superseded:  # stored with the new id: a restart finishes the job
            self.leftovers(lt).add(("strip" if keep else "gone", *superseded))
        await self._marked(lt, p.marks)
        if superseded:
            await self._pace(lt, self._box(lt))
            # tried again like any write; failing after every try, it stays listed: a restart finishes it (the
            # error is not raised: the new table message is out, and must not be sent again)
            with contextlib.suppress(discord.HTTPException, OSError, asyncio.TimeoutError):
                if keep:  # the last hand's result stays; its controls go (unless a click's answer took them)
                    if old in self.answered:
                        self.answered.discard(old)
                    else:
                        await self._retry(lt, "strip result", lambda: self._edit_view(superseded, None))
                else:
                    await self._retry(lt, "delete table", lambda: self._delete((lt.channel_id, old)))  # type: ignore[arg-type]  # posted before
                self._done_leftover(lt, ("strip" if keep else "gone", *superseded))

    def result_answered(self, lt: LiveTable, message_id: int) -> bool:
        """A click on the result card ``message_id`` (Next) may remove its controls in its own interaction response
        (exempt from the global budget) when the next hand's table replaces it: True, and the publisher then leaves
        them to that answer."""
        if lt.id not in self.results or lt.message_id != message_id or lt.table is None or lt.table.phase == "ended":
            return False
        self.answered.add(message_id)
        return True

    def answer_failed(self, lt: LiveTable, message_id: int) -> None:
        """The answer of :meth:`result_answered` did not reach Discord: the publisher removes the controls."""
        if message_id in self.answered:
            self.answered.discard(message_id)
            if lt.message_id != message_id:  # already replaced by the next table: strip it now
                self.call(lt, lambda: self._edit_view((lt.channel_id, message_id), None))

    def _mark_result(self, lt: LiveTable, p: TablePayload) -> None:
        if p.result:
            self.results.add(lt.id)
        else:
            self.results.discard(lt.id)

    async def _strip_table(self, lt: LiveTable) -> None:
        if lt.message_id is not None:
            await self._edit_view((lt.channel_id, lt.message_id), None)
            sent = self.table_sent.get(lt.id)
            if sent is not None:
                self.table_sent[lt.id] = (sent[0], sent[1], None)

    async def _send_hand(self, lt: LiveTable, p: HandPayload, *, once: bool = False) -> tuple[int, int] | None:
        """Show ``p`` in the player's DMs; returns where superseded controls are left to remove (the caller paces
        that write like any other). Discord failing after every try (``once``: after one) raises: the caller keeps
        ``p`` and tries again."""
        s: Seat | None = lt.seats[p.seat]
        # a closed table sends no hand, but a waiting one whose controls were taken away (put_strip) still edits
        # the last hand message: its controls go with the table (it returned at once, leaving them live)
        if s is None or (s.dm_failed and not p.probe) or (lt.closed and p.view is not None):
            return None
        if p.new_hand:
            s.dm_last = None  # a new hand starts in a new message
        try:
            if p.view is None and s.dm_last is not None:
                # nothing to decide: the last hand message shows the new hand (no new notification)
                try:
                    last = s.dm_last
                    kw: dict[str, Any] = {} if self.image_shown(lt, p.seat, last, p.png) else {"attachments": [p.png.file()]}
                    await self._retry(lt, "DM edit", lambda: self._channel(last[0]).get_partial_message(last[1]).edit(
                        content=p.content, view=None, **kw), once=once)
                    self.showing(lt, p.seat, last, p.png)
                    s.dm_text = p.content
                    if s.dm_controls == last:
                        s.dm_controls = None
                    await self._dm_delivered(lt, s)
                    return None
                except discord.NotFound:
                    pass
            if lt.closed:
                return None
            # a decision to make (or no message yet): a new message, so that the player is notified
            dm = await self._retry(lt, "open DM", lambda: self.bot.create_dm(discord.Object(p.user_id)), once=once)
            kw = {"view": p.view} if p.view is not None else {}
            shown = self.shown.get((lt.id, p.seat))
            # a decision on an unchanged hand (a claim offer): the hand image just above is not sent again
            reuse = not p.new_hand and shown is not None and shown[1] == p.png.key and shown[0] == s.dm_last
            if not reuse:
                kw["file"] = p.png.file()
            msg = await self._retry(lt, "DM", lambda: dm.send(p.content, **kw), once=once)
            if not reuse:
                self.showing(lt, p.seat, (dm.id, msg.id), p.png)
        except discord.Forbidden as e:
            if e.code != DMS_CLOSED:  # not the player's closed DMs: this write is given up, the seat not marked
                log.warning("table %s: a DM to %s refused (403 %s: %s): not sent", lt.id, p.user_id, e.code, e.text)
                return None
            if s.dm_failed:  # tried again at a new hand: still closed (the channel was told already)
                log.info("table %s: DMs to %s still closed", lt.id, p.user_id)
                return None
            log.info("table %s: DMs closed for %s (%s)", lt.id, p.user_id, e.code)
            s.dm_down = False
            await self.on_dm_failed(lt, p.seat)
            return None
        old, s.dm_controls = s.dm_controls, ((dm.id, msg.id) if p.view is not None else None)
        s.dm_last, s.dm_text = (dm.id, msg.id), p.content
        s.dm_since = p.since if p.view is not None else None
        superseded = old if old is not None and old != s.dm_controls else None
        if superseded is not None:  # listed with the new message first: a bot killed before it goes still finds it
            self.leftovers(lt).add(("strip", *superseded))
        await self._remember(lt)
        await self._dm_delivered(lt, s)
        return superseded  # the superseded controls go away (the lane paces that write)

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
                await self._store().set_matches_messages(batch)
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
