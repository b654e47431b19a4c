"""AI players: discards and claims by shanten and counts of winning tiles, aware of each variant's goals.

``choose(view_or_table, seat, legal_actions, difficulty="normal", rng=None) -> Action``

The AI sees only what its seat may see: it reads the seat's view (``Table.view(seat)``; a Table passed in is turned
into that view first), never the wall or another seat's tiles. Tiles still unseen = the variant's tile counts minus
the seat's own tiles, every meld and every river tile.

- ``normal``: takes every win; discards to minimise an effective distance to a *legal* win: shanten, but also the
  tiles missing for 八支 (Wuhu, Hefei: 8 tiles of one suit) or for the 花 gate (Chizhou: 2 花), then prefers
  discards that keep more unseen useful tiles, keeps to its main suit (清一色 / 混一色, i.e. 交 and big hands, when
  one suit dominates), claims pung / kong / chi only when they bring the hand closer (Hefei: one claim per hand,
  so only a good one), takes kongs that cost nothing. The variant's goals come from its ``Variant.ai`` profile
  (:class:`engine.variants.base.AiProfile`); the AI never branches on a variant's name. Chizhou: the 花 still missing count honour pairs and singles,
  suited triplets (a concealed kong), shown pungs with a live fourth tile (an added kong) and suited pairs, each only
  while the tiles it needs are still unseen; a ready hand is at distance 0 only when some unseen tile wins it with
  the 花 it needs (an honour pair's self-drawn third adds one), and of ready discards the one with the most legal
  winning tiles is kept (a tile that may also be won on a discard, with 3 花, counts double); a claimable kong beats
  the pung of the same tile, and a kong that adds 花 is taken when the distance holds; a hand still two or more
  tiles short of 2 花 late in the wall (it will not win this hand) lets go of the tiles that give the others 花: an
  honour with two copies unseen, a suited tile whose other three copies are unseen (:func:`feed_discard`).
- ``easy``: takes every win; discards to the same effective distance (八支, the 花 gate) but with random ties, only
  keeping 八支 once reached; claims and kongs only what builds 花 (Chizhou: honour pungs, kongs) and only when that
  costs no distance; late and far from 2 花 it lets go of the same tiles as normal. It knows each variant's gates,
  so four easy AIs win hands everywhere and a match ends.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from .ai_common import (
    SeatReader,
    action_tile,
    best_discard,
    claim_choice,
    claim_key,
    feed_discard,
    forced,
    kong_key,
    normal_kong,
    plain_actions,
)
from .errors import EngineError
from .table.actions import Action
from .tiles import HONOR

DIFFICULTIES = ("easy", "normal", "strong")


def decision_rng(seed: int | str, seq: int, seat: int) -> random.Random:
    """The generator of the easy AI's one decision for ``seat`` at a table whose match has ``seed``, when the table
    has applied ``seq`` actions: a function of the game's own seed and position, so a game's decisions do not depend
    on what happened to the process playing it (a decision dropped or asked again, a restart, a worker).

    >>> decision_rng("s", 3, 1).random() == decision_rng("s", 3, 1).random() != decision_rng("s", 4, 1).random()
    True
    """
    return random.Random(f"{seed}:{seq}:{seat}")


def choose(
    view_or_table: Any,
    seat: int,
    legal_actions: Sequence[Action | Mapping[str, Any]],
    difficulty: str = "normal",
    rng: random.Random | None = None,
) -> Action:
    """The AI's action for ``seat`` among ``legal_actions`` (never empty)."""
    if difficulty not in DIFFICULTIES:
        raise EngineError("bad_rule_value", key="difficulty", value=difficulty, expected="/".join(DIFFICULTIES))
    if difficulty == "strong":  # expected 子 from the seat's view: engine/strong
        from .strong import choose as strong_choose
        return strong_choose(view_or_table if isinstance(view_or_table, Mapping) else view_or_table.view(seat),
                             seat, legal_actions)
    rng = rng or random.Random(0)
    acts = plain_actions(legal_actions)
    obvious = forced(acts)
    if obvious is not None:
        return obvious
    me = SeatReader(view_or_table, seat)
    types = {a.type for a in acts}
    pass_act = next((a for a in acts if a.type == "pass"), None)
    if "discard" not in types:
        # a claim window (or the last-four phase, where only pass remains)
        if pass_act is None:
            return acts[0]
        if difficulty == "easy":
            return _easy_claim(me, acts, pass_act)
        return claim_choice(me, acts, pass_act)
    discards = [a for a in acts if a.type == "discard"]
    if difficulty == "easy":
        return _easy_play(me, acts, discards, rng)
    choice, key = best_discard(me, me.counts, me.n_melds, me.meld_suits, me.meld_hua, discards)
    return normal_kong(me, acts, key) or feed_discard(me, discards) or choice


def _easy_play(me: SeatReader, acts: Sequence[Action], discards: Sequence[Action], rng: random.Random) -> Action:
    """Easy: the discards that leave the hand nearest a legal win (八支, the 花 gate), one of them at random; in
    Chizhou a kong that adds 花 without setting the hand back."""
    keys = []
    for a in discards:
        c = list(me.counts)
        c[action_tile(a)] -= 1
        k = me.key(c, me.n_melds, me.meld_suits, me.meld_hua)[0]
        # 八支 reached (8 tiles of a suit or more): of discards as near, one that keeps it
        most = max(sum(c[s * 9 : s * 9 + 9]) + me.meld_suits[s] for s in range(3)) if me.ai.bazhi else 0
        keys.append(((k, -max(most, 7)), a))
    best = min(k for k, _ in keys)
    if me.ai.hua_gate:
        for a in acts:
            if a.type == "kong" and kong_key(me, a)[0] <= best[0]:
                return a
    return feed_discard(me, discards) or rng.choice([a for k, a in keys if k == best])


def _easy_claim(me: SeatReader, acts: Sequence[Action], pass_act: Action) -> Action:
    """Easy claims only what builds 花 (Chizhou: an honour pung or kong, a kong) and only when it costs nothing."""
    if not me.ai.hua_gate:
        return pass_act
    now = me.key(me.counts, me.n_melds, me.meld_suits, me.meld_hua)
    for a in acts:
        if a.type in ("pung", "kong") and (a.type == "kong" or action_tile(a) >= HONOR):
            after = claim_key(me, a)
            if after is not None and after[0] <= now[0]:
                return a
    return pass_act
