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
