"""Hands recorded in person, after the fact, through the real discord.py dispatch: the names a confirmation writes,
the card of a hand an admin voided, and a hand recorded again in place of a voided one (``/record replaces:``),
which counts where the voided hand counted (its season, its week) however late it is corrected."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.store import LedgerRow, SeatSpec, Store
from bot.store import group as gstore
from tests.harness import ADMIN_PERMISSIONS, CHANNEL_ID, GUILD_ID, USER_ID, Harness
from tests.harness.db import dump, sql

pytestmark = pytest.mark.both_backends

A, B, C, D = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3
NAMES = {A: "Ann", B: "Bob", C: "Cid", D: "Dee"}
SEATS = {"east": A, "south": B, "west": C, "north": D}
HEFEI = "1234678922m345s+5m"  # the winner (S or N here) takes 20 from W's discard


@pytest.fixture
async def h(db_target: Path | str):
    """Four players who last sat together at a table on Discord eight days ago, when Bob was called "Bobby"."""
    store = await Store.open(db_target)
    at = datetime.now(UTC) - timedelta(days=8)
    seats = [SeatSpec.human(p, "Bobby" if p == B else NAMES[p]) for p in (A, B, C, D)]
    mid = await store.start_match(GUILD_ID, CHANNEL_ID, "hefei", {}, 1, seats, at=at)
    hid = await store.start_hand(mid, 0, "h0", None, at=at)
    await store.finish_hand(hid, [LedgerRow(0, 0), LedgerRow(1, 0), LedgerRow(2, 0), LedgerRow(3, 0, drawn=True)],
                            at=at)
    await store.finish_match(mid, at=at)
    await store.close()
    harness = await Harness.boot(db_target)
    for p, n in NAMES.items():
        harness.fake.add_user(p, n)
    try:
        yield harness
    finally:
        await harness.close()


async def board(h: Harness, **kw) -> str:
    return (await h.slash("leaderboard", variant="hefei", **kw)).reply.content


def card(h: Harness, record_id: int):
    return h.fake.find_message(sql(h, "SELECT message_id FROM records WHERE id = ?", (record_id,))[0][0])


# ------------------------------------------------------------------------------------------------ names


async def test_a_confirmation_writes_the_names_as_proposed_over_older_ones(h: Harness):
    r = await h.slash("record", user=B, hand=HEFEI, winner=B, discarder=C, variant="hefei", **SEATS)
    await h.click(r.reply, label="Confirm", user=C)
    text = await board(h)
    assert "**Bob** · +20 子" in text and "Bobby" not in text


async def test_a_confirmation_keeps_a_name_learnt_after_the_proposal(h: Harness):
    r = await h.slash("record", user=B, hand=HEFEI, winner=B, discarder=C, variant="hefei", **SEATS)
    h.fake.users[B]["global_name"] = h.fake.users[B]["username"] = "Robert"  # Bob renames himself
    await h.slash("correct adjust", payer=B, payee=A, amount=1, reason="tea", variant="hefei",
                  permissions=ADMIN_PERMISSIONS)  # the bot sees the new name
    assert "**Robert** · -1 子" in await board(h)
    await h.click(h.fake.find_message(r.reply.id), label="Confirm", user=C)
    text = await board(h)
    assert "**Robert** · +19 子" in text and "**Bob**" not in text


# ------------------------------------------------------------------------------------------------ a voided hand's card


@pytest.mark.parametrize(("locale", "confirm", "voided", "gone"), [
    ("en-US", "Confirm", "🚫 Voided by <@{admin}> on <t:", "hand #{hand} no longer counts, and its 子 are taken back"),
    ("zh-CN", "确认", "🚫 已被 <@{admin}> 于 <t:", "第 {hand} 号牌局不再计分，它的子在各处都已收回"),
    ("zh-TW", "確認", "🚫 已被 <@{admin}> 於 <t:", "第 {hand} 號牌局不再計分，它的子在各處都已收回"),
])
async def test_the_card_of_a_voided_hand_says_it_no_longer_counts(h: Harness, locale, confirm, voided, gone):
    """The card is in the proposer's language; the scheduler redraws it after the void, even across a restart."""
    r = await h.slash("record", user=B, hand=HEFEI, winner=D, discarder=C, variant="hefei", locale=locale, **SEATS)
    await h.click(r.reply, label=confirm, user=C)
    rid, hand = sql(h, "SELECT id, hand_id FROM records")[0]
    await h.slash("correct void", hand=hand, reason="Bob won, not *Dee*", permissions=ADMIN_PERMISSIONS, user=A)
    h = await h.restart()  # the card to redraw is kept in the database
    try:
        await h.bot.get_cog("Recorder").tick()  # the scheduler's round
        await h.settle()
        text = card(h, rid).content.split("\n\n")[0]
        assert voided.format(admin=A) in text and gone.format(hand=hand) in text
        assert "Bob won, not \\*Dee\\*" in text  # the reason, as typed (markdown shown, not applied)
        assert "Confirmed: in the ledger" not in text and "已确认" not in text and "已確認" not in text
        assert not card(h, rid).buttons()
    finally:
        await h.close()


# ------------------------------------------------------------------------------------------------ made again in place


async def wrong_hand_of_last_season(h: Harness) -> int:
    """Season 1 ("Autumn") started ten days ago; three days ago the table recorded a hand with the wrong winner (Dee
    instead of Bob) and Cid confirmed it; today season 2 ("Winter") starts. The wrong hand's id."""
    now = datetime.now(UTC)
    await gstore.start_season(h.bot.store, GUILD_ID, A, "Autumn", ends_at=None, channel_id=CHANNEL_ID,
                              at=now - timedelta(days=10))
    recorder = h.bot.get_cog("Recorder")
    recorder.clock = lambda: now - timedelta(days=3)
    r = await h.slash("record", user=D, hand=HEFEI, winner=D, discarder=C, variant="hefei", **SEATS)
    await h.click(r.reply, label="Confirm", user=C)
    recorder.clock = lambda: datetime.now(UTC)
    await h.slash("season start", title="Winter", permissions=ADMIN_PERMISSIONS)
    return sql(h, "SELECT hand_id FROM records WHERE id = 1")[0][0]


async def test_a_hand_recorded_again_in_place_of_a_voided_one_counts_in_its_season(h: Harness):
    wrong = await wrong_hand_of_last_season(h)
    played_at = sql(h, "SELECT at FROM ledger WHERE hand_id = ? AND seat = 0", (wrong,))[0][0] // 1000
    r = await h.slash("correct void", hand=wrong, reason="Bob won, not Dee", permissions=ADMIN_PERMISSIONS)
    assert f"/record … replaces:{wrong}" in r.reply.content  # how to put it right
    r = await h.slash("record", user=A, hand=HEFEI, winner=B, discarder=C, variant="hefei", replaces=wrong,
                      permissions=ADMIN_PERMISSIONS, **SEATS)
    assert f"↩️ Recorded again in place of hand #{wrong} (voided): it counts when that hand was played, " \
           f"<t:{played_at}:f>." in r.reply.content
    await h.click(r.reply, label="Confirm", user=C)
    s1, s2 = await board(h, season="1"), await board(h, season="2")
    assert "**Bob** · +20 子 · played 2 · won 1" in s1 and "**Cid** · -20 子" in s1 and "**Dee** · 0 子" in s1
    assert "Bob" not in s2 and "Cid" not in s2  # nothing was played in season 2
    new = sql(h, "SELECT hand_id FROM records WHERE id = 2")[0][0]
    assert f"in the ledger as hand #{new}" in h.fake.find_message(r.reply.id).content
    # the voided hand's card names the hand made in its place (redrawn by the scheduler)
    await h.bot.get_cog("Recorder").tick()
    await h.settle()
    old = card(h, 1).content.split("\n\n")[0]
    assert "🚫 Voided by" in old and f"↩️ Recorded again in its place: record #2, in the ledger as hand #{new}." in old


async def test_only_a_voided_hand_is_made_again_and_only_once(h: Harness):
    wrong = await wrong_hand_of_last_season(h)
    again = dict(hand=HEFEI, winner=B, discarder=C, variant="hefei", **SEATS)
    before = dump(h)
    r = await h.slash("record", user=B, replaces=wrong, **again)  # a player, not an admin
    assert r.reply.ephemeral and "Only a Manage Server member can record a hand in place of a voided one" \
        in r.reply.content
    r = await h.slash("record", user=A, replaces=wrong, permissions=ADMIN_PERMISSIONS, **again)
    assert r.reply.ephemeral and f"Hand {wrong} still counts: void it first with /correct void" in r.reply.content
    r = await h.slash("record", user=A, replaces=wrong + 1000, permissions=ADMIN_PERMISSIONS, **again)
    assert r.reply.ephemeral and f"There is no hand {wrong + 1000} on this server." in r.reply.content
    assert dump(h) == before and h.channel()[-1].content.startswith("🏁")  # nothing stored, nothing posted
    await h.slash("correct void", hand=wrong, reason="Bob won, not Dee", permissions=ADMIN_PERMISSIONS)
    first = await h.slash("record", user=A, replaces=wrong, permissions=ADMIN_PERMISSIONS, **again)
    r = await h.slash("record", user=A, replaces=wrong, permissions=ADMIN_PERMISSIONS, **{**again, "winner": D})
    assert r.reply.ephemeral and f"Record #2 is already waiting for its confirmations in place of hand {wrong}" \
        in r.reply.content
    await h.click(first.reply, label="Confirm", user=C)
    r = await h.slash("record", user=A, replaces=wrong, permissions=ADMIN_PERMISSIONS, **{**again, "winner": D})
    new = sql(h, "SELECT hand_id FROM records WHERE id = 2")[0][0]
    assert r.reply.ephemeral and f"Hand {wrong} was already recorded again in its place: record #2, hand {new}." \
        in r.reply.content
    assert sql(h, "SELECT COUNT(*) FROM records")[0][0] == 2


@pytest.mark.parametrize(("locale", "manager", "not_void"), [
    ("zh-CN", "只有有管理服务器权限的成员才能在已作废的牌局的位置重新记账", "号牌局还在计分：请先用 /更正 作废 作废它"),
    ("zh-TW", "只有有管理伺服器權限的成員才能在已作廢的牌局的位置重新記帳", "號牌局還在計分：請先用 /更正 作廢 作廢它"),
])
async def test_the_refusals_in_chinese(h: Harness, locale, manager, not_void):
    wrong = await wrong_hand_of_last_season(h)
    again = dict(hand=HEFEI, winner=B, discarder=C, variant="hefei", replaces=wrong, locale=locale, **SEATS)
    assert manager in (await h.slash("record", user=B, **again)).reply.content
    assert not_void in (await h.slash("record", user=A, permissions=ADMIN_PERMISSIONS, **again)).reply.content
