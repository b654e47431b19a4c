"""Seasons and corrections when Discord fails the answer after the command has stored its work: the admin is told
it was done (with the answer), never "nothing was changed, try again"; doing it again anyway is refused, so nothing
counts twice. Also a season end date no calendar can end."""

from __future__ import annotations

import asyncio
import types

import discord.webhook.async_ as webhook_async
import pytest

from tests.cogs import test_group
from tests.cogs.test_group import B, C
from tests.cogs.test_memory_faults import done
from tests.harness import ADMIN_PERMISSIONS, GUILD_ID, USER_ID, Harness
from tests.harness.db import dump, sql

CALLBACK = r"/interactions/\d+/[^/]+/callback$"
SAID_DONE = {"en-US": "Done, but Discord failed to show the answer", "zh-CN": "已经办好了，只是 Discord 没能显示回复",
             "zh-TW": "已經辦好了，只是 Discord 沒能顯示回覆"}
NOTHING = ("nothing was changed", "什么都没有改动", "什麼都沒有改動")
LOCALES = tuple(SAID_DONE)

h = test_group.h  # the fixture: two servers' hands in the ledger


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch):
    """discord.py's 1..9 s waits between its five tries of an interaction answer: 10 ms here."""
    fast = types.SimpleNamespace(**{k: getattr(asyncio, k) for k in dir(asyncio) if not k.startswith("__")})

    async def sleep(delay, result=None):
        return await asyncio.sleep(min(delay, 0.01), result)

    fast.sleep = sleep
    monkeypatch.setattr(webhook_async, "asyncio", fast)


async def failing_answer(h: Harness, path: str, locale: str = "en-US", **options):
    """Run an admin's command while Discord answers its interaction callback with 503 five times (discord.py's
    tries), then works again: what the admin reads."""
    fault = h.fake.fail(CALLBACK, status=503, times=5)
    data, rec = h.slash_payload(path, permissions=ADMIN_PERMISSIONS, locale=locale, **options)
    h.bot._connection.parse_interaction_create(data)
    await done(h, rec)
    assert fault.hits == 5
    return " ".join(m.text for m in rec.messages)


def adjustments(h: Harness) -> list[tuple]:
    return sql(h, "SELECT c.id, c.guild_id, c.kind, c.hand_id, c.variant, c.reason, c.user_id, r.seat, r.player_id, "
                  "r.amount, r.hands, r.wins FROM corrections c JOIN correction_rows r ON r.correction_id = c.id "
                  "WHERE c.kind = 'adjust' ORDER BY c.id, r.seat")


@pytest.mark.parametrize("locale", LOCALES)
async def test_an_adjustment_whose_answer_discord_failed_is_told_done_and_not_counted_twice(h: Harness, locale):
    told = await failing_answer(h, "correct adjust", locale, payer=B, payee=C, amount=25, reason="side bet",
                                variant="hefei")
    assert SAID_DONE[locale] in told and "25 子" in told, told
    assert not any(n in told for n in NOTHING)
    rows = adjustments(h)
    cid = rows[0][0]
    assert rows == [(cid, GUILD_ID, "adjust", None, "hefei", "side bet", USER_ID, 0, B, -25, 0, 0),
                    (cid, GUILD_ID, "adjust", None, "hefei", "side bet", USER_ID, 1, C, 25, 0, 0)]
    # the admin repeats it anyway (or the answer never came: the bot was restarting): refused, nothing written
    before = dump(h)
    again = await h.slash("correct adjust", payer=B, payee=C, amount=25, reason="side bet", variant="hefei",
                          permissions=ADMIN_PERMISSIONS, locale=locale)
    assert again.reply.ephemeral and f"#{cid}" in again.reply.content
    assert {"en-US": "identical adjustment", "zh-CN": "一模一样的调整", "zh-TW": "一模一樣的調整"}[locale] \
        in again.reply.content
    assert dump(h) == before


async def test_a_second_adjustment_is_made_with_another_reason_or_after_the_repeat_window(h: Harness):
    await h.slash("correct adjust", payer=B, payee=C, amount=25, reason="side bet", variant="hefei",
                  permissions=ADMIN_PERMISSIONS)
    r = await h.slash("correct adjust", payer=B, payee=C, amount=25, reason="side bet, second night",
                      variant="hefei", permissions=ADMIN_PERMISSIONS)
    assert not r.reply.ephemeral and "25 子" in r.reply.content
    # the same words eleven minutes later: a second adjustment, as asked
    async with h.bot.store.transaction() as conn:
        await conn.execute("UPDATE corrections SET at = at - 660000, posted_at = posted_at - 660000")
        await conn.execute("UPDATE correction_rows SET at = at - 660000")
    r = await h.slash("correct adjust", payer=B, payee=C, amount=25, reason="side bet", variant="hefei",
                      permissions=ADMIN_PERMISSIONS)
    assert not r.reply.ephemeral and "25 子" in r.reply.content
    net = sql(h, "SELECT player_id, SUM(amount) FROM correction_rows GROUP BY player_id ORDER BY player_id")
    assert net == [(B, -75), (C, 75)]
    # the other way round, or another amount, is another adjustment too
    r = await h.slash("correct adjust", payer=C, payee=B, amount=25, reason="side bet", variant="hefei",
                      permissions=ADMIN_PERMISSIONS)
    assert not r.reply.ephemeral
    assert len({row[0] for row in adjustments(h)}) == 4


@pytest.mark.parametrize("locale", LOCALES)
async def test_a_season_start_whose_answer_discord_failed_is_told_done_and_not_started_twice(h: Harness, locale):
    told = await failing_answer(h, "season start", locale, title="Spring")
    assert SAID_DONE[locale] in told and "Spring" in told, told
    assert not any(n in told for n in NOTHING)
    assert sql(h, "SELECT number, name, ended_at FROM seasons WHERE guild_id = ?", (GUILD_ID,)) == [(1, "Spring", None)]
    before = dump(h)
    again = await h.slash("season start", title="Spring", permissions=ADMIN_PERMISSIONS, locale=locale)
    assert again.reply.ephemeral and "Spring" in again.reply.content
    assert {"en-US": "it is running", "zh-CN": "正在进行", "zh-TW": "正在進行"}[locale] in again.reply.content
    assert dump(h) == before
    # a new name starts the next season, ending this one
    r = await h.slash("season start", title="Summer", permissions=ADMIN_PERMISSIONS)
    assert not r.reply.ephemeral and "Summer" in r.reply.content
    seasons = sql(h, "SELECT number, name, ended_at IS NULL FROM seasons WHERE guild_id = ? ORDER BY number",
                  (GUILD_ID,))
    assert seasons == [(1, "Spring", 0), (2, "Summer", 1)]


async def test_a_void_whose_answer_discord_failed_is_told_done(h: Harness):
    hand = sql(h, "SELECT hand_id FROM ledger WHERE guild_id = ? LIMIT 1", (GUILD_ID,))[0][0]
    told = await failing_answer(h, "correct void", hand=hand, reason="misclick")
    assert SAID_DONE["en-US"] in told and str(hand) in told, told
    assert not any(n in told for n in NOTHING)
    assert sql(h, "SELECT kind, hand_id, reason FROM corrections") == [("void", hand, "misclick")]


@pytest.mark.parametrize("locale", LOCALES)
async def test_a_season_ending_on_the_calendars_last_day_is_refused_in_words(h: Harness, locale, caplog):
    before = dump(h)
    r = await h.slash("season start", title="Forever", ends="9999-12-31", permissions=ADMIN_PERMISSIONS,
                      locale=locale)
    assert r.reply.ephemeral
    assert {"en-US": "too far in the future", "zh-CN": "太远", "zh-TW": "太遠"}[locale] in r.reply.content
    assert dump(h) == before
    assert not [rec for rec in caplog.records if rec.exc_info]  # refused, not a logged crash
