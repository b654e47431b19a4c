"""A table in a channel where the bot may not post (a moderator's channel overrides: no View Channel, no Send
Messages, no Attach Files or Embed Links; a locked thread).

Slash commands and button answers work there (an interaction's answer needs no permission), so a lobby looked
normal; but the table message, announcements and score cards were refused (403 50013 / 50001) and only logged: the
start said "the table is below", the match went on unseen from the DMs into the ledger, and its players were held
("You already sit at a table"). Now /table new, Start and /table show refuse up front, naming the missing
permissions in the player's language; a table whose permissions are taken away while it plays ends as if its channel
were deleted, and each player is told by DM why.
"""

from __future__ import annotations

import discord
import pytest

from bot.tables.strings import t
from tests.cogs.test_table_place_gone import _free_elsewhere, _hands, _idle_between_hands, _settled
from tests.cogs.test_tables import P1, button_id, open_table, prep
from tests.harness import Harness
from tests.harness.db import sql

# everything but what a table needs to post (a moderator's channel overrides on the bot's role)
EVERYTHING = discord.Permissions.all()


def _without(*names: str) -> discord.Permissions:
    perms = discord.Permissions(EVERYTHING.value)
    for name in names:
        setattr(perms, name, False)
    return perms


@pytest.mark.parametrize("code, message", [(50013, "Missing Permissions"), (50001, "Missing Access")])
async def test_a_table_opened_where_the_bot_may_not_post_tells_the_player_and_holds_nobody(harness: Harness, code,
                                                                                          message):
    """Discord refuses every post in #mahjong while the interactions there still claim every permission (the
    bot's role changed between the two): P1 opens a table with three AIs and starts it. The table cannot be seen:
    it ends at once as for a deleted channel, P1 is told by DM that the bot may not post there, and may sit down
    elsewhere."""
    h = harness
    await h.connect()
    prep(h)
    mgr = h.bot.tables
    mgr.store_backoff = (0.01, 0.02, 0.05)
    mgr.publisher.backoff = (0.01,)
    h.fake.fail(rf"^/channels/{h.channel_id}/messages$", method="POST", status=403, code=code, times=10**9,
                message=message)
    await open_table(h, "hefei", humans=(P1,), locale="en-US")
    await _settled(h)
    assert mgr.by_player.get(P1) is None and not mgr.by_id
    assert sql(h, "SELECT status FROM matches", ()) == [("aborted",)]
    assert h.dms(P1)[-1].content == t("tables.gone_dm.access", "en", channel=h.channel_id)
    assert "already sit" not in await _free_elsewhere(h)


async def test_permissions_taken_away_mid_match_end_the_table_and_keep_its_settled_hands(harness: Harness):
    """A moderator takes Send Messages away from the bot in #mahjong while a table waits between hands (one hand
    settled). P1 presses I'm back: the next post is refused (403 50013). The table ends (the settled hand stays in
    the ledger), nothing more is tried in the channel, P1 is told by DM in their language and is free."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    mid, hands = lt.match_id, _hands(h, lt.match_id)
    assert hands == 1
    h.restrict_bot(_without("send_messages"))
    table = h.fake.find_message(lt.message_id)
    await h.click(table, custom_id=button_id(table, ":next"), user=P1, locale="en-US")
    await _settled(h)
    assert lt.closed
    assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]
    assert _hands(h, mid) >= hands  # (the AI on P1's seat may have finished the next hand meanwhile: it stays too)
    assert h.dms(P1)[-1].content == t("tables.gone_dm.access", "en", channel=h.channel_id)
    assert "already sit" not in await _free_elsewhere(h)


async def test_a_refusal_before_the_servers_are_listed_waits_to_tell_which_it_is(harness: Harness):
    """A restarted bot's first write to a table's channel is refused 403 before the gateway has listed its servers:
    nothing ends yet (a server the bot was removed from refuses it too, and says so once listed); once the servers
    are listed with this one among them, the table ends for want of permissions."""
    h = harness
    await h.connect()
    lt = await _idle_between_hands(h)
    mid = lt.match_id
    h.fake.fail(f"^/channels/{h.channel_id}/messages", status=403, code=50013, times=10**9,
                message="Missing Permissions")
    h = await h.kill()
    try:
        mgr = h.bot.tables
        mgr.publisher.backoff = (0.01,)
        await h.bot.tables.repost(mgr.by_id[mid])  # (a write to the channel before READY)
        await _settled(h)
        assert mgr.by_id[mid].closed is False
        await h.connect()
        await _settled(h)
        assert sql(h, "SELECT status FROM matches WHERE id = ?", (mid,)) == [("aborted",)]
        assert h.dms(P1)[-1].content == t("tables.gone_dm.access", "en", channel=h.channel_id)
    finally:
        await h.close()


@pytest.mark.parametrize("locale, lang, missing", [
    ("en-US", "en", ("embed_links", "attach_files")),
    ("zh-CN", "zh", ("send_messages",)),
    ("zh-TW", "zh-TW", ("view_channel",)),
])
async def test_table_new_where_the_bot_may_not_post_is_refused_naming_what_it_needs(harness: Harness, locale, lang,
                                                                                   missing):
    """/table new in a channel whose overrides take permissions a table needs from the bot: refused privately, in
    the player's language, naming each missing permission as the Discord client shows it; no lobby is opened."""
    h = harness
    await h.connect()
    prep(h)
    h.restrict_bot(_without(*missing))
    r = await h.slash("table new", variant="hefei", user=P1, locale=locale)
    assert r.reply.ephemeral
    names = t("perm.sep", lang).join(t(f"perm.{n}", lang) for n in missing)
    assert r.reply.content == t("tables.no_post", lang, perms=names)
    assert h.bot.tables.by_player.get(P1) is None and h.channel_id not in h.bot.tables.by_channel
    assert sql(h, "SELECT COUNT(*) FROM lobbies", ()) == [(0,)]


async def test_table_new_in_a_locked_thread_is_refused(harness: Harness):
    """A locked thread (the bot without Manage Threads): only moderators may post there; /table new says so."""
    h = harness
    await h.connect()
    prep(h)
    thread = h.add_channel(name="mahjong-thread", thread=True)
    h.restrict_bot(_without("manage_threads"), thread, locked=True)
    h.gateway("THREAD_CREATE", {**h.fake.channels[thread].payload(), "newly_created": True})
    r = await h.slash("table new", variant="hefei", user=P1, channel=thread, locale="en-US")
    assert r.reply.content == t("tables.no_post_locked", "en", perms=t("perm.manage_threads", "en"))
    assert thread not in h.bot.tables.by_channel


async def test_start_is_refused_when_the_permissions_went_away_after_the_lobby_opened(harness: Harness):
    """The lobby opened while the bot could post; Attach Files is then taken away. Start is refused (the table's
    images could never be posted) and the lobby stays as it was; once the permission is back, Start starts."""
    h = harness
    await h.connect()
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1, locale="en-US")
    lobby = r.reply
    for _ in range(3):
        await h.slash("table addbot", user=P1, locale="en-US")
    h.restrict_bot(_without("attach_files"))
    press = await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=P1,
                          locale="en-US")
    lt = h.bot.tables.by_channel[h.channel_id]
    assert not lt.started
    assert press.reply.ephemeral
    assert press.reply.content == t("tables.no_post", "en", perms=t("perm.attach_files", "en"))
    h.restrict_bot(None)
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=P1, locale="en-US")
    assert lt.started
