"""The AI review of a hand the player left to the AI (托管), through the real dispatch."""
from __future__ import annotations

import json

from bot.store.history import load_hand
from cogs.memory import names_of
from engine.replay import encode_code
from engine.review import review_hand
from render.common import txt
from tests.cogs.test_table_admin import hand_to_ai
from tests.cogs.test_tables import P1
from tests.harness import Harness


async def test_a_hand_played_by_the_ai_for_an_away_player_is_not_charged_to_them(harness: Harness):
    """P1 hands the seat to the AI (托管) at the first turn and the hand plays out without them. Their AI review of
    that hand listed the moves the AI made for them as "You: discard ..." with the 子 they cost. The moves the table
    played for the player are stored as the AI's ("ai": true) and the review leaves them out: the card the AI review
    button sends says how many moves the AI made for them and charges none."""
    from render.replay import render_review, review_layout

    h = harness
    lt, seat, _r = await hand_to_ai(h)
    assert lt.table.phase in ("ended", "over")
    stored = [json.loads(a.action) for a in await h.bot.store.actions(lt.match_id)]
    mine = [a for a in stored if a["seat"] == seat and a["type"] != "next_hand"]
    assert mine and all(a.get("ai") is True for a in mine)  # every move of P1's seat was the AI's
    assert not any(a.get("ai") for a in stored if a["seat"] != seat)  # the AI seats' own moves carry no mark
    code = encode_code(lt.match_id, 0)
    r = await h.slash("replay", user=P1, code=code, locale="en-US")
    r2 = await h.click(r.reply, label="AI review", user=P1, locale="en-US")
    match, rp = await load_hand(h.bot.store, h.guild_id, lt.match_id, 0, code)
    review = review_hand(rp, seat)
    assert review.decisions == () and review.cost == 0 and review.by_ai > 5
    assert r2.reply.text.endswith(f"{review.by_ai} more moves were made for you by the AI (away, 托管): they are not "
                                  "judged as yours")
    name, data = next(iter(r2.reply.files.items()))
    assert data == render_review(review, rp, "dark", "en", "", names_of(match, "en"), show_all=True)
    _h, texts, _f = review_layout(review, rp, "en", "", names_of(match, "en"), show_all=True)
    drawn = " ".join(x.text for x in texts)
    assert f"{review.by_ai} more moves were made for you by the AI" in drawn
    assert "The AI played this hand for you" in drawn  # not "your decisions matched the AI's"
    assert "no loss" not in drawn
    assert not any(x.text.startswith(txt("render.replay.you_prefix", "en")) for x in texts)


async def test_the_replay_marks_the_moves_the_ai_made_for_an_away_player(harness: Harness):
    """P1 hands the seat to the AI (托管) and the hand plays out without them. Stepping through the replay, P1's
    steps read "E P1 discards 9m" and the image showed no review under them, as if P1 had chosen them; the caption
    marks them （托管） and the line under the hand says the AI played it for them (the review leaves those moves out),
    in zh-CN, zh-TW and en. The AI seats' own moves carry no mark."""
    h = harness
    lt, seat, _r = await hand_to_ai(h)
    code = encode_code(lt.match_id, 0)
    _match, rp = await load_hand(h.bot.store, h.guild_id, lt.match_id, 0, code)
    mine = next(k for k, s in enumerate(rp.steps, 1) if s.seat == seat and s.by_ai)
    other = next(k for k, s in enumerate(rp.steps, 1) if s.seat != seat)
    marks = {"en-US": (" (AI, 托管)",
                       "The AI played this for you (away, 托管): not judged as your decision"),
             "zh-CN": ("（托管）", "这一步是 AI 替你打的（托管）：不算作你的决策"),
             "zh-TW": ("（託管）", "這一步是 AI 替你打的（託管）：不算作你的決策")}
    for locale, (mark, line) in marks.items():
        r = await h.slash("replay", user=P1, code=code, locale=locale)
        seen: dict[int, object] = {}
        for _ in range(max(mine, other)):
            await h.click(r.reply, custom_id=next(b["custom_id"] for b in r.reply.buttons() if b.get("label") == "▶"),
                          user=P1, locale=locale)
            viewer, scene = h.seen.replay_images()[-1]
            assert viewer == P1
            seen[scene.step] = scene
        assert seen[mine].caption.endswith(mark) and seen[mine].review == (("", line, None),)
        assert "托管" not in seen[other].caption and "託管" not in seen[other].caption
