"""``mjbot db copy``: a database with every kind of row copied SQLite -> PostgreSQL -> SQLite comes back identical,
verified; a destination with data is refused unless forced; a table still in play resumes from the copy."""

from __future__ import annotations

import random
import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest

from bot.cli import main
from bot.store import Store, StoreError, group, resume_all
from bot.store import lobbies as lstore
from bot.store import records as rstore
from bot.store.copy import TABLES, copy_database
from bot.store.tables import TableRecorder, rebuild_table
from tests.bot.test_store import SEATS, T0, play
from tests.harness.db import dump_target


async def fill(path: Path) -> dict[int, str]:
    """Finished and unfinished matches of three variants, corrections, a record, a lobby, a vote, settings and
    seasons; the unfinished tables' state hashes."""
    rng = random.Random(5)
    store = await Store.open(path)
    live = {}
    try:
        for i, variant in enumerate(("wuhu", "hefei", "chizhou", "wuhu")):
            rec = await TableRecorder.start(store, guild_id=5, channel_id=i, variant=variant, seed=40 + i,
                                            settings={}, seats=SEATS, at=T0)
            await play(rec, 400 if i < 3 else 60, rng, T0 + timedelta(hours=i))
            if not rec.over:
                live[rec.match_id] = rec.table.state_hash()
        await store.update_guild_settings(5, 11, {"turn_seconds": 90, "allowed_channels": [1, 2]}, at=T0)
        await store.set_house_rules(5, 11, "hefei", {"quan_per_match": 1}, at=T0)
        await group.set_timezone(store, 5, 11, "Europe/Paris", at=T0)
        await group.start_season(store, 5, 11, "Spring", ends_at=None, channel_id=1, at=T0)
        hand = (await group.recent_hands(store, 5, 1))[0]
        await group.void_hand(store, 5, 11, hand.hand_id, "misclick", at=T0 + timedelta(days=1))
        await group.adjust(store, 5, 11, 12, 13, 7, "wuhu", "side bet", at=T0 + timedelta(days=1))
        rec = await rstore.propose(store, guild_id=5, channel_id=1, proposer_id=11, hand_text="x", variant="hefei",
                                   rules={}, situation={"winner": 0, "discarder": 1}, hand_value=8, lang="en",
                                   seats=[rstore.SeatProposal(11, "Ann", 8), rstore.SeatProposal(12, "Bo", -8),
                                          rstore.SeatProposal(13, "Cy", 0), rstore.SeatProposal(14, "Di", 0)],
                                   at=T0)
        await rstore.confirm(store, 5, rec.record_id, 12, manager=False, at=T0)
        await lstore.save_lobby(store, 5, 77, {"host": 11, "seats": [11, None, None, None]}, at=T0)
        await lstore.save_vote(store, next(iter(live)), 1, {"yes": [11], "deadline": 5})
    finally:
        await store.close()
    return live


async def test_a_database_copied_to_postgresql_and_back_is_the_same_and_resumes(tmp_path: Path, pg_database):
    src, back = tmp_path / "src.db", tmp_path / "back.db"
    live = await fill(src)
    url = pg_database(empty=True)
    there = await copy_database(src, url)
    assert there.ok, there.lines()
    assert there.rows["ledger"] > 0 and there.rows["actions"] > 0 and set(there.rows) == set(TABLES)
    assert there.matches_replayed == 4 and there.servers == 1 and not there.stale_in_source
    # the copy plays on: every unfinished table resumes to its hash on PostgreSQL, and new ids do not collide
    store = await Store.open(url)
    try:
        report = await resume_all(store, rebuild_table, at=T0)
        assert {r.game.match_id: r.table.state_hash() for r in report.resumed} == live and not report.aborted
        r = report.resumed[0]
        rec = await TableRecorder.resume(store, r.game, r.table, at=T0)
        await play(rec, 30, random.Random(1))
        mid = await store.start_match(5, 9, "hefei", {}, 1, SEATS, at=T0)
        assert mid > max(live)
    finally:
        await store.close()
    more = await copy_database(url, back)
    assert more.ok, more.lines()
    await copy_database(src, url, force=True)  # the copy as it was taken, to compare with the source
    await copy_database(url, back, force=True)
    assert sorted(dump_target(back)) == sorted(dump_target(src))  # the same rows (in another rowid order)


async def test_a_destination_with_data_is_refused_unless_forced(tmp_path: Path):
    src, dst = tmp_path / "a.db", tmp_path / "b.db"
    await fill(src)
    store = await Store.open(dst)
    await store.upsert_player(1, "someone")
    await store.close()
    before = dump_target(dst)
    with pytest.raises(StoreError) as e:
        await copy_database(src, dst)
    assert e.value.code == "copy_not_empty" and "players" in e.value.message("en")
    assert dump_target(dst) == before
    assert (await copy_database(src, dst, force=True)).ok
    assert sorted(dump_target(dst)) == sorted(dump_target(src))


def test_the_cli_copies_and_says_so(tmp_path: Path, capsys):
    import asyncio

    src, dst = tmp_path / "a.db", tmp_path / "b.db"
    asyncio.run(fill(src))
    assert main(["db", "copy", str(src), f"sqlite:///{dst}"]) == 0
    out = capsys.readouterr().out
    assert "✓ row counts equal" in out and "✓ ledger sums of 1 servers equal" in out and "matches rebuilt" in out
    assert main(["db", "copy", str(src), str(dst)]) == 2
    err = capsys.readouterr().err
    assert "already holds data" in err and len(err.strip().splitlines()) == 1


def test_a_source_that_does_not_exist_is_refused_and_not_created(tmp_path: Path, capsys):
    """A mistyped source path made an empty database there and reported a verified copy of 0 rows (exit 0): the
    docs' move to PostgreSQL would have filled the new database with nothing."""
    missing, dst = tmp_path / "typo.sqlite3", tmp_path / "b.db"
    assert main(["db", "copy", str(missing), str(dst)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("mjbot: the source (first path): There is no database at") and str(missing) in err
    assert len(err.strip().splitlines()) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == []  # neither end created
    (tmp_path / "folder").mkdir()
    assert main(["db", "copy", str(tmp_path / "folder"), str(dst)]) == 2
    assert capsys.readouterr().err.startswith("mjbot: the source (first path): The database path")
    (tmp_path / "notes.txt").write_text("not a database " * 100)
    assert main(["db", "copy", str(tmp_path / "notes.txt"), str(dst)]) == 2
    assert "the source (first path):" in capsys.readouterr().err and not dst.exists()


def test_the_source_file_stays_as_it_was(tmp_path: Path, capsys):
    """docs/deploy.md: "The SQLite file stays as it was: keep it until the new set-up has run for a while". The copy
    opened it as the bot does: a source at an older schema was migrated in place (the previous mjbot could no
    longer open its own fallback), and even a current one had its bytes rewritten by the probe."""
    import asyncio
    import hashlib

    from bot.store.migrate import load_migrations
    from tests.bot.test_store_migrations import at_version, seed_for, user_version

    old, dst = tmp_path / "old.db", tmp_path / "new.db"
    asyncio.run(at_version(old, 5))
    seed_for(5)(old)
    before = hashlib.sha256(old.read_bytes()).hexdigest()
    assert main(["db", "copy", str(old), str(dst)]) == 0, capsys.readouterr()
    assert "✓ row counts equal" in capsys.readouterr().out
    assert hashlib.sha256(old.read_bytes()).hexdigest() == before and user_version(old) == 5
    assert user_version(dst) == len(load_migrations())
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("old")) == ["old.db"]  # no -wal, -shm
    with sqlite3.connect(old) as a, sqlite3.connect(dst) as b:  # the rows of version 5's tables, all there
        for (table,) in a.execute("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"):
            if table in TABLES:
                assert a.execute(f"SELECT COUNT(*) FROM {table}").fetchone() == b.execute(
                    f"SELECT COUNT(*) FROM {table}").fetchone(), table


async def test_routed_clicks_are_neither_copied_nor_counted(tmp_path: Path, pg_database):
    """A PostgreSQL database of a sharded bot holds clicks routed between its processes (docs/sharding.md): the
    copy to SQLite leaves them out, verifies, and the copy's destination's own are emptied."""
    src, back = tmp_path / "src.db", tmp_path / "back.db"
    await fill(src)
    url = pg_database(empty=True)
    assert (await copy_database(src, url)).ok
    store = await Store.open(url)
    try:
        async with store.transaction() as conn:
            for i, state in enumerate(("queued", "taken", "dropped")):
                await conn.execute(
                    "INSERT INTO routed_clicks (interaction_id, shard_count, shard, match_id, payload, state, "
                    "queued_at) VALUES (?, 2, 1, 1, '{}', ?, 0)", (900 + i, state))
    finally:
        await store.close()
    report = await copy_database(url, back)
    assert report.ok, report.lines()
    assert "routed_clicks" not in report.rows
    assert sql_count(back, "routed_clicks") == 0
    # and back onto a database with routed rows: forced, they are emptied too
    again = await copy_database(back, url, force=True)
    assert again.ok, again.lines()
    store = await Store.open(url)
    try:
        async with store.transaction(write=False) as conn:
            assert (await conn.one("SELECT COUNT(*) FROM routed_clicks", ()))[0] == 0
    finally:
        await store.close()


def sql_count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


class _Writers:
    """Four tables of a live bot writing to ``store``: :meth:`moves` plays a few moves on each (a match that ends
    is followed by a new one in its channel)."""

    def __init__(self, store: Store) -> None:
        self.store, self.rng, self.recs, self.made = store, random.Random(9), {}, 0

    async def moves(self, n: int = 3) -> None:
        from tests.bot.simple_player import next_action

        for ch in range(4):
            rec = self.recs.get(ch)
            if rec is None or rec.over:
                rec = self.recs[ch] = await TableRecorder.start(
                    self.store, guild_id=1 + ch, channel_id=100 + ch, variant=("hefei", "wuhu")[ch % 2],
                    seed=f"live{ch}-{self.made}", settings={}, seats=SEATS, at=T0)
            for _ in range(n):
                if rec.over:
                    break
                await rec.apply(next_action(rec.table, self.rng), T0)
                self.made += 1


async def test_a_backup_of_a_postgresql_database_taken_while_the_bot_plays_is_one_moment(pg_database, tmp_path,
                                                                                         monkeypatch):
    """`mjbot db copy postgresql://... backup.sqlite3` while the bot plays: moves, settlements and new hands written
    between every page the copy reads. Each table and page used to be read in a transaction of its own, so the copy
    held actions and ledger rows of hands it had not copied (a FOREIGN KEY or UNIQUE error: a traceback, no backup)
    or counts that differed. Now the whole source is read in one snapshot: the backup is verified and is the
    database as it was at one moment (restored, its tables resume)."""
    import bot.store.copy as copy_mod

    monkeypatch.setattr(copy_mod, "BATCH", 40)  # many pages, with writes between them
    url = pg_database()
    live = await Store.open(url)
    writers = _Writers(live)
    try:
        for _ in range(25):
            await writers.moves()
        before = writers.made
        pages = []

        async def meanwhile(table: str, rows: int) -> None:
            pages.append(table)
            await writers.moves()

        report = await copy_database(url, tmp_path / "backup.sqlite3", progress=meanwhile)
        assert report.ok, report.lines()
        assert writers.made > before and len(pages) > 10
        assert {"hands", "actions", "ledger"} <= set(pages)
        backup = await Store.open(tmp_path / "backup.sqlite3")
        try:
            resumed = await resume_all(backup, rebuild_table)
            assert resumed.resumed and not resumed.aborted
            assert len(await backup.actions(writers.recs[0].match_id)) < len(await live.actions(
                writers.recs[0].match_id))  # the moment of the snapshot, not the end of the copy
        finally:
            await backup.close()
    finally:
        await live.close()


async def test_a_copy_whose_source_connection_drops_says_so_in_one_line_and_leaves_the_destination(
        pg_database, tmp_path, capsys):
    """The source's connection ends in the middle of the copy (a restart, an administrator ending it): the copy
    fails as a `StoreError` (`mjbot db copy` prints it in one line, exit 2), never a traceback, and the destination's
    transaction is rolled back."""
    import asyncpg

    url = pg_database()
    live = await Store.open(url)
    try:
        writers = _Writers(live)
        for _ in range(5):
            await writers.moves()
    finally:
        await live.close()
    dst = tmp_path / "backup.sqlite3"

    async def cut(table: str, rows: int) -> None:
        raw = await asyncpg.connect(url)
        try:
            await raw.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = "
                              "current_database() AND pid <> pg_backend_pid() AND state = 'idle in transaction'")
        finally:
            await raw.close()

    with pytest.raises(StoreError) as err:
        await copy_database(url, dst, progress=cut)
    assert err.value.code == "copy_failed" and "\n" not in err.value.message("en")
    assert "left as it was" in err.value.message("en")
    with sqlite3.connect(dst) as db:
        assert [db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in TABLES] == [0] * len(TABLES)
