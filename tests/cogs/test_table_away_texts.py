"""An away seat's hand message says why the AI plays it, as the seat records it: the player timed out twice
(tests/cogs/test_tables.py), chose 托管, or was replaced by the host. A player who chose 托管 or was replaced was
told "you timed out twice", which they never did."""

from __future__ import annotations

import pytest

from tests.cogs.test_tables import P1, P2, button_id, live, open_table, play_until_hand_ends, prep
from tests.harness import Harness

TIMED_OUT = ("timed out", "超时", "超時")


@pytest.mark.parametrize("locale, chosen", [("en-US", "you chose auto-play"), ("zh-CN", "你选择了托管"),
                                            ("zh-TW", "你選擇了託管")])
async def test_a_seat_handed_to_the_ai_by_choice_is_told_so_not_that_it_timed_out(harness: Harness, locale, chosen):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1,), locale=locale)
    lt = live(h)
    await h.slash("table autoplay", on="on", user=P1, locale=locale)  # the AI plays the hand out
    await h.bot.tables.wait_idle()
    assert lt.table.phase in ("ended", "over")
    last = h.dms(P1)[-1].content
    assert chosen in last and not any(w in last for w in TIMED_OUT), last


@pytest.mark.parametrize("locale, replaced", [("en-US", "The host handed your seat to the AI"),
                                              ("zh-CN", "房主让电脑代打你的座位"), ("zh-TW", "房主讓電腦代打你的座位")])
async def test_a_seat_the_host_replaced_is_told_so_not_that_it_timed_out(harness: Harness, locale, replaced):
    h = harness
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1)
    lobby = r.reply
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":join"), user=P2, locale=locale)
    for _ in range(2):
        await h.slash("table addbot", user=P1)
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=P1)
    lt = live(h)
    await h.slash("table replace", member=P2, user=P1)
    await play_until_hand_ends(h, [P1], lt)
    await h.bot.tables.wait_idle()
    last = h.dms(P2)[-1].content
    assert replaced in last and not any(w in last for w in TIMED_OUT), last


async def test_a_seat_on_autoplay_then_replaced_by_the_host_is_told_it_was_replaced(harness: Harness):
    """The away text was written once: a player on 托管 whom the host then replaced was still told they chose
    auto-play. The latest hand message is written again (one edit) when the cause changes."""
    h = harness
    prep(h)
    lobby = (await h.slash("table new", variant="hefei", user=P1)).reply
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":join"), user=P2)
    for _ in range(2):
        await h.slash("table addbot", user=P1)
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=P1)
    lt = live(h)
    await h.slash("table autoplay", on="on", user=P2)
    await h.bot.tables.wait_idle()
    assert "you chose auto-play" in h.dms(P2)[-1].content
    edits = h.dms(P2)[-1].edits
    await h.slash("table replace", member=P2, user=P1)
    await h.bot.tables.wait_idle()
    assert lt.seats[lt.seat_of(P2)].away == "replaced"
    last = h.dms(P2)[-1]
    assert "The host handed your seat to the AI" in last.content and "you chose auto-play" not in last.content
    assert last.edits == edits + 1
    await play_until_hand_ends(h, [P1], lt)
    await h.bot.tables.wait_idle()
    assert "The host handed your seat to the AI" in h.dms(P2)[-1].content
