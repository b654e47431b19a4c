"""Playable tables: the pure game-flow state machine of the three variants.

Public API (everything is pure: a table is a function of (variant, seed, settings, actions); no clock, no I/O)::

    Table.new(variant, seed, rules=None, players=("AI",)*4, *, wall=None, dealer=None) -> Table
    Table.replay(variant, seed, settings, actions, players=..., *, wall=None, dealer=None) -> Table
    table.legal_actions(seat) -> list[Action]      # seat = chair 0-3, fixed for the match
    table.apply(action) -> list[Event]             # raises IllegalAction (an EngineError), changing nothing
    table.view(seat | None) -> dict                # what that seat may see; None = public (spectators)
    table.state_hash() -> str                      # sha256 of the canonical state
    table.start_events                             # events of Table.new (match_start, hand_start, deals)
    table.seq                                      # actions applied so far
    table.phase                                    # "play" | "claim" | "rob" | "ended" | "over"
    table.awaited() -> list[int]                   # seats the table waits for
    table.totals() -> list[int]                    # match result so far per chair
    table.tiles_accounted() -> bool                # conservation check
    verify_commitment(commitment, reveal) -> bool  # reveal = hand_end event's "reveal" {"salt", "wall"}

Actions (``Action(type, seat, tile=None)``, JSON ``{"type", "seat", "tile": "5m"}``):
``discard`` tile; ``win`` (self-draw in play, ron or 抢杠 in a window); ``pung`` tile; ``kong`` tile (claimed in a
window; concealed or added in play); ``chi`` tile = lowest tile of the run; ``pass`` (decline a window; in the
last-four phase: lay the drawn tile aside); ``timeout`` (the engine decides: discard the drawn tile - or the highest
tile after a claim -, pass a window, lay aside in the last four, start the next hand); ``next_hand`` (any seat,
once a hand has ended; the first hand starts with ``Table.new``).

State: ``table.match`` (:class:`MatchState`, money in ``table.match.ledger``) and ``table.hand`` (:class:`HandState`,
reset by each new hand), declared in :mod:`engine.table.state`; the flat names (``table.counts``, ``table.dealer``,
``table.stacks`` ...) read and write the same fields. Views, event data and ``last_result`` have declared shapes
(TypedDicts in :mod:`engine.table.state`: plain dicts at run time).

Views (plain dicts, tiles as kinds 0-33): see :func:`engine.table.views.build_view` for the keys. Events:
``Event(type, seat, data, to)``; ``to`` set = private to that seat, ``event.for_seat(s)`` gives what s may see.
Errors: ``IllegalAction`` codes ``not_your_turn``, ``illegal_action``, ``match_over``, ``bad_action``,
``bad_action_json``, ``bad_seat_number``, ``bad_wall``, ``bad_players`` (catalogue keys ``engine.<code>``).

Seats: chairs 0-3; the wind of chair s in a hand is ``(s - dealer) % 4`` (0 = E = dealer). Events and views use
chairs; melds' ``fed_by`` are chairs. Scoring receives winds (what ``engine.variants`` expects).
"""

from .actions import ACTION_TYPES, Action, Event, IllegalAction
from .flow import Table
from .state import PHASES, HandResult, HandState, MatchState, View, WinnerResult
from .wall import arrange, verify_commitment

__all__ = [
    "ACTION_TYPES",
    "PHASES",
    "Action",
    "Event",
    "HandResult",
    "HandState",
    "IllegalAction",
    "MatchState",
    "Table",
    "View",
    "WinnerResult",
    "arrange",
    "verify_commitment",
]
