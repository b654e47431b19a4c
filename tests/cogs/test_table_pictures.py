"""What a table's pictures say once a hand is over, through the real dispatch (slash commands and clicks in, the
scenes the bot drew out): the dealer badge (庄) of the table picture between hands and at the match's end.
"""

from __future__ import annotations

import pytest

from render.scene import TableScene
from tests.cogs.test_tables import (
    P1,
    button_id,
    live,
    open_table,
    play_the_match_out,
    play_until_hand_ends,
    prep,
)
from tests.harness import Harness


def table_pictures(h: Harness) -> list[TableScene]:
    return [sc for kind, sc, _ in h.seen.public_images() if kind == "table"]


def badge_on(scene: TableScene) -> int:
    """The wind shown on the seat that carries the dealer badge (庄) and the highlighted disc (0 = E)."""
    wind = scene.seats[scene.dealer].wind
    assert wind is not None
    return wind


async def test_the_table_picture_of_a_finished_hand_has_its_dealer_badge_on_east(harness: Harness):
    """G1: E is always that hand's dealer. Between hands the picture shows the finished hand's winds, but its dealer
    badge (庄) and highlighted disc sat on the NEXT hand's dealer, drawn as S, once the deal had passed (found by a
    review). The hand-end post, /table show between hands and the match-end picture: the badge on the seat shown as
    E, the finished hand's dealer."""
    h = harness
    prep(h, seed=1)
    h.bot.tables.timers.next_hand = 3600.0  # the next hand waits for Next
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    for _ in range(30):  # until a hand passes the deal
        await play_until_hand_ends(h, [P1], lt)
        await h.bot.tables.wait_idle()
        if lt.table.view(None)["dealer"] != lt.table.last_result["dealer"]:
            break
        msg = h.fake.find_message(lt.message_id)
        await h.click(msg, custom_id=button_id(msg, ":next"), user=P1)
    else:
        pytest.fail("no hand passed the deal")
    finished = lt.table.last_result["dealer"]
    after_hand = table_pictures(h)[-1]  # the table posted with the hand's result
    h.seen.clear()
    await h.slash("table show", user=P1)
    await h.bot.tables.wait_idle()
    [shown] = table_pictures(h)
    for scene in (after_hand, shown):
        assert scene.dealer == finished and badge_on(scene) == 0
    # the match's end (Hefei: it ends as the deal passes on for the last time)
    msg = h.fake.find_message(lt.message_id)
    await h.click(msg, custom_id=button_id(msg, ":next"), user=P1)
    await play_the_match_out(h, lt)
    await h.bot.tables.wait_idle()
    assert lt.table.phase == "over" and lt.table.view(None)["dealer"] != lt.table.last_result["dealer"]
    last = table_pictures(h)[-1]
    assert last.dealer == lt.table.last_result["dealer"] and badge_on(last) == 0
    assert all(badge_on(sc) == 0 for sc in table_pictures(h))  # and every picture between: the badge on E
