"""Choosing the database with ``MJBOT_DB``, and what only PostgreSQL has: its own migrations, opening and
``mjbot check`` on a URL. (The store's behaviour on PostgreSQL is the rest of the store's tests, which run on both
backends: test_store.py, test_store_records.py, test_store_crash.py, tests/cogs/test_table_faults.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from bot.store import Store, StoreError
from bot.store.migrate import load_migrations
from bot.store.paths import parse_target
from bot.store.postgres import PG_MIGRATIONS_DIR
from tests.bot.test_cli import check, fake_token, owner_env  # noqa: F401  (a fixture)

LATEST = len(load_migrations())


def test_postgresql_has_every_migration_of_sqlite_under_the_same_name():
    assert [m.name for m in load_migrations(PG_MIGRATIONS_DIR)] == [m.name for m in load_migrations()]


def test_mjbot_db_names_a_file_a_sqlite_url_or_a_postgresql_url(tmp_path: Path):
    assert parse_target(str(tmp_path / "x.db")) == ("sqlite", tmp_path / "x.db")
    assert parse_target(f"sqlite:///{tmp_path}/x.db") == ("sqlite", tmp_path / "x.db")
    assert parse_target("postgres://u@h/db") == ("postgresql", "postgres://u@h/db")


async def test_an_unknown_url_scheme_is_refused_and_makes_nothing(tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(StoreError) as e:
        await Store.open("mysql://root@localhost/mjbot")
    assert e.value.code == "db_bad_url" and "mysql" in e.value.message("en")
    assert list(tmp_path.iterdir()) == []


def test_check_on_a_postgresql_url_without_a_server_fails_in_one_line_and_makes_no_folder(
        capsys, owner_env, tmp_path):  # noqa: F811
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    owner_env.setenv("MJBOT_DB", f"postgresql://mjbot@/mjbot?host={tmp_path / 'nothing-here'}")
    code, lines, out = check(capsys)
    assert code == 2 and lines["database"].startswith("✗") and "PostgreSQL" in lines["database"]
    assert "Traceback" not in out and not (tmp_path / "postgresql:").exists()
    owner_env.setenv("MJBOT_DB", "mysql://root@localhost/mjbot")
    code, lines, out = check(capsys)
    assert code == 2 and lines["database"].startswith("✗") and "unknown kind of database" in lines["database"]
    assert not (tmp_path / "mysql:").exists()


def test_check_passes_on_a_postgresql_database(capsys, owner_env, pg_database):  # noqa: F811
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    owner_env.setenv("MJBOT_DB", pg_database(empty=True))
    code, lines, out = check(capsys)
    assert lines["database"].startswith("✓"), out
    assert f"schema version {LATEST}" in lines["database"]


async def test_an_empty_postgresql_database_is_migrated_and_a_newer_one_refused(pg_database):
    url = pg_database(empty=True)

    store = await Store.open(url)
    assert store.schema_version == LATEST and store.dialect == "postgresql"
    await store.close()
    store = await Store.open(url)  # again: nothing to do
    assert store.schema_version == LATEST
    async with store.transaction() as conn:
        await conn.execute("UPDATE schema_version SET version = ?", (LATEST + 1,))
    await store.close()
    with pytest.raises(StoreError) as e:
        await Store.open(url)
    assert e.value.code == "schema_too_new" and "postgresql://" in e.value.message("en")


async def test_a_connection_the_server_drops_fails_one_call_and_the_next_connects_again(pg_database):
    """A restart or fail-over of the server: the call in flight fails as a database failure the player is told to
    retry (nothing half-written), and the store connects again at its next transaction."""
    from bot.store.failures import failure_kind
    from tests.harness.db import connect

    url = pg_database()

    store = await Store.open(url)
    try:
        await store.upsert_player(1, "before")
        async with store.transaction(write=False) as conn:
            pid = (await conn.one("SELECT pg_backend_pid()"))[0]
        with connect("postgresql://postgres@/postgres?" + url.split("?")[1]) as admin:
            assert admin.execute("SELECT pg_terminate_backend(?)", (pid,)).fetchone() == (True,)
        with pytest.raises(Exception) as e:
            await store.upsert_player(1, "lost")
        assert failure_kind(e.value) == "unavailable"
        await store.upsert_player(1, "after")
        assert await store.display_name(1) == "after"
    finally:
        await store.close()


# ---------------------------------------------------------------------------------------------- the pool


class Held:
    """Wraps every connection the store lends: a statement containing ``text`` (and, if given, with ``param`` among
    its parameters) waits, in the middle of its transaction, until :meth:`release`. ``entered`` counts the waiting
    ones; ``pids`` are their server processes."""

    def __init__(self, text: str, param: object = None) -> None:
        self.text, self.param = text, param
        self.waiting = 0
        self.arrived = asyncio.Event()
        self.go = asyncio.Event()
        self.pids: list[int] = []

    def over(self, conn):
        held = self

        class View:
            def __getattr__(self, name):
                return getattr(conn, name)

            async def execute(self, sql, params=()):
                if held.text in sql and (held.param is None or held.param in params):
                    held.pids.append((await conn.one("SELECT pg_backend_pid()"))[0])
                    held.waiting += 1
                    held.arrived.set()
                    await held.go.wait()
                return await conn.execute(sql, params)

        return View()

    async def until(self, n: int) -> None:
        while self.waiting < n:
            self.arrived.clear()
            await self.arrived.wait()



async def _match(store: Store, guild: int) -> int:
    from bot.store import SeatSpec

    seats = [SeatSpec.human(guild * 10 + s, f"p{s}") for s in range(4)]
    return await store.start_match(guild, guild, "hefei", {}, 7, seats)


async def test_two_tables_write_at_once_one_never_waits_for_the_others_transaction(pg_url: str):
    """One table's action is held in the middle of its transaction (after its checks, before its insert); another
    table's action, settlement and next hand are written and read back meanwhile. Then the first completes too."""
    from bot.store import LedgerRow

    store = await Store.open(pg_url, pool=4)
    try:
        first, second = await _match(store, 1), await _match(store, 2)
        h1 = await store.start_hand(first, 0, "7#0", None)
        h2 = await store.start_hand(second, 0, "7#0", None)
        held = Held("INSERT INTO actions", first)
        store.backend.wrap = held.over
        slow = asyncio.ensure_future(store.record_action(first, 0, {"type": "pass", "seat": 0}, hand_id=h1))
        await held.until(1)

        async def other_table() -> None:
            assert await store.record_action(second, 0, {"type": "pass", "seat": 1}, hand_id=h2)
            assert await store.finish_hand(h2, [LedgerRow(s, a) for s, a in enumerate([3, -1, -1, -1])])
            assert await store.start_hand(second, 1, "7#1", None)
            assert [a.seq for a in await store.actions(second)] == [0]

        await asyncio.wait_for(other_table(), 120)  # (only so that a store serialising them fails, not hangs)
        assert await store.actions(first) == [] and not slow.done()  # still open: nothing of it is seen
        held.go.set()
        assert await slow is True
        assert [a.seq for a in await store.actions(first)] == [0]
    finally:
        await store.close()


async def test_the_pool_has_the_configured_size_and_writes_collide_safely(pg_url: str):
    """``pool`` connections at most; many writes to the same rows at once (a server's settings, one match's next
    action) end as if they ran one after the other: every change kept, one action per seq."""
    store = await Store.open(pg_url, pool=3)
    try:
        assert store.backend.concurrency == 3
        rules = [{"wuhu": {"di_per_match": 2}}, {"hefei": {"quan_per_match": 1}}]
        await asyncio.gather(*(store.set_house_rules(5, 1, v, r[v]) for r in rules for v in r))
        assert (await store.guild_settings(5)).house_rules == {"wuhu": {"di_per_match": 2},
                                                                "hefei": {"quan_per_match": 1}}
        mid = await _match(store, 6)
        outs = await asyncio.gather(*(store.record_action(mid, 0, {"type": "pass", "seat": s}) for s in range(4)),
                                    return_exceptions=True)
        assert outs.count(True) == 1 and all(isinstance(o, StoreError) for o in outs if o is not True)
    finally:
        await store.close()


async def test_connections_the_server_drops_fail_the_calls_in_flight_and_the_pool_connects_again(pg_url: str):
    """Two tables' writes are in flight on two connections of the pool when the server drops both (a restart): both
    calls fail as "storage unavailable" with nothing written, and the next writes of both tables go through."""
    from bot.store.failures import failure_kind
    from tests.harness.db import connect

    store = await Store.open(pg_url, pool=4)
    try:
        first, second = await _match(store, 1), await _match(store, 2)
        held = Held("INSERT INTO actions")
        store.backend.wrap = held.over
        calls = [asyncio.ensure_future(store.record_action(m, 0, {"type": "pass", "seat": 0})) for m in (first, second)]
        await held.until(2)
        assert len(set(held.pids)) == 2  # two connections at once
        with connect("postgresql://postgres@/postgres?" + pg_url.split("?")[1]) as admin:
            for pid in held.pids:
                assert admin.execute("SELECT pg_terminate_backend(?)", (pid,)).fetchone() == (True,)
        held.go.set()
        for out in await asyncio.gather(*calls, return_exceptions=True):
            assert isinstance(out, Exception) and failure_kind(out) == "unavailable"
        store.backend.wrap = None
        assert await store.actions(first) == [] and await store.actions(second) == []
        assert await asyncio.gather(*(store.record_action(m, 0, {"type": "pass", "seat": 1}) for m in (first, second)))
        assert [len(await store.actions(m)) for m in (first, second)] == [1, 1]
    finally:
        await store.close()


def test_the_pool_size_comes_from_mjbot_db_pool_and_a_bad_one_is_refused_in_one_line():
    from bot.config import Config, ConfigError

    assert Config.from_env({"MJBOT_DB_POOL": "4"}, dotenv=False).db_pool == 4
    assert Config.from_env({}, dotenv=False).db_pool is None
    for bad in ("0", "-1", "ten", "2.5"):
        with pytest.raises(ConfigError) as e:
            Config.from_env({"MJBOT_DB_POOL": bad}, dotenv=False)
        assert "MJBOT_DB_POOL" in str(e.value) and bad in str(e.value)


async def test_0009_on_a_postgresql_database_at_version_8_gives_its_servers_the_normal_ai_difficulty(
        pg_database):
    """Issue 19 on PostgreSQL: a server's row written at version 8 reads ``normal`` after the upgrade, keeps its
    other settings and takes the new setting (audited)."""
    import asyncpg

    from bot.store.postgres import migrate_pg
    from tests.bot.test_store_migrations import V8_SERVER, check_the_v8_server_after_0009

    url = pg_database(empty=True)

    raw = await asyncpg.connect(url)
    try:
        assert await migrate_pg(raw, load_migrations(PG_MIGRATIONS_DIR), url, upto=8) == 8
        await raw.execute(V8_SERVER)
    finally:
        await raw.close()
    store = await Store.open(url)
    try:
        assert store.schema_version == LATEST
        await check_the_v8_server_after_0009(store)
    finally:
        await store.close()


async def test_0010_on_a_postgresql_database_at_version_9_forgets_the_messages_of_matches_already_over(
        pg_database):
    """0010 on PostgreSQL: the matches over before it have their listed messages forgotten, an active one keeps
    its list."""
    import asyncpg

    from bot.store.postgres import migrate_pg
    from tests.bot.test_store_migrations import V9_MATCHES, check_the_v9_matches_after_0010

    url = pg_database(empty=True)
    raw = await asyncpg.connect(url)
    try:
        assert await migrate_pg(raw, load_migrations(PG_MIGRATIONS_DIR), url, upto=9) == 9
        for statement in V9_MATCHES:
            await raw.execute(statement)
    finally:
        await raw.close()
    store = await Store.open(url)
    try:
        assert store.schema_version == LATEST
        await check_the_v9_matches_after_0010(store)
    finally:
        await store.close()


async def _upgraded_from(pg_database, version: int, statements, check) -> None:
    """A PostgreSQL database migrated up to ``version`` and filled by ``statements`` (as an older bot left it), then
    opened by the store (every later migration runs): ``check(store)`` says what the migrations kept."""
    import asyncpg

    from bot.store.postgres import migrate_pg

    url = pg_database(empty=True)
    raw = await asyncpg.connect(url)
    try:
        assert await migrate_pg(raw, load_migrations(PG_MIGRATIONS_DIR), url, upto=version) == version
        for statement in statements:
            await raw.execute(statement)
    finally:
        await raw.close()
    store = await Store.open(url)
    try:
        assert store.schema_version == LATEST
        await check(store)
    finally:
        await store.close()


async def test_0011_on_a_postgresql_database_at_version_10_keeps_what_was_posted(pg_database):
    """0011 on PostgreSQL: a final board or a week noted before it stays posted; the rest is claimed afresh."""
    from tests.bot.test_store_migrations import V10_GROUP, check_the_v10_group_after_0011

    await _upgraded_from(pg_database, 10, V10_GROUP, check_the_v10_group_after_0011)


async def test_0013_on_a_postgresql_database_at_version_11_keeps_one_active_match_per_channel(pg_database):
    """0013 on PostgreSQL: of two active matches in one channel the newest stays, the older is aborted; the channel
    takes no second match again."""
    from tests.bot.test_store_migrations import V11_MATCHES, check_the_v11_matches_after_0013

    await _upgraded_from(pg_database, 11, V11_MATCHES, check_the_v11_matches_after_0013)


async def test_0015_on_a_postgresql_database_at_version_13_seats_the_players_of_the_active_matches(pg_database):
    """0015 on PostgreSQL: the players of the matches in play are seated (one row each, the newest match first)."""
    from tests.bot.test_store_migrations import V13_MATCHES, check_the_v13_seats_after_0015

    await _upgraded_from(pg_database, 13, V13_MATCHES, check_the_v13_seats_after_0015)


async def test_two_processes_seating_one_player_at_once_seat_them_once(pg_url):
    """Two processes (two stores on one database) seat one player at two lobbies at the same moment: the second
    write waits for the first's transaction on the player's row and, once it commits, is refused
    (``seated_elsewhere``, naming the first lobby's channel); nothing of the second lobby is written."""
    import asyncpg

    from bot.store.lobbies import lobbies, save_lobby, write_lobby

    a, b = await Store.open(pg_url), await Store.open(pg_url)
    watch = await asyncpg.connect(pg_url)
    try:
        async with a.transaction() as conn:
            await write_lobby(conn, 5, 61, {"host": 11}, players=[11])
            second = asyncio.get_running_loop().create_task(save_lobby(b, 5, 62, {"host": 11}, players=[11]))
            for _ in range(3000):  # until the second write waits on the first's lock (a broken store never does)
                if second.done() or await watch.fetchval(
                        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                        "AND datname = current_database()"):
                    break
                await asyncio.sleep(0.01)
            assert not second.done()
        with pytest.raises(StoreError) as e:
            await second
        assert (e.value.code, e.value.params) == ("seated_elsewhere", {"channel": 61, "user": 11})
        assert [c for _, c, _ in await lobbies(a)] == [61]
    finally:
        await watch.close()
        await a.close()
        await b.close()
