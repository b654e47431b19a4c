"""Faults of the database for the real store: the store's connection, wrapped so that the statements you name fail.

    flaky = FlakyConnection.install(bot.store)              # wraps every connection the store's backend lends
    flaky.fail("INSERT INTO actions", times=2, skip=1)      # the 2nd and 3rd matching statements raise
    flaky.fail("FROM matches WHERE status", seconds=2.0)    # every matching statement for 2 s raises
    flaky.lose_answer("INSERT INTO matches")                 # that transaction commits, then its COMMIT raises
    flaky.hits                                               # how many statements were failed
    flaky.statements                                         # how many statements were sent (COMMITs too)

A failing statement raises what the database says when another process holds the lock it needs: SQLite's
``sqlite3.OperationalError('database is locked')``, PostgreSQL's ``LockNotAvailableError`` (another ``error`` text:
SQLite's error with that text; PostgreSQL's I/O error for "disk I/O error"). The store's transaction rolls back as
it would. A lost answer (``lose_answer``) is a COMMIT that lands and then raises what a connection dropped while the
answer was on its way raises: PostgreSQL's ``ConnectionDoesNotExistError``, SQLite's "disk I/O error".
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass
class Rule:
    text: str
    times: int | None
    skip: int
    until: float | None
    error: str

    def hit(self, sql: str) -> bool:
        if self.text not in sql:
            return False
        if self.until is not None:
            return time.monotonic() < self.until
        if self.skip > 0:
            self.skip -= 1
            return False
        if self.times is not None and self.times > 0:
            self.times -= 1
            return True
        return False


def _error(dialect: str, text: str) -> Exception:
    if dialect == "postgresql":
        import asyncpg

        if "locked" in text:
            return asyncpg.exceptions.LockNotAvailableError(text)
        if "disk" in text or "I/O" in text:
            return asyncpg.exceptions.PostgresIOError(text)
        return asyncpg.exceptions.InternalServerError(text)
    return sqlite3.OperationalError(text)


def _lost(dialect: str) -> Exception:
    if dialect == "postgresql":
        import asyncpg

        return asyncpg.exceptions.ConnectionDoesNotExistError("connection was closed in the middle of operation")
    return sqlite3.OperationalError("disk I/O error")


class FlakyConnection:
    """Stands in for the store's connection (:class:`bot.store.backend.Connection`) and fails the statements a
    test names."""

    def __init__(self, conn: Any, dialect: str = "sqlite") -> None:
        self._conn = conn
        self.dialect = dialect
        self.rules: list[Rule] = []
        self.lost: list[Rule] = []  # a transaction running a matching statement commits, then its COMMIT raises
        self.hits = 0
        self.statements = 0
        self._losing: Rule | None = None  # (a view's transaction) the lost answer it has coming

    @classmethod
    def install(cls, store: Any) -> FlakyConnection:
        """The rules, applied to every connection the store's backend lends from now on (SQLite's one connection,
        each of PostgreSQL's pool)."""
        flaky = cls(None, store.dialect)
        store.backend.wrap = flaky.over
        return flaky

    def over(self, conn: Any) -> FlakyConnection:
        """``conn`` with this object's rules (and its count of hits)."""
        view = FlakyConnection(conn, self.dialect)
        view.rules = self.rules
        view.lost = self.lost
        view._owner = self
        return view

    def fail(self, text: str, *, times: int | None = 1, skip: int = 0, seconds: float | None = None,
             error: str = "database is locked") -> Rule:
        rule = Rule(text, None if seconds is not None else times, skip,
                    time.monotonic() + seconds if seconds is not None else None, error)
        self.rules.append(rule)
        return rule

    def lose_answer(self, text: str, *, times: int = 1) -> Rule:
        """The next ``times`` transactions that run a statement containing ``text`` commit, and then their COMMIT
        raises as if the connection dropped while its answer was on its way."""
        rule = Rule(text, times, 0, None, "lost")
        self.lost.append(rule)
        return rule

    _owner: FlakyConnection | None = None

    def _check(self, sql: str) -> None:
        (self._owner or self).statements += 1
        if self._losing is None:
            self._losing = next((r for r in self.lost if r.hit(sql)), None)
        for r in self.rules:
            if r.hit(sql):
                (self._owner or self).hits += 1
                raise _error(self.dialect, r.error)

    async def execute(self, sql: str, params: Sequence[Any] = ()) -> int:
        self._check(sql)
        return await self._conn.execute(sql, params)

    async def executemany(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        self._check(sql)
        await self._conn.executemany(sql, rows)

    async def insert(self, sql: str, params: Sequence[Any] = ()) -> int:
        self._check(sql)
        return await self._conn.insert(sql, params)

    async def one(self, sql: str, params: Sequence[Any] = ()) -> Any:
        self._check(sql)
        return await self._conn.one(sql, params)

    async def all(self, sql: str, params: Sequence[Any] = ()) -> list[Any]:
        self._check(sql)
        return await self._conn.all(sql, params)

    _single = False  # SQLite: the transaction begun is one statement in autocommit (no COMMIT is sent)

    async def begin(self, write: bool, durable: bool, keyed: bool = False, single: bool = False) -> None:
        self._single = write and single and self.dialect == "sqlite"
        self._losing = None
        await self._conn.begin(write, durable, keyed, single)

    async def commit(self) -> None:
        if not self._single:
            self._check("COMMIT")
        await self._conn.commit()
        if self._losing is not None:
            self._losing = None
            (self._owner or self).hits += 1
            raise _lost(self.dialect)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)
