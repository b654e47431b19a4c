"""What the table's image says while a claim window is open at a table of several humans."""

from __future__ import annotations

from bot.tables.state import LiveTable
from tests.cogs.test_tables import P1, P2, P3, choose_click, latest_dm_controls, live, open_table, prep
from tests.harness import Harness


async def three_to_a_window(h: Harness) -> LiveTable:
    """Chizhou with seed 8 (``prep(h, seed=8)`` first), three humans: the first two discards, after which P2's 六万
    waits on P1 (碰) and P3 (吃)."""
    await open_table(h, "chizhou", humans=(P1, P2, P3))
    lt = live(h)
    for _ in range(2):
        u = next(u for u in (P1, P2, P3) if lt.seat_of(u) in lt.table.awaited())
        m = latest_dm_controls(h, u)
        await h.click(m, custom_id=choose_click(m))
    return lt


async def test_during_a_claim_window_the_table_image_waits_on_the_claims_not_on_the_discarder(harness: Harness):
    """Chizhou, seed 8: P2 discards 六万 and the table waits for P1 (碰) and P3 (吃). The image's header said
    "轮到 南 player7002" and tagged P2 "出牌" (to play), while P2's own hand message said it waits for the others:
    at a table of several humans P2 looked like the one holding the table up for the whole window."""
    h = harness
    prep(h, seed=8)
    h.bot.tables.timers.next_hand = 3600.0
    lt = await three_to_a_window(h)
    await h.bot.tables.wait_idle()
    tb = lt.table
    assert tb.phase == "claim" and lt.seat_of(P2) not in tb.awaited() and len(tb.awaited()) == 2
    kind, scene, seq = [x for x in h.seen.public_images() if x[0] == "table"][-1]
    assert seq == tb.seq
    assert scene.turn is None and scene.claims == "claim"
    # the discarded tile stays marked, and once a claim or the window's end moves play on, a turn is shown again
    assert scene.last_discard is not None and scene.last_discard[0] == lt.seat_of(P2)
    for u in (P1, P3):
        if lt.seat_of(u) in lt.table.awaited():
            m = latest_dm_controls(h, u)
            await h.click(m, custom_id=choose_click(m))  # (a pass: no win is offered on that tile)
    await h.bot.tables.wait_idle()
    kind, scene, seq = [x for x in h.seen.public_images() if x[0] == "table"][-1]
    assert lt.table.phase == "play" and scene.turn == lt.table.turn and scene.claims == ""
