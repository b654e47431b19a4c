"""Persistence: server settings, players, matches, hands, actions and the 子 ledger (SQLite or PostgreSQL).

Opening and closing (the bot's ``setup_hook`` / ``close``)::

    store = await Store.open(config.db_path or default_db_path())   # a file (folder + file created, WAL) or a
                                                                    # postgresql:// URL; migrations applied
    ...
    await store.close()

Writing a game (every call is one short transaction; times are passed in, ``at=None`` means now)::

    match_id = await store.start_match(guild_id, channel_id, "wuhu", settings_snapshot, seed,
                                       [SeatSpec.human(uid, name), SeatSpec.bot("normal"), ...],
                                       state_hash=table.state_hash(), at=now)
    hand_id = await store.start_hand(match_id, number, hand_seed, wall_commitment, at=now)
    await store.record_action(match_id, seq, action.to_json(), at=now,
                              hand_id=hand_id, state_hash=table.state_hash())   # seq = 0, 1, 2 ... per match
    await store.finish_hand(hand_id, [LedgerRow(seat, amount, stack, jiao, won=..., ...) for each seat],
                            state_hash=table.state_hash(), at=now)             # ledger + totals + status at once
    await store.finish_match(match_id, state_hash=..., at=now)   # or abort_match(match_id, reason, at)

Nothing is recorded twice: ``record_action`` with an already-recorded (match, seq) returns False if it is the same
action and raises :class:`StoreError` if it differs; a gap in the sequence is refused. ``finish_hand`` refuses
anything but one row per seat summing to zero (and, in Wuhu, amount = stack + 交 on every row).

With the engine's table, :class:`TableRecorder` does all of the above in the crash-safe order (apply in memory,
record the action with the state hash, then settle / start hands and finish the match from the table's state)::

    rec = await TableRecorder.start(store, guild_id=g, channel_id=c, variant="wuhu", seed=s, settings=rules,
                                    seats=seats, at=now)
    events = await rec.apply(action, at=now)       # IllegalAction: nothing applied, nothing written

Restart (every unfinished match replayed and checked against its stored state hash; a mismatch or a replay error
closes that match as 'aborted' with the reason, ledger untouched)::

    report = await resume_all(store, rebuild_table, at=now)   # shards=Shards(count, ids): only those servers'
    tables = [await TableRecorder.resume(store, r.game, r.table, at=now) for r in report.resumed]

Reading: :meth:`Store.guild_settings`, :meth:`Store.update_guild_settings` (audited),
:meth:`Store.settings_audit`, :meth:`Store.match`, :meth:`Store.matches`, :meth:`Store.hands`,
:meth:`Store.actions`, :meth:`Store.hand_ledger`, :meth:`Store.unfinished_games`. Leaderboards and a player's
record (with a running-total series) are :func:`bot.store.group.board` and :func:`bot.store.group.player_record`:
the one path, corrections (voided hands, adjustments) included; periods from :func:`period_start`. See
``docs/store.md``.
"""

from .errors import StoreError
from .models import (
    AuditEntry,
    BoardRow,
    GuildSettings,
    HandInfo,
    LedgerRow,
    MatchInfo,
    PlayerStats,
    RecordedAction,
    SeatSpec,
    SeatTotals,
    Shards,
    UnfinishedGame,
    period_start,
)
from .paths import default_db_path
from .resume import Aborted, Resumed, ResumeReport, resume_all
from .store import Store
from .tables import TableRecorder, ledger_rows, players_for, rebuild_table

__all__ = [
    "Aborted",
    "AuditEntry",
    "BoardRow",
    "GuildSettings",
    "HandInfo",
    "LedgerRow",
    "MatchInfo",
    "PlayerStats",
    "RecordedAction",
    "ResumeReport",
    "Resumed",
    "SeatSpec",
    "SeatTotals",
    "Shards",
    "Store",
    "StoreError",
    "TableRecorder",
    "UnfinishedGame",
    "default_db_path",
    "ledger_rows",
    "period_start",
    "players_for",
    "rebuild_table",
    "resume_all",
]
