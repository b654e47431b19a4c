"""The store: one object the bot holds, its methods grouped by topic over one transaction API.

- :mod:`bot.store.database`: the backend, the lock, ``transaction()`` and ``completes`` (the front door);
- :mod:`bot.store.guilds`: server settings, their audit, players;
- :mod:`bot.store.games`: writing matches, hands, actions and the ledger;
- :mod:`bot.store.matches`: reading them back, the unfinished games to resume.

The other topics (:mod:`bot.store.group`, :mod:`~bot.store.boards`, :mod:`~bot.store.records`,
:mod:`~bot.store.history`, :mod:`~bot.store.lobbies`, :mod:`~bot.store.table_admin`) are functions taking the
store, through the same ``transaction()``.
"""

from __future__ import annotations

import os
from pathlib import Path

from .backend import Backend
from .games import GameTopic
from .guilds import GuildTopic
from .matches import MatchTopic
from .paths import parse_target
from .postgres import PostgresBackend
from .sqlite import SqliteBackend


async def open_backend(target: str | Path, *, migrations_dir: str | Path | None = None,
                       pool: int | None = None, timeout: float | None = None) -> Backend:
    """Open the database ``target`` names (see :func:`bot.store.paths.parse_target`), bring its schema up to date
    and check it can be used; :class:`~bot.store.errors.StoreError` naming it and the problem otherwise. ``pool``:
    PostgreSQL's most connections (default :data:`bot.store.postgres.DEFAULT_POOL`); SQLite has one. ``timeout``:
    PostgreSQL's longest statement (default :attr:`bot.store.postgres.Limits.statement`)."""
    kind, where = parse_target(target)
    if kind == "postgresql":
        return await PostgresBackend.open(str(where), migrations_dir=migrations_dir, pool=pool, timeout=timeout)
    return await SqliteBackend.open(Path(where), migrations_dir=migrations_dir)


class Store(GuildTopic, GameTopic, MatchTopic):
    """Settings, players, matches, hands, actions and the 子 ledger. Create with ``await Store.open(target)``."""

    @classmethod
    async def open(cls, path: str | os.PathLike[str], *, migrations_dir: str | os.PathLike[str] | None = None,
                   pool: int | None = None, timeout: float | None = None) -> Store:
        """Open the database ``path`` names (a file, ``sqlite:///...`` or ``postgresql://...``; see
        :func:`bot.store.paths.parse_target`): create it if needed, bring its schema up to date, and check that it
        can really be used (reads back sound, takes a write).

        A database that cannot be used raises :class:`~bot.store.StoreError` whose message names it and the
        problem, and leaves no connection behind. Migrations are loaded first, so a broken migration file is
        reported as itself. An unknown URL scheme is refused (``db_bad_url``). ``pool``: the most connections to
        PostgreSQL (``MJBOT_DB_POOL``; ignored for SQLite); ``timeout``: the longest statement on PostgreSQL
        (``MJBOT_DB_TIMEOUT``; ``math.inf``: none; ignored for SQLite).
        """
        target = path if isinstance(path, str) else Path(path)
        return cls(await open_backend(target, migrations_dir=Path(migrations_dir) if migrations_dir else None,
                                      pool=pool, timeout=timeout))

    async def __aenter__(self) -> Store:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()
