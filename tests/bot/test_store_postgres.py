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


def test_check_passes_on_a_postgresql_database(capsys, owner_env, pg_server):  # noqa: F811
    url = pg_server.create_database(empty=True)
    try:
        owner_env.setenv("DISCORD_TOKEN", fake_token())
        owner_env.setenv("MJBOT_DB", url)
        code, lines, out = check(capsys)
        assert lines["database"].startswith("✓"), out
        assert f"schema version {LATEST}" in lines["database"]
    finally:
        pg_server.drop_database(url)


def test_an_empty_postgresql_database_is_migrated_and_a_newer_one_refused(pg_server):
    url = pg_server.create_database(empty=True)

    async def scenario() -> None:
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

    try:
        asyncio.run(scenario())
    finally:
        pg_server.drop_database(url)


def test_a_connection_the_server_drops_fails_one_call_and_the_next_connects_again(pg_server):
    """A restart or fail-over of the server: the call in flight fails as a database failure the player is told to
    retry (nothing half-written), and the store connects again at its next transaction."""
    from bot.store.failures import failure_kind
    from tests.harness.db import connect

    url = pg_server.create_database()

    async def scenario() -> None:
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

    try:
        asyncio.run(scenario())
    finally:
        pg_server.drop_database(url)
