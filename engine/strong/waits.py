"""Which winning tiles will come (Hefei, Wuhu): a ready hand's waits priced by who holds and who throws them.

The evaluator counts a ready hand's winning tiles by their unseen copies (:meth:`engine.strong.evaluator.Know.tenpai`):
each copy as likely as any other to be this seat's next draw or another seat's next discard. The copies are not
alike. With 八支 each seat soon keeps one suit and throws the others, isolated edge tiles first; a kind already in
the rivers is thrown again readily; a copy another seat keeps is not in the wall. :func:`wait_class` files a kind
by what the seat sees of it (all public, from its view): its rank, how many other seats keep its suit (melds of it, or
a river of six or more tiles with at most a sixth of that suit), its copies in the rivers and the wall left in thirds.
``benchmarks/calibrate_waits.py`` measures, per class, the copies the other seats discarded and the seat itself drew
in four normal AIs' hands against the flat count, and writes the factors (:mod:`engine.strong.calibration_waits`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..tiles import HONOR, NUM_KINDS


def suit_keepers(view: Mapping[str, Any], seat: int) -> tuple[int, int, int]:
    """Per suit (万 筒 条), how many other seats keep it (0, 1, 2: two or more): a seat keeps a suit whose tiles its
    shown melds hold, or whose tiles are at most a sixth of its river of six or more tiles.

    >>> t = lambda *ks: [{"tile": k} for k in ks]
    >>> v = {"rivers": [t(9), t(0, 1, 2, 3, 4, 27), t(9, 0, 0, 0, 0), []], "melds": [[], [], [], t(20)]}
    >>> suit_keepers(v, 0)  # seat 1 throws 万 (keeps 筒 and 条), seat 2's river is short, seat 3 shows a 条 meld
    (0, 1, 2)
    >>> v["rivers"][2] = t(9, 0, 0, 0, 0, 0)  # six tiles, one of them 筒: a sixth, so seat 2 keeps 筒 and 条 too
    >>> suit_keepers(v, 0), suit_keepers(v, 3)  # seen from seat 3, its own meld does not count
    ((0, 2, 2), (0, 2, 2))
    """
    out = [0, 0, 0]
    for o in range(4):
        if o == seat:
            continue
        river = [int(x["tile"]) for x in view["rivers"][o]]
        meld_suits = {int(m["tile"]) // 9 for m in view["melds"][o] if int(m["tile"]) < HONOR}
        per = [0, 0, 0]
        for x in river:
            if x < HONOR:
                per[x // 9] += 1
        for s in range(3):
            if s in meld_suits or (len(river) >= 6 and per[s] * 6 <= len(river)):
                out[s] += 1
    return min(out[0], 2), min(out[1], 2), min(out[2], 2)


def in_rivers(view: Mapping[str, Any]) -> list[int]:
    """The copies of each kind in the rivers (every seat's)."""
    out = [0] * NUM_KINDS
    for r in view["rivers"]:
        for x in r:
            out[int(x["tile"])] += 1
    return out


def third(wall: int, full: int) -> str:
    """The wall left in thirds of the wall at the first discard (``full``).

    >>> third(60, 83), third(50, 83), third(20, 83), third(0, 0)
    ('early', 'mid', 'late', 'late')
    """
    f = wall / max(1, full)
    return "early" if f > 2 / 3 else ("mid" if f > 1 / 3 else "late")


def wait_class(k: int, keepers: Sequence[int], river: Sequence[int], wall_third: str) -> str:
    """The class of kind ``k``: rank ("edge" 1/9, "near" 2/8, "mid", "honour"), the other seats keeping its suit
    (0, 1, 2: :func:`suit_keepers`), its copies in the rivers (0, 1: one or more) and the wall's third.

    >>> river = [0] * NUM_KINDS
    >>> river[13] = 2
    >>> wait_class(0, (2, 0, 1), river, "early"), wait_class(13, (2, 0, 1), river, "mid")  # 1m; 5p, twice in rivers
    ('edge:2:0:early', 'mid:0:1:mid')
    >>> wait_class(25, (2, 0, 1), river, "late"), wait_class(33, (2, 0, 1), river, "late")  # 8s; 中
    ('near:1:0:late', 'honour:-:0:late')
    """
    if k >= HONOR:
        return f"honour:-:{min(river[k], 1)}:{wall_third}"
    r9 = k % 9
    rank = "edge" if r9 in (0, 8) else ("near" if r9 in (1, 7) else "mid")
    return f"{rank}:{keepers[k // 9]}:{min(river[k], 1)}:{wall_third}"


def wait_classes(view: Mapping[str, Any], seat: int, full: int) -> list[str]:
    """:func:`wait_class` of every kind from the seat's view (read once a decision)."""
    keepers = suit_keepers(view, seat)
    river = in_rivers(view)
    wt = third(int(view["wall_count"]), full)
    return [wait_class(k, keepers, river, wt) for k in range(NUM_KINDS)]
