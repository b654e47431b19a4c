"""A table's state: who sits where, which step of its life it is in, and what the store knows of it.

No Discord here. A table moves through::

    lobby -> starting -> playing <-> between -> finished
      |         |           |           |
      +---------+-----------+-----------+----> aborted      (closed by /table end, or a restart that failed)

:meth:`LiveTable.move` is the only way to change ``state`` and it must be called with the table's lock held, so
two coroutines (a Start and a Leave, a click and ``/table end``) never see a half-made change. ``stall`` says why a
table in play is waiting on something other than a player: the database (``"store"``, retried by itself) or an
internal error (``"error"``, paused until someone ends it).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from bot.store.tables import TableRecorder
from engine.table import Table

from .strings import t


class State(StrEnum):
    LOBBY = "lobby"
    STARTING = "starting"
    PLAYING = "playing"
    BETWEEN = "between"  # a hand has ended; the next one starts by a button or a timer
    FINISHED = "finished"
    ABORTED = "aborted"


#: Which moves are allowed (anything else is a bug and raises).
MOVES: dict[State, frozenset[State]] = {
    State.LOBBY: frozenset({State.STARTING, State.ABORTED}),
    State.STARTING: frozenset({State.LOBBY, State.PLAYING, State.BETWEEN, State.FINISHED, State.ABORTED}),
    State.PLAYING: frozenset({State.BETWEEN, State.FINISHED, State.ABORTED}),
    State.BETWEEN: frozenset({State.PLAYING, State.FINISHED, State.ABORTED}),
    State.FINISHED: frozenset(),
    State.ABORTED: frozenset(),
}
CLOSED = frozenset({State.FINISHED, State.ABORTED})


class Refusal(Exception):
    """A click or command refused with a player message (``key`` in bot.i18n.MESSAGES); nothing changed."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass
class Timers:
    """Injectable delays (seconds). ``None`` fields mean: the table's server settings."""

    turn: float | None = None
    claim: float | None = None
    next_hand: float | None = 30.0
    scale: float = 1.0
    vote: float = 60.0  # how long a dissolve (解散) vote stays open


@dataclass
class Seat:
    """Who sits in a chair: a Discord user or an AI (``ai`` = difficulty)."""

    user_id: int | None
    name: str
    ai: str | None = None
    lang: str = "zh"
    afk: bool = False
    away: str | None = None  # why the AI plays the seat: "timeout", "autoplay" (托管, by choice), "replaced" (host)
    timeouts: int = 0
    dm_failed: bool = False  # the player's DMs are closed (403 50007): My hand shows the hand; tried again each hand
    dm_down: bool = False  # Discord failed the latest DM after every try: it waits in its lane and is sent again
    dm_key: Any = None
    dm_controls: tuple[int, int] | None = None  # (channel, message) of the last DM that carries controls
    dm_last: tuple[int, int] | None = None  # (channel, message) of the latest hand message
    dm_since: int | None = None  # the decision (``LiveTable.since``) the controls of ``dm_controls`` are for
    dm_head: str | None = None  # the first line of the latest hand message ("your hand · Wuhu · hand 3 ...")
    dm_text: str | None = None  # what the latest hand message says, as sent (None: not known; a rewording that
    #                             would say the same again is not sent)

    @property
    def human(self) -> bool:
        return self.user_id is not None

    @property
    def automatic(self) -> bool:
        """Played by the AI now (an AI seat, or a human away)."""
        return self.ai is not None or self.afk

    def lobby_line(self, lang: str) -> str:
        """The seat on the lobby: a player by mention, an AI by name and how it plays (/table addbot difficulty)."""
        if self.human:
            return f"<@{self.user_id}>"
        return t("tables.lobby_ai", lang, name=self.name, difficulty=t(f"choice.difficulty.{self.ai}", lang))

    def meta(self) -> dict[str, Any]:
        m: dict[str, Any] = {"user": self.user_id, "name": self.name, "ai": self.ai, "lang": self.lang}
        if self.afk and self.away in KEPT_AWAY:
            m["away"] = self.away
        return m

    def go_away(self, why: str) -> None:
        self.afk, self.away = True, why

    def come_back(self) -> None:
        self.afk, self.away, self.timeouts, self.dm_key = False, None, 0, None


#: The reasons for an away seat that a restart keeps (a timeout's away is not stored: the player is asked again).
KEPT_AWAY = frozenset({"autoplay", "replaced"})
#: Every reason for an away seat (``Seat.away``): each has its own text in the seat's hand message.
AWAY_CAUSES = frozenset({"timeout", *KEPT_AWAY})


@dataclass
class Vote:
    """A dissolve (解散) vote: who proposed it, who agreed, where its message is, and its expiry timer."""

    number: int
    by: int
    yes: set[int]
    no: set[int] = field(default_factory=set)
    message: tuple[int, int] | None = None  # (channel, message) of the vote message with its buttons
    text: str = ""  # the vote message's proposal (kept when its buttons are removed)
    timer: asyncio.Task[Any] | None = None
    deadline: float = 0.0  # when it lapses: Unix time (seconds), so that a restart keeps the same minute
    audited: bool = False  # its dissolve is in the audit (a try whose abort the store refused is not audited twice)
    # what its message is to say now: the proposal, the tally and, once over, how it ended (then without buttons);
    # set under the table's lock once a change is stored, so a tentative answer is never shown
    shown: str = ""
    end: str | None = None  # how it ended (the message key) once it is over
    written: tuple[str, bool] | None = None  # what its message was last written with, and whether without buttons
    writing: asyncio.Lock = field(default_factory=asyncio.Lock)  # one write of its message at a time

    def to_json(self) -> dict[str, Any]:
        """What the store keeps of an open vote (see :meth:`from_json`).

        >>> v = Vote(2, 5, {5, 7}, {6}, (1, 9), "?", deadline=100.5)
        >>> w = Vote.from_json(v.to_json()); (w.number, w.by, w.yes, w.no, w.message, w.text, w.deadline)
        (2, 5, {5, 7}, {6}, (1, 9), '?', 100.5)
        """
        return {"number": self.number, "by": self.by, "yes": sorted(self.yes), "no": sorted(self.no),
                "message": list(self.message) if self.message else None, "text": self.text,
                "deadline": self.deadline}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Vote:
        msg = d.get("message")
        return cls(int(d["number"]), int(d["by"]), {int(x) for x in d["yes"]}, {int(x) for x in d["no"]},
                   (int(msg[0]), int(msg[1])) if msg else None, str(d.get("text", "")),
                   deadline=float(d["deadline"]))

    def passes(self, humans: int) -> bool:
        """A strict majority of ``humans``: of all the seated humans (passed at once), or at its deadline of those
        who are here or answered (:meth:`LiveTable.voters`).

        >>> Vote(1, 5, {5}).passes(1), Vote(1, 5, {5}).passes(2), Vote(1, 5, {5, 6}).passes(3)
        (True, False, True)
        """
        return len(self.yes) >= self.needed(humans)

    def needed(self, humans: int) -> int:
        """How many agreeing pass it at once, of ``humans`` seated (:meth:`passes`: a strict majority).

        >>> [Vote(1, 5, {5}).needed(n) for n in (1, 2, 3, 4)]
        [1, 2, 2, 3]
        """
        return humans // 2 + 1

    def can_pass(self, humans: int) -> bool:
        """Whether the ``humans`` seated who have not said no could still make a majority, at once or at the
        deadline: each of them may agree or be away without answering, so it is in reach while fewer than half said
        no (with ``yes`` agreeing and ``no`` refusing, ``k`` more agreeing and the rest away it passes iff
        ``yes + k > no``).

        >>> Vote(1, 5, {5}, {6}).can_pass(2), Vote(1, 5, {5}, {6}).can_pass(3)
        (False, True)
        """
        return (humans - len(self.no)) * 2 > humans


@dataclass
class LiveTable:
    """One channel's table: a lobby, then a match in play (``rec``: its recorder, holding the engine table)."""

    guild_id: int
    channel_id: int
    host_id: int
    variant: str
    rules: dict[str, Any]
    lang: str = "zh"
    turn_seconds: float = 60
    claim_seconds: float = 15
    hints: bool = True
    seats: list[Seat | None] = field(default_factory=lambda: [None] * 4)
    state: State = State.LOBBY
    stall: str | None = None  # "store" (the database failed; retried) or "error" (an engine error; paused)
    gone: bool = False  # let go by this process (another drives it now, or it is read again): nothing more is shown
    rec: TableRecorder | None = None
    # the seed of a start whose answer never came (the match may have landed all the same): the next Start uses it
    # again, which the store takes for the same start (bot.store.games: one active match per channel)
    start_seed: str | None = None
    busy_channel: bool = False  # a Start met a match in play in the channel that no table here drives
    since: list[int] = field(default_factory=lambda: [-1] * 4)
    _marks: list[Any] = field(default_factory=lambda: [None] * 4)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    lobby_message_id: int | None = None
    message_id: int | None = None
    message_at: float = 0.0  # event-loop time when the table message was posted
    edits: int = 0
    posts_below: int = 0
    timer: asyncio.Task[Any] | None = None
    # when each decision the table waits for times out, on the manager's clock (TableManager.clock): a claim window
    # from its discard, a turn from when it began, the next hand from the hand's end; a restart starts afresh
    deadlines: dict[tuple[int | str, int], float] = field(default_factory=dict)
    deltas: list[list[int]] = field(default_factory=list)
    shown: int = -1  # the last hand (hand_no) whose result went out to the channel (a result card or a post)
    said: dict[str, int] = field(default_factory=dict)  # of a table that is over: its end said, its summary posted
    unsent: bool = False  # a hand message's write failed after every try (Discord failing): see Publisher.sent
    told_dm: set[int] = field(default_factory=set)
    vote: Vote | None = None  # an open dissolve vote
    votes: int = 0  # dissolve votes held so far (numbers the vote buttons)

    # ---- the state machine

    def move(self, new: State) -> None:
        """Change the table's state (only under its lock, only along :data:`MOVES`)."""
        assert self.lock.locked(), "a table's state changes only under its lock"
        if new is self.state:
            return
        if new not in MOVES[self.state]:
            raise RuntimeError(f"table {self.id}: {self.state} -> {new} is not a legal move")
        self.state = new

    def follow_engine(self) -> None:
        """playing / between / finished from the engine table's phase (after actions were applied)."""
        tb = self.table
        if tb is None or self.state in CLOSED:
            return
        self.move(State.FINISHED if tb.phase == "over" else State.BETWEEN if tb.phase == "ended" else State.PLAYING)

    @property
    def closed(self) -> bool:
        return self.state in CLOSED

    @property
    def started(self) -> bool:
        return self.state is not State.LOBBY

    @property
    def table(self) -> Table | None:
        return self.rec.table if self.rec is not None else None

    @property
    def match_id(self) -> int | None:
        return self.rec.match_id if self.rec is not None else None

    @property
    def id(self) -> int:
        return self.match_id or 0

    @property
    def seed(self) -> int | str:
        return self.table.seed if self.table is not None else ""

    # ---- seats

    def seat_of(self, user_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s is not None and s.user_id == user_id:
                return i
        return None

    def occupant(self, seat: int) -> Seat:
        """The player in ``seat``, which the caller knows is taken (every seat of a started table is):
        ``LookupError`` when it is empty."""
        found = self.seats[seat]
        if found is None:
            raise LookupError(f"seat {seat} is empty")
        return found

    def host_after(self) -> int:
        """The first human's id: the host once the host has left a lobby that still has humans."""
        user = self.occupant(self.humans()[0]).user_id
        assert user is not None  # a human's seat has their id
        return user

    def names(self) -> list[str]:
        return [s.name if s else t("tables.seat_empty", self.lang) for s in self.seats]

    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s is not None and s.human]

    def players(self) -> list[int]:
        """The user ids of the humans seated (what the store seats at this table: one table at a time each)."""
        return [s.user_id for s in self.seats if s is not None and s.user_id is not None]

    def voters(self, vote: Vote) -> int:
        """How many humans a dissolve vote counts at its deadline: the seated humans who are here, and any who
        answered it. A seat the AI plays for an away player (timed out, 托管, replaced) abstains unless its player
        votes: two friends whose host left the AI the seat are not held at a table neither of them can end. Before
        the deadline only a majority of all the seated humans passes a vote: nobody away loses the minute to answer."""
        here = {self.occupant(c).user_id for c in self.humans() if not self.occupant(c).afk}
        return len(here | vote.yes | vote.no)

    def everyone_away(self) -> bool:
        """Every human's seat is played by the AI (timed out, 托管, replaced): between hands the next hand then waits
        for Next hand (or I'm back) rather than start by itself with nobody there."""
        return all(self.occupant(c).afk for c in self.humans())

    def decisions(self, turn: float, claim: float, next_hand: float) -> dict[tuple[int | str, int], float]:
        """The decisions a timer runs for now, each with its full delay: each present human awaited, by seat and the
        decision point it is at (:meth:`update_since`: a new turn, window or hand is a new key), and between hands the
        next hand (unless :meth:`everyone_away`)."""
        tb = self.table
        if tb is None:
            return {}
        if tb.phase == "ended":
            return {} if self.everyone_away() else {("next", tb.seq): next_hand}
        delay = claim if tb.phase in ("claim", "rob") else turn
        return {(s, self.since[s]): delay for s in tb.awaited() if (p := self.seats[s]) is not None and not p.automatic}

    def lobby_state(self) -> dict[str, Any]:
        """What the store keeps of a lobby (``bot.store.lobbies``): enough to open it again after a restart."""
        return {"host": self.host_id, "variant": self.variant, "rules": self.rules, "lang": self.lang,
                "turn": self.turn_seconds, "claim": self.claim_seconds, "hints": self.hints,
                "seats": [s.meta() if s is not None else None for s in self.seats], "message": self.lobby_message_id}

    @classmethod
    def from_lobby_state(cls, guild_id: int, channel_id: int, st: dict[str, Any]) -> LiveTable:
        """The lobby stored by :meth:`lobby_state`.

        >>> lt = LiveTable(1, 2, 3, "hefei", {"x": 1}, lang="en", lobby_message_id=8)
        >>> lt.seats[0], lt.seats[2] = Seat(3, "Ann", lang="en"), Seat(None, "AI 1", ai="easy", lang="en")
        >>> back = LiveTable.from_lobby_state(1, 2, lt.lobby_state())
        >>> (back.host_id, back.rules, back.seats == lt.seats, back.lobby_message_id, back.state)
        (3, {'x': 1}, True, 8, <State.LOBBY: 'lobby'>)
        """
        lt = cls(guild_id=guild_id, channel_id=channel_id, host_id=int(st["host"]), variant=str(st["variant"]),
                 rules=dict(st.get("rules") or {}), lang=st.get("lang", "zh"), turn_seconds=st.get("turn", 60),
                 claim_seconds=st.get("claim", 15), hints=st.get("hints", True),
                 lobby_message_id=st.get("message"))
        for i, sm in enumerate((st.get("seats") or [])[:4]):
            if sm is not None:
                lt.seats[i] = Seat(sm.get("user"), str(sm.get("name") or ""), ai=sm.get("ai"),
                                   lang=sm.get("lang", lt.lang))
        return lt

    def meta(self) -> dict[str, Any]:
        """What the bot keeps about a match beside the engine's settings (the store's match metadata)."""
        return {"host": self.host_id, "lang": self.lang, "turn": self.turn_seconds, "claim": self.claim_seconds,
                "hints": self.hints, "seats": [s.meta() for s in self.seats if s]}

    def update_since(self, tb: Table | None = None) -> None:
        """Each seat's current decision point: the action count when its (legal actions, hand) last changed while
        the table waited for it. A pure function of the action list (recomputed the same way after a restart, by
        passing the replaying table ``tb``)."""
        tb = tb or self.table
        if tb is None:
            return
        waiting = set(tb.awaited()) if tb.phase in ("play", "claim", "rob") else set()
        for s in range(4):
            if s not in waiting:
                self._marks[s] = None
                continue
            mark = (tuple((a.type, a.tile) for a in tb.legal_actions(s)), tuple(tb.counts[s]), tb.hand_no)
            if mark != self._marks[s]:
                self._marks[s] = mark
                self.since[s] = tb.seq
