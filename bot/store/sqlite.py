"""The SQLite implementation of the store (aiosqlite, WAL, foreign keys).

One connection per store; every public method is one short transaction under an asyncio lock, so concurrent
coroutines (many tables writing at once) never see or interleave each other's half-done work. SQL is standard
with ``?`` placeholders; the SQLite-only bits live in :mod:`bot.store.dialect`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import os
import sqlite3
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, TypeVar

import aiosqlite

from bot.settings import InvalidSetting, check_house_rules, check_setting

from . import dialect
from .errors import StoreError
from .migrate import MIGRATIONS_DIR, load_migrations, migrate
from .models import (
    SETTING_DEFAULTS,
    AuditEntry,
    GuildSettings,
    HandInfo,
    LedgerRow,
    MatchInfo,
    RecordedAction,
    SeatSpec,
    SeatTotals,
    UnfinishedGame,
    from_ms,
    to_ms,
)

T = TypeVar("T")
DAY_MS = 86_400_000
_JSON_SETTINGS = ("house_rules", "allowed_channels")


def _check_settings(changes: Mapping[str, Any]) -> None:
    """Refuse a change outside the declared settings (:func:`bot.settings.check_setting`) before any write."""
    for key, value in changes.items():
        if key not in SETTING_DEFAULTS:
            raise StoreError("bad_setting", field=key)
        try:
            check_setting(key, value)
        except InvalidSetting as e:
            raise _refused(e) from None


def _check_house_rules(variant: Any, rules: Any) -> None:
    try:
        check_house_rules(variant, rules)
    except InvalidSetting as e:
        raise _refused(e) from None


def _refused(e: InvalidSetting) -> StoreError:
    """The store's refusal of a value (quoted short: a forged list or mapping can be long)."""
    shown = repr(e.value)
    return StoreError("bad_setting_value", field=e.field, value=shown if len(shown) <= 60 else shown[:59] + "…",
                      allowed=e.allowed)


# ---------------------------------------------------------------------------------------------------------------
# opening: what can be wrong with a database file, said in one line


def _folder_writable(folder: Path) -> bool:
    return os.access(folder, os.W_OK | os.X_OK)


def _db_error(path: Path, exc: sqlite3.Error) -> StoreError:
    """The start-up error for an SQLite failure while opening or probing ``path``."""
    name = getattr(exc, "sqlite_errorname", "") or ""
    text = str(exc)
    if name.startswith("SQLITE_NOTADB") or "not a database" in text:
        return StoreError("db_not_database", path=path)
    if name.startswith("SQLITE_CORRUPT") or "malformed" in text:
        return StoreError("db_corrupt", path=path, error=text)
    if name.startswith(("SQLITE_BUSY", "SQLITE_LOCKED")) or "locked" in text:
        return StoreError("db_locked", path=path, seconds=dialect.BUSY_TIMEOUT_MS // 1000)
    if name.startswith("SQLITE_READONLY") or "readonly" in text:
        if not _folder_writable(path.parent) or name in ("SQLITE_READONLY_CANTINIT", "SQLITE_READONLY_DIRECTORY"):
            return StoreError("db_folder_read_only", path=path)
        return StoreError("db_read_only", path=path)
    if name.startswith("SQLITE_CANTOPEN") and not _folder_writable(path.parent):
        return StoreError("db_folder_read_only", path=path)
    return StoreError("db_cannot_open", path=path, error=text)


#: SQLite result codes that describe the file or its surroundings rather than the SQL that was run.
_ENVIRONMENTAL = ("SQLITE_NOTADB", "SQLITE_CORRUPT", "SQLITE_BUSY", "SQLITE_LOCKED", "SQLITE_READONLY",
                  "SQLITE_CANTOPEN", "SQLITE_IOERR", "SQLITE_FULL", "SQLITE_PERM")


def _is_environmental(exc: sqlite3.Error) -> bool:
    return (getattr(exc, "sqlite_errorname", "") or "").startswith(_ENVIRONMENTAL)


async def _connect_checked(path: Path) -> aiosqlite.Connection:
    """A connection to ``path`` (its folder created if missing), or the :class:`StoreError` that says why not."""
    try:
        if path.is_dir():
            raise StoreError("db_is_directory", path=path)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as e:
            raise StoreError("db_no_folder", path=path, error=e.strerror or e) from None
        if path.exists() and not os.access(path, os.R_OK):
            raise StoreError("db_cannot_open", path=path, error="permission denied")
    except OSError as e:  # e.g. a folder on the way that we may not enter
        raise StoreError("db_cannot_open", path=path, error=e.strerror or e) from None
    try:
        return await dialect.connect(str(path))
    except sqlite3.Error as e:
        raise _db_error(path, e) from None


async def _migrate_checked(conn: aiosqlite.Connection, path: Path, migrations: list[Any]) -> int:
    try:
        return await migrate(conn, migrations)
    except sqlite3.Error as e:
        raise _db_error(path, e) from None
    except StoreError as e:
        if e.code == "schema_too_new":
            raise StoreError("schema_too_new", path=path, **{k: v for k, v in e.params.items() if k != "path"}) from None
        cause = e.__cause__
        if isinstance(cause, sqlite3.Error) and _is_environmental(cause):  # the file, not the migration's SQL
            raise _db_error(path, cause) from None
        raise


async def _probe(conn: aiosqlite.Connection, path: Path, version: int) -> None:
    """Check that the whole file reads back sound and that a write commits (a read-only file or folder is found
    here, at start-up, not at the first click). The write rewrites the schema version with its own value."""
    try:
        rows = await conn.execute_fetchall("PRAGMA quick_check")
        problems = [str(r[0]) for r in rows if str(r[0]) != "ok"]
        if problems:
            raise StoreError("db_corrupt", path=path, error=problems[0])
        await conn.execute(dialect.BEGIN_WRITE)
        try:
            await conn.execute(dialect.set_schema_version_sql(version))
            await conn.commit()
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                await conn.execute("ROLLBACK")
            raise
    except sqlite3.Error as e:
        raise _db_error(path, e) from None


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _seed_text(seed: Any) -> str:
    return str(seed)


def _completes(method: Callable[..., Awaitable[T]]) -> Callable[..., Awaitable[T]]:
    """A write that, once started, completes even if the caller is cancelled (a shutdown, a timed-out
    interaction): the caller gets its CancelledError, the transaction still commits or rolls back as a whole, and
    ``close()`` waits for it."""

    @functools.wraps(method)
    async def wrapper(self: Store, *args: Any, **kwargs: Any) -> T:
        task = asyncio.ensure_future(method(self, *args, **kwargs))
        self._pending.add(task)

        def done(t: asyncio.Future[T]) -> None:
            self._pending.discard(t)
            if not t.cancelled():
                t.exception()  # retrieved: never "exception was never retrieved"

        task.add_done_callback(done)
        return await asyncio.shield(task)

    return wrapper


class Store:
    """Settings, players, matches, hands, actions and the 子 ledger. Create with ``await Store.open(path)``."""

    def __init__(self, conn: aiosqlite.Connection, path: Path, schema_version: int) -> None:
        self._conn: aiosqlite.Connection | None = conn
        self.path = path
        self.schema_version = schema_version
        self._lock = asyncio.Lock()
        self._pending: set[asyncio.Future[Any]] = set()
        # the connection's ``synchronous`` level: False = FULL (dialect.PRAGMAS), True = NORMAL, None = not known
        self._relaxed: bool | None = False

    # ------------------------------------------------------------------ life cycle

    @classmethod
    async def open(
        cls, path: str | os.PathLike[str], *, migrations_dir: str | os.PathLike[str] | None = None
    ) -> Store:
        """Open (creating the file and its folder if needed), bring the schema up to date, and check that the
        database can really be used: readable, not damaged (``PRAGMA quick_check``), writable.

        A database that cannot be used raises :class:`StoreError` whose message names the path and the problem
        (see :func:`open_problem`), and leaves no connection (no thread) behind. Migrations are loaded first, so
        a broken migration file is reported as itself, with no connection opened at all.
        """
        p = Path(path).expanduser()
        migrations = load_migrations(Path(migrations_dir) if migrations_dir else MIGRATIONS_DIR)
        conn = await _connect_checked(p)
        try:
            version = await _migrate_checked(conn, p, migrations)
            await _probe(conn, p, version)
        except BaseException:
            await conn.close()
            raise
        return cls(conn, p, version)

    async def close(self) -> None:
        """Finish pending writes and close. Safe to call twice."""
        while self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)
        conn, self._conn = self._conn, None
        if conn is None:
            return
        async with self._lock:
            await conn.close()

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @property
    def closed(self) -> bool:
        return self._conn is None

    # ------------------------------------------------------------------ transactions

    @asynccontextmanager
    async def _tx(self, write: bool = True, *, durable: bool = True) -> AsyncIterator[aiosqlite.Connection]:
        """One transaction under the store's lock. ``durable=False`` commits without waiting for the disk
        (see :data:`dialect.RELAXED`): still safe against a killed process, and made durable by the next durable
        commit, since that one syncs the whole write-ahead log."""
        async with self._lock:
            conn = self._conn
            if conn is None:
                raise StoreError("closed")
            # the connection keeps its sync level: switched only when a write needs the other one (one round trip
            # to the database's thread less per write, two for a run of relaxed ones such as a click's actions)
            if write and self._relaxed is not (not durable):
                self._relaxed = None  # unknown until the pragma has surely run (an await may be cancelled)
                await conn.execute(dialect.RELAXED if not durable else dialect.DURABLE)
                self._relaxed = not durable
            try:
                await conn.execute(dialect.BEGIN_WRITE if write else dialect.BEGIN_READ)
                yield conn
            except BaseException:
                # The connection's thread runs requests in order, so this ROLLBACK comes after whatever was sent
                # (even a BEGIN whose await was cancelled); with nothing open it fails harmlessly.
                with contextlib.suppress(sqlite3.Error):
                    await conn.execute("ROLLBACK")
                raise
            else:
                await conn.commit()

    @staticmethod
    async def _one(conn: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> Any:
        rows = await conn.execute_fetchall(sql, params)  # one round trip to the connection's thread
        return rows[0] if rows else None

    @staticmethod
    async def _all(conn: aiosqlite.Connection, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        return list(await conn.execute_fetchall(sql, params))

    # ------------------------------------------------------------------ server settings

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The server's settings (defaults when it never changed any)."""
        async with self._tx(write=False) as conn:
            return await self._settings(conn, guild_id)

    async def _settings(self, conn: aiosqlite.Connection, guild_id: int) -> GuildSettings:
        row = await self._one(
            conn,
            "SELECT default_variant, wuhu_mode, house_rules, turn_seconds, claim_seconds, language, "
            "allowed_channels, hints, updated_at FROM guild_settings WHERE guild_id = ?",
            (guild_id,),
        )
        if row is None:
            return GuildSettings(guild_id=guild_id)
        return GuildSettings(
            guild_id=guild_id,
            default_variant=row[0],
            wuhu_mode=row[1],
            house_rules=json.loads(row[2]),
            turn_seconds=row[3],
            claim_seconds=row[4],
            language=row[5],
            allowed_channels=[int(c) for c in json.loads(row[6])],
            hints=bool(row[7]),
            updated_at=from_ms(row[8]),
        )

    @_completes
    async def update_guild_settings(
        self, guild_id: int, user_id: int, changes: Mapping[str, Any], at: datetime | None = None
    ) -> GuildSettings:
        """Change some settings; every field whose value really changes gets an audit row (who, old, new, when).

        Every value is checked against its declared range or choice set (:mod:`bot.settings`): a bad field or
        value raises ``StoreError`` and nothing is written.
        """
        _check_settings(changes)
        async with self._tx() as conn:
            return await self._change_settings(conn, guild_id, user_id, lambda _old: changes, to_ms(at))

    async def _change_settings(
        self,
        conn: aiosqlite.Connection,
        guild_id: int,
        user_id: int,
        make_changes: Callable[[GuildSettings], Mapping[str, Any]],
        ms: int,
    ) -> GuildSettings:
        old = await self._settings(conn, guild_id)
        changes = make_changes(old)
        new_values = {k: getattr(old, k) for k in SETTING_DEFAULTS}
        audit = []
        for key, value in changes.items():
            if key == "allowed_channels":
                value = [int(c) for c in value]
            if key == "house_rules":
                value = {str(v): dict(r) for v, r in value.items()}
            if new_values[key] != value:
                audit.append((guild_id, user_id, key, _dumps(new_values[key]), _dumps(value), ms))
                new_values[key] = value
        if not audit:
            return old
        params = [guild_id]
        for key in SETTING_DEFAULTS:
            v = new_values[key]
            params.append(_dumps(v) if key in _JSON_SETTINGS else (int(v) if isinstance(v, bool) else v))
        params.append(ms)
        cols = ", ".join(SETTING_DEFAULTS)
        updates = ", ".join(f"{c} = excluded.{c}" for c in [*SETTING_DEFAULTS, "updated_at"])
        await conn.execute(
            f"INSERT INTO guild_settings (guild_id, {cols}, updated_at) "
            f"VALUES ({', '.join('?' * (len(SETTING_DEFAULTS) + 2))}) "
            f"ON CONFLICT (guild_id) DO UPDATE SET {updates}",
            params,
        )
        await conn.executemany(
            "INSERT INTO settings_audit (guild_id, user_id, field, old_value, new_value, changed_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            audit,
        )
        return await self._settings(conn, guild_id)

    @_completes
    async def set_house_rules(
        self, guild_id: int, user_id: int, variant: str, rules: Mapping[str, Any], at: datetime | None = None
    ) -> GuildSettings:
        """Replace one variant's house-rule overrides (audited as a change of ``house_rules``); read and written in
        one transaction, so two admins changing different variants at once both keep their change. A variant, rule
        or value outside the declared choices (:mod:`bot.settings`) raises ``StoreError``; nothing is written."""
        _check_house_rules(variant, rules)

        def change(current: GuildSettings) -> dict[str, Any]:
            house = {k: dict(v) for k, v in current.house_rules.items()}
            house[str(variant)] = dict(rules)
            return {"house_rules": house}

        async with self._tx() as conn:
            return await self._change_settings(conn, guild_id, user_id, change, to_ms(at))

    async def settings_audit(self, guild_id: int, limit: int = 50) -> list[AuditEntry]:
        """The latest setting changes of a server, newest first."""
        async with self._tx(write=False) as conn:
            rows = await self._all(
                conn,
                "SELECT user_id, field, old_value, new_value, changed_at FROM settings_audit "
                "WHERE guild_id = ? ORDER BY changed_at DESC, id DESC LIMIT ?",
                (guild_id, limit),
            )
        return [
            AuditEntry(guild_id, r[0], r[1], json.loads(r[2]) if r[2] is not None else None,
                       json.loads(r[3]) if r[3] is not None else None, from_ms(r[4]))
            for r in rows
        ]

    # ------------------------------------------------------------------ players

    @_completes
    async def upsert_player(self, user_id: int, display_name: str, at: datetime | None = None) -> None:
        """Remember (or refresh) a Discord user's display name."""
        async with self._tx() as conn:
            await self._upsert_player(conn, user_id, display_name, to_ms(at))

    @staticmethod
    async def _upsert_player(conn: aiosqlite.Connection, user_id: int, name: str, ms: int) -> None:
        await conn.execute(
            "INSERT INTO players (user_id, display_name, updated_at) VALUES (?, ?, ?) "
            "ON CONFLICT (user_id) DO UPDATE SET display_name = excluded.display_name, "
            "updated_at = excluded.updated_at",
            (user_id, name, ms),
        )

    async def display_name(self, user_id: int) -> str | None:
        async with self._tx(write=False) as conn:
            row = await self._one(conn, "SELECT display_name FROM players WHERE user_id = ?", (user_id,))
        return row[0] if row else None

    # ------------------------------------------------------------------ writing a game

    @_completes
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
    ) -> int:
        """Record a new match (status ``active``) with its settings snapshot and four seats; returns its id.

        Human seats' display names are cached in ``players`` in the same transaction. ``state_hash`` is the
        table's hash before any action (checked on resume when no action has been recorded yet). ``meta``: what the
        caller keeps beside the engine's settings (see :meth:`match_meta`), written in the same transaction.
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
        async with self._tx() as conn:
            for s in seats:
                if s.player_id is not None:
                    if s.display_name is not None:
                        await self._upsert_player(conn, s.player_id, s.display_name, ms)
                    else:
                        await conn.execute(
                            "INSERT INTO players (user_id, display_name, updated_at) VALUES (?, ?, ?) "
                            "ON CONFLICT (user_id) DO NOTHING",
                            (s.player_id, str(s.player_id), ms),
                        )
            cur = await conn.execute(
                "INSERT INTO matches (guild_id, channel_id, variant, settings, seed, status, start_hash, started_at) "
                "VALUES (?, ?, ?, ?, ?, 'active', ?, ?)",
                (guild_id, channel_id, variant, _dumps(dict(settings)), _seed_text(seed), state_hash, ms),
            )
            match_id = int(cur.lastrowid)
            await conn.executemany(
                "INSERT INTO match_seats (match_id, seat, player_id, ai) VALUES (?, ?, ?, ?)",
                [(match_id, i, s.player_id, s.ai) for i, s in enumerate(seats)],
            )
            if meta is not None:
                await self._insert_meta(conn, match_id, meta)
        return match_id

    # ------------------------------------------------------------------ a match's bot metadata (0003)

    @staticmethod
    async def _insert_meta(conn: aiosqlite.Connection, match_id: int, meta: Mapping[str, Any]) -> None:
        await conn.execute("INSERT INTO match_meta (match_id, meta) VALUES (?, ?)", (match_id, _dumps(dict(meta))))

    async def match_meta(self, match_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
        """``(meta, messages)`` of a match: what the bot stored beside the engine's settings when it started the
        match, and the Discord messages it last recorded for it (``{}`` for both when there are none)."""
        async with self._tx(write=False) as conn:
            row = await self._one(conn, "SELECT meta, messages FROM match_meta WHERE match_id = ?", (match_id,))
        return (json.loads(row[0]), json.loads(row[1])) if row else ({}, {})

    async def set_match_messages(self, match_id: int, messages: Mapping[str, Any]) -> None:
        """Remember where a match's messages are (the table message, DMs with controls), so that a restarted bot
        can find and edit them."""
        await self.set_matches_messages({match_id: messages})

    @_completes
    async def set_matches_messages(self, by_match: Mapping[int, Mapping[str, Any]]) -> None:
        """:meth:`set_match_messages` for many matches in one transaction. Not synced to disk on its own (losing
        the latest ids costs a stale button after a power cut, never a game)."""
        async with self._tx(durable=False) as conn:
            await conn.executemany(
                "INSERT INTO match_meta (match_id, messages) VALUES (?, ?) "
                "ON CONFLICT (match_id) DO UPDATE SET messages = excluded.messages",
                [(m, _dumps(dict(msgs))) for m, msgs in by_match.items()],
            )

    async def _active_match(self, conn: aiosqlite.Connection, match_id: int) -> tuple[str, int, str]:
        row = await self._one(conn, "SELECT status, guild_id, variant FROM matches WHERE id = ?", (match_id,))
        if row is None:
            raise StoreError("no_match", match_id=match_id)
        if row[0] != "active":
            raise StoreError("match_not_active", match_id=match_id, status=row[0])
        return row

    @_completes
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
        async with self._tx() as conn:
            await self._active_match(conn, match_id)
            row = await self._one(
                conn, "SELECT id, seed, status FROM hands WHERE match_id = ? AND number = ?", (match_id, number)
            )
            if row is not None:
                if row[1] != _seed_text(seed):
                    raise StoreError("hand_exists", match_id=match_id, number=number)
                return int(row[0])
            busy = await self._one(
                conn, "SELECT number FROM hands WHERE match_id = ? AND status = 'active'", (match_id,)
            )
            if busy is not None:
                raise StoreError("hand_still_active", match_id=match_id, number=busy[0])
            cur = await conn.execute(
                "INSERT INTO hands (match_id, number, seed, wall_commitment, status, started_at) "
                "VALUES (?, ?, ?, ?, 'active', ?)",
                (match_id, number, _seed_text(seed), wall_commitment, ms),
            )
            return int(cur.lastrowid)

    @_completes
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
        text = action if isinstance(action, str) else _dumps(dict(action))
        ms = to_ms(at)
        async with self._tx(durable=False) as conn:
            row = await self._one(
                conn,
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
                old = await self._one(
                    conn, "SELECT action FROM actions WHERE match_id = ? AND seq = ?", (match_id, seq)
                )
                if old is not None and old[0] == text:
                    return False
                raise StoreError("seq_conflict", match_id=match_id, seq=seq)
            if seq != expected:
                raise StoreError("seq_gap", match_id=match_id, seq=seq, expected=expected)
            if hand_id is not None and hand_match != match_id:
                raise StoreError("hand_not_in_match", hand_id=hand_id, match_id=match_id)
            await conn.execute(
                "INSERT INTO actions (match_id, seq, hand_id, action, state_hash, at) VALUES (?, ?, ?, ?, ?, ?)",
                (match_id, seq, hand_id, text, state_hash, ms),
            )
        return True

    @_completes
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
        async with self._tx() as conn:
            h = await self._one(conn, "SELECT match_id, status FROM hands WHERE id = ?", (hand_id,))
            if h is None:
                raise StoreError("no_hand", hand_id=hand_id)
            match_id, status = h
            if status != "active":
                if status == "finished" and await self._same_ledger(conn, hand_id, rows):
                    return False
                if status == "finished":
                    raise StoreError("ledger_conflict", hand_id=hand_id)
                raise StoreError("hand_not_active", hand_id=hand_id, status=status)
            _, guild_id, variant = await self._active_match(conn, match_id)
            if variant == "wuhu":
                for r in rows:
                    if r.amount != r.stack_amount + r.jiao_amount:
                        raise StoreError(
                            "wuhu_split", seat=r.seat, amount=r.amount, stack=r.stack_amount, jiao=r.jiao_amount
                        )
            who = {
                s: (p, a)
                for s, p, a in await self._all(
                    conn, "SELECT seat, player_id, ai FROM match_seats WHERE match_id = ?", (match_id,)
                )
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
            await self._add_to_boards(conn, guild_id, variant, ms, [(who[r.seat][0], r) for r in rows])
            await conn.execute(
                "UPDATE hands SET status = 'finished', state_hash = ?, ended_at = ? WHERE id = ?",
                (state_hash, ms, hand_id),
            )
        return True

    @staticmethod
    async def _add_to_boards(
        conn: aiosqlite.Connection, guild_id: int, variant: str, ms: int, rows: Sequence[tuple[int | None, LedgerRow]]
    ) -> None:
        """Add the human seats' results to the leaderboard roll-ups (all time, and the UTC day of ``ms``)."""
        stats = [
            (player, 1, int(r.won), int(r.self_draw), int(r.deal_in), int(r.drawn), r.hand_value if r.won else 0,
             r.amount)
            for player, r in rows
            if player is not None
        ]
        add = (
            "hands = {t}.hands + excluded.hands, wins = {t}.wins + excluded.wins, "
            "self_draws = {t}.self_draws + excluded.self_draws, deal_ins = {t}.deal_ins + excluded.deal_ins, "
            "draws = {t}.draws + excluded.draws, net = {t}.net + excluded.net, "
            "biggest = CASE WHEN excluded.biggest > {t}.biggest THEN excluded.biggest ELSE {t}.biggest END"
        )
        await conn.executemany(
            "INSERT INTO board_totals (guild_id, variant, player_id, hands, wins, self_draws, deal_ins, draws, "
            "biggest, net) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, variant, player_id) "
            "DO UPDATE SET " + add.format(t="board_totals"),
            [(guild_id, variant, *st) for st in stats],
        )
        await conn.executemany(
            "INSERT INTO board_days (guild_id, variant, day, player_id, hands, wins, self_draws, deal_ins, draws, "
            "biggest, net) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (guild_id, variant, day, player_id) "
            "DO UPDATE SET " + add.format(t="board_days"),
            [(guild_id, variant, ms // DAY_MS, *st) for st in stats],
        )

    async def _same_ledger(self, conn: aiosqlite.Connection, hand_id: int, rows: Sequence[LedgerRow]) -> bool:
        stored = await self._all(
            conn,
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

    @_completes
    async def finish_match(self, match_id: int, state_hash: str | None = None, at: datetime | None = None) -> bool:
        """Close a match normally. Refused while a hand is still in play. False if it was already finished."""
        ms = to_ms(at)
        async with self._tx() as conn:
            row = await self._one(conn, "SELECT status FROM matches WHERE id = ?", (match_id,))
            if row is None:
                raise StoreError("no_match", match_id=match_id)
            if row[0] == "finished":
                return False
            await self._active_match(conn, match_id)
            busy = await self._one(
                conn, "SELECT number FROM hands WHERE match_id = ? AND status = 'active'", (match_id,)
            )
            if busy is not None:
                raise StoreError("hand_still_active", match_id=match_id, number=busy[0])
            await conn.execute(
                "UPDATE matches SET status = 'finished', final_hash = ?, ended_at = ? WHERE id = ?",
                (state_hash, ms, match_id),
            )
        return True

    @_completes
    async def abort_match(self, match_id: int, reason: str, at: datetime | None = None) -> bool:
        """Close a match that cannot go on (``/table end``, or it failed to resume): the match and its hand in
        play become ``aborted`` with ``reason``. The ledger is not touched: settled hands stay settled, the hand in
        play pays nothing. False if the match was no longer active."""
        ms = to_ms(at)
        async with self._tx() as conn:
            row = await self._one(conn, "SELECT status FROM matches WHERE id = ?", (match_id,))
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

    # ------------------------------------------------------------------ reading games

    async def _match(self, conn: aiosqlite.Connection, row: Sequence[Any]) -> MatchInfo:
        seats = await self._all(
            conn,
            "SELECT s.seat, s.player_id, s.ai, p.display_name, s.total, s.stack_total, s.jiao_total "
            "FROM match_seats s LEFT JOIN players p ON p.user_id = s.player_id "
            "WHERE s.match_id = ? ORDER BY s.seat",
            (row[0],),
        )
        return MatchInfo(
            match_id=row[0], guild_id=row[1], channel_id=row[2], variant=row[3], settings=json.loads(row[4]),
            seed=row[5], status=row[6], start_hash=row[7], final_hash=row[8], reason=row[9],
            started_at=from_ms(row[10]), ended_at=from_ms(row[11]),
            seats=tuple(SeatTotals(*s) for s in seats),
        )

    _MATCH_COLS = (
        "id, guild_id, channel_id, variant, settings, seed, status, start_hash, final_hash, reason, "
        "started_at, ended_at"
    )

    async def match(self, match_id: int) -> MatchInfo:
        """A match with its seats and running totals."""
        async with self._tx(write=False) as conn:
            row = await self._one(conn, f"SELECT {self._MATCH_COLS} FROM matches WHERE id = ?", (match_id,))
            if row is None:
                raise StoreError("no_match", match_id=match_id)
            return await self._match(conn, row)

    async def matches(self, guild_id: int, status: str | None = None, limit: int = 50) -> list[MatchInfo]:
        """A server's matches, newest first (optionally only those with ``status``)."""
        async with self._tx(write=False) as conn:
            sql = f"SELECT {self._MATCH_COLS} FROM matches WHERE guild_id = ?"
            params: list[Any] = [guild_id]
            if status is not None:
                sql += " AND status = ?"
                params.append(status)
            rows = await self._all(conn, sql + " ORDER BY started_at DESC, id DESC LIMIT ?", [*params, limit])
            return [await self._match(conn, r) for r in rows]

    _HAND_COLS = "id, match_id, number, seed, wall_commitment, status, state_hash, started_at, ended_at"

    @staticmethod
    def _hand(r: Sequence[Any]) -> HandInfo:
        return HandInfo(r[0], r[1], r[2], r[3], r[4], r[5], r[6], from_ms(r[7]), from_ms(r[8]))

    async def hands(self, match_id: int) -> list[HandInfo]:
        async with self._tx(write=False) as conn:
            rows = await self._all(
                conn, f"SELECT {self._HAND_COLS} FROM hands WHERE match_id = ? ORDER BY number", (match_id,)
            )
        return [self._hand(r) for r in rows]

    async def actions(self, match_id: int) -> list[RecordedAction]:
        """A match's actions in order."""
        async with self._tx(write=False) as conn:
            return await self._actions(conn, match_id)

    async def _actions(self, conn: aiosqlite.Connection, match_id: int) -> list[RecordedAction]:
        rows = await self._all(
            conn,
            "SELECT seq, hand_id, action, state_hash, at FROM actions WHERE match_id = ? ORDER BY seq",
            (match_id,),
        )
        return [RecordedAction(r[0], r[1], r[2], r[3], from_ms(r[4])) for r in rows]

    async def hand_ledger(self, hand_id: int) -> list[LedgerRow]:
        """A settled hand's rows by seat (empty while it is in play or if it was aborted)."""
        async with self._tx(write=False) as conn:
            rows = await self._all(
                conn,
                "SELECT seat, amount, stack_amount, jiao_amount, won, self_draw, deal_in, drawn, hand_value "
                "FROM ledger WHERE hand_id = ? ORDER BY seat",
                (hand_id,),
            )
        return [
            LedgerRow(r[0], r[1], r[2], r[3], bool(r[4]), bool(r[5]), bool(r[6]), bool(r[7]), r[8]) for r in rows
        ]

    async def unfinished_games(self) -> list[UnfinishedGame]:
        """Every active match with what it takes to rebuild it (see :class:`UnfinishedGame`), oldest first."""
        async with self._tx(write=False) as conn:
            rows = await self._all(
                conn, f"SELECT {self._MATCH_COLS} FROM matches WHERE status = 'active' ORDER BY id"
            )
            out = []
            for row in rows:
                info = await self._match(conn, row)
                hands = await self._all(
                    conn, f"SELECT {self._HAND_COLS} FROM hands WHERE match_id = ? ORDER BY number", (row[0],)
                )
                actions = await self._actions(conn, row[0])
                state_hash, hash_seq = info.start_hash, None
                for a in reversed(actions):
                    if a.state_hash is not None:
                        state_hash, hash_seq = a.state_hash, a.seq
                        break
                out.append(
                    UnfinishedGame(info, tuple(self._hand(h) for h in hands), tuple(actions), state_hash, hash_seq)
                )
        return out
