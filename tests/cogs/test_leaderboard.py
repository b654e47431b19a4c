"""/leaderboard and /stats through the harness, checked against sums over the ledger computed here in plain SQL.

The database is built once per module: two matches played by the real engine (a simple player taking every win)
and recorded through ``TableRecorder``, plus zero-sum hands written through ``start_match`` / ``finish_hand`` for a
crowd of players and for another server. Hands are spread over 40 days ago, earlier this month and this week, in
the bot's time zone; each test boots the bot on its own copy.
"""

from __future__ import annotations

import asyncio
import io
import random
import re
import shutil
from datetime import datetime, timedelta
from pathlib import Path

import pytest
from PIL import Image

from bot.store import BoardRow, LedgerRow, SeatSpec, Store, TableRecorder, period_start
from bot.store import group as gstore
from cogs.leaderboard import SERVER_TZ
from tests.bot.simple_player import next_action
from tests.harness import GUILD_ID, USER_ID, Harness
from tests.harness.db import dump, sql

A, B, C, D = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3
CROWD = [USER_ID + 100 + i for i in range(12)]
STRANGER = USER_ID + 999  # a member who never played
OTHER_GUILD = GUILD_ID + 7
NAMES = {A: "小明", B: "Bob_the*Builder", C: "張三", D: "Dee"} | {p: f"Crowd{i:02d}" for i, p in enumerate(CROWD)}
LOCALE = {"en": "en-US", "zh": "zh-CN", "zh-TW": "zh-TW"}
PERIODS = ("week", "month", "all")

LINE = re.compile(r"^(?:__)?(\d+)\. \*\*(.+?)\*\* · ([+-]?\d+) 子 · (?:played|打了) (\d+)(?: 局)? · "
                  r"(?:won|和了) (\d+)")
STATS_WORDS = {  # what a player reads, per language: hands, wins, self-draws, deal-ins, draws, biggest, net
    "en": ("Hands", "Wins", "Self-draws", "Deal-ins", "Draws", "Biggest hand", "Net"),
    "zh": ("局数", "和牌", "自摸", "点炮", "流局", "最大一手", "净输赢"),
    "zh-TW": ("局數", "和牌", "自摸", "放槍", "流局", "最大一手", "淨輸贏"),
}
TITLE = {"en": "Wuhu leaderboard", "zh": "芜湖排行榜", "zh-TW": "蕪湖排行榜"}


# ---------------------------------------------------------------------------------------------- the database


def schedule(now: datetime) -> list[datetime]:
    """40 days ago (all time only), a third of the way into this month, half way into this week."""
    week, month = period_start("week", now), period_start("month", now)
    return [now - timedelta(days=40), month + (now - month) / 3, week + (now - week) / 2]


async def play(store: Store, variant: str, seats: list[SeatSpec], seed: int, hands: int, times: list[datetime]):
    """A real engine match recorded action by action until ``hands`` hands are settled (hand k at
    ``times[k % len(times)]``), then ended."""
    rng = random.Random(seed)
    rec = await TableRecorder.start(store, guild_id=GUILD_ID, channel_id=1, variant=variant, seed=seed, settings={},
                                    seats=seats, at=times[0])
    done = 0
    while not rec.over and done < hands:
        await rec.apply(next_action(rec.table, rng), times[done % len(times)])
        done = sum(1 for h in await store.hands(rec.match_id) if h.status == "finished")
    if not rec.over:  # closed as /table end does: settled hands stay in the ledger, nothing left to resume
        await store.abort_match(rec.match_id, "ended by the host", at=times[-1])


def zero_sum(rng: random.Random, wuhu: bool) -> list[LedgerRow]:
    """One hand's realistic rows: a winner paid by one discarder or by all three, or a draw."""
    win, kind = rng.randrange(4), rng.choice(("discard", "self", "draw"))
    fed = (win + rng.randrange(1, 4)) % 4 if kind == "discard" else None
    value = rng.choice((2, 4, 6, 10, 16, 30))
    stack, jiao = [0, 0, 0, 0], [0, 0, 0, 0]
    if kind == "discard":
        stack[win], stack[fed] = value, -value
        jiao[win], jiao[fed] = 2, -2  # Wuhu's separate 交 tally
    elif kind == "self":
        stack = [3 * value if s == win else -value for s in range(4)]
        jiao = [6 if s == win else -2 for s in range(4)]
    if not wuhu:
        jiao = [0, 0, 0, 0]
    rows = [
        LedgerRow(s, stack[s] + jiao[s], stack[s] if wuhu else 0, jiao[s], won=kind != "draw" and s == win,
                  self_draw=kind == "self" and s == win, deal_in=s == fed, drawn=kind == "draw",
                  hand_value=stack[win] + jiao[win] if kind != "draw" and s == win else 0)
        for s in range(4)
    ]
    assert sum(r.amount for r in rows) == 0 and sum(r.jiao_amount for r in rows) == 0
    return rows


async def written(store: Store, guild: int, variant: str, seats: list[SeatSpec], hands: list[datetime],
                  rng: random.Random) -> None:
    mid = await store.start_match(guild, 2, variant, {}, rng.randrange(10**6), seats, at=hands[0])
    for n, at in enumerate(hands):
        hid = await store.start_hand(mid, n, f"h{n}", None, at=at)
        await store.finish_hand(hid, zero_sum(rng, variant == "wuhu"), at=at)
    await store.finish_match(mid, at=hands[-1])


async def build(path: Path) -> None:
    store = await Store.open(path)
    now = datetime.now(SERVER_TZ)
    times = schedule(now)
    human = lambda p: SeatSpec.human(p, NAMES[p])  # noqa: E731
    await play(store, "wuhu", [human(A), human(B), SeatSpec.bot("normal"), human(C)], 1, 5, times)
    await play(store, "hefei", [human(A), SeatSpec.bot("easy"), human(D), SeatSpec.bot("normal")], 2, 3, times[:1])
    rng = random.Random(7)
    for k in range(3):
        seats = [human(p) for p in CROWD[4 * k: 4 * k + 4]]
        await written(store, GUILD_ID, "wuhu", seats, [rng.choice(times) for _ in range(3)], rng)
    await written(store, GUILD_ID, "wuhu", [human(A), human(D), human(CROWD[0]), human(CROWD[5])], times, rng)
    await written(store, OTHER_GUILD, "wuhu", [human(A), human(B), human(C), human(D)], times * 2, rng)
    await store.close()


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("leaderboard") / "template.db"
    asyncio.run(build(path))
    return path


@pytest.fixture
async def h(template: Path, tmp_path: Path):
    db = tmp_path / "bot.db"
    shutil.copy(template, db)
    harness = await Harness.boot(db)
    try:
        yield harness
    finally:
        await harness.close()


# ---------------------------------------------------------------------------------------------- expectations



def since_ms(period: str) -> int:
    start = period_start(period, datetime.now(SERVER_TZ))
    return -(2**62) if start is None else int(start.timestamp() * 1000)


def expected_board(h: Harness, variant: str, period: str, guild: int = GUILD_ID) -> list[tuple]:
    """(player, net, hands, wins) ranked by net, then wins, then id: straight from the ledger's rows."""
    rows = sql(h, "SELECT player_id, SUM(amount), COUNT(*), SUM(won) FROM ledger WHERE guild_id = ? AND variant = ? "
               "AND at >= ? AND player_id IS NOT NULL GROUP BY player_id", (guild, variant, since_ms(period)))
    return sorted(rows, key=lambda r: (-r[1], -r[3], r[0]))


def expected_stats(h: Harness, player: int, variant: str | None, period: str) -> tuple[int, ...]:
    rows = sql(h, "SELECT amount, won, self_draw, deal_in, drawn, hand_value FROM ledger WHERE guild_id = ? "
               "AND player_id = ? AND (? IS NULL OR variant = ?) AND at >= ?",
               (GUILD_ID, player, variant, variant, since_ms(period)))
    return (len(rows), sum(r[1] for r in rows), sum(r[2] for r in rows), sum(r[3] for r in rows),
            sum(r[4] for r in rows), max((r[5] for r in rows if r[1]), default=0), sum(r[0] for r in rows))


def parse_board(text: str) -> list[tuple]:
    out = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            rank, name, net, hands, wins = m.groups()
            out.append((int(rank), name.replace("\\", ""), int(net), int(hands), int(wins)))
    return out


def parse_stats(text: str, lang: str) -> tuple[int, ...]:
    words = STATS_WORDS[lang]
    return tuple(int(re.search(rf"{re.escape(w)} ([+-]?\d+)", text).group(1)) for w in words)


def png(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    assert img.format == "PNG"
    return img



# ---------------------------------------------------------------------------------------------- /leaderboard


@pytest.mark.parametrize("period", PERIODS)
@pytest.mark.parametrize("variant", ["wuhu", "hefei"])
async def test_leaderboard_agrees_with_the_ledger(h: Harness, variant, period):
    expected = expected_board(h, variant, period)
    r = await h.slash("leaderboard", variant=variant, period=period)
    if not expected:  # hefei was only played 40 days ago
        assert variant == "hefei" and period != "all"
        assert r.reply.ephemeral and r.reply.images == [] and "empty" in r.reply.content
        return
    reply = r.reply
    assert not reply.ephemeral
    shown = parse_board(reply.content)
    top = expected[:10]
    # a player's rank: 1 + the players ahead (more net, or as much net and more wins); ties share it
    ranks = [1 + sum(1 for q in expected if (q[1], q[3]) > (net, wins)) for _, net, _, wins in top]
    assert [(rank, NAMES[p], net, hands, wins) for rank, (p, net, hands, wins) in zip(ranks, top, strict=True)] \
        == shown[:10]
    assert f"{len(expected)} players ranked" in reply.content
    [image] = reply.images
    img = png(image)
    assert img.width == 480 and img.height > 100 + 40 * len(shown)
    assert reply.attachments[0].filename == "leaderboard.png"
    assert h.channel() == [reply]


async def test_periods_really_differ_and_ai_seats_and_other_servers_stay_out(h: Harness):
    week = expected_board(h, "wuhu", "week")
    total = expected_board(h, "wuhu", "all")
    assert sum(x[2] for x in week) < sum(x[2] for x in total)  # the hands of 40 days ago are out of the week
    ai_rows = sql(h, "SELECT COUNT(*) FROM ledger WHERE guild_id = ? AND player_id IS NULL", (GUILD_ID,))[0][0]
    assert ai_rows > 0
    r = await h.slash("leaderboard", variant="wuhu")  # default period: all time
    shown = parse_board(r.reply.content)
    assert [s[1] for s in shown[:10]] == [NAMES[p] for p, *_ in total[:10]]
    # A also won and lost 子 in another server: only this server's hands count
    elsewhere = sql(h, "SELECT SUM(amount), COUNT(*) FROM ledger WHERE player_id = ? AND guild_id = ?",
                    (A, OTHER_GUILD))[0]
    assert elsewhere[0] != 0
    here = next(x for x in total if x[0] == A)
    assert next(s for s in shown if s[1] == NAMES[A])[2:] == (here[1], here[2], here[3])


async def test_default_variant_is_the_servers(h: Harness):
    await h.bot.store.update_guild_settings(GUILD_ID, 1, {"default_variant": "hefei"})
    r = await h.slash("leaderboard")
    hefei = expected_board(h, "hefei", "all")
    assert "Hefei leaderboard" in r.reply.content
    assert [(s[2], s[3], s[4]) for s in parse_board(r.reply.content)] == [x[1:] for x in hefei]


async def test_a_caller_below_the_top_ten_sees_their_own_line(h: Harness):
    board = expected_board(h, "wuhu", "all")
    assert len(board) > 10
    last = board[-1]
    r = await h.slash("leaderboard", variant="wuhu", user=last[0])
    text = r.reply.content
    lines = text.splitlines()
    assert "…" in lines
    rank = 1 + sum(1 for q in board if (q[1], q[3]) > (last[1], last[3]))  # tied players share the rank
    assert rank > 11 and parse_board(text)[-1] == (rank, NAMES[last[0]], last[1], last[2], last[3])
    assert lines[lines.index("…") + 1].startswith("__")  # the caller's own line stands out
    first_ten = await h.slash("leaderboard", variant="wuhu", user=board[0][0])
    assert "…" not in first_ten.reply.content.splitlines()
    # one more line on the image too
    assert png(r.reply.images[0]).height > png(first_ten.reply.images[0]).height


@pytest.mark.parametrize("lang", ["en", "zh", "zh-TW"])
async def test_leaderboard_speaks_the_players_language(h: Harness, lang):
    r = await h.slash("leaderboard", variant="wuhu", period="week", locale=LOCALE[lang])
    text = r.reply.content
    assert text.startswith(f"**{TITLE[lang]}**")
    assert {"en": "this week", "zh": "本周", "zh-TW": "本週"}[lang] in text.splitlines()[0]
    assert [s[2] for s in parse_board(text)] == [x[1] for x in expected_board(h, "wuhu", "week")][:10]


async def test_server_language_when_the_player_locale_is_not_ours(h: Harness):
    await h.bot.store.update_guild_settings(GUILD_ID, 1, {"language": "zh-TW"})
    r = await h.slash("leaderboard", variant="wuhu", locale="fr")
    assert r.reply.content.startswith(f"**{TITLE['zh-TW']}**")


@pytest.mark.parametrize("lang", ["en", "zh", "zh-TW"])
async def test_a_variant_nobody_played_says_so_and_changes_nothing(h: Harness, lang):
    before = dump(h)
    r = await h.slash("leaderboard", variant="chizhou", locale=LOCALE[lang])
    reply = r.reply
    assert reply.ephemeral and reply.images == []
    assert {"en": "Chizhou", "zh": "池州", "zh-TW": "池州"}[lang] in reply.content
    assert {"en": "empty", "zh": "空", "zh-TW": "空"}[lang] in reply.content
    assert h.channel() == []
    assert dump(h) == before


async def test_in_a_dm_both_commands_say_they_need_a_server(h: Harness):
    for cmd in ("leaderboard", "stats"):
        r = await h.slash(cmd, guild=False)
        assert r.reply.ephemeral and "only in a server" in r.reply.content


# ---------------------------------------------------------------------------------------------- /stats


@pytest.mark.parametrize(("variant", "period"), [(None, "all"), ("wuhu", "all"), ("wuhu", "week"),
                                                 ("hefei", "all"), (None, "month")])
async def test_stats_of_the_caller_agree_with_the_ledger(h: Harness, variant, period):
    expected = expected_stats(h, A, variant, period)
    r = await h.slash("stats", variant=variant, period=period)
    reply = r.reply
    assert not reply.ephemeral
    assert reply.content.startswith(f"**{NAMES[A]}**")
    assert parse_stats(reply.content, "en") == expected
    [image] = reply.images
    assert png(image).size == (480, 600) and reply.attachments[0].filename == "stats.png"


async def test_stats_of_another_player_and_the_running_total(h: Harness):
    from tests.harness import ADMIN_PERMISSIONS

    # an adjustment in B's favour (posted now, after every hand): counted in the figures and the chart's last point
    for p in (B, C):
        h.fake.add_user(p, NAMES[p])  # the members' names as Discord resolves them (the adjustment caches them)
    r = await h.slash("correct adjust", payer=C, payee=B, amount=25, reason="side bet", variant="hefei",
                      permissions=ADMIN_PERMISSIONS)
    assert "25" in r.reply.content
    hands, wins, self_draws, deal_ins, draws, biggest, net = expected_stats(h, B, None, "all")
    adjusted = sql(h, "SELECT SUM(amount) FROM correction_rows WHERE guild_id = ? AND player_id = ?",
                   (GUILD_ID, B))[0][0]
    assert adjusted == 25
    expected = (hands, wins, self_draws, deal_ins, draws, biggest, net + adjusted)
    r = await h.slash("stats", player=B, locale="zh-CN")
    assert r.reply.content.startswith("**Bob\\_the\\*Builder**")  # markdown in names is shown as typed
    assert parse_stats(r.reply.content, "zh") == expected
    # the chart's series: one point per hand in the ledger's order (as many as the Hands figure); the adjustment,
    # no hand, moves the last hand's point, so the chart ends at the net shown
    stats = await gstore.player_record(h.bot.store, GUILD_ID, B)
    amounts = [a for (a,) in sql(h, "SELECT amount FROM ledger WHERE guild_id = ? AND player_id = ? "
                                    "ORDER BY at, hand_id", (GUILD_ID, B))]
    running = [sum(amounts[: i + 1]) for i in range(len(amounts))]
    assert [v for _, v in stats.series] == [*running[:-1], running[-1] + adjusted]
    assert len(stats.series) == hands and stats.series[-1][1] == expected[-1]
    assert stats.adjustments == adjusted and stats.series_start == 0


@pytest.mark.parametrize("lang", ["en", "zh", "zh-TW"])
async def test_stats_speak_the_players_language(h: Harness, lang):
    r = await h.slash("stats", player=C, variant="wuhu", locale=LOCALE[lang])
    assert parse_stats(r.reply.content, lang) == expected_stats(h, C, "wuhu", "all")
    assert {"en": "Wuhu", "zh": "芜湖", "zh-TW": "蕪湖"}[lang] in r.reply.content.splitlines()[0]


@pytest.mark.parametrize("lang", ["en", "zh", "zh-TW"])
async def test_a_player_who_never_played_gets_a_plain_message(h: Harness, lang):
    before = dump(h)
    r = await h.slash("stats", player=STRANGER, locale=LOCALE[lang])
    reply = r.reply
    assert reply.ephemeral and reply.images == []
    assert {"en": "no hands", "zh": "还没有对局记录", "zh-TW": "還沒有對局記錄"}[lang] in reply.content
    assert dump(h) == before


async def test_a_player_with_hands_only_in_another_variant_or_period(h: Harness):
    r = await h.slash("stats", player=D, variant="hefei", period="week")
    assert expected_stats(h, D, "hefei", "week")[0] == 0
    assert r.reply.ephemeral and "no hands" in r.reply.content and "Hefei" in r.reply.content


async def test_a_user_not_in_the_server_is_told_so(h: Harness):
    before = dump(h)
    data, rec = h.slash_payload("stats", player=STRANGER + 1)
    del data["data"]["resolved"]["members"]  # Discord sends no member for a user outside the server
    r = await h.send(data, rec)
    assert r.reply.ephemeral and "not a member of this server" in r.reply.content
    assert dump(h) == before
    # someone who left but played here keeps their record
    data, rec = h.slash_payload("stats", player=D)
    del data["data"]["resolved"]["members"]
    r = await h.send(data, rec)
    assert not r.reply.ephemeral and parse_stats(r.reply.content, "en") == expected_stats(h, D, None, "all")


# ---------------------------------------------------------------------------------------------- command names

NAME = re.compile(r"^[-_\w]{1,32}$")


def walk(cmd: dict):
    yield "command", cmd
    for opt in cmd.get("options", []):
        yield "option", opt
        for choice in opt.get("choices", []):
            yield "choice", choice


async def test_commands_options_and_choices_are_localised(h: Harness):
    await h.bot.tree.sync()
    synced = {c["name"]: c for c in h.fake.commands[None]}
    for name in ("leaderboard", "stats"):
        for kind, entry in walk(synced[name]):
            names = entry.get("name_localizations") or {}
            assert {"zh-CN", "zh-TW"} <= set(names), (kind, entry["name"])
            for text in [entry["name"], *names.values()]:
                assert 1 <= len(text) <= (100 if kind == "choice" else 32)
                if kind != "choice":
                    assert NAME.match(text) and text == text.lower(), text
            if kind != "choice":
                descs = entry.get("description_localizations") or {}
                assert {"zh-CN", "zh-TW"} <= set(descs) and all(1 <= len(x) <= 100 for x in descs.values())
    names = synced["stats"]["name_localizations"]
    assert (names["zh-CN"], names["zh-TW"]) == ("战绩", "戰績")


def test_docstring_examples():
    import doctest

    import cogs.leaderboard

    result = doctest.testmod(cogs.leaderboard)
    assert result.attempted >= 2 and result.failed == 0


def test_ties_share_their_rank_and_the_next_rank_counts_them():
    """Equal net and equal wins: the same rank (and so the same medal on the image), the next player fourth, and
    no "…" as if a line had been left out; equal net with fewer wins ranks lower."""
    from cogs.leaderboard import board_text, shared_ranks

    rows = [BoardRow(p, f"P{p}", 10, w, 0, 0, 0, 0, net) for p, net, w in
            [(1, 30, 2), (2, 10, 1), (3, 10, 1), (4, 10, 0), (5, -50, 0)]]
    ranks = shared_ranks(rows)
    assert ranks == [1, 2, 2, 4, 5]
    text = board_text("Wuhu", "all time", list(zip(ranks, rows, strict=True)), 5, "en", None)
    assert [r[0] for r in parse_board(text)] == [1, 2, 2, 4, 5] and "…" not in text.splitlines()
    # the caller far below: still a "…" before their line
    text = board_text("Wuhu", "all time", [(1, rows[0]), (2, rows[1]), (2, rows[2]), (14, rows[4])], 20, "en", 5)
    assert text.splitlines()[4] == "…"
