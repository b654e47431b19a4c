"""Which of the bot's Discord shards this process runs, and which tables are therefore its own.

Discord splits a bot's servers into ``shard_count`` shards: server ``g`` is on shard ``(g >> 22) % shard_count``.
``mjbot run --shard-ids 0-3 --shard-count 8`` (or ``MJBOT_SHARD_IDS`` / ``MJBOT_SHARD_COUNT``) runs shards 0 to 3 of
8 in this process with discord.py's ``AutoShardedBot``; without them one process runs every shard, Discord's
recommended count. The tables of a server belong to the process that runs its shard (docs/sharding.md).

>>> plan = parse_shards("0-1,3", "4")
>>> plan.ids, plan.count, plan.describe()
((0, 1, 3), 4, 'shards 0, 1, 3 of 4')
>>> plan.shard_of(1_200_000_000_000_000_100), plan.owns_guild(1_200_000_000_000_000_100)
(1, True)
>>> ShardPlan().describe(), ShardPlan().lease_keys()
("every shard in this process (Discord's recommended count)", (1, (0,)))
>>> parse_shards("0-2", None)
Traceback (most recent call last):
...
bot.shards.ShardError: --shard-ids needs --shard-count (how many shards the bot has in all)
>>> database_refusal(ShardPlan((0,), 2), "postgresql") is None, database_refusal(ShardPlan((0, 1), 2), "sqlite")
(True, None)
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

IDS_FLAG, COUNT_FLAG = "--shard-ids", "--shard-count"
IDS_ENV, COUNT_ENV = "MJBOT_SHARD_IDS", "MJBOT_SHARD_COUNT"
#: the multiplier of a lease's key in PostgreSQL (``count * MAX_SHARDS + shard``, ``bot/cluster_lease.py``): fixed,
#: so that processes of every version take the same locks
MAX_SHARDS = 65536
#: the most shards a bot may have: Discord's own limit is far below it, a typo such as 1e9 shards is refused rather
#: than launched, and a lease's key (``count * MAX_SHARDS + shard``) stays within PostgreSQL's 32-bit lock key
MAX_COUNT = (2**31 - 1) // MAX_SHARDS

_RANGE = re.compile(r"^(\d+)(?:-(\d+))?$")


class ShardError(ValueError):
    """A shard setting the bot cannot use; the message says which and why (``bot.config`` raises it as a
    ``ConfigError``: exit 2)."""


def shard_of(guild_id: int, count: int) -> int:
    """Discord's shard of a server: ``(guild_id >> 22) % count``."""
    return (guild_id >> 22) % count


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """``ids`` the shards this process runs (None: every one), ``count`` the bot's shards in all (None: Discord's
    recommended count, every shard in this process)."""

    ids: tuple[int, ...] | None = None
    count: int | None = None

    @property
    def everything(self) -> bool:
        """Whether this process runs every shard of the bot (so owns every table)."""
        return self.ids is None or self.count is None or set(self.ids) == set(range(self.count))

    def lease_keys(self) -> tuple[int, tuple[int, ...]]:
        """(count, shards) this process leases in PostgreSQL: without a count, one lease (1, (0,)) covers every
        server, so that two such processes on one database never both play."""
        if self.count is None:
            return 1, (0,)
        return self.count, self.ids if self.ids is not None else tuple(range(self.count))

    def shard_of(self, guild_id: int) -> int:
        count, _ = self.lease_keys()
        return shard_of(guild_id, count)

    def owns_guild(self, guild_id: int) -> bool:
        """Whether the server's shard is one of this process's (before any lease: what it is configured for)."""
        count, ids = self.lease_keys()
        return shard_of(guild_id, count) in ids

    def describe(self) -> str:
        if self.count is None:
            return "every shard in this process (Discord's recommended count)"
        if self.ids is None or self.everything:
            return f"all {self.count} shards in this process"
        return f"shard{'s' if len(self.ids) > 1 else ''} {', '.join(map(str, self.ids))} of {self.count}"

    def discord_options(self) -> dict[str, Any]:
        """The ``AutoShardedBot`` keyword arguments."""
        out: dict[str, Any] = {}
        if self.count is not None:
            out["shard_count"] = self.count
        if self.ids is not None:
            out["shard_ids"] = list(self.ids)
        return out


def _parse_ids(text: str, name: str) -> tuple[int, ...]:
    ids: set[int] = set()
    for part in text.replace(" ", "").split(","):
        m = _RANGE.match(part) if part.isascii() else None
        if m is None:
            raise ShardError(f"{name} must be shard numbers such as 0-3 or 0,2,5 (ranges and commas), not {text!r}")
        low = int(m[1])
        high = int(m[2]) if m[2] is not None else low
        if high < low or high - low >= MAX_SHARDS:
            raise ShardError(f"{name}: the range {part} is backwards or too long")
        ids.update(range(low, high + 1))
    return tuple(sorted(ids))


def parse_shards(ids_text: str | None, count_text: str | None, *, ids_name: str = IDS_FLAG,
                 count_name: str = COUNT_FLAG) -> ShardPlan:
    """The plan for ``--shard-ids`` / ``--shard-count`` (or their variables; the names are the ones messages use).
    Empty or None means not given. :class:`ShardError` with one clear line for a value the bot cannot use."""
    ids_text = (ids_text or "").strip() or None
    count_text = (count_text or "").strip() or None
    count = None
    if count_text is not None:
        if not (count_text.isascii() and count_text.isdigit()) or not 1 <= int(count_text) <= MAX_COUNT:
            raise ShardError(f"{count_name} must be a whole number from 1 to {MAX_COUNT}, not {count_text!r}")
        count = int(count_text)
    if ids_text is None:
        return ShardPlan(None, count)
    ids = _parse_ids(ids_text, ids_name)
    if count is None:
        raise ShardError(f"{ids_name} needs {count_name} (how many shards the bot has in all)")
    outside = [i for i in ids if i >= count]
    if outside:
        raise ShardError(f"{ids_name}: shard {outside[0]} does not exist with {count_name} {count} "
                         f"(shards are numbered 0 to {count - 1})")
    return ShardPlan(ids, count)


def database_refusal(plan: ShardPlan, backend: str) -> str | None:
    """Why this plan cannot run on the ``backend`` (``sqlite`` or ``postgresql``), or None. A subset of the
    shards means other processes run the rest: they must share one database, which SQLite (one file, one
    process) cannot be."""
    if backend == "sqlite" and not plan.everything:
        return (f"this process runs {plan.describe()}: the other shards run in other processes, which must share "
                f"the database, and SQLite is one file for one process; use PostgreSQL "
                f"(MJBOT_DB=postgresql://...) or run every shard here (leave out {IDS_FLAG})")
    return None


def shard_problem(config: Any) -> str | None:
    """Why the configured shards cannot run on the configured database (a subset of the shards on SQLite), or
    None (``mjbot run`` and ``mjbot check``)."""
    from .store.paths import parse_target

    try:
        kind, _ = parse_target(config.db_path)
    except Exception:  # an unusable MJBOT_DB is reported by the database check, in its own words
        return None
    return database_refusal(config.shard_plan, kind)
