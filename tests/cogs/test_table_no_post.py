"""A table in a channel where the bot may not post (a moderator's channel overrides: no View Channel, no Send
Messages, no Attach Files or Embed Links; a locked thread).

Slash commands and button answers work there (an interaction's answer needs no permission), so a lobby looked
normal; but the table message, announcements and score cards were refused (403 50013 / 50001) and only logged: the
start said "the table is below", the match went on unseen from the DMs into the ledger, and its players were held
("You already sit at a table"). Now /table new, Start and /table show refuse up front, naming the missing
permissions in the player's language; a table whose permissions are taken away while it plays ends as if its channel
were deleted, and each player is told by DM why.

A refusal whose cause may pass does not end a match: a moderator's Timeout of the bot's member (every post in the
server refused meanwhile), or a one-off refusal where the gateway's cache says the bot may post. The table plays on,
its posts wait and go out once Discord takes them; only refusals that last 10 minutes end it.
"""

from __future__ import annotations

import asyncio

import discord
import pytest

from bot.tables.strings import t
from tests.cogs.test_table_place_gone import _free_elsewhere, _hands, _idle_between_hands, _settled
from tests.cogs.test_tables import P1, button_id, open_table, prep
from tests.harness import Harness
from tests.harness.db import sql
from tests.harness.simclock import SimClock

# everything but what a table needs to post (a moderator's channel overrides on the bot's role)
EVERYTHING = discord.Permissions.all()


def _without(*names: str) -> discord.Permissions:
    perms = discord.Permissions(EVERYTHING.value)
    for name in names:
        setattr(perms, name, False)
    return perms


def _sim_publisher(h: Harness) -> SimClock:
    """The table writes' clock, simulated from now on (its waits between tries advance with the test's clock; while
    a write waits to be tried again the test settles with ``h.settle``: ``_settled`` waits for every write out)."""
    clock = SimClock()
    clock.now = asyncio.get_running_loop().time()  # (the writes made so far stay in the past)
    pub = h.bot.tables.publisher
    pub.clock, pub.sleep = clock.time, clock.sleep
    return clock


@pytest.mark.parametrize("code, message", [(50013, "Missing Permissions"), (50001, "Missing Access")])
async def test_a_table_opened_where_the_bot_may_not_post_tells_the_player_and_holds_nobody(harness: Harness, code,
                                                                                          message):
    """Discord refuses every post in #mahjong while the interactions there, and the gateway, still claim every
    permission (the bot's role changed unseen): P1 opens a table with three AIs and starts it. The table cannot be
    seen: the posts are tried again for 10 minutes (the refusal might pass), then the table ends as for a deleted
    channel, P1 is told by DM that the bot may not post there, and may sit down elsewhere."""
    h = harness
    await h.connect()
    prep(h)
    mgr = h.bot.tables
    mgr.store_backoff = (0.01, 0.02, 0.05)
    mgr.publisher.backoff = (0.01,)
    clock = _sim_publisher(h)
    h.fake.fail(rf"^/channels/{h.channel_id}/messages$", method="POST", status=403, code=code, times=10**9,
                message=message)
    await open_table(h, "hefei", humans=(P1,), locale="en-US")
    await h.settle()
    await clock.advance(9 * 60, h.settle)
    assert mgr.by_player.get(P1) is not None, "refusals that may pass ended the table before 10 minutes"
    await clock.advance(2 * 60, h.settle)
    await _settled(h)
    assert mgr.by_player.get(P1) is None and not mgr.by_id
    assert sql(h, "SELECT status FROM matches", ()) == [("aborted",)]
    assert h.dms(P1)[-1].content == t("tables.gone_dm.access", "en", channel=h.channel_id)
    assert "already sit" not in await _free_elsewhere(h)


async def test_permissions_taken_away_mid_match_end_the_table_and_keep_its_settled_hands(harness: Harness):
    """A moderator takes Send Messages away from the bot in #mahjong while a table waits between hands (one hand
    settled). P1 presses I'm back: the next post is refused (403 50013). The table ends (the settled hand stays in
    the ledger), nothing more is tried in the channel, P1 is told by DM in their language and is free."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    mid, hands = lt.match_id, _hands(h, lt.match_id)
    assert hands == 1
    h.restrict_bot(_without("send_messages"))
    table = h.fake.find_message(lt.message_id)
    await h.click(table, custom_id=button_id(table, ":next"), user=P1, locale="en-US")
    await _settled(h)
    assert lt.closed
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]
    assert _hands(h, mid) >= hands  # (the AI on P1's seat may have finished the next hand meanwhile: it stays too)
    assert h.dms(P1)[-1].content == t("tables.gone_dm.access", "en", channel=h.channel_id)
    assert "already sit" not in await _free_elsewhere(h)


async def test_one_refused_post_does_not_end_a_table_whose_channel_takes_posts_again(harness: Harness):
    """A table waits between hands; P1 presses I'm back and Discord refuses the first post once (403 50013) though
    the bot's permissions in #mahjong never changed: the table plays on, the post goes out when tried again and
    nobody is told the bot may no longer post there."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    clock = _sim_publisher(h)
    posts = len(h.fake.channels[h.channel_id].messages)
    h.fake.fail(rf"^/channels/{h.channel_id}/messages$", method="POST", status=403, code=50013, times=1,
                message="Missing Permissions")
    table = h.fake.find_message(lt.message_id)
    await h.click(table, custom_id=button_id(table, ":next"), user=P1, locale="en-US")
    await h.settle()
    await clock.advance(60, h.settle)
    await _settled(h)
    assert not lt.closed, "one refused post ended the table for good"
    assert len(h.fake.channels[h.channel_id].messages) > posts, "the refused post was not tried again"
    assert all(t("tables.gone_dm.access", "en", channel=h.channel_id) != m.content for m in h.dms(P1))


async def test_a_timeout_of_the_bot_delays_a_table_and_ends_nothing(harness: Harness):
    """A moderator times the bot's member out for a few minutes while a table waits between hands (every post in
    the server refused 403 50013, the gateway says the bot is timed out); P1 presses I'm back. The match goes on,
    its posts wait; once the timeout ends they appear and nobody was told the table ended."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    clock = _sim_publisher(h)
    posts = len(h.fake.channels[h.channel_id].messages)
    h.time_out_bot(True)
    table = h.fake.find_message(lt.message_id)
    await h.click(table, custom_id=button_id(table, ":next"), user=P1, locale="en-US")
    await h.settle()
    await clock.advance(5 * 60, h.settle)
    assert not lt.closed, "a timeout of the bot ended the table"
    assert len(h.fake.channels[h.channel_id].messages) == posts
    h.time_out_bot(False)
    await clock.advance(2 * 60, h.settle)
    await _settled(h)
    assert not lt.closed
    assert len(h.fake.channels[h.channel_id].messages) > posts, "the posts held by the timeout never went out"
    assert all(t("tables.gone_dm.access", "en", channel=h.channel_id) != m.content for m in h.dms(P1))


async def test_refusals_that_last_10_minutes_end_the_table(harness: Harness):
    """The bot stays timed out: after 10 minutes of refused posts the table ends as for permissions taken away
    (P1 told by DM, free to sit elsewhere)."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    clock = _sim_publisher(h)
    h.time_out_bot(True)
    table = h.fake.find_message(lt.message_id)
    await h.click(table, custom_id=button_id(table, ":next"), user=P1, locale="en-US")
    await h.settle()
    await clock.advance(9 * 60, h.settle)
    assert not lt.closed
    await clock.advance(2 * 60, h.settle)
    await _settled(h)
    assert lt.closed
    assert h.dms(P1)[-1].content == t("tables.gone_dm.access", "en", channel=h.channel_id)
    h.time_out_bot(False)
    assert "already sit" not in await _free_elsewhere(h)


async def test_a_refusal_before_the_servers_are_listed_waits_to_tell_which_it_is(harness: Harness):
    """A restarted bot's first write to a table's channel is refused 403 before the gateway has listed its servers:
    nothing ends yet (a server the bot was removed from refuses it too, and says so once listed); once the servers
    are listed with this one among them, the table ends for want of permissions."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    mid = lt.match_id
    h.fake.fail(f"^/channels/{h.channel_id}/messages", status=403, code=50013, times=10**9,
                message="Missing Permissions")
    h = await h.kill()
    try:
        mgr = h.bot.tables
        mgr.publisher.backoff = (0.01,)
        await h.bot.tables.repost(mgr.by_id[mid])  # (a write to the channel before READY)
        await _settled(h)
        assert mgr.by_id[mid].closed is False
        await h.connect()
        await _settled(h)
        assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]
        assert h.dms(P1)[-1].content == t("tables.gone_dm.access", "en", channel=h.channel_id)
    finally:
        await h.close()


@pytest.mark.parametrize("locale, lang, missing", [
    ("en-US", "en", ("embed_links", "attach_files")),
    ("zh-CN", "zh", ("send_messages",)),
    ("zh-TW", "zh-TW", ("view_channel",)),
])
async def test_table_new_where_the_bot_may_not_post_is_refused_naming_what_it_needs(harness: Harness, locale, lang,
                                                                                   missing):
    """/table new in a channel whose overrides take permissions a table needs from the bot: refused privately, in
    the player's language, naming each missing permission as the Discord client shows it; no lobby is opened."""
    h = harness
    await h.connect()
    prep(h)
    h.restrict_bot(_without(*missing))
    r = await h.slash("table new", variant="hefei", user=P1, locale=locale)
    assert r.reply.ephemeral
    names = t("perm.sep", lang).join(t(f"perm.{n}", lang) for n in missing)
    assert r.reply.content == t("tables.no_post", lang, perms=names)
    assert h.bot.tables.by_player.get(P1) is None and h.channel_id not in h.bot.tables.by_channel
    assert sql(h, "SELECT COUNT(*) FROM lobbies", ()) == [(0,)]


async def test_table_new_in_a_locked_thread_is_refused(harness: Harness):
    """A locked thread (the bot without Manage Threads): only moderators may post there; /table new says so."""
    h = harness
    await h.connect()
    prep(h)
    thread = h.add_channel(name="mahjong-thread", thread=True)
    h.restrict_bot(_without("manage_threads"), thread, locked=True)
    h.gateway("THREAD_CREATE", {**h.fake.channels[thread].payload(), "newly_created": True})
    r = await h.slash("table new", variant="hefei", user=P1, channel=thread, locale="en-US")
    assert r.reply.content == t("tables.no_post_locked", "en", perms=t("perm.manage_threads", "en"))
    assert thread not in h.bot.tables.by_channel


async def test_start_is_refused_when_the_permissions_went_away_after_the_lobby_opened(harness: Harness):
    """The lobby opened while the bot could post; Attach Files is then taken away. Start is refused (the table's
    images could never be posted) and the lobby stays as it was; once the permission is back, Start starts."""
    h = harness
    await h.connect()
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1, locale="en-US")
    lobby = r.reply
    for _ in range(3):
        await h.slash("table addbot", user=P1, locale="en-US")
    h.restrict_bot(_without("attach_files"))
    press = await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=P1,
                          locale="en-US")
    lt = h.bot.tables.by_channel[h.channel_id]
    assert not lt.started
    assert press.reply.ephemeral
    assert press.reply.content == t("tables.no_post", "en", perms=t("perm.attach_files", "en"))
    h.restrict_bot(None)
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=P1, locale="en-US")
    assert lt.started
