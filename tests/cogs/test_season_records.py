"""A season's end and the hands recorded in person (/record) that still wait for their confirmations.

Such a hand counts at the time it was proposed (docs/record.md, *When it counts*): one recorded on a season's last
evening and confirmed the next morning counts in that season. The final board of a season that ends by its end date
used to go out at once, at the first scheduler round after midnight, without it (it could even say that nobody had
played), and was never drawn again. It now waits for the season's records, a day at most, and names those still
waiting when it goes out without them. ``/season start`` names only the records of the season that ended: an older
one does not count in it."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.store import group as gstore
from tests.harness import ADMIN_PERMISSIONS, CHANNEL_ID, GUILD_ID, USER_ID, Harness
from tests.harness.fake import Message

pytestmark = pytest.mark.both_backends

A, B, C, D = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3
NAMES = {A: "Ann", B: "Bob", C: "Cid", D: "Dee"}
SEATS = {"east": A, "south": B, "west": C, "north": D}
HAND = "1234678922m345s+5m"
SH = ZoneInfo("Asia/Shanghai")  # the server's time zone (the default)


@pytest.fixture
async def h(harness: Harness):
    for p, n in NAMES.items():
        harness.fake.add_user(p, n)
    return harness


def finals(h: Harness) -> list[Message]:
    return [m for m in h.channel() if "最终排名" in m.content or "Final board" in m.content]


async def tick(h: Harness, at: datetime) -> None:
    """A round of the scheduler at ``at``."""
    cog = h.bot.get_cog("Report")
    cog.clock = lambda: at
    await cog.tick()
    await h.settle()


async def record(h: Harness, at: datetime, *, winner: int = B, discarder: int = C) -> Message:
    """A hand recorded with /record at ``at``; its card."""
    h.bot.get_cog("Recorder").clock = lambda: at
    r = await h.slash("record", user=winner, hand=HAND, winner=winner, discarder=discarder, variant="hefei", **SEATS)
    assert "Hand played in person #" in r.reply.content, r.reply.content
    return max((m for m in h.channel() if "Hand played in person #" in m.content), key=lambda m: m.id)


async def confirm(h: Harness, card: Message, user: int, at: datetime) -> None:
    h.bot.get_cog("Recorder").clock = lambda: at
    await h.click(h.fake.find_message(card.id), label="Confirm", user=user)
    assert "Confirmed" in h.fake.find_message(card.id).content


async def season_ending_tomorrow(h: Harness) -> datetime:
    """``/season start title:Autumn ends:<tomorrow>``; returns the season's end (the midnight after that day)."""
    last_day = datetime.now(SH).date() + timedelta(days=1)
    r = await h.slash("season start", title="Autumn", ends=last_day.isoformat(), permissions=ADMIN_PERMISSIONS)
    assert "Season 1 · Autumn" in r.reply.content
    return datetime.combine(last_day + timedelta(days=1), time(0), tzinfo=SH)


async def test_a_season_ending_by_its_date_waits_for_the_hand_of_its_last_evening(h: Harness):
    end = await season_ending_tomorrow(h)
    card = await record(h, end - timedelta(hours=3))  # the last evening: Bob wins on Cid's discard
    await record(h, end + timedelta(hours=7), winner=D, discarder=A)  # the next morning: not the season's
    await tick(h, end + timedelta(minutes=5))  # the season is over, but Cid has not confirmed yet
    assert finals(h) == []
    h = await h.kill()  # the wait is read from the database: a restart neither posts it early nor forgets it
    try:
        await tick(h, end + timedelta(hours=2))
        assert finals(h) == []
        await confirm(h, card, C, end + timedelta(hours=8))
        await tick(h, end + timedelta(hours=8, minutes=5))  # the next morning's record still waits: not this season's
        [final] = finals(h)
        assert "第 1 赛季 · Autumn" in final.content
        assert "**Bob** · +20 子" in final.content and "**Cid** · -20 子" in final.content  # the last evening's hand is in it
        assert "等待确认" not in final.content and len(final.images) == 1
        await tick(h, end + timedelta(days=2))
        h = await h.restart()
        await tick(h, end + timedelta(days=2, minutes=5))
        assert len(finals(h)) == 1  # and posted once
    finally:
        await h.close()


async def test_the_final_board_waits_a_day_at_most_and_names_the_records_still_waiting(h: Harness):
    r = await h.slash("settings", record_expiry_hours=168, permissions=ADMIN_PERMISSIONS)  # a week to confirm
    assert "168" in r.reply.content
    end = await season_ending_tomorrow(h)
    card = await record(h, end - timedelta(hours=3))
    await tick(h, end + timedelta(hours=23, minutes=55))
    assert finals(h) == []
    await tick(h, end + timedelta(hours=24, minutes=5))  # a day past the season's end: it goes out without it
    [final] = finals(h)
    assert "这个赛季没有人打过牌" not in final.content  # a hand was played, and is not confirmed yet
    assert "这个赛季还没有记入账本的牌局。" in final.content
    assert "本赛季还有记账在等待确认：#1。确认后这些牌局计入第 1 赛季（/排行榜 赛季:1），但不在这份终榜上。" in final.content
    # confirmed later, the hand counts in season 1, as the board said
    await confirm(h, card, C, end + timedelta(days=3))
    board = (await h.slash("leaderboard", variant="hefei", season="1")).reply.content
    assert "**Bob** · +20 子" in board
    assert len(finals(h)) == 1


async def test_a_rejected_record_holds_the_final_board_back_no_longer(h: Harness):
    end = await season_ending_tomorrow(h)
    card = await record(h, end - timedelta(hours=3))
    await tick(h, end + timedelta(minutes=5))
    assert finals(h) == []
    h.bot.get_cog("Recorder").clock = lambda: end + timedelta(hours=1)
    await h.click(h.fake.find_message(card.id), label="Reject", user=C)
    await tick(h, end + timedelta(hours=1, minutes=5))
    [final] = finals(h)
    assert "这个赛季没有人打过牌。" in final.content and "等待确认" not in final.content


async def test_season_start_names_only_the_records_of_the_season_that_ended(h: Harness):
    """A record proposed before the season that ends began counts in no season (it used to be said to count in the
    season that ended); one proposed during it counts in it, on its leaderboard, not on its final board."""
    now = datetime.now(UTC)
    older = await record(h, now - timedelta(hours=3))  # Friday night, before any season
    await gstore.start_season(h.bot.store, GUILD_ID, A, "Sprng", ends_at=None, channel_id=CHANNEL_ID,
                              at=now - timedelta(hours=1))
    during = await record(h, now - timedelta(minutes=30), winner=D, discarder=A)  # #2, during season 1
    r = await h.slash("season start", title="Spring", permissions=ADMIN_PERMISSIONS)
    answer = r.reply.content
    assert ("Still waiting for confirmations: #2 (recorded with /record during season 1). Once confirmed, those "
            "hands count in season 1, as played in it; its final board below does not show them.") in answer
    assert "#1" not in answer
    [final] = finals(h)  # posted at once, in the admin's language, saying what it lacks
    assert "Final board of Season 1 · Sprng" in final.content
    assert "Still waiting for confirmations: #2 (hands of this season recorded with /record)" in final.content
    assert "#1" not in final.content and "No hand of this season is in the ledger yet." in final.content
    await confirm(h, older, C, now + timedelta(minutes=1))
    await confirm(h, during, A, now + timedelta(minutes=1))
    season1 = (await h.slash("leaderboard", variant="hefei", season="1")).reply.content
    # #2 counts in season 1 (Dee won on the dealer's discard), #1 in none: Bob won nothing there
    assert "1. **Dee** · +21 子 · played 1 · won 1" in season1 and "**Bob** · 0 子 · played 1 · won 0" in season1
    assert "**Bob** · +20 子" in (await h.slash("leaderboard", variant="hefei", season="all")).reply.content


@pytest.mark.parametrize(("locale", "said"), [
    ("zh-CN", "第 1 赛季期间记的账仍在等待确认：#1。确认后这些牌局按打牌的时间计入第 1 赛季"),
    ("zh-TW", "第 1 賽季期間記的帳仍在等待確認：#1。確認後這些牌局按打牌的時間計入第 1 賽季"),
])
async def test_season_start_says_where_the_waiting_records_count_in_chinese(h: Harness, locale, said):
    now = datetime.now(UTC)
    await gstore.start_season(h.bot.store, GUILD_ID, A, "春季", ends_at=None, channel_id=CHANNEL_ID,
                              at=now - timedelta(hours=1))
    await record(h, now - timedelta(minutes=30))
    r = await h.slash("season start", title="夏季", permissions=ADMIN_PERMISSIONS, locale=locale)
    assert said in r.reply.content
