"""What a table's pictures say once a hand is over, through the real dispatch (slash commands and clicks in, the
scenes the bot drew out): the score card of a robbed kong (抢杠) and of a Wuhu hand whose payer's stack (底) ran
short, and the dealer badge (庄) of the table picture between hands and at the match's end.

Each card is checked on its scene and on the words drawn from it in the three languages (``render.card.headline``,
``seat_tag``, ``payments_heading``, ``payment_notes``), found among the texts the card's drawing writes.
"""

from __future__ import annotations

import json

import pytest

import render.card
from bot.store.tables import players_for
from bot.tables.strings import t as tt
from engine.table import Action, Table
from render.card import headline, payment_notes, payments_heading, seat_tag
from render.common import txt, wind_name
from render.scene import ScoreScene, TableScene
from tests.cogs.test_tables import (
    P1,
    a_hand_ended,
    button_id,
    live,
    open_table,
    play_the_match_out,
    play_until_hand_ends,
    prep,
)
from tests.harness import Harness
from tests.render.imgutil import spy_texts

LANGS = ("zh", "zh-TW", "en")


def score_cards(h: Harness) -> list[ScoreScene]:
    return [sc for kind, sc, _ in h.seen.public_images() if kind == "score"]


def table_pictures(h: Harness) -> list[TableScene]:
    return [sc for kind, sc, _ in h.seen.public_images() if kind == "table"]


def drawn(monkeypatch, scene: ScoreScene, lang: str) -> list[str]:
    """Every text the card of ``scene`` writes in ``lang`` (the drawing the bot sends), in order."""
    texts = spy_texts(monkeypatch, (render.card,))
    render.card.render_score(scene, lang=lang)
    return [text for text, *_ in texts]


def written(line: str, texts: list[str]) -> bool:
    """``line`` is on the card, whole or wrapped over several lines."""
    return line.replace(" ", "") in "".join(texts).replace(" ", "")


@pytest.mark.parametrize(("variant", "seed"), [("hefei", 177), ("chizhou", 10)])
async def test_a_robbed_kong_at_a_table_is_carded_as_a_robbed_kong_not_a_discard(harness: Harness, monkeypatch,
                                                                                  variant, seed):
    """Hefei H6 / Chizhou C8: a win by robbing a kong is settled as a self-draw the robbed player pays for. The
    channel said "X wins (胡) robbing Y's kong" over a card that said "on Y's discard" (点炮：Y) and tagged Y "dealt
    in" (found by a review). The card says whose kong was robbed and tags that seat as robbed.

    The seeds are deals whose first hand, played by four normal AIs (the player on auto-play from the start), ends
    in a robbed kong; should the AI come to play them otherwise, take the first seeds from 1 where
    ``engine.ai.choose`` (normal) for every seat of ``Table.new(variant, f"{seed:016x}")`` does."""
    h = harness
    prep(h, seed=seed)
    h.bot.tables.timers.next_hand = 3600.0  # the next hand waits for Next
    await open_table(h, variant, humans=(P1,))
    lt = live(h)
    await h.slash("table autoplay", on="on", user=P1)  # the AI plays the player's seat too
    await h.bot.tables.wait_idle()
    assert lt.table.phase in ("ended", "over")
    res = lt.table.last_result
    robbers = [w for w in res["winners"] if w["rob_kong"]]
    assert robbers, f"{variant} seed {seed} no longer ends its first hand with a robbed kong (see the docstring)"
    names = lt.names()
    said = "\n".join(m.content for m in h.channel())
    cards = score_cards(h)
    assert len(cards) == len(res["winners"])
    for w, scene in zip(res["winners"], cards, strict=True):
        if not w["rob_kong"]:
            continue
        robbed = (w["from"] - res["dealer"]) % 4  # the card's seats are winds, E first
        # the channel's words, and the card's: the same robbed kong
        assert tt("tables.ann_win", lt.lang, name=names[w["seat"]], how=tt("tables.ann_rob", lt.lang,
                                                                            name=names[w["from"]])) in said
        assert scene.discarder == robbed and scene.names[robbed] == names[w["from"]]
        for lang in LANGS:
            who = f"{wind_name(robbed, lang)} {names[w['from']]}"
            how = headline(scene, lang)[1][0]
            assert how == txt("render.card.robbed_kong", lang, who=who), how
            assert how != txt("render.card.on_discard", lang, who=who)
            assert scene.robbed_kong
            assert seat_tag(scene, robbed, lang) == txt("render.card.robbed_tag", lang)
            assert seat_tag(scene, robbed, lang) != txt("render.card.dealt_in_tag", lang)
            assert seat_tag(scene, scene.winner, lang) == txt("render.card.winner_tag", lang)
            texts = drawn(monkeypatch, scene, lang)
            assert how in texts and seat_tag(scene, robbed, lang) in texts
            assert txt("render.card.dealt_in_tag", lang) not in texts


async def test_a_wuhu_card_says_where_the_payments_went_and_what_a_short_stack_paid(harness: Harness, monkeypatch):
    """Wuhu (W11): a payer pays at most what its stack (底) holds. The card showed "-1 子" beside "dealt in" where
    its items came to 5, with no word why (the channel said it; found by a review), and /help promised the stack
    and the 交 tally apart on the card, which no card showed. Every card of a whole match says where its payments
    went, and each payer whose stack ran short gets a line: what it paid of what it owed (the scorer's own
    amounts, replayed from the store)."""
    h = harness
    lt = await a_hand_ended(h, "wuhu")
    await play_the_match_out(h, lt)
    assert lt.table.phase == "over"
    await h.settle()
    m = await h.bot.store.match(lt.match_id)
    game = Table.new(m.variant, m.seed, m.settings, players_for(m.seats))
    events = [e for a in await h.bot.store.actions(lt.match_id) for e in game.apply(Action.from_json(
        json.loads(a.action)))]
    wins = [e for e in events if e.type == "win"]
    dealers = [e.data["dealer"] for e in events if e.type == "hand_end" and not e.data["draw"]]
    cards = score_cards(h)
    assert len(cards) == len(wins) == len(dealers)
    short = 0
    for win, dealer, scene in zip(wins, dealers, cards, strict=True):
        by_wind = [(dealer + i) % 4 for i in range(4)]
        paid = tuple(win.data["settled"][c] for c in by_wind)
        owed = tuple(win.data["payments"][c] for c in by_wind)
        assert scene.payments == paid
        for lang in LANGS:
            unit = txt("render.unit.zi", lang)
            want = [txt("render.card.stack_short", lang, who=f"{wind_name(s, lang)} {scene.names[s]}",
                        paid=f"{-paid[s]} {unit}", owed=f"{-owed[s]} {unit}")
                    for s in range(4) if owed[s] < 0 and paid[s] > owed[s]]
            assert payment_notes(scene, lang) == want
            assert all(written(note, drawn(monkeypatch, scene, lang)) for note in want)
        short += any(o < 0 and p > o for p, o in zip(paid, owed, strict=True))
        jiao = tuple(win.data["jiao"][c] for c in by_wind)  # the 交 part, never capped
        assert scene.jiao == jiao and scene.owed == (owed if owed != paid else None)
        for lang in LANGS:
            key = "render.card.to_jiao" if any(jiao) else "render.card.from_stacks"
            assert payments_heading(scene, lang) == txt(key, lang) in drawn(monkeypatch, scene, lang)
    assert short, "no stack ran short in this match: the case is not seen"


def badge_on(scene: TableScene) -> int:
    """The wind shown on the seat that carries the dealer badge (庄) and the highlighted disc (0 = E)."""
    wind = scene.seats[scene.dealer].wind
    assert wind is not None
    return wind


async def test_the_table_picture_of_a_finished_hand_has_its_dealer_badge_on_east(harness: Harness):
    """G1: E is always that hand's dealer. Between hands the picture shows the finished hand's winds, but its dealer
    badge (庄) and highlighted disc sat on the NEXT hand's dealer, drawn as S, once the deal had passed (found by a
    review). The hand-end post, /table show between hands and the match-end picture: the badge on the seat shown as
    E, the finished hand's dealer."""
    h = harness
    prep(h, seed=1)
    h.bot.tables.timers.next_hand = 3600.0  # the next hand waits for Next
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    for _ in range(30):  # until a hand passes the deal
        await play_until_hand_ends(h, [P1], lt)
        await h.bot.tables.wait_idle()
        if lt.table.view(None)["dealer"] != lt.table.last_result["dealer"]:
            break
        msg = h.fake.find_message(lt.message_id)
        await h.click(msg, custom_id=button_id(msg, ":next"), user=P1)
    else:
        pytest.fail("no hand passed the deal")
    finished = lt.table.last_result["dealer"]
    after_hand = table_pictures(h)[-1]  # the table posted with the hand's result
    h.seen.clear()
    await h.slash("table show", user=P1)
    await h.bot.tables.wait_idle()
    [shown] = table_pictures(h)
    for scene in (after_hand, shown):
        assert scene.dealer == finished and badge_on(scene) == 0
    # the match's end (Hefei: it ends as the deal passes on for the last time)
    msg = h.fake.find_message(lt.message_id)
    await h.click(msg, custom_id=button_id(msg, ":next"), user=P1)
    await play_the_match_out(h, lt)
    await h.bot.tables.wait_idle()
    assert lt.table.phase == "over" and lt.table.view(None)["dealer"] != lt.table.last_result["dealer"]
    last = table_pictures(h)[-1]
    assert last.dealer == lt.table.last_result["dealer"] and badge_on(last) == 0
    assert all(badge_on(sc) == 0 for sc in table_pictures(h))  # and every picture between: the badge on E
