"""A ``/record`` whose card was lost: the record is stored, then the bot is killed (or the post is cut short)
before its card reaches Discord. The record used to wait, cardless, until it expired (24 h by default), and recording
the hand again was refused with a reference to a card nobody could see. Now the scheduler posts the lost card (at
the first tick after a start, or once the record is older than ``CARD_GRACE``), with a nonce so that a retry is the
same message; a new proposal of the same hand replaces a record whose card was lost; a card Discord refuses for good
withdraws its record and says so in the channel. On SQLite and on PostgreSQL."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from bot.store import records as rstore
from tests.cogs import test_record
from tests.cogs.test_group_posts import kill_on
from tests.cogs.test_record import HEFEI, SEATS, B, C, last, press, record
from tests.harness import CHANNEL_ID, GUILD_ID, Harness
from tests.harness.db import sql
from tests.harness.faults import FlakyConnection

pytestmark = pytest.mark.both_backends

h = test_record.h  # the fixture: a server with one hand played on Discord

T0 = datetime(2031, 3, 1, 12, tzinfo=UTC)
WEBHOOK = "/messages/@original"  # the card fills the command's deferred answer


async def lose_the_card(h: Harness, *, kill: bool) -> tuple[Harness, rstore.Record]:
    """/record, with the process ending (``kill``: a new bot boots) or the command cut short as its card is about
    to go out: the record is stored, its card never reaches Discord."""
    undo = kill_on(h, WEBHOOK, after=False, method="PATCH")
    data, _ = h.slash_payload("record", user=B, hand=HEFEI, winner=B, discarder=C, variant="hefei", **SEATS)
    h.bot._connection.parse_interaction_create(data)
    await h.settle()
    undo()
    rec = await last(h)
    assert rec.status == "pending" and rec.message_id is None and [m for m in h.channel() if m.buttons()] == []
    if kill:
        h = await h.kill()
    return h, rec


def cards(h: Harness) -> list:
    return [m for m in h.channel() if "Hand played in person" in m.content]


async def test_a_bot_killed_before_the_card_is_posted_posts_it_after_the_restart_and_it_counts(h: Harness):
    h, lost = await lose_the_card(h, kill=True)
    try:
        # recorded again before the card is back: the player is not sent to a card that is not there
        again = await record(h)
        assert "its card is still on its way" in again.reply.content and again.reply.ephemeral
        assert sql(h, "SELECT COUNT(*) FROM records") == [(1,)]
        await h.bot.get_cog("Recorder").tick()  # the first tick after the start: no card is on its way now
        await h.settle()
        [card] = cards(h)
        assert card.nonce == f"mjc{lost.record_id}" and card.channel_id == CHANNEL_ID
        assert [b["label"] for b in card.buttons()] == ["Confirm", "Reject"] and len(card.images) == 1
        assert f"#{lost.record_id}" in card.content and "-20 子 ⏳" in card.content
        rec = await last(h)
        assert (rec.record_id, rec.status, rec.message_id) == (lost.record_id, "pending", card.id)
        # the duplicate check now names the card that is there
        again = await record(h)
        assert f"already waiting for confirmations as record #{lost.record_id}" in again.reply.content
        # the payer confirms on the card: the hand is in the ledger, once
        await press(h, rec, "Confirm", C)
        rec = await last(h)
        assert rec.status == "confirmed" and rec.decided_by == C
        assert "Confirmed" in h.fake.find_message(card.id).content and not h.fake.find_message(card.id).buttons()
        at = int(rec.created_at.timestamp() * 1000)
        assert sql(h, "SELECT hand_id, seat, match_id, guild_id, variant, player_id, ai, amount, stack_amount, "
                      "jiao_amount, won, self_draw, deal_in, drawn, hand_value, at, source FROM ledger "
                      "WHERE source = 'in_person' ORDER BY seat") == [
            (rec.hand_id, 0, rec.match_id, GUILD_ID, "hefei", SEATS["east"], None, 0, 0, 0, 0, 0, 0, 0, 0, at,
             "in_person"),
            (rec.hand_id, 1, rec.match_id, GUILD_ID, "hefei", SEATS["south"], None, 20, 0, 0, 1, 0, 0, 0, 20, at,
             "in_person"),
            (rec.hand_id, 2, rec.match_id, GUILD_ID, "hefei", SEATS["west"], None, -20, 0, 0, 0, 0, 1, 0, 0, at,
             "in_person"),
            (rec.hand_id, 3, rec.match_id, GUILD_ID, "hefei", SEATS["north"], None, 0, 0, 0, 0, 0, 0, 0, 0, at,
             "in_person"),
        ]
        assert len(cards(h)) == 1
    finally:
        await h.close()


async def test_a_lost_card_is_posted_once_the_grace_has_passed(h: Harness):
    recorder = h.bot.get_cog("Recorder")
    recorder.clock = lambda: T0
    await recorder.tick()  # the bot's first tick is behind it
    h, lost = await lose_the_card(h, kill=False)
    recorder.clock = lambda: T0 + rstore.CARD_GRACE - timedelta(seconds=1)
    await recorder.tick()  # its card may still be on its way
    await h.settle()
    assert cards(h) == []
    recorder.clock = lambda: T0 + rstore.CARD_GRACE + timedelta(seconds=1)
    await recorder.tick()
    await h.settle()
    await recorder.tick()
    await h.settle()
    [card] = cards(h)
    assert (await last(h)).message_id == card.id and card.nonce == f"mjc{lost.record_id}"


async def test_recording_again_replaces_a_record_whose_card_was_lost(h: Harness):
    recorder = h.bot.get_cog("Recorder")
    recorder.clock = lambda: T0
    await recorder.tick()
    h, lost = await lose_the_card(h, kill=False)
    recorder.clock = lambda: T0 + rstore.CARD_GRACE + timedelta(minutes=1)  # no tick has posted its card yet
    r = await record(h)
    new = await last(h)
    assert new.record_id != lost.record_id and new.status == "pending" and new.message_id == r.reply.id
    old = await rstore.get(h.bot.store, GUILD_ID, lost.record_id)
    assert (old.status, old.decided_by) == ("rejected", rstore.SYSTEM_USER)
    assert sql(h, "SELECT user_id, new_value FROM settings_audit WHERE field = 'record_reject'") == [
        (0, f'"#{lost.record_id} withdrawn: its card was lost; the hand was recorded again"')]
    await recorder.tick()
    await h.settle()
    assert [c.id for c in cards(h)] == [new.message_id]  # the withdrawn one gets no card


async def test_a_lost_card_discord_refuses_withdraws_its_record_and_says_so(h: Harness):
    h, lost = await lose_the_card(h, kill=True)
    try:
        h.fake.fail(rf"^/channels/{CHANNEL_ID}/messages$", method="POST", status=403, code=50013, times=1)
        await h.bot.get_cog("Recorder").tick()
        await h.settle()
        rec = await last(h)
        assert (rec.status, rec.decided_by, rec.message_id) == ("rejected", rstore.SYSTEM_USER, None)
        [notice] = h.channel()[-1:]
        assert f"Record #{lost.record_id}" in notice.content and "withdrawn" in notice.content
        assert cards(h) == []
        r = await record(h)  # the hand can be recorded again at once
        assert (await last(h)).message_id == r.reply.id
    finally:
        await h.close()


async def test_a_bot_killed_after_discord_took_the_lost_card_posts_it_once(h: Harness):
    h, lost = await lose_the_card(h, kill=True)
    try:
        undo = kill_on(h, f"/channels/{CHANNEL_ID}/messages", after=True)
        await asyncio.gather(asyncio.ensure_future(h.bot.get_cog("Recorder").tick()), return_exceptions=True)
        undo()
        assert len(cards(h)) == 1 and (await last(h)).message_id is None
        h = await h.kill()
        await h.bot.get_cog("Recorder").tick()
        await h.settle()
        [card] = cards(h)  # the retry carried the same nonce: Discord gave back the card it had
        assert (await last(h)).message_id == card.id
    finally:
        await h.close()


async def test_a_card_whose_id_was_not_stored_is_not_posted_again(h: Harness):
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("SET message_id", times=1)
    r = await record(h)
    assert flaky.hits == 1 and (await last(h)).message_id is None
    recorder = h.bot.get_cog("Recorder")
    recorder.clock = lambda: datetime.now(UTC) + timedelta(hours=1)
    await recorder.tick()
    await h.settle()
    assert [c.id for c in cards(h)] == [r.reply.id] and (await last(h)).message_id == r.reply.id


# ---------------------------------------------------------------- a card Discord took whose id was never stored

CHANNEL_READS = rf"^/channels/{CHANNEL_ID}/messages$"


def row(h: Harness, rid: int) -> tuple:
    """Every field of a record that its card concerns (the times as whether they are set)."""
    return sql(h, "SELECT guild_id, channel_id, message_id, proposer_id, status, decided_at IS NOT NULL, decided_by, "
                  "match_id IS NOT NULL, hand_id IS NOT NULL, card_stale FROM records WHERE id = ?", (rid,))[0]


def confirmations(h: Harness, rid: int) -> list[tuple]:
    return sql(h, "SELECT seat, player_id, confirmed_by FROM record_seats WHERE record_id = ? ORDER BY seat", (rid,))


async def card_taken_then_killed(h: Harness) -> tuple[Harness, rstore.Record, object]:
    """/record: Discord takes the card (the command's answer), the bot dies before it reads the answer."""
    undo = kill_on(h, WEBHOOK, after=True, method="PATCH")
    data, _ = h.slash_payload("record", user=B, hand=HEFEI, winner=B, discarder=C, variant="hefei", **SEATS)
    h.bot._connection.parse_interaction_create(data)
    await h.settle()
    undo()
    [first] = cards(h)
    rec = await last(h)
    assert rec.message_id is None and row(h, rec.record_id)[2] is None
    return await h.kill(), rec, first


async def test_a_card_discord_took_before_a_kill_is_found_not_posted_again(h: Harness):
    h, rec, first = await card_taken_then_killed(h)
    try:
        await h.bot.get_cog("Recorder").tick()  # the first tick after the start
        await h.settle()
        assert cards(h) == [first] and first.buttons()  # one card, redrawn, its buttons live
        assert row(h, rec.record_id) == (GUILD_ID, CHANNEL_ID, first.id, B, "pending", False, None, False, False, 0)
        # what it cost: one read of the channel, no post, one edit (the card found is redrawn: its state is unknown)
        assert len(h.fake.requests_to(CHANNEL_READS, "GET")) == 1
        assert h.fake.requests_to(CHANNEL_READS, "POST") == []
        assert len(h.fake.requests_to(rf"^/channels/{CHANNEL_ID}/messages/{first.id}$", "PATCH")) == 1
        await h.click(first, label="Confirm", user=C)  # the card works
        assert row(h, rec.record_id)[2:] == (first.id, B, "confirmed", True, C, True, True, 0)
        assert not first.buttons()
        await h.bot.get_cog("Recorder").tick()  # nothing more: no read, no post
        assert len(h.fake.requests_to(CHANNEL_READS, "GET")) == 1 and cards(h) == [first]
    finally:
        await h.close()


async def test_a_card_whose_id_was_not_stored_is_stored_as_the_bot_restarts(h: Harness):
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("SET message_id", times=1)
    r = await record(h)
    rec = await last(h)
    assert flaky.hits == 1 and rec.message_id is None
    h = await h.restart()  # the cog, unloaded, stores what it kept in memory
    try:
        assert row(h, rec.record_id) == (GUILD_ID, CHANNEL_ID, r.reply.id, B, "pending", False, None, False, False, 0)
        n = len(h.fake.requests)  # (the line under the card that notified the payer was a channel post)
        await h.bot.get_cog("Recorder").tick()
        await h.settle()
        assert [c.id for c in cards(h)] == [r.reply.id]
        assert [q for q in h.fake.requests[n:] if q.path.startswith(f"/channels/{CHANNEL_ID}/messages")] == []
    finally:
        await h.close()


async def test_a_channel_that_cannot_be_read_leaves_the_lost_card_to_the_next_tick(h: Harness):
    h, rec, first = await card_taken_then_killed(h)
    try:
        fault = h.fake.fail(CHANNEL_READS, method="GET", status=503, times=1)
        recorder = h.bot.get_cog("Recorder")
        await recorder.tick()
        await h.settle()
        assert cards(h) == [first] and row(h, rec.record_id)[2] is None  # not posted blindly
        assert fault.hits == 1 and h.fake.requests_to(CHANNEL_READS, "POST") == []
        recorder.clock = lambda: datetime.now(UTC) + rstore.CARD_GRACE + timedelta(minutes=1)
        await recorder.tick()
        await h.settle()
        assert cards(h) == [first] and row(h, rec.record_id)[2] == first.id
    finally:
        await h.close()


@pytest.mark.parametrize("op", ["Confirm", "Reject"])
async def test_a_record_decided_while_its_lost_card_is_posted_keeps_one_card_showing_it(h: Harness, op):
    """The bot may not read the channel (403): the lost card is posted again, and a payer presses the first card
    (which Discord had) meanwhile. The press's card stays the record's card; the repost is taken down."""
    h, rec, first = await card_taken_then_killed(h)
    try:
        h.fake.fail(CHANNEL_READS, method="GET", status=403, code=50001, times=1)
        recorder = h.bot.get_cog("Recorder")
        real = recorder._card_files

        async def press_first(*a, **kw):
            await h.click(first, label=op, user=C)
            return await real(*a, **kw)

        recorder._card_files = press_first
        await recorder.tick()
        await h.settle()
        recorder._card_files = real
        await recorder.tick()
        await h.settle()
        status = "confirmed" if op == "Confirm" else "rejected"
        done = op == "Confirm"
        assert row(h, rec.record_id) == (GUILD_ID, CHANNEL_ID, first.id, B, status, True, C, done, done, 0)
        assert [cb for _, player, cb in confirmations(h, rec.record_id)] == [
            C if done and player == C else None for _, player, _ in confirmations(h, rec.record_id)]
        assert cards(h) == [first] and not first.buttons()
        [repost] = h.fake.requests_to(CHANNEL_READS, "POST")  # posted, then deleted
        assert len(h.fake.requests_to(rf"^/channels/{CHANNEL_ID}/messages/\d+$", "DELETE")) == 1
        assert repost.json["nonce"] == f"mjc{rec.record_id}"
    finally:
        await h.close()


async def test_a_card_stored_after_the_record_changed_is_marked_for_a_redraw(h: Harness):
    """set_message with the record as the card was drawn: a change meanwhile marks the card stale; an id already
    stored is kept."""
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("SET message_id", times=1)
    await record(h)
    rec = await last(h)  # pending, its card's id not stored
    store = h.bot.store
    await rstore.confirm(store, GUILD_ID, rec.record_id, C, manager=True)  # marks the card stale...
    await rstore.mark_card(store, GUILD_ID, rec.record_id, stale=False)  # ...cleared, the card id still unknown
    assert row(h, rec.record_id)[2:] == (None, B, "confirmed", True, C, True, True, 0)
    assert await rstore.set_message(store, GUILD_ID, rec.record_id, 111, shown=rec) == 111
    assert row(h, rec.record_id)[2:] == (111, B, "confirmed", True, C, True, True, 1)
    assert await rstore.set_message(store, GUILD_ID, rec.record_id, 222, shown=await last(h)) == 111  # kept
    assert row(h, rec.record_id)[2:] == (111, B, "confirmed", True, C, True, True, 1)


async def test_a_record_confirmed_while_its_card_is_looked_for_keeps_one_card_showing_it(h: Harness, monkeypatch):
    """A payer presses the card Discord had while the scheduler reads the channel for it: one card, confirmed."""
    h, rec, first = await card_taken_then_killed(h)
    try:
        recorder = h.bot.get_cog("Recorder")
        names = type(recorder)._post_lost_card.__globals__  # the module the harness's bot loaded
        real = names["own_post"]

        async def press_meanwhile(*a, **kw):
            found = await real(*a, **kw)
            await h.click(first, label="Confirm", user=C)
            return found

        monkeypatch.setitem(names, "own_post", press_meanwhile)
        await recorder.tick()
        await h.settle()
        monkeypatch.setitem(names, "own_post", real)
        await recorder.tick()
        await h.settle()
        assert row(h, rec.record_id) == (GUILD_ID, CHANNEL_ID, first.id, B, "confirmed", True, C, True, True, 0)
        assert cards(h) == [first] and not first.buttons()
        assert h.fake.requests_to(CHANNEL_READS, "POST") == []
    finally:
        await h.close()
