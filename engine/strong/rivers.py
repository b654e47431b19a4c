"""The order of a hand's discards, put back from what every seat sees (the rivers and the claimed melds)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def discard_order(view: Mapping[str, Any]) -> list[tuple[int, int, str, int]] | None:
    """The hand's discards in the order they were made, ``(seat, tile, status, claimer)`` (claimer -1: not
    claimed), put back from the public rivers and melds: the dealer first, then the next seat, or the claimer after
    a claimed tile (the meld fed by that seat with that tile). None when the rivers cannot be ordered so.
    :func:`engine.strong.evaluator.passed_since` and Hefei's learned danger (:mod:`engine.strong.hefei`) read it."""
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
