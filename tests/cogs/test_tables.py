"""Playing tables end to end through the harness: slash commands and button clicks only.

Players act only by pressing the buttons the bot gave them (in their DMs, or ephemerally behind "My hand").
What the bot showed is checked against an independent replay of the match from the store (seed + actions).
"""

from __future__ import annotations

import itertools
import json
import re
from collections import Counter

import pytest

import render
from bot.store.tables import players_for
from bot.tables import TIMER_TASK_NAME
from engine.table import Table
from render.scene import HandScene, TableScene
from tests.harness import ADMIN_PERMISSIONS, Harness

P1, P2, P3, P4 = 7001, 7002, 7003, 7004
PLAYERS = (P1, P2, P3, P4)


def prep(h: Harness, *, images: bool = False, seed: int = 1) -> None:
    """Images off (their scenes are seen: ``h.seen``), and known deals: the n-th match of the test gets seed
    ``seed``, ``seed + 1`` ... so a failure replays exactly (the bot itself draws secret random seeds)."""
    h.ignored_task_names.add(TIMER_TASK_NAME)
    mgr = h.bot.tables
    h.seen.clear()
    mgr.render_images = images
    seeds = itertools.count(seed)
    mgr.new_seed = lambda: f"{next(seeds):016x}"


def button_id(msg, suffix: str) -> str:
    return next(c["custom_id"] for c in msg.buttons() if c["custom_id"].endswith(suffix))


def controls(msg) -> list[dict]:
    return [c for c in msg.buttons() if c.get("custom_id", "").startswith("mjt:") and c["custom_id"].split(":")[2] != "9"]


def op_of(c: dict) -> str:
    return c["custom_id"].split(":")[4]


def latest_dm_controls(h: Harness, user: int):
    """The user's newest DM if it carries play controls (None: nothing to do now)."""
    dms = h.dms(user)
    if dms and controls(dms[-1]):
        return dms[-1]
    return None


def choose_click(msg) -> str:
    """A simple player: win when offered, pass claims, otherwise discard the tile on the right-most button."""
    cs = controls(msg)
    for c in cs:
        if op_of(c) == "w":
            return c["custom_id"]
    discards = [c for c in cs if op_of(c) == "d"]
    if discards:
        return discards[-1]["custom_id"]
    return next(c["custom_id"] for c in cs if op_of(c) == "x")


async def open_table(h: Harness, variant: str, humans=(P1,), **kw) -> int:
    r = await h.slash("table new", variant=variant, user=humans[0], **kw)
    lobby = r.reply
    for u in humans[1:]:
        await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":join"), user=u)
    for _ in range(4 - len(humans)):
        await h.slash("table addbot", user=humans[0])
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=humans[0])
    return lobby.id


def live(h: Harness):
    return h.bot.tables.by_channel.get(h.channel_id) or next(iter(h.bot.tables.by_id.values()))


async def play_until_hand_ends(h: Harness, humans, lt=None, max_clicks: int = 400) -> None:
    lt = lt or live(h)
    for _ in range(max_clicks):
        tb = lt.table
        if tb.phase not in ("play", "claim", "rob"):
            return
        waiting = [u for u in humans if lt.seat_of(u) in tb.awaited()]
        assert waiting, "the table waits only for humans here"
        u = waiting[0]
        msg = latest_dm_controls(h, u)
        assert msg is not None, f"player {u} is awaited but has no controls in their DMs"
        await h.click(msg, custom_id=choose_click(msg))
    raise AssertionError("the hand did not end")


async def play_until_match_ends(h: Harness, humans, lt, max_hands: int = 40) -> None:
    """Play hand after hand (the humans' clicks), pressing the table's next-hand button as ``humans[0]``, until the
    table closes or ``max_hands`` hands were played."""
    for _ in range(max_hands):
        await play_until_hand_ends(h, humans, lt)
        await h.bot.tables.wait_idle()
        if lt.closed:
            return
        table_msg = h.fake.find_message(lt.message_id)
        await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=humans[0])


async def a_hand_ended(h: Harness, variant: str = "hefei"):
    """A table of P1 and three AIs whose first hand is over, waiting for Next (no timer deals the next one)."""
    prep(h)
    h.bot.tables.timers.next_hand = 3600.0  # the next hand waits for Next
    await open_table(h, variant, humans=(P1,))
    lt = live(h)
    await play_until_hand_ends(h, [P1], lt)
    return lt


async def play_the_match_out(h: Harness, lt, most: int = 60) -> None:
    """P1 plays every hand and presses Next until the match is over."""
    for _ in range(most):
        await play_until_hand_ends(h, [P1], lt)
        if lt.table.phase == "over":
            return
        table_msg = h.fake.find_message(lt.message_id)
        await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)


async def replay_from_store(h: Harness, match_id: int, upto: int | None = None) -> Table:
    store = h.bot.store
    m = await store.match(match_id)
    acts = [json.loads(a.action) for a in await store.actions(match_id)]
    return Table.replay(m.variant, m.seed, m.settings, acts[:upto], players_for(m.seats))


def face_up(scene: TableScene, c: int) -> Counter:
    s = scene.seats[c]
    out = Counter(s.river)
    for m in s.melds:
        out.update(m.tiles)
    return out


async def check_public_scenes(h: Harness, match_id: int) -> None:
    """Every public table image was drawn from what everyone may see at that moment (independent replay)."""
    log = [(k, sc, seq) for k, sc, seq in h.seen.public_images() if k == "table"]
    assert log
    for _kind, scene, seq in log:
        assert isinstance(scene, TableScene) and not any(isinstance(s, HandScene) for s in scene.seats)
        tb = await replay_from_store(h, match_id, seq)
        pub = tb.view(None)
        for c in range(4):
            assert list(scene.seats[c].river) == [r["tile"] for r in pub["rivers"][c]]
            assert scene.seats[c].concealed_count == pub["hand_sizes"][c]
            want = Counter()
            for r in pub["rivers"][c]:
                want[r["tile"]] += 1
            for m in pub["melds"][c]:
                want.update(m["tiles"])
            assert face_up(scene, c) == want  # nothing beyond rivers and melds is face up
    assert all(k in ("table", "score", "match") for k, _, _ in h.seen.public_images())


def tiles_of(scene: HandScene) -> list[int]:
    return sorted(scene.concealed + ((scene.drawn,) if scene.drawn is not None else ()))


def deal_of(tb: Table, seat: int) -> list[int]:
    return sorted(tb.view(seat)["hand"])


# ------------------------------------------------------------------------------------------------ lobby


async def test_lobby_rules_one_table_per_channel_and_one_seat_per_player(harness: Harness):
    h = harness
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1, locale="en-US")
    assert "Hefei" in r.reply.text or "合肥" in r.reply.text
    again = await h.slash("table new", user=P2, locale="en-US")
    assert again.reply.ephemeral and "already a table" in again.reply.content
    other = h.add_channel()
    busy = await h.slash("table new", user=P1, channel=other, locale="en-US")
    assert busy.reply.ephemeral and "already sit" in busy.reply.content
    start = await h.slash("table start", user=P2, locale="en-US")
    assert start.reply.ephemeral and "host" in start.reply.content.lower()
    await h.slash("table join", user=P2)
    assert live(h).seat_of(P2) == 1
    notfull = await h.slash("table start", user=P1, locale="en-US")
    assert "Four seats" in notfull.reply.content and not live(h).started
    await h.slash("table leave", user=P2)
    assert live(h).seat_of(P2) is None
    nobody = await h.slash("table join", user=P3, channel=other, locale="en-US")
    assert "no table" in nobody.reply.content
    end = await h.slash("table end", user=P3, locale="en-US")
    assert "host" in end.reply.content.lower() and h.channel_id in h.bot.tables.by_channel
    await h.slash("table end", user=P3, permissions=ADMIN_PERMISSIONS)
    assert h.channel_id not in h.bot.tables.by_channel and P1 not in h.bot.tables.by_player


@pytest.mark.parametrize("variant, locale, said", [
    ("hefei", "en-US", "The option mode is Wuhu's 315/525 scoring: Hefei has no modes. Nothing was done"),
    ("chizhou", "zh-CN", "选项「模式」是芜湖的 315/525 计分：池州没有这个选项。什么都没有做"),
    ("hefei", "zh-TW", "選項「模式」是蕪湖的 315/525 計分：合肥沒有這個選項。什麼都沒有做"),
])
async def test_a_mode_outside_wuhu_opens_no_table(harness: Harness, variant, locale, said):
    """/table new variant:Hefei mode:525 opened a Hefei lobby publicly as if 525 had not been asked: it is refused
    privately, and no lobby is opened; the same command in Wuhu opens a 525 table."""
    h = harness
    prep(h)
    r = await h.slash("table new", variant=variant, mode=525, user=P1, locale=locale)
    assert r.reply.ephemeral and r.reply.content.startswith(said), r.reply.content
    assert h.channel_id not in h.bot.tables.by_channel and P1 not in h.bot.tables.by_player
    assert [m for m in h.channel() if not m.ephemeral] == []
    r = await h.slash("table new", variant="wuhu", mode=525, user=P1, locale=locale)
    assert not r.reply.ephemeral and live(h).rules["mode"] == 525


# ------------------------------------------------------------------------------------------------ playing


@pytest.mark.parametrize("variant", ["wuhu", "hefei", "chizhou"])
async def test_a_hand_with_one_human_and_three_ai(harness: Harness, variant: str):
    h = harness
    prep(h, images=True)
    await open_table(h, variant)
    lt = live(h)
    match_id = lt.match_id
    # the human's first private image is exactly their hand then (checked against an independent replay)
    seat = lt.seat_of(P1)
    user, scene, seq = h.seen.private_images()[0]
    assert user == P1
    first = await replay_from_store(h, match_id, seq)
    assert tiles_of(scene) == deal_of(first, seat)
    assert all(u == P1 for u, _, _ in h.seen.private_images())
    assert h.dms(P1) and h.dms(P1)[0].images  # a real PNG in the DM
    await play_until_hand_ends(h, [P1], lt)
    # the image in the player's DMs is exactly the drawing of their latest hand scene
    _, last_scene, _ = h.seen.private_images()[-1]
    assert h.dms(P1)[-1].images == [render.render_hand(last_scene, "dark", "en")]
    # and the table message, now the hand's result card, shows the drawings of the score cards (checked below
    # against the ledger), or for a drawn hand the latest public scene (checked below against a replay)
    last_table = [sc for k, sc, _ in h.seen.public_images() if k == "table"][-1]
    scored = [render.render_score(sc, "dark", lt.lang) for k, sc, _ in h.seen.public_images() if k == "score"]
    assert h.fake.find_message(lt.message_id).images == (scored or [render.render_table(last_table, "dark", lt.lang)])
    tb = lt.table
    assert tb.phase in ("ended", "over")
    await h.settle()
    text = "\n".join(m.content for m in h.channel())
    assert "承诺" in text and "核对无误" in text  # commitment announced and its reveal verified
    # the ledger holds exactly the hand's settlement, and the score cards show the same amounts
    [hand] = [x for x in await h.bot.store.hands(match_id) if x.number == 0]
    assert hand.status == "finished"
    ledger = await h.bot.store.hand_ledger(hand.hand_id)
    replayed = await replay_from_store(h, match_id)
    assert replayed.state_hash() == tb.state_hash()
    pay = tb.last_result["payments"] if tb.last_result["hand_no"] == 0 else None
    assert [r.amount for r in sorted(ledger, key=lambda r: r.seat)] == pay
    cards = [sc for k, sc, _ in h.seen.public_images() if k == "score"]
    assert len(cards) == len(tb.last_result["winners"])
    assert all(c.variant == variant for c in cards)  # each line of the card names its ruling (W5 ...)
    # the table and its cards name Wuhu's scoring (315 or 525): the amounts depend on it
    assert all(c.title.endswith(" 315") == (variant == "wuhu") for c in cards)
    assert ("315 ·" in last_table.title) == (variant == "wuhu")
    # the image's title leaves the wall's count to the counter drawn beside it (said twice, the title shrank)
    assert not any(w in last_table.title for w in ("牌墙", "wall", "Wall"))
    card_sum = [0, 0, 0, 0]
    dealer = tb.last_result["dealer"]
    for sc in cards:
        for w in range(4):
            card_sum[(dealer + w) % 4] += sc.payments[w]
    if cards:
        assert card_sum == pay
    # every field of every ledger row, against the replay's win events and the numbers on the score cards
    wins = {}
    t2 = Table.new(replayed.variant, replayed.seed, replayed.settings, players=replayed.players)
    for a in await h.bot.store.actions(match_id):
        for e in t2.apply(json.loads(a.action)):
            if e.type == "win" and t2.hand_no <= 1:
                wins[e.seat] = e.data
        if t2.hand_no >= 1:
            break
    collected = {(dealer + sc.winner) % 4: sc.payments[sc.winner] for sc in cards}
    assert set(collected) == set(wins)
    for row in sorted(ledger, key=lambda r: r.seat):
        c = row.seat
        assert row.won == (c in wins)
        assert row.self_draw == bool(c in wins and wins[c]["self_drawn"])
        assert row.deal_in == any(not d["self_drawn"] and d["from"] == c for d in wins.values())
        assert row.drawn == (not wins)
        assert row.hand_value == collected.get(c, 0)
        if variant != "wuhu":
            assert (row.stack_amount, row.jiao_amount) == (0, 0)
        else:
            assert row.stack_amount + row.jiao_amount == row.amount
    await check_public_scenes(h, match_id)


async def test_four_humans_get_their_own_hands_and_play_a_hand(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "wuhu", humans=PLAYERS)
    lt = live(h)
    first = await replay_from_store(h, lt.match_id, 0)
    firsts = {}
    for u, scene, seq in h.seen.private_images():
        firsts.setdefault(u, (scene, seq))
    assert set(firsts) == set(PLAYERS)
    for u, (scene, seq) in firsts.items():
        assert seq == 0  # everyone sees their dealt hand at once
        assert tiles_of(scene) == deal_of(first, lt.seat_of(u))
    # each player's DMs hold their own hand only: the DM images were drawn for the DM's owner
    for u in PLAYERS:
        assert h.dms(u)
    await play_until_hand_ends(h, list(PLAYERS), lt)
    assert lt.table.phase in ("ended", "over")
    await check_public_scenes(h, lt.match_id)
    # one table message in the channel, at the bottom, never edited past the re-post limit
    tables = [m for m in h.channel() if any(a.filename.startswith("table-") for a in m.attachments)]
    assert [m.id for m in tables] == [lt.message_id] and h.channel()[-1].id == lt.message_id
    assert all(m.edits <= 40 for m in h.fake.channels[h.channel_id].messages)
    # every private image showed its receiver's own tiles at that moment, and went to that player's DMs only
    log = h.seen.private_images()
    assert len(log) > 8
    for u, scene, seq in log:
        tb = await replay_from_store(h, lt.match_id, seq)
        assert tiles_of(scene) == deal_of(tb, lt.seat_of(u))
    for u in PLAYERS:  # a new message for each decision, the others edit the latest one
        versions = sum(1 + m.edits for m in h.dms(u))
        assert len(h.dms(u)) <= sum(1 for x, _, _ in log if x == u) <= versions
    # next hand by the table's button
    if lt.table.phase == "ended":
        table_msg = h.fake.find_message(lt.message_id)
        await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P2)
        assert lt.table.phase == "play" and lt.table.hand_no == 1


async def test_stale_repeated_and_foreign_clicks_change_nothing(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    for _ in range(50):  # until P1 has controls
        msg = latest_dm_controls(h, P1)
        if msg is not None:
            break
        u = next(u for u in (P1, P2) if lt.seat_of(u) in lt.table.awaited())
        m = latest_dm_controls(h, u)
        await h.click(m, custom_id=choose_click(m))
    msg = latest_dm_controls(h, P1)
    cid = choose_click(msg)
    # P2 presses P1's button: refused, nothing changes
    before = lt.table.state_hash()
    r = await h.click(msg, custom_id=cid, user=P2, locale="en-US")
    assert r.messages and r.messages[0].ephemeral and "another player" in r.messages[0].content
    assert lt.table.state_hash() == before
    # a stranger
    r = await h.click(msg, custom_id=cid, user=P4, locale="en-US")
    assert lt.table.state_hash() == before and r.messages[0].ephemeral
    # P1 presses it twice (a double click: the second press was sent before the bot answered the first)
    again = h.click_payload(msg, custom_id=cid, locale="en-US")
    older = [m for m in h.dms(P1) if controls(m)]
    await h.click(msg, custom_id=cid)
    after = lt.table.state_hash()
    assert after != before
    n_actions = len(await h.bot.store.actions(lt.match_id))
    r = await h.send(*again)
    assert r.messages and "out of date" in r.messages[0].content
    assert lt.table.state_hash() == after and len(await h.bot.store.actions(lt.match_id)) == n_actions
    # the pressed message lost its buttons once newer controls arrived
    if latest_dm_controls(h, P1) is not None and latest_dm_controls(h, P1).id != msg.id:
        assert not controls(h.fake.find_message(msg.id))
    assert older


async def test_closed_dms_fall_back_to_my_hand_button(harness: Harness):
    h = harness
    prep(h)
    h.fake.close_dms(P1)
    await open_table(h, "chizhou")
    lt = live(h)
    told = [m for m in h.channel() if f"<@{P1}>" in m.content]
    assert len(told) == 1  # the channel is told once
    assert h.dms(P1) == []
    for _ in range(300):
        if lt.table.phase not in ("play", "claim", "rob"):
            break
        table_msg = h.fake.find_message(lt.message_id)
        r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1)
        reply = r.reply
        assert reply.ephemeral and reply.visible_to == P1 and reply.attachments
        assert controls(reply), "the table waits only for P1, so P1's ephemeral hand has controls"
        edits, before = reply.edits, [c["custom_id"] for c in controls(reply)]
        await h.click(reply, custom_id=choose_click(reply))
        panel = h.fake.find_message(reply.id)
        assert panel.edits == edits + 1 and [c["custom_id"] for c in controls(panel)] != before  # refreshed
    assert lt.table.phase in ("ended", "over")
    assert len([m for m in h.channel() if f"<@{P1}>" in m.content]) == 1
    # someone else pressing My hand sees nothing of P1's hand
    table_msg = h.fake.find_message(lt.message_id)
    r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P3, locale="en-US")
    assert r.reply.ephemeral and not r.reply.attachments


async def test_afk_seat_is_taken_over_until_im_back(harness: Harness):
    h = harness
    prep(h)
    mgr = h.bot.tables
    mgr.timers.turn = mgr.timers.claim = mgr.timers.next_hand = 0.01  # real timers, 10 ms
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    # nobody clicks: P1 and P2 time out twice and are taken over; the game goes on without them
    seats = [lt.seats[lt.seat_of(P1)], lt.seats[lt.seat_of(P2)]]
    for _ in range(1000):
        if all(s.afk for s in seats) and lt.table.phase in ("ended", "over"):
            break
        assert lt.timer is not None, "a human is awaited, so a timer runs"
        await lt.timer  # the timer task itself ends when it fires: awaited, not polled
        await h.settle()
    assert all(s.afk for s in seats)
    assert lt.table.phase in ("ended", "over")  # the hand finished with the AI playing for both
    timed_out = [m.content for m in h.channel() if "超时：" in m.content]
    # the tile in the table's words: "超时：打出 1m" (found by an independent review)
    assert timed_out and not any(re.search(r"超时：打出 [1-9][mpsz]", x) for x in timed_out)
    assert any(re.search(r"超时：打出 [一二三四五六七八九][万条筒]|超时：打出 [东南西北中发白]", x) for x in timed_out)
    # each player's hand message says the AI plays the seat now, not "your turn"
    for p in (P1, P2):
        assert h.dms(p)[-1].content.splitlines()[-1] == ("The AI plays your seat now (you timed out twice): press "
                                                          "“I'm back” on the table's message to take it back.")
    mgr.timers.turn = mgr.timers.claim = None
    mgr.timers.next_hand = 30.0
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":back"), user=P1)
    assert not lt.seats[lt.seat_of(P1)].afk and lt.seats[lt.seat_of(P2)].afk
    # timeouts were recorded as actions and the replay agrees
    assert (await replay_from_store(h, lt.match_id)).state_hash() == lt.table.state_hash()


async def test_restart_in_the_middle_of_a_hand_continues_it(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "wuhu", humans=(P1,))
    lt = live(h)
    clicks = 0
    while clicks < 3 or lt.table.phase not in ("play", "claim", "rob"):
        if lt.table.phase == "ended":  # an AI won early: on to the next hand
            table_msg = h.fake.find_message(lt.message_id)
            await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)
            continue
        m = latest_dm_controls(h, P1)
        await h.click(m, custom_id=choose_click(m))
        clicks += 1
    assert lt.table.phase in ("play", "claim", "rob")
    seq, state = lt.table.seq, lt.table.state_hash()
    pending = latest_dm_controls(h, P1)
    h2 = await h.restart()
    try:
        prep(h2)
        lt2 = h2.bot.tables.by_channel[h2.channel_id]
        assert lt2.table.seq == seq and lt2.table.state_hash() == state
        assert any("重启" in m.content for m in h2.channel())
        # the button sent before the restart still works
        await h2.click(h2.fake.find_message(pending.id), custom_id=choose_click(pending))
        assert lt2.table.seq > seq
        await play_until_hand_ends(h2, [P1], lt2)
        assert (await replay_from_store(h2, lt2.match_id)).state_hash() == lt2.table.state_hash()
    finally:
        await h2.close()


async def test_a_table_that_cannot_be_restored_is_closed_with_a_message(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei")
    lt = live(h)
    async with h.bot.store.transaction() as conn:
        await conn.execute("UPDATE actions SET state_hash = 'corrupt' WHERE match_id = ?", (lt.match_id,))
        await conn.execute("UPDATE matches SET start_hash = 'corrupt' WHERE id = ?", (lt.match_id,))
    assert latest_dm_controls(h, P1) is not None
    h2 = await h.restart()
    try:
        assert h2.channel_id not in h2.bot.tables.by_channel
        assert sum("无法恢复" in m.content for m in h2.channel()) == 1
        assert (await h2.bot.store.match(lt.match_id)).status == "aborted"
        # no button of it is left, and the store forgets its messages: the next start says nothing more
        assert not [m for m in h2.dms(P1) if controls(m)]
        assert not [m for m in h2.channel() if any(c["custom_id"].startswith("mjt:") for c in m.buttons())]
        assert (await h2.bot.store.match_meta(lt.match_id))[1] == {}
        h3 = await h2.restart()
        try:
            assert sum("无法恢复" in m.content for m in h3.channel()) == 1
        finally:
            await h3.close()
    finally:
        await h2.close()


async def test_hint_marks_ready_discards_with_unseen_counts():
    from bot.tables import LiveTable, hint
    from bot.tables.scenes import hint_marks

    lt = LiveTable(guild_id=1, channel_id=1, host_id=1, variant="hefei", rules={})
    # 123m 456m 789m 11p 34p + 9s: discarding 9s waits on 2p and 5p
    view = {"seat": 0, "hand": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 11, 12, 26], "melds": [[], [], [], []],
            "rules": {}, "seen": [0] * 34}
    view["seen"][10] = 3  # three 2p already out
    got = dict(hint(lt, view))
    assert got[26] == [(10, 1), (13, 4)]  # 2p: one left unseen; 5p: four
    assert 0 not in got  # discarding 1m breaks the ready hand
    assert 26 in hint_marks(hint(lt, view))
    # every winning tile of that wait seen: the discard is still listed (×0) but not marked like a live wait
    view["seen"][10], view["seen"][13] = 4, 4
    assert dict(hint(lt, view))[26] == [(10, 0), (13, 0)] and 26 not in hint_marks(hint(lt, view))


async def test_a_whole_match_ends_with_a_summary_matching_the_ledger(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei")
    lt = live(h)
    match_id = lt.match_id
    await play_the_match_out(h, lt, 40)
    assert lt.table.phase == "over" and lt.closed
    m = await h.bot.store.match(match_id)
    assert m.status == "finished"
    totals = {s.seat: s.total for s in m.seats}
    assert [totals[c] for c in range(4)] == lt.table.totals()
    ledger_sum = [0, 0, 0, 0]
    for hand in await h.bot.store.hands(match_id):
        for row in await h.bot.store.hand_ledger(hand.hand_id):
            ledger_sum[row.seat] += row.amount
    assert ledger_sum == lt.table.totals()
    summary = [m for m in h.channel() if "最终子数" in m.content]
    assert len(summary) == 1 and summary[0].attachments
    names = lt.names()
    for c in range(4):
        assert f"{names[c]} {lt.table.totals()[c]:+d}" in summary[0].content
    assert [k for k, _, _ in h.seen.public_images()].count("match") == 1
    # the player is free again
    assert P1 not in h.bot.tables.by_player
    # the click that ended the match took its DM's controls away too (they stayed live, answered "that table is
    # over"; found by an independent review), and no DM still says it is the player's turn
    await h.settle()
    assert not [m.content for m in h.dms(P1) if controls(m)]
    assert not [m.content for m in h.dms(P1) if "Your turn" in m.content or "轮到你" in m.content]
    last = h.dms(P1)[-1].content.splitlines()
    assert last[0].startswith("Your hand · Hefei · hand ") and last[1:] == [
        "The match is over: the final totals are in the table's channel."]
    assert all(m.content.splitlines()[-1] == "This hand is over: its result is on the table's message."
               for m in h.dms(P1)[:-1] if m.content.startswith("Your hand"))


async def test_show_reposts_the_table_at_the_bottom(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "chizhou")
    lt = live(h)
    old = lt.message_id
    r = await h.slash("table show", user=P3)
    assert r.reply.ephemeral
    assert lt.message_id != old and h.channel()[-1].id == lt.message_id
    assert old not in [m.id for m in h.channel()]  # the old copy is gone: one table message in the channel
    assert h.channel()[-1].images


async def test_tables_open_only_in_the_allowed_channels(harness: Harness):
    h = harness
    prep(h)
    other = h.add_channel()
    await h.bot.store.update_guild_settings(h.guild_id, P1, {"allowed_channels": [other]})
    r = await h.slash("table new", user=P1, locale="en-US")
    assert r.reply.ephemeral and f"<#{other}>" in r.reply.content
    assert h.channel_id not in h.bot.tables.by_channel
    await h.slash("table new", user=P1, channel=other)
    assert other in h.bot.tables.by_channel


async def test_host_ends_a_game_in_play(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "wuhu", humans=(P1, P2))
    lt = live(h)
    r = await h.slash("table end", user=P2, locale="en-US")
    assert "host" in r.reply.content.lower() and not lt.closed
    # a control in someone's DMs, pressed after the end (the click was on its way)
    dm = next((m for m in reversed(h.dms(P1)) if controls(m)), None) or next(
        m for m in reversed(h.dms(P2)) if controls(m))
    late = h.click_payload(dm, custom_id=controls(dm)[0]["custom_id"], locale="en-US")
    await h.slash("table end", user=P1)
    assert lt.closed and P1 not in h.bot.tables.by_player and P2 not in h.bot.tables.by_player
    assert (await h.bot.store.match(lt.match_id)).status == "aborted"
    assert not controls(h.fake.find_message(lt.message_id)) and not h.fake.find_message(lt.message_id).buttons()
    # no message anywhere keeps controls of the ended table
    assert not [m for u in (P1, P2) for m in h.dms(u) if controls(m)]
    # the late click is refused politely
    r = await h.send(*late)
    assert r.messages and "over" in r.messages[0].content
    # and the channel is free for a new table
    await h.slash("table new", user=P2)
    assert h.bot.tables.by_channel[h.channel_id].host_id == P2


async def test_two_presses_at_the_same_moment_act_once(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei")
    lt = live(h)
    msg = latest_dm_controls(h, P1)
    cid = choose_click(msg)
    a = h.click_payload(msg, custom_id=cid, locale="en-US")
    b = h.click_payload(msg, custom_id=cid, locale="en-US")
    n = len(await h.bot.store.actions(lt.match_id))
    h.bot._connection.parse_interaction_create(a[0])
    h.bot._connection.parse_interaction_create(b[0])  # before the first one is handled
    await h.settle()
    refused = [r for r in (a[1], b[1]) if r.messages]
    assert len(refused) == 1 and "out of date" in refused[0].messages[0].content
    # exactly one human action was recorded (then the AI seats' answers)
    acts = [json.loads(x.action) for x in await h.bot.store.actions(lt.match_id)][n:]
    assert acts[0]["seat"] == lt.seat_of(P1)
    assert sum(1 for x in acts if x["seat"] == lt.seat_of(P1)) == 1
    assert (await replay_from_store(h, lt.match_id)).state_hash() == lt.table.state_hash()


async def test_table_commands_are_translated(harness: Harness):
    await harness.bot.tree.sync()
    [table] = [c for c in harness.fake.commands[None] if c["name"] == "table"]
    assert table["name_localizations"]["zh-CN"] == "牌桌"
    subs = {o["name"]: o for o in table["options"]}
    assert set(subs) == {"new", "join", "leave", "addbot", "start", "end", "show",
                         "autoplay", "replace", "restore", "kick", "dissolve"}  # the last five: issue 15
    assert subs["new"]["name_localizations"]["zh-TW"] == "開桌"
    assert subs["addbot"]["options"][0]["choices"][0]["name_localizations"]["zh-CN"] == "简单"


async def test_start_pressed_twice_at_once_starts_one_match(harness: Harness):
    h = harness
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1)
    for _ in range(3):
        await h.slash("table addbot", user=P1)
    lobby = h.fake.find_message(r.reply.id)
    a = h.click_payload(lobby, custom_id=button_id(lobby, ":start"), user=P1)
    b = h.click_payload(lobby, custom_id=button_id(lobby, ":start"), user=P1)
    h.bot._connection.parse_interaction_create(a[0])
    h.bot._connection.parse_interaction_create(b[0])
    await h.settle()
    assert len(await h.bot.store.matches(h.guild_id)) == 1
    assert len([m for m in h.channel() if m.attachments and m.attachments[0].filename.startswith("table-")]) == 1


async def test_a_failed_settlement_is_retried_until_it_lands(harness: Harness):
    """Fault injection: the database refuses the ledger once; the hand is still shown, and the table settles it by
    itself (the store's own finish_hand does the writing)."""
    from bot.store import StoreError

    h = harness
    prep(h)
    store = h.bot.store
    real = store.finish_hand
    failures = []

    async def flaky(*a, **kw):
        if not failures:
            failures.append(1)
            raise StoreError("no_hand", hand_id=a[0])
        return await real(*a, **kw)

    store.finish_hand = flaky
    h.bot.tables.store_backoff = (0.01,)
    await open_table(h, "hefei")
    lt = live(h)
    await play_until_hand_ends(h, [P1], lt)
    assert failures
    await h.bot.tables.wait_idle()
    [hand0] = [x for x in await store.hands(lt.match_id) if x.number == 0]
    assert hand0.status == "finished" and lt.rec.behind is None and lt.stall is None
    assert [r.amount for r in sorted(await store.hand_ledger(hand0.hand_id), key=lambda r: r.seat)] == lt.deltas[0]
    assert (await replay_from_store(h, lt.match_id)).state_hash() == lt.table.state_hash()
    text = "\n".join(m.content for m in h.channel())
    assert "数据库没有响应" in text and "数据库恢复了" in text  # the channel was told, both ways


async def test_a_hand_left_unsettled_by_a_crash_is_settled_on_restart(harness: Harness):
    from bot.store import StoreError

    h = harness
    prep(h)
    store = h.bot.store

    async def down(*a, **kw):  # the ledger write never gets through before the "crash"
        raise StoreError("no_hand", hand_id=a[0])

    store.finish_hand = down
    await open_table(h, "chizhou")
    lt = live(h)
    await play_until_hand_ends(h, [P1], lt)
    match_id, payments = lt.match_id, lt.deltas[0]
    h2 = await h.restart()
    try:
        [hand0] = [x for x in await h2.bot.store.hands(match_id) if x.number == 0]
        assert hand0.status == "finished"
        ledger = sorted(await h2.bot.store.hand_ledger(hand0.hand_id), key=lambda r: r.seat)
        assert [r.amount for r in ledger] == payments
    finally:
        await h2.close()


# ------------------------------------------------------------------------------------------------ hostile names

VICTIM = 1_200_000_000_000_009_999  # a member of the server who plays nothing
ROLE = 1_200_000_000_000_008_888
HOSTILE = f"<@{VICTIM}> @everyone <@&{ROLE}> @here **bold**"


def _sent_messages(h: Harness) -> list[tuple[str, dict]]:
    """(path, JSON body) of every message the bot wrote or edited (channel messages, DMs, interaction answers)."""
    out = []
    for rq in h.fake.requests:
        body = rq.json if isinstance(rq.json, dict) else {}
        if rq.method in ("POST", "PATCH") and isinstance(body.get("data"), dict):  # an interaction callback
            body = body["data"]
        if rq.method in ("POST", "PATCH") and ("content" in body or "embeds" in body):
            out.append((rq.path, body))
    return out


async def test_a_display_name_that_reads_as_a_mention_pings_nobody(harness: Harness):
    """A player named ``<@victim> @everyone`` made every table text that names them (轮到：…, the autoplay notice,
    the announcements, the result …) ping the victim. Names are shown escaped, and a message may ping only the
    members the bot means to ping (here: the player whose DMs are closed)."""
    h = harness
    prep(h)
    h.fake.close_dms(P2)
    await open_table(h, "hefei", humans=(P1, P2), name=HOSTILE)
    lt = live(h)
    assert lt.seats[lt.seat_of(P1)].name == HOSTILE  # the name is kept as the player chose it
    await h.slash("table autoplay", on="on", user=P1, locale="zh-CN")
    await h.slash("table autoplay", on="on", user=P2, locale="en-US")
    await h.settle()
    for _ in range(200):
        if lt.table.phase != "play" and lt.table.phase != "claim" and lt.table.phase != "rob":
            break
        await h.settle()
    await h.slash("table show", user=P1)
    await h.slash("table dissolve", user=P1)
    sent = _sent_messages(h)
    assert len(sent) > 10
    named = 0
    for path, body in sent:
        text = "\n".join([body.get("content") or "", *(
            "\n".join([e.get("title") or "", e.get("description") or "",
                       *(f.get("name", "") + f.get("value", "") for f in e.get("fields") or [])])
            for e in body.get("embeds") or [])])
        assert f"<@{VICTIM}>" not in text and f"<@&{ROLE}>" not in text, (path, text)
        assert "@everyone" not in text and "@here" not in text and "**bold**" not in text, (path, text)
        named += f"{VICTIM}" in text
        am = body.get("allowed_mentions")
        assert am is not None, (path, body)  # Discord's default would parse every mention
        assert "everyone" not in am.get("parse", []) and "roles" not in am.get("parse", []), (path, am)
        assert "users" not in am.get("parse", []), (path, am)  # users only by name, in a list
        assert str(VICTIM) not in [str(u) for u in am.get("users", [])], (path, am)
    assert named >= 5  # the name was shown, escaped, in the table's texts
    pinged = [b for _, b in sent if (b.get("allowed_mentions") or {}).get("users")]
    assert pinged and all([str(u) for u in b["allowed_mentions"]["users"]] == [str(P2)] for b in pinged)
    assert all(f"<@{P2}>" in b["content"] for b in pinged)  # the closed-DM notice still pings its player


@pytest.mark.parametrize("locale, said", [
    ("en-US", "This button is out of date: the next hand has already been dealt, or the match is over. Nothing was "
              "changed."),
    ("zh-CN", "这个按钮已经过期：下一局已经开始，或者本场已经结束。什么都没有改动。"),
])
async def test_next_pressed_again_says_the_hand_was_dealt_not_to_use_a_hand_message(harness: Harness, locale, said):
    """Next pressed twice, or on an older result card, told the player to use their latest hand message: Next is on
    the table message (found by an independent review). Only one hand is dealt."""
    h = harness
    lt = await a_hand_ended(h)
    card = h.fake.find_message(lt.message_id)
    again = h.click_payload(card, custom_id=button_id(card, ":next"), user=P1, locale=locale)  # (pressed later)
    await h.click(card, custom_id=button_id(card, ":next"), user=P1, locale=locale)
    hand_no = lt.table.hand_no
    r = await h.send(*again)
    assert r.reply.ephemeral and r.reply.content == said
    assert lt.table.hand_no == hand_no


HAND_JUST_OVER = "Your hand · Wuhu · hand 1 · you are North\nThis hand is over: its result is on the table's message."


@pytest.mark.parametrize("locale, said", [
    ("en-US", HAND_JUST_OVER),
    ("zh-CN", "你的手牌 · 芜湖 · 第 1 局 · 你是北家\n本局结束：结果在牌桌消息上。"),
    ("zh-TW", "你的手牌 · 蕪湖 · 第 1 局 · 你是北家\n本局結束：結果在牌桌訊息上。"),
])
async def test_my_hand_between_hands_shows_the_hand_just_over(harness: Harness, locale, said):
    """Between two hands, My hand labelled the finished hand's tiles "hand 2 · you are West · Waiting for the others"
    (the engine has already counted the next hand and passed the deal on): it says what the hand message says, the
    hand just over with the seat's wind in it, and its image has that hand's winds."""
    h = harness
    lt = await a_hand_ended(h, "wuhu")  # (seed 1: the deal passes on after the first hand, P1's wind changes)
    tb = lt.table
    seat = lt.seat_of(P1)
    played = tb.last_result["dealer"]
    assert tb.dealer != played and (seat - played) % 4 == 3  # North in hand 1, not in hand 2
    assert h.dms(P1)[-1].text == HAND_JUST_OVER  # the hand message, in the seat's language (P1 joined in English)
    dm_scene = h.seen.private_images()[-1][1]
    table_msg = h.fake.find_message(lt.message_id)
    r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1, locale=locale)
    assert r.reply.ephemeral and r.reply.content == said
    user, scene, _ = h.seen.private_images()[-1]
    assert user == P1 and scene.winds == dm_scene.winds == tuple((c - played) % 4 for c in range(4))
    assert tb.hand_no == 1 and tb.phase == "ended"  # nothing was dealt


@pytest.mark.parametrize("locale, lang", [("en-US", "en"), ("zh-CN", "zh"), ("zh-TW", "zh-TW")])
async def test_leaving_a_table_in_play_says_what_to_do_instead(harness: Harness, locale, lang):
    """/table leave once the game has started said only that seats can no longer change (found by an independent
    review): it names the controls that let a player step away (托管, 解散) and /table end, in the names the
    player's Discord shows; someone without a seat is told only that the game has started."""
    from bot.i18n import t

    h = harness
    prep(h)
    await open_table(h, "wuhu", humans=(P1,))
    r = await h.slash("table leave", user=P1, locale=locale)
    said = r.reply.content
    assert r.reply.ephemeral and said == t("tables.not_lobby_leave", lang)
    for key in ("tables.btn_autoplay", "tables.btn_back", "tables.btn_dissolve"):
        assert t(key, lang) in said
    assert f"/{t('table.name', lang)} {t('table.end.name', lang)}" in said
    # a dissolve vote passes with a majority (two of three): it said "everyone agrees"
    assert {"en": "majority", "zh": "多数", "zh-TW": "多數"}[lang] in said and "everyone" not in said
    r = await h.slash("table leave", user=P3, locale=locale)
    assert r.reply.content == t("tables.not_lobby", lang) and live(h).seat_of(P1) is not None
    # the host kicking a seated player is told what to do instead: /table replace and /table restore
    r = await h.slash("table kick", member=P1, user=P1, locale=locale)
    said = r.reply.content
    assert r.reply.ephemeral and said == t("tables.not_lobby_kick", lang)
    for key in ("table.replace.name", "table.restore.name"):
        assert f"/{t('table.name', lang)} {t(key, lang)}" in said


async def test_a_wuhu_stack_that_runs_out_is_said_in_the_channel(harness: Harness):
    """Wuhu (W11): a payer pays at most what its stack (底) holds, and an empty stack ends the 底 (with one 底 a
    match, the match). The card showed "-4" where the items came to 10, and the channel said only that the match was
    over (found by an independent review): each short payment and the 底's end are said, from the engine's events of
    the stored game."""
    from bot.tables.strings import shown_name
    from bot.tables.strings import t as tt
    from engine.table import Action

    h = harness
    lt = await a_hand_ended(h, "wuhu")
    await play_the_match_out(h, lt)
    assert lt.table.phase == "over"
    await h.settle()
    m = await h.bot.store.match(lt.match_id)
    game = Table.new(m.variant, m.seed, m.settings, players_for(m.seats))
    events = [e for a in await h.bot.store.actions(lt.match_id) for e in game.apply(Action.from_json(
        json.loads(a.action)))]
    names = [shown_name(n) for n in lt.names()]
    said = "\n".join(x.content for x in h.channel())
    shorts = [(c, e.data["settled"][c], e.data["payments"][c]) for e in events if e.type == "win" for c in range(4)
              if e.data["settled"][c] > e.data["payments"][c] < 0]
    assert shorts
    for c, paid, owed in shorts:
        assert tt("tables.ann_short", "zh", name=names[c], paid=f"{-paid} 子", owed=f"{-owed} 子") in said
    ends = [e for e in events if e.type == "di_end"]
    assert len(ends) == 1
    empty = "、".join(names[c] for c in range(4) if ends[0].data["stacks"][c] <= 0)
    assert tt("tables.ann_di_end", "zh", n=1, names=empty) in said


@pytest.mark.parametrize("locale, note", [
    ("en-US", "This server's tables speak 简体中文: the lobby, its buttons and the table. Your own replies stay in your "
              "language. A server admin can change the tables' language with /settings → Language."),
    ("zh-CN", None),
])
async def test_a_host_whose_discord_speaks_another_language_is_told_the_tables_language(harness: Harness, locale,
                                                                                          note):
    """An English newcomer on a server left at its default language opened a lobby they could not read, and nothing
    said why or what changes it (found by an independent review). The note is a private follow-up in their own
    language; a host who speaks the tables' language gets none."""
    h = harness
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1, locale=locale)
    assert not r.messages[0].ephemeral and r.messages[0].embeds  # the lobby, in the server's language
    notes = [m for m in r.messages[1:] if m.ephemeral]
    assert [m.content for m in notes] == ([note] if note else [])


async def test_when_no_click_answer_reaches_discord_the_hands_end_is_still_told_in_the_dm(harness: Harness):
    """Every answer to P1's clicks fails (Discord answers 404 Unknown interaction: the answer came too late): each
    new state goes by DM as usual, and the click that ends the hand still leaves its DM without controls and saying
    the hand is over, written by the publisher with the bot's token instead of in the answer. (A 5xx there is retried
    by discord.py for seconds, past the interaction's life, and ends the same way.)"""
    h = harness
    prep(h)
    h.bot.tables.timers.next_hand = 3600.0
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    fault = h.fake.fail(r"^/interactions/\d+/[^/]+/callback$", status=404, code=10062, times=10**6,
                        message="Unknown interaction")
    await play_until_hand_ends(h, [P1], lt)
    await h.bot.tables.wait_idle()
    await h.settle()
    assert fault.hits > 0 and lt.table.phase == "ended"
    assert not [m.content for m in h.dms(P1) if controls(m)]
    assert h.dms(P1)[-1].content.splitlines()[-1] == "This hand is over: its result is on the table's message."
