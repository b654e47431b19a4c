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
    f"mjl:{HUGE}:start", f"mjl:{HUGE}:addbot", f"mjl:{HUGE}:rmbot", f"mjl:{HUGE}:9:rmbot", f"mjrec:{HUGE}:{HUGE}:ok",
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


@pytest.mark.parametrize(("path", "option", "kw"), [
    ("correct void", "hand", {"hand": 1, "reason": "x"}), ("leaderboard", "season", {}), ("stats", "season", {}),
    ("settings", "timezone", {})])
async def test_an_autocomplete_with_a_typed_value_that_is_not_text_offers_choices_and_logs_no_error(
        harness: Harness, caplog, path: str, option: str, kw: dict):
    """Discord sends what a member types into an option with a picker as text; a raw payload sending a number, a
    list or a boolean made the picker raise (an ERROR with a traceback per keystroke). It is read as text."""
    from tests.cogs.test_group import autocomplete

    h = harness
    for typed in (10**30, 2**63, 12, 1.5, True, [1], {"a": 1}):
        caplog.clear()
        data, rec = h.slash_payload(path, permissions=ADMIN_PERMISSIONS, **kw)
        got = await autocomplete(h, path, option, "", permissions=ADMIN_PERMISSIONS, **kw)  # the real picker works
        assert isinstance(got, list)
        real = h.fake._callback
        answered: list[dict] = []

        def callback(interaction_id, token, payload, files, rec=rec, answered=answered, real=real):
            if payload.get("type") == 8 and token == rec.token:
                answered.append(payload)
                return {"interaction": {"id": str(rec.id), "type": 4}, "resource": {"type": 8}}
            return real(interaction_id, token, payload, files)

        data["type"] = 4
        opts = data["data"]["options"]
        while opts and opts[0].get("type") in (1, 2):
            opts = opts[0]["options"]
        opts[:] = [o for o in opts if o["name"] != option] + [{"name": option, "type": 3, "value": typed,
                                                               "focused": True}]
        h.fake._callback = callback  # type: ignore[method-assign]
        try:
            await h.send(data, rec)
        finally:
            h.fake._callback = real  # type: ignore[method-assign]
        assert answered, (path, typed)  # the member's picker got an answer (maybe empty), not silence
        assert not [x for x in caplog.records if x.levelno >= 40], (path, typed, [x.getMessage() for x in caplog.records])


def _user_cases() -> list[tuple[str, str]]:
    """(command path, option) for every option naming a member."""
    import asyncio

    async def collect() -> list[tuple[str, str]]:
        from pathlib import Path
        from tempfile import TemporaryDirectory

        with TemporaryDirectory() as d:
            h = await Harness.boot(Path(d) / "bot.db")
            try:
                return [(c.qualified_name, p.name) for c in h.bot.tree.walk_commands()
                        if isinstance(c, app_commands.Command) for p in c.parameters
                        if p.type in (discord.AppCommandOptionType.user, discord.AppCommandOptionType.mentionable)]
            finally:
                await h.close()

    return asyncio.run(collect())


@pytest.mark.parametrize(("path", "option"), _user_cases())
async def test_a_forged_member_option_is_refused_and_changes_nothing(harness: Harness, caplog, path: str,
                                                                      option: str):
    """A member option naming an id Discord did not resolve (discord.py hands the command a bare ``Object``: the
    command raised AttributeError), or a member with an id past the database's integers (OverflowError): the member
    got the generic apology and an ERROR was logged. The option is refused in the member's language."""
    h = harness
    if path.startswith("table"):  # a table to act on, opened as a player would
        await h.slash("table new", variant="hefei")
    for value, resolve in ((USER_ID + 99, False), (10**30, True), (2**63, True)):
        for locale, words in REFUSED.items():
            caplog.clear()
            before = dump(h)
            data, rec = forged_payload(h, path, option, str(value), locale)
            if resolve:  # a forged payload may carry its own "resolved" member too
                resolved = data["data"].setdefault("resolved", {})
                resolved.setdefault("users", {})[str(value)] = h.fake.add_user(value)
            r = await h.send(data, rec)
            text = r.reply.content
            assert r.reply.ephemeral and any(w in text for w in words), (path, option, value, locale, text)
            assert "went wrong" not in text and "出错" not in text
            assert not [x for x in caplog.records if x.levelno >= 40], [x.getMessage() for x in caplog.records]
            assert dump(h) == before


@pytest.mark.parametrize("value", ["abc", "", "1" * 25, "٣", 12, [1], None])
async def test_a_member_option_whose_id_is_not_a_number_is_refused(harness: Harness, caplog, value):
    """discord.py reads a member option's id with int() before any check of ours: ``player: "abc"`` in a raw
    payload raised there, the member got no answer at all and an ERROR was logged. It is refused plainly."""
    h = harness
    for path, option in (("stats", "player"), ("history", "player"), ("correct adjust", "payer")):
        caplog.clear()
        before = dump(h)
        r = await h.send(*forged_payload(h, path, option, value))
        assert r.reply is not None and r.reply.ephemeral and "cannot be" in r.reply.content, (path, value)
        assert not [x for x in caplog.records if x.levelno >= 40], [x.getMessage() for x in caplog.records]
        assert dump(h) == before


def _guild_only_commands() -> list[str]:
    import asyncio

    async def collect() -> list[str]:
        from pathlib import Path
        from tempfile import TemporaryDirectory

        with TemporaryDirectory() as d:
            h = await Harness.boot(Path(d) / "bot.db")
            try:
                return [c.qualified_name for c in h.bot.tree.walk_commands() if isinstance(c, app_commands.Command)
                        and (c.guild_only or getattr(c.root_parent, "guild_only", False))]
            finally:
                await h.close()

    return asyncio.run(collect())


@pytest.mark.parametrize("path", _guild_only_commands())
async def test_a_server_command_sent_from_a_dm_is_refused_and_changes_nothing(harness: Harness, caplog, path: str):
    """``guild_only`` only hides a command from DMs; a payload sent from one anyway ran it: /table new opened a lobby
    in the DM, /table kick, replace, restore and /correct adjust answered the generic apology with an ERROR."""
    h = harness
    cmd = h.find_command(path)
    good = {p.name: _filler(p) for p in cmd.parameters if p.required}
    before = dump(h)
    caplog.clear()
    r = await h.slash(path, guild=False, permissions=ADMIN_PERMISSIONS, **good)
    assert r.reply.ephemeral and "only in a server" in r.reply.content, (path, r.reply.content)
    assert not [x for x in caplog.records if x.levelno >= 40], [x.getMessage() for x in caplog.records]
    assert dump(h) == before and h.bot.tables.by_channel == {} and h.bot.tables.by_id == {}
