"""Option values Discord's client never sends, in raw payloads: every slash command refuses them before it runs
(``bot.options``), in the member's language, and nothing changes."""

from __future__ import annotations

from typing import Any

import discord
import pytest
from discord import app_commands

from tests.harness import ADMIN_PERMISSIONS, USER_ID, Harness
from tests.harness.db import dump

REFUSED = {"en-US": ("cannot be", "must be", "characters"), "zh-CN": ("不能是", "只能是", "个字符", "必须", "须为"),
           "zh-TW": ("不能是", "只能是", "個字元", "必須", "須為")}


def _filler(p: app_commands.Parameter) -> Any:
    """A value Discord's client could send for ``p`` (the check runs before the command: any will do)."""
    if p.choices:
        return p.choices[0].value
    if p.type in (discord.AppCommandOptionType.user, discord.AppCommandOptionType.mentionable):
        return USER_ID + 7
    if p.type is discord.AppCommandOptionType.integer:
        return p.min_value if p.min_value is not None else 1
    if p.type is discord.AppCommandOptionType.string:
        return "x" * max(1, int(p.min_value or 1))
    if p.type is discord.AppCommandOptionType.boolean:
        return True
    raise LookupError(p.type)


def forged_payload(h: Harness, path: str, option: str, value: Any, locale: str = "en-US"):
    """``/path`` with every required option filled as the client would, and ``option`` set to ``value``."""
    cmd = h.find_command(path)
    params = {p.name: p for p in cmd.parameters}
    good = {n: _filler(p) for n, p in params.items() if p.required or n == option}
    data, rec = h.slash_payload(path, permissions=ADMIN_PERMISSIONS, locale=locale, **good)
    opts = data["data"]["options"]
    while opts and opts[0].get("type") in (1, 2):
        opts = opts[0]["options"]
    for o in opts:
        if o["name"] == option:
            o["value"] = value
    return data, rec


def _forgeries(p: app_commands.Parameter) -> list[Any]:
    if p.choices:
        sample = p.choices[0].value
        if isinstance(sample, int):
            return [999, -1, 10**15, str(sample)]
        return ["hard", "", str(sample) + "x", 999]
    if p.type is discord.AppCommandOptionType.integer and (p.min_value is not None or p.max_value is not None):
        return [v for v in ((p.min_value or 0) - 1, (p.max_value or 0) + 1, 10**30) if v is not None]
    if p.type is discord.AppCommandOptionType.string and p.max_value is not None:
        return ["x" * (int(p.max_value) + 1)]
    if p.type is discord.AppCommandOptionType.integer:
        return ["12", 1.5]
    return []


def _cases() -> list[tuple[str, str]]:
    """(command path, option) for every option with choices, a range or a declared length, of every command."""
    import asyncio

    async def collect() -> list[tuple[str, str]]:
        from pathlib import Path
        from tempfile import TemporaryDirectory

        with TemporaryDirectory() as d:
            h = await Harness.boot(Path(d) / "bot.db")
            try:
                out = []
                for cmd in h.bot.tree.walk_commands():
                    if isinstance(cmd, app_commands.Command):
                        out += [(cmd.qualified_name, p.name) for p in cmd.parameters if _forgeries(p)]
                return out
            finally:
                await h.close()

    return asyncio.run(collect())


CASES = _cases()


def test_the_sweep_covers_the_commands_players_forge():
    assert {("table new", "mode"), ("table new", "variant"), ("table addbot", "difficulty"), ("table autoplay", "on"),
            ("settings", "report_day"), ("leaderboard", "period"), ("correct adjust", "variant"),
            ("correct void", "hand"), ("record", "dealer_streak"), ("season start", "title")} <= set(CASES)


@pytest.mark.parametrize(("path", "option"), CASES)
async def test_a_forged_option_value_is_refused_and_changes_nothing(harness: Harness, path: str, option: str):
    h = harness
    if path.startswith("table") and path != "table new":  # a lobby to act on, opened as a player would
        r = await h.slash("table new", variant="hefei")
        assert not r.reply.ephemeral
    p = {q.name: q for q in h.find_command(path).parameters}[option]
    lobbies = dict(h.bot.tables.by_channel)
    for value in _forgeries(p):
        for locale, words in REFUSED.items():
            before = dump(h)
            r = await h.send(*forged_payload(h, path, option, value, locale))
            text = r.reply.content
            assert r.reply.ephemeral and any(w in text for w in words), (path, option, value, locale, text)
            assert "went wrong" not in text and "出错" not in text
            assert dump(h) == before, (path, option, value)
            assert dict(h.bot.tables.by_channel) == lobbies


async def test_table_new_with_a_forged_mode_opens_no_lobby(harness: Harness):
    """``/table new mode: 999`` opened a lobby whose first hand paused with an engine error."""
    h = harness
    for mode in (999, -1, 10**15):
        r = await h.send(*forged_payload(h, "table new", "mode", mode))
        assert "cannot be “" in r.reply.content and "315" in r.reply.content and "525" in r.reply.content
        assert h.bot.tables.by_channel == {} and h.channel() == []
    r = await h.slash("table new", variant="wuhu", mode=525)  # a mode the client offers still works
    assert not r.reply.ephemeral and h.bot.tables.by_channel


def forged_click(h: Harness, message: dict, custom_id: str, user: int = USER_ID):
    """A press of a button carrying ``custom_id`` on a copy of the bot's ``message`` (discord.py dispatches any id a
    message holds; a forged one arrives the same way)."""
    import copy

    from tests.harness import CHANNEL_ID, GUILD_ID

    message = copy.deepcopy(message)
    message["components"] = [{"type": 1, "components": [{"type": 2, "style": 2, "label": "x",
                                                         "custom_id": custom_id}]}]
    data, rec = h._base(3, user=user, guild=GUILD_ID, channel=CHANNEL_ID, locale="en-US", guild_locale=None,
                        permissions=None, name=None)
    data["data"] = {"custom_id": custom_id, "component_type": 2}
    data["message"] = message
    rec.message_id = int(message["id"])
    return data, rec


HUGE = 10**30


@pytest.mark.parametrize("custom_id", [
    f"mjt:{HUGE}:0:{HUGE}:d:1m", f"mjt:{HUGE}:9:{HUGE}:hand", f"mjt:{HUGE}:9:1:back", f"mjt:{HUGE}:9:1:auto",
    f"mjt:{HUGE}:9:1:dissolve", f"mjt:{HUGE}:9:1:next", f"mjv:{HUGE}:{HUGE}:y", f"mjl:{HUGE}:join",
    f"mjl:{HUGE}:start", f"mjrec:{HUGE}:{HUGE}:ok",
])
async def test_a_forged_control_naming_huge_ids_is_refused_plainly(harness: Harness, caplog, custom_id: str):
    """Every control whose custom id carries a number (table, seat, decision, vote, channel, record) answers a
    number past the database's integers as any unknown one: a plain refusal, nothing logged as an error."""
    h = harness
    lobby = (await h.slash("table new", variant="hefei", user=USER_ID + 50)).reply
    before = dump(h)
    caplog.clear()
    r = await h.send(*forged_click(h, lobby.payload(), custom_id))
    texts = [m.content for m in r.messages]
    assert texts and all("went wrong" not in x for x in texts), texts
    assert not [x for x in caplog.records if x.levelno >= 40], [x.getMessage() for x in caplog.records]
    assert dump(h) == before
