"""Numbers that come from outside (a slash option, a custom id, a replay code, autocomplete text) and name a row of
the database: checked here, at the edge, before any query.

SQLite stores integers of 64 bits: a larger number (a forged custom id, a raw payload, a typed replay code for a
match past 2^63) made the driver raise ``OverflowError``, which reached the player as the generic apology with a
traceback in the log. A number outside ``1 .. SQL_INT_MAX`` names no row: the caller answers "no such hand /
player / record" as it does for any unknown id.

>>> db_id(7), db_id(0), db_id(2**63), db_id(2**63 - 1) == SQL_INT_MAX
(7, None, None, True)
>>> parse_id("12"), parse_id(" #12 "), parse_id("1" * 30), parse_id("-3"), parse_id("x")
(12, 12, None, None, None)
"""

from __future__ import annotations

from typing import Any

from bot.errors import UserError

#: The largest integer the database stores (SQLite's INTEGER is a signed 64-bit number).
SQL_INT_MAX = 2**63 - 1


def db_id(value: Any, *, low: int = 1) -> int | None:
    """``value`` if it is an integer the database can hold as an id (``low`` .. SQL_INT_MAX), else None."""
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    return value if low <= value <= SQL_INT_MAX else None


def parse_id(text: str, *, low: int = 1) -> int | None:
    """An id typed or carried as text (``12``, ``#12``): None when it is not a number the database can hold."""
    s = str(text).strip().lstrip("#")
    if not s.isascii() or not s.isdigit() or len(s) > 19:
        return None
    return db_id(int(s), low=low)


def require_id(value: Any, key: str, *, low: int = 1, **params: Any) -> int:
    """``value`` as a database id, or a :class:`UserError` ``key`` (the caller's "no such ..." message)."""
    out = db_id(value, low=low)
    if out is None:
        raise UserError(key, **params)
    return out
