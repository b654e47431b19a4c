"""What a process of several resumes, through the real bot on PostgreSQL (processes side by side in this test's
event loop, as in tests/bot/test_cluster.py): exactly the matches of the shards it holds, read from the store by
their shards, and a shard taken while its start-up still resumes is brought back whole, its match in play before a
lobby stored in the same channel."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import bot.store.matches as matches_mod
import bot.tables.resume as resume_mod
from tests.bot.test_cluster import (
    CH0,
    CH1,
    G0,
    G1,
    U0,
    U1,
    boot,
    controls,
    fresh_fake,
    human_moves,
    keep_opened,
    open_table,
    until,
)
from tests.harness.db import sql
from tests.harness.faults import FlakyConnection

pytestmark = pytest.mark.usefixtures("stepped_cluster")  # lease checks when a test steps them


def reads(monkeypatch: Any) -> list[int]:
    """The ids of the matches the store reads in full (their hands and actions) from now on."""
    read: list[int] = []
    game = matches_mod._game

    async def counted(conn: Any, row: Any) -> Any:
        read.append(int(row[0]))
        return await game(conn, row)

    monkeypatch.setattr(matches_mod, "_game", counted)
    return read


async def test_each_process_reads_and_resumes_exactly_its_own_shards_matches(pg_url, monkeypatch):
    """Before, each process read every active match of the database (hands and actions included) at its start-up
    and at every lease taken, then dropped the other processes' ones."""
    fake = fresh_fake()
    both = await boot(pg_url, (0, 1), fake)
    t0 = await open_table(both, G0, CH0, U0)
    t1 = await open_table(both, G1, CH1, U1)
    await both.close()
    read = reads(monkeypatch)
    p0 = await boot(pg_url, (0,), fake)
    assert read == [t0] and set(p0.bot.tables.by_id) == {t0}
    read.clear()
    p1 = await boot(pg_url, (1,), fake)
    assert read == [t1] and set(p1.bot.tables.by_id) == {t1}
    read.clear()
    standby = await boot(pg_url, (1,), fake)  # holds nothing yet: reads nothing
    assert read == [] and not standby.bot.tables.by_id
    await p1.close()
    await standby.bot.cluster.step()  # takes shard 1: reads and resumes its match alone
    await standby.settle()
    assert read == [t1] and set(standby.bot.tables.by_id) == {t1} and set(p0.bot.tables.by_id) == {t0}
    await standby.close()
    await p0.close()


async def test_a_shard_taken_during_the_start_up_brings_its_match_back_before_a_lobby_left_stored(pg_url,
                                                                                                monkeypatch):
    """A lobby's Start recorded its match but could not remove the lobby's row (the database failing just then), and
    the match plays on. A process that starts while another still holds that shard takes it while its start-up is
    resuming. Before, that start-up skipped the match (not its shard yet) and then brought the lobby back (its shard
    by then), and the shard's own resume left the match to that lobby: the players' match stood still, played by no
    process, until someone closed a lobby they had already started. Now the match is back at once, the lobby gone."""
    fake = fresh_fake()
    pa = await boot(pg_url, (1,), fake)
    pa.add_channel(CH1, guild_id=G1)
    await pa.slash("table new", variant="wuhu", user=U1, guild=G1, channel=CH1)
    for _ in range(3):
        await pa.slash("table addbot", user=U1, guild=G1, channel=CH1)
    flaky = FlakyConnection.install(pa.bot.store)
    flaky.fail("DELETE FROM lobbies", times=1000)
    await pa.slash("table start", user=U1, guild=G1, channel=CH1)
    pa.bot.store.backend.wrap = None
    mid = pa.bot.tables.by_channel[CH1].match_id
    assert sql(pa, "SELECT channel_id FROM lobbies") == [(CH1,)] and mid is not None
    await until(lambda: _live_controls(fake), "the player's DM with controls")

    gate, waiting = asyncio.Event(), asyncio.Event()
    read_lobbies = resume_mod.lobbies

    async def slow_lobbies(*args: Any) -> Any:  # the start-up's read of the lobbies: the database slow to answer
        monkeypatch.setattr(resume_mod, "lobbies", read_lobbies)
        waiting.set()
        await gate.wait()
        return await read_lobbies(*args)

    monkeypatch.setattr(resume_mod, "lobbies", slow_lobbies)
    opened = keep_opened(monkeypatch)
    starting = asyncio.ensure_future(boot(pg_url, (1,), fake))  # shard 1 is pa's: a standby for now
    await until(waiting.is_set, "the start-up reading the lobbies")
    cb = opened[0]
    assert cb.held == set()
    await pa.close()  # the owner stops: its lease is free
    step = asyncio.ensure_future(cb.step())  # the new process takes it while its start-up still runs
    await until(lambda: cb.held == {1}, "the lease taken")
    gate.set()
    pb = await starting
    await step
    await pb.settle()
    mgr = pb.bot.tables
    back = mgr.by_id.get(mid)
    assert back is not None and mgr.by_channel[CH1] is back and not back.closed
    assert sql(pb, "SELECT channel_id FROM lobbies") == []
    moves = human_moves(pb, mid)
    m, cid = controls(fake, U1)
    await pb.click(m, custom_id=cid)
    assert human_moves(pb, mid) == moves + 1
    await pb.close()


def _live_controls(fake: Any) -> bool:
    try:
        controls(fake, U1)
    except AssertionError:
        return False
    return True
