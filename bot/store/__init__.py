"""Persistence: server settings, players, matches, hands, actions and the 子 ledger (SQLite via aiosqlite).

Opening and closing (the bot's ``setup_hook`` / ``close``)::

    store = await Store.open(config.db_path or default_db_path())   # folder + file created, WAL, migrations
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

Restart::

    report = await resume_all(store, lambda g: Table.replay(g.variant, g.seed, g.settings, actions_of(g)))

Reading: :meth:`Store.guild_settings`, :meth:`Store.update_guild_settings` (audited),
:meth:`Store.settings_audit`, :meth:`Store.match`, :meth:`Store.matches`, :meth:`Store.hands`,
:meth:`Store.actions`, :meth:`Store.hand_ledger`, :meth:`Store.unfinished_games`, :meth:`Store.leaderboard`
(server + variant + period start from :func:`period_start`), :meth:`Store.player_stats` (with a running-total
series). See ``docs/store.md``.
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
    UnfinishedGame,
    period_start,
)
from .paths import default_db_path
from .resume import Aborted, Resumed, ResumeReport, resume_all
from .sqlite import Store

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
    "Store",
    "StoreError",
    "UnfinishedGame",
    "default_db_path",
    "period_start",
    "resume_all",
]
