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
    for name in synced:
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


# ---------------------------------------------------------------------------------------------------------------
# the language of an interaction is worked out once, with at most one read of the server's settings (bot.interactions)


def count_settings_reads(h: Harness) -> list[int]:
    """Count the store's reads of the server's settings from now on (the real store answers them)."""
    store = h.bot.store
    reads: list[int] = []
    real = store.guild_settings

    async def counted(guild_id: int):
        reads.append(guild_id)
        return await real(guild_id)

    store.guild_settings = counted  # an instance attribute over the method: every caller goes through it
    return reads


def opening(key: str, lang: str) -> str:
    """The words of a message before its first placeholder."""
    return catalog.text(key, lang, error="\0").split("\0")[0]


async def test_a_refused_command_reads_the_servers_settings_once_and_answers_in_its_language(harness: Harness):
    """A player whose Discord language we do not speak, in a server that chose Traditional Chinese: the command
    (its default variant, its language) and the refusal's answer share one read of the settings."""
    h = harness
    await h.bot.store.update_guild_settings(h.guild_id, 1, {"language": "zh-TW"})
    reads = count_settings_reads(h)
    r = await h.slash("score", hand="bad", variant="wuhu", locale="fr")
    assert opening("score.bad_hand", "zh-TW") in r.reply.content and r.reply.ephemeral
    assert reads == [h.guild_id]
    reads.clear()
    r = await h.slash("table new", variant="hefei", locale="fr")  # a lobby, in the server's language
    assert reads == [h.guild_id]
    reads.clear()
    r = await h.slash("table new", variant="hefei", locale="fr", user=7)  # refused: a table is open here already
    assert r.reply.ephemeral and reads == [h.guild_id]


async def test_a_click_reads_the_settings_only_when_the_players_language_does_not_decide(harness: Harness):
    h = harness
    await h.bot.store.update_guild_settings(h.guild_id, 1, {"language": "zh-TW"})
    answer = (await h.slash("score", hand="bad", variant="wuhu", locale="en-US")).reply
    reads = count_settings_reads(h)
    r = await h.click(answer, label="Notation help", locale="en-GB")
    assert "How to write a hand" in r.reply.content and reads == []  # English: the player's own language
    r = await h.click(answer, label="Notation help", locale="fr")
    assert catalog.text("score.help", "zh-TW")[:10] in r.reply.content and reads == [h.guild_id]


async def test_the_language_is_worked_out_as_a_command_arrives(harness: Harness, monkeypatch):
    """The command tree's check works it out before the command runs; the command and its error answer read it."""
    from bot import interactions

    h = harness
    seen: list[tuple[str, str | None]] = []
    real = interactions.Asked.lang

    async def lang(self):
        seen.append((self.interaction.command.qualified_name if self.interaction.command else "?",
                     self._lang))
        return await real(self)

    monkeypatch.setattr(interactions.Asked, "lang", lang)
    await h.bot.store.update_guild_settings(h.guild_id, 1, {"language": "zh-TW"})
    reads = count_settings_reads(h)
    r = await h.slash("score", hand="bad", variant="wuhu", locale="fr")
    assert opening("score.bad_hand", "zh-TW") in r.reply.content
    assert seen[0] == ("score", None) and all(known == "zh-TW" for _, known in seen[1:]) and len(seen) >= 2
    assert reads == [h.guild_id]


async def test_after_changing_the_servers_language_the_answer_speaks_the_new_one(harness: Harness):
    from tests.harness import ADMIN_PERMISSIONS

    h = harness
    r = await h.slash("settings", locale="fr", permissions=ADMIN_PERMISSIONS, user=5)
    panel = h.fake.find_message(r.reply.id)
    reads = count_settings_reads(h)
    await h.click(panel, custom_id="mjbot:settings:language", values=["en"], user=5, locale="fr",
                  permissions=ADMIN_PERMISSIONS)
    panel = h.fake.find_message(panel.id)
    assert "Language" in str(panel.embeds) and reads == [h.guild_id]  # the panel redrawn in English
