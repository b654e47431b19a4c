"""Every command, option and choice of /score, /rules and /settings is named and described in Simplified Chinese,
Traditional Chinese and English, within Discord's limits; messages exist in all three languages."""

from __future__ import annotations

import re
import string
from types import SimpleNamespace

import pytest

from bot.i18n import COMMANDS, MESSAGES
from tests.harness import Harness
from text import catalog
from text.lang import lang_for, lang_of_locale

NAME = re.compile(r"^[-_\w]{1,32}$")
OURS = ("score", "rules", "settings")


def walk(cmd: dict):
    yield "command", cmd
    for opt in cmd.get("options", []):
        yield "option", opt
        for choice in opt.get("choices", []):
            yield "choice", choice
        if opt.get("type") in (1, 2):
            yield from walk(opt)


async def test_our_commands_are_localised_within_discords_limits(harness: Harness):
    await harness.bot.tree.sync()
    synced = {c["name"]: c for c in harness.fake.commands[None]}
    assert set(OURS) <= set(synced)
    for name in OURS:
        for kind, entry in walk(synced[name]):
            names = entry.get("name_localizations") or {}
            assert {"zh-CN", "zh-TW"} <= set(names), (kind, entry["name"])
            for text in [entry["name"], *names.values()]:
                if kind == "choice":
                    assert 1 <= len(text) <= 100
                else:
                    assert NAME.match(text) and text == text.lower(), text
            if kind != "choice":
                descs = entry.get("description_localizations") or {}
                assert {"zh-CN", "zh-TW"} <= set(descs), (kind, entry["name"])
                for text in [entry["description"], *descs.values()]:
                    assert 1 <= len(text) <= 100, text
            assert names["zh-CN"] != names["zh-TW"] or not set(names["zh-CN"]) & set("张门条杠庄对设规则时数")


def test_messages_have_three_languages_with_the_same_placeholders():
    fmt = string.Formatter()
    in_catalogue = {k: tuple(catalog.template(k, lang) for lang in ("en", "zh", "zh-TW")) for k in catalog.all_keys()}
    for key, texts in {**MESSAGES, **COMMANDS, **in_catalogue}.items():
        assert len(texts) == 3 and all(texts), key
        fields = [{f for _, f, _, _ in fmt.parse(x) if f} for x in texts]
        assert fields[0] == fields[1] == fields[2], key


@pytest.mark.parametrize(("locale", "server", "expected"), [
    ("zh-CN", "en", "zh"), ("zh-TW", None, "zh-TW"), ("en-GB", "zh", "en"), ("fr", "zh-TW", "zh-TW"),
    ("fr", None, "en"), ("ja", "en", "en"),
])
def test_player_locale_first_then_server_choice(locale, server, expected):
    interaction = SimpleNamespace(locale=locale, guild_locale=None)
    assert lang_for(interaction, server) == expected
    assert lang_of_locale("zh-HK") == "zh-TW"
