"""/history and /replay under faults, through the real discord.py dispatch: Discord failing (5xx) or rate limiting
(429) the response, the edit or the upload, and the database locked while listing a history or opening a replay.
What the player notices is asserted: the answer arrives (retried) or a clear message in their language says what
happened, nothing is written, no traceback reaches them, and the next try works."""

from __future__ import annotations

import asyncio
import logging
import types

import discord.webhook.async_ as webhook_async
import pytest

from engine.replay import encode_code
from tests.cogs import test_memory
from tests.cogs.test_memory import A, B, codes_of
from tests.cogs.test_memory import quiet_dump as dump
from tests.harness import Harness
from tests.harness.faults import FlakyConnection

WEBHOOK = r"^/webhooks/\d+/[^/]+$"  # follow-ups: the replay's image, the animation, the review card
ORIGINAL = r"^/webhooks/\d+/[^/]+/messages/@original$"  # edits of the answer: a replay's next step
CALLBACK = r"/callback$"  # the interaction response: /history's answer and page turns, deferrals

h = test_memory.h  # the fixture: hands of two servers recorded by the bot's own recorder, one left in play

LOCALES = ("en-US", "zh-CN", "zh-TW")
BUSY = {"en-US": "database is busy", "zh-CN": "数据库正忙", "zh-TW": "資料庫正忙"}
UNAVAILABLE = {"en-US": "database is not available", "zh-CN": "数据库暂时不可用", "zh-TW": "資料庫暫時無法使用"}
DISCORD = {"en-US": "problem on Discord's side", "zh-CN": "Discord 那边的问题", "zh-TW": "Discord 那邊的問題"}
TRACE = ("Traceback", "Error", "sqlite", "File \"")


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch):
    """discord.py waits 1, 3, 5, 7, 9 s between its retries of a 5xx on an interaction: here 10 ms each, so that
    five failures in a row (discord.py gives up) take a moment. Only the webhook adapter's sleeps are shortened."""
    fast = types.SimpleNamespace(**{k: getattr(asyncio, k) for k in dir(asyncio) if not k.startswith("__")})

    async def sleep(delay, result=None):
        return await asyncio.sleep(min(delay, 0.01), result)

    fast.sleep = sleep
    monkeypatch.setattr(webhook_async, "asyncio", fast)


async def done(h: Harness, rec, *, timeout: float = 10.0) -> None:
    """Wait until the bot has finished with ``rec``: answered, and no request to Discord for a while (discord.py's
    retries sleep, which ``settle`` counts as idle)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    quiet, seen = 0, -1
    while quiet < 3:
        await h.settle()
        await asyncio.sleep(0.05)
        n = len(h.fake.requests)
        quiet = quiet + 1 if n == seen and rec.responded else 0
        seen = n
        if loop.time() > end:
            raise TimeoutError(f"no answer to {rec.id}: {rec.callbacks}")


async def run(h: Harness, data_rec) -> object:
    data, rec = data_rec
    h.bot._connection.parse_interaction_create(data)  # type: ignore[arg-type]
    await done(h, rec)
    return rec


def statuses(h: Harness, pattern: str, method: str | None = None) -> list[int]:
    return [r.status for r in h.fake.requests_to(pattern, method)]


def errors(caplog) -> list[logging.LogRecord]:
    """Errors logged by the commands (not by the fixture's resumed table, whose channel posts fail on their own)."""
    return [r for r in caplog.records if r.levelno >= logging.ERROR and not r.name.startswith("bot.tables")]


def clean(text: str) -> None:
    assert not any(w in text for w in TRACE), text


# ------------------------------------------------------------------------------------------------ /history


async def test_history_answer_retried_after_a_5xx_and_a_429(h: Harness) -> None:
    expected = (await h.slash("history", user=A)).reply.text
    before = dump(h)
    n = len(h.fake.requests_to(CALLBACK))
    h.fake.fail(CALLBACK, status=503, times=1)
    rec = await run(h, h.slash_payload("history", user=A))
    assert rec.reply.text == expected and rec.reply.ephemeral
    assert statuses(h, CALLBACK)[n:] == [503, 200]
    h.fake.rate_limit(CALLBACK, times=1, retry_after=0.01)
    rec = await run(h, h.slash_payload("history", user=A))
    assert rec.reply.text == expected and statuses(h, CALLBACK)[n + 2:] == [429, 200]
    assert dump(h) == before


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "zh-TW"])
async def test_history_when_discord_keeps_failing_says_so_and_the_next_try_works(h: Harness, locale, caplog) -> None:
    expected = (await h.slash("history", user=A)).reply.text
    before = dump(h)
    fault = h.fake.fail(CALLBACK, status=502, times=5)  # discord.py tries five times, then gives up
    with caplog.at_level(logging.WARNING):
        rec = await run(h, h.slash_payload("history", user=A, locale=locale))
    assert fault.hits == 5
    [msg] = rec.messages
    assert msg.ephemeral and DISCORD[locale] in msg.text and not codes_of(msg.text)
    clean(msg.text)
    assert not errors(caplog)  # a warning, not a crash
    assert dump(h) == before
    again = await h.slash("history", user=A)
    assert again.reply.text == expected


async def test_a_page_turn_failing_at_discord_leaves_the_page_and_the_next_click_works(h: Harness) -> None:
    h.bot.get_cog("Memory").page_size = 2
    msg = (await h.slash("history", user=A)).reply
    first = msg.text
    fault = h.fake.fail(CALLBACK, status=500, times=5)
    rec = await run(h, h.click_payload(msg, label="▶", user=A))
    assert fault.hits == 5 and msg.text == first  # the page did not change
    assert rec.reply.ephemeral and DISCORD["en-US"] in rec.reply.text
    h.fake.rate_limit(CALLBACK, times=1, retry_after=0.01)
    await run(h, h.click_payload(msg, label="▶", user=A))
    assert "Page 2 of 2" in msg.text and codes_of(msg.text) and codes_of(msg.text)[0] not in codes_of(first)


# every statement /history reads with, locked and failing, the three languages in turn
@pytest.mark.parametrize(("statement", "error", "said", "locale"), [
    (stmt, error, said, LOCALES[(i + j) % 3])
    for i, stmt in enumerate(["FROM ledger l LEFT JOIN corrections", "FROM ledger l JOIN hands h",
                              "FROM correction_rows r JOIN corrections"])
    for j, (error, said) in enumerate([("database is locked", BUSY), ("disk I/O error", UNAVAILABLE)])])
async def test_history_with_the_database_locked_or_failing(h: Harness, statement, locale, error, said,
                                                           caplog) -> None:
    expected = (await h.slash("history", user=A, locale=locale)).reply.text
    before = dump(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail(statement, times=1, error=error)
    with caplog.at_level(logging.WARNING):
        r = await h.slash("history", user=A, locale=locale)
    assert flaky.hits == 1
    assert r.reply.ephemeral and said[locale] in r.reply.text and not codes_of(r.reply.text)
    clean(r.reply.text)
    assert not errors(caplog)
    assert dump(h) == before
    assert (await h.slash("history", user=A, locale=locale)).reply.text == expected


# ------------------------------------------------------------------------------------------------ /replay


def code_of(h: Harness) -> str:
    return encode_code(h.recs[0].match_id, 0)  # type: ignore[attr-defined]


async def test_replay_upload_retried_after_a_5xx_and_a_429(h: Harness) -> None:
    code = code_of(h)
    before = dump(h)
    h.fake.fail(WEBHOOK, status=503, times=2, method="POST")
    rec = await run(h, h.slash_payload("replay", user=A, code=code))
    assert rec.reply.images and f"`{code}`" in rec.reply.text and rec.reply.ephemeral
    assert statuses(h, WEBHOOK, "POST")[-3:] == [503, 503, 200]
    h.fake.rate_limit(WEBHOOK, times=1, retry_after=0.01, method="POST")
    h.fake.fail(CALLBACK, status=503, times=1)  # and the deferral itself
    rec = await run(h, h.slash_payload("replay", user=B, code=code))
    assert rec.reply.images and f"`{code}`" in rec.reply.text
    assert statuses(h, WEBHOOK, "POST")[-2:] == [429, 200] and statuses(h, CALLBACK)[-2:] == [503, 200]
    assert dump(h) == before


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "zh-TW"])
async def test_replay_upload_failing_says_so_and_the_next_try_works(h: Harness, locale, caplog) -> None:
    code = code_of(h)
    before = dump(h)
    fault = h.fake.fail(WEBHOOK, status=503, times=5, method="POST")
    with caplog.at_level(logging.WARNING):
        rec = await run(h, h.slash_payload("replay", user=A, code=code, locale=locale))
    assert fault.hits == 5
    [msg] = rec.messages
    assert msg.ephemeral and not msg.images and DISCORD[locale] in msg.text
    clean(msg.text)
    assert not errors(caplog)
    assert dump(h) == before
    again = await h.slash("replay", user=A, code=code, locale=locale)
    assert again.reply.images and f"`{code}`" in again.reply.text


async def test_a_replay_step_whose_edit_fails_stays_put_and_the_next_click_works(h: Harness) -> None:
    msg = (await h.slash("replay", user=A, code=code_of(h))).reply
    image, text = msg.images, msg.text
    fault = h.fake.fail(ORIGINAL, status=502, times=5, method="PATCH")
    rec = await run(h, h.click_payload(msg, label="▶", user=A))
    assert fault.hits == 5
    assert msg.images == image and msg.text == text  # still the deal, as the player last saw it
    assert rec.reply.ephemeral and DISCORD["en-US"] in rec.reply.text
    h.fake.rate_limit(ORIGINAL, times=1, retry_after=0.01, method="PATCH")
    await run(h, h.click_payload(msg, label="▶", user=A))
    assert statuses(h, ORIGINAL, "PATCH")[-2:] == [429, 200]
    step = h.seen.replay_images()[-1][1].step
    assert step >= 1 and f"step {step}/" in msg.text and msg.images != image


async def test_the_animation_upload_failing_says_so_and_the_next_try_works(h: Harness) -> None:
    msg = (await h.slash("replay", user=A, code=code_of(h), locale="zh-CN")).reply
    fault = h.fake.fail(WEBHOOK, status=500, times=5, method="POST")
    rec = await run(h, h.click_payload(msg, label="动图", user=A, locale="zh-CN"))
    assert fault.hits == 5 and not rec.reply.files and DISCORD["zh-CN"] in rec.reply.text
    rec = await run(h, h.click_payload(msg, label="动图", user=A, locale="zh-CN"))
    name, data = next(iter(rec.reply.files.items()))
    assert name.endswith(".gif") and data[:6] == b"GIF89a"


# every statement opening a replay reads with, locked and failing, the three languages in turn
@pytest.mark.parametrize(("statement", "error", "said", "locale"), [
    (stmt, error, said, LOCALES[(i + j) % 3])
    for i, stmt in enumerate(["FROM matches", "FROM hands", "FROM actions WHERE match_id = ? ORDER BY seq",
                              "FROM memory_settings", "FROM corrections c JOIN hands h"])
    for j, (error, said) in enumerate([("database is locked", BUSY), ("disk I/O error", UNAVAILABLE)])])
async def test_opening_a_replay_with_the_database_locked_or_failing(h: Harness, statement, locale, error, said,
                                                                    caplog) -> None:
    code = code_of(h)
    before = dump(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail(statement, times=1, error=error)
    with caplog.at_level(logging.WARNING):
        r = await h.slash("replay", user=A, code=code, locale=locale)
    assert flaky.hits == 1
    assert r.reply.ephemeral and not r.reply.images and said[locale] in r.reply.text
    clean(r.reply.text)
    assert not errors(caplog)
    assert dump(h) == before
    again = await h.slash("replay", user=A, code=code, locale=locale)
    assert again.reply.images and f"`{code}`" in again.reply.text


@pytest.mark.parametrize(("command", "statement"), [("history", "FROM ledger l JOIN hands h"),
                                                    ("replay", "FROM memory_settings")])
async def test_a_click_with_the_database_locked_changes_nothing_and_the_next_click_works(h: Harness, command,
                                                                                       statement) -> None:
    h.bot.get_cog("Memory").page_size = 2  # /history: two pages, ▶ turns to the second
    options = {"code": code_of(h)} if command == "replay" else {}
    msg = (await h.slash(command, user=A, **options)).reply
    shown = (msg.text, msg.images)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail(statement, times=1)
    r = await h.click(msg, label="▶", user=A)
    assert flaky.hits == 1 and r.reply.ephemeral and BUSY["en-US"] in r.reply.text
    assert (msg.text, msg.images) == shown
    await h.click(msg, label="▶", user=A)
    assert (msg.text, msg.images) != shown and ("Page 2 of 2" in msg.text or "step 1/" in msg.text)
