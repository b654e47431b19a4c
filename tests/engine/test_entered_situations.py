"""What a player types about how a hand was won (``mjbot score``, ``/score``, ``/record``) is refused the same way in
every variant when it cannot be: a kong replacement win without a kong, a meld fed by the winner, a 天胡 / 地胡 where
the variant does not score them, the last four tiles where there is no such phase, and flags that cannot go together.
Hefei and Chizhou scored the first three silently (found by an independent review); Wuhu refused them."""

from __future__ import annotations

import pytest

from engine.errors import HandError
from engine.tiles import parse_hand
from engine.variants import Situation, get_variant, variant_keys

PLAIN = {"wuhu": "12345678m11p555p+9m", "hefei": "12345678m11p555p+9m", "chizhou": "111m222p33s11z666z+1z"}


def refused(key: str, hand: str, sit: Situation) -> str:
    v = get_variant(key)
    with pytest.raises(HandError) as e:
        v.check_entered(sit)
        v.score(parse_hand(hand), sit, {})
    assert e.value.message("en") and e.value.message("zh")
    return e.value.code


@pytest.mark.parametrize("key", variant_keys())
def test_every_variant_refuses_the_same_impossible_wins(key):
    v = get_variant(key)
    plain = PLAIN[key]
    assert v.score(parse_hand(plain), Situation(winner=1), {}).payments[1] > 0  # the hand itself scores
    assert refused(key, plain, Situation(winner=1, kong_draw=True)) == "kong_draw_without_kong"
    fed = plain.replace("555p", "[555p:S]").replace("666z", "[666z:S]")
    assert fed != plain and refused(key, fed, Situation(winner=1)) == "fed_by_winner"
    ok = fed.replace(":S]", ":W]")
    assert v.score(parse_hand(ok), Situation(winner=1), {}).payments[1] > 0  # fed by another seat: scores


@pytest.mark.parametrize("key", variant_keys())
def test_flags_the_variant_has_no_use_for_are_refused(key):
    v = get_variant(key)
    plain = PLAIN[key]
    heavenly = Situation(winner=0, heavenly=True)
    earthly = Situation(winner=1, discarder=0, earthly=True)
    last = Situation(winner=1, last_tiles=True)
    if v.scores_heavenly:  # Wuhu: 天胡 and 地胡 score (W7)
        v.check_entered(heavenly)
        v.check_entered(earthly)
        assert refused(key, plain, Situation(winner=1, earthly=True)) == "earthly_from_dealer"  # no discarder
        assert refused(key, plain, Situation(winner=0, discarder=2, heavenly=True)) == "heavenly_self_drawn"
        # the dealer cannot win 地胡: said so, not "give --from E" (which would then be refused as from_self)
        assert refused(key, plain, Situation(winner=0, earthly=True)) == "earthly_dealer"
    else:
        assert refused(key, plain, heavenly) == refused(key, plain, earthly) == "no_heavenly_in_variant"
        # typed for the default winner (S): told the variant has none, not first to make the dealer the winner
        assert refused(key, plain, Situation(winner=1, heavenly=True)) == "no_heavenly_in_variant"
        assert refused(key, plain, Situation(winner=0, earthly=True)) == "no_heavenly_in_variant"
        assert v.en in HandError("no_heavenly_in_variant", variant=v.name_msg()).message("en")
    if v.reserve:  # Wuhu and Hefei: the last four tiles (W3, H7)
        v.check_entered(last)
        assert refused(key, plain, Situation(winner=1, last_tiles=True, kong_draw=True)) == "last_tiles_kong"
        if v.scores_heavenly:
            assert refused(key, plain, Situation(winner=0, last_tiles=True, heavenly=True)) == "heavenly_last_tiles"
    else:
        assert refused(key, plain, last) == "no_last_tiles_in_variant"
