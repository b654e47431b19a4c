"""Several humans at one table: a player who is not on turn has "Waiting for the others" as their latest hand
message. When the AI takes their seat (the host replaced them, they chose 托管), the host ends the table or the match
is over, that message says so (playing.md, "Timers and being away" and "Safe buttons"): it used to keep saying
"Waiting for the others" about a seat the AI played, or a table that was gone. Each of these costs one edit of that
message, and none when it already says so."""

from __future__ import annotations

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

WAITING = ("Waiting for the others", "等待其他人")


def waiting_humans(lt, humans):
    """The seated humans the table does not wait for now (their latest hand message has no controls)."""
    return [u for u in humans if lt.seat_of(u) not in lt.table.awaited()]


async def three_humans(h: Harness, variant: str = "hefei"):
    prep(h)
    h.bot.tables.timers.next_hand = 3600.0  # the next hand waits for Next
    await open_table(h, variant, humans=(P1, P2, P3))
    await h.bot.tables.wait_idle()
    return live(h)


def dm_writes(h: Harness, user: int, since: int) -> list:
    """Writes with the bot token (Discord's global budget) to ``user``'s DM channel since request ``since``."""
    dms = h.dms(user)
    channel = dms[-1].channel_id if dms else None
    return [r for r in h.fake.requests[since:] if r.transport == "http" and r.method != "GET"
            and r.path.startswith(f"/channels/{channel}/")]


async def test_a_waiting_player_replaced_by_the_host_is_told_in_their_hand_message(harness: Harness):
    """One edit tells them; the hands the AI plays for them after it write nothing more to their DMs."""
    h = harness
    lt = await three_humans(h)
    target = waiting_humans(lt, (P2, P3))[0]
    last = h.dms(target)[-1]
    assert not controls(last) and any(w in last.content for w in WAITING)
    n = len(h.fake.requests)
    await h.slash("table replace", member=target, user=P1)
    await h.bot.tables.wait_idle()
    assert lt.seats[lt.seat_of(target)].away == "replaced"
    last = h.dms(target)[-1]
    assert "The host handed your seat to the AI" in last.content, last.content
    assert not any(w in last.content for w in WAITING)
    assert len(dm_writes(h, target, n)) == 1  # that one edit
    edits = last.edits
    others = [u for u in (P1, P2, P3) if u != target]
    await play_until_hand_ends(h, others, lt)
    await h.bot.tables.wait_idle()
    assert h.dms(target)[-1].id == last.id and h.dms(target)[-1].edits == edits  # it says so already: no edit


async def test_a_waiting_player_who_chooses_autoplay_is_told_in_their_hand_message(harness: Harness):
    h = harness
    lt = await three_humans(h)
    target = waiting_humans(lt, (P1, P2, P3))[0]
    await h.slash("table autoplay", on="on", user=target)
    await h.bot.tables.wait_idle()
    last = h.dms(target)[-1].content
    assert "you chose auto-play" in last and not any(w in last for w in WAITING), last


async def test_a_waiting_player_who_presses_autoplay_on_the_table_message_is_told_in_their_hand_message(
        harness: Harness):
    """The 托管 button is on the table message: while that click is decided, the player's hand writes are held, and
    the rewording held back was sent again as a plain removal of controls (there were none): nothing was written."""
    h = harness
    lt = await three_humans(h)
    target = waiting_humans(lt, (P1, P2, P3))[0]
    tm = h.fake.find_message(lt.message_id)
    await h.click(tm, custom_id=button_id(tm, ":auto"), user=target)
    await h.bot.tables.wait_idle()
    assert lt.seats[lt.seat_of(target)].away == "autoplay"
    last = h.dms(target)[-1].content
    assert "you chose auto-play" in last and not any(w in last for w in WAITING), last


async def test_when_the_host_ends_the_table_a_waiting_player_is_told_it_ended(harness: Harness):
    h = harness
    lt = await three_humans(h)
    others = waiting_humans(lt, (P1, P2, P3))
    assert others
    await h.slash("table end", user=P1)
    await h.bot.tables.wait_idle()
    assert lt.closed
    for u in (P1, P2, P3):
        last = h.dms(u)[-1].content
        assert not any(w in last for w in WAITING) and "This table has ended." in last, (u, last)


async def test_at_the_end_of_the_match_every_player_is_told_the_match_is_over(harness: Harness):
    """Between hands a waiting player's message is not edited (the table message shows the result); at the match's
    end every player's latest hand message says it is over, one edit each for those who were waiting."""
    h = harness
    lt = await three_humans(h, "wuhu")
    humans = (P1, P2, P3)
    for _ in range(40):
        for _ in range(600):
            if lt.table.phase not in ("play", "claim", "rob"):
                break
            u = next(u for u in humans if lt.seat_of(u) in lt.table.awaited())
            m = latest_dm_controls(h, u)
            await h.click(m, custom_id=choose_click(m))
        await h.bot.tables.wait_idle()
        if lt.closed:
            break
        tm = h.fake.find_message(lt.message_id)
        await h.click(tm, custom_id=button_id(tm, ":next"), user=P1)
    assert lt.closed
    for u in humans:
        last = h.dms(u)[-1]
        assert "The match is over" in last.content, (u, last.content)
        assert not controls(last)


async def test_a_rewording_held_back_during_a_click_is_still_written(harness: Harness):
    """While a player's click is decided their hand writes are held (``Publisher.hold``); the host's replace
    decided meanwhile was released as a plain removal of controls, and a player without controls was told
    nothing."""
    h = harness
    lt = await three_humans(h)
    target = waiting_humans(lt, (P2, P3))[0]
    seat = lt.seat_of(target)
    h.bot.tables.publisher.hold(lt, seat)  # (as a click of theirs being decided does)
    await h.slash("table replace", member=target, user=P1)
    await h.bot.tables.wait_idle()
    h.bot.tables.publisher.release(lt, seat)  # (the click did not show it: its answer edits another message)
    await h.bot.tables.wait_idle()
    last = h.dms(target)[-1].content
    assert "The host handed your seat to the AI" in last, last
