"""``Variant.payments`` (what the strong AI reads of a win: engine/strong/lookahead.py ``wait_payments``) against the
full scorer ``Variant.score``: the same payments, or a refusal where the scorer refuses, on the ready hands of real
play, in many situations and house rules, the scorers' caches cold and warm."""

from __future__ import annotations

import itertools
import random

import pytest

from engine.ai import choose
from engine.ai_common import near_kinds
from engine.errors import EngineError
from engine.table import Table
from engine.tiles import NUM_KINDS, Hand
from engine.variants import chizhou, get_variant, hefei, wuhu
from engine.variants.base import Situation

VARIANTS = ("wuhu", "hefei", "chizhou")
MODULES = {"wuhu": wuhu, "hefei": hefei, "chizhou": chizhou}


def _ready_hands(variant: str, want: int) -> list[tuple]:
    """Ready hands of real play (games of four normal AIs): every seat's 13 tiles, with melds, that some kind
    completes, with the seat and the table's melds, each once, until ``want`` of them."""
    from engine.analysis import is_complete

    got: dict[tuple, None] = {}
    for i in range(60):
        t = Table.new(variant, f"payments:{i}")
        rng = random.Random(i)
        while t.hand.phase in ("play", "claim", "rob"):
            for seat in range(4):
                c = list(t.hand.counts[seat])
                melds = tuple(t.hand.melds[seat])
                if sum(c) + 3 * len(melds) != 13:
                    continue
                ready = False
                for k in near_kinds(c):
                    c[k] += 1
                    ready = ready or is_complete(c)
                    c[k] -= 1
                if ready:
                    got[(tuple(c), melds, seat, tuple(tuple(m) for m in t.hand.melds))] = None
            if len(got) >= want:
                return list(got)
            s = t.awaited()[0]
            la = t.legal_actions(s)
            t.apply(la[0] if len(la) == 1 else choose(t, s, la, "normal", rng))
    return list(got)


def _clear(module) -> None:
    for f in vars(module).values():
        if hasattr(f, "cache_clear"):
            f.cache_clear()


def _scored(V, hand: Hand, sits, rules) -> list:
    out = []
    for s in sits:
        try:
            out.append(V.score(hand, s, rules).payments)
        except EngineError:
            out.append(None)
    return out


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_payments_are_the_scorers_on_ready_hands_of_real_play(variant):
    V = get_variant(variant)
    hands = _ready_hands(variant, 60)
    assert len(hands) == 60
    # the house rules of two choices (the match's length apart, none is read by the scorers)
    rule_sets = [V.rules()] + [V.rules({r.key: c}) for r in V.house_rules if len(r.choices) == 2
                               for c in r.choices if c != r.default]
    wins = refused = 0
    for n, (counts, melds, wind, seats) in enumerate(hands):
        if n % 7 == 0:  # now and then the scorers' kept answers are dropped: the next hands are scored cold
            _clear(MODULES[variant])
        others = [s for s in range(4) if s != wind]
        sits = [Situation(winner=wind, discarder=d, kong_draw=kd, rob_kong=rk, last_tiles=lt,
                          dealer_streak=1 + (n + j) % 3, melds_by_seat=seats)
                for j, (d, kd, rk, lt) in enumerate(itertools.product([None, *others], (False, True), (False, True),
                                                                      (False, True)))]
        sits += [Situation(winner=wind, heavenly=wind == 0, earthly=wind != 0, discarder=None if wind == 0 else 0)]
        concealed = tuple(k for k in range(NUM_KINDS) for _ in range(counts[k]))
        for k in near_kinds(list(counts)):
            hand = Hand(concealed, melds, k)
            for i, rules in enumerate(rule_sets):
                if (n + i) % 2:  # the scorer first, then the payments (warm); else the payments first (cold)
                    want = _scored(V, hand, sits, rules)
                    got = V.payments(hand, sits, rules)
                else:
                    got = V.payments(hand, sits, rules)
                    want = _scored(V, hand, sits, rules)
                assert got == want, (variant, hand, rules)
                wins += sum(p is not None for p in got)
                refused += sum(p is None for p in got)
    assert wins > 100 and refused > 100
