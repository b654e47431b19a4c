"""The table's timers (turn, claim window, next hand) at tables of several humans, through the real dispatch, on
simulated time (``TableManager.clock`` / ``sleep``): nothing here depends on the machine's speed.

A decision's time counts from when it began (a claim window from its discard, a turn from its start, the next hand
from the hand's end), whatever else the table shows meanwhile; a new decision starts a new count."""

from __future__ import annotations

from bot.tables.state import LiveTable
from bot.tables.strings import t
from tests.cogs.test_table_claim_scene import three_to_a_window
from tests.cogs.test_tables import (
    P1,
    P2,
    P3,
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


def sim_time(h: Harness) -> SimClock:
    clock = SimClock()
    mgr = h.bot.tables
    mgr.clock, mgr.sleep = clock.time, clock.sleep
    return clock


async def test_a_claim_window_is_not_extended_by_each_answer_of_another_player(harness: Harness):
    """Chizhou, seed 8: P2 discards 六万; P1 may 碰 it, P3 (next) may 吃 it; the claim window is 4 s. P3 answers
    吃 after 2 s, P1 never answers: at 4 s from the discard P1 is passed for and P3's 吃 is played (each answer
    used to give the others a fresh full window: 6 s here, 45 s for three humans in a 15 s window)."""
    h = harness
    prep(h, seed=8)
    clock = sim_time(h)
    mgr = h.bot.tables
    mgr.timers.next_hand, mgr.timers.turn, mgr.timers.claim = 3600.0, 3600.0, 4.0
    lt = await three_to_a_window(h)
    await h.settle()
    tb = lt.table
    assert tb.phase == "claim" and {lt.seat_of(P1), lt.seat_of(P3)} <= set(tb.awaited())
    m3 = latest_dm_controls(h, P3)
    chi = next(c["custom_id"] for c in controls(m3) if c["custom_id"].split(":")[4] == "c")
    await clock.advance(2.0, h.settle)
    await h.click(m3, custom_id=chi)
    await h.settle()
    assert lt.table.phase == "claim" and lt.table.awaited() == [lt.seat_of(P1)]
    await clock.advance(1.9, h.settle)
    assert lt.table.phase == "claim", "the window closed before its time"
    await clock.advance(0.1, h.settle)  # 4 s from the discard
    assert lt.table.phase == "play" and lt.table.awaited() == [lt.seat_of(P3)], \
        "the claim window is still open 4 s after it opened"
    assert lt.seats[lt.seat_of(P1)].timeouts == 0  # a window's time-out is not counted towards being taken over


async def turn_of(h: Harness, lt, user: int, others) -> None:
    """Play (the others pass or discard) until it is ``user``'s turn to discard."""
    for _ in range(200):
        tb = lt.table
        if tb.phase == "play" and tb.awaited() == [lt.seat_of(user)]:
            return
        u = next(u for u in (user, *others) if lt.seat_of(u) in tb.awaited())
        m = latest_dm_controls(h, u)
        await h.click(m, custom_id=choose_click(m))
        await h.settle()
    raise AssertionError(f"never {user}'s turn")


async def test_a_turn_is_not_given_its_time_again_when_another_player_chooses_autoplay(harness: Harness):
    """P1's turn (10 s); after 6 s P2, who is waiting, hands their seat to the AI (托管), which shows the table
    again: P1's turn still times out 10 s after it began, not 10 s after P2's click."""
    h = harness
    prep(h)
    clock = sim_time(h)
    mgr = h.bot.tables
    mgr.timers.next_hand, mgr.timers.turn, mgr.timers.claim = 3600.0, 10.0, 3600.0
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    await turn_of(h, lt, P1, (P2,))
    seat = lt.seat_of(P1)
    since = lt.since[seat]
    await clock.advance(6.0, h.settle)
    await h.slash("table autoplay", on="on", user=P2)
    await h.settle()
    assert lt.seats[lt.seat_of(P2)].afk and lt.table.awaited() == [seat] and lt.since[seat] == since
    await clock.advance(3.9, h.settle)
    assert lt.since[seat] == since and lt.seats[seat].timeouts == 0, "the turn timed out early"
    await clock.advance(0.1, h.settle)  # 10 s from the turn's start
    assert lt.seats[seat].timeouts == 1, "P1's turn was given its full time again by P2's 托管"
    # the next decision of P1's (a later turn) gets its own full time again
    await turn_of(h, lt, P1, ())
    await clock.advance(9.9, h.settle)
    assert lt.seats[seat].timeouts == 1
    await clock.advance(0.1, h.settle)
    assert lt.seats[seat].afk and lt.seats[seat].away == "timeout"


async def test_when_every_human_is_away_the_table_says_the_next_hand_waits(harness: Harness):
    """Both friends hand their seats to the AI (托管) and go for dinner; the AI plays the hand out. No timer deals
    hand after hand with nobody there, and the table message says so (it used to promise "starts by itself in
    30 s"); pressing I'm back starts the count again, and the message says it."""
    h = harness
    prep(h)
    clock = sim_time(h)
    mgr = h.bot.tables
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    await h.slash("table autoplay", on="on", user=P1)
    await h.slash("table autoplay", on="on", user=P2)
    await mgr.wait_idle()
    assert lt.table.phase == "ended" and lt.timer is None
    text = h.fake.find_message(lt.message_id).content
    assert t("tables.hand_over_away", lt.lang, n=30) in text and t("tables.hand_over", lt.lang, n=30) not in text
    await clock.advance(3600.0, h.settle)
    assert lt.table.phase == "ended" and lt.table.hand_no == 1
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":back"), user=P1)
    await mgr.wait_idle()
    assert t("tables.hand_over", lt.lang, n=30) in h.fake.find_message(lt.message_id).content
    await clock.advance(30.0, h.settle)
    assert lt.table.phase == "play" and lt.table.hand_no == 1  # the next hand, 30 s after I'm back


async def test_the_next_hand_timer_blames_nobody_for_a_timeout(harness: Harness):
    """Between hands any seated player may press Next hand; nobody does, and the timer deals the next hand 30 s
    after the hand's end. The channel used to say "player7001 超时：开始下一局。", naming whoever sits in chair 0."""
    h = harness
    prep(h)
    clock = sim_time(h)
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    await play_until_hand_ends(h, [P1, P2], lt)
    await h.bot.tables.wait_idle()
    assert lt.table.phase == "ended"
    await clock.advance(29.9, h.settle)
    assert lt.table.phase == "ended"
    await clock.advance(0.1, h.settle)
    await h.bot.tables.wait_idle()
    assert lt.table.phase == "play" and lt.table.hand_no == 1  # the timer dealt hand 2
    blamed = [m.content for m in h.channel() if "超时" in m.content]
    assert not blamed, blamed


async def _between_hands(h: Harness, seconds: float) -> tuple[SimClock, LiveTable]:
    """Two friends (Hefei) on simulated time: the first hand played out, the table message saying the next starts
    by itself in 30 s, and ``seconds`` of that gone."""
    prep(h)
    clock = sim_time(h)
    await open_table(h, "hefei", humans=(P1, P2), locale="en-US")
    lt = live(h)
    await play_until_hand_ends(h, [P1, P2], lt)
    await h.bot.tables.wait_idle()
    assert lt.table.phase == "ended"
    assert t("tables.hand_over", lt.lang, n=30) in h.fake.find_message(lt.message_id).content
    await clock.advance(seconds, h.settle)
    return clock, lt


async def test_a_table_message_edited_between_hands_gives_the_time_left(harness: Harness):
    """Two friends; the hand ends and the next starts by itself 30 s later. 25 s on P2 chooses 托管 and the table
    message is edited: it said "starts by itself in 30 s" again, and the hand came 5 s later. It says 5 s now."""
    h = harness
    clock, lt = await _between_hands(h, 24.5)
    mgr = h.bot.tables
    await h.slash("table autoplay", on="on", user=P2, locale="en-US")
    await mgr.wait_idle()
    text = h.fake.find_message(lt.message_id).content
    assert lt.seats[lt.seat_of(P2)].afk and lt.table.phase == "ended"
    assert t("tables.hand_over", lt.lang, n=6) in text, text  # 5.5 s left, rounded up
    await clock.advance(5.5, h.settle)
    await mgr.wait_idle()
    assert lt.table.phase == "play" and lt.table.hand_no == 1  # dealt when it said


async def test_everyone_away_message_promises_the_30_s_that_i_am_back_really_gives(harness: Harness):
    """Two friends; the hand ends (next hand by itself in 30 s). 24.5 s on P2 chooses 托管 (message: 6 s, right).
    Then P1 chooses 托管 too: everyone is away and the message says the next hand waits for Next hand "or I'm back,
    then N s". N should be 30 (what I'm back really gives); it is the 6 s left of the old count, then P1 presses
    I'm back and the hand comes 30 s later, not 6."""
    h = harness
    clock, lt = await _between_hands(h, 24.5)
    mgr = h.bot.tables
    await h.slash("table autoplay", on="on", user=P2, locale="en-US")
    await mgr.wait_idle()
    await h.slash("table autoplay", on="on", user=P1, locale="en-US")
    await mgr.wait_idle()
    assert lt.everyone_away() and lt.table.phase == "ended"
    text = h.fake.find_message(lt.message_id).content
    assert t("tables.hand_over_away", lt.lang, n=30) in text, text  # (it said the 6 s left of the old count)
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":back"), user=P1)
    await mgr.wait_idle()
    await clock.advance(6.0, h.settle)
    await mgr.wait_idle()
    assert lt.table.phase == "ended", "the next hand came 6 s after I'm back"
    await clock.advance(24.0, h.settle)
    await mgr.wait_idle()
    assert lt.table.phase == "play"  # dealt 30 s after I'm back, as the message said
