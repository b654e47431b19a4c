"""What the /leaderboard and /stats images say they are of: the season with its dates, the period and the source.

The image's subtitle was one line, shortened in its middle on the board (the middle fell on the season's dates and
the period once a period or a source was chosen) and at its end on the stats card (which lost "this week" and "in
person": a shared screenshot then passed in-person figures of one week off as the player's whole record). Now the
period and the source go to a second line when the whole does not fit one, and only the season's name is shortened,
so every other part of the text's subtitle is on the image whole (docs/leaderboard.md)."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from PIL import Image

from bot.store import group as gstore
from tests.harness import CHANNEL_ID, GUILD_ID, USER_ID, Harness
from tests.render.imgutil import fit_texts

A, B, C, D = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3
SEATS = {"east": A, "south": B, "west": C, "north": D}
LONG = "芜湖麻将俱乐部春季联赛"


@pytest.fixture
async def h(harness: Harness):
    for p, n in ((A, "Ann"), (B, "Bob"), (C, "Cid"), (D, "Dee")):
        harness.fake.add_user(p, n)
    now = datetime.now(UTC)
    await gstore.start_season(harness.bot.store, GUILD_ID, A, LONG, ends_at=now + timedelta(days=60),
                              channel_id=CHANNEL_ID, at=now - timedelta(days=1))
    await harness.slash("record", user=B, hand="1234678922m345s+5m", winner=B, discarder=C, variant="hefei", **SEATS)
    card = next(m for m in harness.channel() if "Hand played in person #1" in m.content)
    await harness.click(card, label="Confirm", user=C)
    return harness


def parts_after_the_name(text_subtitle: str) -> tuple[str, list[str]]:
    """The text's subtitle around the season's name: what comes before it, and each part after it (the dates, the
    period, the source)."""
    before, after = text_subtitle.replace("\\", "").split(LONG)
    return before, [p.strip() for p in after.split(" · ") if p.strip()]


@pytest.mark.parametrize("command", ["leaderboard", "stats"])
@pytest.mark.parametrize("locale", ["zh-CN", "zh-TW", "en-US"])
async def test_the_images_keep_the_seasons_dates_the_period_and_the_source(h: Harness, monkeypatch, command, locale):
    options = {"variant": "hefei"} if command == "leaderboard" else {"player": B}
    shown = fit_texts(monkeypatch)
    r = await h.slash(command, period="week", source="in_person", locale=locale, **options)
    subtitle = r.reply.content.splitlines()[0].split("** · ", 1)[1]  # after the title (the board's, Bob's name)
    before, parts = parts_after_the_name(subtitle)
    assert len(parts) == 3, parts  # the season's dates, the period, the source
    lines = [(text, size) for text, size in shown if before in text or any(p in text for p in parts)]
    for part in (before.strip(" ·"), *parts):  # each whole on one line of the image, at a readable size
        assert any(part in text for text, _ in lines), (part, lines)
    assert all(size >= 14 for _, size in lines), lines
    plain = await h.slash(command, locale=locale, **options)  # the season alone: one line
    heights = [Image.open(io.BytesIO(x.reply.images[0])).height for x in (r, plain)]
    assert heights[0] == heights[1] + 22  # the second line
