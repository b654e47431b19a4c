"""A season's final board and the weekly report are posted at least once and never twice (cogs/group.py
``post_final_board``, cogs/report.py): claimed in the database, posted with a nonce Discord enforces, then noted as
posted. The faults: the bot killed while the post is in flight (before or after Discord took it), Discord failing
and then the database failing to give the claim back, the database failing to note the post. Each ends with exactly
one post, on SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from bot.store import group as gstore
from cogs.post_claims import NOTE_TRIES
from cogs.report import Report, report_nonce
from tests.cogs.test_group import NAMES, SH, admin, write_hands
from tests.harness import ADMIN_PERMISSIONS, CHANNEL_ID, GUILD_ID, USER_ID, Harness
from tests.harness.db import sql
from tests.harness.faults import FlakyConnection

pytestmark = pytest.mark.both_backends

CHANNEL_POSTS = rf"^/channels/{CHANNEL_ID}/messages$"
WEEK = datetime(2030, 1, 14).toordinal()  # the report day of the week reported (Monday, Jan 14, 2030)


@pytest.fixture
async def h(harness: Harness):
    for p, n in NAMES.items():
        harness.fake.add_user(p, n)
    return harness


def finals(h: Harness) -> list:
    return [m for m in h.channel() if "Final board" in m.content or "最终排名" in m.content]


def seasons(h: Harness) -> list[tuple]:
    return sql(h, "SELECT number, final_posted_at IS NOT NULL, final_claimed_at IS NOT NULL, final_channel "
                  "FROM seasons ORDER BY number")


def kill_on(h: Harness, path: str, *, after: bool, method: str = "POST") -> Callable[[], None]:
    """The process dies on its next ``method`` request to ``path``: before the request reaches Discord
    (``after=False``) or once Discord has taken it, before the answer is read (``after=True``). Returns the undo."""
    real = h.fake.handle
    armed = [True]
    wanted = method

    def handle(method, url, kwargs):
        if armed[0] and method == wanted and path in url:
            armed[0] = False
            if after:
                real(method, url, kwargs)
            raise asyncio.CancelledError
        return real(method, url, kwargs)

    h.fake.handle = handle  # type: ignore[method-assign]

    def undo() -> None:
        h.fake.handle = real  # type: ignore[method-assign]

    return undo


async def two_seasons(h: Harness) -> int:
    """Season 1 with two hands in it; returns its id."""
    await admin(h, "season start", title="Spring")
    now = datetime.now(UTC)
    await write_hands(h.bot.store, GUILD_ID, [now, now], 9)
    return (await gstore.season(h.bot.store, GUILD_ID, 1)).season_id


async def start_summer_killed(h: Harness, *, after: bool):
    undo = kill_on(h, f"/channels/{CHANNEL_ID}/messages", after=after)
    data, rec = h.slash_payload("season start", title="Summer", permissions=ADMIN_PERMISSIONS)
    h.bot._connection.parse_interaction_create(data)
    await h.settle()
    undo()
    return rec


@pytest.mark.parametrize("after", [False, True], ids=["before-discord-took-it", "after-discord-took-it"])
async def test_a_bot_killed_while_the_final_board_is_posted_posts_it_once_after_the_restart(h: Harness, after):
    sid = await two_seasons(h)
    rec = await start_summer_killed(h, after=after)
    assert "Season 2 · Summer" in rec.reply.content
    assert len(finals(h)) == (1 if after else 0)
    assert seasons(h) == [(1, False, True, CHANNEL_ID), (2, False, False, None)]  # claimed, never noted
    h = await h.kill()
    try:
        cog: Report = h.bot.get_cog("Report")
        await cog.tick()  # the first round after the start takes the claim over
        await h.settle()
        await cog.tick()
        await h.settle()
        [final] = finals(h)  # posted once: when Discord already had it, the nonce made the retry the same message
        assert final.nonce == f"mjs{sid}" and final.channel_id == CHANNEL_ID
        assert "Season 1 · Spring" in final.content or "第 1 赛季 · Spring" in final.content
        assert len(final.images) == 1
        assert seasons(h) == [(1, True, False, CHANNEL_ID), (2, False, False, None)]
        # one POST: the retry, or the killed try when it reached Discord (found in the channel then, not posted again)
        assert len(h.fake.requests_to(CHANNEL_POSTS, "POST")) == 1
        assert len(h.fake.requests_to(CHANNEL_POSTS, "GET")) == 1  # the look for it before the retry
    finally:
        await h.close()


async def test_the_database_failing_to_give_the_claim_back_posts_the_board_later(h: Harness):
    await two_seasons(h)
    cog: Report = h.bot.get_cog("Report")
    await cog.tick()  # the bot's first round is behind it: only claims older than the lease are taken over
    h.fake.fail(CHANNEL_POSTS, method="POST", status=400, code=50035, times=1)  # refused: nothing was posted
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("SET final_claimed_at = NULL", times=1)
    r = await admin(h, "season start", title="Summer")
    await h.settle()
    assert flaky.hits == 1
    # the season started, as the admin was told; nothing else was said to them (not "nothing was changed")
    assert [m.content for m in r.messages] == [r.reply.content] and "Season 2 · Summer" in r.reply.content
    assert (await gstore.season(h.bot.store, GUILD_ID, 2)) is not None
    assert finals(h) == [] and seasons(h) == [(1, False, True, CHANNEL_ID), (2, False, False, None)]
    await cog.tick()  # the claim is fresh: it may still be in flight
    await h.settle()
    assert finals(h) == []
    cog.clock = lambda: datetime.now(UTC) + timedelta(minutes=3)  # past the lease
    await cog.tick()
    await h.settle()
    await cog.tick()
    await h.settle()
    assert len(finals(h)) == 1
    assert seasons(h) == [(1, True, False, CHANNEL_ID), (2, False, False, None)]


def season_row(h: Harness, number: int) -> tuple:
    """Every field of a season that its final board concerns (the times as whether they are set)."""
    return sql(h, "SELECT guild_id, number, name, channel_id, ended_at IS NOT NULL, final_posted_at IS NOT NULL, "
                  "final_claimed_at IS NOT NULL, final_channel FROM seasons WHERE number = ?", (number,))[0]


@pytest.mark.parametrize("rounds", [0, 1], ids=["noted-at-the-next-round", "noted-a-round-later"])
async def test_the_database_failing_to_note_the_board_posts_it_once(h: Harness, rounds):
    """Discord took the board but the database failed to note it (every try at once, then ``rounds`` rounds of the
    scheduler): the bot knows it was posted, keeps the note in memory and never posts it again, even once Discord
    has forgotten the nonce."""
    await two_seasons(h)
    cog: Report = h.bot.get_cog("Report")
    await cog.tick()
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("SET final_posted_at", times=NOTE_TRIES + rounds)
    r = await admin(h, "season start", title="Summer")
    await h.settle()
    assert flaky.hits == NOTE_TRIES and [m.content for m in r.messages] == [r.reply.content]
    assert len(finals(h)) == 1 and season_row(h, 1) == (GUILD_ID, 1, "Spring", CHANNEL_ID, True, False, True,
                                                         CHANNEL_ID)
    h.fake.forget_nonces()  # minutes pass
    for minutes in range(rounds + 1):
        cog.clock = lambda m=minutes: datetime.now(UTC) + timedelta(minutes=3 + 5 * m)  # past the lease
        await cog.tick()
        await h.settle()
    assert flaky.hits == NOTE_TRIES + rounds
    assert len(finals(h)) == 1 and len(h.fake.requests_to(CHANNEL_POSTS, "POST")) == 1
    assert season_row(h, 1) == (GUILD_ID, 1, "Spring", CHANNEL_ID, True, True, False, CHANNEL_ID)
    assert season_row(h, 2) == (GUILD_ID, 2, "Summer", CHANNEL_ID, False, False, False, None)


async def test_a_board_discord_took_before_a_kill_is_found_after_discord_forgot_its_nonce(h: Harness):
    """Killed once Discord took the board, restarted after Discord's few minutes: the first round reads the
    channel (one request), finds the board and notes it; no second post."""
    await two_seasons(h)
    await start_summer_killed(h, after=True)
    [final] = finals(h)
    h.fake.forget_nonces()
    h = await h.kill()
    try:
        cog: Report = h.bot.get_cog("Report")
        await cog.tick()
        await h.settle()
        await cog.tick()
        await h.settle()
        assert finals(h) == [final] and len(h.fake.requests_to(CHANNEL_POSTS, "POST")) == 1  # the killed post only
        assert len(h.fake.requests_to(CHANNEL_POSTS, "GET")) == 1
        assert season_row(h, 1) == (GUILD_ID, 1, "Spring", CHANNEL_ID, True, True, False, CHANNEL_ID)
    finally:
        await h.close()


async def refused_channel(h: Harness) -> int:
    closed = h.add_channel(name="admins-only")  # the bot may not post here
    h.fake.fail(rf"^/channels/{closed}/messages$", method="POST", status=403, code=50013, times=100)
    return closed


async def test_a_kill_during_the_follow_up_fallback_posts_the_board_in_the_seasons_channel(h: Harness):
    """/season start in a channel the bot may not post in, the bot killed as the board goes out as the follow-up:
    the retake is refused there too, and the board goes to the season's own channel (not given up)."""
    await two_seasons(h)  # season 1 started in CHANNEL_ID
    closed = await refused_channel(h)
    undo = kill_on(h, "/webhooks/", after=False)
    data, rec = h.slash_payload("season start", title="Summer", channel=closed, permissions=ADMIN_PERMISSIONS)
    h.bot._connection.parse_interaction_create(data)
    await h.settle()
    undo()
    assert "Season 2 · Summer" in rec.reply.content
    assert season_row(h, 1) == (GUILD_ID, 1, "Spring", CHANNEL_ID, True, False, True, closed)
    h = await h.kill()
    try:
        cog: Report = h.bot.get_cog("Report")
        await cog.tick()
        await h.settle()
        await cog.tick()
        await h.settle()
        [final] = finals(h)
        assert final.channel_id == CHANNEL_ID and "Spring" in final.content and len(final.images) == 1
        assert [m for m in h.channel(closed) if "Final board" in m.content] == []
        assert season_row(h, 1) == (GUILD_ID, 1, "Spring", CHANNEL_ID, True, True, False, CHANNEL_ID)
        assert season_row(h, 2) == (GUILD_ID, 2, "Summer", closed, False, False, False, None)
    finally:
        await h.close()


@pytest.mark.parametrize("own_refuses", [False, True], ids=["own-channel-takes-it", "own-channel-refuses"])
async def test_a_follow_up_refused_for_good_leaves_the_board_to_the_seasons_channel(h: Harness, own_refuses):
    """The command's channel refuses the bot and so does its follow-up (an unknown webhook): the board is given
    back to the season's own channel; only that channel refusing too gives it up (noted, never tried again)."""
    await two_seasons(h)
    cog: Report = h.bot.get_cog("Report")
    await cog.tick()
    closed = await refused_channel(h)
    h.fake.fail(r"^/webhooks/\d+/[^/]+$", method="POST", status=404, code=10015, times=1)  # unknown webhook
    data, rec = h.slash_payload("season start", title="Summer", channel=closed, permissions=ADMIN_PERMISSIONS)
    h.bot._connection.parse_interaction_create(data)
    await h.settle()
    assert finals(h) == []
    assert season_row(h, 1) == (GUILD_ID, 1, "Spring", CHANNEL_ID, True, False, False, None)  # given back
    own = h.fake.fail(CHANNEL_POSTS, method="POST", status=403, code=50013, times=100 if own_refuses else 0)
    await cog.tick()
    await h.settle()
    await cog.tick()
    await h.settle()
    assert len(finals(h)) == (0 if own_refuses else 1) and own.hits == (1 if own_refuses else 0)
    assert season_row(h, 1) == (GUILD_ID, 1, "Spring", CHANNEL_ID, True, True, False, CHANNEL_ID)
    assert season_row(h, 2) == (GUILD_ID, 2, "Summer", closed, False, False, False, None)


async def test_a_channel_the_bot_may_not_post_in_gets_the_board_as_a_follow_up(h: Harness):
    await two_seasons(h)
    h.fake.fail(CHANNEL_POSTS, method="POST", status=403, code=50013, times=1)
    r = await admin(h, "season start", title="Summer")
    await h.settle()
    [final] = r.messages[1:]
    assert "Final board of Season 1 · Spring" in final.content and len(final.images) == 1
    assert seasons(h) == [(1, True, False, CHANNEL_ID), (2, False, False, None)]
    cog: Report = h.bot.get_cog("Report")
    await cog.tick()
    await h.settle()
    assert [m for m in h.channel() if "Final board" in m.content] == [final]


# ---------------------------------------------------------------------------------------------- the weekly report


async def report_setup(h: Harness) -> tuple[int, Report]:
    report_ch = h.add_channel(name="reports")
    cog: Report = h.bot.get_cog("Report")
    await gstore.set_weekly_report(h.bot.store, GUILD_ID, USER_ID, report_ch, 0, datetime(2030, 1, 7).toordinal())
    await write_hands(h.bot.store, GUILD_ID, [datetime(2030, 1, 8, 20, tzinfo=SH)], 5)
    cog.clock = lambda: datetime(2030, 1, 14, 10, 5, tzinfo=SH)
    return report_ch, cog


def report_row(h: Harness) -> tuple:
    return sql(h, "SELECT last_report_week, report_claim_week, report_claimed_at IS NOT NULL FROM group_settings "
                  "WHERE guild_id = ?", (GUILD_ID,))[0]


@pytest.mark.parametrize("after", [False, True], ids=["before-discord-took-it", "after-discord-took-it"])
async def test_a_bot_killed_while_the_weekly_report_is_posted_posts_it_once_after_the_restart(h: Harness, after):
    report_ch, cog = await report_setup(h)
    undo = kill_on(h, f"/channels/{report_ch}/messages", after=after)
    await asyncio.gather(asyncio.ensure_future(cog.tick()), return_exceptions=True)
    undo()
    assert len(h.channel(report_ch)) == (1 if after else 0)
    assert report_row(h) == (datetime(2030, 1, 7).toordinal(), WEEK, True)
    h = await h.kill()
    try:
        cog = h.bot.get_cog("Report")
        cog.clock = lambda: datetime(2030, 1, 14, 10, 6, tzinfo=SH)  # a minute later: the first round after start
        await cog.tick()
        await h.settle()
        await cog.tick()
        await h.settle()
        [post] = h.channel(report_ch)
        assert post.nonce == report_nonce(GUILD_ID, WEEK) and "1月7日 – 1月13日" in post.content
        assert report_row(h) == (WEEK, None, False)
    finally:
        await h.close()


async def test_the_database_failing_to_give_the_week_back_posts_it_later(h: Harness):
    report_ch, cog = await report_setup(h)
    h.fake.fail(rf"^/channels/{report_ch}/messages$", method="POST", status=400, code=50035, times=1)  # refused
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("SET report_claim_week = NULL", times=1)
    await cog.tick()
    await h.settle()
    assert flaky.hits == 1 and h.channel(report_ch) == []
    assert report_row(h) == (datetime(2030, 1, 7).toordinal(), WEEK, True)
    await cog.tick()  # the claim is fresh (the bot's first round is behind it)
    await h.settle()
    assert h.channel(report_ch) == []
    cog.clock = lambda: datetime(2030, 1, 14, 10, 10, tzinfo=SH)  # past the lease
    await cog.tick()
    await h.settle()
    await cog.tick()
    await h.settle()
    assert len(h.channel(report_ch)) == 1 and report_row(h) == (WEEK, None, False)


@pytest.mark.parametrize("rounds", [0, 1], ids=["noted-at-the-next-round", "noted-a-round-later"])
async def test_the_database_failing_to_note_the_week_posts_it_once(h: Harness, rounds):
    """Discord took the report, the database failed to note it (every try at once, then ``rounds`` rounds): the
    report is never posted again, even once Discord has forgotten the nonce."""
    report_ch, cog = await report_setup(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("SET last_report_week", times=NOTE_TRIES + rounds)
    await cog.tick()
    await h.settle()
    assert flaky.hits == NOTE_TRIES and len(h.channel(report_ch)) == 1
    assert report_row(h) == (datetime(2030, 1, 7).toordinal(), WEEK, True)
    h.fake.forget_nonces()
    for m in range(rounds + 1):
        cog.clock = lambda m=m: datetime(2030, 1, 14, 10, 10 + 5 * m, tzinfo=SH)
        await cog.tick()
        await h.settle()
    assert flaky.hits == NOTE_TRIES + rounds
    assert len(h.channel(report_ch)) == 1 and report_row(h) == (WEEK, None, False)
    assert len(h.fake.requests_to(rf"^/channels/{report_ch}/messages$", "POST")) == 1


async def test_a_report_discord_took_before_a_kill_is_found_after_discord_forgot_its_nonce(h: Harness):
    report_ch, cog = await report_setup(h)
    undo = kill_on(h, f"/channels/{report_ch}/messages", after=True)
    await asyncio.gather(asyncio.ensure_future(cog.tick()), return_exceptions=True)
    undo()
    [post] = h.channel(report_ch)
    h.fake.forget_nonces()
    h = await h.kill()
    try:
        cog = h.bot.get_cog("Report")
        cog.clock = lambda: datetime(2030, 1, 14, 10, 30, tzinfo=SH)
        await cog.tick()
        await h.settle()
        await cog.tick()
        await h.settle()
        assert h.channel(report_ch) == [post] and report_row(h) == (WEEK, None, False)
        assert len(h.fake.requests_to(rf"^/channels/{report_ch}/messages$", "POST")) == 1  # the killed post only
        assert len(h.fake.requests_to(rf"^/channels/{report_ch}/messages$", "GET")) == 1
    finally:
        await h.close()
