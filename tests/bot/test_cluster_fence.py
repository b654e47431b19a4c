"""The fence of a table's writes between processes (bot.store.fence, migration 0012): a process whose lease session
ended while one of its moves was being written (a DBA's pg_terminate_backend, a lease check that timed out, a cut of
that one connection; its store pool still works) must not write behind the back of the process that takes the
shard over. The taker's epoch bump waits for the write under way, so the taker resumes the table with that move;
every later write of the old process is refused, and it drops the table quietly. The player plays on at the new
owner, and nobody is told the database failed.

Processes side by side in this test's event loop, as in tests/bot/test_cluster.py.
"""

from __future__ import annotations

import asyncio
from typing import Any

import asyncpg
import pytest

from bot.tables.strings import t
from tests.bot.test_cluster import (
    CH1,
    G1,
    U1,
    _has_controls,
    boot,
    controls,
    fresh_fake,
    human_moves,
    open_table,
    router_and_owner,
    until,
)
from tests.harness.db import sql

pytestmark = pytest.mark.usefixtures("stepped_cluster")  # lease checks when a test steps them


def store_messages(fake: Any) -> list[str]:
    """What the table's channel said about the database (in any language)."""
    said = [m.content or "" for m in fake.channel_messages(CH1)]
    keys = [t(k, lang) for k in ("tables.store_down", "tables.store_back") for lang in ("en", "zh")]
    return [s for s in said if any(k in s for k in keys)]


def actions(h: Any, match_id: int) -> int:
    return int(sql(h, "SELECT COUNT(*) FROM actions WHERE match_id = ?", (match_id,))[0][0])


async def test_a_process_that_lost_its_lease_mid_write_is_fenced_and_the_new_owner_plays_on(pg_url, pg_server):
    fake = fresh_fake()
    old = await boot(pg_url, (0, 1), fake)
    t1 = await open_table(old, G1, CH1, U1)
    new = await boot(pg_url, (0, 1), fake)  # a standby for the same shards (a restart's overlap, a second machine)
    assert new.bot.cluster.held == set()

    gate = asyncio.Event()
    armed = [True]

    def slow_actions(conn: Any) -> Any:
        class Slow:
            def __getattr__(self, name: str) -> Any:
                return getattr(conn, name)

            async def execute(self, q: str, params: Any = ()) -> int:
                if armed[0] and "INSERT INTO actions" in q:
                    armed[0] = False
                    await gate.wait()  # the old owner's write is slow (a busy server)
                return await conn.execute(q, params)
        return Slow()

    old.bot.store.backend.wrap = slow_actions
    moves = human_moves(old, t1)
    m, cid = controls(fake, U1)
    data, _ = old.click_payload(m, custom_id=cid)
    old.bot._connection.parse_interaction_create(data)  # the old owner applies it; its write waits at the gate
    await until(lambda: not armed[0], "the old owner's write under way")

    # the old owner's lease session ends; the standby takes the shards while that write is still under way
    pg_server.psql(f"SELECT pg_terminate_backend({old.bot.cluster.backend_pid})")
    new.bot.cluster.take_wait = 60.0  # (this round's take waits for the write however slow the machine is)
    taking = asyncio.ensure_future(new.bot.cluster.step())

    def waits_for_the_write() -> bool:  # (or, without a fence, has taken the shards already)
        return taking.done() or bool(sql(new, "SELECT 1 FROM pg_stat_activity WHERE pid = ? AND wait_event_type = "
                                              "'Lock'", (new.bot.cluster.backend_pid,)))

    await until(waits_for_the_write, "the standby's take waiting for the old owner's write")
    gate.set()  # the old owner's write commits, and it tries to play the AI seats on
    await taking
    await new.settle(10, raise_on_timeout=False)
    await old.settle(10, raise_on_timeout=False)
    assert new.bot.cluster.held == {0, 1} and t1 in new.bot.tables.by_id
    assert t1 not in old.bot.tables.by_id, "the old owner dropped the table"

    # the new owner's table holds everything in the store: the old owner's move, and nothing after it
    assert human_moves(new, t1) == moves + 1
    assert new.bot.tables.by_id[t1].table.seq == actions(new, t1)
    assert store_messages(fake) == [], "nobody is told the database failed: it did not"

    # the player plays on at the new owner
    await until(lambda: _has_controls(fake, U1), "controls from the new owner")
    m, cid = controls(fake, U1)
    await new.click(m, custom_id=cid)
    assert human_moves(new, t1) == moves + 2
    assert new.bot.tables.by_id[t1].table.seq == actions(new, t1)
    assert store_messages(fake) == []
    await new.close()
    await old.close()


async def test_a_write_of_a_process_without_the_lease_is_refused_in_the_store(pg_url):
    """The store refuses a table's write from a process whose lease is gone, before the process has noticed."""
    fake = fresh_fake()
    old = await boot(pg_url, (1,), fake)
    t1 = await open_table(old, G1, CH1, U1)
    before = actions(old, t1)
    # another process took the shard meanwhile (it bumped the epoch); the old one still believes it holds it
    sql_bump = "UPDATE lease_epochs SET epoch = epoch + 1 WHERE shard_count = 2 AND shard = 1"
    conn = await asyncpg.connect(pg_url)
    try:
        await conn.execute(sql_bump)
    finally:
        await conn.close()
    assert old.bot.cluster.held == {1}
    m, cid = controls(fake, U1)
    r = await old.click(m, custom_id=cid)
    assert actions(old, t1) == before, "nothing was written"
    said = [f.content for f in r.followups] + [c.get("data", {}).get("content") for c in r.callbacks]
    assert any(t("tables.moving", "en") in (s or "") for s in said), said
    assert t1 not in old.bot.tables.by_id and store_messages(fake) == []
    await old.close()


async def test_a_routed_click_applied_before_its_owner_died_is_not_called_unplayed(pg_url):
    """The owner applies a routed DM click (its move in the store, the AI seats answering, the DM edited) and dies
    before it notes the click handled: the router, seeing its row taken and the taker gone, used to tell the player
    "the table is moving, try again. Nothing was played", although the move stands (the next owner resumes with it).
    The move's own transaction marks the click handled now: the router says nothing false. (A click whose owner
    died before its move was written is still told to try again: test_cluster.py.)"""
    fake, p0, p1, t1 = await router_and_owner(pg_url, route_timeout=1.0)
    moves = human_moves(p1, t1)

    async def dies_first(interaction_id: int) -> None:  # the process is killed before it notes the click handled
        p1.bot.cluster.kill()

    p1.bot.cluster.answered = dies_first  # type: ignore[method-assign]
    m, cid = controls(fake, U1)
    data, rec = p0.click_payload(m, custom_id=cid, locale="en-US")
    p0.bot._connection.parse_interaction_create(data)
    await until(lambda: human_moves(p1, t1) == moves + 1, "applied by the owner")
    await until(lambda: p1.bot.cluster.closing, "the owner killed")

    def watching() -> bool:
        return any(t.get_name() == "mjbot-route-watch" and not t.done() for t in p0.bot.cluster._tasks)

    await until(lambda: not watching(), "the router's watch over")
    assert sql(p0, "SELECT state, payload FROM routed_clicks") == [("taken", "answered")]
    assert not any(t("tables.moving", "en") in f.content for f in rec.followups), "told nothing was played"
    assert human_moves(p0, t1) == moves + 1
    await p0.close()



async def test_a_process_that_noticed_its_lease_lost_cannot_write_while_its_tables_are_dropped(pg_url, pg_server):
    """The lease connection drops while a move's write is under way, and before anyone else takes the shard (its
    epoch in the store still the one this process took). The process has noticed (its lease check, or the
    connection's end), and drops the table once the move lets go of it; meanwhile the move's write goes on: it is
    refused all the same (the fence asks whether the lease is held now, not only whether another process bumped the
    epoch), nothing is written, the player is told the table is moving, and nobody is told the database failed.
    Taken back, the table plays on from the store without that move."""
    fake = fresh_fake()
    old = await boot(pg_url, (1,), fake)
    t1 = await open_table(old, G1, CH1, U1)
    cluster = old.bot.cluster
    before, moves = actions(old, t1), human_moves(old, t1)
    gate, reached = asyncio.Event(), asyncio.Event()

    def slow_fence(conn: Any) -> Any:
        class Slow:
            def __getattr__(self, name: str) -> Any:
                return getattr(conn, name)

            async def one(self, q: str, params: Any = ()) -> Any:
                if not reached.is_set() and "lease_epochs" in q:
                    reached.set()
                    await gate.wait()  # the write's check of its lease, slow (a busy server)
                return await conn.one(q, params)
        return Slow()

    old.bot.store.backend.wrap = slow_fence
    m, cid = controls(fake, U1)
    data, rec = old.click_payload(m, custom_id=cid, locale="en-US")
    old.bot._connection.parse_interaction_create(data)
    await until(reached.is_set, "the move's write under way")
    assert pg_server.psql(f"SELECT pg_terminate_backend({cluster.backend_pid})").strip() == "t"
    await until(lambda: not cluster.held, "the loss noticed")
    assert t1 in old.bot.tables.by_id  # being dropped: the move holds it
    epoch = sql(old, "SELECT epoch FROM lease_epochs WHERE shard_count = 2 AND shard = 1")
    assert epoch == [(cluster.epochs[1],)], "nobody else has taken the shard"
    gate.set()
    await until(lambda: cluster._losing is not None and cluster._losing.done(), "its tables dropped")
    await old.settle()
    old.bot.store.backend.wrap = None
    assert actions(old, t1) == before, "nothing was written"
    assert t1 not in old.bot.tables.by_id and store_messages(fake) == []
    said = [f.content for f in rec.followups] + [(c.get("data") or {}).get("content") for c in rec.callbacks]
    assert any(t("tables.moving", "en") in (s or "") for s in said), said

    await cluster.step()  # reconnects, takes the lease back: the table resumes from the store
    await old.settle()
    assert cluster.held == {1} and t1 in old.bot.tables.by_id
    await until(lambda: _has_controls(fake, U1), "the player's controls")
    m, cid = controls(fake, U1)
    await old.click(m, custom_id=cid)
    assert human_moves(old, t1) == moves + 1
    await old.close()
