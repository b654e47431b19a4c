"""Tables under hostile conditions, through the real discord.py dispatch: forged controls, races, a failing disk,
a failing Discord, engine errors. What a player would notice is asserted: messages, buttons, the ledger."""

from __future__ import annotations

import asyncio
import logging

import pytest

from bot.tables import State
from engine.table import Table
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
    play_until_match_ends,
    prep,
    replay_from_store,
)
from tests.harness import ADMIN_PERMISSIONS, Harness
from tests.harness.db import sql
from tests.harness.faults import FlakyConnection
from tests.harness.simclock import SimClock

OTHER_GUILD = 1_200_000_000_000_009_900

pytestmark = pytest.mark.both_backends  # the same faults on SQLite and on PostgreSQL


def fast(h: Harness) -> None:
    """Retries and recoveries in milliseconds instead of seconds."""
    h.bot.tables.store_backoff = (0.01, 0.02, 0.05)
    h.bot.tables.publisher.backoff = (0.01, 0.02, 0.05)


async def lobby_of(h: Harness, *, ai: int = 0, user: int = P1):
    r = await h.slash("table new", variant="hefei", user=user)
    for _ in range(ai):
        await h.slash("table addbot", user=user)
    return h.fake.find_message(r.reply.id)


async def active_matches(h: Harness) -> list:
    return [m for m in await h.bot.store.matches(h.guild_id) if m.status == "active"]


# ------------------------------------------------------------------------------------------------ forgery


async def test_a_forged_lobby_button_from_another_guild_or_channel_changes_nothing(harness: Harness):
    h = harness
    prep(h)
    lobby = await lobby_of(h, ai=2)
    join, start, rmbot = button_id(lobby, ":join"), button_id(lobby, ":start"), button_id(lobby, ":rmbot")
    # the same custom ids pressed on a message of another guild's channel, and of another channel of this guild
    foreign = h.add_channel(guild_id=OTHER_GUILD)
    other = h.add_channel()
    for ch in (foreign, other):
        h.fake.channels[ch].messages.append(lobby.__class__(id=lobby.id + ch, channel_id=ch, guild_id=None,
                                                            author=lobby.author, components=lobby.components))
        fake_msg = h.fake.channels[ch].messages[-1]
        r = await h.click(fake_msg, custom_id=join, user=P3, locale="en-US")
        assert r.reply.ephemeral and "somewhere else" in r.reply.content
        r = await h.click(fake_msg, custom_id=start, user=P3, permissions=ADMIN_PERMISSIONS, locale="en-US")
        assert r.reply.ephemeral and "somewhere else" in r.reply.content
        r = await h.click(fake_msg, custom_id=rmbot, user=P1, locale="en-US")  # the host, seated: still elsewhere
        assert r.reply.ephemeral and "somewhere else" in r.reply.content
    lt = live(h)
    assert lt.seat_of(P3) is None and lt.state is State.LOBBY and P3 not in h.bot.tables.by_player
    assert sum(1 for s in lt.seats if s is not None and s.ai) == 2, "no AI was taken out from elsewhere"
    assert await h.bot.store.matches(h.guild_id) == []


async def test_forged_table_controls_from_another_channel_are_refused(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    table_msg = h.fake.find_message(lt.message_id)
    other = h.add_channel(guild_id=OTHER_GUILD)
    h.fake.channels[other].messages.append(table_msg.__class__(id=table_msg.id + 1, channel_id=other, guild_id=None,
                                                               author=table_msg.author,
                                                               components=table_msg.components))
    r = await h.click(h.fake.channels[other].messages[-1], custom_id=button_id(table_msg, ":hand"), user=P1,
                      locale="en-US")
    assert r.reply.ephemeral and "somewhere else" in r.reply.content and not r.reply.attachments
    # a seat's own controls pressed by another user in DMs: checked against the seat's owner
    dm = latest_dm_controls(h, P1)
    before = lt.table.state_hash()
    r = await h.click(dm, custom_id=choose_click(dm), user=P2, locale="en-US")
    assert "another player" in r.messages[0].content and lt.table.state_hash() == before


async def test_a_forged_vote_button_from_another_guild_changes_nothing(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2, P3))
    lt = live(h)
    await h.slash("table dissolve", user=P1)
    vm = next(m for m in reversed(h.channel()) if any(c["custom_id"].startswith("mjv:") for c in m.buttons()))
    yes = next(c["custom_id"] for c in vm.buttons() if c["custom_id"].endswith(":y"))
    other = h.add_channel(guild_id=OTHER_GUILD)
    h.fake.channels[other].messages.append(vm.__class__(id=vm.id + 1, channel_id=other, guild_id=None,
                                                        author=vm.author, components=vm.components))
    r = await h.click(h.fake.channels[other].messages[-1], custom_id=yes, user=P2, locale="en-US")
    assert "somewhere else" in "\n".join(m.content for m in r.messages)
    assert lt.vote is not None and lt.vote.yes == {P1} and not lt.closed


# ------------------------------------------------------------------------------------------------ races


@pytest.mark.parametrize("gap", [0.0, 0.002, 0.01])
async def test_start_racing_leave_never_starts_with_an_empty_seat(harness: Harness, gap: float):
    h = harness
    prep(h)
    lobby = await lobby_of(h, ai=2)
    await h.click(lobby, custom_id=button_id(lobby, ":join"), user=P2)
    lobby = h.fake.find_message(lobby.id)
    start = h.click_payload(lobby, custom_id=button_id(lobby, ":start"), user=P1)
    leave = h.click_payload(lobby, custom_id=button_id(lobby, ":leave"), user=P2)
    h.bot._connection.parse_interaction_create(start[0])
    if gap:
        await asyncio.sleep(gap)
    h.bot._connection.parse_interaction_create(leave[0])
    await h.settle()
    lt = h.bot.tables.by_channel.get(h.channel_id)
    matches = await h.bot.store.matches(h.guild_id)
    if lt is not None and lt.started:
        [m] = matches
        assert all(s is not None for s in lt.seats)
        assert [s.player_id for s in m.seats] == [s.user_id for s in lt.seats]  # stored seats = live seats
        assert "started" in leave[1].reply.content
    else:
        assert matches == [] and lt is not None and lt.seat_of(P2) is None
    # killed now, the bot comes back with what was decided: the match (never its lobby too), or the lobby without P2
    started = lt is not None and lt.started
    h2 = await h.kill()
    try:
        lt2 = h2.bot.tables.by_channel.get(h2.channel_id)
        assert lt2 is not None and lt2.started == started
        if started:
            assert [s.user_id for s in lt2.seats] == [s.user_id for s in lt.seats]
        else:
            assert lt2.seat_of(P2) is None and lt2.seat_of(P1) is not None and P2 not in h2.bot.tables.by_player
    finally:
        await h2.close()


@pytest.mark.parametrize("gap", [0.0, 0.002, 0.01])
async def test_start_racing_table_end_never_leaves_an_active_match(harness: Harness, gap: float):
    h = harness
    prep(h)
    lobby = await lobby_of(h, ai=3)
    start = h.click_payload(lobby, custom_id=button_id(lobby, ":start"), user=P1)
    end = h.slash_payload("table end", user=P1)
    h.bot._connection.parse_interaction_create(start[0])
    if gap:
        await asyncio.sleep(gap)
    h.bot._connection.parse_interaction_create(end[0])
    await h.settle()
    await h.bot.tables.wait_idle()
    assert await active_matches(h) == []  # an ended lobby never becomes an active match
    assert h.channel_id not in h.bot.tables.by_channel
    h2 = await h.restart()
    try:
        assert h2.channel_id not in h2.bot.tables.by_channel and h2.bot.tables.by_id == {}
    finally:
        await h2.close()


# ------------------------------------------------------------------------------------------------ the disk


@pytest.mark.parametrize("seed", ["0d1ce5eed0000001", "0d1ce5eed0000002", "0d1ce5eed0000003"])
async def test_store_failing_after_the_players_action_is_told_truthfully_and_recovers(harness: Harness, seed: str):
    h = harness
    prep(h)
    fast(h)
    # known deals on which an AI seat records an action right after the player's (about 1 deal in 20 has none)
    h.bot.tables.new_seed = lambda: seed
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    flaky = FlakyConnection.install(h.bot.store)
    n_before = len(await h.bot.store.actions(lt.match_id))
    # the player's own action is recorded; the AI seat's answer after it fails three times
    flaky.fail("INSERT INTO actions", skip=1, times=3)
    msg = latest_dm_controls(h, P1)
    r = await h.click(msg, custom_id=choose_click(msg), locale="en-US")
    assert flaky.hits >= 1
    said = " ".join(m.content for m in r.messages)
    assert "recorded" in said and "nothing was changed" not in said
    await h.bot.tables.wait_idle()
    await h.settle()
    assert lt.stall is None and lt.rec.behind is None
    acts = await h.bot.store.actions(lt.match_id)
    assert len(acts) > n_before + 1  # the AI seats played on by themselves once the store answered
    assert (await replay_from_store(h, lt.match_id)).state_hash() == lt.table.state_hash()
    text = "\n".join(m.content for m in h.channel())
    assert "数据库没有响应" in text and "数据库恢复了" in text
    # no table waits on nobody: a human is awaited with controls and a running timer, or the hand is over
    tb = lt.table
    if tb.phase in ("play", "claim", "rob"):
        assert lt.seat_of(P1) in tb.awaited() and latest_dm_controls(h, P1) is not None
        assert lt.timer is not None and not lt.timer.done()


async def test_store_failing_before_the_action_is_recorded_says_nothing_changed(harness: Harness):
    h = harness
    prep(h)
    fast(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    flaky = FlakyConnection.install(h.bot.store)
    before, n = lt.table.state_hash(), len(await h.bot.store.actions(lt.match_id))
    flaky.fail("INSERT INTO actions", times=1)
    msg = latest_dm_controls(h, P1)
    cid = choose_click(msg)
    r = await h.click(msg, custom_id=cid, locale="en-US")
    assert "not recorded" in r.messages[0].content
    assert lt.table.state_hash() == before and len(await h.bot.store.actions(lt.match_id)) == n
    assert lt.timer is not None and not lt.timer.done()  # the player's turn is still timed
    await h.bot.tables.wait_idle()
    # the same button works once the store answers again
    await h.click(h.fake.find_message(msg.id), custom_id=cid)
    assert len(await h.bot.store.actions(lt.match_id)) > n


async def test_a_table_behind_the_store_reads_it_again_and_plays_on(harness: Harness):
    """The store holds an action the table in memory has not seen (another process wrote it: an owner that had lost
    its lease and not noticed yet): the table's next write meets it. The table is read again from the store and
    plays on from there; the database is fine, and nobody is told it failed (before: "the database is not
    answering" and "the database is back" on every move, none of them ever accepted)."""
    import json

    h = harness
    prep(h)
    fast(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    tb, rec = lt.table, lt.rec
    seat = lt.seat_of(P1)
    msg = latest_dm_controls(h, P1)
    cid = choose_click(msg)
    clicked = cid.split(":")[5] if cid.split(":")[4] == "d" else None
    # another process's move for this seat, written behind the table's back
    other = next(a for a in tb.legal_actions(seat) if a.type == "discard" and a.to_json()["tile"] != clicked)
    data = other.to_json()
    after = Table.replay(tb.variant, tb.seed, tb.settings, rec.actions + [data], players=tb.players)
    await h.bot.store.record_action(lt.match_id, tb.seq, json.dumps(data, sort_keys=True, separators=(",", ":")),
                                    hand_id=rec.hand_id, state_hash=after.state_hash())
    stored = len(await h.bot.store.actions(lt.match_id))

    r = await h.click(msg, custom_id=cid, locale="en-US")
    await h.bot.tables.wait_idle()
    await h.settle()
    said = " ".join(m.content for m in r.messages)
    assert "Nothing was played" in said or "out of date" in said, said
    lt2 = live(h)
    assert lt2 is not lt and lt2.match_id == lt.match_id and lt2.stall is None
    acts = await h.bot.store.actions(lt.match_id)
    assert json.loads(acts[stored - 1].action) == data, "the other process's move stands"
    assert lt2.table.seq == len(acts) and lt2.table.state_hash() == (await replay_from_store(h, lt.match_id)).state_hash()
    text = "\n".join(m.content for m in h.channel())
    assert "数据库没有响应" not in text and "数据库恢复了" not in text
    # the player plays on with the controls the table now shows
    if lt2.table.phase in ("play", "claim", "rob") and lt2.seat_of(P1) in lt2.table.awaited():
        msg = latest_dm_controls(h, P1)
        await h.click(msg, custom_id=choose_click(msg))
        assert len(await h.bot.store.actions(lt.match_id)) > len(acts)
        assert "数据库没有响应" not in "\n".join(m.content for m in h.channel())


async def test_resume_waits_for_a_locked_database(harness: Harness, monkeypatch):
    from bot.store import Store

    h = harness
    prep(h)
    await open_table(h, "wuhu", humans=(P1,))
    lt = live(h)
    match_id, state = lt.match_id, lt.table.state_hash()
    real_open = Store.open.__func__  # type: ignore[attr-defined]
    flakies = []

    async def locked_open(cls, path, **kwargs):
        store = await real_open(cls, path, **kwargs)
        conn = FlakyConnection.install(store)
        # the unfinished games cannot be read for a while: the first 3 reads (of the start-up's 4 tries) fail
        conn.fail("WHERE status = 'active'", times=3)
        flakies.append(conn)
        return store

    monkeypatch.setattr(Store, "open", classmethod(locked_open))
    h.bot.tables.store_backoff = (0.05, 0.1, 0.2)
    await h.close()
    from tests.harness import Harness as H

    h2 = await H.boot(h.bot.config.db_path, config=h.bot.config, fake=h.fake)
    try:
        assert flakies and flakies[0].hits == 3
        lt2 = h2.bot.tables.by_id[match_id]
        assert lt2.table.state_hash() == state
        assert (await h2.bot.store.match(match_id)).status == "active"
    finally:
        await h2.close()


async def test_the_last_hand_failing_to_settle_is_retried_and_the_summary_is_the_ledger(harness: Harness):
    h = harness
    prep(h)
    fast(h)
    await h.bot.store.set_house_rules(h.guild_id, P1, "hefei", {"quan_per_match": 1})
    await open_table(h, "hefei")
    lt = live(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("UPDATE matches SET status = 'finished'", times=2)  # the match's end fails twice
    await play_until_match_ends(h, [P1], lt)
    await h.bot.tables.wait_idle()
    assert flaky.hits == 2 and lt.state is State.FINISHED
    m = await h.bot.store.match(lt.match_id)
    assert m.status == "finished"
    ledger = [0, 0, 0, 0]
    for hand in await h.bot.store.hands(lt.match_id):
        for row in await h.bot.store.hand_ledger(hand.hand_id):
            ledger[row.seat] += row.amount
    assert [s.total for s in sorted(m.seats, key=lambda s: s.seat)] == ledger
    [summary] = [x for x in h.channel() if "最终子数" in x.content]
    names = lt.names()
    for c in range(4):
        assert f"{names[c]} {ledger[c]:+d}" in summary.content


# ------------------------------------------------------------------------------------------------ timers


async def test_a_claim_window_timeout_says_nothing_public(harness: Harness):
    h = harness
    prep(h)
    mgr = h.bot.tables
    mgr.timers.turn, mgr.timers.claim = 3600.0, 0.01
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    for _ in range(300):  # play on until P1 is offered a claim
        tb = lt.table
        if tb.phase == "claim" and lt.seat_of(P1) in tb.awaited():
            break
        if tb.phase == "ended":
            table_msg = h.fake.find_message(lt.message_id)
            await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)
            continue
        msg = latest_dm_controls(h, P1)
        discards = [c for c in controls(msg) if c["custom_id"].split(":")[4] == "d"]
        await h.click(msg, custom_id=discards[0]["custom_id"] if discards else choose_click(msg))
    else:
        pytest.skip("no claim offered in 300 moves")  # pragma: no cover - the deal is random
    name = lt.seats[lt.seat_of(P1)].name
    await mgr.publisher.drain()
    status = h.fake.find_message(lt.message_id).content  # the public table message while P1 may claim
    discarder = lt.seats[tb.view(None)["last_discard"]["seat"]].name
    assert f"{discarder} 打出" in status
    assert not any(w in status for w in ("吃", "碰", "杠", "胡", "等待")), status  # nothing says a claim is possible
    before = len(h.channel())
    await lt.timer  # the claim window's timer runs out (a real timer of 10 ms, awaited, not polled)
    await h.settle()
    await mgr.wait_idle()
    said = "\n".join(m.content for m in h.channel()[before - 1:])
    assert name not in said.replace(f"轮到：{name}", "")  # only the table's own turn line may name them
    assert "超时" not in said and lt.seats[lt.seat_of(P1)].timeouts == 0


# ------------------------------------------------------------------------------------------------ engine errors


async def test_an_engine_error_pauses_the_table_visibly_and_the_host_can_end_it(harness: Harness, monkeypatch,
                                                                               caplog):
    h = harness
    prep(h)
    await open_table(h, "chizhou", humans=(P1, P2))
    lt = live(h)
    real = Table.apply
    boom = []

    def broken(self, action):
        if not boom:
            boom.append(1)
            raise KeyError("engine bug")
        return real(self, action)

    monkeypatch.setattr(Table, "apply", broken)
    u = next(u for u in (P1, P2) if latest_dm_controls(h, u) is not None)
    msg = latest_dm_controls(h, u)
    with caplog.at_level(logging.ERROR):
        r = await h.click(msg, custom_id=choose_click(msg), locale="en-US")
    await h.bot.tables.wait_idle()
    assert "paused" in r.messages[0].content
    assert lt.stall == "error" and lt.timer is None
    logged = "\n".join(rec.getMessage() for rec in caplog.records)
    assert lt.seed in logged and "actions=" in logged
    assert any("内部错误" in m.content for m in h.channel())
    assert not [m for x in (P1, P2) for m in h.dms(x) if controls(m)]  # no control suggests it goes on
    r = await h.slash("table end", user=P3, locale="en-US")
    assert "host" in r.reply.content.lower() and not lt.closed
    await h.slash("table end", user=P3, permissions=ADMIN_PERMISSIONS)
    await h.bot.tables.wait_idle()
    assert lt.closed and (await h.bot.store.match(lt.match_id)).status == "aborted"


# ------------------------------------------------------------------------------------------------ Discord


async def test_dm_failing_with_5xx_is_retried_and_arrives(harness: Harness):
    h = harness
    prep(h)
    fast(h)
    fault = h.fake.fail(h.fake.dm_path(P1), method="POST", status=503, times=2)
    await open_table(h, "hefei", humans=(P1,))
    await h.bot.tables.wait_idle()
    assert fault.hits == 2 and latest_dm_controls(h, P1) is not None
    assert not [m for m in h.channel() if f"<@{P1}>" in m.content]  # nobody was told DMs are closed


async def test_table_message_rate_limited_is_retried(harness: Harness):
    h = harness
    prep(h)
    h.fake.rate_limit(f"^/channels/{h.channel_id}/messages$", method="POST", times=2, retry_after=0.01)
    await open_table(h, "hefei", humans=(P1,))
    await h.bot.tables.wait_idle()
    lt = live(h)
    assert lt.message_id is not None and h.fake.find_message(lt.message_id).images


async def test_a_dm_that_keeps_failing_is_not_called_closed_and_lands_when_discord_answers(harness: Harness):
    """Discord fails P1's DMs past every try (a 5xx: an outage, not the player): nobody is told P1's DMs are closed;
    the table message says, without a ping, that P1's DMs are delayed; My hand shows the hand and its controls; and
    the hand goes by DM once Discord answers."""
    h = harness
    prep(h)
    fast(h)
    outage = h.fake.fail(h.fake.dm_path(P1), method="POST", status=503, times=10**9)
    await open_table(h, "hefei", humans=(P1,))
    for _ in range(500):
        if outage.hits >= 4 + 1:  # every try of the first round, and one of the slower ones after it
            break
        await asyncio.sleep(0.01)
    await h.settle()
    lt = live(h)
    assert not lt.seats[lt.seat_of(P1)].dm_failed and not [m for m in h.channel() if f"<@{P1}>" in m.content]
    table_msg = h.fake.find_message(lt.message_id)
    assert "私信暂时发不出" in table_msg.content and "私信关闭" not in table_msg.content
    r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1)
    assert controls(r.reply)  # the player never loses the controls for their decision
    outage.remaining = 0
    await h.bot.tables.wait_idle()
    assert h.dms(P1) and "私信暂时发不出" not in h.fake.find_message(lt.message_id).content


async def test_dm_closed_50007_falls_back(harness: Harness):
    h = harness
    prep(h)
    h.fake.fail(h.fake.dm_path(P1), method="POST", status=403, code=50007, times=1000,
                message="Cannot send messages to this user")
    await open_table(h, "wuhu", humans=(P1,))
    await h.bot.tables.wait_idle()
    lt = live(h)
    assert lt.seats[lt.seat_of(P1)].dm_failed
    assert len([m for m in h.channel() if f"<@{P1}>" in m.content]) == 1
    assert "私信关闭" in h.fake.find_message(lt.message_id).content


# ------------------------------------------------------------------------------------------------ controls


async def test_lobby_shows_the_start_once_and_a_hand_end_removes_dm_controls(harness: Harness):
    h = harness
    prep(h)
    lobby_id = await open_table(h, "hefei", humans=(P1,))
    await h.bot.tables.wait_idle()
    lobby = h.fake.find_message(lobby_id)
    assert "开始" in lobby.content and not lobby.buttons()
    assert sum(m.content.count("开始！") for m in h.channel()) == 1
    lt = live(h)
    await play_until_hand_ends(h, [P1], lt)
    await h.bot.tables.wait_idle()
    assert not [m for m in h.dms(P1) if controls(m)]


async def test_restart_keeps_current_dm_controls_and_replaces_the_table_message(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2))
    await h.bot.tables.wait_idle()
    lt = live(h)
    old_table = lt.message_id
    with_controls = {u: latest_dm_controls(h, u) for u in (P1, P2)}
    h2 = await h.restart()
    try:
        prep(h2)
        await h2.bot.tables.wait_idle()
        lt2 = h2.bot.tables.by_channel[h2.channel_id]
        assert lt2.message_id != old_table and old_table not in [m.id for m in h2.channel()]
        tables = [m for m in h2.channel() if any(a.filename.startswith("table-") for a in m.attachments)]
        assert [m.id for m in tables] == [lt2.message_id]
        for u, msg in with_controls.items():
            if msg is not None:  # still the current decision: the same message keeps working controls
                assert latest_dm_controls(h2, u).id == msg.id
        assert sum(len([m for m in h2.dms(u) if controls(m)]) for u in (P1, P2)) <= 2
    finally:
        await h2.close()


async def test_table_message_updates_coalesce_latest_wins(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    await h.bot.tables.wait_idle()
    lt = live(h)
    pub = h.bot.tables.publisher
    pub.min_interval = 0.05  # at most one table-message write per 50 ms per table
    # the publisher's clock stands still and its waits end when the test says so: which states come during a slot
    # does not depend on how fast the machine is (three commands at once may all come before the first is written)
    now = [pub.clock() + 1000.0]
    slot_over = asyncio.Event()

    async def wait(seconds: float) -> None:
        await slot_over.wait()
        now[0] += seconds

    pub.clock, pub.sleep = (lambda: now[0]), wait
    posts = len(h.fake.requests_to(f"^/channels/{h.channel_id}/messages$", "POST"))
    await h.slash("table show", user=P1)  # written at once: no write in the last 50 ms
    assert len(h.fake.requests_to(f"^/channels/{h.channel_id}/messages$", "POST")[posts:]) == 1
    # two /table show at once during its slot: two table states queued while the table waits for its next slot
    for _ in range(2):
        h.bot._connection.parse_interaction_create(h.slash_payload("table show", user=P1)[0])
    await h.settle()
    slot_over.set()
    await h.bot.tables.wait_idle()
    sent = h.fake.requests_to(f"^/channels/{h.channel_id}/messages$", "POST")[posts:]
    assert len(sent) == 2  # the first at once; the two that came during its 50 ms slot became one (latest wins)
    tables = [m for m in h.channel() if any(a.filename.startswith("table-") for a in m.attachments)]
    assert [m.id for m in tables] == [lt.message_id]


# ------------------------------------------------------------------------------------------------ superseded messages


async def test_a_5xx_on_stripping_the_superseded_result_card_is_retried(harness: Harness):
    h = harness
    prep(h)
    fast(h)
    h.bot.tables.timers.next_hand = 3600.0  # the next hand waits for Next
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await play_until_hand_ends(h, [P1], lt)
    await h.bot.tables.wait_idle()
    assert lt.table.phase == "ended"
    card = h.fake.find_message(lt.message_id)
    data, rec = h.click_payload(card, custom_id=button_id(card, ":next"), user=P1)
    h.fake.expire(rec)  # Next's answer cannot reach Discord: the publisher removes the card's controls itself
    fault = h.fake.fail(f"^/channels/{h.channel_id}/messages/{card.id}$", method="PATCH", times=1)  # once: a 503
    await h.send(data, rec)
    await h.bot.tables.wait_idle()
    assert fault.hits == 1 and lt.message_id != card.id
    kept = h.fake.find_message(card.id)
    assert (kept.content, kept.buttons()) == (card.content, [])  # the hand's result stays, its Next button went
    assert [m.id for m in h.channel() if m.buttons()] == [lt.message_id]
    assert not h.bot.tables.publisher.leftovers(lt)


async def test_a_5xx_on_deleting_the_old_table_message_is_retried(harness: Harness):
    h = harness
    prep(h)
    fast(h)
    await open_table(h, "hefei", humans=(P1,))
    await h.bot.tables.wait_idle()
    old = live(h).message_id
    fault = h.fake.fail(f"^/channels/{h.channel_id}/messages/{old}$", method="DELETE", times=1)  # once: a 503
    await h.slash("table show", user=P1)
    await h.bot.tables.wait_idle()
    assert fault.hits == 1 and live(h).message_id != old
    assert old not in [m.id for m in h.channel()]  # no second table message with the old controls
    assert not h.bot.tables.publisher.leftovers(live(h))


async def test_a_long_5xx_storm_loses_no_announcement_and_no_wall_reveal(harness: Harness, caplog):
    """Every write to the channel fails with a 503 far longer than a write's tries last; when Discord answers
    again, every announcement of the hand (the wall's commitment, the claims, the hand's end with the wall's
    reveal, the result) is in the channel, in order, and the table message shows the hand's end."""
    h = harness
    prep(h)
    pub = h.bot.tables.publisher
    pub.backoff = (0.001, 0.001, 0.001)  # 4 tries per write: the storm outlasts every write many times over
    storm = h.fake.fail(f"^/channels/{h.channel_id}/messages", status=503, times=10**9)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await play_until_hand_ends(h, [P1], lt)
    await asyncio.sleep(0.05)  # (let the storm go on a little: how long does not matter)
    # still storming: what waits is a short queue (announcements joined, one table slot)
    assert len(pub.boxes[id(lt)].jobs) <= 5
    storm.remaining = 0  # Discord answers again
    with caplog.at_level(logging.WARNING, logger="bot.tables.publisher"):
        await h.bot.tables.wait_idle()
    assert storm.hits > 4 * 4  # many writes failed after every one of their tries
    text = "\n".join(m.content for m in h.channel())
    assert "第 1 局：牌墙承诺" in text
    assert "-# 第 1 局牌墙公开：盐" in text  # the reveal a player needs to check the deal, in small grey text
    assert "第 1 局：" in text.split("第 1 局牌墙公开")[0].split("第 1 局：牌墙承诺")[1]  # the result before the reveal
    assert not [r for r in caplog.records if "could not be sent" in r.getMessage()]


async def test_a_result_card_that_never_got_out_before_the_next_hand_is_posted_after_a_storm(harness: Harness):
    """The hand's result (written into the table message, with the wall's reveal) is still waiting when the next
    hand starts on its timer: the next table replaces the waiting table message, but the result is posted, not
    lost."""
    h = harness
    prep(h)
    pub = h.bot.tables.publisher
    pub.backoff = (0.001,)
    storm = h.fake.fail(f"^/channels/{h.channel_id}/messages", status=503, times=10**9)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    await play_until_hand_ends(h, [P1], lt)
    h.bot.tables.timers.next_hand = 0.01
    lt.timer.cancel()  # (armed with the old delay) the next hand starts on a timer of 10 ms
    h.bot.tables._arm_timer(lt)
    await lt.timer  # awaited, not polled
    await h.settle()
    assert lt.table.phase in ("play", "claim", "rob")  # the next hand is on
    storm.remaining = 0
    await h.bot.tables.wait_idle()
    text = "\n".join(m.content for m in h.channel())
    assert "第 1 局牌墙公开：盐" in text and "第 2 局：牌墙承诺" in text
    assert text.index("第 1 局牌墙公开") < text.index("第 2 局：牌墙承诺")  # in the order it happened


async def test_a_stop_during_a_5xx_storm_does_not_hang_and_says_what_was_given_up(harness: Harness, caplog):
    h = harness
    prep(h)
    h.bot.tables.publisher.backoff = (0.001,)
    h.fake.fail(f"^/channels/{h.channel_id}/messages", status=503, times=10**9)  # Discord never answers again
    await open_table(h, "hefei", humans=(P1,))
    with caplog.at_level(logging.WARNING, logger="bot.tables.publisher"):
        await asyncio.wait_for(h.close(), 30)  # (a bound for a hang, not a speed goal)
    given_up = [r.getMessage() for r in caplog.records if "given up" in r.getMessage()]
    assert given_up and all("shutting down" in m for m in given_up)


async def test_a_5xx_on_a_lobby_update_is_retried_and_the_lobby_shows_who_joined(harness: Harness, caplog):
    """A 503 on the edit that shows a new player in the lobby: the first try took the lobby's latest state with it,
    so the retry found nothing to send and counted as done; the lobby kept showing an empty seat. The update is
    tried again with its state, and the lobby shows the player who joined."""
    h = harness
    prep(h)
    fast(h)
    lobby = await lobby_of(h)
    await h.bot.tables.wait_idle()
    fault = h.fake.fail(f"^/channels/{h.channel_id}/messages/{lobby.id}$", method="PATCH", status=503, times=1)
    await h.click(lobby, custom_id=button_id(lobby, ":join"), user=P2)
    with caplog.at_level(logging.WARNING, logger="bot.tables.publisher"):
        await h.bot.tables.wait_idle()
    assert fault.hits == 1
    seats = "\n".join(f["value"] for e in h.fake.find_message(lobby.id).embeds for f in e.get("fields", []))
    assert f"<@{P2}>" in seats, seats


async def test_a_slow_click_whose_defer_fails_still_moves_and_the_dm_goes_on(harness: Harness, monkeypatch, caplog):
    """A decision slower than the answer's window is deferred; when the defer itself fails (404 Unknown interaction:
    the click came late), the move was made, but the error skipped the release of the clicker's held DM writes: the
    player never got their next controls, read "that did not work" and went away by timeout (an independent review).
    Now the move is answered by the DM write, as any click whose answer cannot reach Discord."""
    import sys

    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    monkeypatch.setattr(sys.modules[type(h.bot.get_cog("Tables")).__module__], "ANSWER_WITHIN", 0.0)  # deferred
    msg = latest_dm_controls(h, P1)
    seq = lt.table.seq
    data, rec = h.click_payload(msg, custom_id=choose_click(msg))
    h.fake.expire(rec)
    with caplog.at_level(logging.INFO):
        await h.send(data, rec)
        await h.bot.tables.publisher.drain()
        await h.settle()
    assert lt.table.seq > seq  # the move was made
    assert not h.bot.tables.publisher.parked  # no write of the clicker's stays held
    assert "deferring a slow click failed" in caplog.text
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
    tb = lt.table
    if tb.phase in ("play", "claim", "rob") and lt.seat_of(P1) in tb.awaited():  # their next decision: by DM
        now = latest_dm_controls(h, P1)
        assert now is not None and now.id != msg.id or (now is not None and now.components != msg.components)


@pytest.mark.parametrize("tid", [0, 2**63 - 1, 2**63, 2**64 + 7, 10**40])
async def test_table_ids_past_what_the_database_holds_in_a_dm_and_a_channel(harness: Harness, tid: int, caplog):
    """A forged control whose table id is past 2^63 - 1, pressed in a DM: on PostgreSQL the click's routing asked
    the database for that id's server and asyncpg refused it ("value out of int64 range"): an ERROR traceback and
    "That did not work" (an independent review). Every number of a custom id names no table past what the database
    holds (bot.ids), from a DM as from a channel."""
    from tests.harness import snowflake
    from tests.harness.fake import Message

    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    before = lt.table.state_hash()
    dm = h.fake._open_dm(P1).id
    with caplog.at_level(logging.WARNING):
        for ch in (dm, h.channel_id):
            for op in ("d:1m", "hand", "next", "x"):
                cid = f"mjt:{tid}:{9 if op in ('hand', 'next') else 0}:0:{op}"
                chan = h.fake.channels[ch]
                m = Message(id=snowflake(), channel_id=ch, guild_id=chan.guild_id,
                            author={"id": str(h.fake.application_id), "username": "mjbot", "bot": True,
                                    "discriminator": "0"},
                            components=[{"type": 1, "components": [{"type": 2, "custom_id": cid, "label": "x",
                                                                    "style": 2}]}])
                chan.messages.append(m)
                r = await h.click(m, custom_id=cid, user=P1, locale="en-US")
                said = " | ".join(x.content for x in r.messages)
                assert r.responded and "did not work" not in said, (cid, ch, said)
    assert lt.table.state_hash() == before and not lt.closed
    assert not [x.getMessage() for x in caplog.records if x.levelno >= logging.ERROR]


async def test_a_table_ended_while_a_hand_write_waits_for_its_dm_pacing_leaves_no_live_buttons(harness: Harness):
    """The seat's next hand (with its controls) waited for the DM channel's pacing when the table was ended: the
    waiting write was turned into one without controls, but a closed table's hand write returned at once, so the
    older message kept "Your turn" and its buttons (an independent review). The injected pacing is the
    publisher's own ``sleep``, released by the test."""
    h = harness
    prep(h)
    mgr, pub = h.bot.tables, h.bot.tables.publisher
    clock = SimClock()  # the table's timers on simulated time
    mgr.clock, mgr.sleep = clock.time, clock.sleep
    await open_table(h, "hefei", humans=(P1,))
    await mgr.wait_idle()
    lt = live(h)
    assert latest_dm_controls(h, P1) is not None
    gate = asyncio.Event()

    async def paced(seconds: float) -> None:
        await gate.wait()

    pub.sleep = paced
    try:
        pub.channel_limit = (2, 3600.0)  # the DM channel had its writes: the next waits for its slot
        for _ in range(2):  # two turns time out: the AI plays for P1, and P1 has a new decision waiting
            await clock.advance(mgr.delays(lt)[0], h.settle)
            lt.seats[lt.seat_of(P1)].timeouts = 0  # (not away: still offered the next decision)
        assert pub.boxes[id(lt)].lanes[lt.seat_of(P1)].pending is not None  # the new hand write waits
        await h.slash("table end", user=P1, locale="en-US")
        await h.settle()
    finally:
        gate.set()
    await pub.drain()
    await h.settle()
    assert lt.closed and not [m for m in h.dms(P1) if controls(m)]


async def _one_human_hefei_table_with_quick_store_retries(h: Harness):
    prep(h)
    h.bot.tables.store_backoff = (0.01, 0.02, 0.05)
    await open_table(h, "hefei", humans=(P1,))
    return h.bot.tables, live(h)


async def test_an_action_written_although_its_write_raised_counts_once(harness: Harness, monkeypatch):
    """The player's discard reached the store, but the bot heard an error (on PostgreSQL: the connection lost while
    the COMMIT's answer was on its way). The table was put back and the player told "not recorded"; every later
    write at that position was refused as a conflict (another tile, the timer), reported as the database being down
    and up again, and the table froze until a restart replayed the move the player was told did not count (an
    independent review). Now the store is asked whether the write landed: it did, so the move stands."""
    import sqlite3

    h = harness
    mgr, lt = await _one_human_hefei_table_with_quick_store_retries(h)
    store, real, lost = h.bot.store, h.bot.store.record_action, []

    async def answer_lost(*a, **k):
        got = await real(*a, **k)
        if not lost:
            lost.append(a)
            raise sqlite3.OperationalError("disk I/O error")  # committed; the answer is lost
        return got

    monkeypatch.setattr(store, "record_action", answer_lost)
    msg = latest_dm_controls(h, P1)
    seq = lt.table.seq
    r = await h.click(msg, custom_id=choose_click(msg), locale="en-US")
    await mgr.wait_idle()
    assert lost and lt.table.seq > seq
    assert not any("not recorded" in m.content for m in r.messages)
    assert len(await store.actions(lt.match_id)) == lt.table.seq  # the store and the table agree
    assert not any("数据库" in m.content for m in h.channel())  # no "database down / back" posts
    assert (await replay_from_store(h, lt.match_id)).state_hash() == lt.table.state_hash()


async def test_an_action_whose_landing_cannot_be_read_is_adopted_before_the_next_write(harness: Harness,
                                                                                      monkeypatch):
    """As above, and the store cannot even be read at that moment: the player is told "not recorded" (the bot
    cannot know better), but the next write first reads what the store holds, takes the action that landed, and
    the table goes on from it instead of freezing on conflicts."""
    import sqlite3

    h = harness
    mgr, lt = await _one_human_hefei_table_with_quick_store_retries(h)
    store = h.bot.store
    real_write, real_read, faults = store.record_action, store.actions, {"write": 1, "read": 1}

    async def answer_lost(*a, **k):
        got = await real_write(*a, **k)
        if faults["write"]:
            faults["write"] -= 1
            raise sqlite3.OperationalError("disk I/O error")
        return got

    async def unreadable(*a, **k):
        if faults["read"]:
            faults["read"] -= 1
            raise sqlite3.OperationalError("disk I/O error")
        return await real_read(*a, **k)

    monkeypatch.setattr(store, "record_action", answer_lost)
    monkeypatch.setattr(store, "actions", unreadable)
    msg = latest_dm_controls(h, P1)
    seq = lt.table.seq
    r = await h.click(msg, custom_id=choose_click(msg), locale="en-US")
    assert any("not recorded" in m.content for m in r.messages) and lt.rec.unsure
    for _ in range(20):  # the recovery reads the store, adopts the action and plays on
        await mgr.wait_idle()
        await h.settle()
        if not lt.rec.unsure and lt.stall is None:
            break
    assert not lt.rec.unsure and lt.stall is None and lt.table.seq > seq
    assert len(await real_read(lt.match_id)) == lt.table.seq
    assert (await replay_from_store(h, lt.match_id)).state_hash() == lt.table.state_hash()
    if lt.table.phase in ("play", "claim", "rob") and lt.seat_of(P1) in lt.table.awaited():
        now = latest_dm_controls(h, P1)
        r = await h.click(now, custom_id=choose_click(now), locale="en-US")  # the table goes on
        await mgr.wait_idle()
        assert not any("not recorded" in m.content for m in r.messages)
        assert len(await real_read(lt.match_id)) == lt.table.seq


async def test_a_table_whose_channel_is_deleted_is_ended_and_frees_its_players(harness: Harness):
    """The channel of a table in play is deleted (every request to it: 404 Unknown Channel). The table waited for
    ever on its Next / I'm back buttons, which were in that channel, and its players could sit at no other table
    ("you already sit at a table") (an independent review). Now the first write Discord refuses so ends the table
    as /table end does: aborted in the store, the players' hand messages without controls, saying it ended."""
    h = harness
    prep(h)
    mgr = h.bot.tables
    mgr.store_backoff = (0.01, 0.02, 0.05)
    mgr.publisher.backoff = (0.01,)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    mid = lt.match_id
    gone = h.fake.fail(f"^/channels/{h.channel_id}/", status=404, code=10003, times=10**9, message="Unknown Channel")
    msg = latest_dm_controls(h, P1)
    await h.click(msg, custom_id=choose_click(msg), locale="en-US")  # the table message's edit finds no channel
    for _ in range(20):
        await mgr.wait_idle()
        await h.settle()
        if lt.closed:
            break
    assert gone.hits and lt.closed
    assert [s for (s,) in sql(h, "SELECT status FROM matches WHERE id = ?", (mid,))] == [
        "aborted"]
    assert not [m for m in h.dms(P1) if controls(m)]  # no live buttons of the ended table
    other = h.add_channel()
    r = await h.slash("table new", variant="hefei", user=P1, channel=other, locale="en-US")
    assert "already" not in r.reply.content  # P1 may sit at another table


async def test_a_dissolve_button_forged_in_a_dm_opens_no_vote(harness: Harness):
    """The table message's Dissolve button, its id sent from a DM by a seated player: the vote was posted into
    that DM, where nobody else could answer it, and held every other vote off for its minute."""
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2, P3))
    lt = live(h)
    table = h.fake.find_message(lt.message_id)
    dissolve = next(c["custom_id"] for c in table.buttons() if c["custom_id"].endswith(":dissolve"))
    dm = h.fake.dm_by_user[P1]  # the table message's buttons, copied into P1's DM
    h.fake.channels[dm].messages.append(table.__class__(id=table.id + 1, channel_id=dm, guild_id=None,
                                                        author=table.author, components=table.components))
    r = await h.click(h.fake.channels[dm].messages[-1], custom_id=dissolve, user=P1, locale="en-US")
    assert "somewhere else" in "\n".join(m.content for m in r.messages)
    assert lt.vote is None and not lt.closed
    r = await h.slash("table dissolve", user=P1, locale="en-US")  # the channel's own vote is open to all
    assert lt.vote is not None
