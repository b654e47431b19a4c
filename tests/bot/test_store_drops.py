"""A connection the PostgreSQL server ends while the store has it lent (a restart, a fail-over, an administrator's
``pg_terminate_backend``) costs the pool nothing: the transaction on it fails as the database's failure (which the
callers retry), its slot comes back and the next transaction connects again (docs/store.md).

The drop asyncpg handles worst: the server's last message ("terminating connection due to administrator command")
reaches asyncpg between two exchanges and the socket's end only later, so asyncpg reads a message where it expected
none, raises ``InternalClientError`` and closes the connection itself; until 2026-12-05 the slot of such a
connection stayed lent for good (``bot/store/postgres.py``: ``PostgresBackend._give_back``), and after enough drops
every call of the process waited for a connection that never came. On a busy process that moment is luck; here a
proxy in front of the server passes every byte on at once but holds each connection's end until the test lets it go,
which makes the moment sure. The same drops mid-statement and with the end passed on at once are checked beside it.
"""

from __future__ import annotations

import asyncio

import asyncpg
import pytest

from bot.store import SeatSpec, Store
from bot.store.failures import failure_kind
from tests.bot.test_cluster import SilentProxy


class LingeringProxy(SilentProxy):
    """Passes everything through at once; a connection the server closes stays open towards the store until
    :meth:`let_go` when ``linger`` (a network whose end of a connection arrives after its last message)."""

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.linger = False
        self.ended = 0  # connections whose server side closed, everything it sent passed on
        self.held: list[asyncio.StreamWriter] = []

    async def _client(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        ur, uw = await asyncio.open_unix_connection(self.target)

        async def to_server() -> None:
            while data := await r.read(65536):
                if not uw.is_closing():
                    uw.write(data)
            uw.close()

        async def to_store() -> None:
            while data := await ur.read(65536):
                w.write(data)
                await w.drain()
            self.ended += 1
            if self.linger:
                self.held.append(w)
            else:
                w.close()

        await asyncio.gather(to_server(), to_store(), return_exceptions=True)

    def let_go(self) -> None:
        for w in self.held:
            w.close()
        self.held.clear()


async def _active(killer: asyncpg.Connection, pid: int) -> None:
    """Until the server runs a statement of ``pid`` (the server's own state: no deadline)."""
    while await killer.fetchval("SELECT state FROM pg_stat_activity WHERE pid = $1", pid) != "active":
        await asyncio.sleep(0.01)


async def _drop(store: Store, killer: asyncpg.Connection, proxy: LingeringProxy, mid_statement: bool
                ) -> BaseException | None:
    """One transaction of the store whose connection the server ends, while a statement of it runs
    (``mid_statement``) or between two of its statements; what the transaction raised."""
    try:
        async with store.backend.lend() as conn:
            await conn.begin(write=False, durable=False)
            await conn.all("SELECT 1")
            raw = conn.raw  # type: ignore[attr-defined]  # (the PostgreSQL backend's own connection: not wrapped)
            pid, ended = raw.get_server_pid(), proxy.ended
            if mid_statement:
                running = asyncio.ensure_future(conn.all("SELECT pg_sleep(60)"))
                await asyncio.wait_for(_active(killer, pid), 60)
                await killer.execute("SELECT pg_terminate_backend($1)", pid)
                await running
            else:
                await killer.execute("SELECT pg_terminate_backend($1)", pid)
                while proxy.ended == ended:  # the server's last message is in the store's socket now
                    await asyncio.sleep(0.01)
                for _ in range(3):  # (the event loop hands it to asyncpg: a turn of the loop, no waiting)
                    await asyncio.sleep(0)
                second = asyncio.ensure_future(conn.all("SELECT 2"))
                for _ in range(3):
                    await asyncio.sleep(0)
                proxy.let_go()  # the socket's end arrives, later than the server's last message
                await second
    except Exception as e:  # noqa: BLE001 - what it is, is the test's question
        return e
    finally:
        proxy.let_go()
    return None


@pytest.mark.parametrize("mid_statement, linger", [(False, True), (False, False), (True, False)],
                         ids=["between-statements-end-late", "between-statements", "mid-statement"])
async def test_connections_the_server_ends_give_their_pool_slots_back(pg_url, mid_statement, linger):
    size = 3
    proxy = LingeringProxy(pg_url)
    await proxy.start()
    store = await Store.open(proxy.url, pool=size, timeout=5.0)
    proxy.linger = linger  # (from now on: the store's own opening closed a connection of its own)
    killer = await asyncpg.connect(pg_url)  # (beside the proxy)
    try:
        seats = [SeatSpec.human(1000 + i, f"p{i}") for i in range(4)]
        match = await store.start_match(1 << 22, 100, "hefei", {}, "s", seats)
        for _ in range(2 * size):  # twice as many drops as the pool has slots
            error = await _drop(store, killer, proxy, mid_statement)
            # the transaction fails as the database's failure (the callers retry it), never as a bug
            assert error is not None and failure_kind(error) == "unavailable", repr(error)
        # every slot is free again, and usable: all lent at once, each running a statement; a write goes through
        assert store.backend.pool._queue.qsize() == size
        together = asyncio.Barrier(size)

        async def one() -> int:
            async with store.backend.lend() as conn:
                await together.wait()
                return int((await conn.one("SELECT 1", ()))[0])

        assert await asyncio.wait_for(asyncio.gather(*(one() for _ in range(size))), 60) == [1] * size
        hand = await store.start_hand(match, 0, "h")
        await store.record_action(match, 0, {"type": "x"}, hand_id=hand)
        assert len(await store.actions(match)) == 1
    finally:
        proxy.linger = False
        proxy.let_go()
        await killer.close()
        await store.close()
        await proxy.close()
