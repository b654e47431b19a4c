"""A table whose place in Discord goes away: its channel (or thread) is deleted, or the bot is removed from its server.

The worst case is a table that writes nothing: every human away (托管, or timed out), it waits between hands for
Next / I'm back with no timer. Before, only a write that Discord refused could end a table, so such a table held its
players ("You already sit at a table (in #deleted-channel)") in every server until a restart, and a server the bot
had left never ended its tables at all, even after a restart (its writes are refused with 403 Missing Access,
which ends nothing). Everything here goes through discord.py's own gateway parsers with raw payloads
(``Harness.gateway`` / ``Harness.connect``).
"""

from __future__ import annotations

from bot.tables.strings import t
from tests.cogs.test_tables import P1, controls, live, open_table, prep
from tests.harness import Harness
from tests.harness.db import sql


async def _idle_between_hands(h: Harness, channel: int | None = None):
    """A hefei table of P1 (English) and three AI seats whose only human handed the seat to the AI: the AI plays the
    hand out and the table then waits, with no timer, for Next or I'm back."""
    prep(h)
    mgr = h.bot.tables
    mgr.store_backoff = (0.01, 0.02, 0.05)
    mgr.publisher.backoff = (0.01,)
    await open_table(h, "hefei", humans=(P1,), locale="en-US", **({"channel": channel} if channel else {}))
    lt = mgr.by_channel[channel] if channel else live(h)
    await h.slash("table autoplay", on="on", user=P1, locale="en-US", **({"channel": channel} if channel else {}))
    for _ in range(20):
        await mgr.wait_idle()
        await h.settle()
        if lt.table.phase == "ended":
            break
    assert lt.table.phase == "ended" and lt.timer is None  # nobody here: it waits for Next / I'm back, no timer
    return lt


async def _settled(h: Harness) -> None:
    for _ in range(20):
        await h.bot.tables.wait_idle()
        await h.settle()


async def _free_elsewhere(h: Harness) -> str:
    other = h.add_channel(name="another")
    r = await h.slash("table new", variant="hefei", user=P1, channel=other, locale="en-US")
    return r.reply.content


def _hands(h: Harness, mid: int) -> int:
    """The match's settled hands (each with its ledger rows)."""
    return sql(h, "SELECT COUNT(DISTINCT h.id) FROM hands h JOIN ledger l ON l.hand_id = h.id "
                  "WHERE h.match_id = ? AND h.status = 'finished'", (mid,))[0][0]


async def test_a_table_waiting_between_hands_ends_when_its_channel_is_deleted(harness: Harness):
    """A moderator deletes the channel of a table waiting between hands (CHANNEL_DELETE): the table ends at once (its
    settled hand stays in the ledger), P1 is told by DM in their language, sits down elsewhere, and the bot writes
    nothing more to the deleted channel."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    mid, hands = lt.match_id, _hands(h, lt.match_id)
    assert hands == 1
    payload = h.fake.channels[h.channel_id].payload()
    del h.fake.channels[h.channel_id]  # deleted: every request to it would be 404 / 10003 Unknown Channel
    before = len(h.fake.requests)
    h.gateway("CHANNEL_DELETE", payload)
    await _settled(h)
    assert lt.closed
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]
    assert _hands(h, mid) == hands  # the settled hand is kept
    assert h.dms(P1)[-1].content == t("tables.gone_dm.channel", "en", channel=h.channel_id)
    assert not [r for r in h.fake.requests[before:] if r.path.startswith(f"/channels/{h.channel_id}/")]
    assert "already sit" not in await _free_elsewhere(h)


async def test_a_lobby_in_a_deleted_thread_closes_and_frees_its_players(harness: Harness):
    """A lobby opened in a thread; the thread is deleted (THREAD_DELETE): the lobby is gone from the store and its
    host may open a table elsewhere."""
    h = harness
    await h.connect()
    prep(h)
    thread = h.add_channel(name="mahjong-thread", thread=True)
    await h.slash("table new", variant="hefei", user=P1, channel=thread, locale="en-US")
    assert h.bot.tables.by_channel[thread].seat_of(P1) is not None
    payload = h.fake.channels[thread].payload()
    del h.fake.channels[thread]
    h.gateway("THREAD_DELETE", {"id": str(thread), "guild_id": str(h.guild_id), "parent_id": str(h.channel_id),
                                "type": payload["type"]})
    await _settled(h)
    assert thread not in h.bot.tables.by_channel
    assert sql(h, "SELECT COUNT(*) FROM lobbies WHERE channel_id = ?", (thread,)) == [(0,)]
    assert h.dms(P1)[-1].content == t("tables.gone_dm.channel", "en", channel=thread)
    assert "already sit" not in await _free_elsewhere(h)


async def test_the_bot_removed_from_the_server_ends_its_tables(harness: Harness):
    """The bot is kicked while its table waits between hands (GUILD_DELETE; every request to the channel is 403
    Missing Access now): the table ends (settled hand kept), P1 is told why by DM and sits down elsewhere."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    mid, hands = lt.match_id, _hands(h, lt.match_id)
    h.fake.fail(f"^/channels/{h.channel_id}", status=403, code=50001, times=10**9, message="Missing Access")
    h.gateway("GUILD_DELETE", {"id": str(h.guild_id)})
    await _settled(h)
    assert lt.closed
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]
    assert _hands(h, mid) == hands
    assert h.dms(P1)[-1].content == t("tables.gone_dm.server", "en", channel=h.channel_id)
    assert "already sit" not in await _free_elsewhere(h)


async def test_the_bot_removed_mid_hand_stops_the_hand_from_going_on(harness: Harness):
    """Removed while a hand is in play: the hand does not go on by DM into the ledger of a server the bot left; it
    counts for nothing, and no control is left in P1's DMs."""
    h = harness
    await h.connect()
    prep(h)
    await open_table(h, "hefei", humans=(P1,), locale="en-US")
    lt = live(h)
    await h.bot.tables.wait_idle()
    assert lt.table.phase in ("play", "claim", "rob")
    h.fake.fail(f"^/channels/{h.channel_id}", status=403, code=50001, times=10**9, message="Missing Access")
    h.gateway("GUILD_DELETE", {"id": str(h.guild_id)})
    await _settled(h)
    assert lt.closed
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (lt.match_id,)) == [("aborted",)]
    assert _hands(h, lt.match_id) == 0
    assert not [m for m in h.dms(P1) if controls(m)]


async def test_a_discord_outage_of_the_server_ends_nothing(harness: Harness):
    """GUILD_DELETE with "unavailable": true is Discord's outage, not a removal: the table stays, P1 stays seated."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    h.gateway("GUILD_DELETE", {"id": str(h.guild_id), "unavailable": True})
    await _settled(h)
    assert not lt.closed and h.bot.tables.by_player.get(P1) == h.channel_id
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (lt.match_id,)) == [("active",)]


async def test_a_restart_ends_the_tables_of_a_server_the_bot_left_meanwhile(harness: Harness):
    """Killed while its table waits; removed from the server while it was down. The restarted bot resumes the table
    (it cannot know yet: no server is listed before the gateway's READY), and ends it once the gateway has listed
    every server of its shards without that one."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    mid = lt.match_id
    h.fake.fail(f"^/channels/{h.channel_id}", status=403, code=50001, times=10**9, message="Missing Access")
    h = await h.kill()
    try:
        await _settled(h)
        assert h.bot.tables.by_id[mid].closed is False  # before READY nothing is known, nothing ends
        await h.connect(guilds=[])  # READY without the server
        await _settled(h)
        assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]
        assert h.dms(P1)[-1].content == t("tables.gone_dm.server", "en", channel=h.channel_id)
        assert "already sit" not in await _free_elsewhere(h)
    finally:
        await h.close()


async def test_a_restart_during_an_outage_of_the_server_ends_nothing(harness: Harness):
    """Restarted while Discord has an outage of the server: READY lists it as unavailable (no GUILD_CREATE follows).
    The bot is still in it: the table plays on."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    mid = lt.match_id
    h = await h.kill()
    try:
        await h.connect(unavailable=[h.guild_id])
        await _settled(h)
        assert not h.bot.tables.by_id[mid].closed
        assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("active",)]
    finally:
        await h.close()


async def _thread_table(h: Harness):
    await h.connect()
    thread = h.add_channel(name="mahjong-thread", thread=True)
    h.gateway("THREAD_CREATE", {**h.fake.channels[thread].payload(), "newly_created": True})
    prep(h)
    mgr = h.bot.tables
    mgr.store_backoff = (0.01, 0.02, 0.05)
    mgr.publisher.backoff = (0.01,)
    await h.slash("table new", variant="hefei", user=P1, channel=thread, locale="en-US")
    for _ in range(3):
        await h.slash("table addbot", user=P1, channel=thread, locale="en-US")
    await h.slash("table start", user=P1, channel=thread, locale="en-US")
    lt = mgr.by_channel[thread]
    await h.slash("table autoplay", on="on", user=P1, locale="en-US", channel=thread)
    for _ in range(20):
        await mgr.wait_idle()
        await h.settle()
        if lt.table is not None and lt.table.phase == "ended":
            break
    assert lt.table is not None and lt.table.phase == "ended" and lt.timer is None
    return thread, lt


async def _parent_deleted(h: Harness, thread: int) -> None:
    parent = h.fake.channels[h.channel_id].payload()
    del h.fake.channels[thread]
    del h.fake.channels[h.channel_id]
    h.gateway("CHANNEL_DELETE", parent)  # what Discord sends: the parent only, no THREAD_DELETE for its threads
    await _settled(h)


async def test_a_table_in_an_archived_thread_ends_when_the_threads_channel_is_deleted(harness: Harness):
    """Discord deletes a channel's threads with it but tells only of the channel; discord.py makes up thread deletes
    for the threads it holds, and it lets go of an archived one. A table idle between hands writes nothing, so its
    thread is archived: when its channel was deleted, the table held its players until a restart. A table of the
    server in a channel discord.py does not hold is looked up once when a channel of the server is deleted."""
    h = harness
    thread, lt = await _thread_table(h)
    mid = lt.match_id
    p = h.fake.channels[thread].payload()
    p["thread_metadata"] = {**p["thread_metadata"], "archived": True}  # an hour with no message: archived
    h.gateway("THREAD_UPDATE", p)
    await _settled(h)
    n = len(h.fake.requests)
    await _parent_deleted(h, thread)
    assert lt.closed
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]
    assert h.dms(P1)[-1].content == t("tables.gone_dm.channel", "en", channel=thread)
    assert [q.method for q in h.fake.requests[n:] if q.path == f"/channels/{thread}"] == ["GET"]  # looked up once
    assert "already sit" not in await _free_elsewhere(h)


async def test_a_table_in_a_thread_ends_when_its_channel_is_deleted_after_a_restart(harness: Harness):
    """After a restart an archived thread is not among the server's threads Discord lists (GUILD_CREATE names the
    active ones): the table there still ends when its channel is deleted."""
    h = harness
    thread, lt = await _thread_table(h)
    mid = lt.match_id
    h = await h.kill()
    try:
        await h.connect()
        g = h.bot.get_guild(h.guild_id)
        g._remove_thread(g.get_thread(thread))  # archived: not listed (the harness's GUILD_CREATE lists it)
        await _settled(h)
        assert not h.bot.tables.by_id[mid].closed
        await _parent_deleted(h, thread)
        assert h.bot.tables.by_id.get(mid) is None or h.bot.tables.by_id[mid].closed
        assert "already sit" not in await _free_elsewhere(h)
    finally:
        await h.close()
