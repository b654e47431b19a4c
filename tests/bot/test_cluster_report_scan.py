"""The weekly report's scheduler at scale, with several processes: each round reads the servers that may have a
report due, of the shards whose leases the process holds, in one statement (cogs/report.py ``Report.tick``,
bot/store/group.py ``report_servers``). It read every server with the report on, of every shard, one statement per
server, in every process (standbys too): 10,000 servers made 10,000 statements a round per process."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.shards import shard_of
from bot.store import group as gstore
from cogs.report import due_bounds, latest_report_day
from tests.bot.test_cluster import COUNT, G0, G1, U1, boot, fresh_fake
from tests.harness.faults import FlakyConnection

pytestmark = pytest.mark.usefixtures("stepped_cluster")

SH = ZoneInfo("Asia/Shanghai")
SERVERS = 400
BASE = 1_300_000_000_000_000_000
NOW = datetime(2030, 1, 16, 12, tzinfo=UTC)  # a Wednesday: every zone is on the same latest report day


def quiet(*hs) -> None:
    for h in hs:
        for cog in ("Report", "Recorder"):
            h.bot.get_cog(cog).loop.cancel()  # the test runs the ticks
        rep = h.bot.get_cog("Report")
        rep.clock, rep.first_round = (lambda: NOW), False


async def test_a_round_with_no_report_due_is_a_few_statements_whatever_the_number_of_servers(pg_url):
    fake = fresh_fake()
    p0 = await boot(pg_url, (0,), fake)
    try:
        quiet(p0)
        rows = []
        for i in range(SERVERS):  # every weekday; each server's latest week posted
            week = latest_report_day(NOW.astimezone(SH), i % 7).toordinal()
            rows.append((BASE + (i << 22), 0, BASE + 7 + i, i % 7, week))
        async with p0.bot.store.transaction() as conn:
            await conn.executemany("INSERT INTO group_settings (guild_id, updated_at, report_channel, report_weekday, "
                                   "last_report_week) VALUES (?, ?, ?, ?, ?)", rows)
        assert await gstore.report_servers(p0.bot.store, due=due_bounds(NOW)) == []
        counted = FlakyConnection.install(p0.bot.store)
        await p0.bot.get_cog("Report").tick()
        assert counted.statements <= 8, f"{counted.statements} statements in a round with nothing due"
    finally:
        await p0.close()


async def test_each_report_is_read_and_posted_by_its_shards_lease_holder_only(pg_url):
    fake = fresh_fake()
    p0 = await boot(pg_url, (0,), fake)
    p1 = await boot(pg_url, (1,), fake)
    standby = await boot(pg_url, (1,), fake)
    try:
        quiet(p0, p1, standby)
        assert (shard_of(G0, COUNT), shard_of(G1, COUNT)) == (0, 1) and not standby.bot.cluster.held
        chans = {G0: 1_240_000_000_000_000_000, G1: 1_240_000_000_000_000_001}
        for g, ch in chans.items():
            p0.add_channel(ch, guild_id=g)
            await gstore.set_weekly_report(p0.bot.store, g, U1, ch, 0, datetime(2030, 1, 7).toordinal())
        seen = {}
        for h in (standby, p0, p1):
            await h.bot.get_cog("Report").tick()
            await h.settle()
            seen[h] = [len(h.channel(ch)) for ch in chans.values()]
        assert seen[standby] == [0, 0]  # a standby holds no lease: it posts nothing
        assert seen[p0] == [1, 0] and seen[p1] == [1, 1]  # each its own shard's
        for g in chans:
            gs = await gstore.group_settings(p0.bot.store, g)
            assert (gs.last_report_week, gs.report_claim_week) == (date(2030, 1, 14).toordinal(), None)
    finally:
        for h in (p0, p1, standby):
            await h.close()


ZONES = ["Pacific/Kiritimati", "Etc/GMT+12", "Asia/Shanghai", "UTC", "America/St_Johns", "Asia/Kathmandu",
         "Pacific/Chatham", "Europe/London"]


def test_no_zone_has_a_later_report_day_than_the_bound():
    """The SQL filter leaves out a server only when its week is surely posted: in no time zone has a later report
    day come (checked every 15 minutes over two weeks, across a daylight-saving change)."""
    t = datetime(2030, 3, 3, tzinfo=UTC)
    while t < datetime(2030, 3, 17, tzinfo=UTC):
        bounds = due_bounds(t)
        for name in ZONES:
            local = t.astimezone(ZoneInfo(name))
            for weekday in range(7):
                assert latest_report_day(local, weekday).toordinal() <= bounds[weekday], (t, name, weekday)
        assert any(latest_report_day(t.astimezone(ZoneInfo("Pacific/Kiritimati")), w).toordinal() == bounds[w]
                   for w in range(7))
        t += timedelta(minutes=15)
