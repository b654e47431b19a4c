"""The AI's review: the numbers of one decision, agreement with the AI that played, and the proof that the review reads
only what the seat could see (changing hidden tiles changes nothing)."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.replay import HandReplay
from engine.review import Choice, Decision, Review, review_decision, review_hand
from engine.table import Action, Table
from engine.table.wall import arrange
from engine.tiles import parse_hand, tile_name
from engine.variants import get_variant
from render.replay import describe_choice, review_summary  # the words are the render layer's

sys.path.insert(0, str(Path(__file__).parent))
from replay_games import VARIANTS, played, positions_by_seat  # noqa: E402

SEEDS = ("p1", "p2", "p3")


def _kinds(text: str) -> list[int]:
    return list(parse_hand(text).concealed)


def _scripted_table(dealer_hand: str, next_hand: str = "") -> Table:
    """A Chizhou table (honours, no seven pairs) whose dealer (chair 0) holds ``dealer_hand`` and chair 1
    ``next_hand`` (if given); the others get the rest."""
    mine, nxt = _kinds(dealer_hand), (_kinds(next_hand) if next_hand else [])
    counts = list(get_variant("chizhou").tile_counts({}))
    for k in mine + nxt:
        counts[k] -= 1
    rest = [k for k in range(34) for _ in range(counts[k])]
    random.Random(7).shuffle(rest)
    if not nxt:
        nxt, rest = rest[:13], rest[13:]
    hands = [mine, nxt, rest[:13], rest[13:26]]
    rest = rest[26:]
    wall = arrange(hands, [], rest)
    return Table.new("chizhou", "script", wall=wall, dealer=0)


def test_shanten_and_useful_tiles_of_a_discard_counted_by_hand():
    t = _scripted_table("123m456p789s11z5m9p1s")
    view = t.view(0)
    d = review_decision(view, Action("discard", 0, _kinds("1s")[0]), step=1)
    # 123m 456p 789s 11z + 5m 9p: one from ready; 3m 4m 5m 6m 7m (a shape with 5m), 7p 8p 9p (with 9p), 1z (a third)
    # unseen: 4 each, minus the seat's own 3m, 5m, 9p and two 1z -> 3+4+3+4+4 + 4+4+3 + 2 = 31
    assert (d.played.shanten, d.played.useful) == (1, 31)
    d2 = review_decision(view, Action("discard", 0, _kinds("5m")[0]), step=1)
    # 123m 456p 789s 11z + 9p 1s: 7p 8p 9p (3 unseen), 1s (3) 2s 3s, 1z (2) -> 4+4+3 + 3+4+4 + 2 = 24
    assert (d2.played.shanten, d2.played.useful) == (1, 24)
    assert d.ai.action.type == "discard" and d.ai.action.seat == 0


def test_a_pass_and_a_pung_are_measured_on_what_they_leave():
    t = _scripted_table("2468m2468p2468s1z4z", "123m456p789s11z5m9p")
    t.apply(Action("discard", 0, _kinds("1z")[0]))
    view = t.view(1)
    assert {a["type"] for a in view["legal"]} == {"pung", "pass"}
    passed = review_decision(view, Action("pass", 1), step=1)
    # the pass keeps 123m 456p 789s 11z 5m 9p: one from ready; 3m-7m (3+4+3+4+4), 7p 8p 9p (4+4+3), and the last 1z
    assert (passed.played.shanten, passed.played.useful) == (1, 30)
    pung = review_decision(view, Action("pung", 1, _kinds("1z")[0]), step=1)
    # after the pung it still discards 5m or 9p: ready on the other one, 3 of it unseen
    assert (pung.played.shanten, pung.played.useful) == (0, 3)
    me = review_decision.__globals__["_Hand"](view)
    assert me.measure(Action("win", 1)) == Choice(Action("win", 1), -1, 0)


def test_the_strong_ai_agrees_with_itself_on_every_decision():
    """Hands played by the strong AI at every seat: the review (the strong AI's evaluator asked from each seat's view)
    finds no disagreement and no cost - the review sees what the AI saw when it played."""
    for v in VARIANTS:
        _kw, acts = played(v, "self", 2, ("strong",) * 4)
        for h in (0, 1):
            r = HandReplay.build(v, "self", {}, acts, h)
            for seat in range(4):
                rv = review_hand(r, seat)
                assert rv.decisions, (v, h, seat)
                assert rv.disagreements == 0, (v, h, seat, [d for d in rv.decisions if not d.agrees][:1])
                assert rv.biggest is None and rv.cost == 0.0


def test_the_card_numbers_are_the_evaluators():
    """Replaying a decision: the prices on the card (the review's rows) are the strong AI's evaluator's own figures
    for the player's choice and for the best one, from the seat's view at that step."""
    from engine.strong import evaluate
    from engine.strong.evaluator import danger_by_seat
    from render.replay import REVIEW_MAX_ROWS, review_rows

    for v in VARIANTS:
        _kw, acts = played(v, "weak", 1)
        r = HandReplay.build(v, "weak", {}, acts, 0)
        rv = review_hand(r, 0)
        rows = {row[0]: row for row in review_rows(rv, "en")}
        checked = 0
        for d in rv.decisions:
            if d.agrees:
                continue
            ev = evaluate(r.view(d.step - 1, 0), 0)
            played_opt, best = ev.of(d.played.action), ev.best
            assert played_opt is not None and best.action == d.ai.action
            assert d.played.ev == played_opt.ev and d.ai.ev == best.ev
            # and so are the figures the reasons quote: the chances to win and to deal in, the values, the costs
            for c, o in ((d.played, played_opt), (d.ai, best)):
                assert (c.win, c.value, c.deal_in) == (o.win, o.value, o.deal_in)
                # whom the tile is dangerous against: the evaluator's seat, or where it named none for a riskier
                # discard than the AI's, the seat that makes most of the danger by its own figures
                if c.threat != o.threat:
                    assert o.threat is None and c is d.played and c.action.tile is not None
                    by_seat = danger_by_seat(r.view(d.step - 1, 0), 0, c.action.tile, c.win * c.value)
                    assert c.threat == max(range(4), key=lambda s: by_seat[s])
                assert c.danger == pytest.approx(o.deal_in * o.cost)
            # the loss is the difference of the two prices as the card shows them (each to 0.1 子)
            assert d.cost == round(max(0.0, round(best.ev, 1) - round(played_opt.ev, 1)), 1)
            if d.step not in rows:  # the card lists the costliest disagreements (those that cost 子)
                assert d.cost == 0.0 or len(rows) == REVIEW_MAX_ROWS
                continue
            _step, loss, you, ai, why = rows[d.step]
            assert you.endswith(f"{played_opt.ev + 0.0:.1f} 子 expected".replace("-0.0", "0.0"))
            assert ai.endswith(f"{best.ev:.1f} 子 expected".replace("-0.0", "0.0"))
            shown = [float(x.split(" · ")[-1].split(" ")[0]) for x in (you, ai)]
            assert loss == f"-{d.cost:.1f} 子" == f"-{shown[1] - shown[0]:.1f} 子" and d.cost > 0 and why
            checked += 1
        assert checked > 0, v


def test_a_weaker_player_is_told_where_the_ai_disagrees():
    for v in VARIANTS:
        _kw, acts = played(v, "weak", 1)
        r = HandReplay.build(v, "weak", {}, acts, 0)
        rv = review_hand(r, 0)  # seat 0 is the easy AI
        assert [d.step for d in rv.decisions] == r.decisions(0)
        for d in rv.decisions:
            assert r.steps[d.step - 1].action == d.played.action
        assert rv.disagreements > 0
        b = rv.biggest
        assert b is not None and not b.agrees
        assert all(d.cost <= b.cost for d in rv.decisions if not d.agrees) and rv.cost >= b.cost > 0
        assert f"step {b.step}" in review_summary(rv, "en") and f"第 {b.step} 步" in review_summary(rv, "zh")
        assert str(len(rv.decisions)) in review_summary(rv, "zh-TW") and "決策" in review_summary(rv, "zh-TW")


def test_summary_and_captions_in_three_languages():
    r = Review(0, ())
    assert review_summary(r, "en") == "0 decisions, 0 where the AI disagrees"
    assert review_summary(r, "zh") == "共 0 次决策，AI 有 0 次选得不同"
    d = Decision(5, 0, Choice(Action("discard", 0, 4), 1, 20, ev=2.0, win=0.2),
                 Choice(Action("discard", 0, 13), 1, 28, ev=3.26, win=0.3), reason="faster")
    assert d.loss == (0, 8) and d.cost == 1.3
    assert review_summary(Review(0, (d,)), "en").endswith("they cost about 1.3 子, the most at step 5 (1.3 子)")
    assert describe_choice(d.ai, "en") == "discard 5p · 1 shanten · 28 useful"
    assert describe_choice(d.ai, "zh-TW") == "打五筒 · 1 向聽 · 進張 28"
    assert describe_choice(Choice(Action("chi", 0, 2), 0, 6), "zh") == "吃三四五万 · 听牌 · 进张 6"
    from render.replay import describe_priced, describe_reason, review_head

    assert describe_priced(d.ai, "zh-TW") == "打五筒 · 期望 3.3 子"
    assert describe_reason(d, "en") == "faster hand: 28 useful tiles against 20, 30% to win against 20%"
    assert describe_reason(d, "zh-TW") == "更快的牌：進張 28 對 20，和牌機會 30% 對 20%"
    big = Decision(6, 0, Choice(Action("discard", 0, 4), 1, 20, ev=2.0, value=15.0),
                   Choice(Action("discard", 0, 13), 2, 28, ev=5.0, value=150.0, plan="flush"), reason="bigger",
                   item="qing_yi_se")
    assert describe_reason(big, "zh") == "更大的牌：清一色（交），和了值 150.0 子 对 15.0 子"
    assert "full flush" in describe_reason(big, "en")
    assert review_head(Review(0, (d, big)), "en") == ("Your decisions cost about 4.3 子 in this hand",
                                                      "2 decisions, 2 where the AI disagrees; they cost about 4.3 子,"
                                                      " the most at step 6 (3.0 子)",
                                                      "Judged only on what you could see at the time")
    assert review_head(Review(0, (d, big)), "zh-TW")[2] == "只按你當時能看到的牌評判"


# ------------------------------------------------------------------------------------------------ hidden tiles


def _hidden_positions(r1: HandReplay, wall: list[int]) -> tuple[list[int], list[int]]:
    """Wall positions the seat 0 never saw: the tiles still concealed at the end by the other seats that did not win
    (their final hands are shown only after the hand) and the tiles never drawn."""
    fin = r1.table(r1.n)
    winners = {w["seat"] for w in r1.result["winners"]}
    got, head, tail = positions_by_seat(r1)
    held = []
    for x in (1, 2, 3):
        if x in winners:
            continue  # a winner's hand must stay a winning hand for the same actions to stay legal
        need = list(fin.counts[x])
        for pos in reversed(got[x]):
            if need[wall[pos]]:
                need[wall[pos]] -= 1
                held.append(pos)
    return held, held + list(range(head, tail))


def _swapped(wall: list[int], held: list[int], pool: list[int], rng: random.Random) -> list[int]:
    w2 = list(wall)
    for _ in range(rng.randint(1, 3)):
        a, b = rng.choice(held), rng.choice(pool)
        w2[a], w2[b] = w2[b], w2[a]
    return w2


def _seen_by(r: HandReplay, seat: int) -> list[dict]:
    """Seat's views at each of its decisions, less the wall commitment (a hash of the whole wall, meaningless to
    the seat; it naturally differs when the wall does)."""
    out = []
    for k in r.decisions(seat):
        v = dict(r.view(k - 1, seat))
        v.pop("commitment")
        out.append(v)
    return out


def _other_game(v: str, seed: str, rng: random.Random) -> tuple[HandReplay, HandReplay] | None:
    kw, acts = played(v, seed, scripted=True)
    r1 = HandReplay.build(v, seed, {}, acts, 0, **kw)
    held, pool = _hidden_positions(r1, kw["wall"])
    w2 = _swapped(kw["wall"], held, pool, rng)
    if w2 == kw["wall"]:
        return None
    try:  # the same actions must stay legal: a swap that gives another seat a claim it never had is not this game
        r2 = HandReplay.build(v, seed, {}, acts, 0, wall=w2, dealer=kw["dealer"])
    except EngineError:
        return None
    if r2.n != r1.n:  # the hand ended sooner: a claim window closed without a seat that had answered it
        return None
    return r1, r2


@pytest.mark.parametrize("variant", VARIANTS)
def test_changing_hidden_tiles_does_not_change_the_review(variant):
    checked = 0
    hands_differ = 0
    for seed in SEEDS:
        for attempt in range(12):
            pair = _other_game(variant, seed, random.Random(attempt))
            if pair is None:
                continue
            r1, r2 = pair
            f1, f2 = r1.table(r1.n), r2.table(r2.n)
            # the two games differ in what the seat could not see ...
            if f1.counts[1:] != f2.counts[1:]:
                hands_differ += 1
            assert f1.wall != f2.wall
            # ... and agree on everything it saw (its tiles, the melds, the rivers, the legal actions)
            assert [s.action for s in r1.steps] == [s.action for s in r2.steps]
            assert _seen_by(r1, 0) == _seen_by(r2, 0)
            assert review_hand(r1, 0) == review_hand(r2, 0)
            checked += 1
    assert checked >= 8, checked
    assert hands_differ >= 4, hands_differ


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow])
@given(st.sampled_from(VARIANTS), st.sampled_from(SEEDS), st.randoms(use_true_random=False))
def test_hidden_tiles_property(variant, seed, rng):
    pair = _other_game(variant, seed, rng)
    assume(pair is not None)
    r1, r2 = pair
    assert review_hand(r1, 0) == review_hand(r2, 0)


def test_review_refuses_a_public_view():
    t = _scripted_table("123m456p789s11z5m9p1s")
    with pytest.raises(ValueError):
        review_decision(t.view(None), Action("discard", 0, 0))


def test_tile_names_used_in_messages():
    assert tile_name(_kinds("5m")[0]) == "5m"


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_match_review_is_the_sum_of_its_hands_reviews(variant):
    """One pass over a match gives every ended hand exactly as ``HandReplay.build`` does; the match review of a seat
    holds each hand's own review, its total is the sum of every decision's loss, its kinds share that total, and its
    costliest decisions are the costliest of all the hands."""
    from engine.review import KINDS, review_match

    _kw, acts = played(variant, "m1", 4)
    every = list(HandReplay.each(variant, "m1", {}, acts))
    assert len(every) >= 3 and [r.hand_no for r in every] == list(range(len(every)))
    for r in every:
        b = HandReplay.build(variant, "m1", {}, acts, r.hand_no)
        assert r.steps == b.steps and r.winds == b.winds and r.result == b.result
    assert list(HandReplay.each(variant, "m1", {}, acts[:-3]))[-1].hand_no == every[-1].hand_no - 1  # in play: left out
    mr = review_match(every, 0)
    assert [h.review for h in mr.hands] == [review_hand(r, 0) for r in every]
    losses = [d.cost for h in mr.hands for d in h.review.decisions]
    assert mr.cost == round(sum(losses), 1) and mr.cost > 0  # the easy AI in chair 0 errs
    assert mr.decisions == len(losses)
    kinds = mr.kinds()
    assert {k for k, _, _ in kinds} <= set(KINDS)
    assert sum(n for _, n, _ in kinds) == mr.costly <= mr.disagreements  # a choice worth as much is no loss
    assert abs(sum(c for _, _, c in kinds) - mr.cost) <= 0.05 * len(kinds) + 1e-9
    top = mr.costliest(3)
    assert [d.cost for _, d in top] == sorted((x for x in losses if x > 0), reverse=True)[:3]
    assert review_match([], 0).cost == 0.0 and review_match([], 0).costliest() == []


def _wuhu_dealer(hand: str) -> Table:
    """A Wuhu table whose dealer (chair 0) holds ``hand`` (14 tiles) at the deal; the others get the rest."""
    mine = _kinds(hand)
    counts = list(get_variant("wuhu").tile_counts({}))
    for k in mine:
        counts[k] -= 1
    rest = [k for k in range(34) for _ in range(counts[k])]
    random.Random(7).shuffle(rest)
    return Table.new("wuhu", "script", wall=arrange([mine, rest[:13], rest[13:26], rest[26:39]], [], rest[39:]),
                     dealer=0)


def test_a_tile_of_the_suit_let_go_from_one_suit_and_red_is_a_bigger_hand_missed(monkeypatch):
    # Wuhu: eight 万, three 红中 and three lone tiles at the deal. A strong AI that plays for one suit and 红中
    # (混一色: with a 四核 or 对对胡 beside it a 交, measured by ``calibrate_wuhu_flush.py --plan hun``; ``WUHU_HUN``, not
    # kept) lets a lone 筒 or 条 go; a player who lets a 万 go keeps a plain hand, and the card names the hand missed
    # in the player's language
    from engine.strong import evaluator
    from render.replay import describe_reason

    monkeypatch.setattr(evaluator, "WUHU_HUN", True)

    t = _wuhu_dealer("123456m99m777z4p8s5s")
    d = review_decision(t.view(0), Action("discard", 0, _kinds("1m")[0]))
    assert d.ai.plan == "hun" and d.played.plan == "" and d.reason == "bigger" and d.item == "hun_yi_se"
    assert d.ai.action.tile in _kinds("4p8s5s")
    assert describe_reason(d, "en").startswith("bigger hand: one suit and Red Dragons (half flush, 混一色: with another 嘴子 a 交)")
    assert describe_reason(d, "zh").startswith("更大的牌：混一色（再配一个嘴子成交）")
    assert describe_reason(d, "zh-TW").startswith("更大的牌：混一色（再配一個嘴子成交）")


def test_the_loss_of_a_plain_play_against_the_flush_plan_is_the_prices_difference():
    # Wuhu: thirteen 万 tiles and 123s at the deal. The strong AI lets 3s go for the 清一色 (a 交); a player who lets
    # 1m go keeps a plain hand. The card's loss is the difference of the two prices (chance x value, less the
    # danger), not of the prices with the margin the AI's choice keeps when it decides (before: 10.0 子 for 3.9; 4.4
    # since the ready plain hand and the 清一色 a step away are priced over the next draw, engine/strong/lookahead.py;
    # 7.6 since a ready hand's chance is the one measured on the strong AI's play, engine/strong/calibration_win.py;
    # 7.9 since its winning tiles are read at the measured power, READY_TILES_POW: docs/strong-ai-rounds.md, the fourteenth
    # round; 7.5 since Wuhu's READY_WIN was measured again with that power, the fifteenth round; 7.3 since a ready
    # hand's winning tiles are weighted by how often their class comes, WAIT_FACTORS: the round "Which winning tiles
    # come")
    from engine.strong.evaluator import Know

    t = _wuhu_dealer("14455667888m123s")
    v = t.view(0)
    d = review_decision(v, Action("discard", 0, _kinds("1m")[0]))
    assert d.ai.action == Action("discard", 0, _kinds("3s")[0]) and d.reason == "bigger" and d.item == "qing_yi_se"
    kn = Know(v, 0)

    def price(c: Choice) -> float:
        shape = kn.shape(list(kn.me.counts), c.action.tile)
        return (1 - c.deal_in) * (c.win * c.value + shape) - c.danger

    assert d.played.ev == pytest.approx(price(d.played), abs=1e-9)
    assert d.ai.ev == pytest.approx(price(d.ai), abs=1e-9)
    assert d.cost == round(price(d.ai) - price(d.played), 1) == 7.3


def test_a_hefei_pung_short_of_ready_is_explained_by_the_menqing_it_gives_up():
    # Hefei (H2: one claimed meld a hand; H4: 门清 10): the strong AI pungs only to get ready. A player who pungs and
    # is still not ready is told so in words, in three languages (before: "bigger hand: worth 26.8 子 against 12.4",
    # with nothing on the pung or 门清)
    from render.replay import describe_reason, review_rows

    kw, acts = played("hefei", "pung0", 1, ("normal",) * 4)
    r = HandReplay.build("hefei", "pung0", {}, acts, 0)
    rv = review_hand(r, 3)
    d = rv.at(10)
    assert d is not None and d.played.action.type == "pung" and d.ai.action.type == "pass"
    assert d.played.shanten > 0 and (d.reason, d.item) == ("bigger", "menqing")
    assert d.ai.value > d.played.value and d.cost > 0
    assert describe_reason(d, "en") == (f"keeps concealed (门清 10): worth {d.ai.value:.1f} 子 against {d.played.value:.1f} "
                                        "when won")
    assert describe_reason(d, "zh") == f"不碰保住门清（10）：和了值 {d.ai.value:.1f} 子 对 {d.played.value:.1f} 子"
    assert describe_reason(d, "zh-TW").startswith("不碰保住門清（10）：和了值")
    assert any(row[0] == 10 and row[4] == describe_reason(d, "en", None, r.winds) for row in review_rows(rv, "en"))
    # a pung whose hand would be worth more when won: the words say what the pass keeps, without the figures
    kw, acts = played("hefei", "pung6", 1, ("normal",) * 4)
    d = review_hand(HandReplay.build("hefei", "pung6", {}, acts, 0), 3).at(26)
    assert d is not None and (d.reason, d.item) == ("bigger", "menqing") and d.ai.value < d.played.value
    assert describe_reason(d, "en") == "a pung short of ready gives up concealed (门清 10)"
    assert describe_reason(d, "zh-TW") == "碰後仍未聽牌，丟了門清（10）和唯一一次碰"


# ------------------------------------------------------------------------------------------------ what the card says

_STRONG_OTHERS = ("easy", "strong", "strong", "strong")


def _reviewed(variant: str, seed: str, hand_no: int = 0, difficulties: tuple[str, ...] | None = None):
    _kw, acts = played(variant, seed, hand_no + 1, *((difficulties,) if difficulties else ()))
    r = HandReplay.build(variant, seed, {}, acts, hand_no)
    return r, review_hand(r, 0)


def test_a_choice_worth_as_much_as_the_ais_is_no_loss():
    """Wuhu, step 7: the player lets 6p go where the AI (keeping the margin of the choice it trusts) lets 8m go, but
    the evaluator prices the player's choice higher (4.0 子 against 3.7). The card listed it as a loss of "-0.0 子" with
    "better shape" as the AI's reason, in red beside a higher figure; it is no loss: it is not listed, not the
    costliest, not counted in the match's kinds, and the card's foot says the player's choice was no worse."""
    from engine.review import review_match
    from render.replay import describe_priced, review_foot, review_head, review_rows

    r, rv = _reviewed("wuhu", "img")
    d = rv.at(7)
    assert d is not None and not d.agrees and d.played.ev > d.ai.ev
    assert d.cost == 0.0 and not d.costly and rv.biggest is not None and rv.biggest.step != 7
    for lang, foot in (("zh", "第 7、22 步：你和 AI 选得不同，但不比 AI 差"), ("zh-TW", "第 7、22 步：你和 AI 選得不同，但不比 AI 差"),
                       ("en", "Steps 7, 22: not the AI's choices, but no worse")):
        rows = review_rows(rv, lang)
        assert 7 not in [row[0] for row in rows] and all(row[1] != "-0.0 子" for row in rows)
        assert foot in review_foot(rv, lang)
        assert str(rv.costly) in review_head(rv, lang)[1]  # "..., 3 at a loss"
    assert review_head(rv, "en")[1].startswith(f"8 decisions, 5 where the AI disagrees, {rv.costly} at a loss")
    mr = review_match([r], 0)
    assert sum(n for _, n, _ in mr.kinds()) == rv.costly < rv.disagreements
    # prices that show the same to 0.1 子 lose nothing: the card's loss is the difference of its two figures
    same = Decision(3, 0, Choice(Action("discard", 0, 1), 1, 20, ev=2.26), Choice(Action("discard", 0, 9), 1, 20,
                                                                                ev=2.34), reason="shape")
    assert [describe_priced(c, "en") for c in (same.played, same.ai)] == ["discard 2m · 2.3 子 expected",
                                                                          "discard 1p · 2.3 子 expected"]
    assert same.cost == 0.0 and not same.costly


def test_chizhous_all_pungs_plan_is_named_as_such():
    """Chizhou: the AI lets 1s go to keep its pairs for 对对胡 (all pungs, 3 番); the card called it "清一色/混一色（蜡子）",
    a one-suit hand the AI was not aiming at."""
    from render.replay import describe_reason

    _r, rv = _reviewed("chizhou", "weak")
    d = rv.at(38)
    assert d is not None and (d.reason, d.item, d.ai.plan) == ("bigger", "duiduihu", "pungs") and d.costly
    zh, tw, en = (describe_reason(d, lang) for lang in ("zh", "zh-TW", "en"))
    assert zh == f"更大的牌：对对胡（3 番），和了值 {d.ai.value:.1f} 子 对 {d.played.value:.1f} 子"
    assert tw.startswith("更大的牌：對對胡（3 番）") and "清一色" not in zh + tw + en
    assert en.startswith("bigger hand: all pungs (对对胡, 3 fan), worth")


def test_a_discard_that_may_deal_in_is_called_unsafe_not_a_weaker_shape():
    """Wuhu, step 41: the player's discard deals in to South (alarmed) 13% of the time (the AI's: 6%), and that is most
    of what it costs (the danger and the win a deal-in gives up); the card said "better shape" (the AI's hand is a
    step further from ready, with 29 useful tiles against the player's 7), as the danger alone was under half the loss.
    (Until the tenth round of docs/strong-ai-rounds.md this was seed d2's hand 2, step 37, then seed d37's hand 2, step 64,
    until the round "Danger prices, second pass": a deal-in to an ordinary Wuhu seat now costs about what the rest of
    the hand would have cost anyway, and that discard is called a bigger loss than its danger; then seed d89's hand 2,
    step 57, until Wuhu's fifteenth round, whose pungs play that hand differently.)"""
    from render.replay import describe_reason

    r, rv = _reviewed("wuhu", "d140", 1, _STRONG_OTHERS)
    d = rv.at(41)
    assert d is not None and d.reason == "safer" and d.costly and d.played.threat is not None
    assert d.ai.shanten > d.played.shanten and d.ai.useful > d.played.useful
    assert r.winds[d.played.threat] == 1  # South
    assert describe_reason(d, "zh", None, r.winds) == "更安全：防南（已报警），点炮机会 13% 对 6%，点炮比本来就要输的约多输 10.6 子"
    assert describe_reason(d, "zh-TW", None, r.winds) == "更安全：防南（已報警），放槍機會 13% 對 6%，放槍比本來就要輸的約多輸 10.6 子"
    assert describe_reason(d, "en", None, r.winds) == "safer against S (alarm, 报警): 13% to deal in against 6%; a " \
                                                      "deal-in would cost you about 10.6 子 more than you would lose anyway"


def test_a_deal_in_against_an_alarm_names_the_alarm_and_what_it_costs():
    """Wuhu (seed d140, hand 1), step 41: South has a 3对 alarm (清, and a 双四核; dealing a 交 into it pays for all
    three, 包). The card said whom the tile was dangerous against and the chances, not why South was a threat nor
    what a deal-in costs; the figures are the evaluator's (the chance and cost of the player's discard, from the
    seat's view at that step). (Seed al5's step 25 until the round "Danger prices, second pass" of
    docs/strong-ai-rounds.md: its deal-in now costs what the rest of the hand would have cost anyway, a shape loss; seed
    d89's hand 2, step 57, until Wuhu's fifteenth round, whose pungs play that hand differently.)"""
    from engine.strong import evaluate
    from render.replay import describe_reason

    r, rv = _reviewed("wuhu", "d140", 1, _STRONG_OTHERS)
    d = rv.at(41)
    assert d is not None and (d.reason, d.threat_why) == ("safer", "alarm") and d.cost == 1.0
    o = evaluate(r.view(40, 0), 0).of(d.played.action)
    assert o is not None and o.threat == d.played.threat
    assert r.view(40, 0)["alarms"][o.threat] == ["alarm_three_pure", "alarm_double_sihe"]
    cost = f"{o.cost:.1f}"
    assert describe_reason(d, "zh", ["A", "B", "C", "D"], r.winds) == \
        f"更安全：防南 C（已报警），点炮机会 13% 对 6%，点炮比本来就要输的约多输 {cost} 子"
    assert describe_reason(d, "zh-TW", ["A", "B", "C", "D"], r.winds) == \
        f"更安全：防南 C（已報警），放槍機會 13% 對 6%，放槍比本來就要輸的約多輸 {cost} 子"
    assert describe_reason(d, "en", ["A", "B", "C", "D"], r.winds) == (
        f"safer against S C (alarm, 报警): 13% to deal in against 6%; a deal-in would cost you about {cost} 子 more than "
        "you would lose anyway")


def test_an_honour_that_feeds_another_seats_hua_is_said_so():
    """Chizhou, step 3: the player lets 北 go with three more unseen (a pair holder pungs it: 1 花, what every Chizhou
    win is short of); the evaluator charges that, and the card called it "better shape"."""
    from render.replay import describe_reason

    _r, rv = _reviewed("chizhou", "img")
    d = rv.at(3)
    assert d is not None and (d.reason, d.feed) == ("feed", 3) and d.costly and d.played.action.tile == 30
    assert describe_reason(d, "zh") == "少喂花：北还有 3 张没见，别家碰了就多 1 花"
    assert describe_reason(d, "zh-TW") == "少餵花：北還有 3 張沒見，別家碰了就多 1 花"
    assert describe_reason(d, "en") == "gives no one a flower (花): 3 more North unseen, and a pung of it is 1 flower"


def test_a_pung_that_makes_the_hand_ready_says_so():
    """Hefei, step 20: passing the 8s that would have made the hand ready (the AI pungs it). The card said only
    "faster hand: 68% to win against 13%"; it now says the pung was ready and the pass one from it (55%: a ready hand's
    chance as measured on the strong AI's own play, engine/strong/calibration_win.py; 50% since its winning tiles are
    weighted by how often their class comes, WAIT_FACTORS)."""
    from render.replay import describe_reason

    _r, rv = _reviewed("hefei", "r24")
    d = rv.at(20)
    assert d is not None and d.played.action.type == "pass" and d.ai.action.type == "pung"
    assert (d.ai.shanten, d.played.shanten, d.reason) == (0, 1, "faster")
    assert describe_reason(d, "en") == "faster hand: ready against 1 shanten, 50% to win against 13%"
    assert describe_reason(d, "zh") == "更快的牌：听牌 对 1 向听，和牌机会 50% 对 13%"
    assert describe_reason(d, "zh-TW") == "更快的牌：聽牌 對 1 向聽，和牌機會 50% 對 13%"


def _one_hand(variant: str, seed: str, difficulty: str, act_for_seat0) -> HandReplay:
    """One hand of AI play where chair 0 does ``act_for_seat0(n, legal)`` at its n-th decision (None: as the AI)."""
    from engine.ai import choose

    t, acts, rng, n = Table.new(variant, seed), [], random.Random(seed), 0
    while t.hand.phase not in ("ended", "over"):
        seat = t.awaited()[0]
        la = t.legal_actions(seat)
        a = None
        if seat == 0 and len(la) > 1:
            n += 1
            a = act_for_seat0(n, la)
        if a is None:
            a = la[0] if len(la) == 1 else choose(t, seat, la, difficulty, rng)
        acts.append(a)
        t.apply(a)
    return HandReplay.build(variant, seed, {}, acts, 0)


def test_a_win_let_pass_is_called_a_missed_win():
    """Wuhu: the player passes on a discard it could win on. The card said "faster hand: 100% to win against 54%";
    it says the win was there and what it was worth, and the match review counts it as a win let pass."""
    from engine.review import review_match
    from render.match_review import match_review_kinds
    from render.replay import describe_reason

    passed: list[int] = []

    def skip_first_win(n: int, la: list[Action]) -> Action | None:
        if any(a.type == "win" for a in la) and not passed:
            passed.append(n)
            return next(a for a in la if a.type != "win")
        return None

    r = _one_hand("wuhu", "e5", "strong", skip_first_win)
    rv = review_hand(r, 0)
    d = next(x for x in rv.decisions if not x.agrees)
    assert d.ai.action.type == "win" and d.played.action.type == "pass" and d.reason == "win" and d.costly
    assert describe_reason(d, "en") == f"a win you let pass: worth {d.ai.value:.1f} 子"
    assert describe_reason(d, "zh") == f"这里可以和牌：和了值 {d.ai.value:.1f} 子"
    assert describe_reason(d, "zh-TW") == f"這裡可以和牌：和了值 {d.ai.value:.1f} 子"
    kinds = review_match([r], 0).kinds()
    assert [k for k, _, _ in kinds] == ["win"] and match_review_kinds(review_match([r], 0), "zh")[0][0] == "漏和"


def test_a_timed_out_decision_is_marked_on_the_card():
    """Hefei: the player's time runs out at two decisions and the table plays for them. The card charged the loss to
    "You: discard 3m" as if chosen; it says the table played it, on the card and on the step image."""
    from render.replay import replay_scene, review_rows

    r = _one_hand("hefei", "to1", "normal", lambda n, la: Action("timeout", 0) if n in (3, 4) else None)
    rv = review_hand(r, 0)
    d = next(x for x in rv.decisions if x.timeout and x.costly)
    for lang, mark in (("zh", "（超时）"), ("zh-TW", "（超時）"), ("en", " (timed out)")):
        row = next(row for row in review_rows(rv, lang) if row[0] == d.step)
        assert mark in row[2] and mark not in row[3]
        you = replay_scene(r, d.step, 0, review=rv, lang=lang).review[0][1]
        assert you.endswith(mark)
    assert not any("超时" in row[2] for row in review_rows(rv, "zh") if not rv.at(row[0]).timeout)


def test_a_tile_the_ai_lets_go_late_in_chizhou_is_not_called_a_better_shape():
    """Chizhou, hand 2, step 48: the hand is too far from 2 花 for the wall left (48 tiles) and will not win; the
    AI lets 东 go (a pair holder pungs it), which its evaluator credits (engine.strong.chizhou.LET_GO: 0.5). A player
    who keeps 东 and lets 9m go lost those 0.5 子 on the card with "better shape: the tiles it keeps work together
    better"; the card says what the AI does and why, and the match review counts it apart. The credit only ranks
    the AI's choice (``Option.margin``): it is not 子 the player lost, so the card charged "-0.5 子" for nothing; it
    charges the real difference (none: both hands are worth 0.0 子) and still says why the AI lets 东 go."""
    from engine.review import KINDS, Review
    from engine.strong.evaluator import evaluate
    from render.match_review import kind_label
    from render.replay import describe_reason, review_foot, review_rows

    _kw, acts = played("chizhou", "img", 4)
    r = list(HandReplay.each("chizhou", "img", {}, acts))[1]
    view = r.view(47, 0)
    d = review_decision(view, Action("discard", 0, _kinds("9m")[0]), 48)
    assert d.ai.action == Action("discard", 0, _kinds("1z")[0]) and d.ai.win < 0.01 and d.played.win < 0.01
    assert evaluate(view, 0).best.action == d.ai.action  # the strong AI still lets it go
    assert (d.reason, d.cost, d.costly) == ("let_go", 0.0, False)
    assert (f"{d.played.ev:.1f}", f"{d.ai.ev:.1f}") == ("0.0", "0.0")
    rv = Review(0, (d,), 60)
    assert review_rows(rv, "zh") == []
    assert review_foot(rv, "zh") == ["第 48 步：这手牌已凑不够 2 花：AI 放掉别家用得上的东，让这手牌有人能和（不算损失）"]
    assert review_foot(rv, "zh-TW") == ["第 48 步：這手牌已湊不夠 2 花：AI 放掉別家用得上的東，讓這手牌有人能和（不算損失）"]
    assert review_foot(rv, "en")[0].startswith("Step 48: this hand can no longer reach 2 flowers (花): the AI lets East go")
    assert review_foot(rv, "en")[0].endswith("so that the hand can be won (no 子 lost)")
    from render.replay import replay_scene

    note = replay_scene(r, 48, 0, review=rv, lang="zh-TW").review[2][1]  # the step image, under the two choices
    assert note == "這手牌已湊不夠 2 花：AI 放掉別家用得上的東，讓這手牌有人能和（不算損失）"
    assert describe_reason(d, "zh") == "这手牌已凑不够 2 花：AI 放掉别家用得上的东，让这手牌有人能和"
    assert describe_reason(d, "zh-TW") == "這手牌已湊不夠 2 花：AI 放掉別家用得上的東，讓這手牌有人能和"
    assert describe_reason(d, "en").startswith("this hand can no longer reach 2 flowers (花): the AI lets East go")
    assert "let_go" in KINDS and kind_label("let_go", "zh") == "凑不成花时没放牌"


def test_a_declined_kong_is_charged_only_its_real_difference():
    """Wuhu: the player, ready, passes on the third 3m it could kong. The strong AI kongs: the hand it leaves wins more
    often (21% against 18%, 3.7 子 against 3.2), and a tie-break premium (0.05 + 0.02 x its value,
    :data:`engine.strong.evaluator.KONG_PREMIUM`, 0.4 子 here) keeps a kong ahead of an equal choice. The card
    charged that premium as 子 ("-0.9 子", the AI's kong "4.1 子 expected"); it ranks the AI's choice only (its
    margin), and the card charges the real difference, the two figures it shows."""
    from engine.strong.evaluator import KONG_PREMIUM, evaluate
    from render.replay import replay_scene, review_rows

    def decline(n: int, la: list[Action]) -> Action | None:
        return next((a for a in la if a.type == "pass"), None) if any(a.type == "kong" for a in la) else None

    r = _one_hand("wuhu", "k15", "normal", decline)
    rv = review_hand(r, 0)
    d = rv.at(37)
    assert d is not None and d.ai.action == Action("kong", 0, _kinds("3m")[0]) and d.played.action.type == "pass"
    best = evaluate(r.view(36, 0), 0).best  # the strong AI still kongs, and ranks the kong with its premium
    assert best.action == d.ai.action and best.margin >= KONG_PREMIUM[0] + KONG_PREMIUM[1] * best.value - 1e-9
    assert (d.cost, d.reason) == (0.5, "faster")
    expect = {"zh": ("-0.5 子", "你：过 · 期望 3.2 子", "AI：杠三万 · 期望 3.7 子", "更快的牌：和牌机会 21% 对 18%"),
              "zh-TW": ("-0.5 子", "你：過 · 期望 3.2 子", "AI：槓三萬 · 期望 3.7 子", "更快的牌：和牌機會 21% 對 18%"),
              "en": ("-0.5 子", "You: pass · 3.2 子 expected", "AI: kong 3m · 3.7 子 expected",
                     "faster hand: 21% to win against 18%")}
    for lang, row in expect.items():
        assert next(x[1:] for x in review_rows(rv, lang) if x[0] == 37) == row
        assert replay_scene(r, 37, 0, review=rv, lang=lang).review[2][1].startswith("-0.5 子 · ")


def test_a_bigger_ready_hand_names_what_its_win_scores():
    """Wuhu, step 31: two discards that both leave the hand ready; the AI keeps 1p-9p whole, and its win scores 通天
    (the straight, a 嘴子) that the player's does not. The card said only "bigger hand: worth 25.8 子 against 18.3
    when won"; it names the item the scorer gives the AI's win (Hefei alike: 暗活 and 坎). (25.5 against 18.1 since a
    ready hand's winning tiles are weighted by how often their class comes, WAIT_FACTORS.)"""
    from render.replay import describe_reason

    _r, rv = _reviewed("wuhu", "r24")
    d = rv.at(31)
    assert d is not None and (d.reason, d.item, d.played.shanten, d.ai.shanten) == ("bigger", "", 0, 0)
    assert [i.code for i in d.gains] == ["tong_tian"]
    assert describe_reason(d, "zh") == "更大的牌：通天，和了值 25.5 子 对 18.1 子"
    assert describe_reason(d, "zh-TW") == "更大的牌：通天，和了值 25.5 子 對 18.1 子"
    assert describe_reason(d, "en") == "bigger hand: straight 1-9, worth 25.5 子 against 18.1 when won"
    _r, rv = _reviewed("hefei", "d1", 0, _STRONG_OTHERS)
    d = rv.at(31)
    # (by the mean over its winning tiles: one of three pays 支 and 暗活, two 坎; "支、暗活" when the items were read
    # from the best-paying win alone)
    assert d is not None and [i.code for i in d.gains] == ["anhuo", "kan"]
    assert describe_reason(d, "zh").startswith("更大的牌：暗活、坎，和了值")


@pytest.mark.parametrize("variant, seed, hand_no, step, played, ai, codes, zh", [
    # both a step from ready: the player's 3p leaves six 筒, and no draw makes a hand with 八支; the AI's 3m keeps
    # seven (the card said only "bigger hand: worth 21.5 子 against 17.6 when won")
    ("wuhu", "b13", 1, 32, "discard", "discard", ["zhi_fan", "base_zimo_ya_dang"],
     "更大的牌：支番、自摸压档，和了值 21.5 子 对 17.6 子"),
    # both ready, with the same items: the AI's wait is one tile (压档) and its suit longer
    ("wuhu", "b33", 0, 24, "discard", "discard", ["base_zimo_ya_dang", "zhi_fan"],
     "更大的牌：自摸压档、支番，和了值 27.1 子 对 16.1 子"),
    # a pung let pass: the AI's pung makes the hand ready with the fourth 8p in a run (四核)
    ("wuhu", "b0", 3, 18, "pass", "pung", ["si_he", "zhi_fan"], "更大的牌：四核、支番，和了值 32.5 子 对 17.6 子"),
    # a kong not made: its own item, and the 支 of the suit it keeps
    ("hefei", "b16", 1, 43, "discard", "kong", ["angang", "zhi"], "更大的牌：暗杠、支，和了值 58.1 子 对 33.6 子"),
])
def test_a_bigger_hand_names_the_items_its_wins_score_more_of(variant, seed, hand_no, step, played, ai, codes, zh):
    """A bigger hand with no plan named the item only between two ready hands whose wins differ in an item: 13 of 70
    costly "bigger" reasons in a reviewer's sample named nothing. The items are now those the self-drawn wins the
    AI's choice can reach (ready, or a step from it) score more of than the player's, by the scorer."""
    from engine.review import _Hand
    from engine.review_items import GAIN_MIN, _after, _profile, _reach
    from engine.strong.evaluator import Know
    from render.replay import describe_reason

    t = Table.new(variant, seed)
    acts: list[Action] = []
    from engine.selfplay import play_match

    play_match(t, ["easy", "normal", "normal", "normal"], random.Random(seed), max_hands=4, record=acts)
    rp = HandReplay.build(variant, seed, {}, acts, hand_no)
    view = rp.view(step - 1, 0)
    d = review_decision(view, rp.steps[step - 1].action, step)
    assert (d.reason, d.item, d.played.action.type, d.ai.action.type) == ("bigger", "", played, ai)
    assert d.costly and [i.code for i in d.gains] == codes
    assert describe_reason(d, "zh") == zh
    # each named item is worth GAIN_MIN more, on average over the AI's reachable wins, than over the player's
    me, kn = _Hand(view), Know(view, 0)
    ai_p, you = (_reach(kn, me, *_after(kn, me, c.action)) for c in (d.ai, d.played))
    assert ai_p is not None
    mine = _profile(you) if you else {}
    for code in codes:
        assert _profile(ai_p)[code][0] - mine.get(code, (0.0,))[0] >= GAIN_MIN


def test_a_timed_out_decision_is_marked_on_the_step_image_even_when_it_cost_nothing():
    """Hefei: the player's time runs out at every decision and the table plays for them. Where the table's play was
    the AI's own choice, or worth as much, the step image said "You: discard 9m" (or "pass") as if the player had
    chosen it; it says the table played it whatever the loss, as it does for a costly one."""
    from render.replay import replay_scene

    r = _one_hand("hefei", "to1", "normal", lambda n, la: Action("timeout", 0))
    rv = review_hand(r, 0)
    free = [d for d in rv.decisions if d.timeout and not d.costly]
    assert any(d.agrees for d in free)
    for d in free:
        for lang, mark in (("zh", "（超时）"), ("zh-TW", "（超時）"), ("en", " (timed out)")):
            you = replay_scene(r, d.step, 0, review=rv, lang=lang).review[0][1]
            assert you.endswith(mark), (d.step, lang, you)


def test_the_tile_being_robbed_is_not_counted_as_still_to_come():
    """Hefei: chair 3 (23m456m789m 999p 55p, ready on 1m 4m 7m) may rob the 1m chair 2 adds to its pung. Passing
    leaves it ready on 4m and 7m (three unseen copies each: 6 useful tiles); the card said 7, counting the 1m
    being added to the kong, which everyone sees, as one still to come."""
    from tests.engine.test_table_flow import ROB, _to_fourth_1m, do

    t = _to_fourth_1m("hefei", ROB)
    do(t, "kong", 2, "1m")
    assert t.phase == "rob" and t.awaited() == [3]
    d = review_decision(t.view(3), Action("pass", 3), 5)
    assert d.reason == "win" and (d.played.shanten, d.played.useful) == (0, 6)
    assert describe_choice(d.played, "en") == "pass · ready · 6 useful"


def test_the_price_of_passing_a_rob_does_not_count_the_robbed_tile_as_still_to_come():
    """The same spot: passing leaves the hand ready on 4m and 7m. The evaluator priced it counting the 1m being added
    to the kong as a tile still to draw (a winning one): "You: pass · 27.6 子 expected". It prices the pass as it
    prices the same hand once that 1m is shown in the kong: 27.5 子 (22.9 since a ready hand's chance is the one
    measured on the strong AI's own play, engine/strong/calibration_win.py; 23.0 since a ready hand's value counts its
    海捞 self-draw, engine/strong/calibration_hailao.py; 23.8 since its winning tiles are weighted by how often their
    class comes, WAIT_FACTORS)."""
    import copy

    from engine.strong.evaluator import evaluate
    from render.replay import describe_priced
    from tests.engine.test_table_flow import ROB, _to_fourth_1m, do

    t = _to_fourth_1m("hefei", ROB)
    do(t, "kong", 2, "1m")
    view = t.view(3)
    d = review_decision(view, Action("pass", 3), 5)
    shown = copy.deepcopy(dict(view))  # the 1m counted as seen, as it is once the kong is made
    shown["seen"][view["robbing"]["tile"]] += 1
    shown["robbing"] = None
    priced = evaluate(shown, 3).of(Action("pass", 3))
    assert priced is not None and d.played.ev == pytest.approx(priced.ev) and d.played.win == pytest.approx(priced.win)
    assert describe_priced(d.played, "en") == "pass · 23.8 子 expected"
    assert describe_priced(d.played, "zh-TW") == "過 · 期望 23.8 子"


def _rob_let_pass() -> HandReplay:
    """Hefei: chair 3 (23m456m789m 999p 55p, ready on 1m 4m 7m) passes on robbing the 1m chair 2 adds to its pung;
    the normal AI plays the hand out. A real stored hand (scripted wall), replayed."""
    from engine.ai import choose
    from tests.engine.test_table_flow import ROB, K, build

    t, acts = build("hefei", ROB, draws="7p 7p 7p 1m"), []

    def do(typ: str, seat: int, tile: str | int | None = None) -> None:
        a = Action(typ, seat, K(tile) if isinstance(tile, str) else tile)
        acts.append(a)
        t.apply(a)

    def pass_all() -> None:
        while t.phase in ("claim", "rob"):
            do("pass", t.awaited()[0])

    do("discard", 0, "1m")
    for s in [s for s in t.awaited() if s != 2]:
        do("pass", s)
    do("pung", 2, "1m")
    do("discard", 2, "2p")
    pass_all()
    for s in (3, 0, 1):
        do("discard", s, t.drawn[s])
        pass_all()
    do("kong", 2, "1m")
    assert t.phase == "rob" and t.awaited() == [3]
    do("pass", 3)
    rng = random.Random(0)
    while t.hand.phase not in ("ended", "over"):
        seat = t.awaited()[0]
        la = t.legal_actions(seat)
        a = la[0] if len(la) == 1 else choose(t, seat, la, "normal", rng)
        do(a.type, a.seat, a.tile)
    return HandReplay.build("hefei", 1, None, acts, 0, wall=list(t.wall), dealer=0)


def test_robbing_a_kong_is_called_so_on_the_card_and_the_step_image():
    """Hefei: the player passes where it could rob chair 2's kong. The card and the step image said the AI would
    "win" (和牌) and that "a win" was let pass; they say the AI robs the kong (抢杠 / 搶槓 / rob the kong)."""
    from render.replay import replay_scene, review_rows

    r = _rob_let_pass()
    rv = review_hand(r, 3)
    d = next(x for x in rv.decisions if x.ai.action.type == "win" and x.ai.rob)
    assert d.played.action.type == "pass" and d.reason == "win" and d.costly
    ev = f"{d.ai.ev:.1f}"
    expect = {"zh": (f"AI：抢杠 · 期望 {ev} 子", f"这里可以抢杠和牌：和了值 {ev} 子", "抢杠"),
              "zh-TW": (f"AI：搶槓 · 期望 {ev} 子", f"這裡可以搶槓和牌：和了值 {ev} 子", "搶槓"),
              "en": (f"AI: rob the kong · {ev} 子 expected", f"a kong you could rob, a win you let pass: worth {ev} 子",
                     "rob the kong")}
    for lang, (ai, why, step_ai) in expect.items():
        row = next(x for x in review_rows(rv, lang) if x[0] == d.step)
        assert (row[3], row[4]) == (ai, why)
        assert replay_scene(r, d.step, 3, review=rv, lang=lang).review[1][1] == step_ai
    # a win on a discard is still a win (和牌)
    other = next(x for x in rv.decisions if x.ai.action.type == "win" and not x.ai.rob)
    assert replay_scene(r, other.step, 3, review=rv, lang="zh").review[1][1] == "和牌"


def test_the_review_lets_go_by_the_thresholds_the_evaluator_reads(monkeypatch):
    """Chizhou: the strong AI has its own switches for when a hand too far from 2 花 lets go
    (``engine.strong.chizhou.LET_GO_WALL`` / ``LET_GO_NEED``; off, the normal AI's). The review named the reason
    "let_go" by the normal AI's thresholds, whatever the evaluator used: with the switch set to let go from the
    start, the AI let 6z go at step 16 for the table's sake and the card called it "a better shape". The review
    reads the evaluator's own let-go (``Evaluation.let_go``), so the two cannot drift apart."""
    from engine.strong import chizhou as chizhou_mod
    from engine.strong.evaluator import evaluate

    _kw, acts = played("chizhou", "img", 4)
    r = list(HandReplay.each("chizhou", "img", {}, acts))[1]
    view, played_action = r.view(15, 0), r.steps[15].action
    assert review_decision(view, played_action, 16).reason == "shape"  # the switch off: 2 花 still within reach
    monkeypatch.setattr(chizhou_mod, "LET_GO_WALL", (200, 0))
    monkeypatch.setattr(chizhou_mod, "LET_GO_NEED", 1)
    ev = evaluate(view, 0)
    d = review_decision(view, played_action, 16)
    assert ev.let_go is not None and d.ai.action == ev.best.action == ev.let_go
    assert d.reason == "let_go" and not d.costly


def _w272(pass_the_win: bool) -> tuple[HandReplay, int]:
    """Chizhou, seed w272: at chair 0's 21st decision it may win on a discard (1 子) while its hand is on the way to
    all pungs (对对胡), which the evaluator prices higher: passing 2.2 子 (20% to win 10.8). The hand, with chair 0
    passing that win (``pass_the_win``) or taking it as the AI does, and the step of that decision."""
    at: list[int] = []

    def act(n: int, la: list[Action]) -> Action | None:
        if n == 21:
            assert any(a.type == "win" for a in la)
            at.append(n)
            return Action("pass", 0) if pass_the_win else None
        return None

    r = _one_hand("chizhou", "w272", "normal", act)
    assert at
    step = r.decisions(0)[20]
    return r, step


def test_a_win_passed_for_all_pungs_priced_as_high_is_said_plainly_and_not_charged():
    """Chizhou: the strong AI takes every win, but its evaluator sometimes prices passing a 1 子 win on a discard
    above taking it (the all-pungs plan). A player who passed such a win read "AI: win" on the step image and, on the
    card, "Step 68: not the AI's choice, but no worse": the AI's choice looked like a mistake of the card. The card
    and the step image say what the player gave up, what their hand is priced at and why the AI takes the win all
    the same (passing such wins gained nothing measurable in play), not charged; a player who took the win agrees
    with the AI."""
    from render.replay import describe_reason, replay_scene, review_foot, review_rows

    r, step = _w272(True)
    rv = review_hand(r, 0)
    d = rv.at(step)
    assert d is not None and d.played.action.type == "pass" and d.ai.action.type == "win"
    assert (d.reason, d.item, d.cost, d.costly) == ("win", "duiduihu", 0.0, False)
    assert (f"{d.ai.ev:.1f}", f"{d.played.ev:.1f}", f"{d.played.win:.2f}", f"{d.played.value:.1f}") == \
        ("1.0", "2.2", "0.20", "10.8")
    why = {"zh": "你放过 1.0 子的和去做对对胡（3 番），估价 2.2 子（和牌机会 20%，和了 10.8 子）；AI 见和必和：实战中放过"
                 "这种和并没有多得，两者相当",
           "zh-TW": "你放過 1.0 子的和去做對對胡（3 番），估價 2.2 子（和牌機會 20%，和了 10.8 子）；AI 見和必和：實戰中"
                    "放過這種和並沒有多得，兩者相當",
           "en": "you let a 1.0 子 win pass for all pungs (对对胡, 3 fan), a hand priced at 2.2 子 (20% to win 10.8 子); "
                 "the AI takes every win: letting such wins pass gained nothing measurable in play, about even"}
    lost = {"zh": "（不算损失）", "zh-TW": "（不算損失）", "en": " (no 子 lost)"}
    steps = {"zh": f"第 {step} 步：", "zh-TW": f"第 {step} 步：", "en": f"Step {step}: "}
    for lang in ("zh", "zh-TW", "en"):
        assert describe_reason(d, lang) == why[lang]
        assert steps[lang] + why[lang] + lost[lang] in review_foot(rv, lang)
        assert not any(str(step) in row_line and ("no worse" in row_line or "不比" in row_line)
                       for row_line in review_foot(rv, lang))
        assert step not in [row[0] for row in review_rows(rv, lang)]
        lines = replay_scene(r, step, 0, review=rv, lang=lang).review
        assert lines[2][1] == why[lang] + lost[lang]  # the step image, under the two choices
    # the player who takes the win is never charged for it: the AI takes it too
    r2, step2 = _w272(False)
    d2 = review_hand(r2, 0).at(step2)
    assert d2 is not None and d2.agrees and d2.played.action.type == "win" and d2.cost == 0.0


def test_a_ready_shape_short_of_eight_of_a_suit_is_not_called_the_faster_hand():
    """Hefei (seed f23, the normal AI in chair 0): at step 11 the player's discard of 7m leaves 123m 678m 22p 44s and
    a pung of 3s, ready in shape but with six 万 and six 条: no win without eight of a suit (八支). The AI's 2p leaves
    it a step from ready with 30 useful tiles and wins more often. The card said "faster hand: 1 shanten against
    ready, 39% to win against 22%": the slower-looking hand called faster with no word of why. It says the player's
    hand is short of 八支; and a Chinese line no longer breaks inside "26.8 子 对 12.4 子" (step 10)."""
    from render.replay import describe_reason, review_layout

    _kw, acts = played("hefei", "f23", 1, ("normal", "normal", "normal", "normal"))
    r = HandReplay.build("hefei", "f23", {}, acts, 0)
    rv = review_hand(r, 0)
    d = rv.at(11)
    assert d is not None and d.reason == "faster" and d.gate == "bazhi"
    assert (d.played.shanten, d.ai.shanten, d.played.distance, d.ai.distance) == (0, 1, 1, 1)
    assert describe_reason(d, "zh") == "更快的牌：你的牌形听牌，但凑不够八支，和牌机会 39% 对 22%"
    assert describe_reason(d, "zh-TW") == "更快的牌：你的牌形聽牌，但湊不夠八支，和牌機會 39% 對 22%"
    assert describe_reason(d, "en") == \
        "faster hand: yours is ready in shape but short of eight of a suit (八支), 39% to win against 22%"
    for lang in ("zh", "zh-TW"):
        lines = [t.text for t in review_layout(rv, r, lang)[1]]
        assert any(line.endswith("26.8 子 对 12.4 子") or line.endswith("26.8 子 對 12.4 子") for line in lines), lines


def test_risky_choices_against_one_seat_add_up_to_one_deal_in_at_most():
    """Seven discards into an alarmed seat at 40% to deal in where the AI's tile is at 3%, each charged 26 子 (a
    deal-in costs 66 子): summed, 182 子, 2.6 deal-ins in a hand that ends at the first. They count up to one
    deal-in (66 子), in step order; a risky choice against another seat, and small risks that stay under the price
    of a deal-in, count in full."""
    from engine.review import one_deal_in
    from render.replay import review_foot

    def push(step: int, threat: int, p: float, q: float, cost: float) -> Decision:
        you = Choice(Action("discard", 0, step % 27), 1, 20, ev=-p * cost, deal_in=p, danger=p * cost, threat=threat)
        ai = Choice(Action("discard", 0, (step + 1) % 27), 1, 20, ev=-q * cost, deal_in=q, danger=q * cost)
        return Decision(step, 0, you, ai, reason="safer", threat_why="alarm")

    pushes = [push(10 + 3 * i, 1, 0.4, 0.03, 66.0) for i in range(7)]
    other = push(40, 2, 0.2, 0.0, 10.0)
    rv = Review(0, one_deal_in([*pushes, other]))
    assert [d.cost for d in rv.decisions] == [24.4] * 7 + [2.0]
    assert [d.counted for d in rv.decisions] == [24.4, 24.4, 17.2, 0.0, 0.0, 0.0, 0.0, 2.0]
    assert rv.cost == 68.0 and rv.capped() == [(list(rv.decisions[:7]), 170.8, 66.0)]
    line = next(x for x in review_foot(rv, "en") if "risky" in x)
    assert line.startswith("Steps 10, 13, 16, 19, 22, 25, 28: risky tiles against South (alarm, 报警), 170.8 子 in")
    assert "170.8 子 in all, counted as 66.0 子, one deal-in and the hand it ends" in line
    small = [push(10, 1, 0.1, 0.0, 5.0), push(12, 1, 0.1, 0.0, 5.0)]  # 0.5 + 0.5 under a 5 子 deal-in
    assert Review(0, one_deal_in(small)).cost == 1.0 and one_deal_in(small) == tuple(small)


def test_a_one_suit_hand_is_named_as_its_own_variant_scores_it():
    """Hefei and Chizhou score 清一色 under one item code; the Chizhou card named it as Hefei's ("清一色（×3）", Hefei's
    multiplier) where Chizhou's is a 蜡子 (found by an independent review: Chizhou, seed "s4", hand 1, step 13)."""
    from engine.selfplay import play_match
    from render.replay import describe_reason

    t, acts = Table.new("chizhou", "s4"), []
    play_match(t, ["easy", "normal", "normal", "normal"], random.Random(4), max_hands=1, record=acts)
    d = review_hand(HandReplay.build("chizhou", "s4", {}, acts, 0), 0).at(13)
    assert d is not None and (d.reason, d.item, d.variant) == ("bigger", "qingyise", "chizhou")
    zh, tw, en = (describe_reason(d, lang) for lang in ("zh", "zh-TW", "en"))
    assert zh.startswith("更大的牌：清一色/混一色（蜡子），") and tw.startswith("更大的牌：清一色/混一色（蠟子），")
    assert en.startswith("bigger hand: a one-suit hand (清一色 / 混一色, 蜡子), worth") and "×3" not in zh + tw + en
    hefei = Decision(d.step, 0, d.played, d.ai, reason="bigger", item="qingyise", variant="hefei")
    assert describe_reason(hefei, "zh").startswith("更大的牌：清一色（×3）")


def test_a_shape_one_step_from_ready_short_of_the_gate_reads_without_a_space_before_the_comma():
    """"你的牌形 1 向听，但凑不够…": the card read "你的牌形 1 向听 ，" (found by an independent review)."""
    from render.replay import describe_reason

    you = Choice(Action("discard", 0, 4), 1, 20, ev=1.0, win=0.1)
    ai = Choice(Action("discard", 0, 13), 2, 40, ev=2.0, win=0.2)
    d = Decision(5, 0, you, ai, reason="faster", gate="hua", variant="chizhou")
    assert describe_reason(d, "zh") == "更快的牌：你的牌形 1 向听，但凑不够和牌要的花，和牌机会 20% 对 10%"
    assert describe_reason(d, "zh-TW").startswith("更快的牌：你的牌形 1 向聽，但湊不夠")
    assert describe_reason(Decision(5, 0, you, ai, reason="faster", gate="bazhi"), "en") == \
        "faster hand: yours is 1 shanten in shape but short of eight of a suit (八支), 20% to win against 10%"


def test_a_hand_with_no_decision_of_the_player_says_so_not_that_they_matched_the_ai():
    """A hand that ended before the player had a choice to make: the card said "Your decisions matched the AI's: no
    loss" (found by an independent review)."""
    from engine.review import HandReview, MatchReview
    from render.match_review import match_review_head
    from render.replay import review_head

    empty = Review(0, (), 12, 0)
    assert [review_head(empty, lang)[0] for lang in ("zh", "zh-TW", "en")] == [
        "这手牌你没有需要做的决定", "這手牌你沒有需要做的決定", "You had no decision to make in this hand"]
    assert review_head(Review(0, (), 12, 3), "en")[0] == "The AI played this hand for you"
    m = MatchReview(0, (HandReview(0, (0, 1, 2, 3), empty),))
    assert match_review_head(m, "wuhu", "en")[1] == "You had no decision to make in this match"


# ------------------------------------------------------------------------ found by an independent review of the cards


def _easy_seat_decision(variant: str, seed: str, hands: int, hand_no: int, step: int) -> Decision:
    """Seat 0 (the easy AI, a player who makes mistakes) against three normal AIs: its decision at ``step`` of hand
    ``hand_no``, reviewed from its view."""
    from engine.selfplay import play_match

    t = Table.new(variant, seed)
    acts: list[Action] = []
    play_match(t, ["easy", "normal", "normal", "normal"], random.Random(seed), max_hands=hands, record=acts)
    rp = HandReplay.build(variant, seed, {}, acts, hand_no)
    return review_decision(rp.view(step - 1, 0), rp.steps[step - 1].action, step)


def test_a_hand_ready_in_shape_that_cannot_win_is_not_called_ready():
    """Wuhu: the AI's pung leaves 2m4m 456p 678p 44s [333s], ready in shape for 3m, but no suit holds eight tiles (八支):
    the card said "AI: pung 3s · ready" and "faster hand: ready against 1 shanten", while the evaluator counts the
    pung a step from a legal win, as far as the player's pass."""
    from render.replay import describe_reason

    d = _easy_seat_decision("wuhu", "a4", 4, 1, 21)
    assert (d.played.action.type, d.ai.action.type, d.ai.shanten, d.ai.distance, d.played.distance) == (
        "pass", "pung", 0, 1, 1)
    assert describe_choice(d.ai, "zh", "wuhu") == "碰三条 · 听牌形（不够八支） · 进张 4"
    assert describe_choice(d.ai, "en", "wuhu") == "pung 3s · ready in shape (no 八支) · 4 useful"
    assert d.reason == "faster" and describe_reason(d, "en") == "faster hand: 29% to win against 18%"


@pytest.mark.parametrize("variant, seed, hand_no, step, said", [
    # the shape made 1.0 of a 1.3 子 loss: the card said "faster hand: 3% to win against 2%" (0.35 of it)
    ("hefei", "a5", 0, 49, "better shape: 9 useful tiles against 4"),
    # the player's hand is the nearer one (2 shanten against 3): the card said "better shape: 52 useful tiles
    # against 13", comparing the useful tiles of hands at different distances
    ("hefei", "a1", 2, 25, "better shape: the tiles it keeps work together better"),
])
def test_the_reason_is_the_part_that_makes_the_loss(variant, seed, hand_no, step, said):
    from engine.review import _parts
    from render.replay import describe_reason

    d = _easy_seat_decision(variant, seed, 4, hand_no, step)
    parts = _parts(d.played, d.ai)
    assert max(parts, key=lambda k: parts[k]) == "shape" and parts["shape"] > d.cost / 2
    assert d.reason == "shape" and describe_reason(d, "en") == said


def _easy_hand(variant: str, sd: int, hand_no: int) -> HandReplay:
    """Hand ``hand_no`` of a match of four easy AIs (a learner's kind of play)."""
    from engine.selfplay import play_match

    t, acts = Table.new(variant, f"t{sd}"), []
    play_match(t, ["easy"] * 4, random.Random(100 + sd), max_hands=3, record=acts)
    return HandReplay.build(variant, f"t{sd}", {}, acts, hand_no)


def test_the_flower_gate_is_not_blamed_when_the_ais_hand_is_as_short_of_it_and_further():
    """Chizhou: the player's discard leaves 1 shanten, 2 steps from a legal win (the 花 gate counted); the AI's
    leaves 2 shanten, 3 steps from it, with 63 useful tiles against 8. The card said "faster hand: yours is 1
    shanten in shape but short of the flowers (花) a win needs": the AI's hand is as short of 花 and a step further;
    what makes it faster is its useful tiles."""
    from render.replay import describe_reason

    rp = _easy_hand("chizhou", 5, 0)
    d = review_hand(rp, 3).at(6)
    assert d is not None and d.reason == "faster" and d.costly
    assert (d.played.shanten, d.played.distance, d.ai.shanten, d.ai.distance) == (1, 2, 2, 3)  # the set-up
    assert d.gate == ""
    assert describe_reason(d, "en") == \
        "faster hand: 2 shanten with 63 useful tiles against 1 shanten with 8, 34% to win against 17%"
    for lang in ("zh", "zh-TW"):
        words = describe_reason(d, lang)
        assert "63" in words and "花" not in words, words


def test_a_wuhu_tile_likely_to_deal_in_is_named_even_when_a_deal_in_pays_little():
    """Wuhu, seat 0 an easy AI against three normal ones. At step 40 the player's discard is 15% to deal in, the
    AI's 1%; of the 0.4 子 charged, most is that danger (with the win a deal-in ends). The card said "better shape":
    the evaluator names a threat seat only when a deal-in's expected payment is large, which in Wuhu it rarely is,
    and the reason dropped the danger without one. It names the danger, against the seat that makes most of it."""
    from engine.review import _parts
    from engine.selfplay import play_match
    from engine.strong.evaluator import danger_by_seat
    from render.replay import describe_reason

    t, acts = Table.new("wuhu", "a8"), []
    play_match(t, ["easy", "normal", "normal", "normal"], random.Random(8), max_hands=4, record=acts)
    rp = HandReplay.build("wuhu", "a8", {}, acts, 0)
    d = review_hand(rp, 0).at(40)
    assert d is not None and d.costly
    parts = _parts(d.played, d.ai)
    assert (round(100 * d.played.deal_in), round(100 * d.ai.deal_in)) == (15, 1)  # the set-up
    assert max(parts, key=lambda k: parts[k]) == "safer"
    assert d.reason == "safer" and d.played.threat is not None
    view = rp.view(39, 0)
    by_seat = danger_by_seat(view, 0, d.played.action.tile or 0, d.played.win * d.played.value)
    assert d.played.threat == max(range(4), key=lambda o: by_seat[o])
    # the price is the evaluator's, whatever the words
    from engine.strong import evaluate

    assert evaluate(view, 0).of(d.played.action).ev == d.played.ev
    # a deal-in to East (the dealer, seat 3) costs little more than East's win would anyway; the hand it ends is
    # most of what it costs
    assert rp.winds[3] == 0 and d.played.threat == 3
    assert [describe_reason(d, lang, list("ABCD"), rp.winds) for lang in ("en", "zh", "zh-TW")] == [
        "safer against E D: 15% to deal in against 1%; a deal-in would cost you about 0.3 子 more than you would lose "
        "anyway and end your hand (worth 1.8 子 expected)",
        "更安全：防东 D，点炮机会 15% 对 1%，点炮比本来就要输的约多输 0.3 子，还断送这手牌（期望 1.8 子）",
        "更安全：防東 D，放槍機會 15% 對 1%，放槍比本來就要輸的約多輸 0.3 子，還斷送這手牌（期望 1.8 子）"]


def test_the_shape_is_named_when_it_is_the_largest_part_the_card_can_name():
    """Hefei: the player's discard is charged 0.3 子; the chances (1.4% against 0.8%, both "1%" on the card) and
    the shape make it, the value when won (26.7 子 against 26.5) nothing. The card said "bigger hand: worth 26.7 子
    against 26.5 when won": the reason passed over the shape and named a smaller part."""
    from engine.review import _parts, _reason
    from render.replay import describe_reason

    rp = _easy_hand("hefei", 3, 1)
    d = review_hand(rp, 3).at(48)
    assert d is not None and d.costly and d.cost == 0.3
    parts = _parts(d.played, d.ai)
    assert parts["faster"] > parts["shape"] > parts["bigger"] > 0  # the set-up
    assert d.reason == "shape" and not describe_reason(d, "en").startswith("bigger")
    # the same order by hand: an unnameable chance, then the shape, then a nameable value
    you = Choice(Action("discard", 0, 4), 2, 8, ev=0.20, win=0.008, value=26.5)
    ai = Choice(Action("discard", 0, 13), 2, 9, ev=0.50, win=0.014, value=26.7)
    assert _reason("hefei", you, ai) == ("shape", "")


def _match_hand(variant: str, seed: str, rng: int, hand_no: int) -> HandReplay:
    """Hand ``hand_no`` of a match of normal and easy AIs (normal, easy, normal, easy)."""
    from engine.selfplay import play_match

    t, acts = Table.new(variant, seed), []
    play_match(t, ["normal", "easy", "normal", "easy"], random.Random(rng), max_hands=hand_no + 1, record=acts)
    return HandReplay.build(variant, seed, {}, acts, hand_no)


def test_a_safer_reason_says_what_a_deal_in_costs_beyond_what_the_player_would_lose_anyway_not_what_it_pays():
    """The card's figure for a deal-in is the evaluator's cost of it: what the player pays, less what they would
    pay anyway were that seat to win by self-draw (floored at 0.3 子), averaged over the seats by their chances. The
    card said "a deal-in pays about 0.3 子 and ends your hand" in Wuhu, where a deal-in pays 3 or 4 子 (every win
    is paid by all three), and "a deal-in costs about 10.0 子" in Hefei, where it pays 20 子 to West. Wuhu 'r2',
    hand 2, seat 3's step 44 (11% to deal in against 3%) and Hefei 'r1', hand 1, seat 1's step 26."""
    from engine.strong.evaluator import Know
    from render.replay import describe_reason

    rp = _match_hand("wuhu", "r2", 2, 1)
    d = review_hand(rp, 3).at(44)
    assert d is not None and d.reason == "safer" and d.costly and d.played.threat == 1  # the set-up
    know = Know(rp.view(43, 3), 3)
    pays = [know.deal_in_pays(o)[0] for o in range(3)]
    assert pays == [3.0, 4.0, 3.0] and all(know.threats[o][0] == 0.3 for o in range(3))  # pays 3-4, costs 0.3
    said = [describe_reason(d, lang, list("ABCD"), rp.winds) for lang in ("en", "zh", "zh-TW")]
    assert said == [
        "safer against E B: 11% to deal in against 3%; a deal-in would cost you about 0.3 子 more than you would lose "
        "anyway and end your hand (worth 1.6 子 expected)",
        "更安全：防东 B，点炮机会 11% 对 3%，点炮比本来就要输的约多输 0.3 子，还断送这手牌（期望 1.6 子）",
        "更安全：防東 B，放槍機會 11% 對 3%，放槍比本來就要輸的約多輸 0.3 子，還斷送這手牌（期望 1.6 子）"]
    assert not any(w in said[0] for w in ("pays", "pay about")) and "约付" not in said[1] and "約付" not in said[2]

    rp = _match_hand("hefei", "r1", 1, 0)
    d = review_hand(rp, 1).at(26)
    assert d is not None and d.reason == "safer" and d.costly and d.played.threat == 2  # the set-up
    know = Know(rp.view(25, 1), 1)
    assert know.deal_in_pays(2)[0] == 20.0 and know.threats[2][0] == 13.0  # pays 20 to West, 13 beyond a self-draw
    assert [describe_reason(d, lang, list("ABCD"), rp.winds) for lang in ("en", "zh", "zh-TW")] == [
        "safer against W C: 4% to deal in against 2%; a deal-in would cost you about 10.0 子 more than you would lose "
        "anyway",
        "更安全：防西 C，点炮机会 4% 对 2%，点炮比本来就要输的约多输 10.0 子",
        "更安全：防西 C，放槍機會 4% 對 2%，放槍比本來就要輸的約多輸 10.0 子"]

    # Chizhou 'r32', hand 1, seat 3's step 73: a deal-in to East pays 1.8 子, 1.5 beyond a third of a self-draw's 1
    rp = _match_hand("chizhou", "r32", 32, 0)
    d = review_hand(rp, 3).at(73)
    assert d is not None and d.reason == "safer" and d.costly and d.played.threat == 1  # the set-up
    know = Know(rp.view(72, 3), 3)
    assert know.deal_in_pays(1)[0] == 1.8 and know.threats[1][0] == 1.51
    assert [describe_reason(d, lang, list("ABCD"), rp.winds) for lang in ("en", "zh", "zh-TW")] == [
        "safer against E B: 4% to deal in against 0%; a deal-in would cost you about 1.5 子 more than you would lose "
        "anyway",
        "更安全：防东 B，点炮机会 4% 对 0%，点炮比本来就要输的约多输 1.5 子",
        "更安全：防東 B，放槍機會 4% 對 0%，放槍比本來就要輸的約多輸 1.5 子"]
