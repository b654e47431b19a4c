"""``mjbot db copy SRC DST``: a whole database copied between backends (SQLite -> PostgreSQL and back), verified.

The destination is opened as the bot opens it (created and migrated to this mjbot's schema); an SQLite source is
read without a write (a snapshot of it is migrated and copied: the file stays as it was), a PostgreSQL source is
opened as the bot opens it. A source file that does not exist is refused, not created. The destination must hold
no data (refused otherwise, unless ``force``: then its rows are deleted first, in the same transaction as the copy).
Every table is copied in one transaction on the destination, in an order its foreign keys accept; PostgreSQL's id
sequences are moved past the copied ids. Then the copy is verified:

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
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from engine.table import Table

from .backend import Connection
from .errors import StoreError
from .paths import parse_target, shown
from .store import Store
from .tables import engine_settings, players_for

#: every table of the schema, parents before children (the order rows can be inserted in)
TABLES = (
    "players", "guild_settings", "settings_audit", "matches", "match_seats", "match_meta", "match_votes", "hands",
    "actions", "ledger", "board_totals", "board_days", "group_settings", "seasons", "corrections",
    "correction_rows", "memory_settings", "records", "record_seats", "lobbies",
)
#: tables of passing state, not copied (the destination's are emptied): clicks routed between running processes
#: (docs/sharding.md), which mean nothing once the processes are stopped for the copy
NOT_COPIED = ("routed_clicks",)
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


async def _counts(store: Store) -> dict[str, int]:
    async with store.transaction(write=False) as conn:
        return {t: int((await conn.all(f"SELECT COUNT(*) FROM {t}"))[0][0]) for t in TABLES}


async def _ledger_sums(store: Store) -> dict[int, tuple[int, ...]]:
    async with store.transaction(write=False) as conn:
        rows = await conn.all("SELECT guild_id, COUNT(*), SUM(amount), SUM(stack_amount), SUM(jiao_amount) "
                              "FROM ledger GROUP BY guild_id")
    return {int(r[0]): tuple(int(x or 0) for x in r[1:]) for r in rows}


async def _replays(store: Store) -> tuple[dict[int, str], list[int]]:
    """Each match's replayed state hash (or its replay error), and the matches whose replay differs from the last
    state hash they stored."""
    out: dict[int, str] = {}
    stale: list[int] = []
    async with store.transaction(write=False) as conn:
        ids = [int(r[0]) for r in await conn.all("SELECT DISTINCT match_id FROM actions ORDER BY match_id")]
    for mid in ids:
        match = await store.match(mid)
        actions = await store.actions(mid)
        settings, legacy = engine_settings(match.settings)
        try:
            table = Table.replay(match.variant, match.seed, settings, [json.loads(a.action) for a in actions],
                                 players=legacy or players_for(match.seats))
            out[mid] = table.state_hash()
        except Exception as e:  # a match the engine cannot replay any more: compared as such on both sides
            out[mid] = f"error: {type(e).__name__}: {e}"
        stored = next((a.state_hash for a in reversed(actions) if a.state_hash is not None), None)
        if stored is not None and stored != out[mid]:
            stale.append(mid)
    return out, stale


async def copy_database(source: str | Path, destination: str | Path, *, force: bool = False) -> CopyReport:
    """Copy every row of ``source`` into ``destination`` and verify it (see the module's docstring). Raises
    ``StoreError('copy_not_empty')`` when the destination holds data and ``force`` is not given,
    ``StoreError('copy_no_source')`` when a source file does not exist (nothing is created), and any error of
    opening either end with :attr:`StoreError.end` set to ``"source"`` or ``"destination"``."""
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
                return await _copy(src, dst, force=force, source_name=shown(src_target))
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


async def _copy(src: Store, dst: Store, *, force: bool, source_name: str = "") -> CopyReport:
    report = CopyReport(source_name or shown(src.path), shown(dst.path))
    async with src.transaction(write=False) as conn:
        found = await _tables(conn, src.dialect)
        columns = {t: await _columns(conn, src.dialect, t) for t in TABLES}
    if found - set(NOT_COPIED) != set(TABLES):
        raise StoreError("copy_unknown_tables", tables=", ".join(sorted((found - set(NOT_COPIED)) ^ set(TABLES))))
    before = await _counts(dst)
    if any(before.values()) and not force:
        raise StoreError("copy_not_empty", path=report.destination,
                         tables=", ".join(t for t, n in before.items() if n))
    async with dst.transaction() as out:
        for table in (*reversed(TABLES), *NOT_COPIED):
            await out.execute(f"DELETE FROM {table}")
        for table in TABLES:
            cols = columns[table]
            insert = f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})"
            offset = 0
            while True:
                async with src.transaction(write=False) as conn:  # every column: a total order of the rows
                    rows = await conn.all(f"SELECT {', '.join(cols)} FROM {table} ORDER BY "
                                          f"{', '.join(str(i + 1) for i in range(len(cols)))} LIMIT ? OFFSET ?",
                                          (BATCH, offset))
                if not rows:
                    break
                await out.executemany(insert, [tuple(r) for r in rows])
                offset += len(rows)
            report.rows[table] = offset
        if dst.dialect == "postgresql":
            for table in ID_TABLES:
                await out.one(f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                              f"COALESCE((SELECT MAX(id) FROM {table}), 0) + 1, false)")
    # verification, read back from both databases
    a, b = await _counts(src), await _counts(dst)
    report.count_mismatches = [f"{t} ({a[t]} / {b[t]})" for t in TABLES if a[t] != b[t]]
    la, lb = await _ledger_sums(src), await _ledger_sums(dst)
    report.servers = len(la)
    report.ledger_mismatches = sorted(g for g in set(la) | set(lb) if la.get(g) != lb.get(g))
    ra, report.stale_in_source = await _replays(src)
    rb, _ = await _replays(dst)
    report.matches_replayed = len(rb)
    report.replay_mismatches = sorted(m for m in set(ra) | set(rb) if ra.get(m) != rb.get(m))
    return report


def copy_main(source: str, destination: str, *, force: bool = False) -> int:
    """``mjbot db copy``: the report's lines on stdout; 0 when verified, 1 when the copy differs; 2 (a setting to
    fix, as ``mjbot check``) with one line when refused: a destination with data, a database that cannot be used."""
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
