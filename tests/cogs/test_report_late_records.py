"""The weekly report and /record hands of its week still waiting for their confirmations at the report's hour.

A recorded hand counts at the time it was proposed (docs/record.md). One recorded on Sunday night and confirmed on
Monday after the 10:00 report was in no report at all: its own week's had gone out without it, and the next week's
does not cover it. The report now waits for such a hand (its confirmation, rejection or expiry), a day at most."""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.store import group as gstore
from bot.store import records as rstore
from cogs.report import Report
from tests.harness import CHANNEL_ID, GUILD_ID, USER_ID, Harness

A, B, C, D = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3
NAMES = {A: "小明", B: "Bob", C: "張三", D: "Dee"}
SH = ZoneInfo("Asia/Shanghai")


async def propose(h: Harness, at: datetime) -> rstore.Record:
    seats = [rstore.SeatProposal(A, NAMES[A], 0), rstore.SeatProposal(B, NAMES[B], 20),
             rstore.SeatProposal(C, NAMES[C], -20), rstore.SeatProposal(D, NAMES[D], 0)]
    return await rstore.propose(h.bot.store, guild_id=GUILD_ID, channel_id=CHANNEL_ID, proposer_id=B,
                                hand_text="1234678922m345s+5m", variant="hefei", rules={},
                                situation={"winner": 1, "discarder": 2}, hand_value=20, lang="en", seats=seats, at=at)


async def boot(tmp_path: Path) -> tuple[Harness, Report, int]:
    h = await Harness.boot(tmp_path / "bot.db")
    ch = h.add_channel(name="reports")
    await gstore.set_weekly_report(h.bot.store, GUILD_ID, A, ch, 0, datetime(2030, 1, 7).toordinal())  # Mondays
    return h, h.bot.get_cog("Report"), ch


async def tick(h: Harness, cog: Report, at: datetime) -> None:
    cog.clock = lambda: at
    await cog.tick()
    await h.settle()


def hands_reported(h: Harness, ch: int) -> list[int]:
    return [int(re.search(r"共 (\d+) 局", p.content).group(1)) for p in h.channel(ch)]


async def test_the_report_waits_for_a_hand_of_its_week_being_confirmed(tmp_path: Path):
    h, cog, ch = await boot(tmp_path)
    try:
        rec = await propose(h, datetime(2030, 1, 13, 22, tzinfo=SH))  # Sunday night
        await tick(h, cog, datetime(2030, 1, 14, 10, 5, tzinfo=SH))  # Monday 10:05: due, but the hand waits
        assert hands_reported(h, ch) == []
        out = await rstore.confirm(h.bot.store, GUILD_ID, rec.record_id, C, manager=False,
                                   at=datetime(2030, 1, 14, 11, tzinfo=SH))
        assert out.outcome == "settled"
        await tick(h, cog, datetime(2030, 1, 14, 11, 5, tzinfo=SH))
        assert hands_reported(h, ch) == [1]  # in its own week's report
        await tick(h, cog, datetime(2030, 1, 21, 10, 5, tzinfo=SH))
        assert hands_reported(h, ch) == [1, 0]
    finally:
        await h.close()


async def test_a_hand_left_unconfirmed_holds_the_report_back_only_so_long(tmp_path: Path):
    h, cog, ch = await boot(tmp_path)
    try:
        await rstore.set_record_expiry_hours(h.bot.store, GUILD_ID, A, 168)  # a server that gives a week
        rec = await propose(h, datetime(2030, 1, 13, 22, tzinfo=SH))
        await tick(h, cog, datetime(2030, 1, 14, 10, 5, tzinfo=SH))
        await tick(h, cog, datetime(2030, 1, 15, 9, 55, tzinfo=SH))  # still within the day's wait
        assert hands_reported(h, ch) == []
        await tick(h, cog, datetime(2030, 1, 15, 10, 6, tzinfo=SH))  # a day past the hour: it goes out without it
        assert hands_reported(h, ch) == [0]
        assert (await rstore.get(h.bot.store, GUILD_ID, rec.record_id)).status == "pending"
        # rejected, it holds nothing back; a hand of the week after the report's holds nothing back either
        await rstore.reject(h.bot.store, GUILD_ID, rec.record_id, C, manager=False,
                            at=datetime(2030, 1, 20, 9, tzinfo=SH))
        await propose(h, datetime(2030, 1, 21, 9, tzinfo=SH))  # Monday morning, before the report's hour
        await tick(h, cog, datetime(2030, 1, 21, 10, 5, tzinfo=SH))
        assert hands_reported(h, ch) == [0, 0]
    finally:
        await h.close()
