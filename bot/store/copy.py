"""``mjbot db copy SRC DST``: a whole database copied between backends (SQLite -> PostgreSQL and back), verified.

The destination is opened as the bot opens it (created and migrated to this mjbot's schema); an SQLite source is
read without a write (a snapshot of it is migrated and copied: the file stays as it was), a PostgreSQL source is
opened as the bot opens it. A source file that does not exist is refused, not created. The destination must hold
no data (refused otherwise, unless ``force``: then its rows are deleted first, in the same transaction as the copy).
The whole source is read in one snapshot (one read transaction, ``REPEATABLE READ READ ONLY`` on PostgreSQL: a bot
writing it meanwhile changes nothing of what is copied), page by page in the order of each table's primary key.
Every table is copied in one transaction on the destination, in an order its foreign keys accept; PostgreSQL's id
sequences are moved past the copied ids. Then the copy is verified against that same snapshot:

- every table has as many rows on both sides;
- every server's ledger sums (amount, stack, 交) and hand counts are equal on both sides;
- every match with recorded actions replays on the destination to the same state hash as on the source (and the
  number whose replay disagrees with their own stored hash is reported, on the source as it was).

    report = await copy_database("mjbot.sqlite3", "postgresql://mjbot@localhost/mjbot")
    print(report.lines())          # report.ok: verified
"""

from __future__ import annotations

import contextlib
import json
import math
import sqlite3
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine.table import Table

from .backend import Connection
from .errors import StoreError
from .matches import read_actions
from .models import SeatSpec
from .paths import parse_target, shown
from .store import Store
from .tables import engine_settings, players_for

#: every table of the schema, parents before children (the order rows can be inserted in)
TABLES = (
    "players", "guild_settings", "settings_audit", "matches", "match_seats", "match_meta", "match_votes", "hands",
    "actions", "ledger", "board_totals", "board_days", "group_settings", "seasons", "corrections",
    "correction_rows", "memory_settings", "records", "record_seats", "lobbies", "seated_players",
)
#: tables of passing state, not copied (the destination's are emptied): clicks routed between running processes and
#: the epochs of their leases (docs/sharding.md), which mean nothing once the processes are stopped for the copy
NOT_COPIED = ("routed_clicks", "lease_epochs")
#: tables whose ``id`` the database numbers (PostgreSQL's identity sequences follow the copied ids)
ID_TABLES = ("settings_audit", "matches", "hands", "seasons", "corrections", "records")
BATCH = 5000


@dataclass
class CopyReport:
    source: str
    destination: str
    rows: dict[str, int] = field(default_factory=dict)
    count_mismatches: list[str] = field(default_factory=list)
    ledger_mismatches: list[int] = field(default_factory=list)
    servers: int = 0
    matches_replayed: int = 0
    replay_mismatches: list[int] = field(default_factory=list)
    stale_in_source: list[int] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not (self.count_mismatches or self.ledger_mismatches or self.replay_mismatches)

    def lines(self) -> list[str]:
        out = [f"copied {sum(self.rows.values())} rows in {len(self.rows)} tables: {self.source} -> {self.destination}"]
        out.append(f"{'✓' if not self.count_mismatches else '✗'} row counts"
                   + (f": differ in {', '.join(self.count_mismatches)}" if self.count_mismatches else " equal"))
        out.append(f"{'✓' if not self.ledger_mismatches else '✗'} ledger sums of {self.servers} servers"
                   + (f": differ for {self.ledger_mismatches}" if self.ledger_mismatches else " equal"))
        out.append(f"{'✓' if not self.replay_mismatches else '✗'} {self.matches_replayed} matches rebuilt from "
                   "their actions" + (f": differ for {self.replay_mismatches}" if self.replay_mismatches
                                      else " to the same state"))
        if self.stale_in_source:
            out.append(f"  note: {len(self.stale_in_source)} matches did not replay to their stored hash in the source "
                       f"either (copied as they were): {self.stale_in_source[:10]}")
        return out


async def _tables(conn: Connection, dialect: str) -> set[str]:
    if dialect == "postgresql":
        rows = await conn.all("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
    else:
        rows = await conn.all("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    return {r[0] for r in rows} - {"schema_version"}


async def _columns(conn: Connection, dialect: str, table: str) -> list[str]:
    if dialect == "postgresql":
        rows = await conn.all("SELECT column_name FROM information_schema.columns WHERE table_schema = "
                              "current_schema() AND table_name = ? ORDER BY ordinal_position", (table,))
        return [r[0] for r in rows]
    return [r[1] for r in await conn.all(f"PRAGMA table_info({table})")]


async def _key(conn: Connection, dialect: str, table: str) -> list[str]:
    """The columns of ``table``'s primary key, in the key's order ([] if it has none)."""
    if dialect == "postgresql":
        rows = await conn.all(
            "SELECT a.attname FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
            "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = CAST(CAST(? AS TEXT) AS regclass) AND i.indisprimary "
            "ORDER BY array_position(CAST(i.indkey AS smallint[]), a.attnum)", (table,))
        return [r[0] for r in rows]
    info = await conn.all(f"PRAGMA table_info({table})")
    return [r[1] for r in sorted((r for r in info if r[5]), key=lambda r: r[5])]


async def _pages(conn: Connection, table: str, cols: list[str], key: list[str]) -> AsyncIterator[list[tuple]]:
    """The rows of ``table`` in pages of :data:`BATCH`, in the order of its primary key: each page starts after the
    last key of the one before (a table without a key: ordered by every column, counted off; either way within the
    one snapshot the copy reads)."""
    select = f"SELECT {', '.join(cols)} FROM {table}"
    at = [cols.index(k) for k in key]
    last: tuple | None = None
    offset = 0
    while True:
        if not key:
            rows = await conn.all(f"{select} ORDER BY {', '.join(str(i + 1) for i in range(len(cols)))} "
                                  "LIMIT ? OFFSET ?", (BATCH, offset))
        elif last is None:
            rows = await conn.all(f"{select} ORDER BY {', '.join(key)} LIMIT ?", (BATCH,))
        else:
            rows = await conn.all(f"{select} WHERE ({', '.join(key)}) > ({', '.join('?' * len(key))}) "
                                  f"ORDER BY {', '.join(key)} LIMIT ?", (*last, BATCH))
        if not rows:
            return
        page = [tuple(r) for r in rows]
        yield page
        offset += len(page)
        last = tuple(page[-1][i] for i in at)


async def _counts(conn: Connection) -> dict[str, int]:
    return {t: int((await conn.all(f"SELECT COUNT(*) FROM {t}"))[0][0]) for t in TABLES}


async def _ledger_sums(conn: Connection) -> dict[int, tuple[int, ...]]:
    rows = await conn.all("SELECT guild_id, COUNT(*), SUM(amount), SUM(stack_amount), SUM(jiao_amount) "
                          "FROM ledger GROUP BY guild_id")
    return {int(r[0]): tuple(int(x or 0) for x in r[1:]) for r in rows}


async def _replays(conn: Connection) -> tuple[dict[int, str], list[int]]:
    """Each match's replayed state hash (or its replay error), and the matches whose replay differs from the last
    state hash they stored."""
    out: dict[int, str] = {}
    stale: list[int] = []
    ids = [int(r[0]) for r in await conn.all("SELECT DISTINCT match_id FROM actions ORDER BY match_id")]
    for mid in ids:
        variant, seed, stored_settings = await conn.one("SELECT variant, seed, settings FROM matches WHERE id = ?",
                                                        (mid,))
        seats = [SeatSpec(player_id=p, ai=ai) for p, ai in
                 await conn.all("SELECT player_id, ai FROM match_seats WHERE match_id = ? ORDER BY seat", (mid,))]
        actions = await read_actions(conn, mid)
        settings, legacy = engine_settings(json.loads(stored_settings))
        try:
            table = Table.replay(variant, seed, settings, [json.loads(a.action) for a in actions],
                                 players=legacy or players_for(seats))
            out[mid] = table.state_hash()
        except Exception as e:  # a match the engine cannot replay any more: compared as such on both sides
            out[mid] = f"error: {type(e).__name__}: {e}"
        stored = next((a.state_hash for a in reversed(actions) if a.state_hash is not None), None)
        if stored is not None and stored != out[mid]:
            stale.append(mid)
    return out, stale


@dataclass
class _Checks:
    """What the verification compares, read from one database."""

    counts: dict[str, int]
    ledger: dict[int, tuple[int, ...]]
    replays: dict[int, str]
    stale: list[int]


async def _checks(conn: Connection) -> _Checks:
    replays, stale = await _replays(conn)
    return _Checks(await _counts(conn), await _ledger_sums(conn), replays, stale)


async def copy_database(source: str | Path, destination: str | Path, *, force: bool = False,
                        progress: Callable[[str, int], Awaitable[None]] | None = None) -> CopyReport:
    """Copy every row of ``source`` into ``destination`` and verify it (see the module's docstring). Raises
    ``StoreError('copy_not_empty')`` when the destination holds data and ``force`` is not given,
    ``StoreError('copy_no_source')`` when a source file does not exist (nothing is created), and any error of
    opening either end with :attr:`StoreError.end` set to ``"source"`` or ``"destination"``. A failure while copying
    is ``StoreError('copy_failed')`` (the destination's transaction rolled back: it holds what it held), one while
    verifying ``StoreError('copy_unverified')`` (the copy is written). ``progress(table, rows)`` is awaited after each
    page written (the table and its rows so far; tests write to a live source meanwhile)."""
    src_kind, src_target = _parse(source, "source")
    dst_kind, dst_target = _parse(destination, "destination")
    if src_kind == dst_kind and _same(src_target, dst_target):
        raise StoreError("copy_same", path=shown(src_target))
    with tempfile.TemporaryDirectory(prefix="mjbot-copy-") as tmp:
        opened = source
        if src_kind == "sqlite":
            assert isinstance(src_target, Path)
            opened = _snapshot(src_target, Path(tmp) / "source.sqlite3")
        src = await _open(opened, "source")
        try:
            dst = await _open(destination, "destination")
            try:
                return await _copy(src, dst, force=force, source_name=shown(src_target), progress=progress)
            except StoreError:
                raise
            except Exception as e:  # (a database's own error reading the source, say): one line, not a traceback
                raise StoreError("copy_failed", error=_said(e)) from e
            finally:
                await dst.close()
        finally:
            await src.close()


def _same(a: Path | str, b: Path | str) -> bool:
    if isinstance(a, Path) and isinstance(b, Path):
        return a.resolve() == b.resolve()
    return shown(a) == shown(b)


def _snapshot(path: Path, to: Path) -> Path:
    """A copy of the SQLite database at ``path``, read without writing it (``mode=ro``: no migration, no probe, the
    file's bytes untouched), which the copy then opens and migrates as the bot would: the source stays as it was,
    a fallback the previous mjbot still opens."""
    with _at("source"):
        if not path.exists():
            raise StoreError("copy_no_source", path=shown(path))
        if path.is_dir():
            raise StoreError("db_is_directory", path=shown(path))
        try:
            with contextlib.closing(sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=5)) as conn, \
                    contextlib.closing(sqlite3.connect(to)) as out:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
                conn.backup(out)
        except sqlite3.DatabaseError as e:
            text = str(e)
            if "not a database" in text:
                raise StoreError("db_not_database", path=shown(path)) from None
            if "locked" in text or "busy" in text:
                raise StoreError("db_locked", path=shown(path), seconds=5) from None
            raise StoreError("db_cannot_open", path=shown(path), error=text) from None
    return to


@contextlib.contextmanager
def _at(end: str) -> Iterator[None]:
    """A :class:`StoreError` raised within concerns ``end`` ("source" or "destination"): ``mjbot db copy`` says so."""
    try:
        yield
    except StoreError as e:
        e.end = e.end or end
        raise


def _parse(target: str | Path, end: str) -> tuple[str, Path | str]:
    with _at(end):
        return parse_target(target)


async def _open(target: str | Path, end: str) -> Store:
    with _at(end):  # no limit on a statement: a whole table may be read or deleted in one
        return await Store.open(target, timeout=math.inf)


async def _copy(src: Store, dst: Store, *, force: bool, source_name: str = "",
                progress: Callable[[str, int], Awaitable[None]] | None = None) -> CopyReport:
    report = CopyReport(source_name or shown(src.path), shown(dst.path))
    # the whole source in one snapshot, from the first read to the verification's: a bot writing it meanwhile (a
    # backup of a live PostgreSQL database) changes nothing of what is read, so the copy is of one moment
    async with src.transaction(write=False) as conn:
        found = await _tables(conn, src.dialect)
        if found - set(NOT_COPIED) != set(TABLES):
            raise StoreError("copy_unknown_tables", tables=", ".join(sorted((found - set(NOT_COPIED)) ^ set(TABLES))))
        columns = {t: await _columns(conn, src.dialect, t) for t in TABLES}
        keys = {t: await _key(conn, src.dialect, t) for t in TABLES}
        async with dst.transaction(write=False) as d:
            before = await _counts(d)
        if any(before.values()) and not force:
            raise StoreError("copy_not_empty", path=report.destination,
                             tables=", ".join(t for t, n in before.items() if n))
        try:
            async with dst.transaction() as out:
                for table in (*reversed(TABLES), *NOT_COPIED):
                    await out.execute(f"DELETE FROM {table}")
                for table in TABLES:
                    cols = columns[table]
                    insert = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
                    report.rows[table] = 0
                    async for page in _pages(conn, table, cols, keys[table]):
                        await out.executemany(insert, page)
                        report.rows[table] += len(page)
                        if progress is not None:
                            await progress(table, report.rows[table])
                if dst.dialect == "postgresql":
                    for table in ID_TABLES:
                        await out.one(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                                      f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)")
        except StoreError:
            raise
        except Exception as e:
            raise StoreError("copy_failed", error=_said(e)) from e
        try:
            a = await _checks(conn)
        except Exception as e:
            raise StoreError("copy_unverified", error=_said(e)) from e
    # verification, the destination read back
    try:
        async with dst.transaction(write=False) as d:
            b = await _checks(d)
    except Exception as e:
        raise StoreError("copy_unverified", error=_said(e)) from e
    report.count_mismatches = [f"{t} ({a.counts[t]} / {b.counts[t]})" for t in TABLES if a.counts[t] != b.counts[t]]
    report.servers = len(a.ledger)
    report.ledger_mismatches = sorted(g for g in set(a.ledger) | set(b.ledger) if a.ledger.get(g) != b.ledger.get(g))
    report.stale_in_source = a.stale
    report.matches_replayed = len(b.replays)
    report.replay_mismatches = sorted(m for m in set(a.replays) | set(b.replays)
                                      if a.replays.get(m) != b.replays.get(m))
    return report


def _said(e: BaseException) -> str:
    """An error in one line: its kind and its first line."""
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0]}" if text else type(e).__name__


def copy_main(source: str, destination: str, *, force: bool = False) -> int:
    """``mjbot db copy``: the report's lines on stdout; 0 when verified, 1 when the copy differs; 2 (a setting to
    fix, as ``mjbot check``) with one line when refused (a destination with data, a database that cannot be used) or
    when the copy failed on the way (a database's error: the destination left as it was, or not verified)."""
    import asyncio
    import sys

    from .paths import db_target

    try:
        report = asyncio.run(copy_database(db_target(source), db_target(destination), force=force))
    except StoreError as e:
        end = f"the {e.end} ({'first' if e.end == 'source' else 'second'} path): " if e.end else ""
        print(f"mjbot: {end}{e.message('en')}", file=sys.stderr)
        return 2
    for line in report.lines():
        print(line)
    return 0 if report.ok else 1
