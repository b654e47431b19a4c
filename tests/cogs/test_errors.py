"""The error cog: expected refusals in the player's language, everything else a short generic reply (and a log
line), never a traceback or internal detail in front of a player."""

from __future__ import annotations

import logging

import pytest

from tests.harness import Harness

SECRET = "secret internal detail /home/bot/db.sqlite"


# discord.py's load_extension executes each cog module afresh for every bot: patch the bot's own copy,
# ``harness.bot.extensions[name]``, to force a failure inside it.


def boom(*args, **kwargs):
    raise RuntimeError(SECRET)


@pytest.mark.parametrize(("locale", "phrase"), [("en-US", "Something went wrong"), ("zh-CN", "出了点问题"),
                                                ("zh-TW", "出了點問題")])
async def test_unexpected_error_in_a_command_gets_a_generic_private_reply(harness: Harness, monkeypatch, caplog,
                                                                          locale, phrase):
    monkeypatch.setattr(harness.bot.extensions["cogs.score"], "get_variant", boom)
    with caplog.at_level(logging.ERROR):
        r = await harness.slash("score", hand="1234678922m345s+5m", variant="hefei", locale=locale)
    reply = r.reply
    assert reply.ephemeral and phrase in reply.content
    assert SECRET not in reply.content and "Traceback" not in reply.content and "RuntimeError" not in reply.content
    assert harness.channel() == []
    assert any(SECRET in (rec.exc_text or "") or rec.exc_info for rec in caplog.records if rec.levelno >= logging.ERROR)


async def test_unexpected_error_in_a_button_gets_a_generic_private_reply(harness: Harness, monkeypatch):
    r = await harness.slash("score", hand="bad", variant="wuhu")
    monkeypatch.setattr(harness.bot.extensions["cogs.score"], "lang_of", boom)  # the button works out its language first
    click = await harness.click(r.reply, label="Notation help", locale="en-US")
    assert click.reply.ephemeral and "Something went wrong" in click.reply.content
    assert SECRET not in click.reply.content


async def test_a_failing_image_still_shows_the_breakdown(harness: Harness, monkeypatch, caplog):
    monkeypatch.setattr(harness.bot.extensions["cogs.score"], "render_image", boom)
    with caplog.at_level(logging.ERROR):
        r = await harness.slash("score", hand="1234678922m345s+5m", variant="hefei", discarder="W")
    assert "__Payments__" in r.reply.content and r.reply.images == []
    assert SECRET not in r.reply.content


async def test_expected_refusal_is_not_logged_as_an_error(harness: Harness, caplog):
    with caplog.at_level(logging.INFO):
        r = await harness.slash("score", hand="1234678922m345s+5m", variant="hefei", win="self", discarder="W")
    assert r.reply.ephemeral and "self-drawn" in r.reply.content
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR]


async def test_a_refusal_from_any_cog_is_one_user_error_class(harness: Harness, caplog):
    """``UserError`` lives in ``bot.errors``, imported once: every cog's copy (load_extension runs each cog module
    afresh) raises the class the error cog recognises, so a refusal is answered with its own sentence and never
    logged as a failure."""
    from bot.errors import UserError

    for name, module in harness.bot.extensions.items():
        if hasattr(module, "UserError"):
            assert module.UserError is UserError, name
    robot = harness.user_id + 77
    data, rec = harness.slash_payload("history", player=robot, locale="zh-TW")
    data["data"]["resolved"]["users"][str(robot)]["bot"] = True
    with caplog.at_level(logging.ERROR):
        r = await harness.send(data, rec)
    assert r.reply.ephemeral and "機器人" in r.reply.content
    assert not [rec for rec in caplog.records if rec.levelno >= logging.ERROR]


@pytest.mark.parametrize(("locale", "words"), [("en-US", "has changed"), ("zh-CN", "已更新"), ("zh-TW", "已更新")])
async def test_a_command_discord_still_shows_from_an_older_version_is_answered_plainly(harness: Harness, caplog,
                                                                                        locale: str, words: str):
    """After an upgrade Discord's client may still offer a command or subcommand the bot no longer has (a global
    sync takes a while to reach every client); such a payload raised CommandNotFound: the member got "something
    went wrong" and an ERROR with a traceback was logged. They are told the command changed, and to try again."""
    h = harness
    for build in ("subcommand", "command"):
        caplog.clear()
        data, rec = h.slash_payload("table new", variant="hefei", locale=locale)
        if build == "subcommand":
            data["data"]["options"][0]["name"] = "teleport"
        else:
            data["data"]["name"] = "teleport"
        r = await h.send(data, rec)
        assert r.reply.ephemeral and words in r.reply.content, (build, r.reply.content)
        assert "went wrong" not in r.reply.content and "出了点问题" not in r.reply.content
        assert not [x for x in caplog.records if x.levelno >= logging.ERROR], [x.getMessage() for x in caplog.records]
        assert h.bot.tables.by_channel == {}


async def test_a_payload_without_a_required_option_is_answered_plainly(harness: Harness, caplog):
    """A required option missing from the payload (an older version's command in Discord's client, or a forged
    payload: discord.py raises CommandSignatureMismatch) got the generic apology and an ERROR; it is answered as an
    outdated command."""
    from tests.harness import ADMIN_PERMISSIONS
    from tests.harness.db import dump

    h = harness
    before = dump(h)
    data, rec = h.slash_payload("correct void", permissions=ADMIN_PERMISSIONS, hand=1, reason="x")
    data["data"]["options"][0]["options"] = [o for o in data["data"]["options"][0]["options"] if o["name"] != "hand"]
    r = await h.send(data, rec)
    assert r.reply.ephemeral and "has changed" in r.reply.content, r.reply.content
    assert not [x for x in caplog.records if x.levelno >= logging.ERROR], [x.getMessage() for x in caplog.records]
    assert dump(h) == before
