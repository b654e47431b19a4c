"""Numbered ``.sql`` migrations in ``bot/migrations``, tracked with the schema version.

The migrations are package data of ``bot`` read through ``importlib.resources`` (a checkout, an editable install
and an installed wheel alike).

``0001_initial.sql``, ``0002_something.sql`` ...: migration N brings the schema from version N-1 to N. Each is
applied in its own transaction together with the version bump, so a crash or an error leaves the database at the
previous version with nothing half-applied.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

import aiosqlite

from . import dialect
from .errors import StoreError

MIGRATIONS_DIR: Traversable = resources.files("bot").joinpath("migrations")
_NAME = re.compile(r"^(\d{4})_[A-Za-z0-9_]+\.sql$")


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    sql: str


def load_migrations(directory: Traversable | str | Path | None = None) -> list[Migration]:
    """The migrations in ``directory`` (default: the shipped ones), in order; their numbers must run 1, 2, 3 ...
    without gaps."""
    if directory is None:
        directory = MIGRATIONS_DIR
    elif isinstance(directory, str):
        directory = Path(directory)
    found: list[Migration] = []
    for path in sorted((p for p in directory.iterdir() if p.name.endswith(".sql")), key=lambda p: p.name):
        m = _NAME.match(path.name)
        if not m:
            raise StoreError("bad_migration_name", name=path.name)
        found.append(Migration(int(m.group(1)), path.name, path.read_text(encoding="utf-8")))
    for expected, mig in enumerate(found, start=1):
        if mig.version != expected:
            raise StoreError("migration_gap", name=mig.name, expected=expected)
    return found


async def migrate(conn: aiosqlite.Connection, migrations: list[Migration], upto: int | None = None) -> int:
    """Apply every migration above the database's version (up to ``upto``); returns the new version.

    A database newer than the code (a version above the last migration) is refused rather than guessed at.
    """
    latest = migrations[-1].version if migrations else 0
    target = latest if upto is None else upto
    current = await dialect.schema_version(conn)
    if current > latest:
        raise StoreError("schema_too_new", found=current, known=latest)
    for mig in migrations:
        if mig.version <= current or mig.version > target:
            continue
        script = f"{dialect.BEGIN_WRITE};\n{mig.sql}\n;{dialect.set_schema_version_sql(mig.version)};\nCOMMIT;"
        try:
            await conn.executescript(script)
        except Exception as exc:
            if conn.in_transaction:
                await conn.rollback()
            raise StoreError("migration_failed", name=mig.name, error=str(exc)) from exc
        current = mig.version
    return current
