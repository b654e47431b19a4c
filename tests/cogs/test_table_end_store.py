"""Ending a table (``/table end``, a dissolve vote) while the store is behind or down, through the real dispatch.

A hand whose settlement failed (the database locked as it ended) was shown settled to everyone: the result card, the
channel's line, "your move is recorded". Ending the table before the recovery wrote its ledger rows aborted the match
and marked that hand aborted for good: it was gone from the ledger, the summary said +0, no restart could settle it
(found by an independent review, with the reproductions these tests are made of). Now the store's side of ending
comes first: what the table settled is written, then the match is aborted (or finished, when the engine finished
it); a store that does not take it refuses the end, says so, and changes nothing.
"""

from __future__ import annotations

import asyncio

import pytest

from tests.cogs.test_tables import P1, button_id, live, open_table, play_until_hand_ends, prep
from tests.harness import Harness
from tests.harness.db import sql
from tests.harness.faults import FlakyConnection

pytestmark = pytest.mark.both_backends


async def _hand_ended_unsettled(h: Harness):
    """A one-human Hefei table whose first hand ended while its ledger rows could not be written; the recovery
    would come only in an hour."""
    prep(h)
    h.bot.tables.timers.next_hand = 3600.0
    h.bot.tables.store_backoff = (3600.0,)
    h.bot.tables.publisher.backoff = (0.01,)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("INSERT INTO ledger", times=1)
    await play_until_hand_ends(h, [P1], lt)
    assert flaky.hits == 1 and lt.rec.behind is not None and lt.table.phase == "ended"
    return lt, flaky


def _ledger(h: Harness, mid: int) -> list[int]:
    return [a for _, a in sql(h, "SELECT seat, amount FROM ledger WHERE match_id = ? ORDER BY seat", (mid,))]


@pytest.mark.parametrize("how", ["table end", "table dissolve"])
async def test_ending_a_table_settles_the_hand_it_showed_settled(harness: Harness, how):
    h = harness
    lt, _ = await _hand_ended_unsettled(h)
    payments, mid = lt.table.last_result["payments"], lt.match_id
    await h.slash(how, user=P1, locale="en-US")  # (the only human: the dissolve vote passes at once)
    await h.bot.tables.publisher.drain()
    await h.settle()
    assert lt.closed
    assert _ledger(h, mid) == payments  # the hand is in the ledger, not marked aborted
    assert sql(h, "SELECT number, status FROM hands WHERE match_id = ?", (mid,)) == [(0, "finished")]
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]
    totals = [t for (t,) in sql(h, "SELECT total FROM match_seats WHERE match_id = ? ORDER BY seat", (mid,))]
    assert totals == payments
    summary = next(m.content for m in h.channel() if "Final" in m.content or "最终" in m.content)
    for c in range(4):  # the summary's totals are the ledger's
        assert f"{payments[c]:+d}" in summary


async def test_ending_a_table_whose_last_hand_failed_to_settle_finishes_it_once(harness: Harness):
    """The match's last hand ended and its settlement failed; the host ended the table before the recovery: the
    match stayed active, the summary read the store's stale totals, and after a restart the ended table came back
    with a second, different summary."""
    h = harness
    prep(h)
    h.bot.tables.timers.next_hand = 3600.0
    h.bot.tables.store_backoff = (3600.0,)
    await h.bot.store.set_house_rules(h.guild_id, P1, "hefei", {"quan_per_match": 1})
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    mid = lt.match_id
    flaky = FlakyConnection.install(h.bot.store)
    for _ in range(60):
        flaky.rules.clear()
        flaky.fail("INSERT INTO ledger", times=1)
        await play_until_hand_ends(h, [P1], lt)
        if lt.table.phase == "over":
            break
        flaky.rules.clear()
        assert await lt.rec.catch_up()  # (only the last hand's settlement fails)
        table_msg = h.fake.find_message(lt.message_id)
        await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)
    assert lt.table.phase == "over" and lt.rec.behind is not None
    flaky.rules.clear()
    engine_totals = [sum(d[c] for d in lt.deltas) for c in range(4)]
    await h.slash("table end", user=P1, locale="en-US")
    await h.bot.tables.publisher.drain()
    await h.settle()
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("finished",)]
    assert not sql(h, "SELECT number FROM hands WHERE match_id = ? AND status != 'finished'", (mid,))
    totals = [t for (t,) in sql(h, "SELECT total FROM match_seats WHERE match_id = ? ORDER BY seat", (mid,))]
    assert totals == engine_totals
    summaries = [m.content for m in h.channel() if "Final" in m.content or "最终" in m.content]
    n = len(h.channel())
    h2 = await h.restart()
    try:
        await h2.bot.tables.publisher.drain()
        await h2.settle()
        assert mid not in h2.bot.tables.by_id and not h2.channel()[n:]  # not back, no second summary
    finally:
        await h2.close()
    assert len(summaries) == 1 and all(f"{engine_totals[c]:+d}" in summaries[0] for c in range(4))


async def test_ending_a_table_while_the_store_is_down_refuses_and_changes_nothing(harness: Harness):
    """The database is down as the host ends the table: the end is refused in one line ("not ended; nothing was
    changed"), the table plays on, and a restart brings it back as the host was told. Before, the host was told it
    was closed, the abort was retried in the background, and a restart brought it back anyway."""
    h = harness
    lt, flaky = await _hand_ended_unsettled(h)
    payments, mid = lt.table.last_result["payments"], lt.match_id
    h.bot.tables.store_backoff = (0.01, 0.02, 0.05)
    for text in ("UPDATE", "INSERT"):
        flaky.fail(text, times=10**6, error="attempt to write a readonly database")
    r = await h.slash("table end", user=P1, locale="en-US")
    await h.bot.tables.publisher.drain()
    assert [m.content for m in r.messages][-1].startswith("The database did not answer, so the table was not ended")
    assert not lt.closed and h.bot.tables.by_id.get(mid) is lt
    assert not any("closed by" in m.content or "Final" in m.content for m in h.channel())
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("active",)]
    # the database answers again: the end goes through, with the hand settled
    flaky.rules.clear()
    r = await h.slash("table end", user=P1, locale="en-US")
    await h.bot.tables.publisher.drain()
    await h.settle()
    assert lt.closed and _ledger(h, mid) == payments
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]


async def test_a_table_not_ended_for_the_store_comes_back_after_a_kill_as_the_host_was_told(harness: Harness):
    h = harness
    prep(h)
    h.bot.tables.store_backoff = (0.01, 0.02, 0.05)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    mid = lt.match_id
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("SET status = 'aborted'", times=10**6, error="attempt to write a readonly database")
    r = await h.slash("table end", user=P1, locale="en-US")
    await asyncio.sleep(0)
    assert "was not ended" in r.messages[-1].content and not lt.closed
    h2 = await h.kill()
    try:
        await h2.bot.tables.wait_idle()
        await h2.settle()
        assert h2.bot.tables.by_id.get(mid) is not None  # it was not ended: it plays on
    finally:
        await h2.close()
