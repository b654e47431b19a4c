"""Each variant supplies, on its :class:`~engine.variants.base.Variant`, everything the bot, the cogs and the images
need of it, and the catalogue words it: nothing outside ``engine/variants`` lists the variants or branches on a key
(tests/cogs/test_fourth_variant.py plays one that is not built in)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cogs.choices import variant_choices
from cogs.rules import sections
from engine.tiles import parse_hand
from engine.variants import VARIANT_KEYS, Situation, get_variant
from text import catalog

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("key", VARIANT_KEYS)
def test_every_variant_supplies_what_the_bot_shows(key):
    v = get_variant(key)
    assert v.key == key and v.zh and v.en
    v.score(parse_hand(v.example), Situation())  # the example a refusal shows scores (as /score reads it)
    assert re.fullmatch(r"[a-z]+", v.short)
    assert all(v.alarm_names.get(code) for code in v.alarm_names), key
    for words in (f"variant.{key}", f"choice.variant.{key}"):
        assert catalog.has(words), words
    assert sections(key) >= 1  # /rules has a summary to show
    assert (ROOT / "docs" / "rules" / f"{key}.md").is_file()  # /rules' footer points there


def test_variants_are_told_apart_by_their_short_codes_and_offered_once():
    codes = [get_variant(k).short for k in VARIANT_KEYS]
    assert len(set(codes)) == len(codes)
    assert [c.value for c in variant_choices()] == list(VARIANT_KEYS)


def test_what_differs_between_variants_is_read_from_them():
    by = {k: get_variant(k) for k in VARIANT_KEYS}
    assert [k for k, v in by.items() if v.splits_jiao] == ["wuhu"]
    assert [k for k, v in by.items() if v.scored_streak] == ["hefei"]
    assert [k for k, v in by.items() if v.modes] == ["wuhu"]
    outside = [p for p in (ROOT / "cogs").glob("*.py") if re.search(r'== "(wuhu|hefei|chizhou)"', p.read_text())]
    assert not outside, outside
