"""The AI review of a hand the player left to the AI (托管), through the real dispatch."""
from __future__ import annotations

import pytest

from bot.store.history import load_hand
from engine.replay import encode_code
from engine.review import review_hand
from render.common import txt
from render.replay import describe_priced, review_rows
from tests.cogs.test_tables import P1, button_id, live, open_table, prep
from tests.harness import Harness


@pytest.mark.xfail(strict=True, reason="the review reads the stored actions only: it cannot tell the moves the AI "
                   "made for an away (托管) seat from the player's own, and charges them to the player")
async def test_a_hand_played_by_the_ai_for_an_away_player_is_not_charged_to_them(harness: Harness):
    """P1 hands the seat to the AI (托管) at the first turn and the hand plays out without them. Their AI review
    of that hand listed the moves the AI made for them as "You: discard ..." with the 子 they cost; the moves the
    table played for the player must be marked as such (as a timed-out move is), not charged as the player's."""
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    seat = lt.seat_of(P1)
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":auto"), user=P1, locale="en-US")
    assert lt.table.phase in ("ended", "over")
    code = encode_code(lt.match_id, 0)
    r = await h.slash("replay", user=P1, code=code, locale="en-US")
    r2 = await h.click(r.reply, label="AI review", user=P1, locale="en-US")
    assert r2.reply.files  # the card was sent
    _match, rp = await load_hand(h.bot.store, h.guild_id, lt.match_id, 0, code)
    review = review_hand(rp, seat)
    assert len(review.decisions) > 5
    rows = review_rows(review, "en")
    assert rows  # the AI's own moves, priced against the strong AI's
    for step, _loss, you, _ai, _why in rows:
        d = review.at(step)
        assert you != txt("render.replay.you_prefix", "en") + describe_priced(d.played, "en")
