"""Writing a game: matches, hands, actions and the ledger (the :class:`~bot.store.Store` methods of this topic).

Nothing is recorded twice: ``record_action`` with an already-recorded (match, seq) returns False if it is the same
action and raises :class:`StoreError` if it differs; a gap in the sequence is refused. ``finish_hand`` refuses
anything but one row per seat summing to zero (and, in Wuhu, amount = stack + 交 on every row), and writes the
ledger, the running totals, the roll-ups and the hand's status in one transaction.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from .backend import Connection
from .database import Database, completes
from .errors import StoreError
from .fence import ROUTED_CLICK, check_guild, check_match, mark_applied
from .models import LedgerRow, SeatSpec, splits_jiao, to_ms
from .sql import add_to_boards, dumps, ensure_player, upsert_player


def seed_text(seed: Any) -> str:
    return str(seed)


async def _insert_meta(conn: Connection, match_id: int, meta: Mapping[str, Any]) -> None:
    await conn.execute("INSERT INTO match_meta (match_id, meta) VALUES (?, ?)", (match_id, dumps(dict(meta))))


async def active_match(conn: Connection, match_id: int) -> tuple[str, int, str]:
    row = await conn.one("SELECT status, guild_id, variant FROM matches WHERE id = ?", (match_id,))
    if row is None:
        raise StoreError("no_match", match_id=match_id)
    if row[0] != "active":
        raise StoreError("match_not_active", match_id=match_id, status=row[0])
    return str(row[0]), int(row[1]), str(row[2])


async def _same_ledger(conn: Connection, hand_id: int, rows: Sequence[LedgerRow]) -> bool:
    stored = await conn.all(
        "SELECT seat, amount, stack_amount, jiao_amount, won, self_draw, deal_in, drawn, hand_value "
        "FROM ledger WHERE hand_id = ? ORDER BY seat",
        (hand_id,),
    )
    want = [
        (r.seat, r.amount, r.stack_amount, r.jiao_amount, int(r.won), int(r.self_draw), int(r.deal_in),
         int(r.drawn), r.hand_value)
        for r in rows
    ]
    return [tuple(s) for s in stored] == want


_APPEND_ACTION = (
    "INSERT INTO actions (match_id, seq, hand_id, action, state_hash, at) "
    "SELECT CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS BIGINT), CAST(? AS TEXT), CAST(? AS TEXT), "
    "CAST(? AS BIGINT) "
    "WHERE EXISTS (SELECT 1 FROM matches WHERE id = ? AND status = 'active') "
    "AND (SELECT COALESCE(MAX(seq) + 1, 0) FROM actions WHERE match_id = ?) = ? "
    "AND (CAST(? AS BIGINT) IS NULL OR EXISTS (SELECT 1 FROM hands WHERE id = ? AND match_id = ?)) "
    "ON CONFLICT (match_id, seq) DO NOTHING"
)
"""An action appended in one statement when everything :meth:`GameTopic.record_action` checks holds (the match
active, ``seq`` the next number, the hand, if any, of this match): the usual case, one round trip (SQLite runs it as
its own transaction). Nothing is written otherwise, and the checks run one by one to say why. (The casts give
PostgreSQL the parameters' types; ``WHERE`` before ``ON CONFLICT`` is what SQLite's parser needs.)"""


async def _channel_match(conn: Connection, channel_id: int, seed: str, state_hash: str | None,
                         seats: Sequence[SeatSpec], ms: int, unheld: bool = False) -> int | None:
    """What a new match in ``channel_id`` meets there (one active match per channel, migration 0013). A start with
    the seed of the channel's active match is the same start made again: the bot draws a fresh seed for every start
    and uses one again only for a start whose answer it never got (the COMMIT landed, its answer was lost). Returns
    the match's id when it is that start as it was (the same table: state hash and seats); aborts it when the lobby
    changed since and nothing was played in it (it was never shown: the new start replaces it) and returns None;
    None when the channel has no active match. Another active match in the channel is ``channel_busy``, except,
    when ``unheld`` (the caller drives no table of it: the channel's lobby is the caller's, so no process does), one
    that never started a hand: a start whose answer was lost and whose lobby was given up (aborted, replaced)."""
    row = await conn.one("SELECT id, seed, start_hash FROM matches WHERE channel_id = ? AND status = 'active'",
                         (channel_id,))
    if row is None:
        return None
    match_id = int(row[0])
    if row[1] != seed:
        if not unheld or await conn.one("SELECT 1 FROM hands WHERE match_id = ? LIMIT 1", (match_id,)) is not None:
            raise StoreError("channel_busy", channel_id=channel_id, match_id=match_id)
        await conn.execute("UPDATE matches SET status = 'aborted', reason = ?, ended_at = ? WHERE id = ?",
                           ("never played, replaced by another lobby's start", ms, match_id))
        return None
    stored = await conn.all("SELECT player_id, ai FROM match_seats WHERE match_id = ? ORDER BY seat", (match_id,))
    if row[2] == state_hash and [tuple(r) for r in stored] == [(s.player_id, s.ai) for s in seats]:
        return match_id
    if await conn.one("SELECT 1 FROM actions WHERE match_id = ? LIMIT 1", (match_id,)) is not None:
        raise StoreError("channel_busy", channel_id=channel_id, match_id=match_id)
    await conn.execute("UPDATE hands SET status = 'aborted', ended_at = ? WHERE match_id = ? AND status = 'active'",
                       (ms, match_id))
    await conn.execute("UPDATE matches SET status = 'aborted', reason = ?, ended_at = ? WHERE id = ?",
                       ("replaced by a new start", ms, match_id))
    return None


class GameTopic(Database):
    """Writing matches, hands, actions and the ledger."""

    @completes
    async def start_match(
        self,
        guild_id: int,
        channel_id: int,
        variant: str,
        settings: Mapping[str, Any],
        seed: int | str,
        seats: Sequence[SeatSpec],
        *,
        state_hash: str | None = None,
        at: datetime | None = None,
        meta: Mapping[str, Any] | None = None,
        unheld: bool = False,
    ) -> int:
        """Record a new match (status ``active``) with its settings snapshot and four seats; returns its id.

        Human seats' display names are cached in ``players`` in the same transaction. ``state_hash`` is the
        table's hash before any action (checked on resume when no action has been recorded yet). ``meta``: what the
        caller keeps beside the engine's settings (see :meth:`match_meta`), written in the same transaction.

        A channel has at most one active match: another one there is refused (``channel_busy``), except the same
        start made again, with the same seed (its first answer lost: the id of the match that landed is returned, or
        when the lobby changed since, that unplayed match is aborted and replaced), and, when ``unheld`` (the caller
        drives no table of the channel's match), a match that never started a hand; see :func:`_channel_match`.
        """
        if len(seats) != 4:
            raise StoreError("bad_seats", detail=f"{len(seats)} seats")
        for i, s in enumerate(seats):
            if (s.player_id is None) == (s.ai is None):
                raise StoreError("bad_seats", detail=f"seat {i} must be exactly one of a player or an AI")
        humans = [s.player_id for s in seats if s.player_id is not None]
        if len(set(humans)) != len(humans):
            raise StoreError("bad_seats", detail="a player sits twice")
        ms = to_ms(at)
        async with self.transaction() as conn:
            await check_guild(self.fence, conn, guild_id)
            same = await _channel_match(conn, channel_id, seed_text(seed), state_hash, seats, ms, unheld)
            if same is not None:  # this very start again (its first answer was lost): the match that landed
                if meta is not None:
                    await conn.execute(
                        "INSERT INTO match_meta (match_id, meta) VALUES (?, ?) "
                        "ON CONFLICT (match_id) DO UPDATE SET meta = excluded.meta",
                        (same, dumps(dict(meta))),
                    )
                return same
            for s in seats:
                if s.player_id is not None:
                    if s.display_name is not None:
                        await upsert_player(conn, s.player_id, s.display_name, ms)
                    else:
                        await ensure_player(conn, s.player_id, ms)
            match_id = await conn.insert(
                "INSERT INTO matches (guild_id, channel_id, variant, settings, seed, status, start_hash, started_at) "
                "VALUES (?, ?, ?, ?, ?, 'active', ?, ?)",
                (guild_id, channel_id, variant, dumps(dict(settings)), seed_text(seed), state_hash, ms),
            )
            await conn.executemany(
                "INSERT INTO match_seats (match_id, seat, player_id, ai) VALUES (?, ?, ?, ?)",
                [(match_id, i, s.player_id, s.ai) for i, s in enumerate(seats)],
            )
            if meta is not None:
                await _insert_meta(conn, match_id, meta)
        return match_id

    # ------------------------------------------------------------------ a match's bot metadata (0003)

    async def match_meta(self, match_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(meta, messages)`` of a match: what the bot stored beside the engine's settings when it started the
        match, and the Discord messages it last recorded for it (``{}`` for both when there are none)."""
        async with self.transaction(write=False) as conn:
            row = await conn.one("SELECT meta, messages FROM match_meta WHERE match_id = ?", (match_id,))
        return (json.loads(row[0]), json.loads(row[1])) if row else ({}, {})

    async def set_match_messages(self, match_id: int, messages: Mapping[str, Any]) -> None:
        """Remember where a match's messages are (the table message, DMs with controls), so that a restarted bot
        can find and edit them."""
        await self.set_matches_messages({match_id: messages})

    @completes
    async def set_matches_messages(self, by_match: Mapping[int, Mapping[str, Any]]) -> None:
        """:meth:`set_match_messages` for many matches in one transaction. Not synced to disk on its own (losing
        the latest ids costs a stale button after a power cut, never a game)."""
        async with self.transaction(durable=False, keyed=True) as conn:
            await conn.executemany(
                "INSERT INTO match_meta (match_id, messages) VALUES (?, ?) "
                "ON CONFLICT (match_id) DO UPDATE SET messages = excluded.messages",
                [(m, dumps(dict(msgs))) for m, msgs in by_match.items()],
            )

    @completes
    async def start_hand(
        self,
        match_id: int,
        number: int,
        seed: int | str,
        wall_commitment: str | None = None,
        at: datetime | None = None,
    ) -> int:
        """Record the start of hand ``number`` of an active match (its seed and the published wall commitment);
        returns the hand id. The previous hand must be finished. Starting the same number again returns the
        existing id (a retry after a crash), provided its seed is the same."""
        ms = to_ms(at)
        async with self.transaction() as conn:
            await check_match(self.fence, conn, match_id)
            await active_match(conn, match_id)
            row = await conn.one("SELECT id, seed, status FROM hands WHERE match_id = ? AND number = ?", (match_id, number))
            if row is not None:
                if row[1] != seed_text(seed):
                    raise StoreError("hand_exists", match_id=match_id, number=number)
                return int(row[0])
            busy = await conn.one("SELECT number FROM hands WHERE match_id = ? AND status = 'active'", (match_id,))
            if busy is not None:
                raise StoreError("hand_still_active", match_id=match_id, number=busy[0])
            return await conn.insert(
                "INSERT INTO hands (match_id, number, seed, wall_commitment, status, started_at) "
                "VALUES (?, ?, ?, ?, 'active', ?)",
                (match_id, number, seed_text(seed), wall_commitment, ms),
            )

    @completes
    async def record_action(
        self,
        match_id: int,
        seq: int,
        action: str | Mapping[str, Any],
        at: datetime | None = None,
        *,
        hand_id: int | None = None,
        state_hash: str | None = None,
    ) -> bool:
        """Append action number ``seq`` (0, 1, 2 ... = its index in the match's action list) to an active match.

        ``action`` is the engine action's JSON text (or a dict, serialised here). ``state_hash`` is the table's
        hash after the action; resume checks the replay against the last one stored. Returns True when written,
        False when exactly this action was already recorded at ``seq`` (a retry: nothing is recorded twice).
        A different action at an existing ``seq``, or a gap in the sequence, is refused with ``StoreError``.
        """
        text = action if isinstance(action, str) else dumps(dict(action))
        ms = to_ms(at)
        click = ROUTED_CLICK.get()  # (a DM click routed to this process: marked handled with its move)
        async with self.transaction(durable=False, keyed=True, single=self.fence is None and click is None) as conn:
            await check_match(self.fence, conn, match_id)  # (PostgreSQL's processes: the lease still ours)
            if await conn.execute(_APPEND_ACTION, (match_id, seq, hand_id, text, state_hash, ms, match_id, match_id,
                                                   seq, hand_id, hand_id, match_id)):
                await mark_applied(conn, click)
                return True
        # not appended: say why (the same checks, one by one), or find it already there
        async with self.transaction(durable=False, keyed=True) as conn:
            await check_match(self.fence, conn, match_id)
            row = await conn.one(
                "SELECT status, (SELECT COALESCE(MAX(seq) + 1, 0) FROM actions WHERE match_id = ?), "
                "(SELECT match_id FROM hands WHERE id = ?) FROM matches WHERE id = ?",
                (match_id, hand_id, match_id),
            )
            if row is None:
                raise StoreError("no_match", match_id=match_id)
            status, expected, hand_match = row
            if status != "active":
                raise StoreError("match_not_active", match_id=match_id, status=status)
            if seq < expected:
                old = await conn.one("SELECT action FROM actions WHERE match_id = ? AND seq = ?", (match_id, seq))
                if old is not None and old[0] == text:
                    return False
                raise StoreError("seq_conflict", match_id=match_id, seq=seq)
            if seq != expected:
                raise StoreError("seq_gap", match_id=match_id, seq=seq, expected=expected)
            if hand_id is not None and hand_match != match_id:
                raise StoreError("hand_not_in_match", hand_id=hand_id, match_id=match_id)
            # PostgreSQL: another transaction may have taken ``seq`` since the read above (many run at once); the key
            # refuses the second copy, and what is there decides as above
            if not await conn.execute(
                "INSERT INTO actions (match_id, seq, hand_id, action, state_hash, at) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (match_id, seq) DO NOTHING",
                (match_id, seq, hand_id, text, state_hash, ms),
            ):
                old = await conn.one("SELECT action FROM actions WHERE match_id = ? AND seq = ?", (match_id, seq))
                if old is not None and old[0] == text:
                    return False
                raise StoreError("seq_conflict", match_id=match_id, seq=seq)
            await mark_applied(conn, click)
        return True

    @completes
    async def finish_hand(
        self,
        hand_id: int,
        ledger: Sequence[LedgerRow],
        state_hash: str | None = None,
        at: datetime | None = None,
    ) -> bool:
        """Settle a hand: its ledger rows (one per seat, zero-sum), the match's running totals and the hand's
        status, all in ONE transaction. Refused (nothing written) when the rows are not exactly one per seat, do
        not sum to zero (``amount``, ``stack_amount`` and ``jiao_amount`` separately), or in Wuhu a row's amount
        is not its stack + 交 amounts. Returns False when the hand was already settled with the same rows."""
        rows = sorted(ledger, key=lambda r: r.seat)
        seats = [r.seat for r in rows]
        if seats != [0, 1, 2, 3]:
            raise StoreError("ledger_seats", seats=seats)
        for column in ("amount", "stack_amount", "jiao_amount"):
            values = [getattr(r, column) for r in rows]
            if any(not isinstance(v, int) or isinstance(v, bool) for v in values) or sum(values) != 0:
                raise StoreError("not_zero_sum", column=column, values=values)
        ms = to_ms(at)
        async with self.transaction() as conn:
            h = await conn.one("SELECT match_id, status FROM hands WHERE id = ?", (hand_id,))
            if h is None:
                raise StoreError("no_hand", hand_id=hand_id)
            match_id, status = h
            await check_match(self.fence, conn, match_id)
            if status != "active":
                if status == "finished" and await _same_ledger(conn, hand_id, rows):
                    return False
                if status == "finished":
                    raise StoreError("ledger_conflict", hand_id=hand_id)
                raise StoreError("hand_not_active", hand_id=hand_id, status=status)
            _, guild_id, variant = await active_match(conn, match_id)
            if splits_jiao(variant):
                for r in rows:
                    if r.amount != r.stack_amount + r.jiao_amount:
                        raise StoreError(
                            "wuhu_split", seat=r.seat, amount=r.amount, stack=r.stack_amount, jiao=r.jiao_amount
                        )
            who = {
                s: (p, a)
                for s, p, a in await conn.all("SELECT seat, player_id, ai FROM match_seats WHERE match_id = ?", (match_id,))
            }
            await conn.executemany(
                "INSERT INTO ledger (hand_id, seat, match_id, guild_id, variant, player_id, ai, amount, "
                "stack_amount, jiao_amount, won, self_draw, deal_in, drawn, hand_value, at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (hand_id, r.seat, match_id, guild_id, variant, who[r.seat][0], who[r.seat][1], r.amount,
                     r.stack_amount, r.jiao_amount, int(r.won), int(r.self_draw), int(r.deal_in), int(r.drawn),
                     r.hand_value, ms)
                    for r in rows
                ],
            )
            await conn.executemany(
                "UPDATE match_seats SET total = total + ?, stack_total = stack_total + ?, "
                "jiao_total = jiao_total + ? WHERE match_id = ? AND seat = ?",
                [(r.amount, r.stack_amount, r.jiao_amount, match_id, r.seat) for r in rows],
            )
            await add_to_boards(conn, guild_id, variant, ms, [(who[r.seat][0], r) for r in rows])
            await conn.execute(
                "UPDATE hands SET status = 'finished', state_hash = ?, ended_at = ? WHERE id = ?",
                (state_hash, ms, hand_id),
            )
        return True


    @completes
    async def finish_match(self, match_id: int, state_hash: str | None = None, at: datetime | None = None) -> bool:
        """Close a match normally. Refused while a hand is still in play. False if it was already finished."""
        ms = to_ms(at)
        async with self.transaction() as conn:
            await check_match(self.fence, conn, match_id)
            row = await conn.one("SELECT status FROM matches WHERE id = ?", (match_id,))
            if row is None:
                raise StoreError("no_match", match_id=match_id)
            if row[0] == "finished":
                return False
            await active_match(conn, match_id)
            busy = await conn.one("SELECT number FROM hands WHERE match_id = ? AND status = 'active'", (match_id,))
            if busy is not None:
                raise StoreError("hand_still_active", match_id=match_id, number=busy[0])
            await conn.execute(
                "UPDATE matches SET status = 'finished', final_hash = ?, ended_at = ? WHERE id = ?",
                (state_hash, ms, match_id),
            )
        return True

    @completes
    async def abort_unstarted(self, guild_id: int, channel_id: int, seed: int | str, reason: str,
                              at: datetime | None = None) -> int | None:
        """A lobby that is given up after a start whose answer was lost: the active match that start (``seed``)
        recorded in ``channel_id``, if it landed and never started a hand, is aborted with ``reason`` (its id is
        returned; None when there is none such), so that it never comes back to play after a restart."""
        ms = to_ms(at)
        async with self.transaction() as conn:
            await check_guild(self.fence, conn, guild_id)
            row = await conn.one("SELECT id FROM matches WHERE channel_id = ? AND seed = ? AND status = 'active'",
                                 (channel_id, seed_text(seed)))
            if row is None:
                return None
            match_id = int(row[0])
            if await conn.one("SELECT 1 FROM hands WHERE match_id = ? LIMIT 1", (match_id,)) is not None:
                return None
            await conn.execute("UPDATE matches SET status = 'aborted', reason = ?, ended_at = ? WHERE id = ?",
                               (reason, ms, match_id))
        return match_id

    @completes
    async def abort_match(self, match_id: int, reason: str, at: datetime | None = None) -> bool:
        """Close a match that cannot go on (``/table end``, or it failed to resume): the match and its hand in
        play become ``aborted`` with ``reason``. The ledger is not touched: settled hands stay settled, the hand in
        play pays nothing. False if the match was no longer active."""
        ms = to_ms(at)
        async with self.transaction() as conn:
            await check_match(self.fence, conn, match_id)
            row = await conn.one("SELECT status FROM matches WHERE id = ?", (match_id,))
            if row is None:
                raise StoreError("no_match", match_id=match_id)
            if row[0] != "active":
                return False
            await conn.execute(
                "UPDATE hands SET status = 'aborted', ended_at = ? WHERE match_id = ? AND status = 'active'",
                (ms, match_id),
            )
            await conn.execute(
                "UPDATE matches SET status = 'aborted', reason = ?, ended_at = ? WHERE id = ?",
                (reason, ms, match_id),
            )
        return True
