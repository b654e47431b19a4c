"""A fourth variant is one module plus its key in ``VARIANT_KEYS``: the table, the AI and self-play need nothing else
(the bot's commands and the images neither: tests/cogs/test_fourth_variant.py).

The module here is a toy (推倒胡 on the 108 suited tiles, chi allowed, one point a payer, a match of one 圈), registered
the way a real one would be; it plays whole matches with the normal AI, zero-sum and with every tile accounted for.
"""

from __future__ import annotations

import sys
import types
from collections.abc import Mapping
from typing import Any

import pytest

import engine.variants as variants
from engine.analysis import is_complete
from engine.errors import HandError
from engine.selfplay import simulate
from engine.table import Table
from engine.tiles import HONOR, NUM_KINDS, Hand
from engine.variants.base import HouseRule, Item, ScoreResult, Situation, Variant, settle


def _score(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> ScoreResult:
    if not is_complete(hand.closed_counts):
        raise HandError("not_complete", extra="")
    w = situation.winner
    owed = {situation.discarder: 3} if situation.discarder is not None else {s: 1 for s in range(4) if s != w}
    return ScoreResult("toy", (Item("hu", "胡", "win", 1),), settle(w, owed), w, per_payer=owed)


TOY = Variant(
    key="toy", zh="玩具麻将", en="Toy", tile_counts=lambda rules: tuple(4 if k < HONOR else 0 for k in range(NUM_KINDS)),
    score_fn=_score, allows_chi=True, multiple_winners=True,
    house_rules=(HouseRule("quan_per_match", 1, (1,), "圈数", "rounds"),),
    example="123456789m123p5p+5p", code="t",
)


@pytest.fixture
def toy(monkeypatch):
    module = types.ModuleType("engine.variants.toy")
    module.VARIANT = TOY  # what get_variant reads
    monkeypatch.setitem(sys.modules, "engine.variants.toy", module)
    monkeypatch.setattr(variants, "VARIANT_KEYS", (*variants.VARIANT_KEYS, "toy"))
    return TOY


def test_a_fourth_variant_plays_whole_matches(toy):
    r = simulate("toy", 24, seed=5)
    assert r["hands"] == 24 and r["zero_sum"] and r["tiles_conserved"] and r["wins"] > 0 and r["matches"] >= 1
    t = Table.new("toy", 1, dealer=0)
    v = t.view(0)
    assert v["variant"] == "toy" and v["stacks"] is None and v["quan"] == 1 and len(v["hand"]) == 14
    assert len(t.dice) == 1 and t.live == 108 - 53


def test_an_unregistered_variant_is_refused():
    from engine.errors import EngineError

    with pytest.raises(EngineError) as e:
        Table.new("toy", 1)
    assert e.value.code == "bad_rule_value" and "wuhu/hefei/chizhou" in e.value.message("en")
