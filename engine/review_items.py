"""What makes the AI's hand bigger, in the scorer's items: the review names them for a "bigger hand" that aims at
no plan (:func:`bigger_items`, :attr:`engine.review.Decision.gains`).

Each choice (a discard, a claim, a kong, a pass) leaves a hand; the self-drawn wins that hand can reach
(:func:`_reach`: its own when ready, those of the ready hand each useful draw leads to when a step from it) are scored
by the variant's scorer, and each item's mean value over them is compared between the player's choice and the AI's.
It reads only the seat's view (its tiles, melds and what it has not seen).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

from .errors import EngineError
from .strong.evaluator import Know
from .table import Action
from .tiles import NUM_KINDS, Hand, Meld, MeldKind
from .variants.base import Item, Situation


class SeatTiles(Protocol):
    """The seat's tiles and what it knows, as :class:`engine.review._Hand` reads them from its view."""

    seat: int
    counts: list[int]
    unseen: list[int]
    drawn: int | None
    offered: int | None
    offerer: int | None

    def sh(self, c: Sequence[int], melds: int) -> int: ...


GAIN_MIN = 0.5
"""An item is named as what makes the AI's hand bigger when its mean value over the wins the AI's choice can reach
is at least this much higher than over the player's (in the unit the card shows it in: 番, 分, 花 ...)."""

Win = tuple[float, int, tuple[Item, ...]]
"""A win a hand can reach: its weight (the unseen copies that make it), the scorer's payment to the seat, its items."""


def hand_after(me: SeatTiles, melds: tuple[Meld, ...], a: Action, fed: int | None = None
               ) -> tuple[list[int], tuple[Meld, ...]] | None:
    """The seat's concealed tiles (counts) and melds after the action (a claimed meld fed by the wind ``fed``), or
    None for one that leaves no hand to read (a win, an action without a tile). :meth:`engine.review._Hand.measure`
    counts the shanten and useful tiles of the same hands."""
    c, t = list(me.counts), a.tile
    if a.type == "pass":
        if sum(c) % 3 == 2 and me.drawn is not None:  # the last four: the drawn tile is laid aside
            c[me.drawn] -= 1
        return c, melds
    if t is None:
        return None
    if a.type == "discard":
        c[t] -= 1
        return c, melds
    if a.type == "pung":
        c[t] -= 2
        return c, melds + (Meld(MeldKind.PUNG, t, fed),)
    if a.type == "chi":
        for x in (t, t + 1, t + 2):
            if x != me.offered:
                c[x] -= 1
        return c, melds + (Meld(MeldKind.CHI, t, fed, me.offered),)
    if a.type == "kong":
        if c[t] == 4:
            c[t] = 0
            return c, melds + (Meld(MeldKind.CONCEALED_KONG, t),)
        if c[t] == 3 and sum(c) % 3 == 1:
            c[t] = 0
            return c, melds + (Meld(MeldKind.KONG, t, fed),)
        c[t] -= 1
        return c, tuple(Meld(MeldKind.KONG, m.tile, m.fed_by, None, True) if m.kind is MeldKind.PUNG and m.tile == t
                        else m for m in melds)
    return None


def _after(kn: Know, me: SeatTiles, a: Action) -> tuple[list[int], tuple[Meld, ...]] | None:
    """:func:`hand_after` with the seat's melds as the scorer reads them (fed by winds)."""
    fed = None if me.offerer is None else (me.offerer - kn.dealer) % 4
    return hand_after(me, tuple(kn.own_melds), a, fed)


def _reach(kn: Know, me: SeatTiles, c: list[int], melds: tuple[Meld, ...]) -> list[Win] | None:
    """The self-drawn wins a hand can reach: a ready hand's own, a hand a step from ready those of the ready hand
    each useful draw leads to (its best-paying discard), a hand still to discard those of its best-paying discard
    of the least shanten; None for a hand further from ready (its wins are too many ways off to name an item)."""
    n = len(melds)
    if sum(c) % 3 == 2:
        left = {k: _less(c, k) for k in range(NUM_KINDS) if c[k]}
        shs = {k: me.sh(h, n) for k, h in left.items()}
        least = min(shs.values())
        return _best_paying(_reach(kn, me, left[k], melds) for k in left if shs[k] == least)
    sh = me.sh(c, n)
    if sh == 0:
        return _wins(kn, me, c, melds)
    if sh != 1:
        return None
    out: list[Win] = []
    for d in range(NUM_KINDS):
        if not me.unseen[d] or c[d] >= 4:
            continue
        c[d] += 1
        ready = None
        if me.sh(c, n) == 0:
            kept = (_less(c, k) for k in range(NUM_KINDS) if c[k])
            ready = _best_paying(_wins(kn, me, h, melds) for h in kept if me.sh(h, n) == 0)
        c[d] -= 1
        if ready is not None:
            total = sum(w for w, _, _ in ready)
            out.extend((me.unseen[d] * w / total, pay, items) for w, pay, items in ready)
    return out or None


def _best_paying(options: Iterable[list[Win] | None]) -> list[Win] | None:
    """The option whose wins pay the seat most on average (the first of them on a tie), None when none has a win."""
    best: list[Win] | None = None
    top = 0.0
    for wins in options:
        if wins:
            pay = _mean_pay(wins)
            if best is None or pay > top:
                best, top = wins, pay
    return best


def _less(c: Sequence[int], k: int) -> list[int]:
    out = list(c)
    out[k] -= 1
    return out


def _mean_pay(wins: Sequence[Win]) -> float:
    return sum(w * pay for w, pay, _ in wins) / sum(w for w, _, _ in wins)


def _wins(kn: Know, me: SeatTiles, c: list[int], melds: tuple[Meld, ...]) -> list[Win]:
    """A ready hand's self-drawn wins on the kinds still to come, as the scorer pays them."""
    mine = kn.wind_melds[:kn.wind] + (melds,) + kn.wind_melds[kn.wind + 1:]
    sit = Situation(winner=kn.wind, discarder=None, rob_kong=False, melds_by_seat=mine, last_tiles=False)
    concealed = tuple(k for k in range(NUM_KINDS) for _ in range(c[k]))
    out: list[Win] = []
    for k in range(NUM_KINDS):
        if c[k] >= 4 or not me.unseen[k]:
            continue
        c[k] += 1
        shape = me.sh(c, len(melds)) == -1
        c[k] -= 1
        if not shape:
            continue
        try:
            res = kn.V.score(Hand(concealed, melds, k), sit, kn.rules)
        except EngineError:  # a shape the variant does not let win (八支, the 花 gate)
            continue
        out.append((float(me.unseen[k]), res.payments[kn.wind], res.items))
    return out


def _profile(wins: Sequence[Win]) -> dict[str, tuple[float, Item]]:
    """Each scored item's mean value over the wins (0 where a win lacks it), with the item itself (its names)."""
    total = sum(w for w, _, _ in wins)
    out: dict[str, tuple[float, Item]] = {}
    for w, _, items in wins:
        for i in items:
            if i.kind != "info":
                v, _ = out.get(i.code, (0.0, i))
                out[i.code] = (v + w * i.value / total, i)
    return out


def bigger_items(view: Mapping[str, Any], me: SeatTiles, played: Action, ai: Action) -> tuple[Item, ...]:
    """What makes the AI's hand bigger, for a card that names no plan: the scorer's items (not its info lines) whose
    mean value over the self-drawn wins the AI's choice can reach (:func:`_reach`: ready, or a step from it) is
    :data:`GAIN_MIN` or more above their mean over the player's - an item the player's wins lack (通天, 暗活 ...) or
    score less of (Wuhu's 支 points of a longer suit), or that the player's hand cannot reach at all (a step from
    ready in shape, but no draw makes it a hand that may win); the larger difference first, at most two. () when
    either hand is further from ready, or nothing tells them apart."""
    kn = Know(view, me.seat)
    yours, its = _after(kn, me, played), _after(kn, me, ai)
    if yours is None or its is None:
        return ()
    mine_r, theirs_r = _reach(kn, me, *yours), _reach(kn, me, *its)
    c, melds = yours
    if not theirs_r or (not mine_r and me.sh(c, len(melds)) > 1):
        return ()
    theirs = _profile(theirs_r)
    mine = _profile(mine_r) if mine_r else {}  # a step from ready in shape, no draw makes a hand that may win
    diff = sorted(((v - mine.get(code, (0.0, i))[0], i) for code, (v, i) in theirs.items()),
                  key=lambda x: -x[0])
    return tuple(i for d, i in diff[:2] if d >= GAIN_MIN)
