"""/table new when Discord fails its answer: the lobby is stored, so the host is told the table is open and how to
show it, never "nothing was changed, try again" (which a second /table new would contradict: the channel has a
table)."""

from __future__ import annotations

import pytest

from tests.cogs.test_group_faults import CALLBACK, NOTHING, SAID_DONE, quick_retries  # noqa: F401 - the fixture
from tests.cogs.test_memory_faults import done
from tests.cogs.test_tables import P1, prep
from tests.harness import Harness


@pytest.mark.parametrize("locale", list(SAID_DONE))
async def test_a_lobby_whose_answer_discord_failed_is_told_open_and_shown_on_asking(harness: Harness, locale):
    h = harness
    prep(h)
    fault = h.fake.fail(CALLBACK, status=503, times=5)
    data, rec = h.slash_payload("table new", user=P1, variant="wuhu", locale=locale)
    h.bot._connection.parse_interaction_create(data)
    await done(h, rec)
    assert fault.hits == 5
    told = " ".join(m.text for m in rec.messages)
    assert SAID_DONE[locale] in told and {"en-US": "/table show", "zh-CN": "/牌桌 显示",
                                          "zh-TW": "/牌桌 顯示"}[locale] in told, told
    assert not any(n in told for n in NOTHING)
    assert h.channel() == []  # nothing was posted
    shown = await h.slash("table show", user=P1, locale=locale)
    lobby = shown.reply
    assert not lobby.ephemeral and lobby.embeds and any(b["label"] for b in lobby.buttons())
    again = await h.slash("table new", user=P1, variant="wuhu", locale=locale)
    assert again.reply.ephemeral  # the channel has its table: refused, as the first answer said
