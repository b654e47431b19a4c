"""The hands the notation help gives as examples (the /help page and the "Notation help" button of a refused
/score) win in the variant each is given for: a newcomer who copies one into /score gets a score, not a refusal."""

from __future__ import annotations

import re

import pytest

from bot.i18n import variant_name
from engine.variants import VARIANT_KEYS
from tests.harness import Harness

LOCALES = ("en-US", "zh-CN", "zh-TW")
LANG = {"en-US": "en", "zh-CN": "zh", "zh-TW": "zh-TW"}


def examples(text: str, lang: str) -> dict[str, str]:
    """variant key -> the example hand given for it in ``text`` ("`hand` · name" lines)."""
    names = {variant_name(k, lang): k for k in VARIANT_KEYS}
    found = {}
    for hand, name in re.findall(r"^`([^`]+)` · (\S+)$", text, re.M):
        found[names[name]] = hand
    return found


async def scores(h: Harness, variant: str, hand: str, locale: str) -> None:
    r = await h.slash("score", hand=hand, variant=variant, locale=locale)
    assert not r.reply.ephemeral and "__" in r.reply.content, (variant, hand, r.reply.content)


@pytest.mark.parametrize("locale", LOCALES)
async def test_the_help_pages_examples_score_in_their_variants(harness: Harness, locale):
    r = await harness.slash("help", locale=locale)
    await harness.click(r.reply, custom_id="mjbot:help:page", values=["notation"], locale=locale)
    page = harness.fake.find_message(r.reply.id).embeds[0]["description"]
    found = examples(page, LANG[locale])
    assert set(found) == set(VARIANT_KEYS), page
    for variant, hand in found.items():
        await scores(harness, variant, hand, locale)


@pytest.mark.parametrize("locale", LOCALES)
async def test_the_notation_buttons_examples_score_in_their_variants(harness: Harness, locale):
    refused = await harness.slash("score", hand="123m", variant="hefei", locale=locale)
    assert refused.reply.ephemeral
    click = await harness.click(refused.reply, custom_id="mjbot:score:notation-help", locale=locale)
    text = click.reply.content
    found = examples(text, LANG[locale])
    assert set(found) == set(VARIANT_KEYS), text
    for variant, hand in found.items():
        await scores(harness, variant, hand, locale)
    # and no other hand in the help is offered to copy: the notation's pieces only (a meld, a tile, a word)
    others = set(re.findall(r"`([^`]+)`", text)) - set(found.values())
    assert all(len(re.sub(r"[^0-9]", "", x)) < 10 for x in others), others
