"""Boards and a group's figures over any range, corrections included: the leaderboard, a player's record,
head-to-head, the ledger export, the weekly report's figures and the latest hands (reached as :mod:`bot.store.group`'s
functions, the one path every cog reads them through).

**Corrections** never edit a ledger row; every reader here adds ``correction_rows`` to the ledger's rows, so a
voided hand counts for nothing and an adjustment moves the net. **Ranges** are half-open ``[since, until)``;
``None`` is open-ended. Filters are built with :class:`bot.store.sql.Where` (only the bounds there are).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from .history import AiSeat, ai_seats
from .models import BoardRow, PlayerStats, from_ms
from .sql import DAY_MS, Where, check_source, ms_or_none
from .store import Store

#: a ledger row of a hand no correction voided (the ledger's alias is put in front by the caller if needed)
_NOT_VOIDED = "hand_id NOT IN (SELECT hand_id FROM corrections WHERE hand_id IS NOT NULL)"


@dataclass(frozen=True, slots=True)
class HandWin:
    """One win of a settled hand (Hefei lets several players win on one discard: one each)."""

    seat: int
    player_id: int | None  # None: an AI seat
    name: str | None  # the member's display name as stored; an AI seat's name as its table named it (电脑1 ...)
    value: int  # the win's hand value (番 / 子)
    ai_number: int | None = None  # an AI seat's number among its match's AI seats (its name when ``name`` is None)


@dataclass(frozen=True, slots=True)
class HandSummary:
    """A settled hand, for pickers (autocomplete) and reports: its wins in seat order (none: a draw)."""

    hand_id: int
    match_id: int
    number: int
    variant: str
    at: datetime
    wins: tuple[HandWin, ...]
    voided: bool

    @property
    def biggest(self) -> HandWin | None:
        """The hand's biggest win (the lowest seat among equal ones); None for a draw."""
        return min(self.wins, key=lambda w: (-w.value, w.seat), default=None)

    @property
    def value(self) -> int:
        """The biggest win's value (0 for a draw)."""
        return self.biggest.value if self.biggest is not None else 0


@dataclass(frozen=True, slots=True)
class HeadToHead:
    """Two players' hands together: ``hands`` settled hands (not voided) where both sat; ``a_net`` / ``b_net`` what
    each won or lost over them; ``a_to_b`` / ``b_to_a`` the 子 that passed between them (see :func:`pair_flow`),
    adjustments between them included; ``a_wins`` / ``b_wins`` their wins in those hands."""

    hands: int
    a_wins: int
    b_wins: int
    a_net: int
    b_net: int
    a_to_b: int
    b_to_a: int

    @property
    def net_to_a(self) -> int:
        return self.b_to_a - self.a_to_b


@dataclass(frozen=True, slots=True)
class ExportRow:
    """One line of the ledger export: a seat of a hand, or a row of a correction. The counts (``hands``, ``won``,
    ``self_draw``, ``deal_in``, ``drawn``) and ``hand_value`` are 1 / the value on a hand's row, negated on the rows
    of its void, 0 on an adjustment's: summed per player they give the figures the boards show."""

    kind: str  # 'hand' | 'void' | 'adjust'
    entry_id: int  # the hand id, or the correction id
    hand_id: int | None
    match_id: int | None
    variant: str
    at: datetime
    player_id: int | None
    player_name: str | None
    ai: str | None
    seat: int
    amount: int
    stack_amount: int
    jiao_amount: int
    hands: int
    won: int
    self_draw: int
    deal_in: int
    drawn: int
    hand_value: int
    reason: str
    posted_by: int | None
    source: str = "played"  # 'played' | 'in_person' (a correction: the source of the hand it voids, else '')


@dataclass(frozen=True, slots=True)
class WeekSummary:
    """What the weekly report shows: the board (all variants together), the biggest hand, and who paid or took the
    most 交 (Wuhu) and who won the biggest total of 番/子 values."""

    board: tuple[BoardRow, ...]
    hands: int
    biggest: HandSummary | None  # the hand of the week's biggest win: its ``biggest`` win
    most_jiao: tuple[int, str | None, int] | None  # (player, name, 交 taken)
    most_value: tuple[int, str | None, int] | None  # (player, name, sum of winning hand values)



def pair_flow(amounts: dict[Any, int], a: Any, b: Any) -> int:
    """子 that passed from ``a`` to ``b`` in one zero-sum hand whose ledger holds only each seat's total.

    The ledger keeps one total per seat, not who paid whom. Definition: every loser pays each winner in proportion
    to that winner's share of all the gains, ``flow(a->b) = loss(a) * gain(b) / total gains`` (rounded to the
    nearest 子). With one winner (every ordinary hand) this is exactly what ``a`` paid ``b``.

    >>> pair_flow({1: -8, 2: 8, 3: 0, 4: 0}, 1, 2), pair_flow({1: -8, 2: 8, 3: 0, 4: 0}, 2, 1)
    (8, 0)
    >>> pair_flow({1: -6, 2: 4, 3: 4, 4: -2}, 1, 2)
    3
    """
    loss = -amounts.get(a, 0)
    gain = amounts.get(b, 0)
    gains = sum(v for v in amounts.values() if v > 0)
    if loss <= 0 or gain <= 0 or gains == 0:
        return 0
    return (2 * loss * gain + gains) // (2 * gains)


async def recent_hands(store: Store, guild_id: int, limit: int = 25, *, hand_id: int | None = None) -> list[HandSummary]:
    """The server's latest settled hands (or the one ``hand_id``), newest first, for a picker: each win with the
    seat, the player and the value of that win (never one seat's name beside another's value)."""
    async with store.transaction(write=False) as conn:
        w = Where().eq("m.guild_id", guild_id).add("h.status = 'finished'").opt_eq("h.id", hand_id)
        rows = await conn.all(
            "SELECT h.id, h.match_id, h.number, m.variant, h.ended_at, "
            " (SELECT COUNT(*) FROM corrections c WHERE c.hand_id = h.id) "
            "FROM hands h JOIN matches m ON m.id = h.match_id "
            f"WHERE {w} ORDER BY h.ended_at DESC, h.id DESC LIMIT ?", [*w.params, limit])
        wins: dict[int, list[HandWin]] = defaultdict(list)
        if rows:
            marks = ", ".join("?" * len(rows))
            for r in await conn.all(
                    "SELECT l.hand_id, l.seat, l.player_id, p.display_name, l.hand_value FROM ledger l "
                    f"LEFT JOIN players p ON p.user_id = l.player_id WHERE l.hand_id IN ({marks}) AND l.won = 1 "
                    "ORDER BY l.hand_id, l.seat", [r[0] for r in rows]):
                wins[r[0]].append(HandWin(r[1], r[2], r[3], r[4]))
    # an AI seat's win: named as its table named the seat, never by its difficulty (ledger.ai)
    named: dict[int, dict[int, AiSeat]] = {}
    for r in rows:
        if any(w.player_id is None for w in wins[r[0]]):
            if r[1] not in named:
                named[r[1]] = await ai_seats(store, r[1])
            wins[r[0]] = [w if w.player_id is not None or w.seat not in named[r[1]] else
                          replace(w, name=named[r[1]][w.seat].name, ai_number=named[r[1]][w.seat].number)
                          for w in wins[r[0]]]
    return [HandSummary(r[0], r[1], r[2], r[3], from_ms(r[4]), tuple(wins[r[0]]), bool(r[5])) for r in rows]


# ---------------------------------------------------------------------------------------------------------------
# boards and stats over any range, corrections included

_ROLLUP_COLS = "player_id, hands, wins, self_draws, deal_ins, draws, biggest, net"
_RAW_COLS = ("player_id, 1 AS hands, won AS wins, self_draw AS self_draws, deal_in AS deal_ins, drawn AS draws, "
             "CASE WHEN won = 1 THEN hand_value ELSE 0 END AS biggest, amount AS net")


def _range(since: datetime | None, until: datetime | None) -> tuple[int | None, int | None]:
    return ms_or_none(since), ms_or_none(until)


def _raw(guild_id: int, variant: str) -> Where:
    """The human seats' ledger rows of one server and variant."""
    return Where().eq("guild_id", guild_id).eq("variant", variant).add("player_id IS NOT NULL")


async def board(store: Store, guild_id: int, variant: str, since: datetime | None = None,
                until: datetime | None = None, *, limit: int = 10, source: str = "all") -> list[BoardRow]:
    """The leaderboard of ``variant`` over ``[since, until)`` with corrections: players ranked by net 子, then
    wins, then id; AI seats left out; a player whose every hand was voided and who has no adjustment drops out.

    Whole UTC days come from the roll-ups ``finish_hand`` keeps; the partial first and last days from the raw
    ledger; corrections from their rows. The biggest hand ignores voided hands.

    ``source`` ``played`` / ``in_person`` keeps only the hands of that source (and the voids of those hands; an
    adjustment is no hand and counts only in ``all``): read from the raw ledger, as the roll-ups mix both."""
    check_source(source)
    lo, hi = _range(since, until)
    parts: list[str] = []
    params: list[Any] = []
    if source != "all":
        w = _raw(guild_id, variant).source("", source).range("at", lo, hi)
        parts.append(f"SELECT {_RAW_COLS} FROM ledger WHERE {w}")
        params += w.params
    elif lo is None and hi is None:
        parts.append(f"SELECT {_ROLLUP_COLS} FROM board_totals WHERE guild_id = ? AND variant = ?")
        params += [guild_id, variant]
    else:
        first_day = None if lo is None else -(-lo // DAY_MS)
        last_day = None if hi is None else hi // DAY_MS
        if first_day is not None and last_day is not None and first_day >= last_day:
            w = _raw(guild_id, variant).range("at", lo, hi)
            parts.append(f"SELECT {_RAW_COLS} FROM ledger WHERE {w}")
            params += w.params
        else:
            # only the bounds there are, so that the database ranges over the primary key (guild, variant, day)
            w = Where().eq("guild_id", guild_id).eq("variant", variant).range("day", first_day, last_day)
            parts.append(f"SELECT {_ROLLUP_COLS} FROM board_days WHERE {w}")
            params += w.params
            if lo is not None and first_day is not None:
                w = _raw(guild_id, variant).range("at", lo, first_day * DAY_MS)
                parts.append(f"SELECT {_RAW_COLS} FROM ledger WHERE {w}")
                params += w.params
            if hi is not None and last_day is not None:
                w = _raw(guild_id, variant).range("at", max(last_day * DAY_MS, lo if lo is not None else -(2**62)), hi)
                parts.append(f"SELECT {_RAW_COLS} FROM ledger WHERE {w}")
                params += w.params
    w = _raw(guild_id, variant).range("at", lo, hi).correction_source(source)
    parts.append(f"SELECT player_id, hands, wins, self_draws, deal_ins, draws, 0, amount FROM correction_rows WHERE {w}")
    params += w.params
    union = " UNION ALL ".join(parts)
    async with store.transaction(write=False) as conn:
        rows = await conn.all(
            "SELECT b.player_id, p.display_name, b.hands, b.wins, b.self_draws, b.deal_ins, b.draws, b.biggest, b.net "
            "FROM (SELECT player_id, SUM(hands) AS hands, SUM(wins) AS wins, SUM(self_draws) AS self_draws, "
            f"  SUM(deal_ins) AS deal_ins, SUM(draws) AS draws, MAX(biggest) AS biggest, SUM(net) AS net FROM ({union}) u "
            "  GROUP BY player_id) b LEFT JOIN players p ON p.user_id = b.player_id "
            "WHERE b.hands <> 0 OR b.net <> 0 ORDER BY b.net DESC, b.wins DESC, b.player_id LIMIT ?",
            [*params, limit])
        # The roll-ups' MAX cannot forget a voided hand: a player's biggest hand is looked up again (through the
        # per-player index) only when one of their voided wins in the range was as big as the roll-ups say.
        voided: dict[int, int] = {}
        w = (Where().eq("c.guild_id", guild_id).eq("c.variant", variant).add("l.won = 1 AND l.player_id IS NOT NULL")
             .range("l.at", lo, hi).source("l.", source))
        for player, value in await conn.all(
                f"SELECT l.player_id, l.hand_value FROM corrections c JOIN ledger l ON l.hand_id = c.hand_id WHERE {w}",
                w.params):
            voided[player] = max(voided.get(player, 0), value)
        out = []
        for r in rows:
            row = list(r)
            if row[0] in voided and voided[row[0]] >= row[7]:
                # "+guild_id": not the (guild, variant, at) index, which would scan the whole server's ledger for
                # one player, but the per-player one (player_id, guild_id, at)
                w = (Where().eq("player_id", row[0]).eq("+guild_id", guild_id).eq("variant", variant)
                     .add("won = 1").range("at", lo, hi).add(_NOT_VOIDED).source("", source))
                best = await conn.one(f"SELECT MAX(hand_value) FROM ledger WHERE {w}", w.params)
                row[7] = (best[0] if best else 0) or 0
            out.append(BoardRow(*row))
    return out


async def player_record(store: Store, guild_id: int, player_id: int, variant: str | None = None,
                        since: datetime | None = None, until: datetime | None = None, *,
                        source: str = "all") -> PlayerStats:
    """One player's record over ``[since, until)`` (one variant, or all with None) with corrections, and the
    running net after each hand (in time order) for a chart. Voided hands count for nothing: not in the figures, no
    point in the series. An adjustment counts in the net and in ``adjustments``, and moves the series' point of the
    hand before it (``series_start`` when no hand came before), so the series has ``hands`` points and ends at the
    net. ``source``: as for :func:`board`."""
    check_source(source)
    lo, hi = _range(since, until)
    async with store.transaction(write=False) as conn:
        hands = (Where().eq("player_id", player_id).eq("guild_id", guild_id).opt_eq("variant", variant)
                 .range("at", lo, hi).source("", source))
        corrs = (Where().eq("player_id", player_id).eq("guild_id", guild_id).opt_eq("variant", variant)
                 .range("at", lo, hi).correction_source(source))
        rows = await conn.all(
            "SELECT at, 0, hand_id, amount, 1, won, self_draw, deal_in, drawn, hand_value, "
            f"  (SELECT COUNT(*) FROM corrections c WHERE c.hand_id = ledger.hand_id) FROM ledger WHERE {hands} "
            "UNION ALL SELECT at, 1, correction_id, amount, hands, wins, self_draws, deal_ins, draws, 0, 0 "
            f"FROM correction_rows WHERE {corrs} ORDER BY 1, 2, 3", [*hands.params, *corrs.params])
        name = await conn.one("SELECT display_name FROM players WHERE user_id = ?", (player_id,))
    # The chart's x axis counts the same hands as the Hands figure: one point per hand not voided. A void's rows
    # cancel its hand where it stood; an adjustment is no hand: it moves the point of the hand before it (before
    # the first hand: the starting point), so the last point is the net.
    running = start = 0
    series: list[list[Any]] = []
    for r in rows:
        running += r[3]
        if r[1] == 0 and not r[10]:
            series.append([from_ms(r[0]), running])
        elif series:
            series[-1][1] = running
        else:
            start = running
    return PlayerStats(
        player_id=player_id, display_name=name[0] if name else None,
        hands=sum(r[4] for r in rows), wins=sum(r[5] for r in rows), self_draws=sum(r[6] for r in rows),
        deal_ins=sum(r[7] for r in rows), draws=sum(r[8] for r in rows),
        biggest_hand=max((r[9] for r in rows if r[1] == 0 and r[5] and not r[10]), default=0),
        net=running, series=tuple((at, v) for at, v in series), series_start=start,
        adjustments=sum(r[3] for r in rows if r[1] == 1 and r[4] == 0))


async def head_to_head(store: Store, guild_id: int, a: int, b: int, variant: str | None = None,
                       since: datetime | None = None, until: datetime | None = None, *,
                       source: str = "all") -> HeadToHead:
    """``a`` and ``b`` together over ``[since, until)``: the settled, not voided hands where both sat, and the 子
    that passed between them (:func:`pair_flow` per hand, plus the adjustments posted between the two).
    ``source``: as for :func:`board` (adjustments count only in ``all``)."""
    check_source(source)
    lo, hi = _range(since, until)
    async with store.transaction(write=False) as conn:
        w = (Where().eq("x.player_id", a).eq("x.guild_id", guild_id).opt_eq("x.variant", variant)
             .range("x.at", lo, hi).source("x.", source).add(f"x.{_NOT_VOIDED}"))
        rows = await conn.all(
            "SELECT l.hand_id, l.player_id, l.seat, l.amount, l.won FROM ledger l WHERE l.hand_id IN ("
            " SELECT x.hand_id FROM ledger x JOIN ledger y ON y.hand_id = x.hand_id AND y.player_id = ? "
            f" WHERE {w}) ORDER BY l.hand_id, l.seat", [b, *w.params])
        adjustments: list[Any] = []
        if source == "all":  # an adjustment is no hand: it counts only with every source
            w = (Where().add("c.kind = 'adjust'").eq("c.guild_id", guild_id).add("f.amount > 0")
                 .add("((f.player_id = ? AND g.player_id = ?) OR (f.player_id = ? AND g.player_id = ?))", a, b, b, a)
                 .opt_eq("c.variant", variant).range("f.at", lo, hi))
            adjustments = await conn.all(
                "SELECT f.player_id, f.amount FROM correction_rows f JOIN correction_rows g "
                "ON g.correction_id = f.correction_id AND g.seat <> f.seat JOIN corrections c ON c.id = f.correction_id "
                f"WHERE {w}", w.params)
    hands: dict[int, dict[Any, int]] = defaultdict(dict)
    wins = {a: 0, b: 0}
    net = {a: 0, b: 0}
    for hand_id, player, seat, amount, won in rows:
        key = player if player in (a, b) else ("seat", seat)
        hands[hand_id][key] = amount
        if player in (a, b):
            net[player] += amount
            wins[player] += won
    a_to_b = sum(pair_flow(h, a, b) for h in hands.values())
    b_to_a = sum(pair_flow(h, b, a) for h in hands.values())
    for receiver, amount in adjustments:
        if receiver == b:
            a_to_b += amount
        else:
            b_to_a += amount
    return HeadToHead(len(hands), wins[a], wins[b], net[a], net[b], a_to_b, b_to_a)



# ---------------------------------------------------------------------------------------------------------------
# export and the weekly report


async def ledger_rows(store: Store, guild_id: int, since: datetime | None = None,
                      until: datetime | None = None) -> list[ExportRow]:
    """Every ledger row and correction row of a server over ``[since, until)``, in time order (corrections after
    the hand they void). A void's rows carry its hand's counts and values negated (as ``correction_rows`` keeps
    the counts), so that every column nets the voided hand out."""
    lo, hi = _range(since, until)
    async with store.transaction(write=False) as conn:
        hands = Where().eq("l.guild_id", guild_id).range("l.at", lo, hi)
        corrs = Where().eq("c.guild_id", guild_id).range("r.at", lo, hi)
        rows = await conn.all(
            "SELECT 'hand', l.hand_id, l.hand_id, l.match_id, l.variant, l.at, l.player_id, p.display_name, l.ai, "
            " l.seat, l.amount, l.stack_amount, l.jiao_amount, 1, l.won, l.self_draw, l.deal_in, l.drawn, "
            " l.hand_value, '', NULL, 0, l.source FROM ledger l LEFT JOIN players p ON p.user_id = l.player_id "
            f"WHERE {hands} UNION ALL "
            "SELECT c.kind, c.id, c.hand_id, (SELECT h.match_id FROM hands h WHERE h.id = c.hand_id), c.variant, r.at, "
            " r.player_id, p.display_name, r.ai, r.seat, r.amount, r.stack_amount, r.jiao_amount, r.hands, r.wins, "
            " r.self_draws, r.deal_ins, r.draws, "
            " COALESCE(-(SELECT x.hand_value FROM ledger x WHERE x.hand_id = c.hand_id AND x.seat = r.seat), 0), "
            " c.reason, c.user_id, 1, COALESCE((SELECT x.source FROM ledger x WHERE x.hand_id = c.hand_id AND x.seat = 0), '') "
            "FROM correction_rows r JOIN corrections c ON c.id = r.correction_id "
            "LEFT JOIN players p ON p.user_id = r.player_id "
            f"WHERE {corrs} ORDER BY 6, 22, 2, 10", [*hands.params, *corrs.params])
    return [ExportRow(r[0], r[1], r[2], r[3], r[4], from_ms(r[5]), r[6], r[7], r[8], r[9], r[10], r[11], r[12],
                      int(r[13]), int(r[14]), int(r[15]), int(r[16]), int(r[17]), r[18], r[19], r[20], r[22])
            for r in rows]



async def week_summary(store: Store, guild_id: int, since: datetime, until: datetime) -> WeekSummary:
    """The weekly report's figures over ``[since, until)``: every variant's hands together, corrections included,
    voided hands left out."""
    lo, hi = _range(since, until)
    async with store.transaction(write=False) as conn:
        # the server's variants (from the roll-ups: cheap), so that every query below ranges over the
        # (guild_id, variant, at) index instead of scanning the server's ledger
        variants = [r[0] for r in await conn.all(
            "SELECT DISTINCT variant FROM board_totals WHERE guild_id = ? UNION "
                  "SELECT DISTINCT variant FROM correction_rows WHERE guild_id = ? UNION "
                  "SELECT DISTINCT variant FROM matches WHERE guild_id = ? AND status = 'active'",
            (guild_id, guild_id, guild_id))]
        if not variants:
            return WeekSummary((), 0, None, None, None)
        marks = ", ".join("?" * len(variants))
        live = f"variant IN ({marks}) AND hand_id NOT IN (SELECT hand_id FROM corrections WHERE hand_id IS NOT NULL)"
        big = await conn.one(f"SELECT hand_id FROM ledger WHERE guild_id = ? AND at >= ? AND at < ? AND won = 1 "
                               f"AND {live} ORDER BY hand_value DESC, at, hand_id, seat LIMIT 1", (guild_id, lo, hi, *variants))
        count = await conn.one(f"SELECT COUNT(DISTINCT hand_id) FROM ledger WHERE guild_id = ? AND at >= ? "
                                 f"AND at < ? AND {live}", (guild_id, lo, hi, *variants))
        jiao = await conn.one("SELECT l.player_id, p.display_name, SUM(l.jiao_amount) AS j FROM ledger l "
                                "LEFT JOIN players p ON p.user_id = l.player_id WHERE l.guild_id = ? AND l.at >= ? "
                                f"AND l.at < ? AND l.player_id IS NOT NULL AND l.{live} GROUP BY l.player_id, "
                                "p.display_name HAVING SUM(l.jiao_amount) > 0 ORDER BY j DESC, l.player_id LIMIT 1",
                          (guild_id, lo, hi, *variants))
        value = await conn.one("SELECT l.player_id, p.display_name, SUM(l.hand_value) AS v FROM ledger l "
                                 "LEFT JOIN players p ON p.user_id = l.player_id WHERE l.guild_id = ? AND l.at >= ? "
                                 f"AND l.at < ? AND l.won = 1 AND l.player_id IS NOT NULL AND l.{live} "
                                 "GROUP BY l.player_id, p.display_name ORDER BY v DESC, l.player_id LIMIT 1",
                           (guild_id, lo, hi, *variants))
    merged: dict[int, list[Any]] = {}
    for v in variants:
        for r in await board(store, guild_id, v, since, until, limit=100_000):
            m = merged.setdefault(r.player_id, [r.player_id, r.display_name, 0, 0, 0, 0, 0, 0, 0])
            for i, f in enumerate(("hands", "wins", "self_draws", "deal_ins", "draws"), start=2):
                m[i] += getattr(r, f)
            m[7] = max(m[7], r.biggest_hand)
            m[8] += r.net
    ranked = sorted((BoardRow(*m) for m in merged.values()), key=lambda r: (-r.net, -r.wins, r.player_id))
    biggest = (await recent_hands(store, guild_id, 1, hand_id=big[0]))[0] if big else None
    return WeekSummary(tuple(ranked), count[0] if count else 0, biggest,
                       tuple(jiao) if jiao else None, tuple(value) if value else None)
