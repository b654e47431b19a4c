"""A burst of routed DM clicks and the lease's beat share the lease connection (bot.cluster, bot.cluster_turns): the
beat must never wait behind the clicks. It is bounded (``Cluster.check_timeout``, the wait for the connection
included), and a beat held past its bound gives every shard of the process up, though nothing is wrong with it.

Processes side by side in this test's event loop, as in tests/bot/test_cluster.py.
"""

from __future__ import annotations

import asyncio
import json

import asyncpg
import pytest

from tests.bot.test_cluster import U1, close_all, controls, human_moves, router_and_owner, until
from tests.harness.db import sql

pytestmark = pytest.mark.usefixtures("stepped_cluster")  # lease checks when a test steps them


async def _hold_rows(url: str, ids: list[int], match_id: int) -> tuple[asyncpg.Connection, asyncpg.transaction.Transaction]:
    """Another session inserts the queue rows of these clicks and keeps its transaction open: a router's own insert
    of one of them waits for it (the database slow to answer that statement), holding the lease connection."""
    conn = await asyncpg.connect(url)
    tx = conn.transaction()
    await tx.start()
    for i in ids:
        await conn.execute("INSERT INTO routed_clicks (interaction_id, shard_count, shard, match_id, payload, "
                           "queued_at) VALUES ($1, 2, 1, $2, '', 0)", i, match_id)
    return conn, tx


async def test_a_burst_of_routed_clicks_never_holds_the_lease_beat_past_its_bound(pg_url):
    """Shard 0's process routes a burst of DM clicks while its beat is due. The first click's statement is slow on
    the server; the next ones wait for the connection, one of them slow too. The beat goes right after the statement
    under way, not behind the clicks that came before it: the process keeps its shard (before, the beat waited behind
    every click queued ahead of it, ran out of its bound and gave shard 0 up, its tables and its DM clicks with it),
    and every click is still routed and answered."""
    fake, p0, p1, t1 = await router_and_owner(pg_url)
    cb = p0.bot.cluster
    conn = cb.conn
    moves = human_moves(p1, t1)
    m, cid = controls(fake, U1)
    burst = [p0.click_payload(m, custom_id=cid, locale="en-US") for _ in range(5)]
    ids = [int(data["id"]) for data, _ in burst]
    first, first_tx = await _hold_rows(pg_url, ids[:1], t1)
    rest, rest_tx = await _hold_rows(pg_url, ids[1:], t1)
    try:
        for data, _ in burst:  # Discord delivers every DM click to shard 0's process
            p0.bot._connection.parse_interaction_create(data)
        waiting = "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted)"
        await until(lambda: first.fetchval(waiting, cb.backend_pid), "the first click's insert waiting on the server")
        await until(lambda: all(rec.callback_type == 6 for _, rec in burst), "every click acknowledged")
        for _ in range(100):  # (their tasks go on from the acknowledgement to wait for the connection)
            await asyncio.sleep(0)

        beat = asyncio.ensure_future(cb._bounded("the lease's beat", cb.beat))  # the beat falls due
        for _ in range(10):
            await asyncio.sleep(0)
        await first_tx.rollback()  # the first click's statement ends
        assert await beat == set()
        assert cb.held == {0} and cb.conn is conn and not conn.is_closed()

        await rest_tx.rollback()  # the others' statements go through
        await until(lambda: sql(p0, "SELECT COUNT(*) FROM routed_clicks WHERE payload = 'answered'")[0][0] == 5,
                    "every click handled by the owner")
        await p1.settle()
        await p0.settle()
        for _, rec in burst:  # the first played, the others refused (the same control): each answered
            assert rec.followups or (rec.original is not None and rec.original.edits), rec
        assert human_moves(p1, t1) == moves + 1 and cb.held == {0}
        rows = sql(p0, "SELECT interaction_id, state FROM routed_clicks ORDER BY interaction_id")
        assert rows == [(i, "taken") for i in sorted(ids)], json.dumps(rows)
    finally:
        await first.close()
        await rest.close()
    await close_all(p0, p1)


async def test_the_lease_connection_goes_to_the_lease_first_and_a_cancelled_waiter_passes_its_turn_on():
    """The turns on the lease connection (bot.cluster_turns): a lease statement waiting goes before every click's
    waiting, each kind in its order; a waiter cancelled as its turn came hands it on (nobody waits forever)."""
    from bot.cluster_turns import Turns

    turns, order = Turns(), []
    gate = asyncio.Event()

    async def user(name: str, lease: bool, hold: asyncio.Event | None = None) -> None:
        async with turns.turn(lease):
            order.append(name)
            if hold is not None:
                await hold.wait()

    busy = asyncio.ensure_future(user("under way", False, gate))
    await until(turns.locked, "the connection in use")
    waiters = [asyncio.ensure_future(user(n, lease)) for n, lease in
               (("click 1", False), ("click 2", False), ("beat", True), ("check", True))]
    cancelled = asyncio.ensure_future(user("cancelled", True))
    await until(lambda: turns.waiting() == (3, 2), "all waiting")
    cancelled.cancel()
    gate.set()
    await asyncio.gather(busy, *waiters)
    assert order == ["under way", "beat", "check", "click 1", "click 2"]
    assert not turns.locked() and turns.waiting() == (0, 0)

    # a waiter cancelled just as its turn was handed to it gives it to the next one
    order.clear()
    async with turns:
        late = asyncio.ensure_future(user("late", True))
        after = asyncio.ensure_future(user("after", False))
        await until(lambda: turns.waiting() == (1, 1), "both waiting")
    late.cancel()  # the turn is "late"'s now, and it has not run yet
    await asyncio.gather(late, return_exceptions=True)
    await asyncio.wait_for(after, 60)  # (on a turn kept by the cancelled waiter: never)
    assert late.cancelled() and order == ["after"] and not turns.locked()
