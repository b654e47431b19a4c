"""/score through the harness: slash commands in, what Discord would show out, checked against the engine."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

import render.card
from bot.i18n import hant, seat_name, t
from bot.store import GuildSettings
from cogs.score import build_situation
from cogs.settings import variant_rules
from engine.tiles import parse_hand
from engine.variants import VARIANT_KEYS, Situation, get_variant
from render import ScoreScene, render_score
from render.card import headline, payment_notes, payments_heading, seat_tag
from render.common import seat_label, txt
from tests.harness import Harness
from tests.render.imgutil import spy_texts

EXAMPLES = {k: get_variant(k).example for k in VARIANT_KEYS}  # the hand each variant shows with a refusal
SEATS = {"en": ("East", "South", "West", "North"), "zh": ("东", "南", "西", "北"), "zh-TW": ("東", "南", "西", "北")}
LOCALE = {"en": "en-US", "zh": "zh-CN", "zh-TW": "zh-TW"}
PAYMENTS_HEADER = {"en": "__Payments__", "zh": "__输赢__", "zh-TW": "__輸贏__"}

# (variant, hand, options) of hands that win; the expected breakdown always comes from the engine itself.
GOOD = [
    ("wuhu", "23456799m345p67s+8s", {"discarder": "W"}),
    ("wuhu", "23456799m345p67s+8s", {}),
    ("wuhu", "23456799m345p67s+8s", {"discarder": "W", "mode": 525}),
    ("hefei", "1234678922m345s+5m", {"discarder": "W"}),
    ("hefei", "1234678922m345s+5m", {"winner": "E", "dealer_streak": 3}),
    ("chizhou", "123m5z[777z][111z][222z]+5z", {"discarder": "N"}),
    ("chizhou", "123m456p789s5z(7777z)+5z", {"win": "self"}),
]


def payments_shown(text: str, lang: str) -> tuple[int, ...]:
    lines = text.splitlines()
    i = next(n for n, line in enumerate(lines) if line.startswith(PAYMENTS_HEADER[lang]))
    found = dict(re.findall(r"(\S+) ([+-]?\d+)", lines[i + 1]))
    return tuple(int(found[name]) for name in SEATS[lang])


@pytest.fixture(autouse=True)
def record_score_scenes(harness: Harness):
    """Every score card's scene is kept (``harness.seen``, bot.observe) so tests read the numbers the card shows."""
    harness.seen.clear()


def check_card_scene(scene: ScoreScene, expected, options: dict) -> None:
    """What a player reads on the card: every item with its value, each seat's payment, who won and who paid."""
    assert [(i.code, i.zh, i.en, i.kind, i.value) for i in scene.items] == [
        (i.code, i.zh, i.en, i.kind, i.value) for i in expected.items]
    assert [(n.zh, n.en, n.value) for n in scene.notes] == [(n.zh, n.en, n.value) for n in expected.notes]
    assert scene.payments == expected.payments and sum(scene.payments) == 0
    assert scene.winner == expected.winner
    sit = build_situation(win=options.get("win"), winner=options.get("winner"), discarder=options.get("discarder"),
                          situation=options.get("situation"), dealer_streak=options.get("dealer_streak"))
    assert scene.discarder == sit.discarder


def engine_result(variant: str, hand: str, options: dict, *, settings: GuildSettings | None = None):
    v = get_variant(variant)
    rules = variant_rules(settings or GuildSettings(guild_id=0), v)
    if "mode" in options:
        rules["mode"] = options["mode"]
    sit = build_situation(win=options.get("win"), winner=options.get("winner"), discarder=options.get("discarder"),
                          situation=options.get("situation"), dealer_streak=options.get("dealer_streak"))
    return v.score(parse_hand(hand), sit, rules)


@pytest.mark.parametrize("lang", ["zh", "en", "zh-TW"])
@pytest.mark.parametrize(("variant", "hand", "options"), GOOD)
async def test_good_hand_shows_the_engine_breakdown_payments_and_an_image(harness: Harness, lang, variant, hand,
                                                                          options):
    expected = engine_result(variant, hand, options)
    r = await harness.slash("score", hand=hand, variant=variant, locale=LOCALE[lang], **options)
    reply = r.reply
    assert not reply.ephemeral, "a scored hand is shown to the channel"
    text = reply.content
    rule_for = get_variant(variant).rule_for
    for item in expected.items:
        name = {"en": item.en, "zh": item.zh, "zh-TW": hant(item.zh)}[lang]
        value = f"×{item.value}" if item.kind == "mul" else str(item.value)
        assert f"{name} ({rule_for(item.code)}): {value}" in text, (name, text)  # the ruling each line comes from
    assert payments_shown(text, lang) == expected.payments
    assert sum(payments_shown(text, lang)) == 0
    assert SEATS[lang][expected.winner] in text.splitlines()[0]
    [image] = reply.images
    card = Image.open(io.BytesIO(image))
    assert card.format == "PNG" and card.width >= 480 and card.height >= 400, "a score card, not a thumbnail"
    assert reply.attachments[0].filename == "score.png"
    # the card: the numbers in the scene it is drawn from are the engine's, and the image is that scene's drawing
    [scene] = harness.seen.score_cards()
    check_card_scene(scene, expected, options)
    assert scene.variant == variant, "the card names each line's ruling"
    assert image == render_score(scene, lang=lang)
    # exactly one answer: the deferral, then the message that replaced "thinking..."
    assert [m.id for m in harness.channel()] == [reply.id]


async def test_wuhu_mode_changes_the_amounts(harness: Harness):
    a = await harness.slash("score", hand="23456799m345p67s+8s", variant="wuhu", discarder="W", mode=315)
    b = await harness.slash("score", hand="23456799m345p67s+8s", variant="wuhu", discarder="W", mode=525)
    pa, pb = payments_shown(a.reply.content, "en"), payments_shown(b.reply.content, "en")
    assert pb[1] > pa[1] > 0
    assert "mode 525" in b.reply.content


@pytest.mark.parametrize("variant", sorted(EXAMPLES))
async def test_every_example_shown_to_players_scores(harness: Harness, variant):
    r = await harness.slash("score", hand=EXAMPLES[variant], variant=variant)
    assert not r.reply.ephemeral and "__Payments__" in r.reply.content


@pytest.mark.parametrize(
    ("hand", "variant"),
    [
        ("23456799m345p67s+8", "wuhu"),  # digits without a suit
        ("11112m", "hefei"),  # no winning tile
        ("55555m123p456s78s+9s", "wuhu"),  # five copies
        ("123m456p789s5z[777z]+5z", "chizhou"),  # not enough 花 on a discard (self-drawn by default: 2 needed)
        ("1234678922m345s+5z", "hefei"),  # Hefei has no honours
        ("123456789m124p1s+1s", "wuhu"),  # not complete
    ],
)
@pytest.mark.parametrize("lang", ["zh", "en"])
async def test_bad_hand_gets_the_engine_message_and_an_example_privately(harness: Harness, hand, variant, lang):
    v = get_variant(variant)
    with pytest.raises(Exception) as info:
        v.score(parse_hand(hand), Situation(), v.rules())
    r = await harness.slash("score", hand=hand, variant=variant, locale=LOCALE[lang])
    reply = r.reply
    assert reply.ephemeral and reply.visible_to == harness.user_id
    assert info.value.message(lang) in reply.content
    assert EXAMPLES[variant] in reply.content
    assert reply.images == []
    assert reply.buttons()[0]["label"] == ("Notation help" if lang == "en" else "写法说明")
    # nothing public, and no other request than the one callback
    assert harness.channel() == []
    assert [q.path.endswith("/callback") for q in harness.fake.requests] == [True]


@pytest.mark.parametrize(("locale", "phrase"), [("en-US", "How to write a hand"), ("zh-CN", "手牌写法"),
                                                ("zh-TW", "手牌寫法")])
async def test_help_button_answers_privately_in_the_clickers_language(harness: Harness, locale, phrase):
    r = await harness.slash("score", hand="oops", variant="wuhu", locale="en-US")
    other = 777
    click = await harness.click(r.reply, label="Notation help", user=other, locale=locale)
    assert click.callback_type == 4
    assert click.reply.ephemeral and click.reply.visible_to == other
    assert phrase in click.reply.content and "+" in click.reply.content


async def test_help_button_works_on_a_scored_hand_after_a_restart(harness: Harness):
    r = await harness.slash("score", hand=EXAMPLES["hefei"], variant="hefei", locale="zh-CN")
    message = r.reply
    h2 = await harness.restart()
    try:
        click = await h2.click(h2.fake.find_message(message.id), custom_id="mjbot:score:notation-help",
                               locale="zh-CN")
        assert "手牌写法" in click.reply.content
    finally:
        await h2.close()


async def test_server_defaults_apply(harness: Harness):
    store = harness.bot.store
    await store.update_guild_settings(harness.guild_id, 1, {"default_variant": "hefei"})
    r = await harness.slash("score", hand="1234678922m345s+5m", discarder="W")
    assert r.reply.content.startswith("**Hefei")
    # a Wuhu house rule: the discarder pays all three shares
    await store.set_house_rules(harness.guild_id, 1, "wuhu", {"dianpao_bao_san": True})
    await store.update_guild_settings(harness.guild_id, 1, {"wuhu_mode": 525})
    settings = await store.guild_settings(harness.guild_id)
    r = await harness.slash("score", hand="23456799m345p67s+8s", variant="wuhu", discarder="W")
    expected = engine_result("wuhu", "23456799m345p67s+8s", {"discarder": "W"}, settings=settings)
    shown = payments_shown(r.reply.content, "en")
    assert shown == expected.payments
    assert shown[0] == shown[3] == 0 and shown[2] < 0, "only the discarder pays"
    assert "mode 525" in r.reply.content


async def test_situation_defaults(harness: Harness):
    # 天胡 makes East the winner; 地胡 is on East's discard
    hand = "1234678922m345s+5m"
    heavenly = await harness.slash("score", hand=hand, variant="wuhu", situation="heavenly")
    assert heavenly.reply.content.splitlines()[0].startswith("**Wuhu: East wins by self-draw")
    earthly = await harness.slash("score", hand=hand, variant="wuhu", situation="earthly")
    assert "on East's discard" in earthly.reply.content.splitlines()[0]


async def test_a_situation_the_variant_does_not_score_is_refused(harness: Harness):
    """Hefei scores no 天胡 / 地胡 and Chizhou has no last four tiles: /score said nothing and scored the hand as a
    plain win (found by an independent review). Now the player is told, in their language, and nothing is posted."""
    hand = "1234678922m345s+5m"
    r = await harness.slash("score", hand=hand, variant="hefei", situation="heavenly", locale="zh-CN")
    assert r.reply.ephemeral and "合肥不计天胡、地胡" in r.reply.content
    r = await harness.slash("score", hand="123m456p78s11z[9999p]+9s", variant="chizhou", situation="last_tiles",
                            locale="en-US")
    assert r.reply.ephemeral and "Chizhou has no last-four-tiles phase" in r.reply.content
    r = await harness.slash("score", hand="12345678m11p555p+9m", variant="hefei", situation="kong_draw",
                            locale="en-US")
    assert r.reply.ephemeral and "needs a kong among the melds" in r.reply.content
    assert harness.channel() == []


@pytest.mark.parametrize(("variant", "hand", "locale", "said"), [
    ("hefei", "123456789m1235p+5p", "en-US", "holds only the robbed one, not 2"),
    ("chizhou", "5z[111m:W][555m:W][999m:W](7777z)+5z", "zh-CN", "只能有抢来的这一张，不会有 2 张"),
])
async def test_a_robbed_kong_whose_tile_the_hand_already_holds_is_refused(harness: Harness, variant, hand, locale,
                                                                           said):
    """The robbed player's pung held the other three copies, so a hand holding two needs a fifth: it was scored (and
    its 承包 charged the feeder) instead of refused (found by an independent review)."""
    r = await harness.slash("score", hand=hand, variant=variant, situation="rob_kong", discarder="W", locale=locale)
    assert r.reply.ephemeral and said in r.reply.content
    assert r.reply.images == [] and harness.channel() == []
    # the same hand with its robbed tile held once is scored
    ok = await harness.slash("score", hand="123456789m3555p+4p" if variant == "hefei" else
                             "23m55s[111p:W][555p:W](7777z)+4m", variant=variant, situation="rob_kong",
                             discarder="W", locale=locale)
    assert ok.reply.images or harness.channel()


async def test_self_draw_with_a_discarder_is_refused_in_the_players_language(harness: Harness):
    r = await harness.slash("score", hand="1234678922m345s+5m", variant="hefei", win="self", discarder="W",
                            locale="zh-CN")
    assert r.reply.ephemeral and "自摸" in r.reply.content and "点炮" in r.reply.content
    assert harness.channel() == []


async def test_engine_refusal_of_the_situation_is_explained(harness: Harness):
    # 天胡 belongs to the dealer: naming another winner is refused by the engine, in the player's words
    r = await harness.slash("score", hand="1234678922m345s+5m", variant="wuhu", situation="heavenly", winner="S",
                            locale="en-US")
    assert r.reply.ephemeral and "天胡" in r.reply.content and "dealer" in r.reply.content


# ---- the card's numbers (from its scene), beyond the parametrised hands above


async def test_card_of_a_hefei_dealer_streak_shows_the_dealer_paying_more(harness: Harness):
    options = {"winner": "S", "discarder": "E", "dealer_streak": 5}
    expected = engine_result("hefei", "1234678922m345s+5m", options)
    r = await harness.slash("score", hand="1234678922m345s+5m", variant="hefei", locale="en-US", **options)
    [scene] = harness.seen.score_cards()
    check_card_scene(scene, expected, options)
    streak = next(i for i in scene.items if "庄" in i.zh)
    assert streak.value == next(i.value for i in expected.items if "庄" in i.zh) > 0
    assert scene.payments[0] < 0 and scene.payments[1] > 0 and scene.payments[2] == scene.payments[3] == 0
    assert r.reply.images == [render_score(scene, lang="en")]


async def test_card_of_a_wuhu_525_jiao_hand(harness: Harness):
    hand = "5m[1111m][2222m][3333m][4444m]+5m"
    options = {"situation": "kong_draw", "mode": 525}
    expected = engine_result("wuhu", hand, options)
    r = await harness.slash("score", hand=hand, variant="wuhu", locale="zh-CN", **options)
    [scene] = harness.seen.score_cards()
    check_card_scene(scene, expected, options)
    assert scene.payments == tuple(expected.payments) and scene.payments[1] == -3 * scene.payments[0] > 0
    assert "525" in scene.title
    assert r.reply.images == [render_score(scene, lang="zh")]


@pytest.mark.parametrize("lang", ["zh", "en", "zh-TW"])
@pytest.mark.parametrize(("variant", "hand"), [("hefei", "1234678922m345s+5m"),
                                               ("chizhou", "23m456p789s11z(7777z)+1m")])
async def test_card_of_a_robbed_kong_says_whose_kong_was_robbed(harness: Harness, monkeypatch, lang, variant, hand):
    """Hefei H6 / Chizhou C8: the text said "South wins by robbing East's kong", the card under it "on East's discard"
    (点炮：东家), with East tagged "dealt in" (found by a review). The card says the kong was robbed, and whose."""
    r = await harness.slash("score", hand=hand, variant=variant, situation="rob_kong", locale=LOCALE[lang])
    assert t("score.how.rob_kong", lang, discarder=seat_name(0, lang)) in r.reply.content.splitlines()[0]
    [scene] = harness.seen.score_cards()
    east = seat_label(0, lang)  # a card without players spells out the winds
    assert headline(scene, lang)[1][0] == txt("render.card.robbed_kong", lang, who=east)
    assert seat_tag(scene, 0, lang) == txt("render.card.robbed_tag", lang) != txt("render.card.dealt_in_tag", lang)
    assert scene.robbed_kong and scene.discarder == 0
    texts = spy_texts(monkeypatch, (render.card,))
    assert r.reply.images == [render_score(scene, lang=lang)]  # the card is that scene's drawing, and writes:
    assert {headline(scene, lang)[1][0], seat_tag(scene, 0, lang)} <= {text for text, *_ in texts}


@pytest.mark.parametrize("lang", ["zh", "en", "zh-TW"])
@pytest.mark.parametrize(("variant", "hand", "heading"), [
    ("wuhu", "1112223334577m+6m", "render.card.to_jiao"),  # 清一色: a 交 (W7), nothing from the stacks
    ("wuhu", "23456799m345p67s+8s", "render.card.from_stacks"),
    ("hefei", "1234678922m345s+5m", None),  # no stacks, no 交
])
async def test_card_says_whether_a_wuhu_hand_paid_from_the_stacks_or_into_the_jiao_tally(
        harness: Harness, monkeypatch, lang, variant, hand, heading):
    """W11: 交 amounts go to a tally of their own, the others come out of the stacks (底). /help promised the card
    shows them apart; it showed one amount per seat and nothing else (found by a review). The text's split is the
    card's too."""
    expected = engine_result(variant, hand, {"discarder": "W"})
    r = await harness.slash("score", hand=hand, variant=variant, discarder="W", locale=LOCALE[lang])
    [scene] = harness.seen.score_cards()
    assert payments_heading(scene, lang) == (txt(heading, lang) if heading else "")
    assert payment_notes(scene, lang) == []  # a hand scored alone: no stack to run short
    assert scene.jiao == (tuple(expected.jiao_payments) if heading else None)
    if heading == "render.card.to_jiao":  # the text's 交 line: the same amounts
        assert any(line.startswith(t("score.jiao", lang)) for line in r.reply.content.splitlines())
        assert scene.jiao == scene.payments
    texts = spy_texts(monkeypatch, (render.card,))
    assert r.reply.images == [render_score(scene, lang=lang)]
    assert (payments_heading(scene, lang) in [text for text, *_ in texts]) == bool(heading)


# ---- options checked by the bot too: Discord's client offers only the choices, but a payload can be forged

FORGED_OPTIONS = [
    ("winner", 3, "X"), ("winner", 3, "ES"), ("discarder", 3, "Q"), ("variant", 3, "sichuan"),
    ("win", 3, "maybe"), ("situation", 3, "nine_gates"), ("mode", 4, 999), ("mode", 4, "abc"),
    ("dealer_streak", 4, 0), ("dealer_streak", 4, 100), ("dealer_streak", 4, 10**12), ("dealer_streak", 4, -3),
    ("hand", 3, "1234678922m345s+5m" * 40),
]


def forged_payload(h: Harness, option: str, kind: int, value, locale: str = "en-US"):
    data, rec = h.slash_payload("score", hand="1234678922m345s+5m", variant="hefei", discarder="W", locale=locale)
    opts = [o for o in data["data"]["options"] if o["name"] != option]
    data["data"]["options"] = [*opts, {"name": option, "type": kind, "value": value}]
    return data, rec


@pytest.mark.parametrize(("option", "kind", "value"), FORGED_OPTIONS)
async def test_forged_option_values_are_refused_privately(harness: Harness, option, kind, value):
    r = await harness.send(*forged_payload(harness, option, kind, value))
    reply = r.reply
    assert reply.ephemeral and reply.visible_to == harness.user_id
    assert "went wrong" not in reply.content and len(reply.content) < 400
    assert harness.channel() == [] and harness.seen.score_cards() == []
    name = {"winner": "winner", "discarder": "discarder", "variant": "variant", "win": "win",
            "situation": "situation", "mode": "mode", "dealer_streak": "dealer streak", "hand": "hand"}[option]
    assert name in reply.content.lower() or (option == "dealer_streak" and "1 to 99" in reply.content)


@pytest.mark.parametrize(("locale", "phrase"), [("zh-CN", "只能选"), ("zh-TW", "只能選"), ("en-US", "choose one of")])
async def test_forged_option_message_in_the_players_language(harness: Harness, locale, phrase):
    r = await harness.send(*forged_payload(harness, "winner", 3, "X", locale=locale))
    assert r.reply.ephemeral and phrase in r.reply.content
    seats = {"zh-CN": "东（庄）", "zh-TW": "東（莊）", "en-US": "East (dealer)"}[locale]
    assert seats in r.reply.content


async def test_dealer_streak_bounds(harness: Harness):
    for ok in (1, 99):
        r = await harness.slash("score", hand="1234678922m345s+5m", variant="hefei", dealer_streak=ok)
        assert not r.reply.ephemeral
    r = await harness.send(*forged_payload(harness, "dealer_streak", 4, 100, locale="zh-CN"))
    assert r.reply.ephemeral and "1 到 99" in r.reply.content


@pytest.mark.parametrize(("locale", "hand", "title"), [
    ("zh-CN", "二三四五六七九九万三四五饼六七索+八索", "芜湖"),
    ("zh-TW", "二三四五六七九九萬三四五餅六七索+八條", "蕪湖"),
    ("en-US", "二三四五六七九九万三四五饼六七索+八索", "Wuhu"),
])
async def test_suo_is_bamboo(harness: Harness, locale, hand, title):
    """索, the other name of 条 (as 饼 is of 筒), was refused as "'索' is not a suit": it scores as 条 does."""
    r = await harness.slash("score", hand=hand, variant="wuhu", locale=locale)
    same = await harness.slash("score", hand="23456799m345p67s+8s", variant="wuhu", locale=locale)
    assert not r.reply.ephemeral and title in r.reply.content
    assert r.reply.content == same.reply.content


# ---- an option of another variant is refused, never ignored (as `mjbot score` refuses it)

OTHER_VARIANTS_OPTION = [  # (variant, option, locale, what the player reads)
    ("hefei", {"mode": 525}, "en-US", "The option mode is Wuhu's 315/525 scoring: Hefei has no modes."),
    ("chizhou", {"mode": 315}, "zh-CN", "选项「模式」是芜湖的 315/525 计分：池州没有这个选项。"),
    ("hefei", {"mode": 525}, "zh-TW", "選項「模式」是蕪湖的 315/525 計分：合肥沒有這個選項。"),
    ("wuhu", {"dealer_streak": 3}, "en-US", "The option dealer_streak is Hefei's dealer streak (庄数): Wuhu does not"),
    ("chizhou", {"dealer_streak": 2}, "zh-CN", "选项「庄数」是合肥的庄数：池州不计庄数。"),
    ("wuhu", {"dealer_streak": 3}, "zh-TW", "選項「莊數」是合肥的莊數：蕪湖不計莊數。"),
]


@pytest.mark.parametrize(("variant", "option", "locale", "said"), OTHER_VARIANTS_OPTION)
async def test_an_option_of_another_variant_is_refused(harness: Harness, variant, option, locale, said):
    """`/score variant:Hefei mode:525` scored the hand publicly as if 525 had not been asked, so the player believed
    they had a 525 score: it is refused privately, saying whose option it is, and nothing is scored."""
    r = await harness.slash("score", hand=EXAMPLES[variant], variant=variant, locale=locale, **option)
    assert r.reply.ephemeral and r.reply.visible_to == harness.user_id
    assert r.reply.content.startswith(said), r.reply.content
    assert harness.channel() == [] and harness.seen.score_cards() == [] and not r.reply.images


async def test_the_options_of_the_variant_itself_are_taken(harness: Harness):
    for variant, option in (("wuhu", {"mode": 525}), ("hefei", {"dealer_streak": 3})):
        r = await harness.slash("score", hand=EXAMPLES[variant], variant=variant, locale="en-US", **option)
        assert not r.reply.ephemeral and ("mode 525" in r.reply.content or "streak" in r.reply.content.lower())


# ---- the reply stays within Discord's limits


async def test_the_longest_breakdown_fits_in_one_message(harness: Harness):
    """A 交 hand with four kongs, two alarms and every situation line, in English (the longest language), with
    every house rule changed: still one message under 2,000 characters, no file needed."""
    store = harness.bot.store
    await store.set_house_rules(harness.guild_id, 1, "wuhu", {"dianpao_bao_san": True, "di_per_match": 8})
    hand = "5m[1111m][2222m][3333m][4444m]+5m"
    r = await harness.slash("score", hand=hand, variant="wuhu", situation="kong_draw", mode=525, locale="en-US")
    reply = r.reply
    assert 0 < len(reply.content) <= 2000
    assert [a.filename for a in reply.attachments] == ["score.png"]
    assert "discarder pays all" in reply.content and "__Payments__" in reply.content


async def test_a_breakdown_over_the_limit_is_cut_and_attached_whole(harness: Harness, monkeypatch):
    """No real hand's breakdown reaches Discord's 2,000 characters (the longest is about 600), so the limit is
    lowered to make this one too long; the cutting, the pointer and the attachment are the product's code."""
    hand, options = "5m[1111m][2222m][3333m][4444m]+5m", {"situation": "kong_draw"}
    whole = (await harness.slash("score", hand=hand, variant="wuhu", locale="en-US", **options)).reply.content
    monkeypatch.setattr(harness.bot.extensions["cogs.score"], "MESSAGE_LIMIT", 300)
    r = await harness.slash("score", hand=hand, variant="wuhu", locale="en-US", **options)
    reply = r.reply
    assert not reply.ephemeral and len(reply.content) <= 300 < len(whole)
    lines = reply.content.splitlines()
    assert lines[0] == whole.splitlines()[0], "the title stays"
    assert "full breakdown is in the attached score.txt" in reply.content
    expected = engine_result("wuhu", hand, options)
    assert payments_shown(reply.content, "en") == expected.payments, "the payments stay in the message"
    files = {a.filename: a.data for a in reply.attachments}
    assert set(files) == {"score.png", "score.txt"}
    assert files["score.txt"].decode("utf-8") == whole


async def test_discord_is_told_the_same_ranges_the_bot_checks(harness: Harness):
    from bot.settings import DEALER_STREAK, HAND_LENGTH, WUHU_MODES

    await harness.bot.tree.sync()
    [cmd] = [c for c in harness.fake.commands[None] if c["name"] == "score"]
    options = {o["name"]: o for o in cmd["options"]}
    assert (options["dealer_streak"]["min_value"], options["dealer_streak"]["max_value"]) == (
        DEALER_STREAK.low, DEALER_STREAK.high)
    assert (options["hand"]["min_length"], options["hand"]["max_length"]) == (HAND_LENGTH.low, HAND_LENGTH.high)
    assert [c["value"] for c in options["mode"]["choices"]] == list(WUHU_MODES)


def test_score_cog_doctests():
    """cogs/ is not a doctest path: run the examples of the cog's public functions here."""
    import doctest

    from cogs.score import build_situation, fit_message

    runner = doctest.DocTestRunner()
    for function in (build_situation, fit_message):
        for test in doctest.DocTestFinder().find(function):
            runner.run(test)
    assert runner.tries > 0 and runner.failures == 0


@pytest.mark.parametrize(("locale", "line", "ref"), [
    ("zh-CN", "• 压档 (W5): 2", "/规则"), ("en-US", "• middle-tile win (压档) (W5): 2", "/rules"),
    ("zh-TW", "• 壓檔 (W5): 2", "/規則"),
])
async def test_each_line_names_its_ruling_and_says_where_to_look_it_up(harness: Harness, locale, line, ref):
    r = await harness.slash("score", hand="123456789m11p35s+4s", variant="wuhu", discarder="W", locale=locale)
    text = r.reply.content
    assert line in text, text
    lines = text.splitlines()
    under_header = lines[lines.index(next(x for x in lines if x.startswith("__"))) + 1]
    assert ref in under_header and "W4" in under_header  # said once, right under the items' heading, with its first
    assert "(W4)" in lines[lines.index(under_header) + 1]  # line's ruling (支, W4) as the example


@pytest.mark.parametrize("locale", ["zh-CN", "en-US", "zh-TW"])
@pytest.mark.parametrize(("variant", "hand", "letter"), [("hefei", "1234678922m345s+5m", "H"),
                                                        ("chizhou", "123m456p789s5z(7777z)+5z", "C")])
async def test_a_breakdown_explains_its_ruling_numbers_with_one_of_its_own(harness: Harness, locale, variant, hand,
                                                                           letter):
    """A Hefei or Chizhou breakdown lists H4, C7 …: the line that says what the numbers are gives one of those, not
    a Wuhu ruling."""
    import re

    r = await harness.slash("score", hand=hand, variant=variant, locale=locale)
    lines = r.reply.content.splitlines()
    under_header = lines[lines.index(next(x for x in lines if x.startswith("__"))) + 1]
    refs = set(re.findall(r"[WHC]\d+", under_header))
    assert refs and refs <= set(re.findall(rf"{letter}\d+", "\n".join(lines[lines.index(under_header) + 1:]))), lines

