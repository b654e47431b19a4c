"""A Start and the matches the store holds in its channel, through the real discord.py dispatch, on SQLite and on
PostgreSQL: a reread of the store (what a table that met another process's writes asks for, and what every lease
gain runs) while a Start is half done does not drive that match a second time; a lobby given up after a start whose
answer was lost takes that match with it, and a start in a channel whose only active match was never played and is
driven by no table replaces it instead of being refused."""

from __future__ import annotations

import asyncio

import pytest

from bot.tables import State
from bot.tables.state import LiveTable
from bot.tables.strings import t
from tests.cogs.test_table_start_faults import active, full_lobby, lost_start, restarted, texts
from tests.cogs.test_tables import P1, P2, P3, live
from tests.harness import ADMIN_PERMISSIONS, Harness
from tests.harness.db import sql

pytestmark = pytest.mark.both_backends


async def started(h: Harness) -> LiveTable:
    """A full lobby started: its table, in play."""
    await full_lobby(h)
    r = await h.slash("table start", user=P1, locale="en-US")
    assert "Started" in texts(r)
    return live(h)


async def test_a_reread_during_a_start_leaves_the_starting_match_to_its_start(harness: Harness):
    """The match is recorded, its first hand's write is slow (a busy database), and meanwhile the tables are read
    again from the store. Before, the reread resumed the starting match a second time: two live tables drove one
    match, the channel was told "the bot restarted" and got two table messages, and the stored lobby was deleted."""
    h = harness
    await full_lobby(h)
    store = h.bot.store
    entered, gate = asyncio.Event(), asyncio.Event()
    real = store.start_hand

    async def slow_start_hand(*a, **kw):  # the first hand's write: held until the reread is done
        store.start_hand = real
        entered.set()
        await gate.wait()
        return await real(*a, **kw)

    store.start_hand = slow_start_hand
    starting = live(h)
    data, rec = h.slash_payload("table start", user=P1, locale="en-US")
    h.bot._connection.parse_interaction_create(data)
    await entered.wait()
    [(mid, _)] = active(h)
    assert starting.state is State.STARTING and mid not in h.bot.tables.by_id
    await h.bot.tables._reload()  # a moved table elsewhere asked for the store to be read again
    assert h.bot.tables.by_id.get(mid) is None and h.bot.tables.by_channel[h.channel_id] is starting
    assert sql(h, "SELECT channel_id FROM lobbies") == [(h.channel_id,)]  # (the starting lobby's row is its start's)
    gate.set()
    await h.settle(10)
    assert "Started" in texts(rec)
    mgr = h.bot.tables
    assert mgr.by_channel[h.channel_id] is starting and mgr.by_id == {mid: starting}
    assert not any("restarted" in (m.content or "") for m in h.channel())
    assert sql(h, "SELECT channel_id FROM lobbies") == []


async def test_a_lobby_ended_after_a_lost_start_takes_its_match_and_the_next_lobby_starts(harness: Harness):
    """The host's Start is answered "not recorded" (the match had landed, its answer was lost), the host closes the
    lobby and opens a new one. Before, every Start of the new lobby was refused "a match in play in this channel"
    until a restart, which then played the closed lobby's match and deleted the new lobby."""
    h = harness
    ghost, _ = await lost_start(h)
    e = await h.slash("table end", user=P1, locale="en-US")
    assert "closed" in texts(e)
    assert sql(h, "SELECT status, reason FROM matches WHERE id = ?", (ghost,)) == [
        ("aborted", "never played: its lobby was closed")]
    await h.slash("table new", variant="hefei", user=P1, locale="en-US")
    await h.slash("table join", user=P2)
    for _ in range(2):
        await h.slash("table addbot", user=P1, locale="en-US")
    r = await h.slash("table start", user=P1, locale="en-US")
    assert "Started" in texts(r)
    lt = live(h)
    assert [m for m, _ in active(h)] == [lt.match_id] != [ghost]
    assert (await restarted(h))[0] == [lt.match_id]


async def test_a_manager_kicking_the_last_player_after_a_lost_start_takes_its_match(harness: Harness):
    """The same lost start, and then a manager removes the lobby's last player: the lobby closes, and the match its
    start left behind goes with it instead of coming back at the next restart."""
    h = harness
    ghost, _ = await lost_start(h)
    r = await h.slash("table kick", member=P1, user=P3, permissions=ADMIN_PERMISSIONS, locale="en-US")
    assert "removed from the lobby" in texts(r)
    assert sql(h, "SELECT status, reason FROM matches WHERE id = ?", (ghost,)) == [
        ("aborted", "never played: its lobby was closed")]
    assert await restarted(h) == ([], [])


async def test_a_start_replaces_an_unplayed_match_no_table_drives(harness: Harness):
    """A match that landed in the channel but never started a hand and that no table drives (a lost start whose
    lobby went without taking it, as before this fix) gives way to the next lobby's start, its reason recorded."""
    h = harness
    ghost, _ = await lost_start(h)
    h.bot.store.backend.wrap = None
    live(h).start_seed = None  # the lobby forgot its start (as the bot before this fix did on /table end)
    r = await h.slash("table start", user=P1, locale="en-US")
    assert "Started" in texts(r)
    lt = live(h)
    assert [m for m, _ in active(h)] == [lt.match_id] != [ghost]
    assert sql(h, "SELECT status, reason FROM matches WHERE id = ?", (ghost,)) == [
        ("aborted", "never played, replaced by another lobby's start")]


async def test_a_match_in_play_still_refuses_a_start_and_comes_back_when_the_lobby_closes(harness: Harness):
    """A match that started its hands is never replaced: a lobby's Start in its channel is refused; closing that
    lobby brings the match back to its channel (read again from the store)."""
    h = harness
    playing = await started(h)
    mid = playing.match_id
    async with playing.lock:  # the table stops here without its match ending (let go, as a moved table is)
        h.bot.tables._let_go(playing)
    await h.slash("table new", variant="hefei", user=P2, locale="en-US")
    for _ in range(3):
        await h.slash("table addbot", user=P2, locale="en-US")
    r = await h.slash("table start", user=P2, locale="en-US")
    assert "already has a match in play" in texts(r) and [m for m, _ in active(h)] == [mid]
    await h.slash("table end", user=P2, locale="en-US")
    await h.settle(10)
    back = h.bot.tables.by_id.get(mid)
    assert back is not None and h.bot.tables.by_channel[h.channel_id] is back and back.state is not State.ABORTED


async def test_a_reread_brings_a_match_in_play_back_over_a_lobby_opened_meanwhile(harness: Harness):
    """A match in play let go to be read again (it met another process's moves) and, before the reread, a lobby
    opened in its channel (it looked free). The reread brings the match back at once and the lobby gives way (closed,
    its message saying the match in play is back, its player free). Before, the match waited, played by no process,
    until that lobby closed: its players' clicks found no table and its turn timer stood still."""
    h = harness
    playing = await started(h)
    mid = playing.match_id
    mgr = h.bot.tables
    async with playing.lock:
        mgr._let_go(playing)
    n = await h.slash("table new", variant="hefei", user=P2, locale="en-US")
    lobby = live(h)
    assert lobby.state is State.LOBBY
    await mgr._reload()  # the reread the let-go table asked for
    back = mgr.by_id.get(mid)
    assert back is not None and mgr.by_channel[h.channel_id] is back and back.state is not State.ABORTED
    assert lobby.closed and P2 not in mgr.by_player and sql(h, "SELECT channel_id FROM lobbies") == []
    await h.settle(10)
    msg = h.fake.find_message(n.reply.id)
    assert not msg.buttons() and msg.content == t("tables.lobby_gave_way", lobby.lang)
    # P2 is free to open a table elsewhere; the channel's match refuses a second one
    again = await h.slash("table new", variant="hefei", user=P2, locale="en-US")
    assert "already a table" in texts(again)


async def test_a_table_read_again_comes_back_after_a_failed_reread(harness: Harness):
    """A table let go to be read again from the store (it met another process's moves) whose reread fails (here the
    list of unfinished matches cannot be read once) is read again until it plays here once more. Before, the failure
    was only logged: the table was driven by no process until the next restart, and its clicks answered "moving"."""
    h = harness
    playing = await started(h)
    mid = playing.match_id
    mgr, store = h.bot.tables, h.bot.store
    mgr.store_backoff = (0.01,)
    real = store.unfinished_games
    failed = []

    async def unreadable_once(*_shards):  # a failure the store's own retries do not cover (not a busy or lost database)
        store.unfinished_games = real
        failed.append(1)
        raise RuntimeError("could not read the unfinished matches")

    store.unfinished_games = unreadable_once
    async with playing.lock:  # read again, as a table that met another process's moves is
        mgr._let_go(playing)
    await mgr._reload()
    back = mgr.by_id.get(mid)
    assert failed and back is not None and back is not playing and mgr.by_channel[h.channel_id] is back
    await h.settle(10)
