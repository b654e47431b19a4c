"""Recording an engine table (``engine.table.Table``, one match) in the store, and rebuilding it after a restart.

The order of writes for every action is fixed so that a crash at any point can be caught up on restart:

1. ``table.apply(action)`` in memory (an illegal action raises here and nothing is written);
2. ``record_action(match, seq, action, hand_id, state_hash)`` - the action is now durable;
3. if that action ended a hand: ``finish_hand`` (ledger rows, running totals and hand status in one transaction);
4. if the table is now playing a hand the store has not seen: ``start_hand`` (seed, wall commitment);
5. if the match is over: ``finish_match``.

Steps 3-5 are derived from the table's state, not from the events, so :meth:`TableRecorder.resume` runs the same
catch-up after replaying the actions: a crash between 2 and 5 loses nothing and records nothing twice.

The same holds for a store that fails without a crash (a locked or failing disk): if step 2 fails, the store is
asked whether the action landed all the same (committed, its answer lost: a connection dropped during the COMMIT);
if it did, the action stands; if not, nothing of the action was written and the table in memory is put back as it
was (:class:`NotRecorded`); if the store cannot even be read then, the recorder is ``unsure`` and reads the store
before its next write (taking an action that did land: the table moves on, not stuck on conflicts); if a later step fails,
the action stands and the recorder is ``behind`` until :meth:`TableRecorder.catch_up` succeeds (every ``apply``
catches up first). This is the only path by which the bot, the crash test and ``rebuild_table`` write and read
games. Bot-only data (who is human, names, languages, message ids) lives in the store's ``match_meta``, never in
the settings ``Table.new`` takes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any

from engine.table import Action, Event, IllegalAction, Table

from .database import WRITE_TASK_PREFIX
from .errors import StoreError
from .fence import Fenced
from .models import LedgerRow, SeatSpec, SeatTotals, UnfinishedGame, splits_jiao

_PLAYING = ("play", "claim", "rob")


def players_for(seats: Sequence[SeatSpec | SeatTotals]) -> tuple[str, ...]:
    """The engine's ``players`` tuple for a match's seats: the Discord id as text, or ``AI:<marker>``. The table's
    state hash covers it, so a match is always built and rebuilt with this tuple."""
    return tuple(str(s.player_id) if s.player_id is not None else f"AI:{s.ai}" for s in seats)


def hand_seed(table: Table, hand_no: int) -> str:
    """What identifies a hand's shuffle: the engine derives it from (variant, match seed, hand number)."""
    return f"{table.seed}#{hand_no}"


def ledger_rows(table: Table) -> list[LedgerRow]:
    """The ledger rows of the hand the table has just finished (from ``table.last_result``).

    ``amount`` is what each chair's result changed by (the stack amount actually paid plus 交 in Wuhu);
    Wuhu rows split it into ``stack_amount`` and ``jiao_amount``; ``hand_value`` is what a winner collected.
    """
    res = table.last_result
    if res is None:
        raise ValueError("the table has not finished a hand")
    pay = [int(x) for x in res["payments"]]
    jiao = [int(x) for x in res.get("jiao", [0, 0, 0, 0])]
    winners = {int(w["seat"]): w for w in res["winners"]}
    feeders = {int(f) for w in res["winners"] if (f := w.get("from")) is not None}
    rows = []
    for c in range(4):
        w = winners.get(c)
        stack, jiao_c = (pay[c] - jiao[c], jiao[c]) if splits_jiao(table.variant) else (0, 0)
        rows.append(
            LedgerRow(
                seat=c,
                amount=pay[c],
                stack_amount=stack,
                jiao_amount=jiao_c,
                won=w is not None,
                self_draw=bool(w and w.get("self_drawn")),
                deal_in=c in feeders,
                drawn=bool(res.get("draw")),
                hand_value=int(w["settled"][c]) if w is not None else 0,
            )
        )
    return rows


def engine_settings(settings: Mapping[str, Any]) -> tuple[dict[str, Any], tuple[str, ...] | None]:
    """The ``Table.new`` settings of a stored match, and the players tuple when the match predates 0003 (the bot
    then stored ``{"rules": ..., "bot": {...}}`` and built the table with the seats' names)."""
    if "bot" in settings and "rules" in settings and isinstance(settings["bot"], dict):
        names = tuple(str(s.get("name")) for s in settings["bot"].get("seats") or [])
        return dict(settings["rules"]), (names if len(names) == 4 else None)
    return dict(settings), None


def bot_meta(meta: Mapping[str, Any], settings: Mapping[str, Any]) -> dict[str, Any]:
    """What the bot kept about a match when it started it (host, language, timers, its seats' names and ways): the
    match's ``match_meta`` row, or for a match from before 0003 the ``bot`` part of its settings; ``{}`` when
    neither says anything."""
    if meta:
        return dict(meta)
    legacy = settings.get("bot")
    return dict(legacy) if isinstance(legacy, dict) else {}


def rebuild_table(game: UnfinishedGame) -> Table:
    """``Table.replay`` of an unfinished game from the store (pass to :func:`bot.store.resume_all`)."""
    settings, legacy_players = engine_settings(game.settings)
    return Table.replay(
        game.variant,
        game.seed,
        settings,
        [json.loads(a.action) for a in game.actions],
        players=legacy_players or players_for(game.match.seats),
    )


class NotRecorded(Exception):
    """The store failed to record an action: nothing of it was written and the table is as it was before."""


#: what a write meets when the store holds actions this table in memory does not (another process wrote them)
_MOVED_ON = ("seq_conflict", "seq_gap")


class TableRecorder:
    """A live table and its match in the store, kept in step action by action (see the module's docstring)."""

    def __init__(self, store: Any, match_id: int, table: Table, actions: Sequence[Mapping[str, Any]] = ()) -> None:
        self.store = store
        self.match_id = match_id
        self.table = table
        self.actions: list[dict[str, Any]] = [dict(a) for a in actions]  # what is recorded, in order
        self.hand_id: int | None = None
        self.hand_no: int | None = None
        self.hand_active = False
        self.behind: BaseException | None = None  # the error that left steps 3-5 undone (None: in step)
        # an action's write failed and the store could not be asked whether it landed all the same (a connection
        # lost while the COMMIT's answer was on its way): the store is read before anything else is written
        self.unsure = False
        self._gone: str | None = None  # see :attr:`elsewhere`
        self._lock = asyncio.Lock()
        # the last action's write: one whose caller was cancelled goes on by itself (the store's ``completes``), and
        # the next write waits for it (PostgreSQL runs transactions side by side: it would find a gap before it)
        self._writing: tuple[asyncio.Future[Any], dict[str, Any]] | None = None

    @classmethod
    async def start(
        cls,
        store: Any,
        *,
        guild_id: int,
        channel_id: int,
        variant: str,
        seed: int | str,
        settings: Mapping[str, Any] | None,
        seats: Sequence[SeatSpec],
        at: datetime | None = None,
        meta: Mapping[str, Any] | None = None,
        unheld: bool = False,
    ) -> TableRecorder:
        """A new match: builds the table (first hand dealt), records the match and its first hand. ``meta``: the
        caller's own data about the match, stored apart from the settings (``Store.match_meta``).

        If recording the match fails in a way that does not say it was refused (a lost connection: the COMMIT may
        have landed, its answer lost), it is started once more at once: the same seed in the same channel is the
        same start to the store, which gives back the match that landed rather than a second one. If that fails
        too, the error propagates; a caller that starts again later with the same seed still gets one match.
        If recording the first hand fails, the match exists and the recorder is returned ``behind``. ``unheld``:
        the caller drives no table of the channel's active match, if any (see ``Store.start_match``)."""
        table = Table.new(variant, str(seed), dict(settings or {}), players=players_for(seats))
        kw: dict[str, Any] = {"meta": meta} if meta is not None else {}
        if unheld:
            kw["unheld"] = True

        async def record() -> int:
            return int(await store.start_match(
                guild_id, channel_id, variant, table.settings, str(seed), seats, state_hash=table.state_hash(), at=at,
                **kw,
            ))

        try:
            match_id = await record()
        except StoreError:
            raise
        except Exception:
            match_id = await record()  # did it land? (the same start again: never a second match)
        rec = cls(store, match_id, table)
        await rec.catch_up(at, raise_=False)
        return rec

    @classmethod
    async def resume(cls, store: Any, game: UnfinishedGame, table: Table, at: datetime | None = None) -> TableRecorder:
        """Take over a table rebuilt from ``game`` (e.g. from ``resume_all``'s report) and catch the store up with
        whatever the crash interrupted (steps 3-5)."""
        rec = cls(store, game.match_id, table, [json.loads(a.action) for a in game.actions])
        if game.hands:
            last = game.hands[-1]
            rec.hand_id, rec.hand_no, rec.hand_active = last.hand_id, last.number, last.status == "active"
        await rec._sync(at)
        return rec

    @property
    def over(self) -> bool:
        return self.table.phase == "over"

    @property
    def elsewhere(self) -> str | None:
        """Why this table in memory must not go on here, whatever the store's health: ``"fenced"`` (a write was
        refused because another process holds the table's shard now: :mod:`bot.store.fence`), ``"moved"`` (an
        action's write met actions in the store this table does not have, written by another process: the table
        must be read again from the store), or None."""
        return self._gone

    def _failed(self, exc: BaseException) -> None:
        """A step after the action (a settlement, the next hand, the match's end) failed: ``behind``."""
        self.behind = exc
        if isinstance(exc, Fenced):
            self._gone = "fenced"

    async def apply(self, action: Action | Mapping[str, Any], at: datetime | None = None, *,
                    applied: Callable[[], object] | None = None, by_ai: bool = False) -> list[Event]:
        """Apply ``action`` to the table and record it (and any hand / match transition it caused).

        ``by_ai``: the AI decided it for a player's seat (away, 托管, or replaced): stored with ``"ai": true`` beside
        the action (:meth:`Action.from_json` reads past it), so a replay and the AI's review know the move was not
        the player's.

        ``applied`` (it must not raise) is called once the table has taken the action in memory and its write has
        started, before the write is awaited: the caller may prepare what comes next (the table manager asks the
        next AI seat's decision meanwhile), but nothing that depends on the action being recorded: that is only
        known when ``apply`` returns.

        Calls on one recorder are serialised. An illegal action raises the engine's ``IllegalAction`` before
        anything is written. A recorder that is ``behind`` catches up first (its error propagates: nothing new is
        applied). If recording the action fails, :class:`NotRecorded` is raised and the table is as it was. If
        settling / starting a hand fails after the action was recorded, the events are returned all the same and
        ``behind`` holds the error (call :meth:`catch_up` until it clears). Any other error from the engine
        propagates with the table rebuilt from the recorded actions.
        """
        if not isinstance(action, Action):
            action = Action.from_json(action)
        async with self._lock:
            await self._written()
            if self.unsure:
                try:
                    moved = await self._reconcile()
                except Exception as exc:
                    raise NotRecorded(str(exc)) from exc
                if moved:  # the store holds the earlier action after all: the table moved on, not by this one
                    with contextlib.suppress(Exception):  # (a failure stays in ``behind``)
                        await self._catch_up(at)
                    raise NotRecorded("the store held an action the table had put back: the table moved on")
            if self.behind is not None:
                try:
                    await self._catch_up(at)
                except Exception as exc:
                    raise NotRecorded(str(exc)) from exc
            seq = self.table.seq
            in_hand = self.table.phase in _PLAYING
            try:
                events = self.table.apply(action)
            except IllegalAction:
                raise
            except Exception:
                self.rollback()  # the engine failed half-way: back to what is recorded
                raise
            data = action.to_json()
            if by_ai:
                data["ai"] = True
            text = json.dumps(data, sort_keys=True, separators=(",", ":"))
            try:
                write = asyncio.ensure_future(self.store.record_action(
                    self.match_id,
                    seq,
                    text,
                    at,
                    hand_id=self.hand_id if in_hand else None,
                    state_hash=self.table.state_hash(),
                ))
                write.set_name(f"{WRITE_TASK_PREFIX}TableRecorder.apply")  # its error goes to this apply (or the next)
                self._writing = (write, data)
                if applied is not None:
                    applied()
                await asyncio.shield(write)  # cancelled here: the write goes on, and the next apply waits for it
                self._writing = None
            except Exception as exc:
                self._writing = None
                if isinstance(exc, Fenced):  # refused: not this process's table any more (nothing written)
                    self.rollback()
                    self._gone = "fenced"
                    raise NotRecorded(str(exc)) from exc
                if not await self._landed(seq, text):
                    self.rollback()
                    if isinstance(exc, StoreError) and exc.code in _MOVED_ON:
                        self._gone = "moved"
                    raise NotRecorded(str(exc)) from exc
                # it was written all the same (its answer was lost): the action stands
            self.actions.append(data)
            try:
                await self._sync(at)
            except Exception as exc:
                self._failed(exc)
        return events

    async def _written(self) -> None:
        """An apply cancelled while its action was being written left the write going on by itself: wait for it,
        then count the action as recorded, or put the table back to what is recorded if the write failed."""
        if self._writing is None:
            return
        (write, data), self._writing = self._writing, None
        await asyncio.wait([write])
        if write.cancelled() or write.exception() is not None:
            self.rollback()
            return
        self.actions.append(data)
        try:
            await self._sync(None)  # what that apply would have written next (a settlement, the next hand ...)
        except Exception as exc:
            self._failed(exc)

    def rollback(self) -> None:
        """Rebuild the table in memory from the recorded actions (after a failed write or engine error)."""
        t = self.table
        self.table = Table.replay(t.variant, t.seed, t.settings, self.actions, players=t.players)

    async def catch_up(self, at: datetime | None = None, *, raise_: bool = True) -> bool:
        """Write whatever the table's state says the store still lacks (settlement, next hand, match end).
        True when the store is in step; the error propagates (or with ``raise_=False``: False, kept in
        ``behind``)."""
        async with self._lock:
            try:
                await self._written()
                await self._catch_up(at)
            except Exception:
                if raise_:
                    raise
                return False
        return True

    async def _landed(self, seq: int, text: str) -> bool:
        """Whether the action whose write (of ``text``) raised is in the store at ``seq`` all the same (committed,
        its answer lost). False when it is not, or when the store cannot be read (then :attr:`unsure` until it can)."""
        try:
            stored = await self.store.actions(self.match_id)
        except Exception:
            self.unsure = True
            return False
        self.unsure = False
        return len(stored) > seq and stored[seq].action == text

    async def _reconcile(self) -> bool:
        """After :attr:`unsure`: take the store's actions the table put back (a write that landed although it
        raised) and replay the table to them. True when the table moved on."""
        stored = await self.store.actions(self.match_id)
        self.unsure = False
        if len(stored) <= len(self.actions):
            return False
        self.actions += [json.loads(a.action) for a in stored[len(self.actions):]]
        self.rollback()
        return True

    async def _catch_up(self, at: datetime | None) -> None:
        if self.unsure:
            await self._reconcile()
        try:
            await self._sync(at)
        except Exception as exc:
            self._failed(exc)
            raise
        self.behind = None

    async def _sync(self, at: datetime | None) -> None:
        t = self.table
        if self.hand_active and self.hand_no is not None and self.hand_no < t.hand_no:
            await self.store.finish_hand(self.hand_id, ledger_rows(t), t.state_hash(), at)
            self.hand_active = False
        if t.phase in _PLAYING and (self.hand_no is None or self.hand_no < t.hand_no):
            self.hand_id = await self.store.start_hand(self.match_id, t.hand_no, hand_seed(t, t.hand_no),
                                                       t.commitment, at)
            self.hand_no, self.hand_active = t.hand_no, True
        if t.phase == "over":
            await self.store.finish_match(self.match_id, t.state_hash(), at)
