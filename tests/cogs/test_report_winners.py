"""Who the weekly report's "Biggest hand" and the /correct void hand picker name as a hand's winner: the player whose
win it was, with that win's value (Hefei lets several players win on one discard)."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.store import LedgerRow, SeatSpec, Store
from cogs.report import report_scene
from tests.cogs.test_group import autocomplete
from tests.harness import ADMIN_PERMISSIONS, CHANNEL_ID, GUILD_ID, USER_ID, Harness

A, B, C, D = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3
NAMES = {A: "小明", B: "Bob", C: "張三", D: "Dee"}
SH = ZoneInfo("Asia/Shanghai")
WEEK_HAND = datetime(2030, 1, 8, 20, tzinfo=SH)  # in the week Jan 7-13, 2030 (China time)
REPORT_DAY = datetime(2030, 1, 14).date()


async def boot(tmp_path: Path, seats: list[SeatSpec], rows: list[LedgerRow]) -> Harness:
    """A server whose one settled hand (Hefei, in the reported week) has ``rows``."""
    db = tmp_path / "bot.db"
    store = await Store.open(db)
    mid = await store.start_match(GUILD_ID, CHANNEL_ID, "hefei", {}, 1, seats, at=WEEK_HAND)
    hid = await store.start_hand(mid, 0, "h0", None, at=WEEK_HAND)
    await store.finish_hand(hid, rows, at=WEEK_HAND)
    await store.finish_match(mid, at=WEEK_HAND)
    await store.close()
    h = await Harness.boot(db)
    for p, n in NAMES.items():
        h.fake.add_user(p, n)
    return h


async def picker(h: Harness, locale: str = "en-US") -> list[str]:
    """The names of the /correct void hand picker's choices."""
    got = await autocomplete(h, "correct void", "hand", "", permissions=ADMIN_PERMISSIONS, locale=locale, hand=1,
                             reason="x")
    return [c["name"] for c in got]


async def test_a_double_win_on_one_discard_names_each_winner_with_their_own_win(tmp_path: Path):
    """一炮多响: Bob (seat 1) wins 4 and 張三 (seat 2) wins 16 on Dee's discard. The week's biggest hand is 張三's
    16 (not "Bob · 16"), and the picker names both wins, each with its own value."""
    seats = [SeatSpec.human(p, NAMES[p]) for p in (A, B, C, D)]
    rows = [LedgerRow(0, 0), LedgerRow(1, 4, won=True, hand_value=4), LedgerRow(2, 16, won=True, hand_value=16),
            LedgerRow(3, -20, deal_in=True)]
    h = await boot(tmp_path, seats, rows)
    try:
        _, scene = await report_scene(h.bot, GUILD_ID, REPORT_DAY, "en")
        assert dict(scene.records)["Biggest hand"] == "張三 · 16 子 · Hefei"
        [choice] = await picker(h)
        assert choice.endswith(" · Hefei · Bob +4, 張三 +16"), choice
    finally:
        await h.close()


async def test_an_ai_seats_win_is_named_as_its_table_named_it(tmp_path: Path):
    """An AI seat wins the week's biggest hand. Its difficulty ("normal", kept in the ledger) is no name: the
    report, the picker and the public answer to /correct void name it as a table does (电脑1 / AI 1), in the
    language of each text."""
    seats = [SeatSpec.human(p, NAMES[p]) for p in (A, B, C)] + [SeatSpec.bot("normal")]
    rows = [LedgerRow(0, -16, deal_in=True), LedgerRow(1, 0), LedgerRow(2, 0),
            LedgerRow(3, 16, won=True, hand_value=16)]
    h = await boot(tmp_path, seats, rows)
    try:
        _, scene = await report_scene(h.bot, GUILD_ID, REPORT_DAY, "zh")
        assert dict(scene.records)["最大一手"] == "电脑1 · 16 子 · 合肥"
        [choice] = await picker(h)
        assert choice.endswith(" · AI 1 +16"), choice
        [choice] = await picker(h, "zh-CN")
        assert choice.endswith(" · 电脑1 +16"), choice
        void = (await h.slash("correct void", hand=1, reason="x", permissions=ADMIN_PERMISSIONS,
                              locale="zh-CN")).reply.content
        assert "小明 +16, Bob 0, 張三 0, 电脑1 -16" in void and "normal" not in void, void
    finally:
        await h.close()


async def test_an_ai_seat_keeps_the_name_its_table_gave_it(tmp_path: Path):
    """A match whose table named its AI seats (the match's metadata, as a table stores it when it starts): the
    report names the winning AI seat by that name, in whatever language the report speaks."""
    seats = [SeatSpec.human(p, NAMES[p]) for p in (A, B)] + [SeatSpec.bot("normal"), SeatSpec.bot("strong")]
    rows = [LedgerRow(0, -16, deal_in=True), LedgerRow(1, 0), LedgerRow(2, 0),
            LedgerRow(3, 16, won=True, hand_value=16)]
    db = tmp_path / "bot.db"
    store = await Store.open(db)
    mid = await store.start_match(GUILD_ID, CHANNEL_ID, "hefei", {}, 1, seats, at=WEEK_HAND,
                                  meta={"seats": [{"name": "小明"}, {"name": "Bob"}, {"name": "电脑2", "ai": "normal"},
                                                  {"name": "电脑1", "ai": "strong"}]})
    hid = await store.start_hand(mid, 0, "h0", None, at=WEEK_HAND)
    await store.finish_hand(hid, rows, at=WEEK_HAND)
    await store.finish_match(mid, at=WEEK_HAND)
    await store.close()
    h = await Harness.boot(db)
    try:
        _, scene = await report_scene(h.bot, GUILD_ID, REPORT_DAY, "en")
        assert dict(scene.records)["Biggest hand"] == "电脑1 · 16 子 · Hefei"
    finally:
        await h.close()
