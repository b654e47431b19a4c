"""Read a database as a separate, read-only connection: what is really stored, not what the bot's own connection
would say. SQLite (a file) or PostgreSQL (a URL), with ``?`` placeholders for both.

    sql(h, "SELECT ... WHERE id = ?", (x,))      # the rows, as tuples, of the harness's database
    dump(h)                                      # the whole database as text: equal dumps = nothing changed
    with connect(target) as db:                  # a store's ``path``: a file or a URL
        db.execute("SELECT ...").fetchall()
"""

from __future__ import annotations

import asyncio
import sqlite3
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any


def is_postgres(target: str | Path) -> bool:
    return isinstance(target, str) and target.startswith(("postgresql://", "postgres://"))


class _Rows(list):  # type: ignore[type-arg]
    def fetchall(self) -> list[tuple]:
        return list(self)

    def fetchone(self) -> tuple | None:
        return self[0] if self else None


class PgReader:
    """A read-only PostgreSQL connection usable from synchronous code (even inside a running event loop): asyncpg
    on a thread of its own."""

    def __init__(self, url: str) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()
        import asyncpg

        self.conn = self._run(asyncpg.connect(url))
        self._run(self.conn.execute("SET default_transaction_read_only = on"))

    def _run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=120)

    def execute(self, query: str, params: Sequence[Any] = ()) -> _Rows:
        from bot.store.postgres import numbered

        return _Rows(tuple(r) for r in self._run(self.conn.fetch(numbered(query), *params)))

    def tables(self) -> list[str]:
        return [r[0] for r in self.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public' "
                                           "ORDER BY tablename")]

    def close(self) -> None:
        try:
            self._run(self.conn.close())
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)
            self.loop.close()

    def __enter__(self) -> PgReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SqliteReader:
    def __init__(self, path: str | Path) -> None:
        self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)

    def execute(self, query: str, params: Sequence[Any] = ()) -> _Rows:
        return _Rows(self.db.execute(query, params).fetchall())

    def dump(self) -> Iterator[str]:
        return self.db.iterdump()

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> SqliteReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def connect(target: str | Path) -> PgReader | SqliteReader:
    return PgReader(str(target)) if is_postgres(target) else SqliteReader(target)


def sql(h: Any, query: str, params: tuple = ()) -> list[tuple]:
    """The rows of ``query`` on the harness's database."""
    with connect(h.bot.store.path) as db:
        return db.execute(query, params).fetchall()


def dump(h: Any) -> list[str]:
    """The whole database as text: equal dumps before and after a refused command mean nothing changed."""
    return dump_target(h.bot.store.path)


def dump_target(target: str | Path) -> list[str]:
    with connect(target) as db:
        if isinstance(db, SqliteReader):
            return list(db.dump())
        out = []
        for table in db.tables():
            out += [f"{table}: {r!r}" for r in sorted(db.execute(f"SELECT * FROM {table}"), key=repr)]
        return out
