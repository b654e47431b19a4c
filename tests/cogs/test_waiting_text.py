"""What a player's hand message says while the table waits on others: whom it waits for, and nothing private.

Played through the real dispatch (the players press only the buttons the bot gave them); the texts are checked
against what every seat may know: whose turn it is, who discarded, which seats are players present.
"""

from __future__ import annotations

import pytest

from tests.cogs.test_tables import button_id, choose_click, latest_dm_controls, live, prep
from tests.harness import Harness

P1, P2, P3 = 7001, 7002, 7003
HUMANS = (P1, P2, P3)

TEXTS = {  # (whose turn, a claim window: the players present who may be deciding), as the player reads them
    "en-US": ("Waiting for {name} to play.", "Waiting for claims on the discard (players who may be deciding: {names})."),
    "zh-CN": ("等待 {name} 出牌。", "等待他人决定是否要这张弃牌（可能在考虑的：{names}）。"),
    "zh-TW": ("等待 {name} 出牌。", "等待他人決定是否要這張棄牌（可能在考慮的：{names}）。"),
}


async def open_three(h: Harness, locale: str) -> None:
    r = await h.slash("table new", variant="hefei", user=P1, locale=locale)
    lobby = r.reply
    for u in HUMANS[1:]:
        await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":join"), user=u, locale=locale)
    await h.slash("table addbot", user=P1, locale=locale)
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=P1, locale=locale)


@pytest.mark.parametrize("locale", list(TEXTS))
async def test_the_waiting_hand_message_names_whom_the_table_waits_for(harness: Harness, locale):
    """A player who had acted read only "Waiting for the others": not whose turn it was, nor that a claim window
    was open. The hand message names the player whose turn it is, and is written again when the turn moves on (a
    player neither acting nor next reads the new name); in a claim window it names every player present other than
    the discarder, whoever of them can claim (who can claim is never told), and no AI seat (they answer at once)."""
    h = harness
    prep(h, seed=3)
    h.bot.tables.timers.next_hand = 3600.0
    await open_three(h, locale)
    lt = live(h)
    names = lt.names()
    turn_text, claim_text = TEXTS[locale]
    seen = {"turn": 0, "claim": 0, "moved_on": 0}
    waits = {turn_text.format(name=n) for n in names}
    before: dict[int, str] = {}
    before_count: dict[int, int] = {}
    for _ in range(400):
        await h.bot.tables.wait_idle()
        tb = lt.table
        if tb.phase not in ("play", "claim"):
            break
        for u in HUMANS:
            seat = lt.seat_of(u)
            if seat in tb.awaited():
                continue
            text = h.dms(u)[-1].text.split("\n")[1]
            if tb.phase == "play":
                assert text == turn_text.format(name=names[tb.turn])
                seen["turn"] += 1
                if before.get(u) in waits - {text} and len(h.dms(u)) == before_count[u]:
                    seen["moved_on"] += 1  # the same message, edited: the turn moved on while this player waited
            else:
                discarder = tb.last_discard[0]
                present = [names[lt.seat_of(o)] for o in HUMANS if o != u and lt.seat_of(o) != discarder]
                assert text == claim_text.format(names=", ".join(sorted(present, key=names.index)))
                assert "AI" not in text
                seen["claim"] += 1
        before = {u: h.dms(u)[-1].text.split("\n")[1] for u in HUMANS}
        before_count = {u: len(h.dms(u)) for u in HUMANS}
        u = next(u for u in HUMANS if lt.seat_of(u) in tb.awaited())
        msg = latest_dm_controls(h, u)
        assert msg is not None
        await h.click(msg, custom_id=choose_click(msg))
    assert seen["turn"] and seen["claim"] and seen["moved_on"], seen
