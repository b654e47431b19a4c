"""The declared state of a table: the match (:class:`MatchState`), the hand in play (:class:`HandState`: exactly what a
new hand resets), and the shapes of what the table hands out - views, event data and hand results - as TypedDicts
(plain dicts at run time, so ``view["hand"]`` and JSON work as before).

Tiles are kinds 0-33 in the state and in views; event and result data name tiles (``"5m"``) as they are persisted.
Seats are chairs 0-3 (fixed for the match); a chair's wind in a hand is ``(chair - dealer) % 4``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypedDict

from ..tiles import NUM_KINDS, Meld
from ..variants.base import ItemJson, Ledger
from .actions import Action, Event

Phase = Literal["play", "claim", "rob", "ended", "over"]
PHASES: tuple[Phase, ...] = ("play", "claim", "rob", "ended", "over")
RiverStatus = Literal["", "claimed", "won", "dead"]


def _four_lists() -> list[list[Any]]:
    return [[], [], [], []]


@dataclass(slots=True)
class MatchState:
    """What lasts for the whole match: identity, rules, players, the dealer and its streak, the money."""

    variant: str
    seed: int | str
    settings: dict[str, Any]
    rules: dict[str, Any]
    players: tuple[str, ...]
    total_tiles: int
    ledger: Ledger
    dealer: int = 0
    streak: int = 1  # 庄数: consecutive dealerships of the current dealer
    seq: int = 0  # actions applied
    hand_no: int = 0
    first_dice: tuple[int, int] = (1, 1)
    fixed_wall: list[int] | None = None  # the first hand's draw order, when given (tests, puzzles)
    last_result: HandResult | None = None
    start_events: list[Event] = field(default_factory=list)
    next_events: list[Event] = field(default_factory=list)


@dataclass(slots=True)
class HandState:
    """One hand in play; :meth:`engine.table.Table._start_hand` builds a fresh one for every hand."""

    wall: list[int]
    salt: str
    commitment: str
    dice: list[list[int]]
    wall_break: dict[str, int]
    turn: int
    head: int = 0  # next tile drawn from the front
    tail: int = 0  # replacement tiles come from wall[tail - 1] backwards
    counts: list[list[int]] = field(default_factory=lambda: [[0] * NUM_KINDS for _ in range(4)])
    drawn: list[int | None] = field(default_factory=lambda: [None, None, None, None])
    melds: list[list[Meld]] = field(default_factory=_four_lists)
    rivers: list[list[list[Any]]] = field(default_factory=_four_lists)  # [tile, RiverStatus] per discard
    alarms: list[tuple[str, ...]] = field(default_factory=lambda: [(), (), (), ()])
    furiten: list[bool] = field(default_factory=lambda: [False] * 4)  # 漏胡 until the seat's next draw
    pung_lock: list[set[int]] = field(default_factory=lambda: [set(), set(), set(), set()])
    phase: Phase = "play"
    after_claim: bool = False  # the turn's seat claimed: it must discard
    kong_draw: bool = False  # the turn's tile is a kong replacement
    last_four: int = -1  # draw-only turns taken in the reserved last tiles; -1 = not reached
    window: dict[int, list[Action]] = field(default_factory=dict)  # open claim / rob options per seat
    responses: dict[int, Action] = field(default_factory=dict)
    last_discard: tuple[int, int] | None = None  # (chair, kind)
    rob: tuple[int, int] | None = None  # (chair, kind) of an added kong that may be robbed
    discards_made: int = 0
    any_meld: bool = False
    seen: list[int] = field(default_factory=lambda: [0] * NUM_KINDS)  # public: river and meld tiles per kind

    @property
    def live(self) -> int:
        """Tiles left in the wall."""
        return self.tail - self.head


# ---------------------------------------------------------------------------------------------------------------
# shapes handed out (TypedDicts: plain dicts at run time)


class MeldJson(TypedDict, total=False):
    """A meld in events and results: tile names; ``fed_by`` a chair."""

    kind: str
    tile: str
    tiles: list[str]
    fed_by: int
    claimed: str
    added: bool


class WinResult(TypedDict):
    """One winner of a hand (``payments``: the scorer's settlement per chair; ``settled``: what moved at the table,
    e.g. capped by Wuhu's stacks; ``jiao``: the part of ``settled`` that went to the 交 tally, never capped, all 0 in
    a variant whose payments do not split)."""

    seat: int
    tile: str
    self_drawn: bool
    rob_kong: bool
    kong_draw: bool
    hand: list[str]
    melds: list[MeldJson]
    items: list[ItemJson]
    notes: list[ItemJson]
    payments: list[int]
    settled: list[int]
    jiao: list[int]


# "from" is a Python keyword: the functional syntax declares it
WinResultFrom = TypedDict("WinResultFrom", {"from": int | None})


class WinnerResult(WinResult, WinResultFrom):
    """A winner with the chair that dealt in (``from``; None = self-drawn)."""


class HandResult(TypedDict):
    """``Table.last_result``: the hand just finished. ``payments`` / ``jiao`` per chair (zero-sum)."""

    hand_no: int
    dealer: int
    winners: list[WinnerResult]
    draw: bool
    payments: list[int]
    jiao: list[int]


class MeldView(TypedDict):
    kind: str
    tile: int
    tiles: list[int]
    fed_by: int | None
    claimed: int | None
    added: bool


class RiverView(TypedDict):
    tile: int
    status: str


class SeatTile(TypedDict):
    seat: int
    tile: int


class View(TypedDict):
    """What one seat may see (``seat`` None: the public view). See :func:`engine.table.views.build_view`."""

    variant: str
    seat: int | None
    players: list[str]
    hand_no: int
    dealer: int
    dealer_streak: int
    winds: list[int]
    wind_names: list[str]
    dice: list[list[int]]
    wall_break: dict[str, int]
    wall_count: int
    phase: str
    turn: int
    last_four: bool
    hand: list[int]
    drawn: int | None
    hand_sizes: list[int]
    seen: list[int]
    melds: list[list[MeldView]]
    rivers: list[list[RiverView]]
    last_discard: SeatTile | None
    robbing: SeatTile | None
    scores: list[int]
    stacks: list[int] | None
    jiao: list[int] | None
    di: int | None
    quan: int | None
    totals: list[int]
    alarms: list[list[str]]
    claim: list[dict[str, Any]] | None
    claim_open: bool
    legal: list[dict[str, Any]]
    furiten: bool | None
    commitment: str
    last_result: HandResult | None
    rules: dict[str, Any]


# Event data by event type (``Event.data``). Tiles are names; seats chairs.


class MatchStartData(TypedDict):
    variant: str
    players: list[str]
    dice: list[int]
    dealer: int


class HandStartData(TypedDict):
    hand_no: int
    dealer: int
    dealer_streak: int
    dice: list[list[int]]
    wall_break: dict[str, int]
    commitment: str
    wall_count: int


class TilesData(TypedDict):
    """``deal`` (private): the seat's dealt tiles."""

    tiles: list[str]


class TileData(TypedDict):
    """``discard``, ``add_kong``, ``lay_aside``, ``claim_window``, ``rob_window``: one tile."""

    tile: str


class DrawData(TypedDict):
    """``draw`` (private): the tile, whether it is a kong replacement, the tiles left."""

    tile: str
    replacement: bool
    wall_count: int


ClaimFrom = TypedDict("ClaimFrom", {"from": int})


class PungData(ClaimFrom):
    tile: str


class ChiData(ClaimFrom):
    tile: str
    tiles: list[str]


class KongData(TypedDict, total=False):
    """``kong``: kind ``concealed`` / ``added`` / ``claimed`` (with ``from``)."""

    tile: str
    kind: str


class AlarmData(TypedDict):
    code: str
    zh: str
    en: str


class WallCountData(TypedDict):
    """``last_four``: the reserved last tiles begin."""

    wall_count: int


class Reveal(TypedDict):
    salt: str
    wall: list[str]


class HandEndData(TypedDict):
    hand_no: int
    draw: bool
    payments: list[int]
    dealer: int
    next_dealer: int
    reveal: Reveal
    commitment: str
    hands: list[list[str]]


class DiEndData(TypedDict):
    di: int
    stacks: list[int]


class MatchEndData(TypedDict):
    totals: list[int]


# ``timeout``: the action the engine took instead
TimeoutData = TypedDict("TimeoutData", {"as": dict[str, Any]})
