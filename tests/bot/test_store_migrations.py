"""Schema migrations: from an empty file and from every earlier version, atomic, refusing unknown versions.

The tests iterate over the migrations found in bot/migrations, so each new NNNN_*.sql is covered automatically:
a database at every earlier version, holding data written at that version, must upgrade to exactly the schema of
a fresh database and keep its data.
"""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from bot.store import LedgerRow, SeatSpec, Store, StoreError, dialect, group
from bot.store.migrate import MIGRATIONS_DIR, load_migrations, migrate
from bot.store.models import from_ms

MIGRATIONS = load_migrations()
LATEST = MIGRATIONS[-1].version


def schema(path: Path) -> list[tuple[str, str, str]]:
    db = sqlite3.connect(path)
    try:
        rows = db.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name"
        ).fetchall()
        return [(t, n, " ".join((s or "").split())) for t, n, s in rows]
    finally:
        db.close()


def user_version(path: Path) -> int:
    db = sqlite3.connect(path)
    try:
        return db.execute("PRAGMA user_version").fetchone()[0]
    finally:
        db.close()


async def at_version(path: Path, version: int) -> None:
    conn = await dialect.connect(str(path))
    try:
        assert await migrate(conn, MIGRATIONS, upto=version) == version
    finally:
        await conn.close()


async def upgraded_from(tmp_path: Path, version: int, statements: tuple[str, ...], check) -> None:
    """A SQLite database migrated up to ``version`` and filled by ``statements`` (as an older bot left it), then
    opened by the store (every later migration runs): ``check(store)`` says what the migrations kept."""
    path = tmp_path / f"v{version}.db"
    await at_version(path, version)
    db = sqlite3.connect(path)
    with db:
        for statement in statements:
            db.execute(statement)
    db.close()
    store = await Store.open(path)
    try:
        await check(store)
    finally:
        await store.close()


# Data a database could hold at each version, written with that version's own tables. A version without an entry
# gets the data of the nearest earlier one.
def seed_v1(path: Path) -> None:
    db = sqlite3.connect(path)
    with db:
        db.execute("INSERT INTO players VALUES (11, 'Ann', 1), (12, 'Bo', 1)")
        db.execute("INSERT INTO guild_settings (guild_id, house_rules, updated_at) VALUES (5, '{\"wuhu\":{}}', 1)")
        db.execute(
            "INSERT INTO matches (id, guild_id, channel_id, variant, settings, seed, status, started_at) "
            "VALUES (1, 5, 9, 'wuhu', '{}', '42', 'finished', 1000)"
        )
        db.executemany(
            "INSERT INTO match_seats (match_id, seat, player_id, ai, total, stack_total, jiao_total) "
            "VALUES (1, ?, ?, ?, ?, ?, ?)",
            [(0, 11, None, 40, 10, 30), (1, 12, None, -30, 0, -30), (2, None, "normal", -10, -10, 0),
             (3, None, "easy", 0, 0, 0)],
        )
        for hand, at, rows in (
            (1, 86_400_000 * 3 + 5, [(0, 30, 0, 30, 1, 0, 0, 30), (1, -30, 0, -30, 0, 0, 1, 0),
                                      (2, 0, 0, 0, 0, 0, 0, 0), (3, 0, 0, 0, 0, 0, 0, 0)]),
            (2, 86_400_000 * 4 + 5, [(0, 10, 10, 0, 1, 1, 0, 10), (1, 0, 0, 0, 0, 0, 0, 0),
                                      (2, -10, -10, 0, 0, 0, 0, 0), (3, 0, 0, 0, 0, 0, 0, 0)]),
        ):
            db.execute(
                "INSERT INTO hands (id, match_id, number, seed, status, started_at, ended_at) "
                "VALUES (?, 1, ?, 's', 'finished', ?, ?)",
                (hand, hand, at, at),
            )
            db.executemany(
                "INSERT INTO ledger (hand_id, seat, match_id, guild_id, variant, player_id, ai, amount, stack_amount, "
                "jiao_amount, won, self_draw, deal_in, drawn, hand_value, at) "
                "SELECT ?, ?, 1, 5, 'wuhu', player_id, ai, ?, ?, ?, ?, ?, ?, 0, ?, ? FROM match_seats "
                "WHERE match_id = 1 AND seat = ?",
                [(hand, s, a, st, j, w, sd, di, hv, at, s) for s, a, st, j, w, sd, di, hv in rows],
            )
        db.execute("INSERT INTO actions VALUES (1, 0, 1, '{\"type\":\"discard\"}', 'h', 1000)")
    db.close()


def seed_v2(path: Path) -> None:
    """Version 2 keeps leaderboard roll-ups beside the ledger: the v1 data with its roll-ups, as finish_hand writes
    them at that version."""
    seed_v1(path)
    db = sqlite3.connect(path)
    with db:
        for statement in ROLLUPS_V2:
            db.execute(statement)
    db.close()


ROLLUPS_V2 = (
    "INSERT INTO board_totals (guild_id, variant, player_id, hands, wins, self_draws, deal_ins, draws, biggest, net) "
    "SELECT guild_id, variant, player_id, COUNT(*), SUM(won), SUM(self_draw), SUM(deal_in), SUM(drawn), "
    "MAX(CASE WHEN won = 1 THEN hand_value ELSE 0 END), SUM(amount) FROM ledger WHERE player_id IS NOT NULL "
    "GROUP BY guild_id, variant, player_id",
    "INSERT INTO board_days (guild_id, variant, day, player_id, hands, wins, self_draws, deal_ins, draws, biggest, "
    "net) SELECT guild_id, variant, at / 86400000, player_id, COUNT(*), SUM(won), SUM(self_draw), SUM(deal_in), "
    "SUM(drawn), MAX(CASE WHEN won = 1 THEN hand_value ELSE 0 END), SUM(amount) FROM ledger "
    "WHERE player_id IS NOT NULL GROUP BY guild_id, variant, at / 86400000, player_id",
)

SEEDS = {1: seed_v1, 2: seed_v2}


def seed_for(version: int):
    for v in range(version, 0, -1):
        if v in SEEDS:
            return SEEDS[v]
    return None


async def test_fresh_database_gets_every_migration(tmp_path: Path) -> None:
    path = tmp_path / "new" / "folder" / "mj.db"
    store = await Store.open(path)
    await store.close()
    assert path.exists()
    assert user_version(path) == LATEST
    names = {n for t, n, _ in schema(path) if t == "table"}
    assert {"guild_settings", "settings_audit", "players", "matches", "match_seats", "hands", "actions",
            "ledger"} <= names
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    db.close()


@pytest.mark.parametrize("start", range(0, LATEST))
async def test_upgrade_from_every_earlier_version(tmp_path: Path, start: int) -> None:
    fresh = tmp_path / "fresh.db"
    await (await Store.open(fresh)).close()

    old = tmp_path / "old.db"
    await at_version(old, start)
    assert user_version(old) == start
    seed = seed_for(start)
    if seed is not None:
        seed(old)
    store = await Store.open(old)
    try:
        assert store.schema_version == LATEST
        assert schema(old) == schema(fresh)
        if seed is not None:
            # the data written at the old version is still there and reads through today's store
            m = await store.match(1)
            assert [s.total for s in m.seats] == [40, -30, -10, 0]
            assert sum(s.total for s in m.seats) == 0
            assert (await store.guild_settings(5)).house_rules == {"wuhu": {}}
            board = await group.board(store, 5, "wuhu")
            assert [(r.player_id, r.hands, r.wins, r.self_draws, r.deal_ins, r.biggest_hand, r.net) for r in board] == [
                (11, 2, 2, 1, 0, 30, 40), (12, 2, 0, 0, 1, 0, -30)
            ]
            day4 = await group.board(store, 5, "wuhu", since=from_ms(86_400_000 * 4))
            assert [(r.player_id, r.hands, r.net) for r in day4] == [(11, 1, 10), (12, 1, 0)]
        # and the upgraded database takes new writes
        mid = await store.start_match(5, 9, "hefei", {}, 1, [SeatSpec.bot()] * 4)
        hid = await store.start_hand(mid, 0, "1#0")
        await store.finish_hand(hid, [LedgerRow(s, 0, drawn=True) for s in range(4)])
    finally:
        await store.close()


async def test_failed_migration_leaves_the_previous_version(tmp_path: Path) -> None:
    mig = tmp_path / "migrations"
    shutil.copytree(MIGRATIONS_DIR, mig)
    bad = f"{LATEST + 1:04d}_broken.sql"
    (mig / bad).write_text("CREATE TABLE half_done (x INTEGER);\nINSERT INTO no_such_table VALUES (1);\n")
    path = tmp_path / "mj.db"
    await (await Store.open(path)).close()
    with pytest.raises(StoreError) as err:
        await Store.open(path, migrations_dir=mig)
    assert err.value.code == "migration_failed" and bad in str(err.value)
    assert user_version(path) == LATEST
    assert "half_done" not in {n for _, n, _ in schema(path)}
    # and the database still opens with the real migrations
    await (await Store.open(path)).close()


async def test_database_newer_than_the_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "mj.db"
    await (await Store.open(path)).close()
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA user_version = {LATEST + 1}")
    db.close()
    with pytest.raises(StoreError) as err:
        await Store.open(path)
    assert err.value.code == "schema_too_new"
    assert "更新" in err.value.message("zh") and "更新" in err.value.message("zh-TW")
    assert "Update the bot" in err.value.message("en-US")


def test_migration_numbers_must_not_have_gaps(tmp_path: Path) -> None:
    (tmp_path / "0001_a.sql").write_text("CREATE TABLE a (x INTEGER);")
    (tmp_path / "0003_c.sql").write_text("CREATE TABLE c (x INTEGER);")
    with pytest.raises(StoreError) as err:
        load_migrations(tmp_path)
    assert err.value.code == "migration_gap"
    (tmp_path / "0003_c.sql").rename(tmp_path / "3_c.sql")
    with pytest.raises(StoreError) as err:
        load_migrations(tmp_path)
    assert err.value.code == "bad_migration_name"


async def test_0009_gives_every_server_the_normal_ai_difficulty_and_keeps_its_settings(tmp_path: Path) -> None:
    """Issue 19: a server's row written at version 8 (no ``ai_difficulty`` yet) reads ``normal`` after the upgrade -
    what Add AI added before - keeps its other settings, and takes the new setting (audited)."""
    await upgraded_from(tmp_path, 8, (V8_SERVER,), check_the_v8_server_after_0009)


V8_SERVER = ("INSERT INTO guild_settings (guild_id, wuhu_mode, hints, language, updated_at) "
             "VALUES (5, 525, 0, 'en', 1)")
"""A server's row as version 8 wrote it (no ``ai_difficulty``): :func:`check_the_v8_server_after_0009` reads it."""


async def check_the_v8_server_after_0009(store: Store) -> None:
    """The server of :data:`V8_SERVER` after migration 0009 (SQLite or PostgreSQL): the normal AI difficulty, its
    other settings kept, and the new setting taken and audited."""
    s = await store.guild_settings(5)
    assert (s.ai_difficulty, s.wuhu_mode, s.hints, s.language) == ("normal", 525, False, "en")
    s = await store.update_guild_settings(5, 900, {"ai_difficulty": "strong"})
    assert (s.ai_difficulty, s.wuhu_mode) == ("strong", 525)
    [entry] = await store.settings_audit(5)
    assert (entry.field, entry.old_value, entry.new_value) == ("ai_difficulty", "normal", "strong")


async def test_0010_forgets_the_messages_of_matches_already_over(tmp_path: Path) -> None:
    """A match over before 0010 was closed by the bot that ended it: its listed messages are forgotten, so that the
    next start does not close it again; an active match keeps its list (its table resumes with it)."""
    await upgraded_from(tmp_path, 9, V9_MATCHES, check_the_v9_matches_after_0010)


V9_MATCHES = (
    "INSERT INTO matches (id, guild_id, channel_id, variant, settings, seed, status, started_at) VALUES "
    "(1, 5, 9, 'hefei', '{}', '1', 'finished', 1000), (2, 5, 9, 'hefei', '{}', '2', 'aborted', 2000), "
    "(3, 5, 8, 'hefei', '{}', '3', 'active', 3000)",
    "INSERT INTO match_meta (match_id, meta, messages) VALUES "
    "(1, '{\"lang\": \"en\"}', '{\"table\": [9, 100], \"dm\": {}}'), (2, '{}', '{\"table\": [9, 200], \"dm\": {}}'), "
    "(3, '{\"lang\": \"zh\"}', '{\"table\": [8, 300], \"dm\": {\"0\": [7, 301, 4]}}')",
)
"""Matches as version 9 left them: two over, one active, each with its messages listed."""


async def check_the_v9_matches_after_0010(store: Store) -> None:
    assert await store.match_meta(1) == ({"lang": "en"}, {})
    assert await store.match_meta(2) == ({}, {})
    assert await store.match_meta(3) == ({"lang": "zh"}, {"table": [8, 300], "dm": {"0": [7, 301, 4]}})
    assert [g.match_id for g in await store.games_left_open()] == []
    await store.set_match_messages(2, {"table": [9, 201], "dm": {}})  # (a match the bot stopped before closing)
    assert [g.match_id for g in await store.games_left_open()] == [2]


async def test_0011_keeps_what_was_posted_and_claims_the_rest_afresh(tmp_path: Path) -> None:
    """Before 0011 a final board or a week noted was one posted: it stays posted; a season not yet announced is
    claimed, noted as posted and never claimed again; a weekly report's claim is kept apart from the week posted."""
    await upgraded_from(tmp_path, 10, V10_GROUP, check_the_v10_group_after_0011)


V10_GROUP = (
    "INSERT INTO group_settings (guild_id, report_channel, report_weekday, last_report_week, updated_at) "
    "VALUES (5, 77, 0, 741000, 1)",
    "INSERT INTO seasons (id, guild_id, number, name, channel_id, started_at, ended_at, final_posted_at, created_by) "
    "VALUES (1, 5, 1, 'Spring', 9, 1000, 2000, 2500, 11), (2, 5, 2, 'Summer', 9, 2000, 3000, NULL, 11), "
    "(3, 5, 3, 'Autumn', 8, 3000, NULL, NULL, 11)",
)
"""A server as version 10 left it: a week reported, a season announced, one ended and not yet, one open."""


async def check_the_v10_group_after_0011(store: Store) -> None:
    from datetime import UTC, datetime

    gs = await group.group_settings(store, 5)
    assert (gs.last_report_week, gs.report_claim_week, gs.report_claimed_at) == (741000, None, None)
    [due] = await group.seasons_to_announce(store)
    assert (due.number, due.final_posted_at, due.final_claimed_at, due.final_channel) == (2, None, None, None)
    at = datetime(2030, 1, 1, tzinfo=UTC)
    claimed = await group.claim_final_board(store, 2, 9, at)
    assert claimed is not None and (claimed.final_claimed_at, claimed.final_channel) == (at, 9)
    assert await group.claim_final_board(store, 2, 8, at) is None  # in flight: nobody else claims it
    assert await group.claim_final_board(store, 1, 9, at) is None  # posted before the migration
    assert await group.mark_season_announced(store, 2, at)
    assert await group.seasons_to_announce(store) == []
    assert not await group.claim_report_week(store, 5, 741000, at)  # posted before the migration
    assert await group.claim_report_week(store, 5, 741007, at)
    gs = await group.group_settings(store, 5)
    assert (gs.last_report_week, gs.report_claim_week, gs.report_claimed_at) == (741000, 741007, at)
    await group.confirm_report_week(store, 5, 741007)
    gs = await group.group_settings(store, 5)
    assert (gs.last_report_week, gs.report_claim_week, gs.report_claimed_at) == (741007, None, None)


async def test_0013_keeps_the_newest_of_two_active_matches_in_a_channel(tmp_path: Path) -> None:
    """A lost answer to a match's start could leave two active matches in one channel before 0013 (the host pressed
    Start again), both resumed at every start. The newest stays (its channel showed it); the older one is aborted with
    its hand in play, its messages left for the next start to close, and the channel takes no second match again."""
    await upgraded_from(tmp_path, 11, V11_MATCHES, check_the_v11_matches_after_0013)


V11_MATCHES = (
    "INSERT INTO players VALUES (11, 'Ann', 1)",
    "INSERT INTO matches (id, guild_id, channel_id, variant, settings, seed, status, started_at) VALUES "
    "(1, 5, 9, 'hefei', '{}', '1', 'finished', 1000), (2, 5, 9, 'hefei', '{}', '2', 'active', 2000), "
    "(3, 5, 9, 'hefei', '{}', '3', 'active', 3000), (4, 5, 8, 'hefei', '{}', '4', 'active', 4000)",
    "INSERT INTO match_seats (match_id, seat, player_id, ai) VALUES "
    + ", ".join(f"({m}, 0, 11, NULL), ({m}, 1, NULL, 'normal'), ({m}, 2, NULL, 'normal'), ({m}, 3, NULL, 'normal')"
                for m in (1, 2, 3, 4)),
    "INSERT INTO hands (id, match_id, number, seed, status, started_at) VALUES "
    "(1, 2, 0, '2#0', 'active', 2000), (2, 3, 0, '3#0', 'active', 3000)",
    "INSERT INTO actions (match_id, seq, hand_id, action, at) VALUES (2, 0, 1, '{}', 2500), (3, 0, 2, '{}', 3500)",
    "INSERT INTO match_meta (match_id, meta, messages) VALUES (2, '{}', '{\"table\": [9, 200], \"dm\": {}}'), "
    "(3, '{}', '{\"table\": [9, 300], \"dm\": {}}')",
)
"""Channel 9 as version 11 could leave it: a match over, then two active ones (the older a start made twice);
channel 8 with its one match."""


async def check_the_v11_matches_after_0013(store: Store) -> None:
    from datetime import UTC, datetime

    ghost = await store.match(2)
    assert (ghost.status, ghost.reason, ghost.ended_at) == ("aborted", "a second active match in its channel",
                                                            from_ms(2500))
    assert [h.status for h in await store.hands(2)] == ["aborted"]
    assert [(m.match_id, m.status) for m in (await store.match(1), await store.match(3), await store.match(4))] == [
        (1, "finished"), (3, "active"), (4, "active")]
    assert [g.match_id for g in await store.unfinished_games()] == [3, 4]
    assert [g.match_id for g in await store.games_left_open()] == [2]  # its messages closed at the next start
    seats = [SeatSpec.human(11, "Ann")] + [SeatSpec.bot("normal")] * 3
    at = datetime(2030, 1, 1, tzinfo=UTC)
    with pytest.raises(StoreError) as e:
        await store.start_match(5, 9, "hefei", {}, "5", seats, at=at)
    assert (e.value.code, e.value.params) == ("channel_busy", {"channel_id": 9, "match_id": 3})



async def test_0015_seats_the_players_of_the_active_matches(tmp_path: Path) -> None:
    """Before 0015 each process knew only its own players; the store now keeps who sits where. The players of the
    matches in play are seated at their channel by the migration (the newest match first), those of a match over
    are not: a lobby elsewhere refuses the first and takes the second."""
    await upgraded_from(tmp_path, 13, V13_MATCHES, check_the_v13_seats_after_0015)


V13_MATCHES = (
    "INSERT INTO players VALUES (11, 'Ann', 1), (12, 'Bo', 1)",
    "INSERT INTO matches (id, guild_id, channel_id, variant, settings, seed, status, started_at) VALUES "
    "(1, 5, 7, 'hefei', '{}', '1', 'finished', 1000), (2, 5, 9, 'hefei', '{}', '2', 'active', 2000), "
    "(3, 5, 8, 'hefei', '{}', '3', 'active', 3000)",
    "INSERT INTO match_seats (match_id, seat, player_id, ai) VALUES (1, 0, 12, NULL), (2, 0, 11, NULL), "
    "(3, 0, 11, NULL), (3, 1, NULL, 'normal')",
)
"""Ann at two matches in play (as several processes could leave her), Bo at a match over."""


async def check_the_v13_seats_after_0015(store: Store) -> None:
    from bot.store.lobbies import save_lobby

    async def seated() -> dict[int, int]:
        async with store.transaction(write=False) as conn:
            return {int(u): int(c) for u, c in await conn.all("SELECT user_id, channel_id FROM seated_players")}

    assert await seated() == {11: 8}
    with pytest.raises(StoreError) as e:
        await save_lobby(store, 5, 6, {"host": 11}, players=[11])
    assert (e.value.code, e.value.params) == ("seated_elsewhere", {"channel": 8, "user": 11})
    await save_lobby(store, 5, 6, {"host": 12}, players=[12])
    assert await seated() == {11: 8, 12: 6}
