"""/score through the harness: slash commands in, what Discord would show out, checked against the engine."""

from __future__ import annotations

import io
import re

import pytest
from PIL import Image

from bot.i18n import hant
from bot.store import GuildSettings
from cogs.score import EXAMPLES, build_situation
from cogs.settings import variant_rules
from engine.tiles import parse_hand
from engine.variants import Situation, get_variant
from tests.harness import Harness

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
    for item in expected.items:
        name = {"en": item.en, "zh": item.zh, "zh-TW": hant(item.zh)}[lang]
        value = f"×{item.value}" if item.kind == "mul" else str(item.value)
        assert f"{name}: {value}" in text, (name, text)
    assert payments_shown(text, lang) == expected.payments
    assert sum(payments_shown(text, lang)) == 0
    assert SEATS[lang][expected.winner] in text.splitlines()[0]
    [image] = reply.images
    card = Image.open(io.BytesIO(image))
    assert card.format == "PNG" and card.width >= 480 and card.height >= 400, "a score card, not a thumbnail"
    assert reply.attachments[0].filename == "score.png"
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
    heavenly = await harness.slash("score", hand=hand, variant="hefei", situation="heavenly")
    assert heavenly.reply.content.splitlines()[0].startswith("**Hefei: East wins by self-draw")
    earthly = await harness.slash("score", hand=hand, variant="hefei", situation="earthly")
    assert "on East's discard" in earthly.reply.content.splitlines()[0]


async def test_self_draw_with_a_discarder_is_refused_in_the_players_language(harness: Harness):
    r = await harness.slash("score", hand="1234678922m345s+5m", variant="hefei", win="self", discarder="W",
                            locale="zh-CN")
    assert r.reply.ephemeral and "自摸" in r.reply.content and "点炮" in r.reply.content
    assert harness.channel() == []


async def test_engine_refusal_of_the_situation_is_explained(harness: Harness):
    # 天胡 belongs to the dealer: naming another winner is refused by the engine, in the player's words
    r = await harness.slash("score", hand="1234678922m345s+5m", variant="hefei", situation="heavenly", winner="S",
                            locale="en-US")
    assert r.reply.ephemeral and "天胡" in r.reply.content and "dealer" in r.reply.content
