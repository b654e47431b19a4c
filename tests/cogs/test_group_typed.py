"""What an admin types and names, read back: a season's title shown as typed in every message that names it, a
season list of years of seasons, and a season's last day typed with a Chinese keyboard."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from bot.store import SeatSpec
from bot.store import group as gstore
from tests.cogs.test_group import write_hands
from tests.harness import ADMIN_PERMISSIONS, GUILD_ID, Harness

A, B, C = 1_200_000_000_000_001_001, 1_200_000_000_000_001_002, 1_200_000_000_000_001_003
VICTIM = 1_200_000_000_000_009_999
ROLE = 1_200_000_000_000_008_888
#: A legal season title (under 100 characters) full of markdown and mentions.
TITLE = f"**S1_spring_cup** @everyone <@&{ROLE}> <@{VICTIM}> ||end"
#: The title as a message shows it as typed: its markdown escaped, its mentions broken.
SHOWN = r"\*\*S1\_spring\_cup\*\*"
RAW = ("@everyone", f"<@{VICTIM}>", f"<@&{ROLE}>", "**S1_spring_cup**", "_spring_", "||end")


@pytest.fixture
async def h(tmp_path: Path):
    harness = await Harness.boot(tmp_path / "bot.db")
    try:
        yield harness
    finally:
        await harness.close()


def _texts(h: Harness) -> list[tuple[str, str]]:
    """Every message text the bot sent or edited (contents, embeds' titles, descriptions and fields), by path."""
    out = []
    for rq in h.fake.requests:
        body = rq.json if isinstance(rq.json, dict) else {}
        if isinstance(body.get("data"), dict):
            body = body["data"]
        if rq.method in ("POST", "PATCH") and ("content" in body or "embeds" in body):
            text = "\n".join([body.get("content") or "", *(
                "\n".join([e.get("title") or "", e.get("description") or "",
                           *(f.get("name", "") + f.get("value", "") for f in e.get("fields") or [])])
                for e in body.get("embeds") or [])])
            out.append((rq.path, text))
    return out


async def test_a_season_title_is_shown_as_typed_wherever_it_is_named(h: Harness):
    """/season start and /season list showed a title as typed, but /leaderboard, /stats, head-to-head, /export and
    the season's final board wrote it raw: ``S1_spring_cup`` lost its underscores to italics, ``||`` hid the rest of
    the heading, and mentions showed as mention pills in public messages."""
    now = datetime.now(UTC)
    await gstore.start_season(h.bot.open_store, GUILD_ID, A, TITLE, ends_at=None, channel_id=None,
                              at=now - timedelta(days=5))
    seats = [SeatSpec.human(A, "Ann"), SeatSpec.human(B, "Bob"), SeatSpec.human(C, "Cy"), SeatSpec.bot("normal")]
    await write_hands(h.bot.open_store, GUILD_ID, [now - timedelta(hours=k) for k in range(6)], 3, seats=seats)
    readers = {
        "leaderboard": await h.slash("leaderboard", variant="hefei", locale="en-US"),
        "leaderboard of season 1": await h.slash("leaderboard", variant="hefei", season="1", locale="en-US"),
        "stats": await h.slash("stats", player=A, locale="en-US"),
        "head-to-head": await h.slash("stats", player=A, other_player=B, season="1", locale="en-US"),
        "season list": await h.slash("season list", permissions=ADMIN_PERMISSIONS, locale="en-US"),
        "export": await h.slash("export", season="1", permissions=ADMIN_PERMISSIONS, locale="en-US"),
    }
    for what, r in readers.items():
        assert SHOWN in r.reply.content, (what, r.reply.content)
    await h.slash("season start", title="Summer", permissions=ADMIN_PERMISSIONS, locale="en-US")
    await h.settle()
    final = [m for m in h.fake.channel_messages(h.channel_id) if "final" in m.content.lower()]
    assert final and SHOWN in final[-1].content, [m.content for m in h.fake.channel_messages(h.channel_id)]
    raw = [(word, path, text[:200]) for path, text in _texts(h) for word in RAW if word in text]
    assert raw == []


async def test_the_season_list_of_years_of_seasons_fits_a_message(h: Harness):
    """A club that runs a season a month asks /season list after three years (36 seasons): the list was one
    message past Discord's 2,000 characters, refused, and the admin could never list the seasons again. It shows
    the newest ones, and a "…" for the rest."""
    start = datetime(2023, 1, 1, tzinfo=UTC)
    for n in range(36):
        at = start + timedelta(days=31 * n)
        await gstore.start_season(h.bot.open_store, GUILD_ID, 1, f"{at:%Y-%m} 周五夜场联赛 Friday Night League",
                                  ends_at=None, channel_id=None, at=at)
    r = await h.slash("season list", permissions=ADMIN_PERMISSIONS, locale="en-US")
    lines = r.reply.content.splitlines()
    assert r.reply.ephemeral and len(r.reply.content) <= 2000
    assert "Season 36" in lines[1] and "current" in lines[1] and lines[-1] == "…"
    assert "Season 35" in lines[2] and "Season 1 " not in r.reply.content


@pytest.mark.parametrize("ends", ["２０２９-１２-３１", "2029-12-31\u200b", "2029/12/31", "2029年12月31日"])
async def test_a_seasons_last_day_is_read_as_a_chinese_keyboard_types_it(h: Harness, ends):
    """A Chinese input method in full-width mode types ``２０２９-１２-３１``; a paste may carry a zero-width space.
    The admin was told "“２０２９-１２-３１”不是日期：请写成 YYYY-MM-DD", which reads as the very format asked for."""
    r = await h.slash("season start", title="春季赛", ends=ends, permissions=ADMIN_PERMISSIONS, locale="zh-CN")
    assert "不是日期" not in r.reply.content and "第 1 赛季" in r.reply.content, r.reply.content
    season = await gstore.current_season(h.bot.open_store, GUILD_ID)
    assert season is not None and season.until is not None
    assert season.until == datetime(2030, 1, 1, tzinfo=ZoneInfo("Asia/Shanghai"))  # the server's default zone


@pytest.mark.parametrize("ends", ["2029-02-30", "31/12/2029", "next friday", "2029-01-01T00:00", "||2029-13-01||",
                                  "**2029**-01-01"])
async def test_a_day_that_is_no_date_is_refused_as_typed_and_starts_nothing(h: Harness, ends):
    r = await h.slash("season start", title="Spring", ends=ends, permissions=ADMIN_PERMISSIONS, locale="en-US")
    assert r.reply.ephemeral and "is not a date" in r.reply.content
    assert "||2029" not in r.reply.content and "**2029**" not in r.reply.content  # quoted, its markdown shown
    assert await gstore.seasons(h.bot.open_store, GUILD_ID) == []


async def test_stats_of_a_player_without_hands_in_a_season_names_it_as_typed(h: Harness):
    now = datetime.now(UTC)
    await gstore.start_season(h.bot.open_store, GUILD_ID, A, TITLE, ends_at=None, channel_id=None,
                              at=now - timedelta(days=5))
    h.fake.add_user(B, "Bob")
    r = await h.slash("stats", player=B, season="1", locale="en-US")
    assert SHOWN in r.reply.content and not [w for w in RAW if w in r.reply.content], r.reply.content


async def test_a_season_started_twice_is_named_as_typed_and_just_now(h: Harness):
    """A double submit of /season start: the refusal wrote the title raw and said "1 min ago" for a season started
    that second."""
    await h.slash("season start", title=TITLE, permissions=ADMIN_PERMISSIONS, locale="en-US")
    r = await h.slash("season start", title=TITLE, permissions=ADMIN_PERMISSIONS, locale="en-US")
    text = r.reply.content
    assert "just started season 1" in text and "min ago" not in text, text
    assert SHOWN in text and not [w for w in RAW if w in text], text


async def test_the_final_board_keeps_every_variant_played(h: Harness):
    """A season of the three variants, ten players each with names of an ordinary length: the final board was cut at
    2,000 characters and the last variant lost its places (the image shows one variant only). Each variant now keeps
    the same number of places, as many as fit, under its name alone (the label heads the message once)."""
    base = 1_200_000_000_000_002_000
    now = datetime.now(UTC)
    await gstore.start_season(h.bot.open_store, GUILD_ID, A, "Spring League 2027", ends_at=None, channel_id=None,
                              at=now - timedelta(days=5))
    for v_i, variant in enumerate(("wuhu", "hefei", "chizhou")):
        for k in range(5):
            payer, payee = base + 100 * v_i + 2 * k, base + 100 * v_i + 2 * k + 1
            names = {payer: f"Jonathan Whitaker {v_i}{2 * k}", payee: f"Margaret Hollande {v_i}{2 * k + 1}"}
            await gstore.adjust(h.bot.open_store, GUILD_ID, A, payer, payee, 1000 + k, variant, "league night",
                                names=names, at=now - timedelta(days=1, minutes=10 * k + v_i))
    await h.slash("season start", title="Summer", permissions=ADMIN_PERMISSIONS, locale="en-US")
    await h.settle()
    final = [m for m in h.fake.channel_messages(h.channel_id) if "Final board" in m.content][-1].content
    assert len(final) <= 2000 and final.count("Spring League 2027") == 1
    parts = final.split("\n\n")[1:]
    assert [p.splitlines()[0] for p in parts] == ["**Wuhu leaderboard**", "**Hefei leaderboard**",
                                                  "**Chizhou leaderboard**"]
    places = [sum(1 for line in p.splitlines() if line.lstrip("_")[:1].isdigit()) for p in parts]
    assert len(set(places)) == 1 and places[0] >= 8, places  # the same for each: as many as fit
    assert not any(line == "…" for line in final.splitlines()[-3:])
