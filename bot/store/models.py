"""The plain records the store takes and returns. No database types leak out of the store."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, overload

# declared with the settings they hold (bot.settings, which imports nothing of the store); re-exported here
from bot.settings import SETTING_DEFAULTS as SETTING_DEFAULTS
from bot.settings import GuildSettings as GuildSettings
from bot.shards import shard_of
from engine.errors import EngineError
from engine.variants import get_variant

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)


def splits_jiao(variant: str) -> bool:
    """Whether the variant's ledger rows split each amount into a stack part and a 交 part (Wuhu), as the variant
    itself says (``Variant.splits_jiao``); a variant this version does not know splits nothing.

    >>> splits_jiao("wuhu"), splits_jiao("hefei"), splits_jiao("nowhere")
    (True, False, False)
    """
    try:
        return get_variant(variant).splits_jiao
    except EngineError:
        return False


def to_ms(at: datetime | None) -> int:
    """A timestamp as integer milliseconds since the epoch. ``None`` means now: the only place the store reads the
    clock. Naive datetimes are taken as UTC. Times are kept to the millisecond (sub-millisecond parts dropped).

    >>> to_ms(datetime(1970, 1, 1, 0, 0, 1, 999999, tzinfo=UTC))
    1999
    """
    if at is None:
        at = datetime.now(UTC)
    elif at.tzinfo is None:
        at = at.replace(tzinfo=UTC)
    return (at - _EPOCH) // _MS  # exact integer arithmetic, truncated to the millisecond


@overload
def from_ms(ms: int) -> datetime: ...
@overload
def from_ms(ms: None) -> None: ...
@overload
def from_ms(ms: int | None) -> datetime | None: ...
def from_ms(ms: int | None) -> datetime | None:
    """A stored millisecond time as a UTC datetime; a NULL column stays None."""
    if ms is None:
        return None
    return _EPOCH + timedelta(milliseconds=int(ms))


def period_start(period: str, now: datetime) -> datetime | None:
    """Start of the leaderboard period containing ``now``: ``"all"`` -> None, ``"month"`` -> the first of the month,
    ``"week"`` -> Monday 00:00, in ``now``'s time zone (pass an aware datetime in the server's zone).

    >>> period_start("week", datetime(2026, 11, 29, 15, 30, tzinfo=UTC)).isoformat()
    '2026-11-23T00:00:00+00:00'
    >>> period_start("month", datetime(2026, 11, 29, 15, 30, tzinfo=UTC)).isoformat()
    '2026-11-01T00:00:00+00:00'
    """
    if period == "all":
        return None
    midnight = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if period == "month":
        return midnight.replace(day=1)
    if period == "week":
        return midnight - timedelta(days=midnight.weekday())
    raise ValueError(f"unknown period {period!r} (all, month, week)")


@dataclass(frozen=True, slots=True)
class AuditEntry:
    guild_id: int
    user_id: int
    field: str
    old_value: Any
    new_value: Any
    changed_at: datetime


@dataclass(frozen=True, slots=True)
class SeatSpec:
    """Who sits in a seat when a match starts: a Discord user (id and display name) or an AI (its marker, e.g. the
    difficulty ``"normal"``)."""

    player_id: int | None = None
    display_name: str | None = None
    ai: str | None = None

    @classmethod
    def human(cls, player_id: int, display_name: str) -> SeatSpec:
        return cls(player_id=player_id, display_name=display_name)

    @classmethod
    def bot(cls, marker: str = "normal") -> SeatSpec:
        return cls(ai=marker)


@dataclass(frozen=True, slots=True)
class SeatTotals:
    seat: int
    player_id: int | None
    ai: str | None
    display_name: str | None
    total: int
    stack_total: int
    jiao_total: int


@dataclass(frozen=True, slots=True)
class LedgerRow:
    """One seat's result for one hand. ``amount`` is what the seat gained (negative: paid). In Wuhu
    ``amount = stack_amount + jiao_amount`` (the 底 stack and the separate 交 tally); other variants leave those 0.
    ``hand_value`` is the winning hand's value as the score card shows it (0 for the other seats)."""

    seat: int
    amount: int
    stack_amount: int = 0
    jiao_amount: int = 0
    won: bool = False
    self_draw: bool = False
    deal_in: bool = False
    drawn: bool = False
    hand_value: int = 0


@dataclass(frozen=True, slots=True)
class RecordedAction:
    seq: int
    hand_id: int | None
    action: str  # JSON text as recorded
    state_hash: str | None
    at: datetime


@dataclass(frozen=True, slots=True)
class HandInfo:
    hand_id: int
    match_id: int
    number: int
    seed: str
    wall_commitment: str | None
    status: str
    state_hash: str | None
    started_at: datetime
    ended_at: datetime | None


@dataclass(frozen=True, slots=True)
class MatchInfo:
    match_id: int
    guild_id: int
    channel_id: int
    variant: str
    settings: dict[str, Any]
    seed: str
    status: str
    start_hash: str | None
    final_hash: str | None
    reason: str | None
    started_at: datetime
    ended_at: datetime | None
    seats: tuple[SeatTotals, ...]


@dataclass(frozen=True, slots=True)
class UnfinishedGame:
    """Everything needed to rebuild an unfinished table: replay ``actions`` (in order) from ``seed`` with
    ``settings`` under ``variant``, then compare the table's state hash with ``state_hash`` (the hash stored after
    the last action that carried one, else the match's start hash; None = nothing to check against)."""

    match: MatchInfo
    hands: tuple[HandInfo, ...]
    actions: tuple[RecordedAction, ...]
    state_hash: str | None
    hash_seq: int | None  # the seq whose hash ``state_hash`` is (None: the start hash)

    @property
    def match_id(self) -> int:
        return self.match.match_id

    @property
    def variant(self) -> str:
        return self.match.variant

    @property
    def settings(self) -> dict[str, Any]:
        return self.match.settings

    @property
    def seed(self) -> str:
        return self.match.seed

    @property
    def current_hand(self) -> HandInfo | None:
        return self.hands[-1] if self.hands and self.hands[-1].status == "active" else None

    def action_json(self) -> list[str]:
        return [a.action for a in self.actions]


@dataclass(frozen=True, slots=True)
class Shards:
    """Some of a bot's ``count`` shards: the servers whose tables one process drives when several share the
    database (a server's shard is ``(guild_id >> 22) % count``, docs/sharding.md). What the store reads for a
    resume is filtered by them in SQL (:meth:`cond`), so a process never reads another's matches.

    >>> s = Shards(4, frozenset({1, 3}))
    >>> s.holds(1 << 22), s.holds(2 << 22), s.cond("m.guild_id")
    (True, False, ('(m.guild_id >> 22) % CAST(? AS BIGINT) IN (CAST(? AS BIGINT), CAST(? AS BIGINT))', [4, 1, 3]))
    >>> Shards(4, frozenset()).cond("guild_id")
    ('1 = 0', [])
    """

    count: int
    ids: frozenset[int]

    def holds(self, guild_id: int) -> bool:
        return shard_of(guild_id, self.count) in self.ids

    def cond(self, column: str) -> tuple[str, list[int]]:
        """The SQL condition "``column``'s server is on one of these shards" and its parameters (SQLite and
        PostgreSQL alike; none held: nothing)."""
        if not self.ids:
            return "1 = 0", []
        ids = sorted(self.ids)
        marks = ", ".join("CAST(? AS BIGINT)" for _ in ids)
        return f"({column} >> 22) % CAST(? AS BIGINT) IN ({marks})", [self.count, *ids]


def on_shards(shards: Shards | None, column: str) -> tuple[str, list[int]]:
    """:meth:`Shards.cond`, or a condition every server meets when ``shards`` is None (one process: every shard).

    >>> on_shards(None, "guild_id"), on_shards(Shards(2, frozenset({1})), "guild_id")[1]
    (('1 = 1', []), [2, 1])
    """
    return shards.cond(column) if shards is not None else ("1 = 1", [])


@dataclass(frozen=True, slots=True)
class BoardRow:
    """A leaderboard line: one player's totals over the chosen server, variant and period."""

    player_id: int
    display_name: str | None
    hands: int
    wins: int
    self_draws: int
    deal_ins: int
    draws: int
    biggest_hand: int
    net: int


@dataclass(frozen=True, slots=True)
class PlayerStats(BoardRow):
    """A player's totals (the figures of a leaderboard line) and their running net 子 for a chart."""

    series: tuple[tuple[datetime, int], ...]  # (time of hand, running net 子 after it), one per hand, for a chart
    series_start: int = 0  # the net before the first hand (adjustments posted before it)
    adjustments: int = 0  # the 子 that adjustments moved to (+) or from (-) the player, in the net

    @property
    def win_rate(self) -> float:
        return self.wins / self.hands if self.hands else 0.0
