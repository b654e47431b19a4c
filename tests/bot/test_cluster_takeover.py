"""Taking a shard over, as the players see it (bot.cluster, docs/sharding.md "Taking over"):

- a take that meets a write of the previous holder still under way (the fence's row lock on the shard's epoch)
  waits for it only a moment (``Cluster.take_wait``), then leaves that shard to a later round: the lease
  connection, which carries every routed click, is free meanwhile, and the taker keeps its other shards and tables;
- until the tables of a shard just taken are back (resumed from the store), a click on one of them, a /table
  command in its channel or a /table new there is told "the table is moving, try again" (never "that table is
  over" or "there is no table here"), and a DM click routed to it waits in the queue and is played once its table
  is in;
- a Start or a /table end refused by the fence (another process holds the shard now: the database answered) says
  the table is moving, not that the database did not answer.

Processes side by side in this test's event loop, as in tests/bot/test_cluster.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from bot.tables.strings import t
from tests.bot.test_cluster import (
    CH0,
    CH1,
    G0,
    G1,
    U0,
    U1,
    boot,
    channel_control,
    close_all,
    controls,
    fresh_fake,
    human_moves,
    open_table,
    slow_resume,
    until,
)
from tests.harness.db import sql

pytestmark = pytest.mark.usefixtures("stepped_cluster")  # lease checks when a test steps them

MOVING = t("tables.moving", "en")


def said(rec: Any) -> list[str]:
    """Everything an interaction was answered with (its first answer and its follow-ups)."""
    first = [(c.get("data") or {}).get("content") or "" for c in rec.callbacks]
    return first + [f.content or "" for f in rec.followups]


# ------------------------------------------------------------------------------ a take waiting for a write


async def test_a_take_waiting_for_the_previous_holders_write_stalls_no_click_and_costs_the_taker_nothing(pg_url):
    """p0 holds shard 0 (a table of U0's) and is the standby of shard 1; shard 1's holder stops while a write of its
    holds the epoch's row. p0's take waits for that write only a moment: a DM click on p0's own table, pressed while
    the take waits, is played and answered while the write still goes on; p0 keeps shard 0 and its table (before:
    the click waited for the write, and past the lease check's bound p0 gave every shard up and told the player the
    bot could not reach its database). Once the write is over, the next round takes shard 1 and its table plays on."""
    fake = fresh_fake()
    p1 = await boot(pg_url, (1,), fake)
    t1 = await open_table(p1, G1, CH1, U1)
    p0 = await boot(pg_url, (0, 1), fake)
    cluster = p0.bot.cluster
    assert cluster.held == {0}
    t0 = await open_table(p0, G0, CH0, U0)
    cluster.check_timeout = 2.0  # (the production bound is 10 s: only shortened to make the code before fail sooner)
    cluster.take_wait = 1.0

    write = await asyncpg.connect(pg_url)  # p1's write under way: it checked the fence, and goes on
    await write.execute("BEGIN")
    await write.execute("SELECT epoch FROM lease_epochs WHERE shard_count = 2 AND shard = 1 FOR SHARE")
    p1.bot.cluster.kill()  # ... and p1 is gone
    step = asyncio.ensure_future(cluster.step())  # p0 takes shard 1: its epoch's bump meets the write

    async def take_waits() -> bool:
        return bool(await write.fetchval(
            "SELECT EXISTS (SELECT 1 FROM pg_stat_activity WHERE pid = $1 AND wait_event_type = 'Lock')",
            cluster.backend_pid))

    await until(take_waits, "the take waiting for the write")
    moves0 = human_moves(p0, t0)
    m, cid = controls(fake, U0)  # U0 plays on p0's own table meanwhile (a DM click: shard 0's process routes it)
    data, rec = p0.click_payload(m, custom_id=cid, locale="en-US")
    p0.bot._connection.parse_interaction_create(data)
    await until(lambda: rec.responded, "the click answered")
    played = human_moves(p0, t0) - moves0
    await asyncio.wait_for(step, 60)
    held, tables = set(cluster.held), set(p0.bot.tables.by_id)
    write_open = not write.is_closed() and write.is_in_transaction()
    await write.execute("ROLLBACK")
    await write.close()
    assert write_open, "all of the above while the write went on"
    assert played == 1 and not any("cannot reach" in s for s in said(rec)), said(rec)
    assert held == {0} and t0 in tables, (held, tables)  # shard 1 waits for a later round; shard 0 stays

    await cluster.step()  # the write is over: shard 1 is taken, its table resumes here and plays on
    await p0.settle()
    assert cluster.held == {0, 1} and {t0, t1} <= set(p0.bot.tables.by_id)
    moves1 = human_moves(p0, t1)
    m, cid = controls(fake, U1)
    await p0.click(m, custom_id=cid)
    assert human_moves(p0, t1) == moves1 + 1
    p1.bot.cluster.closing = True
    await close_all(p0, p1)


# ------------------------------------------------------------------------------ a shard's tables coming back


async def test_a_routed_click_during_the_take_overs_resume_is_played_once_the_table_is_back(pg_url, monkeypatch):
    """Shard 1's owner stops; the standby takes the shard and resumes its table (slowly). U1's DM click, routed by
    shard 0's process meanwhile, is not taken while the table is not back, and is played once it is (before: it
    was taken at once and told "That table is over.")."""
    fake = fresh_fake()
    p0 = await boot(pg_url, (0,), fake)  # shard 0: receives every DM click, routes it
    pa = await boot(pg_url, (1,), fake)
    t1 = await open_table(pa, G1, CH1, U1)
    pb = await boot(pg_url, (1,), fake)  # shard 1's standby
    gate, entered, usual_read = slow_resume(monkeypatch)
    await pa.close()
    step = asyncio.ensure_future(pb.bot.cluster.step())
    await until(entered.is_set, "the standby resuming the table")
    assert pb.bot.cluster.held == {1}
    moves = human_moves(p0, t1)
    m, cid = controls(fake, U1)
    data, rec = p0.click_payload(m, custom_id=cid, locale="en-US")
    p0.bot._connection.parse_interaction_create(data)
    await until(lambda: rec.responded, "the click deferred by its router")
    owner = pb.bot.cluster
    owner._kick_drain()  # the owner polls its queue (as its NOTIFY and each round make it do)
    await until(lambda: owner._drain_task is None or owner._drain_task.done(), "the owner's poll over")
    queued = sql(p0, "SELECT state FROM routed_clicks")
    answered_meanwhile = said(rec)
    assert queued == [("queued",)], (queued, answered_meanwhile)  # before: taken, and told "That table is over."

    gate.set()
    await step
    usual_read()
    await until(lambda: human_moves(p0, t1) == moves + 1, "the click played once the table is back")
    await pb.settle()
    assert not any(t("tables.table_gone", "en") in s for s in answered_meanwhile + said(rec)), said(rec)
    assert t1 in pb.bot.tables.by_id and not pb.bot.tables.by_id[t1].closed
    await close_all(p0, pb)


async def test_server_commands_during_the_take_overs_resume_say_the_table_is_moving(pg_url, monkeypatch):
    """In the table's server channel while its table is being resumed: "My hand", /table dissolve and a /table new
    are told the table is moving (before: "That table is over.", "There is no table in this channel", and a new
    lobby that the resumed match then closed)."""
    fake = fresh_fake()
    pa = await boot(pg_url, (1,), fake)
    t1 = await open_table(pa, G1, CH1, U1)
    pb = await boot(pg_url, (1,), fake)
    gate, entered, usual_read = slow_resume(monkeypatch)
    await pa.close()
    step = asyncio.ensure_future(pb.bot.cluster.step())
    await until(entered.is_set, "the standby resuming the table")
    m, cid = channel_control(fake, CH1)
    hand = await pb.click(m, custom_id=cid, user=U1, locale="en-US")
    dissolve = await pb.slash("table dissolve", user=U1, guild=G1, channel=CH1, locale="en-US")
    new = await pb.slash("table new", variant="wuhu", user=U1 + 7, guild=G1, channel=CH1, locale="en-US")
    gate.set()
    await step
    usual_read()
    await pb.settle()
    assert t1 in pb.bot.tables.by_id and not pb.bot.tables.by_id[t1].closed
    assert pb.bot.tables.by_channel[CH1].id == t1  # no lobby opened over it
    await close_all(pb)
    for r in (hand, dissolve, new):
        assert r.responded and MOVING in r.reply.content and r.reply.ephemeral, r.reply.content


# ------------------------------------------------------------------------------ writes refused by the fence


def lose_lease_before(h: Any, pg_server: Any, name: str) -> None:
    """The store's ``name`` is called just after the process's lease session was ended by the server (and the
    process noticed): the write meets the fence."""
    store = h.bot.store
    real = getattr(store, name)

    async def first_the_loss(*args: Any, **kwargs: Any) -> Any:
        pg_server.psql(f"SELECT pg_terminate_backend({h.bot.cluster.backend_pid})")
        await until(lambda: not h.bot.cluster.held, "the loss noticed")
        return await real(*args, **kwargs)

    setattr(store, name, first_the_loss)


async def test_a_table_end_refused_by_the_fence_says_the_table_is_moving(pg_url, pg_server):
    fake = fresh_fake()
    p1 = await boot(pg_url, (1,), fake)
    await open_table(p1, G1, CH1, U1)
    lose_lease_before(p1, pg_server, "abort_match")
    r = await p1.slash("table end", user=U1, guild=G1, channel=CH1, locale="en-US")
    await until(lambda: any(m.content for m in r.messages), "the host answered")
    answer = " ".join(m.content or "" for m in r.messages)
    await p1.close()
    assert MOVING in answer and "did not answer" not in answer, answer


async def test_a_start_refused_by_the_fence_says_the_table_is_moving(pg_url, pg_server):
    fake = fresh_fake()
    p1 = await boot(pg_url, (1,), fake)
    p1.add_channel(CH1, guild_id=G1)
    await p1.slash("table new", variant="wuhu", user=U1, guild=G1, channel=CH1, locale="en-US")
    for _ in range(3):
        await p1.slash("table addbot", user=U1, guild=G1, channel=CH1, locale="en-US")
    lose_lease_before(p1, pg_server, "start_match")
    r = await p1.slash("table start", user=U1, guild=G1, channel=CH1, locale="en-US")
    await until(lambda: any(m.content for m in r.messages), "the host answered")
    answer = " ".join(m.content or "" for m in r.messages)
    await p1.close()
    assert MOVING in answer and "did not answer" not in answer, answer
