"""Faults of the disk for the real store: an aiosqlite connection that fails the statements you name.

    flaky = FlakyConnection.install(bot.store)              # wraps store._conn; everything else passes through
    flaky.fail("INSERT INTO actions", times=2, skip=1)      # the 2nd and 3rd matching statements raise
    flaky.fail("FROM matches WHERE status", seconds=2.0)    # every matching statement for 2 s raises
    flaky.hits                                               # how many statements were failed

A failing statement raises ``sqlite3.OperationalError('database is locked')`` as SQLite does when another process
holds the write lock; the store's transaction rolls back as it would.
"""

from __future__ import annotations

import sqlite3
import time
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


class _Raising:
    """An aiosqlite result that fails, awaited or entered."""

    def __init__(self, error: BaseException) -> None:
        self.error = error

    def __await__(self) -> Any:
        raise self.error
        yield  # pragma: no cover - makes this a generator

    async def __aenter__(self) -> Any:
        raise self.error

    async def __aexit__(self, *exc: object) -> None:
        return None


class FlakyConnection:
    """Stands in for the store's aiosqlite connection and fails the statements a test names."""

    def __init__(self, conn: Any) -> None:
        self._conn = conn
        self.rules: list[Rule] = []
        self.hits = 0

    @classmethod
    def install(cls, store: Any) -> FlakyConnection:
        flaky = cls(store._conn)
        store._conn = flaky
        return flaky

    def fail(self, text: str, *, times: int | None = 1, skip: int = 0, seconds: float | None = None,
             error: str = "database is locked") -> Rule:
        rule = Rule(text, None if seconds is not None else times, skip,
                    time.monotonic() + seconds if seconds is not None else None, error)
        self.rules.append(rule)
        return rule

    def _check(self, sql: str) -> None:
        for r in self.rules:
            if r.hit(sql):
                self.hits += 1
                raise sqlite3.OperationalError(r.error)

    def execute(self, sql: str, params: Any = ()) -> Any:
        """Like aiosqlite's: the result may be awaited or used with ``async with``."""
        try:
            self._check(sql)
        except sqlite3.OperationalError as e:
            return _Raising(e)
        return self._conn.execute(sql, params)

    async def execute_fetchall(self, sql: str, params: Any = ()) -> Any:
        self._check(sql)
        return await self._conn.execute_fetchall(sql, params)

    async def executemany(self, sql: str, params: Any) -> Any:
        self._check(sql)
        return await self._conn.executemany(sql, params)

    async def commit(self) -> None:
        self._check("COMMIT")
        await self._conn.commit()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._conn, name)
