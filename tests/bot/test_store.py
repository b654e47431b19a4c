"""The store's behaviour: settings with their audit, writing games, refusals, resume, leaderboards, concurrency."""

from __future__ import annotations

import asyncio
import json
import random
import sys
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bot.store import (  # noqa: E402
    LedgerRow,
    SeatSpec,
    Store,
    StoreError,
    default_db_path,
    group,  # noqa: E402
    period_start,
    resume_all,
)
from bot.store.models import to_ms  # noqa: E402
from bot.store.sqlite import SqliteBackend  # noqa: E402
from bot.store.tables import TableRecorder, rebuild_table  # noqa: E402
from engine.table import Table  # noqa: E402
from tests.bot.simple_player import next_action  # noqa: E402
from tests.bot.store_checks import Replays, check_sql  # noqa: E402
from tests.harness.db import connect  # noqa: E402

T0 = datetime(2026, 3, 2, 10, 0, tzinfo=UTC)
SEATS = [SeatSpec.human(11, "Ann"), SeatSpec.human(12, "Bo"), SeatSpec.bot("normal"), SeatSpec.human(13, "Cy")]


pytestmark = pytest.mark.both_backends


@pytest.fixture
async def store(db_target: Path | str):
    s = await Store.open(db_target)
    yield s
    await s.close()


# ---------------------------------------------------------------------------------------------- opening


def test_default_path_follows_mjbot_db(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("MJBOT_DB", str(tmp_path / "x" / "bot.db"))
    assert default_db_path() == tmp_path / "x" / "bot.db"
    monkeypatch.delenv("MJBOT_DB")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert default_db_path() == tmp_path / "data" / "mjbot" / "mjbot.sqlite3"


async def test_open_creates_folders_and_close_is_final(tmp_path: Path) -> None:
    s = await Store.open(tmp_path / "a" / "b" / "mj.db")
    assert (tmp_path / "a" / "b" / "mj.db").exists()
    await s.close()
    await s.close()  # twice is fine
    with pytest.raises(StoreError) as err:
        await s.guild_settings(1)
    assert err.value.code == "closed"


# ---------------------------------------------------------------------------------------------- settings


async def test_settings_default_then_change_with_audit(store: Store) -> None:
    s = await store.guild_settings(5)
    assert (s.default_variant, s.wuhu_mode, s.hints, s.allowed_channels, s.updated_at) == ("wuhu", 315, True, [], None)
    s = await store.update_guild_settings(5, 900, {"wuhu_mode": 525, "hints": False, "language": "zh"}, at=T0)
    assert (s.wuhu_mode, s.hints, s.language) == (525, False, "zh")
    assert s.updated_at == T0
    audit = await store.settings_audit(5)
    # language did not change (zh already), so only two entries
    assert sorted((a.field, a.old_value, a.new_value, a.user_id, a.changed_at) for a in audit) == [
        ("hints", True, False, 900, T0),
        ("wuhu_mode", 315, 525, 900, T0),
    ]
    await store.set_house_rules(5, 901, "hefei", {"quan_per_match": 1}, at=T0 + timedelta(minutes=1))
    s = await store.update_guild_settings(5, 902, {"allowed_channels": [7, 8]}, at=T0 + timedelta(minutes=2))
    assert s.rules_for("hefei") == {"quan_per_match": 1} and s.rules_for("wuhu") == {}
    assert s.allowed_channels == [7, 8] and s.wuhu_mode == 525
    newest = (await store.settings_audit(5, limit=2))
    assert [(a.field, a.user_id) for a in newest] == [("allowed_channels", 902), ("house_rules", 901)]
    assert newest[1].old_value == {} and newest[1].new_value == {"hefei": {"quan_per_match": 1}}
    assert (await store.guild_settings(6)).wuhu_mode == 315  # other servers untouched


async def test_the_ai_difficulty_is_a_server_setting_audited_like_the_others(store: Store) -> None:
    """Issue 19: how the AIs added without a difficulty play; normal until the server changes it."""
    assert (await store.guild_settings(5)).ai_difficulty == "normal"
    s = await store.update_guild_settings(5, 900, {"ai_difficulty": "strong"}, at=T0)
    assert s.ai_difficulty == "strong" and (await store.guild_settings(5)).ai_difficulty == "strong"
    s = await store.update_guild_settings(5, 901, {"hints": False}, at=T0 + timedelta(minutes=1))
    assert (s.ai_difficulty, s.hints) == ("strong", False)  # writing another field keeps it
    assert [(a.field, a.old_value, a.new_value, a.user_id) for a in await store.settings_audit(5)] == [
        ("hints", True, False, 901), ("ai_difficulty", "normal", "strong", 900)]
    assert (await store.guild_settings(6)).ai_difficulty == "normal"  # other servers untouched


async def test_bad_settings_change_nothing(store: Store) -> None:
    for changes in ({"colour": "red"}, {"turn_seconds": "60"}, {"hints": 1}, {"wuhu_mode": True},
                    {"ai_difficulty": "hard"}, {"ai_difficulty": None}):
        with pytest.raises(StoreError):
            await store.update_guild_settings(5, 900, {"turn_seconds": 30, **changes})
    assert (await store.guild_settings(5)).turn_seconds == 60
    assert await store.settings_audit(5) == []


# ---------------------------------------------------------------------------------------------- writing games


async def new_hand(store: Store, variant: str = "wuhu", channel: int = 9) -> tuple[int, int]:
    mid = await store.start_match(5, channel, variant, {"mode": 315}, 42, SEATS, state_hash="h-start", at=T0)
    hid = await store.start_hand(mid, 0, "42#0", "commit", at=T0)
    return mid, hid


async def test_actions_are_recorded_once_in_order(store: Store) -> None:
    mid, hid = await new_hand(store)
    assert await store.record_action(mid, 0, '{"type":"discard","seat":0,"tile":"5m"}', T0, hand_id=hid)
    assert await store.record_action(mid, 1, {"type": "pass", "seat": 1}, T0, hand_id=hid, state_hash="h1")
    # a retry of the same action is accepted and changes nothing
    assert not await store.record_action(mid, 1, {"type": "pass", "seat": 1}, T0, hand_id=hid, state_hash="h1")
    with pytest.raises(StoreError) as err:
        await store.record_action(mid, 1, {"type": "pass", "seat": 2}, T0, hand_id=hid)
    assert err.value.code == "seq_conflict"
    with pytest.raises(StoreError) as err:
        await store.record_action(mid, 3, {"type": "pass", "seat": 2}, T0, hand_id=hid)
    assert err.value.code == "seq_gap"
    other, other_hand = await new_hand(store, channel=10)
    with pytest.raises(StoreError) as err:
        await store.record_action(mid, 2, {"type": "pass", "seat": 2}, T0, hand_id=other_hand)
    assert err.value.code == "hand_not_in_match"
    acts = await store.actions(mid)
    assert [(a.seq, json.loads(a.action), a.state_hash) for a in acts] == [
        (0, {"type": "discard", "seat": 0, "tile": "5m"}, None),
        (1, {"type": "pass", "seat": 1}, "h1"),
    ]
    assert await store.actions(other) == []
    # between hands an action has no hand; a match that does not exist takes nothing
    await store.finish_hand(hid, rows(0, 0, 0, 0), at=T0)
    assert await store.record_action(mid, 2, {"type": "next_hand", "seat": 0}, T0 + timedelta(seconds=3))
    with pytest.raises(StoreError) as err:
        await store.record_action(10**9, 0, {"type": "pass", "seat": 0}, T0)
    assert err.value.code == "no_match"
    with connect(store.path) as db:  # every column as written
        assert db.execute("SELECT seq, hand_id, action, state_hash, at FROM actions WHERE match_id = ? ORDER BY seq",
                          (mid,)).fetchall() == [
            (0, hid, '{"type":"discard","seat":0,"tile":"5m"}', None, to_ms(T0)),
            (1, hid, '{"seat":1,"type":"pass"}', "h1", to_ms(T0)),
            (2, None, '{"seat":0,"type":"next_hand"}', None, to_ms(T0 + timedelta(seconds=3))),
        ]


async def test_a_channel_has_one_active_match_and_the_same_start_again_is_that_match(store: Store) -> None:
    """A start made again with its seed (its first answer lost) is the match that landed, never a second one; any
    other start in a channel with an active match is refused; a lobby changed since replaces the match it started,
    as long as nothing was played in it; a channel whose match is over takes the next one."""
    mid = await store.start_match(5, 9, "wuhu", {"mode": 315}, 42, SEATS, state_hash="h-start", at=T0,
                                  meta={"lang": "zh"})
    again = await store.start_match(5, 9, "wuhu", {"mode": 315}, 42, SEATS, state_hash="h-start", at=T0,
                                    meta={"lang": "en"})
    assert again == mid and (await store.match_meta(mid))[0] == {"lang": "en"}
    with pytest.raises(StoreError) as err:
        await store.start_match(5, 9, "wuhu", {"mode": 315}, 43, SEATS, state_hash="h-other", at=T0)
    assert (err.value.code, err.value.params) == ("channel_busy", {"channel_id": 9, "match_id": mid})
    others = [SEATS[0], SeatSpec.bot("strong"), SEATS[2], SEATS[3]]
    new = await store.start_match(5, 9, "wuhu", {"mode": 315}, 42, others, state_hash="h-other", at=T0)
    old = await store.match(mid)
    assert new != mid and (old.status, old.reason) == ("aborted", "replaced by a new start")
    hid = await store.start_hand(new, 0, "42#0", "commit", at=T0)
    assert await store.record_action(new, 0, {"type": "pass", "seat": 1}, T0, hand_id=hid)
    with pytest.raises(StoreError) as err:  # played in: never replaced
        await store.start_match(5, 9, "wuhu", {"mode": 315}, 42, SEATS, state_hash="h-start", at=T0)
    assert (err.value.code, err.value.params) == ("channel_busy", {"channel_id": 9, "match_id": new})
    assert [m.match_id for m in await store.matches(5, status="active")] == [new]
    assert await store.abort_match(new, "ended", at=T0)
    assert await store.start_match(5, 9, "wuhu", {"mode": 315}, 42, SEATS, state_hash="h-start", at=T0) > new


async def test_an_action_is_written_in_one_statement_and_a_refused_one_writes_nothing(tmp_path: Path) -> None:
    """SQLite: a move's write is one statement, its own transaction (no BEGIN, no COMMIT: one round trip to the
    database's thread, at every click of every table); a refused one leaves the table as it was. The statements
    are those the SQLite library ran (its trace), on the backend's connection."""
    backend = await SqliteBackend.open(tmp_path / "one.sqlite3")
    store = Store(backend)
    try:
        mid, hid = await new_hand(store)
        assert await store.record_action(mid, 0, {"type": "pass", "seat": 0}, T0, hand_id=hid)  # relaxed from now
        sent: list[str] = []
        await backend.raw.set_trace_callback(sent.append)
        assert await store.record_action(mid, 1, {"type": "pass", "seat": 1}, T0, hand_id=hid)
        assert [q.split(" (")[0] for q in sent] == ["INSERT INTO actions"]
        sent.clear()
        with pytest.raises(StoreError):
            await store.record_action(mid, 5, {"type": "pass", "seat": 2}, T0, hand_id=hid)
        # the one statement appended nothing; the checks, one by one, say why, and roll back
        assert sent[0].startswith("INSERT INTO actions") and sent[1] == "BEGIN IMMEDIATE"
        assert sent[2].startswith("SELECT status") and sent[-1] == "ROLLBACK"
        await backend.raw.set_trace_callback(None)
        assert [a.seq for a in await store.actions(mid)] == [0, 1]
    finally:
        await store.close()


def rows(*amounts: int, stack: tuple[int, ...] | None = None, winner: int | None = None) -> list[LedgerRow]:
    stack = stack or amounts
    return [
        LedgerRow(s, amounts[s], stack[s], amounts[s] - stack[s], won=s == winner,
                  hand_value=amounts[s] if s == winner else 0)
        for s in range(4)
    ]


async def test_finish_hand_refuses_anything_but_one_zero_sum_row_per_seat(store: Store) -> None:
    mid, hid = await new_hand(store)
    bad = [
        (rows(10, -5, -5, 1), "not_zero_sum"),
        (rows(10, -5, -5, 0)[:3], "ledger_seats"),
        (rows(10, -5, -5, 0) + [LedgerRow(0, 0)], "ledger_seats"),
        # stack and 交 each zero-sum as well
        (rows(30, -30, 0, 0, stack=(10, -30, 0, 0)), "not_zero_sum"),
        # Wuhu: amount = stack + 交
        ([LedgerRow(0, 10, 10, 5), LedgerRow(1, -10, -10, -5), LedgerRow(2, 0), LedgerRow(3, 0)], "wuhu_split"),
    ]
    for ledger, code in bad:
        with pytest.raises(StoreError) as err:
            await store.finish_hand(hid, ledger, "h-end", T0)
        assert err.value.code == code
    assert await store.hand_ledger(hid) == []
    assert [s.total for s in (await store.match(mid)).seats] == [0, 0, 0, 0]
    good = rows(40, -30, -10, 0, stack=(10, 0, -10, 0), winner=0)
    assert await store.finish_hand(hid, good, "h-end", T0)
    assert not await store.finish_hand(hid, good, "h-end", T0)  # retry: nothing twice
    with pytest.raises(StoreError) as err:
        await store.finish_hand(hid, rows(0, 0, 0, 0), "h-end", T0)
    assert err.value.code == "ledger_conflict"
    m = await store.match(mid)
    assert [(s.total, s.stack_total, s.jiao_total) for s in m.seats] == [(40, 10, 30), (-30, 0, -30), (-10, -10, 0),
                                                                          (0, 0, 0)]
    assert await store.hand_ledger(hid) == good


async def test_match_life_cycle_and_abort_keeps_the_ledger(store: Store) -> None:
    mid, hid = await new_hand(store, "hefei")
    with pytest.raises(StoreError) as err:
        await store.finish_match(mid, at=T0)
    assert err.value.code == "hand_still_active"
    with pytest.raises(StoreError) as err:
        await store.start_hand(mid, 1, "42#1", at=T0)
    assert err.value.code == "hand_still_active"
    assert await store.start_hand(mid, 0, "42#0", at=T0) == hid  # a retry returns the same hand
    await store.finish_hand(hid, rows(6, -2, -2, -2, winner=0), at=T0)
    h2 = await store.start_hand(mid, 1, "42#1", "c2", at=T0)
    await store.record_action(mid, 0, {"type": "discard", "seat": 0, "tile": "1m"}, T0, hand_id=h2)
    assert await store.abort_match(mid, "closed by the host", at=T0)
    assert not await store.abort_match(mid, "again", at=T0)
    m = await store.match(mid)
    assert (m.status, m.reason) == ("aborted", "closed by the host")
    assert [h.status for h in await store.hands(mid)] == ["finished", "aborted"]
    assert [s.total for s in m.seats] == [6, -2, -2, -2]
    assert await store.hand_ledger(h2) == []
    for call in (
        store.record_action(mid, 1, {"type": "pass", "seat": 1}, T0),
        store.start_hand(mid, 2, "42#2", at=T0),
        store.finish_hand(h2, rows(0, 0, 0, 0), at=T0),
    ):
        with pytest.raises(StoreError):
            await call
    assert await store.unfinished_games() == []


async def test_bad_seats_are_refused(store: Store) -> None:
    for seats in (SEATS[:3], [SeatSpec()] + SEATS[1:], [SeatSpec(player_id=1, ai="x")] + SEATS[1:],
                  [SEATS[0], SEATS[0], SEATS[1], SEATS[2]]):
        with pytest.raises(StoreError) as err:
            await store.start_match(5, 9, "wuhu", {}, 1, seats)
        assert err.value.code == "bad_seats"
    assert await store.matches(5) == []


# ---------------------------------------------------------------------------------------------- resume


async def play(rec: TableRecorder, n: int, rng: random.Random, t: datetime = T0) -> None:
    for _ in range(n):
        if rec.over:
            return
        await rec.apply(next_action(rec.table, rng), t)


async def test_resume_rebuilds_good_games_and_closes_bad_ones(store: Store) -> None:
    rng = random.Random(3)
    recs = []
    for i, variant in enumerate(("wuhu", "hefei", "chizhou", "wuhu")):
        rec = await TableRecorder.start(store, guild_id=5, channel_id=i, variant=variant, seed=100 + i, settings={},
                                        seats=SEATS, at=T0)
        await play(rec, 120 + 40 * i, rng)
        recs.append(rec)
    hashes = {r.match_id: r.table.state_hash() for r in recs}
    # corrupt the last game's history behind the store's back: a discard of a different tile
    bad = recs[3].match_id
    async with store.transaction() as db:
        acts = await db.all("SELECT seq, action FROM actions WHERE match_id = ? ORDER BY seq", (bad,))
        seq, text = next((s, a) for s, a in acts if json.loads(a)["type"] == "discard")
        a = json.loads(text)
        a["tile"] = "1z" if a["tile"] != "1z" else "2z"
        await db.execute("UPDATE actions SET action = ? WHERE match_id = ? AND seq = ?", (json.dumps(a), bad, seq))
    ledger_before = {h.hand_id: await store.hand_ledger(h.hand_id) for h in await store.hands(bad)}
    report = await resume_all(store, rebuild_table, at=T0)
    assert sorted(r.game.match_id for r in report.resumed) == sorted(hashes)[:3]
    for r in report.resumed:
        assert r.checked and r.table.state_hash() == hashes[r.game.match_id]
    [ab] = report.aborted
    assert ab.game.match_id == bad and ("mismatch" in ab.reason or "replay failed" in ab.reason)
    m = await store.match(bad)
    assert m.status == "aborted" and m.reason == ab.reason[:500]
    assert {h.hand_id: await store.hand_ledger(h.hand_id) for h in await store.hands(bad)} == ledger_before
    assert all(h.status != "active" for h in await store.hands(bad))
    # the resumed tables continue where they were
    for r in report.resumed:
        rec = await TableRecorder.resume(store, r.game, r.table, at=T0)
        await play(rec, 30, rng)
    check_sql(store.path)
    assert (await Replays().check(store))["unfinished"] == 3


async def test_resume_reports_exceptions_and_accepts_async_rebuild(store: Store) -> None:
    a = await store.start_match(5, 1, "wuhu", {}, 1, SEATS, state_hash="s0", at=T0)
    b = await store.start_match(5, 2, "wuhu", {}, 2, SEATS, state_hash="s0", at=T0)

    class Fake:
        def state_hash(self) -> str:
            return "s0"

    async def rebuild(game):
        if game.match_id == a:
            raise ValueError("unknown variant")
        return Fake()

    report = await resume_all(store, rebuild, at=T0)
    assert [r.game.match_id for r in report.resumed] == [b]
    assert [(x.game.match_id, x.reason) for x in report.aborted] == [(a, "replay failed: ValueError: unknown variant")]
    assert (await store.match(a)).status == "aborted" and (await store.match(b)).status == "active"


# ---------------------------------------------------------------------------------------------- concurrency


async def test_many_tables_writing_at_once(store: Store) -> None:
    """30 engine tables play at once (50 actions each) through one store; every action lands once, in its own match, in order."""
    rng = random.Random(11)
    variants = ("wuhu", "hefei", "chizhou")
    recs = await asyncio.gather(*(
        TableRecorder.start(store, guild_id=5, channel_id=i, variant=variants[i % 3], seed=i, settings={},
                            seats=[SeatSpec.human(1000 + 4 * i + s, f"p{i}.{s}") for s in range(4)], at=T0)
        for i in range(30)
    ))
    played: dict[int, list[dict]] = defaultdict(list)

    async def drive(rec: TableRecorder, r: random.Random) -> None:
        for _ in range(50):
            a = next_action(rec.table, r)
            played[rec.match_id].append(a.to_json())
            await rec.apply(a, T0)
            await asyncio.sleep(r.random() * 0.002)

    await asyncio.gather(*(drive(rec, random.Random(rng.random())) for rec in recs))
    for rec in recs:
        stored = await store.actions(rec.match_id)
        assert [a.seq for a in stored] == list(range(50))
        assert [json.loads(a.action) for a in stored] == played[rec.match_id]
    report = await resume_all(store, rebuild_table)
    assert {r.game.match_id: r.table.state_hash() for r in report.resumed} == {
        rec.match_id: rec.table.state_hash() for rec in recs
    }
    check_sql(store.path)


async def test_concurrent_writers_on_one_match_cannot_both_take_a_seq(store: Store) -> None:
    mid, hid = await new_hand(store)
    results = await asyncio.gather(
        *(store.record_action(mid, 0, {"type": "discard", "seat": 0, "tile": f"{k}m"}, T0) for k in range(1, 10)),
        return_exceptions=True,
    )
    assert results.count(True) == 1
    assert all(isinstance(r, StoreError) and r.code == "seq_conflict" for r in results if r is not True)
    assert len(await store.actions(mid)) == 1


# ---------------------------------------------------------------------------------------------- leaderboards


async def test_a_played_match_is_in_the_ledger_and_on_the_board(store: Store) -> None:
    rng = random.Random(5)
    rec = await TableRecorder.start(store, guild_id=5, channel_id=1, variant="wuhu", seed=9, settings={},
                                    seats=SEATS, at=T0)
    await play(rec, 5000, rng)
    assert rec.over
    m = await store.match(rec.match_id)
    assert m.status == "finished" and [s.total for s in m.seats] == rec.table.totals()
    board = {r.player_id: r for r in await group.board(store, 5, "wuhu", limit=100)}
    assert {p: board[p].net for p in board} == {11: m.seats[0].total, 12: m.seats[1].total, 13: m.seats[3].total}
    n_hands = len(await store.hands(rec.match_id))
    assert n_hands >= 1 and all(board[p].hands == n_hands for p in board)
    await Replays().check(store)


def _ms(at: datetime) -> int:
    return int(at.timestamp() * 1000)


async def test_leaderboards_and_stats_equal_sums_over_the_ledger_and_corrections(store: Store) -> None:
    """Random zero-sum hands over 70 days in two servers and variants, then voided hands and adjustments between
    members; every board and period, and every player's record with its series, equal what the ledger rows and
    the correction rows add up to (the one leaderboard path: ``bot.store.group``)."""
    rng = random.Random(2026)
    players = list(range(1, 9))
    # (guild, variant, at, player, row, hand id)
    mine: list[tuple[int, str, datetime, int | None, LedgerRow, int]] = []
    for k in range(40):
        guild, variant = rng.choice([(5, "wuhu"), (5, "hefei"), (6, "wuhu")])
        who = rng.sample(players, 3) + [None]
        rng.shuffle(who)
        seats = [SeatSpec.human(p, f"P{p}") if p else SeatSpec.bot() for p in who]
        start = T0 + timedelta(hours=rng.uniform(0, 24 * 70))
        mid = await store.start_match(guild, 1, variant, {}, k, seats, at=start)
        for n in range(rng.randint(1, 8)):
            at = start + timedelta(minutes=7 * n)
            hid = await store.start_hand(mid, n, f"{k}#{n}", at=at)
            if rng.random() < 0.15:
                ledger = [LedgerRow(s, 0, drawn=True) for s in range(4)]
            else:
                w = rng.randrange(4)
                value = rng.randint(1, 60)
                if rng.random() < 0.4:
                    ledger = [LedgerRow(s, 3 * value if s == w else -value, won=s == w, self_draw=s == w,
                                        hand_value=3 * value if s == w else 0) for s in range(4)]
                else:
                    f = rng.choice([s for s in range(4) if s != w])
                    ledger = [LedgerRow(s, value if s == w else -value if s == f else 0, won=s == w, deal_in=s == f,
                                        hand_value=value if s == w else 0) for s in range(4)]
                if variant == "wuhu":
                    ledger = [LedgerRow(r.seat, r.amount, r.amount, 0, r.won, r.self_draw, r.deal_in, r.drawn,
                                        r.hand_value) for r in ledger]
            await store.finish_hand(hid, ledger, at=at)
            mine += [(guild, variant, at, who[r.seat], r, hid) for r in ledger]
        await store.finish_match(mid, at=start)
    # corrections: a few hands voided (among them the biggest win of each server), adjustments at random times
    hand_ids = sorted({x[5] for x in mine})
    biggest = {g: max((x for x in mine if x[0] == g), key=lambda x: x[4].hand_value)[5] for g in (5, 6)}
    voided = set(rng.sample(hand_ids, 8)) | set(biggest.values())
    void_ids: dict[int, int] = {}
    for hid in sorted(voided):
        guild = next(x[0] for x in mine if x[5] == hid)
        c = await group.void_hand(store, guild, 99, hid, f"void {hid}", at=T0 + timedelta(days=71))
        void_ids[hid] = c.correction_id
    adjustments: list[tuple[int, str, datetime, int, int, int, int]] = []  # guild, variant, at, payer, payee, n, id
    for _ in range(12):
        guild, variant = rng.choice([(5, "wuhu"), (5, "hefei"), (6, "wuhu")])
        payer, payee = rng.sample(players, 2)
        at = T0 + timedelta(hours=rng.uniform(0, 24 * 70))
        n = rng.randint(1, 50)
        c = await group.adjust(store, guild, 99, payer, payee, n, variant, "side bet", at=at)
        adjustments.append((guild, variant, at, payer, payee, n, c.correction_id))
    check_sql(store.path)
    now = T0 + timedelta(days=70)
    cut = T0 + timedelta(days=33, hours=7, minutes=13)  # mid-day: part of a day comes from the raw ledger
    until = T0 + timedelta(days=50, hours=3)
    for guild, variant in ((5, "wuhu"), (5, "hefei"), (6, "wuhu"), (6, "hefei")):
        for since, end in ((None, None), (period_start("month", now), None), (period_start("week", now), None),
                           (cut, None), (cut, until), (None, until)):
            def inside(at: datetime, since=since, end=end) -> bool:
                return (since is None or at >= since) and (end is None or at < end)

            want: dict[int, list[int]] = {}
            for g, v, at, p, r, hid in mine:
                if g != guild or v != variant or p is None or not inside(at) or hid in voided:
                    continue
                x = want.setdefault(p, [0, 0, 0, 0, 0, 0, 0])
                x[0] += 1
                x[1] += r.won
                x[2] += r.self_draw
                x[3] += r.deal_in
                x[4] += r.drawn
                x[5] = max(x[5], r.hand_value if r.won else 0)
                x[6] += r.amount
            for g, v, at, payer, payee, n, _cid in adjustments:
                if g == guild and v == variant and inside(at):
                    want.setdefault(payer, [0, 0, 0, 0, 0, 0, 0])[6] -= n
                    want.setdefault(payee, [0, 0, 0, 0, 0, 0, 0])[6] += n
            ranked = sorted((p for p in want if want[p][0] or want[p][6]), key=lambda p: (-want[p][6], -want[p][1], p))
            expected = [(p, f"P{p}", *want[p]) for p in ranked[:5]]
            board = await group.board(store, guild, variant, since, end, limit=5)
            got = [(r.player_id, r.display_name, r.hands, r.wins, r.self_draws, r.deal_ins, r.draws,
                    r.biggest_hand, r.net) for r in board]
            assert got == expected, (guild, variant, since, end)
    for p in players:
        for variant, since in ((None, None), ("wuhu", cut)):
            st = await group.player_record(store, 5, p, variant, since)
            events: list[tuple[int, int, int, int]] = []  # (at ms, 0 hand / 1 correction, id, amount)
            live: list[LedgerRow] = []
            for g, v, at, q, r, hid in mine:
                if g != 5 or q != p or (variant is not None and v != variant) or (since is not None and at < since):
                    continue
                events.append((_ms(at), 0, hid, r.amount))
                if hid in voided:
                    events.append((_ms(at), 1, void_ids[hid], -r.amount))
                else:
                    live.append(r)
            for g, v, at, payer, payee, n, cid in adjustments:
                if g == 5 and p in (payer, payee) and (variant is None or v == variant) and (since is None or at >= since):
                    events.append((_ms(at), 1, cid, n if p == payee else -n))
            events.sort()
            assert st.hands == len(live) and st.net == sum(e[3] for e in events)
            assert st.wins == sum(r.won for r in live) and st.deal_ins == sum(r.deal_in for r in live)
            assert st.self_draws == sum(r.self_draw for r in live) and st.draws == sum(r.drawn for r in live)
            assert st.biggest_hand == max((r.hand_value for r in live if r.won), default=0)
            # the chart: one point per hand not voided (as many as the Hands figure), each the net after that hand
            # and any adjustment before the next one; adjustments before the first hand are the starting point
            running = start = 0
            series: list[tuple[datetime, int]] = []
            for at_ms, kind, id_, amount in events:
                running += amount
                if kind == 0 and id_ not in voided:
                    series.append((datetime.fromtimestamp(at_ms / 1000, UTC), running))
                elif series:
                    series[-1] = (series[-1][0], running)
                else:
                    start = running
            assert list(st.series) == series and len(series) == st.hands
            assert st.series_start == start
            assert (series[-1][1] if series else start) == st.net
            assert st.adjustments == sum(e[3] for e in events if e[1] == 1 and e[2] not in void_ids.values())


def test_period_start_in_a_server_time_zone() -> None:
    from zoneinfo import ZoneInfo

    sh = ZoneInfo("Asia/Shanghai")
    now = datetime(2026, 3, 1, 2, 30, tzinfo=sh)  # Sunday in Shanghai, still Saturday in UTC
    assert period_start("week", now) == datetime(2026, 2, 23, tzinfo=sh)
    assert period_start("month", now) == datetime(2026, 3, 1, tzinfo=sh)
    assert period_start("all", now) is None
    with pytest.raises(ValueError):
        period_start("year", now)


async def test_table_recorder_refuses_illegal_actions_without_writing(store: Store) -> None:
    rec = await TableRecorder.start(store, guild_id=5, channel_id=1, variant="hefei", seed=1, settings={},
                                    seats=SEATS, at=T0)
    t: Table = rec.table
    idle = next(s for s in range(4) if s not in t.awaited())
    with pytest.raises(Exception) as err:
        await rec.apply({"type": "discard", "seat": idle, "tile": "1m"}, T0)
    assert getattr(err.value, "code", None) is not None
    assert await store.actions(rec.match_id) == []


async def test_a_cancelled_caller_does_not_break_or_half_write(store: Store) -> None:
    """A write whose caller is cancelled (shutdown, timed-out interaction) still completes as a whole, and the
    store keeps working; close() waits for it."""
    mid, hid = await new_hand(store)
    task = asyncio.ensure_future(store.record_action(mid, 0, {"type": "discard", "seat": 0, "tile": "1m"}, T0))
    await asyncio.sleep(0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # the write goes on by itself (close() waits for such writes); PostgreSQL's transactions run side by side, so a
    # read started while it is still in flight need not see it yet: wait for it as close() would
    await asyncio.gather(*store.pending)
    reader = asyncio.ensure_future(store.actions(mid))
    await asyncio.sleep(0)
    reader.cancel()
    with pytest.raises(asyncio.CancelledError):
        await reader
    assert [a.seq for a in await store.actions(mid)] == [0]
    assert await store.record_action(mid, 1, {"type": "pass", "seat": 1}, T0)
    finish = asyncio.ensure_future(store.finish_hand(hid, rows(3, -1, -1, -1, winner=0), "end", T0))
    await asyncio.sleep(0)
    finish.cancel()
    await store.close()
    reopened = await Store.open(store.path)
    try:
        assert await reopened.hand_ledger(hid) == rows(3, -1, -1, -1, winner=0)
        assert [s.total for s in (await reopened.match(mid)).seats] == [3, -1, -1, -1]
    finally:
        await reopened.close()


async def test_a_move_cancelled_while_it_is_written_is_never_overtaken_by_the_next(store: Store) -> None:
    """A table's move whose caller is cancelled while its action is being written (the write goes on by itself), then
    the table's next move: it waits for that write (PostgreSQL runs transactions side by side, and would find a gap
    before it), both actions are recorded in order, and the table in memory agrees with its record."""
    rec = await TableRecorder.start(store, guild_id=5, channel_id=77, variant="hefei", seed=3, settings={},
                                    seats=[SeatSpec.human(2000 + s, f"p{s}") for s in range(4)], at=T0)
    r = random.Random(4)
    first = next_action(rec.table, r)
    text = json.dumps(first.to_json(), sort_keys=True, separators=(",", ":"))
    go, held, other = asyncio.Event(), asyncio.Event(), asyncio.Event()

    def over(conn):
        class View:
            def __getattr__(self, name):
                return getattr(conn, name)

            async def execute(self, sql, params=()):
                if "INSERT INTO actions" in sql and text in params:
                    held.set()
                    await go.wait()  # the first move's write, held in the middle of its transaction
                return await conn.execute(sql, params)

            async def one(self, sql, params=()):
                if "MAX(seq)" in sql and held.is_set() and not go.is_set():
                    other.set()  # the next move's write started while the first is still held
                return await conn.one(sql, params)

        return View()

    store.backend.wrap = over
    moving = asyncio.ensure_future(rec.apply(first, T0))
    await held.wait()
    moving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await moving
    after = asyncio.ensure_future(rec.apply(next_action(rec.table, r), T0))
    # until the next move either waits for the first's write, or writes beside it (a bound for a hang only)
    for _ in range(100_000):
        if other.is_set() or after.done() or getattr(rec, "_writing", "") is None:
            break
        await asyncio.sleep(0)
    go.set()
    await after
    stored = await store.actions(rec.match_id)
    assert [a.seq for a in stored] == [0, 1]
    assert [json.loads(a.action) for a in stored] == rec.actions
    t = rec.table
    replayed = Table.replay(t.variant, t.seed, t.settings, [json.loads(a.action) for a in stored], players=t.players)
    assert replayed.state_hash() == t.state_hash() == stored[-1].state_hash


async def test_house_rule_changes_of_two_admins_at_once_both_stay(store: Store) -> None:
    await asyncio.gather(
        store.set_house_rules(5, 1, "wuhu", {"di_per_match": 2}, T0),
        store.set_house_rules(5, 2, "hefei", {"quan_per_match": 1}, T0),
    )
    s = await store.guild_settings(5)
    assert s.house_rules == {"wuhu": {"di_per_match": 2}, "hefei": {"quan_per_match": 1}}
    assert len(await store.settings_audit(5)) == 2


async def test_resume_lets_the_loops_other_tasks_run_between_two_replays(store: Store) -> None:
    """Each replay blocks the loop (tens of ms for a long game): hundreds at a stretch stopped the lease's beat for
    30 s and more, and a standby then ended a healthy owner as hung. Another task runs between any two replays."""
    for i in range(3):
        await TableRecorder.start(store, guild_id=5, channel_id=i, variant="hefei", seed=200 + i, settings={},
                                  seats=SEATS, at=T0)
    ticks: list[int] = []
    replays: list[int] = []

    async def beat() -> None:
        while True:
            ticks.append(len(replays))
            await asyncio.sleep(0)

    def rebuild(game):
        replays.append(game.match_id)
        return rebuild_table(game)

    task = asyncio.create_task(beat())
    try:
        report = await resume_all(store, rebuild, at=T0)
    finally:
        task.cancel()
    assert len(report.resumed) == 3
    assert all(n in ticks for n in range(3))  # the other task ran before each replay (after 0, 1 and 2 of them)


async def test_a_process_reads_only_its_shards_matches_and_lobbies(store: Store) -> None:
    """One process of several (docs/sharding.md) resumes only the servers of the shards it holds: the store reads
    those shards' active matches, matches left open and lobbies alone (a filter in SQL, the same on both backends),
    and another shard's games are neither read nor rebuilt there. Before, every process read every active match of
    the database and dropped the others' after reading them."""
    from bot.store import Shards
    from bot.store.lobbies import lobbies, save_lobby

    guilds = [((1 << 40) + n) << 22 for n in range(4)]  # Discord-sized server ids on shards 0, 1, 2, 3 of 4
    assert [(g >> 22) % 4 for g in guilds] == [0, 1, 2, 3]
    ids = []
    for i, g in enumerate(guilds):
        rec = await TableRecorder.start(store, guild_id=g, channel_id=100 + i, variant="hefei", seed=300 + i,
                                        settings={}, seats=SEATS, at=T0)
        ids.append(rec.match_id)
        await save_lobby(store, g, 200 + i, {"host": 11, "variant": "hefei"}, at=T0)
    await store.set_match_messages(ids[3], {"table": [103, 1]})
    await store.abort_match(ids[3], "ended", T0)  # shard 3's match is over, its messages still listed

    def on(*shards: int) -> Shards:
        return Shards(4, frozenset(shards))

    assert [g.match_id for g in await store.unfinished_games(on(1, 2))] == ids[1:3]
    assert [g.match_id for g in await store.unfinished_games(on(3))] == []
    assert [g.match_id for g in await store.unfinished_games(on())] == []
    assert [g.match_id for g in await store.unfinished_games()] == ids[:3]
    assert [g.match_id for g in await store.games_left_open(on(3))] == [ids[3]]
    assert [g.match_id for g in await store.games_left_open(on(0, 1, 2))] == []
    assert [c for _, c, _ in await lobbies(store, on(0, 3))] == [200, 203]
    assert len(await lobbies(store)) == 4
    rebuilt: list[int] = []

    def rebuild(game):
        rebuilt.append(game.match_id)
        return rebuild_table(game)

    report = await resume_all(store, rebuild, at=T0, shards=on(0))
    assert [r.game.match_id for r in report.resumed] == rebuilt == [ids[0]] and not report.aborted
