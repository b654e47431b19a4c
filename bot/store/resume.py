"""Rebuilding unfinished tables after a restart or a crash."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from .models import UnfinishedGame


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


async def resume_all(store: Any, rebuild: Rebuild, at: datetime | None = None) -> ResumeReport:
    """Rebuild every unfinished game with ``rebuild(game)`` (sync or async; typically
    ``Table.replay(game.variant, game.seed, game.settings, [Action.from_json(a) for a in game.action_json()])``)
    and compare its ``state_hash()`` with the stored one.

    A game whose rebuild raises or whose hash differs is closed with :meth:`Store.abort_match` (status
    ``aborted`` with the reason; the ledger is not touched) and listed in ``report.aborted``; the others are in
    ``report.resumed`` with the rebuilt table, ready to continue.
    """
    report = ResumeReport()
    for game in await store.unfinished_games():
        try:
            table = rebuild(game)
            if inspect.isawaitable(table):
                table = await table
            got = table.state_hash()
        except Exception as exc:  # a game that cannot be rebuilt must not stop the others
            reason = f"replay failed: {type(exc).__name__}: {exc}"
        else:
            if game.state_hash is None or got == game.state_hash:
                report.resumed.append(Resumed(game, table, checked=game.state_hash is not None))
                continue
            where = f"after action {game.hash_seq}" if game.hash_seq is not None else "at the start"
            reason = f"state hash mismatch {where}: stored {game.state_hash}, replay gives {got}"
        await store.abort_match(game.match_id, reason[:500], at)
        report.aborted.append(Aborted(game, reason))
    return report
