"""The match review where a player looks for it: the end of a match points to it (the replay code of the last hand
and the Match review button), and the card covers every hand of the match. Through the real dispatch."""

from __future__ import annotations

import re

import pytest

from engine.replay import decode_code
from tests.cogs.test_tables import P1, live, open_table, play_until_match_ends, prep
from tests.harness import Harness


@pytest.mark.parametrize("locale, lang, label, found", [
    ("en-US", "en", "Match review", "Your AI review of the whole match"),
    ("zh-CN", "zh", "整场复盘", "整场比赛的 AI 复盘"),
    ("zh-TW", "zh-TW", "整場復盤", "整場比賽的 AI 復盤"),
])
async def test_the_end_of_a_match_leads_to_its_review(harness: Harness, locale: str, lang: str, label: str,
                                                      found: str):
    h = harness
    prep(h)
    await h.bot.store.set_house_rules(h.guild_id, P1, "hefei", {"quan_per_match": 1})
    await h.bot.store.update_guild_settings(h.guild_id, P1, {"language": lang})  # the table speaks it
    await open_table(h, "hefei", locale=locale)
    lt = live(h)
    await play_until_match_ends(h, [P1], lt)
    assert lt.closed
    hands = len(lt.deltas)
    assert hands >= 4
    [summary] = [x for x in h.channel() if "`" in x.content and decode_code_in(x.content) is not None]
    code = decode_code_in(summary.content)
    assert decode_code(code) == (lt.match_id, hands - 1)  # the last hand of the match
    r = await h.slash("replay", user=P1, code=code, locale=locale)
    r2 = await h.click(r.reply, label=label, user=P1, locale=locale)
    assert r2.reply.ephemeral and r2.reply.images
    mr = h.seen.of("match_review")[-1]["review"]
    assert [x.hand_no for x in mr.hands] == list(range(hands))  # every hand of the match, not only this one
    assert f"{mr.cost:.1f} 子" in r2.reply.text and mr.cost == round(sum(x.review.cost for x in mr.hands), 1)
    assert found in summary.content


def decode_code_in(text: str) -> str | None:
    m = re.search(r"`/\S+ ([0-9A-Z]+)`", text)
    return m[1] if m else None
