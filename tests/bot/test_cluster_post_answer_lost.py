"""A weekly report or a season's final board that Discord took while its answer was lost (a reset, a time-out: the
bot cannot know whether it was posted) is posted once, even when the next try comes after Discord forgot its nonce,
from the same process or from the one that took the server's shard over: the claim is kept, and the round that
takes it over looks in the channel first (cogs/post_claims.py ``maybe_posted``)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest

from bot.store import group as gstore
from tests.bot.test_cluster import CH1, G1, U1, boot, fresh_fake

pytestmark = pytest.mark.usefixtures("stepped_cluster")

SH = ZoneInfo("Asia/Shanghai")
REPORT_CH = CH1 + 100
LOST = {"reset": ConnectionResetError, "timeout": asyncio.TimeoutError}


def lose_answer_once(fake, path: str, error: type[BaseException]) -> list[int]:
    """The next POST to ``path`` is made by Discord, then its answer is lost (``error``: errno None, which discord.py
    does not retry)."""
    real, lost = fake.handle, []

    def handle(method, url, kwargs):
        out = real(method, url, kwargs)
        if not lost and method == "POST" and url.split("?")[0].endswith(path):
            lost.append(1)
            raise error("the answer was lost after Discord took the post")
        return out

    fake.handle = handle
    return lost


async def owner_and_standby(pg_url):
    """The process holding shard 1's lease (G1's) and a standby configured with the same shard."""
    fake = fresh_fake()
    owner = await boot(pg_url, (1,), fake)
    standby = await boot(pg_url, (1,), fake)
    for h in (owner, standby):
        for cog in ("Report", "Recorder"):
            h.bot.get_cog(cog).loop.cancel()  # the test runs the ticks
        h.bot.get_cog("Report").first_round = False  # both have run for a while
    return fake, owner, standby


async def next_holder(owner, standby, who: str):
    """The process whose round comes next for the server: the owner, or the standby once the owner stopped."""
    if who == "owner":
        return owner
    await owner.close()  # its lease goes back with its session; the claim it made stays
    await standby.bot.cluster.step()
    assert standby.bot.cluster.held == {1}
    return standby


NEXT = ["owner", "standby"]


async def tick(h, at: datetime) -> None:
    cog = h.bot.get_cog("Report")
    cog.clock = lambda: at
    await cog.tick()
    await h.settle()


@pytest.mark.parametrize("who", NEXT)
@pytest.mark.parametrize("error", LOST.values(), ids=LOST.keys())
async def test_a_weekly_report_whose_answer_was_lost_is_posted_once(pg_url, error, who):
    fake, owner, standby = await owner_and_standby(pg_url)
    try:
        owner.add_channel(REPORT_CH, guild_id=G1)
        await gstore.set_weekly_report(owner.bot.store, G1, U1, REPORT_CH, 0, datetime(2030, 1, 7).toordinal())
        lost = lose_answer_once(fake, f"/channels/{REPORT_CH}/messages", error)
        at = datetime(2030, 1, 14, 10, 5, tzinfo=SH)
        await tick(owner, at)
        assert lost and len(owner.channel(REPORT_CH)) == 1  # Discord has it; the bot did not hear so
        fake.forget_nonces()  # minutes pass
        await tick(owner, at + timedelta(minutes=1))  # a round while the claim is fresh: nothing is done yet
        assert len(owner.channel(REPORT_CH)) == 1 and fake.requests_to(f"/channels/{REPORT_CH}/messages", "GET") == []
        h = await next_holder(owner, standby, who)
        await tick(h, at + timedelta(minutes=5))  # the next round takes the claim over
        posts = h.channel(REPORT_CH)
        assert len(posts) == 1, f"the week's report is in its channel {len(posts)} times"
        assert len(fake.requests_to(f"/channels/{REPORT_CH}/messages", "GET")) == 1  # looked for, found
        gs = await gstore.group_settings(h.bot.store, G1)
        assert (gs.last_report_week, gs.report_claim_week) == (datetime(2030, 1, 14).toordinal(), None)
    finally:
        await owner.close()
        await standby.close()


@pytest.mark.parametrize("who", NEXT)
@pytest.mark.parametrize("error", LOST.values(), ids=LOST.keys())
async def test_a_final_board_whose_answer_was_lost_is_posted_once(pg_url, error, who):
    fake, owner, standby = await owner_and_standby(pg_url)
    try:
        owner.add_channel(CH1, guild_id=G1)
        start = datetime(2998, 12, 1, tzinfo=UTC)
        await gstore.start_season(owner.bot.store, G1, U1, "Short", ends_at=datetime(2999, 1, 1, tzinfo=UTC),
                                  channel_id=CH1, at=start)
        lost = lose_answer_once(fake, f"/channels/{CH1}/messages", error)
        at = datetime(2999, 1, 1, 16, 1, tzinfo=UTC)
        await tick(owner, at)
        assert lost and len(owner.channel(CH1)) == 1
        fake.forget_nonces()
        h = await next_holder(owner, standby, who)
        await tick(h, at + timedelta(minutes=5))
        posts = h.channel(CH1)
        assert len(posts) == 1, f"the season's final board is in its channel {len(posts)} times"
        [season] = [s for s in await gstore.seasons(h.bot.store, G1) if s.number == 1]
        assert season.final_posted_at is not None and season.final_claimed_at is None
    finally:
        await owner.close()
        await standby.close()
