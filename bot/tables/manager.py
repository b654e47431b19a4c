"""The table lifecycle: lobbies, starting, acting, AI seats, timers, stalls and ending. No Discord here.

Every change of a table happens under its ``asyncio.Lock``: the engine applies an action in memory, the store's
:class:`~bot.store.tables.TableRecorder` records it (the one write path), and the payloads of what players must see
are handed to the :class:`~bot.tables.publisher.Publisher`, which sends them after the lock is released.

When the store fails:

* before the action is recorded: the table is as it was and the player is told so (``tables.not_recorded``);
* after it (settling, the next hand, an AI seat's answer): the action stands, the player is told it was recorded,
  the table says it waits for the database and a recovery task retries with backoff until the store answers, then
  plays on by itself. The turn timer stays armed for whoever must act.

An engine error (a bug) pauses the table: logged with the seed and the actions, a visible message, and only
``/table end`` (host or Manage Server) works then.

Over 600 lines on purpose: the lifecycle's steps share the lock discipline above and are read together (table
management is the mixin :mod:`.admin`, what players see :mod:`.output`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from dataclasses import dataclass
from typing import Any

from bot.seams import Host, TableUI
from bot.settings import AI_DIFFICULTIES, guild_settings
from bot.store import SeatSpec, Shards, Store, StoreError
from bot.store.lobbies import delete_lobby, save_lobby
from bot.store.resume import retrying
from bot.store.tables import NotRecorded, TableRecorder
from engine.ai import decision_rng
from engine.errors import EngineError
from engine.table import Action, Event, IllegalAction, Table

from . import scenes
from .admin import Admin
from .aipool import AiPool
from .gone import Gone
from .kept import LobbyPayload
from .output import PLAYING, Output
from .publisher import Publisher, dm_closed_text
from .state import KEPT_AWAY, LiveTable, Refusal, Seat, State, Timers
from .strings import t

log = logging.getLogger(__name__)

TIMER_TASK_NAME = "mjbot-table-timer"
Ahead = tuple[Table, int, int, "asyncio.Task[Action]"]
"""An AI seat's decision asked ahead (:meth:`TableManager._ask_ahead`): the table, its seq, the seat, the task."""
AFK_AFTER = 2  # timeouts on one's own turn in a row before the seat is played by the AI
AHEAD_TASK_PREFIX = "mjbot-ai-ahead:"
"""The name (then the table's channel) of a task that asks an AI seat's decision ahead, while the action before it is
written: its error goes to the run that awaits it, or is retrieved when the decision is dropped."""


@dataclass
class Outcome:
    """What a player's control did: ``done`` describes the action; ``note`` a message key to tell them too."""

    done: str
    note: str | None = None


def action_of(seat: int, op: str, arg: str | None) -> Action | None:
    """The engine action of a control: ``d`` discard, ``w`` win, ``p`` pung, ``k`` kong, ``c`` chi, ``x`` pass.

    >>> action_of(1, "d", "5p")
    Action(type='discard', seat=1, tile=13)
    >>> action_of(1, "z", None) is None
    True
    """
    types = {"d": "discard", "w": "win", "p": "pung", "k": "kong", "c": "chi", "x": "pass"}
    if op not in types:
        return None
    tile = None
    if arg:
        try:
            from engine.table.actions import parse_tile

            tile = parse_tile(arg)
        except EngineError:
            return None
    return Action(types[op], seat, tile)


WAITED_FOR = ("mjbot-recover", "mjbot-outbox-closed-out", "mjbot-reload", "mjbot-gone")  # the tasks of :meth:`TableManager.wait_idle`


class TableManager(Admin, Output, Gone):
    """Every live table of one bot. ``ui`` (set by cogs.tables) builds the controls of each kind of message."""

    #: Benchmarks and the crash test may switch PNG drawing off (a 1x1 stub is sent instead), on the class to
    #: cover the tables resumed while the bot starts.
    render_images = True

    def __init__(self, bot: Host) -> None:
        self.bot = bot
        self.observers = bot.observers  # every image's scene is reported before it is drawn (bot.observe)
        self.by_channel: dict[int, LiveTable] = {}
        self.by_id: dict[int, LiveTable] = {}
        self.vote_ends: dict[int, tuple[int, str, int]] = {}
        self.by_player: dict[int, int] = {}  # user id -> channel id
        self.ui: TableUI | None = None
        self.timers = Timers()
        # the seed of each new match: secret and random in play; tests may fix it to get a known deal
        self.new_seed: Callable[[], str] = lambda: secrets.token_hex(8)
        self.store_backoff: tuple[float, ...] = (0.2, 0.5, 1.0, 2.0, 5.0, 10.0)  # recovery from a failing store
        self.closing = False
        self.wall: Callable[[], float] = time.time  # Unix time: what a restart keeps (a dissolve vote's deadline)
        # how a dissolve vote waits for its deadline on that clock (tests inject a sleeper they end themselves)
        self.vote_sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
        # the clock of the turn, claim and next-hand timers, and how they wait on it (tests inject simulated time)
        self.clock: Callable[[], float] = lambda: asyncio.get_running_loop().time()
        self.sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep
        self.publisher = Publisher(bot, self._dm_failed, self.channel_lost)
        self.refused: dict[int, LiveTable] = {}  # (bot.tables.gone: refused before the servers were listed)
        self.publisher.refusal_passes = self.refusal_passes  # (bot.tables.gone: a 403 that may pass)
        self.publisher.on_dm_change = self._dm_changed  # (a seat's DMs delayed by Discord, or back)
        self._tasks: set[asyncio.Task[Any]] = set()
        self._recovering: set[int] = set()
        self.closing_out: set[int] = set()  # matches over whose messages are being closed by this run (_close_out)
        self.ai = AiPool()  # AI decisions in worker processes (tests may set ``ai.inline``)
        self.asked_ahead = 0  # AI decisions asked while the action before them was written, and taken
        #: resumes from the store the tables of this process's servers that do not play here (set by the bot)
        self.reread: Callable[[], Awaitable[None]] | None = None

    @property
    def store(self) -> Store:
        """The bot's store, open while tables run (``RuntimeError`` when it is not)."""
        if self.bot.store is None:
            raise RuntimeError("the store is not open")
        return self.bot.store

    def _spawn(self, coro: Any, name: str | None = None) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    # ---------------------------------------------------------------------------------------------- ownership

    def owns(self, guild_id: int) -> bool:
        """Whether this process drives the server's tables: always with one process; with several (bot.cluster)
        only while it holds the lease of the server's shard."""
        cluster = getattr(self.bot, "cluster", None)
        return cluster is None or cluster.owns_guild(guild_id)

    def own_shards(self) -> Shards | None:
        """The shards whose servers' tables this process drives now (None: every server's, one process); a resume
        takes it once, so that it reads and brings back the same servers' matches, votes and lobbies throughout."""
        cluster = getattr(self.bot, "cluster", None)
        return None if cluster is None else Shards(cluster.count, frozenset(cluster.held))

    async def shards_lost(self, shards: set[int]) -> None:
        """This process lost shards' leases: their tables stop here at once (nothing is written: the store has
        them, and the process that takes the shards resumes them)."""
        for lt in list(self.by_channel.values()):
            if self.owns(lt.guild_id):
                continue
            async with lt.lock:
                self._let_go(lt)
            log.warning("table %s in %s: its shard's lease is lost, the table stops in this process", lt.id,
                        lt.channel_id)

    def _let_go(self, lt: LiveTable) -> None:
        """The table stops in this process, quietly (under its lock): another process drives it now, or it is read
        again from the store (:meth:`_reload`). Nothing is written or shown: the store has it."""
        assert lt.lock.locked(), "a table is let go under its lock"
        lt.gone = True
        if lt.timer is not None:
            lt.timer.cancel()
            lt.timer = None
        if lt.vote is not None and lt.vote.timer is not None:
            lt.vote.timer.cancel()
        self._forget(lt)
        if not lt.closed:
            lt.move(State.ABORTED)  # closed in this process only: the store's match plays on elsewhere

    def _elsewhere(self, lt: LiveTable) -> bool:
        """A write of the table met another process's work (:attr:`TableRecorder.elsewhere`): no "database" message
        (the database is fine). Fenced: another process holds the table's shard now, which plays it: the table
        stops here. Moved on (the store holds actions this table lacks): it is read again from the store and plays
        on from there. True when the table was let go (under its lock)."""
        why = None if lt.rec is None else lt.rec.elsewhere
        if why is None:
            return False
        if not lt.gone:
            log.warning("table %s: %s: it stops here", lt.id, "another process holds its shard now" if why == "fenced"
                        else "the store holds actions it had not seen (another process wrote them); read again")
            self._let_go(lt)
            if why == "moved" and not self.closing:
                self._spawn(self._reload(), name=f"mjbot-reload-{lt.id}")
        return True

    async def _reload(self) -> None:
        """The tables of this process's shards that do not play here (one let go to be read again) resumed from
        the store, as after a lease was taken (``reread``, the bot's). A reread that fails is tried again, with the
        store's backoff, until it succeeds or the bot closes: a table let go to be read again has no driver till then."""
        n = 0
        while self.reread is not None and not self.closing:
            try:
                await self.reread()
                return
            except Exception:
                log.exception("the tables could not be read again from the store (try %d); trying again", n + 1)
            await asyncio.sleep(self.store_backoff[min(n, len(self.store_backoff) - 1)])
            n += 1

    # ---------------------------------------------------------------------------------------------- lookups

    def settling(self, guild_id: int | None) -> bool:
        """Whether the server's shard was just taken by this process and its tables are not back yet (being resumed
        from the store): a table not found may well be there in a moment ("the table is moving", not "over")."""
        cluster = getattr(self.bot, "cluster", None)
        return cluster is not None and guild_id is not None and cluster.settling_guild(guild_id)

    def table_in(self, channel_id: int, guild_id: int | None = None) -> LiveTable:
        lt = self.by_channel.get(channel_id)
        if lt is None or lt.closed:
            raise Refusal("tables.moving" if lt is None and self.settling(guild_id) else "tables.no_table")
        return lt

    def check_place(self, lt: LiveTable, guild_id: int | None, channel_id: int | None) -> None:
        """A control pressed in a server channel acts only on that channel's own table."""
        if guild_id is not None and (lt.guild_id != guild_id or lt.channel_id != channel_id):
            raise Refusal("tables.wrong_place")

    def may_manage(self, lt: LiveTable, user_id: int, manage_guild: bool) -> None:
        if user_id != lt.host_id and not manage_guild:
            host = next((s.name for s in lt.seats if s and s.user_id == lt.host_id), str(lt.host_id))
            raise Refusal("tables.host_only", host=host)

    def _check_free(self, user_id: int, lt: LiveTable | None = None) -> None:
        ch = self.by_player.get(user_id)
        if ch is not None:
            if lt is not None and ch == lt.channel_id:
                raise Refusal("tables.already_seated")
            raise Refusal("tables.seated_elsewhere", channel=ch)

    # ---------------------------------------------------------------------------------------------- lobby

    async def open_lobby(self, guild_id: int, channel_id: int, host_id: int, host_name: str, host_lang: str,
                         variant: str, rules: dict[str, Any], settings: Any) -> LiveTable:
        """A new lobby in the channel, stored before anyone sees it (Refusal ``tables.not_recorded`` when the store
        fails: no lobby then)."""
        # another process holds the server's shard (or nobody does, for a moment), or its tables are coming back here
        if not self.owns(guild_id) or self.settling(guild_id):
            raise Refusal("tables.moving")
        if channel_id in self.by_channel and not self.by_channel[channel_id].closed:
            raise Refusal("tables.busy_channel")
        self._check_free(host_id)
        lt = LiveTable(guild_id=guild_id, channel_id=channel_id, host_id=host_id, variant=variant, rules=rules,
                       lang=settings.language, turn_seconds=settings.turn_seconds,
                       claim_seconds=settings.claim_seconds, hints=settings.hints)
        lt.seats[0] = Seat(host_id, host_name, lang=host_lang)
        self.by_channel[channel_id] = lt  # taken at once: a second /table new in the channel is refused
        self.by_player[host_id] = channel_id

        def undo() -> None:
            if self.by_channel.get(channel_id) is lt:
                del self.by_channel[channel_id]
            if self.by_player.get(host_id) == channel_id:
                del self.by_player[host_id]

        async with lt.lock:
            await self._keep_lobby(lt, undo, adding=host_id)
        return lt

    async def lobby_posted(self, lt: LiveTable, message_id: int) -> None:
        """The lobby's message was posted (as the answer to ``/table new`` or ``/table show``): remembered, and an
        older lobby message loses its buttons."""
        async with lt.lock:
            if lt.state is not State.LOBBY:
                return
            old, lt.lobby_message_id = lt.lobby_message_id, message_id
            self.publisher.replace_lobby_message(lt, old)
            with contextlib.suppress(Refusal):  # logged; after a restart the next change posts a new message
                await self._keep_lobby(lt, lambda: None)

    def _lobby(self, lt: LiveTable) -> None:
        if lt.state is not State.LOBBY:
            raise Refusal("tables.lobby_gone" if lt.closed else "tables.not_lobby")

    async def _keep_lobby(self, lt: LiveTable, undo: Callable[[], Any], *, gone: bool = False,
                          adding: int | None = None) -> None:
        """Store the lobby as it now is (``gone``: delete it) before anyone sees the change; when the store fails,
        ``undo()`` and refuse (nothing changed). ``adding``: the player this change seats (who pressed), the only
        one the store may refuse for sitting elsewhere. Under the table's lock."""
        try:
            if gone:
                await self._drop_lost_start(lt)
                await delete_lobby(self.store, lt.channel_id)
            else:
                await save_lobby(self.store, lt.guild_id, lt.channel_id, lt.lobby_state(), players=lt.players(),
                                 adding=() if adding is None else (adding,))
        except StoreError as e:
            undo()
            if e.code != "seated_elsewhere":
                log.warning("lobby in %s: not recorded: %s", lt.channel_id, e)
                raise Refusal("tables.not_recorded") from e
            # the store is the judge across processes: the player sits at a table another process drives
            log.info("lobby in %s: %s", lt.channel_id, e)
            # (only the players a write adds are refused: the one who pressed Join, or the host of a new lobby)
            raise Refusal("tables.seated_elsewhere", channel=e.params["channel"]) from e
        except Exception as e:
            undo()
            log.warning("lobby in %s: not recorded: %s", lt.channel_id, e)
            raise Refusal("tables.not_recorded") from e

    def show_lobby(self, lt: LiveTable) -> None:
        """Queue the lobby message's new state (seats, host) with the table's writes."""
        if self.ui is not None and lt.state is State.LOBBY:
            embed, view = self.ui.lobby_message(lt)
            self.publisher.lobby_message(lt, LobbyPayload(embed, view, lambda mid: self._lobby_id_changed(lt)))

    async def _lobby_id_changed(self, lt: LiveTable) -> None:
        async with lt.lock:
            if lt.state is State.LOBBY:
                with contextlib.suppress(Refusal):
                    await self._keep_lobby(lt, lambda: None)

    def _close_lobby(self, lt: LiveTable, key: str) -> None:
        """The lobby closed without a match (under its lock, after it was deleted from the store)."""
        lt.move(State.ABORTED)
        self._forget(lt)
        self.publisher.close_lobby(lt, t(key, lt.lang))

    async def join(self, lt: LiveTable, user_id: int, name: str, lang: str) -> None:
        async with lt.lock:
            self._lobby(lt)
            self._check_free(user_id, lt)
            free = [i for i, s in enumerate(lt.seats) if s is None]
            if not free:
                raise Refusal("tables.full")
            lt.seats[free[0]] = Seat(user_id, name, lang=lang)
            await self._keep_lobby(lt, lambda: lt.seats.__setitem__(free[0], None), adding=user_id)
            self.by_player[user_id] = lt.channel_id
            self.show_lobby(lt)

    async def leave(self, lt: LiveTable, user_id: int) -> str:
        async with lt.lock:
            self._lobby(lt)
            i = lt.seat_of(user_id)
            if i is None:
                raise Refusal("tables.not_seated")
            seat, host = lt.seats[i], lt.host_id
            lt.seats[i] = None
            gone = not lt.humans()
            if not gone and user_id == lt.host_id:
                lt.host_id = lt.host_after()

            def undo() -> None:
                lt.seats[i], lt.host_id = seat, host

            await self._keep_lobby(lt, undo, gone=gone)
            self.by_player.pop(user_id, None)
            if gone:
                self._close_lobby(lt, "tables.not_started_end")
            else:
                self.show_lobby(lt)
            assert seat is not None  # the leaver's own seat
            return seat.name

    async def add_ai(self, lt: LiveTable, difficulty: str | None, by_user: int) -> str:
        """Seat an AI of ``difficulty`` in the first free chair of a lobby; without one (the lobby's Add AI button,
        ``/table addbot`` without a difficulty), of the server's ``ai_difficulty`` setting as it is now (an AI
        already seated keeps its own). Returns its name."""
        if difficulty is None:
            difficulty = (await guild_settings(self.bot, lt.guild_id)).ai_difficulty
        if difficulty not in AI_DIFFICULTIES:  # a forged option value: the command's default, as before
            difficulty = "normal"
        async with lt.lock:
            self._lobby(lt)
            if lt.seat_of(by_user) is None:
                raise Refusal("tables.not_seated")
            free = [i for i, s in enumerate(lt.seats) if s is None]
            if not free:
                raise Refusal("tables.full")
            n = sum(1 for s in lt.seats if s is not None and s.ai) + 1
            seat = Seat(None, t("tables.ai_name", lt.lang, n=n), ai=difficulty, lang=lt.lang)
            lt.seats[free[0]] = seat
            await self._keep_lobby(lt, lambda: lt.seats.__setitem__(free[0], None))
            self.show_lobby(lt)
            return seat.name

    async def remove_ai(self, lt: LiveTable, by_user: int, seen: int | None = None) -> str:
        """Take the AI added last out of a lobby (a seated player: one added with the wrong difficulty, or one seat
        too many), so that the next one added takes its name. Returns its name. ``seen``: how many AIs the lobby
        showed where the button was pressed; another count now (the same press twice, two players at once, a lobby
        changed since) is refused as out of date, nothing changed."""
        async with lt.lock:
            self._lobby(lt)
            if lt.seat_of(by_user) is None:
                raise Refusal("tables.not_seated")
            ais = [i for i, s in enumerate(lt.seats) if s is not None and s.ai]
            if not ais:
                raise Refusal("tables.no_ai")
            if seen is not None and seen != len(ais):
                self.show_lobby(lt)  # the message as the lobby is now (a change it missed: a kill before its edit)
                raise Refusal("tables.lobby_stale")
            last = t("tables.ai_name", lt.lang, n=len(ais))  # the names are 1..n in the order they were added
            i = next((i for i in ais if lt.occupant(i).name == last), ais[-1])
            seat = lt.occupant(i)
            lt.seats[i] = None
            await self._keep_lobby(lt, lambda: lt.seats.__setitem__(i, seat))
            self.show_lobby(lt)
            return seat.name

    def _forget(self, lt: LiveTable) -> None:
        if self.by_channel.get(lt.channel_id) is lt:
            del self.by_channel[lt.channel_id]
        if lt.match_id is not None:
            self.by_id.pop(lt.match_id, None)
        for s in lt.seats:
            if s is not None and s.user_id is not None and self.by_player.get(s.user_id) == lt.channel_id:
                del self.by_player[s.user_id]
        if lt.timer is not None:
            lt.timer.cancel()
            lt.timer = None
        self.publisher.forget_ids(lt)

    # ---------------------------------------------------------------------------------------------- start / end

    async def start(self, lt: LiveTable) -> None:
        """Deal the first hand: record the match, post the table, DM the hands, let the AI seats play; the lobby
        message says the match started (once) and loses its buttons. Raises :class:`Refusal` and changes nothing
        if the lobby cannot start now; raises ``Refusal("tables.is_paused")`` when the match started and an engine
        error (an AI seat's first decision, say) paused it at once, as a move's would."""
        async with lt.lock:
            self._lobby(lt)
            if any(s is None for s in lt.seats):
                raise Refusal("tables.need_four")
            if not lt.humans():
                raise Refusal("tables.need_human")
            lt.move(State.STARTING)
            seed = lt.start_seed = lt.start_seed or self.new_seed()  # a start whose answer was lost: the same again
            specs = [SeatSpec.human(s.user_id, s.name) if s.user_id is not None else SeatSpec.bot(s.ai or "normal")
                     for s in map(lt.occupant, range(4))]
            # the channel's lobby is here, so its shard is this process's: an active match in the channel that no
            # table here drives and that never started a hand (a lost start of a lobby given up) gives way
            unheld = not any(o.channel_id == lt.channel_id for o in self.by_id.values())
            try:
                lt.rec = await TableRecorder.start(self.store, guild_id=lt.guild_id, channel_id=lt.channel_id,
                                                   variant=lt.variant, seed=seed, settings=lt.rules, seats=specs,
                                                   meta=lt.meta(), unheld=unheld)
            except StoreError as e:
                log.warning("table in %s: the match was refused: %s", lt.channel_id, e)
                lt.move(State.LOBBY)
                lt.busy_channel = e.code == "channel_busy"
                # fenced: another process holds the channel's shard now (the database answered): the table moves
                raise Refusal("tables.channel_busy" if e.code == "channel_busy" else "tables.moving"
                              if e.code == "fenced" else "tables.not_recorded") from e
            except Exception as e:
                log.warning("table in %s: the match could not be recorded: %s", lt.channel_id, e)
                lt.move(State.LOBBY)
                raise Refusal("tables.not_recorded") from e
            lt.start_seed = None
            self.by_id[lt.rec.match_id] = lt
            lt.update_since()
            self.publisher.close_lobby(lt, t("tables.started", lt.lang))
            try:  # the match is recorded: the lobby is not stored any more (a restart also drops a lobby whose
                # channel has a match, should this fail)
                await retrying(lambda: delete_lobby(self.store, lt.channel_id), "forgetting a lobby",
                               self.store_backoff, tries=2)
            except Exception as e:
                log.warning("table %s: its lobby stays stored until the next start-up: %s", lt.id, e)
            events = list(lt.rec.table.start_events)
            if any(s.ai for s in lt.seats if s is not None) and not self.ai.inline:
                self._spawn(self.ai.warm(), name="mjbot-ai-warm")  # the AI pool's processes start meanwhile
            if lt.rec.behind is not None:
                self._stalled(lt)
            try:
                await self._play_on(lt, events, fresh=True)
            except Exception as e:  # an engine error (an AI seat's first decision, say): paused and said, as in a move
                await self._pause(lt, e)
                raise Refusal("tables.is_paused") from e

    async def end(self, lt: LiveTable, by_name: str) -> State:
        """Close a lobby or a match (``/table end``); returns the state it was in (``ABORTED`` if already closed).
        The match is aborted in the store before anything is said (a hand that ended but whose settlement has not
        reached the store yet is settled first), so it never comes back after a restart: a store that does not
        take it is a :class:`Refusal` and nothing changes."""
        async with lt.lock:
            was = lt.state
            if lt.closed:
                return State.ABORTED
            if was is State.LOBBY:
                await self._keep_lobby(lt, lambda: None, gone=True)
                self._close_lobby(lt, "tables.not_started_end")
                if lt.busy_channel and not self.closing:  # the match in play there comes back to its channel now
                    self._spawn(self._reload(), name=f"mjbot-reload-{lt.channel_id}")
                return was
            await self._end_in_store(lt, f"ended by {by_name}")
            await self._close(lt, t("tables.ended_by", lt.lang, name=by_name))
            return was

    async def _end_in_store(self, lt: LiveTable, reason: str) -> None:
        """The store's side of closing a match (under the table's lock), first of all: what the table settled and
        the store has not written yet is written (a hand whose ledger rows failed: it was shown settled to
        everyone, and aborting the match would mark it aborted for good), then the match is aborted (a match the
        engine finished is finished by that catch-up instead). A few quick tries; a store that does not answer is
        :class:`Refusal` ``tables.end_not_recorded`` and nothing changed (the table plays on, the recovery goes on); one
        that refuses it because another process holds the table's shard now is ``tables.moving``."""
        rec = lt.rec
        if rec is None:
            return
        mid = lt.match_id
        assert mid is not None, "a recorded table has its match"

        async def write() -> None:
            await rec.catch_up()
            if rec.table.phase != "over":
                await self.store.abort_match(mid, reason)

        try:
            await retrying(write, "ending a match", self.store_backoff, tries=3)
        except Exception as e:
            if (isinstance(e, StoreError) and e.code == "fenced") or rec.elsewhere == "fenced":
                # the database answered: another process holds the table's shard now, and ends it if asked there
                log.warning("table %s: not ended here, another process holds its shard now", lt.id)
                raise Refusal("tables.moving") from e
            log.warning("table %s: not ended, the store did not take it: %s", lt.id, e)
            raise Refusal("tables.end_not_recorded") from e
        if lt.stall == "store":  # (the catch-up above was the recovery's work)
            lt.stall = None

    async def _close(self, lt: LiveTable, text: str | None, why: str = "table_closed", *, summary: bool = True,
                     channel: bool = True) -> None:
        """Close a table whose match the store has ended (:meth:`_end_in_store`; under its lock): ``text`` (if any),
        the summary (unless not ``summary``), controls removed (the hand messages say ``why``, see
        :func:`.scenes.over_text`). Not ``channel``: nothing is written to the table's channel (it is gone)."""
        lt.move(State.ABORTED)
        await self._closing(lt)
        self._forget(lt)
        self._drop_vote(lt, "tables.vote_table_closed")
        if lt.rec is None:
            return
        if text is not None:
            self.publisher.post(lt, text, marks={"end": 1})
        if summary:
            await self._summary(lt)
        if channel:
            self.publisher.strip_table_message(lt)
        for c in lt.humans():  # every player's latest hand message, waiting or not (unless it says so already)
            self.publisher.strip_dm(lt, c, scenes.over_text(lt, c, why), reword=True)
        self._close_out(lt)

    async def _closing(self, lt: LiveTable) -> None:
        """A match that is over begins to close (under its lock, before it is forgotten): a sweep of the matches left
        open leaves it to this run from now on, and its message ids are written as they are, the last time."""
        if lt.match_id is not None:
            self.closing_out.add(lt.match_id)
            await self.publisher.store_closing(lt)

    def _close_out(self, lt: LiveTable) -> None:
        """A match that is over (:meth:`_closing`; its last writes queued): once they are out, the store forgets its
        messages. A bot stopped before that finds the match at its next start and closes it then
        (:func:`.resume.close_left_open`)."""
        mid = lt.match_id
        if mid is None:
            return

        async def closed_out() -> None:
            if not await self.publisher.sent(lt):
                return  # shutting down: a write may have been given up
            try:
                await retrying(lambda: self.publisher.closed_out(mid), "forgetting the messages of a match",
                               self.store_backoff, tries=3)
                self.closing_out.discard(mid)
            except Exception as e:  # the next start closes it again: a second summary, never a live button
                log.warning("table %s: its messages stay listed: %s", lt.id, e)
        self._spawn(closed_out(), name=f"mjbot-outbox-closed-out-{mid}")  # (waits on the table's writers)

    async def repost(self, lt: LiveTable) -> None:
        """Post the table message again at the bottom of its channel (``/table show``)."""
        async with lt.lock:
            await self._table_message(lt, fresh=True)

    # ---------------------------------------------------------------------------------------------- acting

    async def _step(self, lt: LiveTable, action: Action, applied: Callable[[], object] | None = None,
                    by_ai: bool = False) -> list[Event]:
        """One action through the recorder (IllegalAction / NotRecorded: nothing changed); ``applied``, ``by_ai``: see
        :meth:`TableRecorder.apply`."""
        rec = lt.rec
        assert rec is not None
        events = await rec.apply(action, applied=applied, by_ai=by_ai)
        lt.update_since()
        for e in events:
            if e.type == "hand_end":
                lt.deltas.append(list(e.data["payments"]))
        if rec.behind is not None:
            self._stalled(lt)
        elif lt.stall == "store":
            lt.stall = None
            self.publisher.post(lt, t("tables.store_back", lt.lang))
        return events

    async def _auto_action(self, lt: LiveTable, seat: int) -> Action:
        """An AI (or away) seat's action, from its own view: decided in the AI pool's worker processes, so the event
        loop keeps serving the other tables meanwhile (the table's lock is held; the easy AI's generator state goes
        to the worker and back, so the decisions are those of an inline run)."""
        tb = lt.table
        assert tb is not None
        legal = tb.legal_actions(seat)
        if len(legal) == 1:
            return legal[0]
        return await self._decision(lt, tb, seat, legal)

    def _decision(self, lt: LiveTable, tb: Table, seat: int, legal: list[Action]) -> Coroutine[Any, Any, Action]:
        """The AI pool's decision for an automatic ``seat``, from the table as it is now: its view, its legal actions
        and, for the easy AI, that decision's generator are read when this is called, not when it is awaited."""
        diff = self._difficulty(lt, seat)
        return self.ai.choose(tb.view(seat), seat, legal, diff, self._rng(tb, seat, diff), key=lt.channel_id)

    @staticmethod
    def _rng(tb: Table, seat: int, difficulty: str) -> random.Random | None:
        """The easy AI's generator for this one decision (:func:`engine.ai.decision_rng`: from the match's seed and
        the table's position, so the same game is played whatever happens to this process); None for the others."""
        return decision_rng(tb.seed, tb.match.seq, seat) if difficulty == "easy" else None

    @staticmethod
    def _difficulty(lt: LiveTable, seat: int) -> str:
        """How an automatic seat plays: its AI's difficulty (a seat played for an away player: normal)."""
        s = lt.seats[seat]
        return s.ai if s and s.ai else "normal"

    @staticmethod
    def _next_automatic(lt: LiveTable) -> tuple[Table, int] | None:
        """The table in play and the automatic seat it waits on first, or None (no table in play, a stalled store,
        or only present humans to wait on)."""
        tb = lt.table
        if tb is None or tb.phase not in PLAYING or lt.stall is not None or lt.closed:
            return None
        auto = [s for s in tb.awaited() if (p := lt.seats[s]) is not None and p.automatic]
        return (tb, auto[0]) if auto else None

    def _ask_ahead(self, lt: LiveTable) -> Ahead | None:
        """The next automatic seat's decision, asked now (the action before it is being written): (table, its seq,
        the seat, the decision's task), or None when there is none to ask. Never raises."""
        try:
            nxt = self._next_automatic(lt)
            if nxt is None:
                return None
            tb, seat = nxt
            legal = tb.legal_actions(seat)
            if len(legal) == 1:
                return None
            # the decision from the table as the action left it, not as it is when the task runs
            task = asyncio.get_running_loop().create_task(self._decision(lt, tb, seat, legal),
                                                          name=f"{AHEAD_TASK_PREFIX}{lt.channel_id}")
            return tb, tb.match.seq, seat, task
        except Exception:  # the decision is then asked the usual way, after the write
            log.exception("table %s: the next AI decision could not be asked ahead", lt.id)
            return None

    @staticmethod
    def _drop_ahead(ahead: Ahead | None) -> None:
        if ahead is None:
            return
        task = ahead[3]
        if task.done():
            if not task.cancelled():
                task.exception()  # retrieved: a dropped decision's error is not news
        else:
            task.cancel()

    async def _run_automatic(self, lt: LiveTable, ahead: Ahead | None = None) -> list[Event]:
        """Let AI (and away) seats act until a present human must decide, the hand ends or the store fails.

        While an action is being written (an AI seat's, or the player's that started the run: ``ahead``), the next
        AI seat's decision is already asked (from the table as the action left it: :meth:`_ask_ahead`); it is taken
        only if the write succeeded and the table is still where it was asked, and nothing is published before
        every action of the run is recorded."""
        out: list[Event] = []

        def applied() -> None:
            nonlocal ahead
            self._drop_ahead(ahead)
            ahead = self._ask_ahead(lt)

        try:
            for _ in range(1000):
                nxt = self._next_automatic(lt)
                if nxt is None:
                    break
                tb, seat = nxt
                seq = tb.match.seq
                got, ahead = ahead, None
                if got is not None and got[0] is tb and got[1] == seq and got[2] == seat:
                    action = await got[3]
                    self.asked_ahead += 1
                else:
                    self._drop_ahead(got)
                    action = await self._auto_action(lt, seat)
                if lt.table is not tb or tb.match.seq != seq:
                    continue  # the table moved on while the AI decided (in a worker): decide again from where it is
                try:  # a player's seat played by the AI (away, 托管, replaced): stored as the AI's move
                    out += await self._step(lt, action, applied, by_ai=lt.occupant(seat).user_id is not None)
                except NotRecorded:
                    self._stalled(lt)
                    break
        finally:
            self._drop_ahead(ahead)
        return out

    async def _play_on(self, lt: LiveTable, events: list[Event], *, fresh: bool = False,
                       ahead: Ahead | None = None) -> None:
        """After a batch of actions (under the lock): the AI seats answer, then everything is published. ``ahead``:
        the first AI seat's decision, asked while the last action was written (:meth:`_ask_ahead`)."""
        events = events + await self._run_automatic(lt, ahead)
        if lt.gone:  # another process drives it now (or it is read again): it shows what it has
            return
        if not (lt.table is not None and lt.table.phase == "over" and lt.rec and lt.rec.behind is not None):
            lt.follow_engine()
        if lt.closed:
            self._drop_vote(lt, "tables.vote_table_closed")  # the match ended by itself during a dissolve vote
        await self._publish(lt, events, fresh=fresh)

    async def act(self, table_id: int, user_id: int, for_seat: int, seq: int, op: str, arg: str | None) -> Outcome:
        """A player's control: check it is theirs and current, apply it, let the AI seats answer, publish.
        Raises :class:`Refusal` (nothing changed)."""
        lt = self._live(table_id)
        async with lt.lock:
            tb = lt.table
            if lt.closed or tb is None:
                raise Refusal("tables.table_gone")
            if lt.stall == "error":
                raise Refusal("tables.is_paused")
            seat = lt.seat_of(user_id)
            if seat is None or (for_seat != 9 and for_seat != seat):
                raise Refusal("tables.not_your_seat")
            if op == "next":
                if tb.phase != "ended" or seq != tb.seq:
                    raise Refusal("tables.stale_next")  # (a table button: not "use your latest hand message")
                action = Action("next_hand", seat)
            else:
                if tb.phase not in PLAYING or seat not in tb.awaited() or seq != lt.since[seat]:
                    raise Refusal("tables.stale")
                if lt.occupant(seat).afk:
                    raise Refusal("tables.not_now")
                chosen = action_of(seat, op, arg)
                if chosen is None or chosen not in tb.legal_actions(seat):
                    raise Refusal("tables.not_now")
                action = chosen
            ahead: Ahead | None = None

            def applied() -> None:  # the first AI seat's decision is asked while the player's action is written
                nonlocal ahead
                ahead = self._ask_ahead(lt)

            try:
                try:
                    events = await self._step(lt, action, applied)
                except IllegalAction as e:
                    raise Refusal("tables.not_now") from e
                except NotRecorded as e:
                    log.warning("table %s: action not recorded: %s", lt.id, e)
                    if self._elsewhere(lt):  # nothing was played here: the table is another process's, or read again
                        raise Refusal("tables.moving") from e
                    self._stalled(lt)
                    self._arm_timer(lt)
                    raise Refusal("tables.not_recorded") from e
                except Exception as e:
                    await self._pause(lt, e)
                    raise Refusal("tables.is_paused") from e
                lt.occupant(seat).timeouts = 0
                done = action.describe(lt.occupant(seat).lang)
                try:
                    await self._play_on(lt, events, ahead=ahead)
                except Exception as e:
                    await self._pause(lt, e)
            finally:  # a decision asked ahead and not taken: the write failed, or the click was cancelled
                self._drop_ahead(ahead)
            return Outcome(done, "tables.recorded_behind" if lt.stall == "store" else None)

    def _live(self, table_id: int) -> LiveTable:
        lt = self.by_id.get(table_id)
        if lt is None or lt.closed or lt.table is None:
            raise Refusal("tables.table_gone")
        return lt

    async def back(self, table_id: int, user_id: int) -> None:
        lt = self._live(table_id)
        async with lt.lock:
            seat = lt.seat_of(user_id)
            if seat is None:
                raise Refusal("tables.not_seated")
            s = lt.seats[seat]
            assert s is not None
            if not s.afk:
                raise Refusal("tables.not_afk")
            was = s.away
            if was in KEPT_AWAY:  # stored: the seat is the player's again after a restart too
                await self._record(lt, user_id, "back", {"seat": seat, "was": was}, s.come_back,
                                   lambda: s.go_away(was))
            s.come_back()
            self.publisher.post(lt, t("tables.back", lt.lang, name=s.name))
            await self._publish(lt, [])
            await self.say_back(lt, seat)

    # ---------------------------------------------------------------------------------------------- stalls

    def _stalled(self, lt: LiveTable) -> None:
        """The store failed: say so once, and retry in the background until it answers. (A write refused because
        another process drives the table, or that met its writes, is no failure of the store: :meth:`_elsewhere`.)"""
        if self._elsewhere(lt):
            return
        if lt.stall is None:
            lt.stall = "store"
            self.publisher.post(lt, t("tables.store_down", lt.lang))
        if id(lt) not in self._recovering and not self.closing:
            self._recovering.add(id(lt))
            self._spawn(self._recover(lt), name=f"mjbot-recover-{lt.id}")

    async def _recover(self, lt: LiveTable) -> None:
        try:
            n = 0
            while not lt.closed and not self.closing:
                await asyncio.sleep(self.store_backoff[min(n, len(self.store_backoff) - 1)])
                n += 1
                async with lt.lock:
                    if lt.closed or lt.stall != "store" or lt.rec is None:
                        return
                    if (lt.rec.behind is not None or lt.rec.unsure) and not await lt.rec.catch_up(raise_=False):
                        if self._elsewhere(lt):
                            return
                        continue
                    lt.stall = None
                    events = await self._run_automatic(lt)
                    if lt.stall == "store":  # failed again: keep trying (no second message)
                        continue
                    self.publisher.post(lt, t("tables.store_back", lt.lang))
                    await self._play_on(lt, events)
                    return
        except Exception as e:
            async with lt.lock:
                await self._pause(lt, e)
        finally:
            self._recovering.discard(id(lt))

    async def _pause(self, lt: LiveTable, exc: BaseException) -> None:
        """An engine error (a bug): log everything needed to reproduce it, stop the timers, say so."""
        tb = lt.table
        ref = f"{lt.id}-{tb.seq if tb else 0}"
        log.error("table %s paused after an engine error (ref %s): variant=%s seed=%s rules=%s actions=%s",
                  lt.id, ref, lt.variant, lt.seed, lt.rules, lt.rec.actions if lt.rec else [], exc_info=exc)
        if lt.closed or lt.stall == "error":
            return
        lt.stall = "error"
        if lt.timer is not None:
            lt.timer.cancel()
            lt.timer = None
        if lt.rec is not None:
            lt.rec.rollback()
        self.publisher.post(lt, t("tables.paused", lt.lang, ref=ref))
        for c in lt.humans():
            self.publisher.strip_dm(lt, c, scenes.over_text(lt, c, "paused"), reword=True)
        try:
            await self._table_message(lt)
        except Exception:
            log.exception("table %s: could not show the pause", lt.id)

    async def _dm_failed(self, lt: LiveTable, seat: int) -> None:
        """A DM could not be delivered: the seat plays by My hand from now on; the channel is told once."""
        async with lt.lock:
            s = lt.seats[seat]
            if s is None or lt.closed:
                return
            s.dm_failed = True
            if s.user_id is not None and self.publisher.told_once(lt, s.user_id):
                self.publisher.post(lt, dm_closed_text(lt, s.user_id), pings=(s.user_id,))
            await self._table_message(lt)  # now with the My hand list

    # ---------------------------------------------------------------------------------------------- timers

    def delays(self, lt: LiveTable) -> tuple[float, float, float]:
        tm = self.timers
        turn = tm.turn if tm.turn is not None else lt.turn_seconds
        claim = tm.claim if tm.claim is not None else lt.claim_seconds
        nxt = tm.next_hand if tm.next_hand is not None else lt.turn_seconds
        return turn * tm.scale, claim * tm.scale, nxt * tm.scale

    def _arm_timer(self, lt: LiveTable) -> None:
        """The timer of what the table waits for, at the earliest deadline (:attr:`LiveTable.deadlines`). Armed again
        after everything the table publishes: a decision already waited for keeps its deadline (another player's
        answer, 托管 or I'm back, the host's replace do not give it its time again); a new one gets its full delay."""
        if lt.timer is not None:
            lt.timer.cancel()
            lt.timer = None
        tb = lt.table
        if tb is None or lt.closed or self.closing or tb.phase == "over" or lt.stall == "error":
            lt.deadlines = {}
            return
        now = self.clock()
        lt.deadlines = {k: lt.deadlines.get(k, now + d) for k, d in lt.decisions(*self.delays(lt)).items()}
        if lt.deadlines:  # (none: nobody present is awaited; every human away between hands: Next or I'm back)
            lt.timer = asyncio.get_running_loop().create_task(self._timer(lt, tb.seq, min(lt.deadlines.values())),
                                                              name=TIMER_TASK_NAME)

    async def _timer(self, lt: LiveTable, seq: int, when: float) -> None:
        await self.sleep(max(0.0, when - self.clock()))
        # the work runs in its own task so that whoever waits for the bot's work (tests) sees it
        self._spawn(self._timed_out(lt, seq, when))

    async def _timed_out(self, lt: LiveTable, seq: int, when: float) -> None:
        """The timer of ``seq`` reached ``when``: the seats whose decision's deadline it is play by the timeout
        action; between hands the next hand is dealt (nobody is named: the table waited for no one in particular)."""
        async with lt.lock:
            tb = lt.table
            if lt.closed or tb is None or tb.seq != seq or lt.stall == "error":
                return
            # (a deadline armed again meanwhile, as when every human went away between hands: that timer's work)
            due = [k for k, at in lt.deadlines.items() if at <= when]
            if not due:
                return
            events: list[Event] = []
            try:
                if tb.phase == "ended":
                    events += [e for e in await self._step(lt, Action("timeout", 0)) if e.type != "timeout"]
                else:
                    window = tb.phase in ("claim", "rob")
                    for s in [s for s in tb.awaited() if (s, lt.since[s]) in due]:
                        seat = lt.seats[s]
                        if seat is None or seat.automatic or lt.table is None or s not in lt.table.awaited():
                            continue
                        got = await self._step(lt, Action("timeout", s))
                        if window:
                            # a claim window's timeout is silent: saying who timed out would say who could claim
                            got = [e for e in got if e.type != "timeout"]
                        else:
                            seat.timeouts += 1
                            if seat.timeouts >= AFK_AFTER:
                                seat.go_away("timeout")
                                got.append(Event("afk", s, {}))
                        events += got
            except NotRecorded:
                self._stalled(lt)
                lt.deadlines = {}  # the time-out is tried again after a full delay (not at once, against the store)
                self._arm_timer(lt)
                if not events:
                    return
            except Exception as e:
                await self._pause(lt, e)
                return
            try:
                await self._play_on(lt, events)
            except Exception as e:
                await self._pause(lt, e)

    # ---------------------------------------------------------------------------------------------- shutdown

    async def wait_idle(self) -> None:
        """Wait until no table is recovering from a store failure, every Discord write is sent and the matches
        closed have their messages forgotten (tests)."""
        def busy() -> list[asyncio.Task[Any]]:
            return [t for t in self._tasks if not t.done() and t.get_name().startswith(WAITED_FOR)]

        while True:
            if busy():
                await asyncio.wait(busy())
                continue
            await self.publisher.drain()
            if not busy():
                return

    async def close(self) -> None:
        self.closing = True
        for lt in list(self.by_channel.values()):
            if lt.timer is not None:
                lt.timer.cancel()
            if lt.vote is not None and lt.vote.timer is not None:  # an open 解散 vote is stored with its deadline:
                lt.vote.timer.cancel()                               # the next start-up takes it up again
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        self.publisher.closing = True  # a write still failing is tried no longer (a 5xx storm must not hold a stop)
        await self.publisher.drain()
        await self.publisher.close()
        self.ai.close()
