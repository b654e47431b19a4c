"""Hands recorded in person, after the fact, through the real discord.py dispatch: the names a confirmation writes,
the card of a hand an admin voided, and a hand recorded again in place of a voided one (``/record replaces:``),
which counts where the voided hand counted (its season, its week) however late it is corrected."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.store import LedgerRow, SeatSpec, Store
from tests.harness import ADMIN_PERMISSIONS, CHANNEL_ID, GUILD_ID, USER_ID, Harness
from tests.harness.db import sql

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
