"""/score as a newcomer meets it (found by an independent review): everyday ways of writing a hand are read (the
honours' names 东风 / 发财 / 白板, a final 。) or refused with the reason (the winning tile written twice)."""

from __future__ import annotations

import pytest

from tests.cogs.test_score import LOCALE, payments_shown
from tests.harness import Harness


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

