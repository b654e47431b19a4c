"""The wall: a seeded shuffle, the dice and the wall break, and the commitment that makes the shuffle checkable.

At a hand's start the table publishes ``commitment = sha256(salt + ":" + wall)`` where ``wall`` is the draw order
written as tile names joined by commas and ``salt`` a per-hand secret derived from the seed. At the hand's end it
reveals ``{"salt": ..., "wall": [...]}`` and anyone can check it with :func:`verify_commitment`.

>>> wall = [0, 1, 2]
>>> c = commitment(wall, "abc")
>>> verify_commitment(c, {"salt": "abc", "wall": ["1m", "2m", "3m"]})
True
>>> verify_commitment(c, {"salt": "abc", "wall": ["1m", "3m", "2m"]})
False
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Mapping, Sequence
from typing import Any

from ..tiles import tile_name


def hand_rng(variant: str, seed: int | str, hand_no: int) -> random.Random:
    """The random source of one hand: a pure function of (variant, seed, hand number)."""
    h = hashlib.sha256(f"mjbot|{variant}|{seed}|{hand_no}".encode()).digest()
    return random.Random(int.from_bytes(h[:16], "big"))


def hand_salt(variant: str, seed: int | str, hand_no: int) -> str:
    return hashlib.sha256(f"mjbot-salt|{variant}|{seed}|{hand_no}".encode()).hexdigest()[:32]


def wall_text(wall: Sequence[int]) -> str:
    return ",".join(tile_name(k) for k in wall)


def commitment(wall: Sequence[int], salt: str) -> str:
    return hashlib.sha256(f"{salt}:{wall_text(wall)}".encode()).hexdigest()


def verify_commitment(commit: str, reveal: Mapping[str, Any]) -> bool:
    """Whether ``reveal`` (``{"salt": str, "wall": [tile names or kinds]}``) matches the published commitment."""
    try:
        salt = str(reveal["salt"])
        names = [w if isinstance(w, str) else tile_name(int(w)) for w in reveal["wall"]]
    except (KeyError, TypeError, ValueError, IndexError):
        return False
    return hashlib.sha256(f"{salt}:{','.join(names)}".encode()).hexdigest() == commit


def roll(rng: random.Random) -> tuple[int, int]:
    return (rng.randint(1, 6), rng.randint(1, 6))


def break_wall(physical: Sequence[int], dealer_rolls: Sequence[tuple[int, int]]) -> tuple[list[int], dict[str, Any]]:
    """Break the square wall and return the draw order and a description of the break.

    The physical wall is four sides of ``len/4`` tiles in stacks of two, side 0 in front of the dealer, then the
    sides of the following seats in turn order. One roll (Wuhu, Hefei): its total s counts seats from the dealer
    (s = 1 the dealer) to choose the side, and the draw starts after s stacks of that side. Two rolls (Chizhou, C2):
    the first total chooses the side as above, the second roll is added to it and the draw starts after that many
    stacks, running on into the next side when the side is shorter. Replacement tiles come from the other end.
    """
    n = len(physical)
    side_len = n // 4
    total = sum(sum(r) for r in dealer_rolls)
    side = (sum(dealer_rolls[0]) - 1) % 4
    start = (side * side_len + 2 * total) % n
    order = list(physical[start:]) + list(physical[:start])
    info = {"side": side, "stacks": total, "start": start}
    return order, info


def arrange(hands: Sequence[Sequence[int]], draws: Sequence[int], rest: Sequence[int]) -> list[int]:
    """A draw order that deals ``hands`` (in turn order from the dealer: 14, 13, 13, 13 tiles) and then gives the
    tiles ``draws`` in order, followed by ``rest`` (the remaining tiles; the last of them are the replacement tiles,
    taken from the very end backwards). Mirrors :func:`deal_order`. For scripted tests and puzzles.
    """
    n_total = sum(len(h) for h in hands) + len(draws) + len(rest)
    wall: list[int | None] = [None] * n_total
    for pos, (who, idx) in enumerate(deal_order()):
        wall[pos] = hands[who][idx]
    pos = 53
    for t in list(draws) + list(rest):
        wall[pos] = t
        pos += 1
    out: list[int] = []
    for slot in wall:
        assert slot is not None, "the hands, draws and rest leave a hole in the wall"
        out.append(int(slot))
    return out


def deal_order() -> list[tuple[int, int]]:
    """(turn position from the dealer, index in that hand) for the first 53 tiles: three rounds of four tiles
    each, then one each, then the dealer's 14th."""
    out: list[tuple[int, int]] = []
    got = [0, 0, 0, 0]
    for _ in range(3):
        for p in range(4):
            for _ in range(4):
                out.append((p, got[p]))
                got[p] += 1
    for p in range(4):
        out.append((p, got[p]))
        got[p] += 1
    out.append((0, got[0]))
    return out
