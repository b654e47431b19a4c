"""What every seat sees of the hand's play, put back in order: the discards in the order they were made, the tiles
each seat let go by since its own last discard, a shown meld by wind. Read by the AIs (:mod:`engine.ai_common`,
:mod:`engine.strong`) and the review; depends on nothing but the tiles."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .tiles import Meld, MeldKind


def discard_order(view: Mapping[str, Any]) -> list[tuple[int, int, str, int]] | None:
    """The hand's discards in the order they were made, ``(seat, tile, status, claimer)`` (claimer -1: not
    claimed), put back from the public rivers and melds: the dealer first, then the next seat, or the claimer after
    a claimed tile (the meld fed by that seat with that tile). None when the rivers cannot be ordered so.
    :func:`passed_since` and Hefei's learned danger (:mod:`engine.strong.hefei`) read it."""
    rivers = view["rivers"]
    idx = [0, 0, 0, 0]
    used: set[tuple[int, int]] = set()
    cur = int(view["dealer"])
    seq: list[tuple[int, int, str, int]] = []
    total = sum(len(r) for r in rivers)
    while len(seq) < total:
        r = rivers[cur]
        if idx[cur] >= len(r):
            return None
        e = r[idx[cur]]
        idx[cur] += 1
        k, st = int(e["tile"]), str(e["status"])
        seq.append((cur, k, st, -1))
        if st == "claimed":
            claimer = None
            for c in range(4):
                for j, m in enumerate(view["melds"][c]):
                    if (c, j) in used or m.get("fed_by") != cur:
                        continue
                    if int(m.get("claimed") if m.get("claimed") is not None else m["tile"]) == k:
                        claimer = c
                        used.add((c, j))
                        break
                if claimer is not None:
                    break
            if claimer is None:
                return None
            seq[-1] = (seq[-1][0], k, st, claimer)
            cur = claimer
        else:
            cur = (cur + 1) % 4
    return seq

def passed_since(view: Mapping[str, Any]) -> list[frozenset[int]] | None:
    """Per seat, the tiles the other seats discarded since that seat's own last discard (each of them was offered
    to it and it did not win), from the public rivers and melds: the discards are put back in the order they were
    made (the dealer first, then the next seat, or the claimer after a claimed tile). None when the rivers cannot
    be ordered so (then nothing is known)."""
    seq = discard_order(view)
    if seq is None:
        return None
    out: list[frozenset[int]] = []
    for o in range(4):
        last = max((i for i, x in enumerate(seq) if x[0] == o), default=-1)
        out.append(frozenset(k for s, k, st, _ in seq[last + 1:] if s != o and st != "dead"))
    return out


def wind_meld(m: Mapping[str, Any], dealer: int) -> Meld:
    """A shown meld of the view as a :class:`engine.tiles.Meld` with its feeder counted by wind from ``dealer``."""
    fed = m.get("fed_by")
    return Meld(MeldKind(m["kind"]), int(m["tile"]), None if fed is None else (int(fed) - dealer) % 4,
                m.get("claimed"), bool(m.get("added")))
