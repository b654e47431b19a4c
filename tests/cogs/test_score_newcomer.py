"""/score as a newcomer meets it (found by an independent review): the examples the bot itself offers score where
they are offered, and everyday ways of writing a hand are read (the honours' names 东风 / 发财 / 白板, a final 。)
or refused with the reason (the winning tile written twice)."""

from __future__ import annotations

import re

import pytest

from engine.variants import VARIANT_KEYS
from tests.cogs.test_score import LOCALE, payments_shown
from tests.harness import GUILD_ID, USER_ID, Harness

#: a hand as the bot writes one in a text: tiles, melds, '+' and the winning tile
HAND = re.compile(r"[\d\[(][\dmpsz\[\]():ESWN]*\+\d[mpsz]")
DISCORD_LOCALE = {"en": None, "zh": "zh-CN", "zh-TW": "zh-TW"}  # the description shown by each client


async def scores(h: Harness, hand: str, variant: str, **options) -> bool:
    r = await h.slash("score", hand=hand, variant=variant, **options)
    return not r.reply.ephemeral


async def test_the_example_under_the_hand_option_scores_in_every_variant(harness: Harness):
    """Discord shows the option's description under /score in the player's language, whatever the server's variant:
    its example (a Hefei hand, refused in Chizhou for want of 花) must win in every variant, self-drawn or not."""
    await harness.bot.tree.sync()
    [score] = [c for c in harness.fake.commands[None] if c["name"] == "score"]
    hand = next(o for o in score["options"] if o["name"] == "hand")
    shown = {lang: hand["description_localizations"][loc] if loc else hand["description"]
             for lang, loc in DISCORD_LOCALE.items()}
    examples = {lang: HAND.findall(text) for lang, text in shown.items()}
    assert all(len(found) == 1 for found in examples.values()), shown
    [example] = {found[0] for found in examples.values()}  # one example in every language
    for variant in VARIANT_KEYS:
        for options in ({}, {"discarder": "W"}):
            assert await scores(harness, example, variant, **options), (variant, options, example)


async def test_the_example_under_record_s_hand_option_is_recorded_in_every_variant(harness: Harness):
    """/record's hand option offers its own example (23456799m345p67s+8s, refused in Chizhou for want of 花, when
    /score's had been put right): /record takes it in every variant, self-drawn or on a discard."""
    await harness.bot.tree.sync()
    [record] = [c for c in harness.fake.commands[None] if c["name"] == "record"]
    hand = next(o for o in record["options"] if o["name"] == "hand")
    shown = {lang: hand["description_localizations"][loc] if loc else hand["description"]
             for lang, loc in DISCORD_LOCALE.items()}
    examples = {lang: HAND.findall(text) for lang, text in shown.items()}
    assert all(len(found) == 1 for found in examples.values()), shown
    [example] = {found[0] for found in examples.values()}  # one example in every language
    seats = {"east": USER_ID, "south": USER_ID + 1, "west": USER_ID + 2, "north": USER_ID + 3}
    for variant in VARIANT_KEYS:
        for options in ({}, {"discarder": USER_ID + 2}):
            r = await harness.slash("record", hand=example, variant=variant, winner=USER_ID + 1, **seats, **options)
            assert not r.reply.ephemeral, (variant, options, example, r.reply.content)


@pytest.mark.parametrize("lang", ["en", "zh", "zh-TW"])
@pytest.mark.parametrize("variant", VARIANT_KEYS)
async def test_a_hand_without_plus_is_shown_one_example_and_it_scores(harness: Harness, variant, lang):
    """The refusal of a hand without '+' named a Hefei hand, then the variant's own on its next line: two examples,
    one refused in Chizhou. It names one, the server's variant's, and that one scores."""
    await harness.bot.store.update_guild_settings(GUILD_ID, 1, {"default_variant": variant})
    r = await harness.slash("score", hand="123m456p789s55m", locale=LOCALE[lang])  # forgot the '+'
    said = r.reply.content
    assert r.reply.ephemeral and "+" in said.splitlines()[0]
    examples = set(HAND.findall(said))
    assert len(examples) == 1, said
    [example] = examples
    r = await harness.slash("score", hand=example, locale=LOCALE[lang])  # typed exactly, on the same server
    assert not r.reply.ephemeral, (said, r.reply.content)


@pytest.mark.parametrize(("name", "notation"), [("东风", "1z"), ("南风", "2z"), ("西风", "3z"), ("北風", "4z"),
                                                ("白板", "5z"), ("发财", "6z"), ("發財", "6z"), ("红中", "7z")])
async def test_an_honour_typed_by_its_everyday_name_scores_as_its_notation(harness: Harness, name, notation):
    """东风 / 发财 / 白板 were refused with "'风' is not a suit" while 红中 was read: each is the honour it names."""
    kong = "(1111p)"
    typed = await harness.slash("score", hand=f"123m456p789s{name}{kong}+{name}", variant="chizhou", locale="zh-CN")
    plain = await harness.slash("score", hand=f"123m456p789s{notation}{kong}+{notation}", variant="chizhou",
                                locale="zh-CN")
    assert not typed.reply.ephemeral, typed.reply.content
    assert payments_shown(typed.reply.content, "zh") == payments_shown(plain.reply.content, "zh")
    assert typed.reply.content.splitlines()[:3] == plain.reply.content.splitlines()[:3]


@pytest.mark.parametrize("lang", ["en", "zh", "zh-TW"])
@pytest.mark.parametrize(("variant", "name", "notation"), [("wuhu", "东风", "1z"), ("wuhu", "发财", "6z"),
                                                           ("hefei", "白板", "5z"), ("hefei", "红中", "7z")])
async def test_an_honour_the_variant_lacks_gets_the_variants_own_refusal(harness: Harness, variant, name, notation,
                                                                           lang):
    """Wuhu has only 红中 and Hefei no honours: an honour typed by its name is refused as its notation is."""
    typed = await harness.slash("score", hand=f"123456789m11p{name}{name}+{name}", variant=variant, locale=LOCALE[lang])
    plain = await harness.slash("score", hand=f"123456789m11p{notation}{notation}+{notation}", variant=variant,
                                locale=LOCALE[lang])
    assert typed.reply.ephemeral and typed.reply.content == plain.reply.content
    assert notation in typed.reply.content.splitlines()[0]


async def test_a_full_stop_after_the_hand_is_ignored_as_a_comma_is(harness: Harness):
    plain = await harness.slash("score", hand="23456799m345p67s+8s", variant="wuhu", locale="zh-CN")
    for typed in ("23456799m345p67s+8s。", "23456799m，345p，67s+8s。"):
        r = await harness.slash("score", hand=typed, variant="wuhu", locale="zh-CN")
        assert not r.reply.ephemeral, r.reply.content
        assert payments_shown(r.reply.content, "zh") == payments_shown(plain.reply.content, "zh")


@pytest.mark.parametrize(("lang", "why"), [
    ("en", "If 7m is the tile you won on, write it only after '+'"),
    ("zh", "如果 7m 是和的那张，只在 '+' 后面写它"),
    ("zh-TW", "如果 7m 是和的那張，只在 '+' 後面寫它"),
])
async def test_the_winning_tile_written_twice_is_told_why_the_hand_has_15(harness: Harness, lang, why):
    """11223344556677m+7m: seven pairs with the winning 7m written inside too. "This one has 15" did not say that
    the tile after '+' is the 14th."""
    r = await harness.slash("score", hand="11223344556677m+7m", variant="hefei", locale=LOCALE[lang])
    first = r.reply.content.splitlines()[0]
    assert r.reply.ephemeral and "15" in first and why in first
    # a hand one tile short is told its count, and nothing about a tile written twice
    r = await harness.slash("score", hand="112233445566m+7m", variant="hefei", locale=LOCALE[lang])
    first = r.reply.content.splitlines()[0]
    assert "13" in first and why[:6] not in first

