"""Read the booted bot's database as a separate, read-only SQLite connection: what is really on disk, not what the
bot's own connection would say."""

from __future__ import annotations

import sqlite3
from typing import Any


def _connect(h: Any) -> sqlite3.Connection:
    return sqlite3.connect(f"file:{h.bot.store.path}?mode=ro", uri=True)


def sql(h: Any, query: str, params: tuple = ()) -> list[tuple]:
    """The rows of ``query`` on the harness's database."""
    db = _connect(h)
    try:
        return db.execute(query, params).fetchall()
    finally:
        db.close()


def dump(h: Any) -> list[str]:
    """The whole database as SQL text: equal dumps before and after a refused command mean nothing changed."""
    db = _connect(h)
    try:
        return list(db.iterdump())
    finally:
        db.close()
