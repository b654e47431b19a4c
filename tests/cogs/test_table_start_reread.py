"""A Start and the matches the store holds in its channel, through the real discord.py dispatch, on SQLite and on
PostgreSQL: a reread of the store (what a table that met another process's writes asks for, and what every lease
gain runs) while a Start is half done does not drive that match a second time."""

from __future__ import annotations

import asyncio

import pytest

from bot.tables import State
from tests.cogs.test_table_start_faults import active, full_lobby, texts
from tests.cogs.test_tables import P1, live
from tests.harness import Harness
from tests.harness.db import sql

pytestmark = pytest.mark.both_backends


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

