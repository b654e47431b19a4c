"""Recording an engine table (``engine.table.Table``, one match) in the store, and rebuilding it after a restart.

The order of writes for every action is fixed so that a crash at any point can be caught up on restart:

1. ``table.apply(action)`` in memory (an illegal action raises here and nothing is written);
2. ``record_action(match, seq, action, hand_id, state_hash)`` - the action is now durable;
3. if that action ended a hand: ``finish_hand`` (ledger rows, running totals and hand status in one transaction);
4. if the table is now playing a hand the store has not seen: ``start_hand`` (seed, wall commitment);
5. if the match is over: ``finish_match``.

Steps 3-5 are derived from the table's state, not from the events, so :meth:`TableRecorder.resume` runs the same
catch-up after replaying the actions: a crash between 2 and 5 loses nothing and records nothing twice.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from engine.table import Action, Event, Table

from .models import LedgerRow, SeatSpec, SeatTotals, UnfinishedGame

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
    feeders = {int(w["from"]) for w in res["winners"] if w.get("from") is not None}
    rows = []
    for c in range(4):
        w = winners.get(c)
        stack, jiao_c = (pay[c] - jiao[c], jiao[c]) if table.variant == "wuhu" else (0, 0)
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


def rebuild_table(game: UnfinishedGame) -> Table:
    """``Table.replay`` of an unfinished game from the store (pass to :func:`bot.store.resume_all`)."""
    return Table.replay(
        game.variant,
        game.seed,
        game.settings,
        [json.loads(a.action) for a in game.actions],
        players=players_for(game.match.seats),
    )


class TableRecorder:
    """A live table and its match in the store, kept in step action by action (see the module's docstring)."""

    def __init__(self, store: Any, match_id: int, table: Table) -> None:
        self.store = store
        self.match_id = match_id
        self.table = table
        self.hand_id: int | None = None
        self.hand_no: int | None = None
        self.hand_active = False
        self._lock = asyncio.Lock()

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
    ) -> TableRecorder:
        """A new match: builds the table (first hand dealt), records the match and its first hand."""
        table = Table.new(variant, str(seed), dict(settings or {}), players=players_for(seats))
        match_id = await store.start_match(
            guild_id, channel_id, variant, table.settings, str(seed), seats, state_hash=table.state_hash(), at=at
        )
        rec = cls(store, match_id, table)
        await rec._sync(at)
        return rec

    @classmethod
    async def resume(cls, store: Any, game: UnfinishedGame, table: Table, at: datetime | None = None) -> TableRecorder:
        """Take over a table rebuilt from ``game`` (e.g. from ``resume_all``'s report) and catch the store up with
        whatever the crash interrupted (steps 3-5)."""
        rec = cls(store, game.match_id, table)
        if game.hands:
            last = game.hands[-1]
            rec.hand_id, rec.hand_no, rec.hand_active = last.hand_id, last.number, last.status == "active"
        await rec._sync(at)
        return rec

    @property
    def over(self) -> bool:
        return self.table.phase == "over"

    async def apply(self, action: Action | Mapping[str, Any], at: datetime | None = None) -> list[Event]:
        """Apply ``action`` to the table and record it (and any hand / match transition it caused).

        Calls on one recorder are serialised. An illegal action raises the engine's ``IllegalAction`` before
        anything is written. If the store refuses or fails after the table has applied the action (e.g. the match
        was closed meanwhile), the exception propagates and the table in memory is ahead of the store: drop it and
        rebuild from the store (``resume_all``) or close the table.
        """
        if not isinstance(action, Action):
            action = Action.from_json(action)
        async with self._lock:
            seq = self.table.seq
            in_hand = self.table.phase in _PLAYING
            events = self.table.apply(action)
            await self.store.record_action(
                self.match_id,
                seq,
                json.dumps(action.to_json(), sort_keys=True, separators=(",", ":")),
                at,
                hand_id=self.hand_id if in_hand else None,
                state_hash=self.table.state_hash(),
            )
            await self._sync(at)
        return events

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
