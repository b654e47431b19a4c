"""My hand when Discord fails its answer: the click is deferred ("thinking..."), then the hand goes as a follow-up.
Discord failing that follow-up (5xx past discord.py's tries) is an expected condition: one warning line in the log, no
ERROR with a traceback, and the player's "thinking..." is replaced by a note to press My hand again (where Discord
takes that edit)."""

from __future__ import annotations

import asyncio
import logging
import types

import discord.webhook.async_ as webhook_client
import pytest

from tests.cogs.test_tables import P1, button_id, live, open_table, prep
from tests.harness import Harness

WEBHOOK_TRIES = 5  # discord.py's webhook client tries a request 5 times on a 5xx


@pytest.fixture
def no_webhook_waits(monkeypatch):
    """discord.py's webhook client waits 1 + 2n s between its tries of a 5xx: without the waits (and only those)."""
    real = asyncio

    async def no_wait(_s, *a, **k):
        await real.sleep(0)

    fake = types.SimpleNamespace(**{k: getattr(real, k) for k in dir(real) if not k.startswith("__")} | {"sleep": no_wait})
    monkeypatch.setattr(webhook_client, "asyncio", fake)


def errors(caplog) -> list[tuple[str, str, bool]]:
    return [(x.name, x.getMessage(), bool(x.exc_info)) for x in caplog.records if x.levelno >= logging.ERROR]


async def table_message(h: Harness):
    """The channel message of a Hefei table of P1 and three AI seats, in play."""
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    return h.fake.find_message(live(h).message_id)


@pytest.mark.parametrize("locale, again", [("en-US", "press **My hand** again"), ("zh-CN", "请再按一次 **我的牌**")])
async def test_my_hand_whose_followup_discord_fails_says_to_press_it_again(harness: Harness, caplog,
                                                                           no_webhook_waits, locale, again):
    h = harness
    table_msg = await table_message(h)
    fault = h.fake.fail(r"^/webhooks/", method="POST", status=503, times=WEBHOOK_TRIES)
    caplog.set_level(logging.INFO)
    r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1, locale=locale)
    await h.settle()
    assert fault.hits == WEBHOOK_TRIES
    assert not errors(caplog), errors(caplog)
    warned = [x for x in caplog.records if x.levelno == logging.WARNING and "hand panel" in x.getMessage()]
    assert len(warned) == 1 and not warned[0].exc_info
    assert again in r.reply.content and not r.reply.loading  # "thinking..." replaced by what to do
    # and My hand works again as soon as Discord does
    r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1, locale=locale)
    assert r.reply.attachments


async def test_my_hand_whose_every_answer_discord_fails_logs_no_error(harness: Harness, caplog, no_webhook_waits):
    """The follow-up and the edit both fail (Discord failing for longer): nothing more can reach the player; the log
    says so in a line, never at ERROR."""
    h = harness
    table_msg = await table_message(h)
    fault = h.fake.fail(r"^/webhooks/", status=503, times=2 * WEBHOOK_TRIES)
    caplog.set_level(logging.INFO)
    await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1)
    await h.settle()
    assert fault.hits == 2 * WEBHOOK_TRIES
    assert not errors(caplog), errors(caplog)
    assert not [x for x in caplog.records if x.name.startswith(("cogs", "bot")) and x.exc_info]


async def test_my_hand_whose_thinking_discord_fails_says_to_press_it_again(harness: Harness, caplog,
                                                                            no_webhook_waits):
    """Discord fails the "thinking..." (the deferred answer) of My hand with 503s past discord.py's tries: one
    warning line, no ERROR, and the player is answered to press My hand again (the interaction was not answered
    yet)."""
    h = harness
    table_msg = await table_message(h)
    fault = h.fake.fail(r"^/interactions/", method="POST", status=503, times=WEBHOOK_TRIES)
    caplog.set_level(logging.INFO)
    r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1, locale="en-US")
    await h.settle()
    assert fault.hits == WEBHOOK_TRIES
    assert not errors(caplog), errors(caplog)
    assert "press **My hand** again" in r.reply.content and r.reply.ephemeral
