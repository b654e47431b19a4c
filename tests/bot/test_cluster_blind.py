"""A process whose own lease connection is down (the database failing over, a cut of that one connection) cannot tell
which process drives what (bot.cluster_route). Discord still delivers it the events of the shards it runs, and the
live owner gets the same events: the blind process must act on none of them, and must not answer first (an answer of
its own could win the race against the owner's, whose move stands all the same). Once the owner has had its moment,
a player nobody answered is told the truth: the bot cannot reach its database, try again.

Processes side by side in this test's event loop, as in tests/bot/test_cluster.py.
"""

from __future__ import annotations

import asyncio

import pytest

from bot.cluster import Cluster
from tests.bot.test_cluster import (
    CH1,
    G1,
    U1,
    _has_controls,
    boot,
    close_all,
    controls,
    fresh_fake,
    human_moves,
    open_table,
    until,
)
from tests.harness.db import sql

UNREACHABLE = "cannot reach its database"


pytestmark = pytest.mark.usefixtures("stepped_cluster")  # lease checks when a test steps them


def said(rec) -> list[str]:
    """Everything the player read in answer to the interaction."""
    first = [(c.get("data") or {}).get("content") or "" for c in rec.callbacks]
    return first + [f.content or "" for f in rec.followups]


async def test_a_process_without_its_lease_connection_leaves_the_answer_to_the_owner_and_else_tells_the_truth(
        pg_url, pg_server):
    fake = fresh_fake()
    p0 = await boot(pg_url, (0,), fake)  # shard 0: it routes the DM clicks
    p1 = await boot(pg_url, (1,), fake)  # drives the table
    blind = await boot(pg_url, (0, 1), fake)  # a standby of both (a restart's overlap): Discord delivers it everything
    t1 = await open_table(p1, G1, CH1, U1)
    cb = blind.bot.cluster
    assert cb.held == set()
    pg_server.psql(f"SELECT pg_terminate_backend({cb.backend_pid})")  # its lease connection goes
    await until(lambda: cb.conn is None or cb.conn.is_closed(), "its lease connection closed")
    gate = asyncio.Event()

    async def owners_moment(seconds: float) -> None:  # the wait before it answers: held until the test says
        assert seconds == Cluster.blind_wait
        await gate.wait()

    cb.pause = owners_moment
    moves = human_moves(p1, t1)

    # a DM click: the blind process gets its copy first, and says nothing yet; shard 0's owner routes it and the
    # table's owner plays it; the blind process's late answer is refused by Discord, and nothing else is said
    m, cid = controls(fake, U1)
    click, crec = p0.click_payload(m, custom_id=cid, locale="en-US")
    blind.bot._connection.parse_interaction_create(click)
    await blind.settle()
    assert not crec.responded, said(crec)  # before: "the table is moving", which won the race against the owner
    p0.bot._connection.parse_interaction_create(click)
    await until(lambda: human_moves(p1, t1) == moves + 1, "played by the owner")
    await until(lambda: sql(p0, "SELECT payload FROM routed_clicks") == [("answered",)], "answered by the owner")

    # a command in the table's server: the same (the owner opens the lobby, and its answer is the one read)
    blind.add_channel(CH1 + 7, guild_id=G1)
    slash, srec = blind.slash_payload("table new", variant="wuhu", user=U1 + 7, guild=G1, channel=CH1 + 7,
                                      locale="en-US")
    blind.bot._connection.parse_interaction_create(slash)
    await blind.settle()
    assert not srec.responded, said(srec)
    await p1.send(slash, srec)
    assert CH1 + 7 in p1.bot.tables.by_channel and srec.responded

    gate.set()  # the owner's moment is over: the blind process tries to answer, and Discord refuses
    await blind.settle()
    await p1.settle()
    await p0.settle()
    assert len(crec.callbacks) == 1 and crec.callback_type == 6, crec.callbacks  # shard 0's owner's, only
    assert len(srec.callbacks) == 1 and not any(UNREACHABLE in x for x in said(crec) + said(srec))
    assert human_moves(p1, t1) == moves + 1
    assert not blind.bot.tables.by_id and not blind.bot.tables.by_channel  # it acted on nothing

    # no owner answers (both gone): the player is told the truth, once the owner's moment is over; nothing is played
    await until(lambda: _has_controls(fake, U1), "the player's next controls")
    m, cid = controls(fake, U1)
    await close_all(p0, p1)
    r = await blind.click(m, custom_id=cid, locale="en-US")
    assert len(r.callbacks) == 1 and UNREACHABLE in r.reply.content and r.reply.ephemeral, said(r)
    assert "moving" not in r.reply.content
    r = await blind.slash("table new", variant="wuhu", user=U1 + 8, guild=G1, channel=CH1 + 8, locale="zh-CN")
    assert "连不上它的数据库" in r.reply.content and r.reply.ephemeral
    assert human_moves(blind, t1) == moves + 1 and sql(blind, "SELECT COUNT(*) FROM routed_clicks")[0][0] == 1
    assert not blind.bot.tables.by_id and not blind.bot.tables.by_channel
    await blind.close()
