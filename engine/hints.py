"""Wait hints: which discards keep a hand ready, what each would wait on, and how many of each winning tile are
still unseen from the seat's point of view. Pure (a seat's view in, counts out): the bot shows it to players, the
AI may use the same counts.

>>> view = {"seat": 0, "hand": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 11, 12, 26], "melds": [[], [], [], []],
...         "rules": {}, "seen": [0] * 34}
>>> dict(ready_discards("hefei", view))[26]       # discard 9s: wait on 2p and 5p, four of each unseen
[(10, 4), (13, 4)]
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from engine.analysis import shanten, winning_kinds
from engine.tiles import NUM_KINDS, Hand, Meld, MeldKind
from engine.variants import get_variant
from engine.variants.base import Situation

#: ``(discard or None, [(winning kind, unseen count), ...])``: None means the 13-tile hand itself is ready.
Hint = tuple[int | None, list[tuple[int, int]]]


def _kind(x: Any) -> int:
    if isinstance(x, int):
        return x
    from engine.table.actions import parse_tile

    return parse_tile(x)


def meld_of(m: Mapping[str, Any]) -> Meld:
    """A meld from its view dict (tiles as kinds or notation)."""
    claimed = m.get("claimed")
    return Meld(MeldKind(m["kind"]), _kind(m["tile"]), m.get("fed_by"),
                None if claimed is None else _kind(claimed), bool(m.get("added")))


def unseen_counts(variant: str, view: Mapping[str, Any]) -> list[int]:
    """For every kind: how many the seat has not seen (not in its hand, any meld or river).

    >>> unseen_counts("hefei", {"hand": [0, 0], "rules": {}, "seen": [1] + [0] * 33})[0]
    1
    """
    totals = get_variant(variant).tile_counts(view["rules"])
    counts = [0] * NUM_KINDS
    for k in view["hand"]:
        counts[k] += 1
    seen: Sequence[int] = view["seen"]
    return [max(0, totals[k] - seen[k] - counts[k]) for k in range(NUM_KINDS)]


def ready_discards(variant: str, view: Mapping[str, Any]) -> list[Hint]:
    """The discards that keep the hand ready, each with the tiles it would wait on and how many of each are still
    unseen from this seat; ``[(None, waits)]`` for a 13-tile ready hand; ``[]`` when the hand is not ready.
    Only waits the variant would let the seat win on (八支, 花 ...) are listed."""
    V = get_variant(variant)
    seat = view["seat"]
    counts = [0] * NUM_KINDS
    for k in view["hand"]:
        counts[k] += 1
    n_melds = len(view["melds"][seat])
    sp = bool(V.seven_pairs and n_melds == 0)
    left = unseen_counts(variant, view)
    winds = view.get("winds") or [0, 1, 2, 3]
    dealer = winds.index(0) if 0 in winds else 0
    by_wind = None
    if "melds" in view and len(view["melds"]) == 4:
        def wind_meld(m: Mapping[str, Any]) -> Meld:
            mm = meld_of(m)
            return Meld(mm.kind, mm.tile, None if mm.fed_by is None else winds[mm.fed_by], mm.claimed, mm.added)

        by_wind = tuple(tuple(wind_meld(m) for m in view["melds"][(dealer + w) % 4]) for w in range(4))

    def legal_win(c: list[int], k: int) -> bool:
        if by_wind is None:
            return True
        try:
            w = winds[seat]
            hand = Hand(tuple(x for x in range(NUM_KINDS) for _ in range(c[x])), by_wind[w], k)
            sit = Situation(winner=w, discarder=None, dealer_streak=view.get("dealer_streak") or 1,
                            melds_by_seat=by_wind)
            return V.can_win(hand, sit, view["rules"])
        except Exception:  # an unexpected refusal must not hide the hint
            return True

    def waits(c: list[int]) -> list[tuple[int, int]]:
        if shanten(c, n_melds, seven_pairs=sp) != 0:
            return []
        return [(k, left[k]) for k in winning_kinds(c, seven_pairs=sp) if legal_win(c, k)]

    out: list[Hint] = []
    if sum(counts) % 3 == 2:
        for k in range(NUM_KINDS):
            if counts[k]:
                counts[k] -= 1
                w = waits(counts)
                counts[k] += 1
                if w:
                    out.append((k, w))
    else:
        w = waits(counts)
        if w:
            out.append((None, w))
    return out
