"""A match's last words survive the process: a bot killed (or restarted during a Discord outage) after a match or a
hand ended in the store, but before the channel and the DMs were told, says it at its next start, once.

Killed right after ``/table end`` was stored: the next start says the table ended, posts the summary, and takes the
controls off the table message and every DM. Killed before a hand's result went out: the resumed table shows it
(with the wall's reveal). Killed before the last hand's result and the summary went out: both are posted. A match
closed in full is never closed again (the store forgets its messages: ``match_meta.messages`` is ``{}``).
"""

from __future__ import annotations

import asyncio
import json

import pytest

from bot.tables.resume import close_left_open
from tests.cogs.test_tables import (
    P1,
    button_id,
    controls,
    latest_dm_controls,
    live,
    open_table,
    play_until_hand_ends,
    prep,
)
from tests.harness import Harness
from tests.harness.db import sql

pytestmark = pytest.mark.both_backends

REVEAL = "第 1 局牌墙公开"  # the first hand's wall reveal, the last line of its result
SUMMARY = "最终子数"  # the match summary
CLOSED_UNSAID = "这一桌在机器人重启前刚刚结束"  # tables.closed_unsaid


def stored_messages(h: Harness, match_id: int) -> dict:
    [(text,)] = sql(h, "SELECT messages FROM match_meta WHERE match_id = ?", (match_id,))
    return json.loads(text)


def live_controls(h: Harness) -> tuple[list, list]:
    """(P1's DMs with play controls, the channel's messages with any table control)."""
    dms = [m for m in h.dms(P1) if controls(m)]
    table = [m for m in h.channel() if any(c["custom_id"].startswith("mjt:") for c in m.buttons())]
    return dms, table


def said(h: Harness, text: str) -> int:
    return sum(m.content.count(text) for m in h.channel())


async def _end_then_kill(h: Harness, monkeypatch, turns: int) -> tuple[Harness, int]:
    """/table end is stored (the match aborted), then the process dies ``turns`` turns of the loop later."""
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await h.bot.tables.wait_idle()
    assert latest_dm_controls(h, P1) is not None
    store = h.bot.store
    real = store.abort_match
    done = asyncio.Event()

    async def abort_then_note(*a, **k):
        got = await real(*a, **k)
        done.set()
        return got

    monkeypatch.setattr(store, "abort_match", abort_then_note)
    data, _ = h.slash_payload("table end", user=P1, locale="en-US")
    h.bot._connection.parse_interaction_create(data)
    await asyncio.wait_for(done.wait(), 10)
    for _ in range(turns):
        await asyncio.sleep(0)
    assert said(h, CLOSED_UNSAID) == 0
    h2 = await h.kill()
    await h2.bot.tables.wait_idle()
    await h2.settle()
    return h2, lt.match_id


@pytest.mark.parametrize("turns", [0, 3, 20])
async def test_killed_right_after_table_end_was_stored(harness: Harness, monkeypatch, turns: int):
    h2, mid = await _end_then_kill(harness, monkeypatch, turns)
    try:
        assert sql(h2, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]
        dms, table = live_controls(h2)
        assert not dms and not table, "the table is over, its buttons stay"
        if turns == 0:  # nothing of the end went out before the kill: it is said now, with the summary
            assert said(h2, CLOSED_UNSAID) == 1 and said(h2, SUMMARY) == 1
        assert said(h2, SUMMARY) <= 1 + (turns > 0)
        assert h2.channel_id not in h2.bot.tables.by_channel and P1 not in h2.bot.tables.by_player
        assert stored_messages(h2, mid) == {}
        last = len(h2.channel())
        h3 = await h2.restart()  # closed in full: a later start says nothing more
        try:
            await h3.bot.tables.wait_idle()
            await h3.settle()
            assert len(h3.channel()) == last
        finally:
            await h3.close()
    except BaseException:
        await h2.close()
        raise


async def test_the_dm_says_why_its_controls_went(harness: Harness, monkeypatch):
    h2, _ = await _end_then_kill(harness, monkeypatch, 0)
    try:
        last = h2.dms(P1)[-1]
        assert not controls(last) and last.content == "This table has ended."  # (P1 plays in English)
        # and P1, no longer held by the table, may open another
        r = await h2.slash("table new", variant="hefei", user=P1)
        assert r.reply is not None and h2.channel_id in h2.bot.tables.by_channel  # P1 may sit again
    finally:
        await h2.close()


async def test_clean_restart_during_a_5xx_storm_right_after_table_end(harness: Harness):
    """A deploy while Discord answers 503 to every message edit: the shutdown gives the strips up; the next start,
    with Discord answering again, takes the controls off."""
    h = harness
    prep(h)
    h.bot.tables.publisher.backoff = (0.01,)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    mid = lt.match_id
    await h.bot.tables.wait_idle()
    storm = h.fake.fail(r"/messages/\d+$", method="PATCH", status=503, times=10**9)
    await h.slash("table end", user=P1, locale="en-US")
    await asyncio.sleep(0.05)
    assert stored_messages(h, mid) != {}  # (the strips are still failing)
    h2 = await h.restart()
    try:
        storm.remaining = 0
        await h2.bot.tables.wait_idle()
        await h2.settle()
        assert storm.hits > 0
        dms, table = live_controls(h2)
        assert not dms and not table
        assert stored_messages(h2, mid) == {}
    finally:
        await h2.close()


async def test_killed_before_the_hands_result_got_out(harness: Harness):
    """The hand ends while Discord fails every write to the channel; the process dies. The resumed table shows the
    result, with the wall's reveal, once; Next deals the next hand."""
    h = harness
    prep(h)
    h.bot.tables.timers.next_hand = 3600.0
    h.bot.tables.publisher.backoff = (0.01,)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await h.bot.tables.wait_idle()
    storm = h.fake.fail(f"^/channels/{h.channel_id}/messages", status=503, times=10**9)
    await play_until_hand_ends(h, [P1], lt)
    assert said(h, REVEAL) == 0
    h2 = await h.kill()
    try:
        storm.remaining = 0
        await h2.bot.tables.wait_idle()
        await h2.settle()
        lt2 = h2.bot.tables.by_id[lt.match_id]
        assert lt2.table.phase == "ended"
        assert said(h2, REVEAL) == 1, "the hand's result and wall reveal were never shown"
        payments = lt2.table.last_result["payments"]
        card = h2.fake.find_message(lt2.message_id)
        names = lt2.names()
        assert all(f"{names[c]} {payments[c]:+d}" in card.content for c in range(4))
        assert stored_messages(h2, lt.match_id)["shown"] == 0
        h3 = await h2.restart()  # shown: not shown again
        try:
            await h3.bot.tables.wait_idle()
            await h3.settle()
            assert said(h3, REVEAL) == 1
            lt3 = h3.bot.tables.by_id[lt.match_id]
            table_msg = h3.fake.find_message(lt3.message_id)
            await h3.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)
            await h3.bot.tables.wait_idle()
            assert lt3.table.phase in ("play", "claim", "rob")
        finally:
            await h3.close()
    except BaseException:
        await h2.close()
        raise


async def test_a_result_that_went_out_is_not_shown_again(harness: Harness):
    h = harness
    prep(h)
    h.bot.tables.timers.next_hand = 3600.0
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await play_until_hand_ends(h, [P1], lt)
    await h.bot.tables.wait_idle()
    assert said(h, REVEAL) == 1
    h2 = await h.kill()
    try:
        await h2.bot.tables.wait_idle()
        await h2.settle()
        assert said(h2, REVEAL) == 1
        assert h2.bot.tables.by_id[lt.match_id].table.phase == "ended"
    finally:
        await h2.close()


async def test_killed_before_the_last_hands_result_and_the_summary_got_out(harness: Harness, monkeypatch):
    """The match's last hand is stored (the match finished), then Discord fails every write to the channel and the
    process dies: the next start posts the last hand's result and the summary, and leaves no control."""
    h = harness
    prep(h)
    h.bot.tables.publisher.backoff = (0.01,)
    await h.bot.store.set_house_rules(h.guild_id, P1, "hefei", {"quan_per_match": 1})
    await open_table(h, "hefei")
    lt = live(h)
    storm = h.fake.fail(f"^/channels/{h.channel_id}/messages", status=503, times=0)
    store = h.bot.store
    real = store.finish_match

    async def finish_then_storm(*a, **k):
        got = await real(*a, **k)
        storm.remaining = 10**9  # the channel fails from the match's end on
        return got

    monkeypatch.setattr(store, "finish_match", finish_then_storm)
    for _ in range(40):  # (as play_until_match_ends, without waiting for the writes: the storm holds them)
        await play_until_hand_ends(h, [P1], lt)
        await h.settle()
        if lt.closed:
            break
        table_msg = h.fake.find_message(lt.message_id)
        await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)
    assert lt.closed and said(h, SUMMARY) == 0
    last = len(lt.deltas)
    reveal = f"第 {last} 局牌墙公开"
    assert said(h, reveal) == 0
    h2 = await h.kill()
    try:
        storm.remaining = 0
        await h2.bot.tables.wait_idle()
        await h2.settle()
        assert sql(h2, "SELECT status FROM matches WHERE id = ?", (lt.match_id,)) == [("finished",)]
        assert said(h2, reveal) == 1 and said(h2, SUMMARY) == 1
        [summary] = [m for m in h2.channel() if SUMMARY in m.content]
        m = await h2.bot.store.match(lt.match_id)
        names = lt.names()
        for s in m.seats:
            assert f"{names[s.seat]} {s.total:+d}" in summary.content
        assert said(h2, CLOSED_UNSAID) == 0  # a match that finished did not end early
        dms, table = live_controls(h2)
        assert not dms and not table
        assert stored_messages(h2, lt.match_id) == {}
    finally:
        await h2.close()


async def test_a_match_closed_in_full_leaves_nothing_to_close(harness: Harness):
    """/table end with Discord answering: the end is said once, the store forgets the messages, a restart says
    nothing."""
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await h.slash("table end", user=P1)
    await h.bot.tables.wait_idle()
    await h.settle()
    assert stored_messages(h, lt.match_id) == {}
    before = len(h.channel())
    h2 = await h.kill()
    try:
        await h2.bot.tables.wait_idle()
        await h2.settle()
        assert len(h2.channel()) == before
    finally:
        await h2.close()


ENDED_BY = "结束了这一桌"  # tables.ended_by


@pytest.mark.parametrize("stop", ["kill", "restart"])
async def test_a_dm_outage_through_the_close_out_leaves_it_to_the_next_start(harness: Harness, stop: str):
    """/table end while Discord fails P1's DM edits past every try: the DM keeps its controls and the store keeps
    the match's list, with what was said (the end, the summary). The next start takes the controls off and says
    nothing twice."""
    h = harness
    prep(h)
    h.bot.tables.publisher.backoff = (0.01, 0.01)  # (the product's: 0.5, 2, 5, 15 s)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await h.bot.tables.wait_idle()
    outage = h.fake.fail(h.fake.dm_path(P1), method="PATCH", status=503, times=10**9)
    await h.slash("table end", user=P1)
    for _ in range(500):  # (the DM's strip is tried again, more slowly, for as long as Discord fails it)
        if outage.hits >= 3 + 1:
            break
        await asyncio.sleep(0.01)
    await h.settle()
    assert outage.hits >= 3 + 1
    dms, table = live_controls(h)
    assert dms and not table  # the DM's strip waits for Discord; the table message's went through
    assert said(h, ENDED_BY) == 1 and said(h, SUMMARY) == 1
    kept = stored_messages(h, lt.match_id)
    assert kept["end"] == 1 and kept["summary"] == 1 and kept["dm"]
    h2 = await (h.kill() if stop == "kill" else h.restart())
    try:
        outage.remaining = 0  # Discord answers again
        await h2.bot.tables.wait_idle()
        await h2.settle()
        dms, table = live_controls(h2)
        assert not dms and not table
        assert said(h2, ENDED_BY) == 1 and said(h2, SUMMARY) == 1 and said(h2, CLOSED_UNSAID) == 0
        assert stored_messages(h2, lt.match_id) == {}
    finally:
        await h2.close()


async def test_a_match_that_finished_in_full_is_not_closed_again(harness: Harness):
    """A match plays to its end with Discord answering: its last result and summary go out once, the store forgets
    its messages, and a restart posts neither again."""
    h = harness
    prep(h)
    await h.bot.store.set_house_rules(h.guild_id, P1, "hefei", {"quan_per_match": 1})
    await open_table(h, "hefei")
    lt = live(h)
    for _ in range(40):
        await play_until_hand_ends(h, [P1], lt)
        await h.bot.tables.wait_idle()
        if lt.closed:
            break
        table_msg = h.fake.find_message(lt.message_id)
        await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)
    await h.settle()
    last = f"第 {len(lt.deltas)} 局牌墙公开"
    assert lt.closed and said(h, last) == 1 and said(h, SUMMARY) == 1
    assert stored_messages(h, lt.match_id) == {}
    h2 = await h.kill()
    try:
        await h2.bot.tables.wait_idle()
        await h2.settle()
        assert said(h2, last) == 1 and said(h2, SUMMARY) == 1
        dms, table = live_controls(h2)
        assert not dms and not table
    finally:
        await h2.close()


async def test_a_sweep_while_this_run_closes_the_match_leaves_it_alone(harness: Harness, monkeypatch):
    """A sweep of the matches left open (a shard gained runs one) while this process is in the middle of /table
    end (the abort stored, the summary's totals being read slowly): the match is closed once, by /table end."""
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    await h.bot.tables.wait_idle()
    store = h.bot.store
    real_match = store.match
    reading, go = asyncio.Event(), asyncio.Event()

    async def slow_match(*a, **k):
        reading.set()
        await go.wait()  # (a slow database: the totals' read takes a while)
        return await real_match(*a, **k)

    monkeypatch.setattr(store, "match", slow_match)
    data, _ = h.slash_payload("table end", user=P1, locale="en-US")
    h.bot._connection.parse_interaction_create(data)
    await asyncio.wait_for(reading.wait(), 10)
    await close_left_open(h.bot.tables)
    go.set()
    await h.bot.tables.wait_idle()
    await h.settle()
    assert said(h, SUMMARY) == 1 and said(h, CLOSED_UNSAID) == 0 and said(h, ENDED_BY) == 1


async def test_a_post_out_whose_mark_was_not_stored_is_not_posted_twice(harness: Harness, monkeypatch):
    """/table end: its end and summary go out, and the process dies before their marks reach the store (the few
    milliseconds after a post). The next start posts them again with the same nonces: Discord returns the first
    ones, so each is in the channel once."""
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await h.bot.tables.wait_idle()

    async def not_stored(*a, **k):  # (the process dies before these writes reach the store)
        return None

    monkeypatch.setattr(h.bot.tables.publisher, "mark_stored", not_stored)
    monkeypatch.setattr(h.bot.tables.publisher, "closed_out", not_stored)
    await h.slash("table end", user=P1)
    await h.settle()
    assert said(h, ENDED_BY) == 1 and said(h, SUMMARY) == 1
    assert "end" not in stored_messages(h, lt.match_id)
    h2 = await h.kill()
    try:
        await h2.bot.tables.wait_idle()
        await h2.settle()
        assert said(h2, ENDED_BY) == 1 and said(h2, SUMMARY) == 1 and said(h2, CLOSED_UNSAID) == 0
        dms, table = live_controls(h2)
        assert not dms and not table
        assert stored_messages(h2, lt.match_id) == {}
        creates = [r for r in h2.fake.requests_to(rf"^/channels/{h2.channel_id}/messages$", "POST")
                   if (r.json or {}).get("nonce") == f"mj{lt.match_id}t1"]
        assert len(creates) == 2  # the summary was sent twice, and shown once
    finally:
        await h2.close()


async def test_rate_limits_during_the_close_out_hold_it_until_the_writes_are_out(harness: Harness):
    """/table end while Discord answers 429 to the first edits of P1's DM and of the table message: the writes wait
    and go out, and only then does the store forget the match's messages; nothing is said twice."""
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await h.bot.tables.wait_idle()
    h.fake.rate_limit(h.fake.dm_path(P1), method="PATCH", times=2)
    h.fake.rate_limit(rf"^/channels/{h.channel_id}/messages/\d+$", method="PATCH", times=2)
    await h.slash("table end", user=P1)
    await h.bot.tables.wait_idle()
    await h.settle()
    dms, table = live_controls(h)
    assert not dms and not table
    assert said(h, ENDED_BY) == 1 and said(h, SUMMARY) == 1
    assert stored_messages(h, lt.match_id) == {}
    assert [r for r in h.fake.requests if r.status == 429]  # (the limits were met)
