"""The strong AI's measuring switches (docs/strong-ai-rounds.md, the seventh round): off, they change nothing; on, they move
the strong AI's prices only, never the normal AI's play (the baseline every figure is measured against)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.ai import choose
from engine.replay import HandReplay
from engine.strong import chizhou, evaluator
from engine.table import Action
from engine.tiles import parse_hand

sys.path.insert(0, str(Path(__file__).parent))
from replay_games import played  # noqa: E402


def _play_until(variant: str, deal: str, stop, chairs: tuple[str, ...] = ("strong",) * 4, rng=None):
    """Play duel deal ``deal`` of ``variant`` with ``chairs`` until ``stop(table, seat, legal)``: the table and the
    legal actions of the seat awaited then."""
    from engine.table import Table

    t = Table.new(variant, deal)
    while True:
        seat = t.awaited()[0]
        la = t.legal_actions(seat)
        if stop(t, seat, la):
            return t, la
        t.apply(la[0] if len(la) == 1 else choose(t, seat, la, chairs[seat], rng))


def _late_chizhou_view() -> dict:
    """Chizhou, hand 2 of the "img" game, before step 48: chair 0's hand is too far from 2 花 for the 48 tiles left,
    and the normal AI lets 东 go (a pair holder pungs it: engine.ai_common.feed_discard)."""
    _kw, acts = played("chizhou", "img", 4)
    r = list(HandReplay.each("chizhou", "img", {}, acts))[1]
    return dict(r.view(47, 0))


def _rank(view: dict, tile: str) -> float:
    """What the strong AI ranks discarding ``tile`` by (its price and its margin: the credit may be either)."""
    o = evaluator.evaluate(view, 0).of(Action("discard", 0, parse_hand(tile).concealed[0]))
    assert o is not None
    return o.ev + o.margin


def test_the_strong_ai_s_own_letting_go_thresholds_leave_the_normal_ai_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    """A strong-only switch (engine.strong.chizhou.LET_GO_WALL / LET_GO_NEED) takes the letting-go credit away from the
    strong AI's discard of 东; the normal AI still lets 东 go."""
    view = _late_chizhou_view()
    east = Action("discard", 0, parse_hand("1z").concealed[0])
    assert choose(view, 0, view["legal"], "normal") == east
    credited = _rank(view, "1z")
    monkeypatch.setattr(chizhou, "LET_GO_WALL", (0, 0))  # the strong AI alone lets go only once the wall is out
    assert _rank(view, "1z") <= credited - chizhou.LET_GO + 1e-9  # the letting go is not credited
    assert choose(view, 0, view["legal"], "normal") == east
    monkeypatch.setattr(chizhou, "LET_GO_WALL", None)
    monkeypatch.setattr(chizhou, "LET_GO_NEED", 99)  # no hand is that short of 2 花
    assert _rank(view, "1z") <= credited - chizhou.LET_GO + 1e-9  # the letting go is not credited
    assert choose(view, 0, view["legal"], "normal") == east


def test_the_hefei_switches_at_their_neutral_values_change_no_price(monkeypatch: pytest.MonkeyPatch) -> None:
    """A deal-in cost x1 and a margin split (15%, 15%) are today's prices and ranking, decision by decision."""
    _kw, acts = played("hefei", "img", 4)
    r = next(iter(HandReplay.each("hefei", "img", {}, acts)))
    views = []
    for k in range(8, r.n, 3):
        t = r.table(k)
        seat = t.awaited()[0]
        v = dict(t.view(seat))
        if sum(a["type"] == "discard" for a in v["legal"]) > 1:
            views.append((seat, v))
    assert len(views) > 5

    def priced() -> list[list[tuple[float, float]]]:
        return [[(o.ev, o.ev + o.margin) for o in evaluator.evaluate(v, seat).options] for seat, v in views]

    before = priced()
    monkeypatch.setitem(evaluator.DEAL_IN_COST, "hefei", 1.0)
    monkeypatch.setitem(evaluator.PRIOR_BY_DANGER, "hefei", (0.15, 0.15))
    assert priced() == before
    monkeypatch.setitem(evaluator.DEAL_IN_COST, "hefei", 2.0)  # a dearer deal-in lowers some discard's price
    assert priced() != before


def test_the_strong_ai_takes_the_kong_the_normal_ai_takes_before_letting_go(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chizhou, four strong AIs, duel deal 12 of seed 0, 29 tiles left: chair 0 (pungs of 2s and 9p, no 花, too far
    from 2 花 for the wall) may add the fourth 2s to its pung (+1 花). The normal AI takes the kong (it lets go only
    after its kongs); without engine.strong.chizhou.KONG_FIRST the letting-go credit made the strong AI throw 6z instead."""
    monkeypatch.setattr(chizhou, "KONG_FIRST", False)
    monkeypatch.setattr(chizhou, "CHI_AS_NORMAL", False)  # the way there as the strong AIs played it then (their chis)
    t, la = _play_until("chizhou", "duel:0:12", lambda t, seat, la: seat == 0 and t.hand.live == 29 and any(x.type == "kong" for x in la))
    monkeypatch.setattr(chizhou, "CHI_AS_NORMAL", True)  # a discard or a kong: the chi switch reads no such decision
    kong = Action("kong", 0, parse_hand("2s").concealed[0])
    assert choose(t, 0, la, "normal") == kong
    assert choose(t, 0, la, "strong") == Action("discard", 0, parse_hand("6z").concealed[0])
    monkeypatch.setattr(chizhou, "KONG_FIRST", True)
    assert choose(t, 0, la, "strong") == kong


def test_a_hopeless_strong_hand_feeds_a_seat_showing_3_hua(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chizhou, four strong AIs, duel deal 0 of seed 0, 17 tiles left: chair 1's hand is worth next to nothing (its
    best discard leaves it less than 0.1 子 of chance x value) while another seat shows 3 花 and may win on a discard.
    Without engine.strong.chizhou.HOPELESS the strong AI folds (9p, the safest); with it, it throws the tile that seat
    most likely waits on (7p, engine.ai_common.ron_feed_pick), so that the hand is won rather than drawn. The normal
    AI's play does not change."""
    monkeypatch.setattr(chizhou, "HOPELESS", None)
    monkeypatch.setattr(chizhou, "CHI_AS_NORMAL", False)  # the way there as the strong AIs played it then (their chis)
    t, la = _play_until("chizhou", "duel:0:0", lambda t, seat, la: seat == 1 and t.hand.live == 17 and len(la) > 1)
    monkeypatch.setattr(chizhou, "CHI_AS_NORMAL", True)  # a discard: the chi switch reads no such decision
    normal = choose(t, 1, la, "normal")
    assert choose(t, 1, la, "strong") == Action("discard", 1, parse_hand("9p").concealed[0])
    monkeypatch.setattr(chizhou, "HOPELESS", (0.1, 60))
    assert choose(t, 1, la, "strong") == Action("discard", 1, parse_hand("7p").concealed[0])
    assert choose(t, 1, la, "normal") == normal
    monkeypatch.setattr(chizhou, "HOPELESS", (0.1, 10))  # the wall not yet that low: it folds again
    assert choose(t, 1, la, "strong") == Action("discard", 1, parse_hand("9p").concealed[0])


def test_the_far_deal_in_cost_switch_folds_a_hefei_hand_three_steps_away(monkeypatch: pytest.MonkeyPatch) -> None:
    """``FAR_DEAL_IN_COST`` (Hefei's fifteenth round, measured and off): duel deal 0 of seed 0, the strong AI in chair
    3, 38 tiles left, its hand three steps from ready (1m 1p3p5p7p 3s3s3s5s5s6s7s7s9s): it keeps the normal AI's 1m
    (priced at about 2% to deal in); with the deal-in cost of a hand three or more steps away weighing 20 times when
    ranking, it lets 9s go (0.06%). The prices (``Option.ev``) stay the same: only the ranking moves."""
    import random


    t, _la = _play_until("hefei", "duel:0:0", lambda t, s, la: s == 3 and int(t.view(3)["wall_count"]) == 38
                         and any(a.type == "discard" for a in la), ("normal", "normal", "normal", "strong"),
                         random.Random(0))
    view = dict(t.view(3))
    assert sorted(view["hand"]) == [0, 9, 11, 13, 15, 20, 20, 20, 22, 22, 23, 24, 24, 26]
    monkeypatch.delitem(evaluator.FAR_DEAL_IN_COST, "hefei", raising=False)
    before = evaluator.evaluate(view, 3)
    assert before.best.action == Action("discard", 3, 0)
    monkeypatch.setitem(evaluator.FAR_DEAL_IN_COST, "hefei", (3, 1.0))  # neutral: the same ranking
    assert [(o.ev, o.ev + o.margin) for o in evaluator.evaluate(view, 3).options] == [
        (o.ev, o.ev + o.margin) for o in before.options]
    monkeypatch.setitem(evaluator.FAR_DEAL_IN_COST, "hefei", (3, 20.0))
    after = evaluator.evaluate(view, 3)
    assert after.best.action == Action("discard", 3, 26)
    assert [o.ev for o in after.options] == [o.ev for o in before.options]


def test_the_wuhu_pass_keeps_no_margin_so_the_strong_ai_pungs_where_the_normal_ai_passes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Wuhu, four strong AIs, duel deal 0 of seed 0, 46 tiles left: chair 2 (34m123379p34578s, no meld) is offered
    3p. The normal AI passes; the pung's price (about 2.83 子) is a hair above the pass's (about 2.81). With the pass
    keeping the normal AI's 30% margin (engine.strong.evaluator.PASS_PRIOR without Wuhu) the strong AI passes; with
    Wuhu's PASS_PRIOR 0 (the pass keeps only the margin's floor: docs/strong-ai-rounds.md, Wuhu's fifteenth round) it pungs.
    The prices and the normal AI's play do not change."""

    assert evaluator.PASS_PRIOR.get("wuhu") == 0.0
    t, la = _play_until("wuhu", "duel:0:0", lambda t, seat, la: seat == 2 and t.hand.live == 46 and any(x.type == "pung" for x in la))
    pung = Action("pung", 2, parse_hand("3p").concealed[0])
    passed = Action("pass", 2)
    assert choose(t, 2, la, "normal") == passed
    assert choose(t, 2, la, "strong") == pung
    e = evaluator.evaluate(t.view(2), 2)
    po, pa = e.of(pung), e.of(passed)
    assert po is not None and pa is not None and pa.ev < po.ev < pa.ev + 0.3 * pa.ev
    monkeypatch.setattr(evaluator, "PASS_PRIOR", {})
    assert choose(t, 2, la, "strong") == passed
    assert choose(t, 2, la, "normal") == passed
    e2 = evaluator.evaluate(t.view(2), 2)
    pa2 = e2.of(passed)
    assert e2.of(pung) == po and pa2 is not None and pa2.ev == pa.ev  # the prices stay: only the pass's margin moves


def test_analyse_departures_detail_splits_the_shape_discards_by_what_is_thrown_and_the_distance() -> None:
    """``benchmarks/analyse_departures.py --detail`` (docs/strong-ai-rounds.md, "Chizhou, chis and a win passed for
    the self-draw"): Chizhou duel deals 0..1 of seed 0; the discards for shape or value are filed by what each AI
    throws (the strong AI keeps an honour the normal AI throws: "suited for honour") and the distance the strong AI's
    leaves against the normal AI's; the other kinds and every game's gain stay as without it."""
    from benchmarks.analyse_departures import analyse

    plain = analyse("chizhou", 2, "0", False)["kinds"]
    split = analyse("chizhou", 2, "0", False, True)["kinds"]
    assert "discard for shape or value, early, suited for honour, as near" in split
    shape = [v["n"] for k, v in split.items() if k.startswith("discard for shape")]
    assert all(k.count(",") == 3 for k in split if k.startswith("discard for shape"))
    assert sum(shape) == plain["discard for shape or value, early"]["n"]
    assert {k: v for k, v in split.items() if not k.startswith("discard for shape")} == {
        k: v for k, v in plain.items() if not k.startswith("discard for shape")}
