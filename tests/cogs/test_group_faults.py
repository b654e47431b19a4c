"""Seasons and corrections when Discord fails the answer after the command has stored its work: the admin is told
it was done (with the answer), never "nothing was changed, try again"; doing it again anyway is refused, so nothing
counts twice. Also a season end date no calendar can end, and an export larger than Discord takes or slower than
its three seconds."""

from __future__ import annotations

import asyncio
import csv
import io
import types
import zipfile

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


# ---------------------------------------------------------------------------------------------- export


def csv_of(raw: bytes) -> list[list[str]]:
    return list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))


async def test_an_export_larger_than_discord_takes_comes_zipped(h: Harness):
    plain = (await h.slash("export", permissions=ADMIN_PERMISSIONS)).reply
    [att] = plain.attachments
    rows = csv_of(plain.files[att.filename])
    size = len(plain.files[att.filename])
    h.fake.upload_limit = size - 1  # this server takes a byte less than the CSV
    r = await h.slash("export", permissions=ADMIN_PERMISSIONS)
    reply = r.reply
    assert reply.ephemeral and "zipped" in reply.content and f"{len(rows) - 1} rows" in reply.content
    [att] = reply.attachments
    assert att.filename == f"mjbot-ledger-{GUILD_ID}.zip"
    z = zipfile.ZipFile(io.BytesIO(reply.files[att.filename]))
    assert z.namelist() == [f"mjbot-ledger-{GUILD_ID}.csv"]
    assert csv_of(z.read(z.namelist()[0])) == rows
    assert sql(h, "SELECT COUNT(*) FROM settings_audit WHERE field = 'export'") == [(2,)]


@pytest.mark.parametrize("locale", LOCALES)
async def test_an_export_too_large_even_zipped_is_told_and_not_audited(h: Harness, locale, caplog):
    h.fake.upload_limit = 300
    before = dump(h)
    r = await h.slash("export", permissions=ADMIN_PERMISSIONS, locale=locale)
    reply = r.reply
    assert reply.ephemeral and not reply.attachments
    assert {"en-US": "Export one season at a time", "zh-CN": "一次导出一个赛季",
            "zh-TW": "一次匯出一個賽季"}[locale] in reply.content, reply.content
    assert "1 KB" in reply.content  # the limit, 300 bytes
    assert dump(h) == before  # no audit row for an export nobody received
    assert not [rec for rec in caplog.records if rec.exc_info]


async def test_the_export_answers_before_it_reads_the_ledger(h: Harness, monkeypatch):
    """Discord waits three seconds for the first answer; a large ledger takes longer to read and write. The bot
    answers (deferred, "thinking") before it reads, so a slow read still ends in the file."""
    from bot.store import group as gstore

    real = gstore.ledger_rows
    reading, go = asyncio.Event(), asyncio.Event()

    async def slow(*args, **kwargs):
        reading.set()
        await go.wait()
        return await real(*args, **kwargs)

    monkeypatch.setattr(gstore, "ledger_rows", slow)
    data, rec = h.slash_payload("export", permissions=ADMIN_PERMISSIONS)
    h.bot._connection.parse_interaction_create(data)
    await asyncio.wait_for(reading.wait(), 10)
    await h.settle()
    assert rec.callback_type == 5 and rec.callbacks[0]["data"]["flags"] & 64  # deferred, privately
    go.set()
    await h.settle()
    [att] = rec.reply.attachments
    assert att.filename.endswith(".csv") and rec.reply.ephemeral


@pytest.mark.parametrize("locale", LOCALES)
async def test_a_setting_whose_answer_discord_failed_is_told_made(h: Harness, locale):
    told = await failing_answer(h, "settings", locale, record_expiry_hours=5)
    assert SAID_DONE[locale] in told and "5" in told, told
    assert not any(n in told for n in NOTHING)
    assert sql(h, "SELECT record_expiry_hours FROM memory_settings WHERE guild_id = ?", (GUILD_ID,)) == [(5,)]


async def test_a_void_stored_then_a_failing_read_is_told_done(h: Harness):
    """The void is written, then the players' names are read for the answer: the database busy on that read is
    not told as "nothing was changed", but as done, with the answer as far as it goes."""
    from tests.harness.faults import FlakyConnection

    hand = sql(h, "SELECT hand_id FROM ledger WHERE guild_id = ? AND player_id IS NOT NULL LIMIT 1",
               (GUILD_ID,))[0][0]
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("SELECT display_name FROM players", times=1)
    r = await h.slash("correct void", hand=hand, reason="misclick", permissions=ADMIN_PERMISSIONS)
    assert flaky.hits == 1
    assert sql(h, "SELECT kind, hand_id, reason FROM corrections") == [("void", hand, "misclick")]
    told = r.reply.content
    assert r.reply.ephemeral and "Done, but the bot could not finish its answer" in told and str(hand) in told, told
    assert not any(n in told for n in NOTHING)


async def test_settings_that_set_nothing_are_not_told_done(h: Harness):
    """/settings with no option writes nothing: a Discord failure on its answer is told as such, not as done."""
    before = dump(h)
    told = await failing_answer(h, "settings")
    assert dump(h) == before
    assert SAID_DONE["en-US"] not in told and "problem on Discord's side" in told, told


async def test_an_export_whose_file_discord_never_took_is_not_audited(h: Harness):
    fault = h.fake.fail(r"^/webhooks/\d+/[^/]+$", method="POST", status=503, times=5)
    data, rec = h.slash_payload("export", permissions=ADMIN_PERMISSIONS)
    h.bot._connection.parse_interaction_create(data)
    await done(h, rec)
    assert fault.hits == 5 and not any(m.attachments for m in rec.messages)
    assert sql(h, "SELECT COUNT(*) FROM settings_audit WHERE field = 'export'") == [(0,)]
    # once Discord takes it, it is audited: who exported what, how many rows
    r = await h.slash("export", permissions=ADMIN_PERMISSIONS)
    [att] = r.reply.attachments
    rows = len(csv_of(r.reply.files[att.filename])) - 1
    assert sql(h, "SELECT user_id, field, new_value FROM settings_audit WHERE field = 'export'") == [
        (USER_ID, "export", f'"all: {rows}"')]
