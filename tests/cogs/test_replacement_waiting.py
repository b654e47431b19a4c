"""A hand recorded again in place of a voided one (``/record replaces:``) and the waits for records not yet confirmed.

Such a record counts, once confirmed, at the voided hand's time: its season and its week (docs/record.md, *When it
counts*). The seasons' and the weekly report's waits used to read the record's own proposal time instead: a
replacement of a season-1 hand proposed during season 2 was announced by ``/season start`` and season 2's final
board as a hand of season 2, and held season 2's final board back for a day although it never counts there; a
replacement of a hand of a season (or week) proposed after its end was neither waited for nor named."""

from __future__ import annotations

import re
from datetime import UTC, datetime, time, timedelta

import pytest

from bot.store import group as gstore
from tests.cogs.test_season_records import HAND, NAMES, SEATS, SH, A, B, C, D, finals, tick
from tests.harness import ADMIN_PERMISSIONS, CHANNEL_ID, GUILD_ID, Harness
from tests.harness.db import sql
from tests.harness.fake import Message

pytestmark = pytest.mark.both_backends

HEFEI = HAND  # the winner (S or N here) takes 20 from W's discard


@pytest.fixture
async def h(harness: Harness):
    for p, n in NAMES.items():
        harness.fake.add_user(p, n)
    return harness


async def wrong_hand(h: Harness, at: datetime) -> int:
    """A hand recorded at ``at`` with the wrong winner (Dee instead of Bob) and confirmed by Cid; its hand id."""
    h.bot.get_cog("Recorder").clock = lambda: at
    r = await h.slash("record", user=D, hand=HEFEI, winner=D, discarder=C, variant="hefei", **SEATS)
    await h.click(r.reply, label="Confirm", user=C)
    [(hand,)] = sql(h, "SELECT hand_id FROM records WHERE status = 'confirmed' ORDER BY id DESC LIMIT 1")
    return hand


async def made_again(h: Harness, hand: int, at: datetime) -> Message:
    """At ``at`` an admin voids ``hand`` and records it again in its place (Bob won); the new record's card."""
    h.bot.get_cog("Recorder").clock = lambda: at
    await h.slash("correct void", hand=hand, reason="Bob won", permissions=ADMIN_PERMISSIONS)
    r = await h.slash("record", user=A, hand=HEFEI, winner=B, discarder=C, variant="hefei", replaces=hand,
                      permissions=ADMIN_PERMISSIONS, locale="en-US", **SEATS)
    assert f"in place of hand #{hand}" in r.reply.content, r.reply.content
    return h.fake.find_message(r.reply.id)


async def confirm(h: Harness, card: Message, at: datetime) -> None:
    h.bot.get_cog("Recorder").clock = lambda: at
    await h.click(h.fake.find_message(card.id), label="Confirm", user=C)
    assert "Confirmed" in h.fake.find_message(card.id).content


async def season_ending_tomorrow(h: Harness, title: str) -> datetime:
    """``/season start title:<title> ends:<tomorrow>``; returns the season's end (the midnight after that day)."""
    last_day = datetime.now(SH).date() + timedelta(days=1)
    await h.slash("season start", title=title, ends=last_day.isoformat(), permissions=ADMIN_PERMISSIONS)
    return datetime.combine(last_day + timedelta(days=1), time(0), tzinfo=SH)


# ------------------------------------------------------------------------------------------------------ seasons


async def test_season_start_does_not_name_a_replacement_of_an_older_seasons_hand(h: Harness):
    now = datetime.now(UTC)
    await gstore.start_season(h.bot.store, GUILD_ID, A, "Autumn", ends_at=None, channel_id=CHANNEL_ID,
                              at=now - timedelta(days=10))
    hand = await wrong_hand(h, now - timedelta(days=3))  # season 1
    await gstore.start_season(h.bot.store, GUILD_ID, A, "Winter", ends_at=None, channel_id=CHANNEL_ID,
                              at=now - timedelta(days=1))  # season 2 began yesterday
    card = await made_again(h, hand, now)  # record #2, waiting for Cid: it will count in season 1
    s = await h.slash("season start", title="Spring", permissions=ADMIN_PERMISSIONS, locale="en-US")
    assert "Season 3 · Spring" in s.reply.content
    assert "Still waiting" not in s.reply.content and "#2" not in s.reply.content  # nothing of season 2 waits
    [final] = finals(h)
    assert "Final board of Season 2 · Winter" in final.content
    assert "Still waiting" not in final.content and "#2" not in final.content
    await confirm(h, card, now + timedelta(minutes=1))
    s1 = (await h.slash("leaderboard", variant="hefei", season="1", locale="en-US")).reply.content
    s2 = (await h.slash("leaderboard", variant="hefei", season="2", locale="en-US")).reply.content
    assert "**Bob** · +20 子" in s1 and "Bob" not in s2  # where it counts, as the answers implied


async def test_a_seasons_final_board_is_not_held_back_for_a_hand_of_an_older_season(h: Harness):
    now = datetime.now(UTC)
    await gstore.start_season(h.bot.store, GUILD_ID, A, "Autumn", ends_at=None, channel_id=CHANNEL_ID,
                              at=now - timedelta(days=10))
    hand = await wrong_hand(h, now - timedelta(days=3))  # season 1
    end = await season_ending_tomorrow(h, "Winter")  # season 2, nothing played in it
    await made_again(h, hand, end - timedelta(hours=3))  # waits for Cid; counts in season 1
    await tick(h, end + timedelta(hours=1))
    assert len(finals(h)) == 2  # season 1's (at /season start) and season 2's, at once
    assert "这个赛季没有人打过牌。" in finals(h)[-1].content and "等待确认" not in finals(h)[-1].content


async def test_a_replacement_proposed_after_its_season_ended_holds_its_final_board_back(h: Harness):
    end = await season_ending_tomorrow(h, "Autumn")
    hand = await wrong_hand(h, end - timedelta(hours=3))  # the season's last evening
    card = await made_again(h, hand, end + timedelta(minutes=30))  # the mistake is noticed after midnight
    await tick(h, end + timedelta(hours=1))
    assert finals(h) == []  # the hand will count in the season: its board waits for it
    await confirm(h, card, end + timedelta(hours=2))
    await tick(h, end + timedelta(hours=2, minutes=5))
    [final] = finals(h)
    assert "1. **Bob** · +20 子" in final.content and "**Dee** · 0 子" in final.content  # put right, on the board


async def test_a_final_board_that_waited_long_enough_names_a_late_replacement(h: Harness):
    end = await season_ending_tomorrow(h, "Autumn")
    hand = await wrong_hand(h, end - timedelta(hours=3))
    await made_again(h, hand, end + timedelta(minutes=30))  # record #2, never confirmed
    await tick(h, end + timedelta(hours=24, minutes=5))
    [final] = finals(h)
    assert "本赛季还有记账在等待确认：#2。确认后这些牌局计入第 1 赛季" in final.content


# ------------------------------------------------------------------------------------------------ the weekly report


async def weekly_report_on_mondays(h: Harness) -> int:
    ch = h.add_channel(name="reports")
    await gstore.set_weekly_report(h.bot.store, GUILD_ID, A, ch, 0, datetime(2030, 1, 7).toordinal())
    return ch


def hands_reported(h: Harness, ch: int) -> list[int]:
    return [int(re.search(r"共 (\d+) 局", p.content).group(1)) for p in h.channel(ch)]


async def test_the_weekly_report_does_not_wait_for_a_replacement_of_an_older_weeks_hand(h: Harness):
    ch = await weekly_report_on_mondays(h)
    hand = await wrong_hand(h, datetime(2030, 1, 3, 20, tzinfo=SH))  # the week before the reported one
    await made_again(h, hand, datetime(2030, 1, 13, 22, tzinfo=SH))  # Sunday night, waiting for Cid
    await tick(h, datetime(2030, 1, 14, 10, 5, tzinfo=SH))  # Monday 10:05: nothing of the week waits
    assert hands_reported(h, ch) == [0]


async def test_the_weekly_report_waits_for_a_replacement_of_a_hand_of_its_week(h: Harness):
    ch = await weekly_report_on_mondays(h)
    hand = await wrong_hand(h, datetime(2030, 1, 13, 20, tzinfo=SH))  # Sunday evening
    card = await made_again(h, hand, datetime(2030, 1, 14, 9, tzinfo=SH))  # Monday morning, before the report
    await tick(h, datetime(2030, 1, 14, 10, 5, tzinfo=SH))
    assert hands_reported(h, ch) == []  # the hand will count in the week: the report waits for it
    await confirm(h, card, datetime(2030, 1, 14, 11, tzinfo=SH))
    await tick(h, datetime(2030, 1, 14, 11, 5, tzinfo=SH))
    assert hands_reported(h, ch) == [1]  # in its own week's report (the voided hand counts for nothing)
