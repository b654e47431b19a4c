"""What the renderers draw: small frozen dataclasses of plain data (tile kinds 0-33, ``engine.tiles.Meld``, names,
numbers, strings). The table state machine's per-seat views map onto these; the renderers know nothing else.

Seats are 0-3 = E S W N as in the engine. Every scene is hashable and cheap to build.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from engine.tiles import Hand, Meld
from engine.variants.base import Item, ScoreResult


@dataclass(frozen=True)
class HandScene:
    """One player's own hand (private: sent to that player only).

    ``concealed``: the concealed tiles (any order; drawn sorted). ``drawn``: the tile just drawn, set apart on the
    right (or the winning tile of a finished hand). ``melds``: declared melds in the order made; the claimed tile of
    each is turned sideways on the side of the seat that fed it (left 上家, middle 对家, right 下家, relative to
    ``seat``) and the feeder is named under the meld. ``highlight``: tile kinds to mark (e.g. the discards that keep
    the hand ready). ``labels``: number the tiles under them as the discard buttons are numbered
    (:func:`discard_numbers`: one number per kind, identical tiles share it). ``names``: the four seats' names, to name the feeder (else its wind is shown). ``winds``: the
    wind (0-3, 0 = E) of each seat when seats are chairs whose winds rotate (default: seat i is wind i).
    """

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    drawn: int | None = None
    seat: int | None = None
    highlight: frozenset[int] = frozenset()
    labels: bool = False
    names: tuple[str, ...] | None = None
    winds: tuple[int, ...] | None = None

    @classmethod
    def from_hand(cls, hand: Hand, **kw) -> HandScene:
        """A scene of an ``engine.tiles.Hand``; its ``win_tile`` becomes the tile set apart."""
        return cls(concealed=tuple(hand.concealed), melds=tuple(hand.melds), drawn=hand.win_tile, **kw)


def hand_slots(scene: HandScene | Hand) -> list[int]:
    """The kinds of the concealed tiles in the order drawn (sorted, then the drawn tile): label ``i+1`` is slot i.

    >>> hand_slots(HandScene(concealed=(5, 1, 33), drawn=2))
    [1, 5, 33, 2]
    """
    if isinstance(scene, Hand):
        scene = HandScene.from_hand(scene)
    return sorted(scene.concealed) + ([scene.drawn] if scene.drawn is not None else [])


def discard_numbers(scene: HandScene | Hand) -> dict[int, int]:
    """The number of each tile kind in the hand, as its discard button shows it: kinds numbered 1, 2, ... in the
    order the image shows them (sorted concealed tiles, then the drawn tile when it is a new kind); identical tiles
    share their kind's number, as they share one button (every held kind is a legal discard, one button each).

    >>> discard_numbers(HandScene(concealed=(5, 1, 1, 33), drawn=2))
    {1: 1, 5: 2, 33: 3, 2: 4}
    >>> discard_numbers(HandScene(concealed=(5, 1, 1, 33), drawn=1))
    {1: 1, 5: 2, 33: 3}
    """
    out: dict[int, int] = {}
    for k in hand_slots(scene):
        out.setdefault(k, len(out) + 1)
    return out


@dataclass(frozen=True)
class SeatScene:
    """What everyone can see of one seat.

    ``river``: discards in order. ``taken``: indices into ``river`` of discards claimed by another seat (drawn
    dimmed). ``concealed_count``: how many tiles the seat holds hidden (drawn as backs with the count). ``score``:
    running total in 子. ``alarms``: announced alarms (报警), as short texts (e.g. "清一色"). ``wind``: seat wind
    0-3 (default: the seat's index). ``bot``: an AI player. ``laid_aside``: indices into ``river`` of the tiles
    drawn in the last tiles and laid aside face up (not discards: no one may claim them; framed).
    """

    name: str
    melds: tuple[Meld, ...] = ()
    river: tuple[int, ...] = ()
    concealed_count: int = 13
    score: int = 0
    alarms: tuple[str, ...] = ()
    taken: frozenset[int] = frozenset()
    wind: int | None = None
    bot: bool = False
    laid_aside: frozenset[int] = frozenset()


@dataclass(frozen=True)
class TableScene:
    """The public table. ``seats[i]`` is seat i (E S W N). ``dealer``: the dealer's seat (庄). ``turn``: whose turn
    (None when the hand is over). ``last_discard``: (seat, index in that seat's river) of the latest discard, marked
    (None: nothing marked). ``wall``: tiles left to
    draw. ``dice``: the dice thrown (1-6 each). ``viewer``: the seat shown at the bottom (None: E S W N top-down).
    ``title``: a line at the top (variant, hand number ...). ``last_tiles``: the hand is in its last tiles (draw
    only, no claims; the header says so). ``claims``: the table waits on the other seats' claims, ``"claim"`` on the
    last discard, ``"rob"`` on an added kong (the header says so instead of whose turn: ``turn`` is None then)."""

    seats: tuple[SeatScene, SeatScene, SeatScene, SeatScene]
    dealer: int = 0
    turn: int | None = None
    last_discard: tuple[int, int] | None = None
    wall: int = 0
    dice: tuple[int, ...] = ()
    viewer: int | None = None
    title: str = ""
    last_tiles: bool = False
    claims: str = ""


@dataclass(frozen=True)
class ScoreScene:
    """A finished hand's card: the winning hand, the itemised breakdown, the payments of each seat.

    ``items`` / ``notes``: ``engine.variants.base.Item`` (``zh``/``en`` names and value). ``payments[s]``: what
    seat s gains (negative: pays). ``discarder``: who dealt in (None: self-drawn). ``robbed_kong``: the win robbed
    ``discarder``'s added kong (抢杠) rather than taking a discard. ``unit``: the unit of the payments line (default
    子). ``title``: e.g. the variant's name. ``total``: a total line, when the variant has one. ``winds``: the wind
    of each seat when seats are chairs (default: seat i is wind i, as the engine scores). ``variant``: the variant's
    key; with it each line names the ruling it comes from ("W5", see docs/rules/).

    ``jiao``: in a variant whose payments split into the stacks (底) and a 交 tally (Wuhu, W11), the 交 part of
    each seat's payment (the rest came from the stacks); None in the others. ``owed``: what each seat's items came
    to when the table settled less than that (a payer's stack held less than it owed, W11); None when every seat
    paid what the items say.
    """

    hand: Hand
    items: tuple[Item, ...]
    payments: tuple[int, int, int, int]
    names: tuple[str, str, str, str]
    winner: int
    discarder: int | None = None
    notes: tuple[Item, ...] = ()
    title: str = ""
    unit: str = "子"
    total: int | None = None
    winds: tuple[int, int, int, int] | None = None
    variant: str = ""
    robbed_kong: bool = False
    jiao: tuple[int, int, int, int] | None = None
    owed: tuple[int, int, int, int] | None = None

    @classmethod
    def from_result(
        cls,
        hand: Hand,
        result: ScoreResult,
        names: Sequence[str],
        discarder: int | None = None,
        title: str = "",
        robbed_kong: bool = False,
    ) -> ScoreScene:
        """A card from the engine's :class:`ScoreResult` (paid as scored: no stack to cap it); its 交 part when the
        variant splits its payments.

        >>> from engine.tiles import parse_hand
        >>> from engine.variants import Situation, get_variant
        >>> hand = parse_hand("1112223334577m+6m")  # 清一色: a 交 (W7), nothing from the stacks
        >>> sc = ScoreScene.from_result(hand, get_variant("wuhu").score(hand, Situation(1, 2)), "ESWN", 2)
        >>> sc.payments, sc.jiao
        ((-30, 90, -30, -30), (-30, 90, -30, -30))
        >>> ScoreScene.from_result(hand, get_variant("hefei").score(hand, Situation(1, 2)), "ESWN", 2).jiao is None
        True
        """
        jiao = None
        if result.variant:
            from engine.variants import get_variant

            if get_variant(result.variant).splits_jiao:
                jiao = tuple(result.jiao_payments)
        return cls(
            hand=hand,
            items=tuple(result.items),
            payments=tuple(result.payments),  # type: ignore[arg-type]  # four seats
            names=tuple(names),  # type: ignore[arg-type]  # four seats
            winner=result.winner,
            discarder=discarder,
            notes=tuple(result.notes),
            title=title,
            variant=result.variant,
            robbed_kong=robbed_kong and discarder is not None,
            jiao=jiao,  # type: ignore[arg-type]  # four seats
        )


@dataclass(frozen=True)
class MatchScene:
    """A match so far: ``totals[h][s]`` is seat s's running total after hand h+1 (from ``start``).

    ``hand_labels``: optional short label per hand (e.g. "东1"). ``title``: a line at the top."""

    names: tuple[str, str, str, str]
    totals: tuple[tuple[int, int, int, int], ...]
    start: tuple[int, int, int, int] = (0, 0, 0, 0)
    hand_labels: tuple[str, ...] = ()
    title: str = ""
    unit: str = "子"

    @classmethod
    def from_deltas(
        cls, names: Sequence[str], deltas: Sequence[Sequence[int]], start: Sequence[int] = (0, 0, 0, 0), **kw
    ) -> MatchScene:
        """Running totals from each hand's payments.

        >>> MatchScene.from_deltas("ABCD", [(3, -1, -1, -1), (-2, 2, 0, 0)]).totals
        ((3, -1, -1, -1), (1, 1, -1, -1))
        """
        run = list(start)
        totals = []
        for d in deltas:
            run = [a + b for a, b in zip(run, d, strict=True)]
            totals.append(tuple(run))
        return cls(names=tuple(names), totals=tuple(totals), start=tuple(start), **kw)  # type: ignore[arg-type]  # four seats each

