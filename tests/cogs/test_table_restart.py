"""What a restart (a clean one, or ``kill -9``: :meth:`Harness.kill`) must not lose of a table, through the real
discord.py dispatch: a lobby filling up, an open dissolve vote and its minute, and where every message that may
still carry controls is (written right after each post, so a bot killed just after one still finds it)."""

from __future__ import annotations

import asyncio

import pytest

from bot.store.lobbies import lobbies, open_votes
from bot.tables.strings import t
from tests.cogs.test_table_admin import said, vote_message
from tests.cogs.test_table_start_faults import full_lobby
from tests.cogs.test_tables import (
    P1,
    P2,
    P3,
    button_id,
    choose_click,
    controls,
    latest_dm_controls,
    live,
    open_table,
    play_until_hand_ends,
    prep,
)
from tests.harness import Harness
from tests.harness.db import sql
from tests.harness.faults import FlakyConnection

pytestmark = pytest.mark.both_backends  # lobbies and votes kept across a restart, on SQLite and on PostgreSQL


def lobby_seats(msg) -> str:
    return msg.embeds[0]["fields"][0]["value"]


async def active(h: Harness) -> list:
    return [m for m in await h.bot.store.matches(h.guild_id) if m.status == "active"]


# ------------------------------------------------------------------------------------------------ lobbies


async def test_a_lobby_survives_a_kill_and_its_buttons_keep_working(harness: Harness):
    h = harness
    prep(h)
    r = await h.slash("table new", variant="wuhu", mode=525, user=P1)
    lobby = h.fake.find_message(r.reply.id)
    await h.click(lobby, custom_id=button_id(lobby, ":join"), user=P2)
    await h.slash("table addbot", user=P1, difficulty="easy")
    await h.slash("table leave", user=P1)  # the host leaves: P2 hosts now
    h2 = await h.kill()
    try:
        prep(h2)
        lt = h2.bot.tables.by_channel[h2.channel_id]
        assert lt.started is False and lt.host_id == P2 and lt.variant == "wuhu" and lt.rules["mode"] == 525
        assert [s and (s.user_id, s.ai) for s in lt.seats] == [None, (P2, None), (None, "easy"), None]
        # the old message's buttons work: P3 joins by it, and the same message shows the new seats
        lobby = h2.fake.find_message(r.reply.id)
        j = await h2.click(lobby, custom_id=button_id(lobby, ":join"), user=P3)
        assert not said(j)  # no error: the click only updates the lobby message
        await h2.bot.tables.wait_idle()
        lobby = h2.fake.find_message(r.reply.id)
        assert f"<@{P3}>" in lobby_seats(lobby) and f"<@{P2}>" in lobby_seats(lobby)
        # P1 (no longer seated) cannot start it; the host can once four sit
        await h2.slash("table addbot", user=P2)
        s = await h2.click(lobby, custom_id=button_id(lobby, ":start"), user=P1, locale="en-US")
        assert "host" in said(s).lower() and not await active(h2)
        await h2.click(lobby, custom_id=button_id(lobby, ":start"), user=P2)
        await h2.bot.tables.wait_idle()
        (m,) = await active(h2)
        assert [st.player_id for st in m.seats] == [P3, P2, None, None]
        assert await lobbies(h2.bot.store) == []  # started: no longer a lobby
        lobby = h2.fake.find_message(r.reply.id)
        assert not lobby.buttons() and "开始" in lobby.content
    finally:
        await h2.close()


async def test_an_ended_lobby_never_comes_back_and_a_started_one_comes_back_as_its_match(harness: Harness):
    h = harness
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1)
    await h.slash("table end", user=P1)
    h2 = await h.kill()
    prep(h2)
    assert h2.channel_id not in h2.bot.tables.by_channel and await lobbies(h2.bot.store) == []
    assert not h2.fake.find_message(r.reply.id).buttons()
    # a lobby started: after a kill its match is resumed, never the lobby
    await open_table(h2, "hefei", humans=(P1,))
    match_id = live(h2).match_id
    h3 = await h2.kill()
    try:
        lt = h3.bot.tables.by_channel[h3.channel_id]
        assert lt.started and lt.match_id == match_id and await lobbies(h3.bot.store) == []
    finally:
        await h3.close()


async def test_a_lobby_opened_over_a_match_in_play_gives_way_to_it_at_a_restart(harness: Harness):
    """A match in play whose table stopped here without ending (let go, as a table that met another process's moves
    is), a lobby opened meanwhile in its channel, then a kill. The match is back at once and plays (its player's DM
    controls work); the lobby, which could never start there, is forgotten and its message says the match in play
    is back, without buttons. Before, its message kept live Join and Start buttons over the match's table."""
    h = harness
    await full_lobby(h)
    await h.slash("table start", user=P1, locale="en-US")
    playing = live(h)
    mid = playing.match_id
    async with playing.lock:
        h.bot.tables._let_go(playing)
    n = await h.slash("table new", variant="hefei", user=P2, locale="en-US")
    lang = live(h).lang
    assert [c for _, c, _ in await lobbies(h.bot.store)] == [h.channel_id]
    h2 = await h.kill()
    try:
        mgr = h2.bot.tables
        back = mgr.by_id.get(mid)
        assert back is not None and mgr.by_channel[h2.channel_id] is back and not back.closed
        assert await lobbies(h2.bot.store) == [] and P2 not in mgr.by_player
        await h2.settle()
        lobby = h2.fake.find_message(n.reply.id)
        assert not lobby.buttons() and lobby.content == t("tables.lobby_gave_way", lang)
        moves = sql(h2, "SELECT COUNT(*) FROM actions WHERE match_id = ?", (mid,))[0][0]
        msg = latest_dm_controls(h2, P1)
        assert msg is not None
        await h2.click(msg, custom_id=choose_click(msg))
        assert sql(h2, "SELECT COUNT(*) FROM actions WHERE match_id = ?", (mid,))[0][0] > moves
    finally:
        await h2.close()


async def test_a_lobby_change_the_store_refuses_changes_nothing(harness: Harness):
    h = harness
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("INSERT INTO lobbies", times=1)
    lobby = h.fake.find_message(r.reply.id)
    j = await h.click(lobby, custom_id=button_id(lobby, ":join"), user=P2, locale="en-US")
    assert "not recorded" in said(j) and flaky.hits == 1
    lt = live(h)
    assert lt.seat_of(P2) is None and P2 not in h.bot.tables.by_player
    assert f"<@{P2}>" not in lobby_seats(h.fake.find_message(r.reply.id))
    # a /table new the store cannot record opens no lobby
    ch = h.add_channel()
    flaky.fail("INSERT INTO lobbies", times=1)
    n = await h.slash("table new", variant="hefei", user=P3, channel=ch, locale="en-US")
    assert "not recorded" in said(n) and ch not in h.bot.tables.by_channel and P3 not in h.bot.tables.by_player
    await h.click(lobby, custom_id=button_id(lobby, ":join"), user=P2)  # the store answers again
    assert lt.seat_of(P2) is not None
    assert [s and s.get("user") for s in (await lobbies(h.bot.store))[0][2]["seats"]][:2] == [P1, P2]


# ------------------------------------------------------------------------------------------------ dissolve votes


async def test_an_open_vote_survives_a_kill_and_its_buttons_keep_working(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2, P3))
    await h.slash("table dissolve", user=P1)
    vm = vote_message(h)
    h2 = await h.kill()
    try:
        prep(h2)
        lt = h2.bot.tables.by_channel[h2.channel_id]
        assert lt.vote is not None and lt.vote.yes == {P1} and lt.vote.timer is not None
        yes = next(c["custom_id"] for c in vm.buttons() if c["custom_id"].endswith(":y"))
        r = await h2.click(h2.fake.find_message(vm.id), custom_id=yes, user=P2, locale="en-US")
        assert r.callback_type == 7 and "解散投票通过" in h2.fake.find_message(vm.id).content
        await h2.bot.tables.wait_idle()
        assert lt.closed and (await h2.bot.store.match(lt.match_id)).status == "aborted"
        assert not h2.fake.find_message(vm.id).buttons()
    finally:
        await h2.close()


async def test_a_vote_keeps_its_deadline_across_a_restart(harness: Harness):
    """On the injected wall clock (no dependence on how long the kill and the start-up take): the vote opens at
    T with a minute to run; the new bot starts at T + 59.95 s and ends the vote at T + 60 s, not a minute later."""
    h = harness
    prep(h)
    now = [1_800_000_000.0]
    h.bot.tables.wall = lambda: now[0]
    await open_table(h, "hefei", humans=(P1, P2))
    await h.slash("table dissolve", user=P1)
    vm = vote_message(h)
    deadline = now[0] + 60
    now[0] = deadline - 0.05  # the bot was down for 59.95 s of the vote's minute

    waits: list[float] = []
    over = asyncio.Event()

    async def vote_sleep(seconds: float) -> None:  # the wall clock moves on when the test says so
        waits.append(seconds)
        await over.wait()
        now[0] += seconds

    def frozen_wall(bot) -> None:
        bot.tables.wall = lambda: now[0]
        bot.tables.vote_sleep = vote_sleep

    h2 = await h.kill(prepare=frozen_wall)
    try:
        prep(h2)
        assert h2.bot.tables.timers.vote == 60  # the new bot's own minute is not what counts
        lt = h2.bot.tables.by_channel[h2.channel_id]
        assert lt.vote is not None and lt.vote.deadline == deadline  # still open: its deadline is the stored one
        assert not h2.fake.find_message(vm.id).content.count("过期")
        # the timer waits 0.05 s of the wall clock (the new minute would be 60 s), then runs out
        await h2.settle()
        assert waits == [pytest.approx(0.05)]
        over.set()
        await asyncio.wait_for(asyncio.shield(lt.vote.timer), 30)  # (a bound for a hang only)
        await h2.bot.tables.wait_idle()
        assert lt.vote is None and not lt.closed
        msg = h2.fake.find_message(vm.id)
        assert not msg.buttons() and "过期" in msg.content
        await h2.settle()  # the store forgets the vote in the background (PostgreSQL: beside this test's read)
        assert (await open_votes(h2.bot.store))[lt.match_id] == (1, None)
    finally:
        await h2.close()


async def test_a_vote_that_lapsed_while_the_bot_was_down_fails_and_is_said_once(harness: Harness):
    h = harness
    prep(h)
    now = [1_800_000_000.0]
    h.bot.tables.wall = lambda: now[0]
    await open_table(h, "hefei", humans=(P1, P2))
    await h.slash("table dissolve", user=P1)
    vm = vote_message(h)
    now[0] += 61  # the vote's timer dies with the bot, which is down past the vote's minute (the wall clock)

    def frozen_wall(bot) -> None:
        bot.tables.wall = lambda: now[0]

    h3 = await h.kill(prepare=frozen_wall)
    try:
        prep(h3)
        await h3.bot.tables.wait_idle()
        lt = h3.bot.tables.by_channel[h3.channel_id]
        assert lt.vote is None and not lt.closed
        edits = h3.fake.requests_to(f"^/channels/{h3.channel_id}/messages/{vm.id}$", "PATCH")
        msg = h3.fake.find_message(vm.id)
        assert not msg.buttons() and msg.content.count("过期") == 1
        assert not [m for m in h3.channel() if "过期" in (m.content or "") and m.id != vm.id]
    finally:
        h4 = await h3.restart()  # said once: a later start-up does not say it again
    try:
        await h4.bot.tables.wait_idle()
        assert len(h4.fake.requests_to(f"^/channels/{h4.channel_id}/messages/{vm.id}$", "PATCH")) == len(edits)
    finally:
        await h4.close()


# ------------------------------------------------------------------------------------------------ message ids


async def test_a_kill_right_after_a_post_leaves_no_stale_controls(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2))
    mgr = h.bot.tables
    await mgr.wait_idle()
    lt = live(h)
    for _ in range(6):  # a few decisions, each followed by a kill as soon as the bot has sent what it sends
        tb = lt.table
        if tb.phase not in ("play", "claim", "rob"):
            break
        u = next(u for u in (P1, P2) if lt.seat_of(u) in tb.awaited())
        msg = latest_dm_controls(h, u)
        await h.click(msg, custom_id=choose_click(msg), user=u)
        await mgr.publisher.drain()  # every post is out; nothing waits for a batch
        h = await h.kill()
        prep(h)
        mgr = h.bot.tables
        await mgr.wait_idle()
        lt = live(h)
        tb = lt.table
        for u in (P1, P2):
            with_controls = [m for m in h.dms(u) if controls(m)]
            seat = lt.seat_of(u)
            if tb.phase in ("play", "claim", "rob") and seat in tb.awaited():
                # exactly one message carries controls, for the decision the table waits for
                assert len(with_controls) == 1
                seq = int(controls(with_controls[0])[0]["custom_id"].split(":")[3])
                assert seq == lt.since[seat]
            else:
                assert with_controls == []
    await h.close()


async def test_a_superseded_message_discord_would_not_remove_is_removed_after_a_kill(harness: Harness):
    h = harness
    prep(h)
    h.bot.tables.publisher.backoff = (0.01,)
    await open_table(h, "hefei", humans=(P1,))
    await h.bot.tables.wait_idle()
    old = live(h).message_id
    # the old table message cannot be deleted when /table show posts the table again (Discord fails with 503)
    fault = h.fake.fail(f"^/channels/{h.channel_id}/messages/{old}$", method="DELETE", times=100)
    await h.slash("table show", user=P1)
    await h.bot.tables.wait_idle()
    assert fault.hits >= 1 and old in [m.id for m in h.channel()]
    h.fake.faults.remove(fault)  # Discord answers again, but the bot is killed first
    h2 = await h.kill()
    try:
        await h2.bot.tables.wait_idle()
        tables = [m for m in h2.channel() if any(a.filename.startswith("table-") for a in m.attachments)]
        assert [m.id for m in tables] == [h2.bot.tables.by_channel[h2.channel_id].message_id]
        assert old not in [m.id for m in h2.channel()]
    finally:
        await h2.close()


# ------------------------------------------------------------------------------------------------ result cards


async def _next_hand_unposted(h: Harness):
    """A hand ended on its result card, Next clicked: the next hand is dealt, but its table message has not reached
    the channel yet (Discord fails the post; the publisher is waiting to try again). Returns the card."""
    prep(h)
    h.bot.tables.timers.next_hand = 3600.0  # the next hand waits for Next
    pub = h.bot.tables.publisher
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await play_until_hand_ends(h, [P1], lt)
    await h.bot.tables.wait_idle()
    assert lt.table.phase == "ended"
    card = h.fake.find_message(lt.message_id)
    assert "核对无误" in card.content
    pub.backoff = (3600.0,)  # the post of the next table fails and waits (the bot is killed meanwhile)
    fault = h.fake.fail(f"^/channels/{h.channel_id}/messages$", method="POST", times=100)
    await h.click(card, custom_id=button_id(card, ":next"), user=P1)
    for _ in range(3000):  # until the post has failed (a bound for a hang, not a speed goal)
        if fault.hits:
            break
        await asyncio.sleep(0.01)
    assert fault.hits and lt.table.phase in ("play", "claim", "rob") and lt.message_id == card.id
    h.fake.faults.remove(fault)
    return card


async def test_a_kill_before_the_next_hands_table_is_posted_keeps_the_result_card(harness: Harness):
    h = harness
    card = await _next_hand_unposted(h)
    h2 = await h.kill()
    try:
        prep(h2)
        await h2.bot.tables.wait_idle()
        lt2 = h2.bot.tables.by_channel[h2.channel_id]
        assert lt2.table.phase in ("play", "claim", "rob")
        # the hand's result stays in the channel as it was, without controls; the new hand's table is below it
        kept = h2.fake.find_message(card.id)
        assert kept is not None and card.id in [m.id for m in h2.channel()]
        assert (kept.content, kept.images, kept.buttons()) == (card.content, card.images, [])
        assert lt2.message_id != card.id and h2.channel()[-1].id == lt2.message_id
        assert [m.id for m in h2.channel() if m.buttons()] == [lt2.message_id]
    finally:
        await h2.close()


async def test_a_vote_whose_minute_ran_out_while_the_bot_was_down_lapses_once(harness: Harness):
    """Three friends: P1 proposes 解散, P2 and P3 choose 托管 without answering (托管 is kept over a restart). The
    bot is down past the vote's minute: who was here at the deadline is not known after a restart, and a vote whose
    minute ended before the stop may have been said lapsed already (only its removal from the store lost), so at
    start-up it lapses, the match goes on, and a later start-up does not say it again."""
    h = harness
    prep(h)
    now = [1_800_000_000.0]
    h.bot.tables.wall = lambda: now[0]
    await open_table(h, "hefei", humans=(P1, P2, P3))
    await h.slash("table dissolve", user=P1)
    vm = vote_message(h)
    await h.slash("table autoplay", on="on", user=P2)
    await h.slash("table autoplay", on="on", user=P3)
    await h.bot.tables.wait_idle()
    assert h.bot.tables.by_channel[h.channel_id].vote is not None
    match_id = h.bot.tables.by_channel[h.channel_id].match_id
    now[0] += 61

    def frozen_wall(bot) -> None:
        bot.tables.wall = lambda: now[0]

    h2 = await h.kill(prepare=frozen_wall)
    try:
        prep(h2)
        await h2.bot.tables.wait_idle()
        lt = h2.bot.tables.by_channel.get(h2.channel_id)
        assert lt is not None and not lt.closed and lt.vote is None
        assert (await h2.bot.store.match(match_id)).status != "aborted"
        msg = h2.fake.find_message(vm.id)
        assert not msg.buttons() and msg.content.count("过期") == 1 and "解散投票通过" not in msg.content
        edits = h2.fake.requests_to(f"^/channels/{h2.channel_id}/messages/{vm.id}$", "PATCH")
    finally:
        h3 = await h2.restart()  # said once: a later start-up does not say it again
    try:
        await h3.bot.tables.wait_idle()
        assert len(h3.fake.requests_to(f"^/channels/{h3.channel_id}/messages/{vm.id}$", "PATCH")) == len(edits)
        assert h3.bot.tables.by_channel[h3.channel_id].vote is None
    finally:
        await h3.close()
