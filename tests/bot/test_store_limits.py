"""Every wait of the store on PostgreSQL has a bound (bot.store.postgres.Limits): a transaction left open by a
process that vanished or hangs (its row locks held) ends on the server, a write that waits on such a lock gives up
and takes the "database not answering" path (the click is answered, the table goes on once the lock is gone), a
transaction waits for a connection of the pool and for a reply only so long, and a start waits for another
process's migrations only so long.

The server's limits are real time; the tests wait for their outcome with generous polls (``until``), never against
a deadline.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json

import asyncpg
import pytest

from bot.check import check_database
from bot.config import Config, ConfigError
from bot.i18n import t
from bot.store import Store, StoreError
from bot.store.failures import DATABASE_ERRORS, NoAnswer, NoConnection, failure_kind
from bot.store.postgres import MIGRATION_LOCK, Limits, PostgresBackend, session_settings
from cogs.errors import transient
from tests.bot.test_cluster import (
    CH1,
    G1,
    U1,
    SilentProxy,
    boot,
    dm_press,
    fresh_fake,
    human_moves,
    open_table,
    until,
)
from tests.harness import Harness
from tests.harness.db import sql

pytestmark = pytest.mark.usefixtures("stepped_cluster")  # lease checks when a test steps them


async def _orphan_write(url: str, h: Harness, match_id: int, **settings: str) -> asyncpg.Connection:
    """The table's next action inserted in a transaction that is never committed, on a session that never sends
    anything again: what the server sees of a process whose machine vanished (or that hangs) in the middle of a
    write. It holds the row lock of that ``(match, seq)``."""
    n, hand = sql(h, "SELECT COUNT(*), MAX(hand_id) FROM actions WHERE match_id = ?", (match_id,))[0]
    orphan = await asyncpg.connect(url, server_settings=settings or None)
    await orphan.execute("BEGIN")
    await orphan.execute("INSERT INTO actions (match_id, seq, hand_id, action, state_hash, at) "
                         "VALUES ($1, $2, $3, $4, NULL, 0)", match_id, n, hand,
                         json.dumps({"type": "timeout", "seat": 0}))
    return orphan


async def _session_alive(url: str, pid: int) -> bool:
    look = await asyncpg.connect(url)
    try:
        return bool(await look.fetchval("SELECT COUNT(*) FROM pg_stat_activity WHERE pid = $1", pid))
    finally:
        await look.close()


async def test_a_vanished_owners_open_write_ends_on_the_server_and_the_next_owner_plays_on(pg_url):
    """The owner's machine vanished between its INSERT and its COMMIT. Its pool connection, opened as the store
    opens every one (its idle-in-transaction bound shortened here), is ended by the server: the row lock goes with
    it, and the player's click in the next owner is applied. Before, nothing ended that transaction (hours, until
    the OS gave up on the socket) and the click waited behind it: no answer, no timer, no message."""
    fake = fresh_fake()
    p1 = await boot(pg_url, (0, 1), fake)
    t1 = await open_table(p1, G1, CH1, U1)
    moves = human_moves(p1, t1)
    store_session = session_settings(dataclasses.replace(PostgresBackend.limits, idle_in_transaction=1.0))
    orphan = await _orphan_write(pg_url, p1, t1, **store_session)
    pid = orphan.get_server_pid()
    p2 = await p1.kill()  # its lease session ends; the next process takes the shards and resumes the table
    assert p2.bot.cluster.held == {0, 1} and t1 in p2.bot.tables.by_id
    async def ended() -> bool:
        return not await _session_alive(pg_url, pid)

    await until(ended, "the orphaned transaction ended by the server", timeout=60.0)
    rec = dm_press(fake, U1, p2)
    await until(lambda: human_moves(p2, t1) == moves + 1, "the click applied")
    assert not any(t("tables.not_recorded", "en") in f.content for f in rec.messages)
    orphan.terminate()
    await p2.close()


async def test_a_click_behind_a_stuck_write_is_answered_and_the_table_plays_on_once_it_is_gone(pg_url, monkeypatch):
    """A session that holds the next action's row lock and is never ended (no limit of its own: a hung session,
    an admin's psql left open in a transaction). The next owner's write of the click gives up at ``lock_timeout``:
    the player reads that nothing was recorded and to press again, the channel that the database is not answering,
    the table's lock is free (its timer runs); once that session is gone the next press plays. Before, the click
    was never answered and the table stayed frozen behind the lock."""
    monkeypatch.setattr(PostgresBackend, "limits", Limits(lock=0.5))
    fake = fresh_fake()
    p1 = await boot(pg_url, (0, 1), fake)
    t1 = await open_table(p1, G1, CH1, U1)
    moves = human_moves(p1, t1)
    orphan = await _orphan_write(pg_url, p1, t1)
    p2 = await p1.kill()
    p2.bot.tables.store_backoff = (0.05,)
    rec = dm_press(fake, U1, p2)
    not_recorded = t("tables.not_recorded", "en")
    await until(lambda: any(not_recorded in f.content for f in rec.messages), "the click answered", timeout=60.0)
    lt = p2.bot.tables.by_id[t1]
    assert not lt.lock.locked() and human_moves(p2, t1) == moves
    said = [m.content for m in fake.channel_messages(CH1)]
    assert t("tables.store_down", lt.lang) in said
    await orphan.execute("ROLLBACK")
    await orphan.close()
    await p2.settle()
    rec = dm_press(fake, U1, p2)
    await until(lambda: human_moves(p2, t1) == moves + 1, "the second press applied")
    await p2.close()


async def test_a_stuck_write_keeps_the_process_from_taking_its_leases_back_only_so_long(pg_url, pg_server,
                                                                                        monkeypatch):
    """The same stuck write holds the table's lock when the process's lease connection drops: dropping those
    shards' tables waits for that lock, and the leases are taken back only after. The write gives up at
    ``lock_timeout``, so the process takes its shards back while the orphan still lives. Before, it never did
    (every table of both shards stopped, "the table is moving" for every click) for as long as the orphan lived."""
    monkeypatch.setattr(PostgresBackend, "limits", Limits(lock=2.0))
    fake = fresh_fake()
    p1 = await boot(pg_url, (0, 1), fake)
    t1 = await open_table(p1, G1, CH1, U1)
    orphan = await _orphan_write(pg_url, p1, t1)
    look = await asyncpg.connect(pg_url)
    dm_press(fake, U1, p1)  # its write waits behind the orphan's lock, under the table's lock
    await until(lambda: look.fetchval("SELECT COUNT(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                                      "AND query LIKE 'INSERT INTO actions%'"), "the write waiting on the lock")
    pg_server.psql(f"SELECT pg_terminate_backend({p1.bot.cluster.backend_pid})")

    async def taken_back() -> bool:
        await p1.bot.cluster.step()
        return p1.bot.cluster.held == {0, 1}

    await until(taken_back, "the shards taken back", timeout=60.0)
    assert await _session_alive(pg_url, orphan.get_server_pid())
    await look.close()
    await orphan.execute("ROLLBACK")
    await orphan.close()
    await p1.close()


async def test_the_stores_connections_carry_the_servers_limits_and_mjbot_db_timeout_sets_the_statements(pg_url):
    store = await Store.open(pg_url, timeout=7)
    try:
        async with store.transaction(write=False) as conn:
            row = await conn.one("SELECT current_setting('statement_timeout'), current_setting('lock_timeout'), "
                                 "current_setting('idle_in_transaction_session_timeout')")
        assert tuple(row) == ("7s", "5s", "20s")
    finally:
        await store.close()
    assert Config.from_env({"MJBOT_DB_TIMEOUT": "30"}, dotenv=False).db_timeout == 30
    assert Config.from_env({}, dotenv=False).db_timeout is None
    for bad in ("0", "-1", "soon", "0.5"):
        with pytest.raises(ConfigError) as e:
            Config.from_env({"MJBOT_DB_TIMEOUT": bad}, dotenv=False)
        assert "MJBOT_DB_TIMEOUT" in str(e.value) and bad in str(e.value)


async def test_a_transaction_waits_for_a_connection_of_the_pool_only_so_long(pg_url):
    """Every connection of the pool lent (two here, each held by a transaction that waits): the next call gives up
    within :attr:`Limits.acquire` as "busy" (the player's "try again in a moment"), not after the others end."""
    store = await Store.open(pg_url, pool=2)
    assert store.backend is not None
    store.backend.limits = Limits(statement=0.3, margin=0.2)  # (after the start: the bound of a wait on the client)
    gate, held = asyncio.Event(), [asyncio.Event(), asyncio.Event()]

    async def hold(n: int) -> None:
        async with store.transaction(write=False):
            held[n].set()
            await gate.wait()

    holder = asyncio.gather(hold(0), hold(1))
    try:
        await asyncio.gather(*(e.wait() for e in held))
        with pytest.raises(NoConnection) as e:
            await asyncio.wait_for(store.guild_settings(1), 60)  # before: waited as long as the holder
        assert isinstance(e.value, DATABASE_ERRORS) and failure_kind(e.value) == "busy"
        assert transient(e.value) == "error.store_busy"
    finally:
        gate.set()
        await holder
    await store.guild_settings(1)  # the connection back: the pool serves again
    await store.close()


async def test_a_reply_that_never_comes_fails_the_call_as_the_database_not_answering(pg_url):
    """The network to the server goes silent while a transaction waits for a reply: the server's own limits can
    never answer, so the bot stops waiting after :attr:`Limits.reply` and the call fails as the database being
    unavailable (a move: "the database is not answering", retried). Before, it waited for ever."""
    proxy = SilentProxy(pg_url)
    await proxy.start()
    store = await Store.open(proxy.url)
    try:
        assert store.backend is not None
        store.backend.limits = Limits(statement=0.3, margin=0.2)  # (after the start, as above)
        proxy.silent = True
        with pytest.raises(NoAnswer) as e:
            await asyncio.wait_for(store.guild_settings(1), 60)
        assert failure_kind(e.value) == "unavailable" and transient(e.value) == "error.store_unavailable"
    finally:
        await store.kill()
        await proxy.close()


async def test_a_start_waits_for_another_processs_migrations_only_so_long(pg_url, monkeypatch):
    """Another session holds the migrations' lock (a process hung while migrating): this start gives up after
    :attr:`Limits.migration_wait` with one line naming that session, as for a database that cannot be used
    (``mjbot check`` fails its database line; ``mjbot run`` exits 1). Before, it waited for ever."""
    monkeypatch.setattr(PostgresBackend, "limits", Limits(migration_wait=0.5))
    holder = await asyncpg.connect(pg_url)
    await holder.execute("SELECT pg_advisory_lock($1)", MIGRATION_LOCK)
    try:
        with pytest.raises(StoreError) as e:
            await asyncio.wait_for(Store.open(pg_url), 60)
        assert e.value.code == "migration_lock_held"
        assert f"pid {holder.get_server_pid()}" in str(e.value)
        outcome = await asyncio.wait_for(check_database(Config(token=None, db_path=pg_url)), 60)
        assert not outcome.ok and "migrations' lock" in outcome.text
    finally:
        await holder.close()
    store = await Store.open(pg_url)  # the lock free: the start goes through
    await store.close()
