"""A player's DMs when Discord fails them for a while, and when the player's DMs are closed, then opened.

Only Discord's "this user does not take your DMs" (403 with code 50007) says a player's DMs are closed: the channel
is told once and My hand shows the hand. A 5xx (or a 429, or the network) past every try is Discord failing, not the
player: nobody is told their DMs are closed, the hand waits and is sent again, the latest state, once Discord
answers, one request at a time and ever more slowly meanwhile. A seat marked closed gets a DM again at each new
hand: once one goes through (the player opened their DMs), its hands come by DM again.
"""

from __future__ import annotations

import asyncio

from tests.cogs.test_tables import (
    P1,
    a_hand_ended,
    button_id,
    choose_click,
    controls,
    latest_dm_controls,
    live,
    open_table,
    play_until_hand_ends,
    prep,
)
from tests.harness import Harness
from tests.harness.simclock import SimClock

DM_CLOSED = "你关闭了私信"  # (the server's language: 简体中文) "your DMs are closed"
DM_DOWN = "私信暂时发不出"  # "DMs delayed (Discord is failing)" on the table message
CLOSED_LIST = "私信关闭"  # "hand by My hand (DMs closed)" on the table message


def pinged(h: Harness, user: int) -> list[str]:
    return [m.content for m in h.channel() if f"<@{user}>" in m.content]


def dm_tries(h: Harness, user: int, status: int | None = None) -> int:
    return len([r for r in h.fake.requests_to(h.fake.dm_path(user)) if status is None or r.status == status])


async def _outlast_the_tries(h: Harness, tries: int) -> None:
    """Let the outage last longer than every try of the DM write (a few tries of a few milliseconds here)."""
    for _ in range(500):
        if dm_tries(h, P1, 503) >= tries:
            break
        await asyncio.sleep(0.01)
    await h.settle()


async def test_discord_down_for_a_while_does_not_tell_players_their_dms_are_closed(harness: Harness):
    """Discord answers 503 to every REST request for longer than a write's tries (with the product's backoff,
    0.5 + 2 + 5 + 15 s: any outage over ~23 s) just as the next hand is dealt. Once it answers, nobody was told
    "I cannot DM you (your DMs are closed)" (a falsehood: it was Discord), the seat is not marked, and the hand that
    waited reaches P1's DMs."""
    h = harness
    lt = await a_hand_ended(h)
    mgr = h.bot.tables
    mgr.publisher.backoff = (0.01, 0.01)  # the product's tries, in milliseconds
    storm = h.fake.fail(r"^/(channels|users)/", status=503, times=10**9)
    dms_before = len(h.dms(P1))
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)  # the interaction itself answers
    await _outlast_the_tries(h, 3 + 1)  # every try of the first round, and one of the slower ones after it
    seat = lt.seats[lt.seat_of(P1)]
    assert storm.hits and not seat.dm_failed  # (Discord failing: nothing says the player closed their DMs)
    storm.remaining = 0  # Discord is back
    await mgr.wait_idle()
    await h.settle()
    told = pinged(h, P1)
    assert not [c for c in told if DM_CLOSED in c], f"the channel told P1 a falsehood: {told}"
    assert not seat.dm_failed and not seat.dm_down
    assert len(h.dms(P1)) > dms_before  # the new hand came by DM once Discord answered
    text = h.fake.find_message(lt.message_id).content
    assert DM_DOWN not in text and CLOSED_LIST not in text
    # and the hand plays on by DM as before
    await play_until_hand_ends(h, [P1], lt)


async def test_while_dms_fail_my_hand_plays_and_the_dms_come_back_after(harness: Harness):
    """Discord fails P1's DMs only (503 past every try) while the channel works: the table message says P1's DMs
    are delayed (no ping, no "closed"), P1 plays by My hand meanwhile, and once Discord answers, P1's decisions come
    by DM again."""
    h = harness
    lt = await a_hand_ended(h)
    mgr = h.bot.tables
    mgr.publisher.backoff = (0.01, 0.01)
    outage = h.fake.fail(h.fake.dm_path(P1), status=503, times=10**9)
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)
    await _outlast_the_tries(h, 3)
    seat = lt.seats[lt.seat_of(P1)]
    await h.settle()
    table_msg = h.fake.find_message(lt.message_id)
    assert DM_DOWN in table_msg.content and not pinged(h, P1) and not seat.dm_failed
    for _ in range(3):  # meanwhile My hand shows the hand and its controls
        if lt.seat_of(P1) not in lt.table.awaited() or lt.table.phase not in ("play", "claim", "rob"):
            break
        table_msg = h.fake.find_message(lt.message_id)
        r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1)
        assert controls(r.reply)
        await h.click(r.reply, custom_id=choose_click(r.reply))
        await h.settle()
    outage.remaining = 0
    await mgr.wait_idle()
    assert not seat.dm_failed and not seat.dm_down and not pinged(h, P1)
    assert DM_DOWN not in h.fake.find_message(lt.message_id).content
    await play_until_hand_ends(h, [P1], lt)  # (it asserts the controls are in P1's DMs whenever P1 is awaited)


async def test_an_outage_costs_a_waiting_dm_a_request_a_minute_not_a_storm(harness: Harness):
    """Ten (simulated) minutes of 503 on P1's DMs, the product's backoff: the hand due to P1 is tried 5 times over
    22.5 s, then once at 30 s, then once a minute (16 requests in all, where Discord gives a bot 50 a second). The
    table message says, without a ping, that P1's DMs are delayed; a minute after Discord answers the DM is there
    and the table message no longer says so."""
    h = harness
    lt = await a_hand_ended(h)
    await h.bot.tables.wait_idle()
    clock = SimClock()
    pub = h.bot.tables.publisher
    pub.clock, pub.sleep = clock.time, clock.sleep
    assert pub.backoff == (0.5, 2.0, 5.0, 15.0)
    outage = h.fake.fail(h.fake.dm_path(P1), status=503, times=10**9)
    before = dm_tries(h, P1)
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)  # the next hand is due by DM
    await h.settle()
    assert outage.hits, "nothing was due to P1 by DM"
    await clock.advance(60.0, h.settle)
    seat = lt.seats[lt.seat_of(P1)]
    assert not seat.dm_failed
    assert DM_DOWN in h.fake.find_message(lt.message_id).content and not pinged(h, P1)
    await clock.advance(540.0, h.settle)
    tries = dm_tries(h, P1) - before
    assert tries <= 5 + 1 + 10, f"{tries} requests to P1's DMs in a 10-minute outage"
    outage.remaining = 0  # Discord answers again
    await clock.advance(61.0, h.settle)
    await h.bot.tables.wait_idle()
    assert not seat.dm_down and not seat.dm_failed and not pinged(h, P1)
    assert DM_DOWN not in h.fake.find_message(lt.message_id).content
    assert dm_tries(h, P1) - before <= tries + 2  # the hand that waited, and what it left to tidy
    if lt.table.phase in ("play", "claim", "rob") and lt.seat_of(P1) in lt.table.awaited():
        assert latest_dm_controls(h, P1) is not None


async def test_closed_dms_opened_again_get_the_hand_by_dm_from_the_next_hand(harness: Harness):
    """P1's DMs are closed (403 50007): the channel is told once, P1 plays by My hand. At each new hand one DM is
    tried again; while it is refused nothing more is said. P1 opens their DMs: from the next hand their hand comes
    by DM again and the table message no longer lists them."""
    h = harness
    prep(h)
    h.bot.tables.timers.next_hand = 3600.0
    h.fake.close_dms(P1)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    seat = lt.seats[lt.seat_of(P1)]

    async def by_my_hand() -> None:
        for _ in range(300):
            if lt.table.phase not in ("play", "claim", "rob"):
                return
            table_msg = h.fake.find_message(lt.message_id)
            r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1)
            await h.click(r.reply, custom_id=choose_click(r.reply))
        raise AssertionError("the hand did not end")

    async def next_hand() -> None:
        await h.bot.tables.wait_idle()
        table_msg = h.fake.find_message(lt.message_id)
        await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)
        await h.bot.tables.wait_idle()

    assert seat.dm_failed and len(pinged(h, P1)) == 1 and h.dms(P1) == []
    await by_my_hand()
    refused = h.fake.requests_to(h.fake.dm_path(P1), "POST")
    await next_hand()  # still closed: one DM tried at the new hand, refused, nothing said
    assert len(h.fake.requests_to(h.fake.dm_path(P1), "POST")) == len(refused) + 1
    assert seat.dm_failed and len(pinged(h, P1)) == 1
    assert CLOSED_LIST in h.fake.find_message(lt.message_id).content
    await by_my_hand()
    h.fake.close_dms(P1, False)  # P1 opens their DMs
    await next_hand()
    assert not seat.dm_failed and h.dms(P1), "P1's DMs are open again, but the hand does not come by DM"
    assert CLOSED_LIST not in h.fake.find_message(lt.message_id).content
    assert len(pinged(h, P1)) == 1
    await play_until_hand_ends(h, [P1], lt)  # by DM


async def test_a_dm_refused_for_another_reason_does_not_say_the_dms_are_closed(harness: Harness):
    """A 403 that is not 50007 (not the player's closed DMs) gives that one DM up, and only it: the channel is not
    told the player's DMs are closed and the next state of the hand goes by DM."""
    h = harness
    prep(h)
    fault = h.fake.fail(h.fake.dm_path(P1), method="POST", status=403, code=50013, times=1,
                        message="Missing Permissions")
    await open_table(h, "hefei", humans=(P1,))
    await h.bot.tables.wait_idle()
    lt = live(h)
    assert fault.hits == 1
    assert not lt.seats[lt.seat_of(P1)].dm_failed and not pinged(h, P1)
    if lt.seat_of(P1) in lt.table.awaited() and latest_dm_controls(h, P1) is None:  # (the refused DM was this one)
        table_msg = h.fake.find_message(lt.message_id)
        r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1)
        await h.click(r.reply, custom_id=choose_click(r.reply))
    await play_until_hand_ends(h, [P1], lt)
