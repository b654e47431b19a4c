"""A hung owner (stopped with SIGSTOP, a frozen VM, an event loop blocked) kept its shards for ever: its lease is its
session's advisory lock, and its kernel keeps the socket and its TCP keep-alives going, so PostgreSQL never frees
it; no standby took over, and every routed click on those tables was told "the table is moving" again and again.

A live owner runs a statement on its lease connection every tick (``Cluster.beat``). A standby that sees the holder's
session make no move for ``Cluster.beat_grace`` seconds (of its own clock, set here: the standby's steps are driven
by the test) ends that session and takes the lease; the owner, when it wakes, finds its lease gone and drops its
tables (the store's fence keeps it from writing meanwhile: tests/bot/test_cluster_fence.py).

A real process holds the lease here and is stopped for real. Nothing waits against a deadline.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import textwrap
from pathlib import Path

from bot.cluster import Cluster
from bot.shards import ShardPlan
from tests.harness.db import connect

ROOT = Path(__file__).resolve().parents[2]
OWNER = textwrap.dedent("""
    import asyncio, sys
    sys.path.insert(0, sys.argv[2])
    from bot.cluster import Cluster
    from bot.shards import ShardPlan

    async def main():
        c = await Cluster.open(sys.argv[1], ShardPlan((1,), 2), lease_wait=0.0, tick=0.05)

        async def lost(shards):
            print('lost', sorted(shards), flush=True)

        c.on_lose = lost
        c.start()
        print('held', sorted(c.held), c.backend_pid, flush=True)
        await asyncio.sleep(3600)

    asyncio.run(main())
""")


async def polls(cond, what: str, n: int = 6000) -> None:
    """Poll ``cond`` every 10 ms; the limit counts polls, not the clock."""
    for _ in range(n):
        if cond():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"still not {what}")


async def test_a_hung_owner_loses_its_shards_to_a_standby_and_drops_them_when_it_wakes(pg_url):
    db = connect(pg_url)
    proc = await asyncio.create_subprocess_exec(sys.executable, "-c", OWNER, pg_url, str(ROOT),
                                                stdout=asyncio.subprocess.PIPE)
    assert proc.stdout is not None
    standby: Cluster | None = None
    try:
        said = (await asyncio.wait_for(proc.stdout.readline(), 120)).decode().split()
        assert said[:2] == ["held", "[1]"], said
        owner_pid = int(said[2])

        def session() -> list[tuple[object]]:
            return db.execute("SELECT state_change FROM pg_stat_activity WHERE pid = ?", (owner_pid,))

        now = [0.0]
        standby = await Cluster.open(pg_url, ShardPlan((1,), 2), lease_wait=0.0, tick=3600.0, check_timeout=10.0)
        standby.clock = lambda: now[0]
        grace = standby.beat_grace

        # a live owner beats: however long the standby watches, it never ends it
        await standby.step()
        seen = session()
        await polls(lambda: session() != seen, "a beat of the owner")
        now[0] += grace + 1
        await standby.step()
        assert standby.held == set() and session(), "a live owner is left alone"

        # the owner hangs: its socket stays open, its session silent
        os.kill(proc.pid, signal.SIGSTOP)
        for _ in range(100):  # (a beat on its way when it stopped may still move the session once)
            now[0] += grace + 1
            await standby.step()
            if standby.held:
                break
            await asyncio.sleep(0.01)
        assert standby.held == {1}, "the standby took the hung owner's shard"
        assert session() == [], "the hung owner's lease session was ended"
        before = dict(standby.epochs)

        # the owner wakes: it finds its lease gone, drops its tables, and does not take the shard back
        os.kill(proc.pid, signal.SIGCONT)
        assert (await asyncio.wait_for(proc.stdout.readline(), 120)).decode().split() == ["lost", "[1]"]
        await standby.step()
        assert standby.held == {1} and standby.epochs == before
    finally:
        if standby is not None:
            await standby.close()
        if proc.returncode is None:  # (it may have ended already, not yet reaped: nothing left to kill then)
            with contextlib.suppress(ProcessLookupError):
                os.kill(proc.pid, signal.SIGKILL)
                os.kill(proc.pid, signal.SIGCONT)
        await proc.wait()
        db.close()


async def test_a_hung_bots_table_is_resumed_by_the_standby_and_plays_on(pg_url, tmp_path, monkeypatch):
    """The same with the real bot on both sides: the hung process (tests/bot/cluster_worker.py) drives a table; the
    standby takes the shard, resumes the table and plays the player's next click; the hung process, woken, has
    dropped the table and holds nothing."""
    from bot.config import Config
    from tests.bot.test_cluster import _slow_timers, controls, fresh_fake, human_moves
    from tests.bot.test_cluster_processes import COUNT, Proc, guild_on
    from tests.harness import Harness

    monkeypatch.setattr(Cluster, "tick", 3600.0)  # this test's standby steps when the test says
    monkeypatch.setattr(Cluster, "lease_wait", 0.0)
    guild, channel, user = guild_on(1), 1_270_000_000_000_000_000, 1_270_000_000_000_000_001
    owner = await Proc.start("hung", pg_url, 1, 1_400_000_000_000_000_000, tmp_path)  # shard 1 of COUNT
    standby = None
    try:
        assert owner.ready["held"] == [1]
        match = (await owner.call("open", guild=guild, channel=channel, user=user))["match"]
        await owner.call("settle")
        dm = await owner.call("controls", user=user, channel=channel)
        assert dm["message"] is not None

        fake = fresh_fake()
        fake.add_channel(channel, guild)
        config = Config(token=None, db_path=pg_url, shards=ShardPlan((1,), COUNT))
        standby = await Harness.boot(pg_url, config=config, fake=fake, prepare=_slow_timers)
        cluster = standby.bot.cluster
        assert cluster is not None and cluster.held == set()
        now = [0.0]
        cluster.clock = lambda: now[0]
        os.kill(owner.proc.pid, signal.SIGSTOP)
        for _ in range(100):
            now[0] += cluster.beat_grace + 1
            await cluster.step()
            if cluster.held:
                break
            await asyncio.sleep(0.01)
        assert cluster.held == {1} and match in standby.bot.tables.by_id
        await standby.settle()

        os.kill(owner.proc.pid, signal.SIGCONT)
        state = await owner.call("state")
        for _ in range(6000):
            if state["held"] == [] and state["tables"] == []:
                break
            await asyncio.sleep(0.01)
            state = await owner.call("state")
        assert state == {"n": state["n"], "ok": True, "held": [], "tables": []}, "the woken process dropped it"

        moves = human_moves(standby, match)
        fake.adopt_dm(dm["message"], user)
        m, cid = controls(fake, user)
        await standby.click(m, custom_id=cid, user=user, locale="en-US")
        assert human_moves(standby, match) == moves + 1, "the player's click plays at the new owner"
    finally:
        if owner.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):  # (ended already, not yet reaped)
                os.kill(owner.proc.pid, signal.SIGCONT)
            await owner.quit()
        if standby is not None:
            await standby.close()
