"""Rebuilding unfinished tables after a restart or a crash.

A store that fails for a while (``database is locked`` for a few seconds, a disk hiccup) is waited for with
backoff: a match is aborted only when its replay really does not give the stored state.
"""

from __future__ import annotations

import asyncio
import functools
import inspect
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from .failures import TRANSIENT_ERRORS
from .models import Shards, UnfinishedGame

log = logging.getLogger(__name__)

#: Errors that say "try again later" rather than "this game is wrong".
TRANSIENT: tuple[type[BaseException], ...] = TRANSIENT_ERRORS
#: Seconds between tries of a store call that failed transiently (the last delay repeats).
BACKOFF: tuple[float, ...] = (0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0)


async def retrying(call: Callable[[], Awaitable[Any]], what: str, backoff: tuple[float, ...] | None = None,
                   tries: int | None = None) -> Any:
    """``await call()``, retried with backoff while it fails with a :data:`TRANSIENT` error (forever, or
    ``tries`` times); other errors propagate at once."""
    delays = backoff or BACKOFF
    n = 0
    while True:
        try:
            return await call()
        except TRANSIENT as exc:
            if tries is not None and n + 1 >= tries:
                raise
            delay = delays[min(n, len(delays) - 1)]
            n += 1
            log.warning("%s failed (%s); retrying in %.2f s (try %d)", what, exc, delay, n + 1)
            await asyncio.sleep(delay)


class HasStateHash(Protocol):
    def state_hash(self) -> str: ...


Rebuild = Callable[[UnfinishedGame], "HasStateHash | Awaitable[HasStateHash]"]


@dataclass(frozen=True, slots=True)
class Resumed:
    game: UnfinishedGame
    table: Any  # what ``rebuild`` returned
    checked: bool  # False when no state hash had been stored to check against


@dataclass(frozen=True, slots=True)
class Aborted:
    game: UnfinishedGame
    reason: str


@dataclass(slots=True)
class ResumeReport:
    resumed: list[Resumed] = field(default_factory=list)
    aborted: list[Aborted] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.aborted


def hash_mismatch(game: UnfinishedGame, table: Any) -> str | None:
    """Why ``table``, rebuilt from ``game``, is not the game as stored (its state hash differs from the last one
    stored), or None when it is (or nothing was stored to check against)."""
    got = table.state_hash()
    if game.state_hash is None or got == game.state_hash:
        return None
    where = f"after action {game.hash_seq}" if game.hash_seq is not None else "at the start"
    return f"state hash mismatch {where}: stored {game.state_hash}, replay gives {got}"


async def resume_all(store: Any, rebuild: Rebuild, at: datetime | None = None, *,
                     backoff: tuple[float, ...] | None = None,
                     keep: Callable[[UnfinishedGame], bool] | None = None,
                     shards: Shards | None = None) -> ResumeReport:
    """Rebuild every unfinished game with ``rebuild(game)`` (sync or async; typically
    ``Table.replay(game.variant, game.seed, game.settings, [Action.from_json(a) for a in game.action_json()])``)
    and compare its ``state_hash()`` with the stored one.

    A game whose rebuild raises or whose hash differs is closed with :meth:`Store.abort_match` (status
    ``aborted`` with the reason; the ledger is not touched) and listed in ``report.aborted``; the others are in
    ``report.resumed`` with the rebuilt table, ready to continue. Store calls failing with a :data:`TRANSIENT`
    error are retried with ``backoff`` until they succeed. ``keep(game)`` False leaves a game alone (not rebuilt,
    not reported): a table that plays here already. ``shards``: only the games of those shards' servers are read
    (the store filters them: the other processes' games are neither read nor rebuilt here).
    """
    report = ResumeReport()
    read = store.unfinished_games if shards is None else functools.partial(store.unfinished_games, shards)
    games = await retrying(read, "reading unfinished games", backoff)
    for game in games:
        if keep is not None and not keep(game):
            continue
        # a replay runs without a pause (tens of ms for a long game): the loop's other tasks run between two, the
        # lease's beat among them (hundreds of tables replayed at a stretch read to a standby as a hung process)
        await asyncio.sleep(0)
        try:
            table = rebuild(game)
            if inspect.isawaitable(table):
                table = await table
            mismatch = hash_mismatch(game, table)
        except Exception as exc:  # a game that cannot be rebuilt must not stop the others
            reason = f"replay failed: {type(exc).__name__}: {exc}"
        else:
            if mismatch is None:
                report.resumed.append(Resumed(game, table, checked=game.state_hash is not None))
                continue
            reason = mismatch
        await retrying(functools.partial(store.abort_match, game.match_id, reason[:500], at),
                       f"aborting match {game.match_id}", backoff)
        report.aborted.append(Aborted(game, reason))
    return report
