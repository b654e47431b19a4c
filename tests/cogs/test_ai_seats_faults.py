"""Normal and strong AI seats met by the faults players and admins meet, through the real dispatch: a kill -9 in the
middle of the AI seats' turns, a restart, Discord failing while they play, a closed DM, a bad difficulty."""

from __future__ import annotations

import asyncio
import copy
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from tests.cogs.test_ai_pool import _bot_table, _check_replay, _dead, _stored, kill_after, play_the_hand
from tests.cogs.test_tables import P1, P2, choose_click, latest_dm_controls, prep
from tests.harness import Harness


async def _game(h: Harness, user: int, seed: int, variant: str, difficulty: str, *, pooled: bool, at: int = 0,
                interrupt: Callable[[Harness, Any], Awaitable[Harness]] | None = None) -> list[dict]:
    prep(h, seed=seed)
    h.bot.tables.ai.inline = not pooled
    channel = h.add_channel()
    lt = await _bot_table(h, user, channel, variant, difficulty)
    clicks, replaced = 0, None
    try:
        for _ in range(400):
            await h.settle()
            await h.bot.tables.wait_idle()
            if lt.table is None or lt.table.phase not in ("play", "claim", "rob"):
                break
            msg = latest_dm_controls(h, user)
            assert msg is not None, "the table waits on nobody"
            if interrupt is not None and replaced is None and clicks == at:
                h = replaced = await interrupt(h, msg)
                h.bot.tables.ai.inline = not pooled
                lt = h.bot.tables.by_channel[channel]
                continue
            await h.click(msg, custom_id=choose_click(msg))
            clicks += 1
        assert lt.table.hand.phase in ("ended", "over")
        assert (replaced is not None) == (interrupt is not None) and clicks > at
        assert await _check_replay(h, lt.match_id, difficulty) > 5
        return await _stored(h, lt.match_id)
    finally:
        if replaced is not None:
            await replaced.close()
        else:
            await h.bot.tables.close()


@pytest.mark.parametrize("difficulty, variant", [("strong", "hefei"), ("strong", "wuhu"), ("strong", "chizhou"),
                                                 ("normal", "hefei")])
@pytest.mark.parametrize("spins", [0, 12])
async def test_ai_seats_play_on_after_a_kill_in_the_middle_of_their_turns(harness: Harness, difficulty: str,
                                                                         variant: str, spins: int):
    """Strong (every variant) and normal AI seats deciding in the worker processes, the bot killed (as ``kill -9``)
    while a click's AI answers are being decided and written: the new bot plays on and the game stored is the very one
    of a run without the kill (same seed, same clicks)."""
    a = await _game(harness, P1, 23, variant, difficulty, pooled=True)
    b = await _game(harness, P2, 23, variant, difficulty, pooled=True, at=1, interrupt=kill_after(spins))
    assert len(a) > 10 and b == a


async def _click_as_player(h: Harness, lt: Any, user: int) -> None:
    """The player's next decision: from the DM's controls, or (DMs failing) from My hand."""
    from tests.cogs.test_tables import button_id, controls

    msg = latest_dm_controls(h, user)
    if msg is None or lt.seats[lt.seat_of(user)].dm_failed:
        table_msg = h.fake.find_message(lt.message_id)
        r = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=user)
        msg = r.reply
        assert controls(msg), "the player is awaited but has no controls"
    await h.click(msg, custom_id=choose_click(msg))


@pytest.mark.parametrize("variant", ["wuhu", "hefei", "chizhou"])
async def test_strong_seats_play_the_same_game_while_discord_fails_and_the_dm_closes(harness: Harness, variant: str):
    """One player and three strong AI seats in the worker processes: 5xx and 429 answers on the DMs and the channel
    while the AI seats play, then the player's DMs closed (50007) before the next hand: the player plays on by My hand,
    the channel is told once, and both hands stored are those of a run without a fault."""
    from tests.cogs.test_table_faults import fast
    from tests.cogs.test_tables import button_id

    h = harness
    fast(h)
    games, said = [], []
    for faults, user in ((False, P1), (True, P2)):
        prep(h, seed=51)
        h.bot.tables.ai.inline = False
        channel = h.add_channel()
        lt = await _bot_table(h, user, channel, variant, "strong")
        clicks, hit, hands = 0, [], 0
        for _ in range(800):
            await h.settle()
            await h.bot.tables.wait_idle()
            if lt.table.phase == "ended" and hands == 0:
                hands = 1
                if faults:  # the next hand's DM cannot be sent: the player plays by My hand
                    h.fake.close_dms(user)
                table_msg = h.fake.find_message(lt.message_id)
                await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=user)
                continue
            if lt.table.phase not in ("play", "claim", "rob"):
                break
            assert lt.seat_of(user) in lt.table.awaited(), "the table waits on nobody"
            if faults and clicks == 1:
                hit += [h.fake.fail(h.fake.dm_path(user), method="POST", status=503, times=3),
                        h.fake.fail(f"^/channels/{channel}/messages", status=502, times=2)]
                h.fake.rate_limit(h.fake.dm_path(user), times=2, retry_after=0.01)
                h.fake.rate_limit(f"^/channels/{channel}/messages", times=2, retry_after=0.01)
            await _click_as_player(h, lt, user)
            clicks += 1
        assert hands == 1 and lt.table.hand.phase in ("ended", "over")
        assert lt.stall is None
        assert lt.seats[lt.seat_of(user)].dm_failed == faults
        games.append(await _stored(h, lt.match_id))
        said.append("\n".join(m.content for m in h.channel(channel)))
        assert await _check_replay(h, lt.match_id, "strong") > 5
    await h.bot.tables.close()
    assert len(games[0]) > 20 and games[1] == games[0]
    assert "无法私信你" in said[1] and "无法私信你" not in said[0]


@pytest.mark.both_backends
@pytest.mark.parametrize("locale", ["zh-CN", "en-US"])
async def test_a_replay_names_the_ai_seats_as_the_table_did(harness: Harness, locale: str):
    """The replay of a hand against three strong AI seats names each seat as the table did (电脑1, 电脑2, 电脑3), in
    the steps and on the hands: they were all "AI (strong)", in English whatever the player's language, so a player
    could not tell which AI claimed or won."""
    from engine.replay import encode_code
    from tests.cogs.test_tables import play_until_hand_ends

    h = harness
    prep(h, seed=7)
    lt = await _bot_table(h, P1, h.channel_id, "hefei", "strong")
    at_table = tuple(lt.occupant(i).name for i in range(4))
    assert len(set(at_table)) == 4 and "电脑1" in at_table
    await play_until_hand_ends(h, [P1], lt)
    await h.bot.tables.wait_idle()
    code = encode_code(lt.match_id, 0)
    await h.slash("replay", user=P1, code=code.lower(), locale=locale)
    _viewer, scene = h.seen.replay_images()[-1]
    for title, hand in scene.hands:
        assert hand.names == at_table
        assert title.endswith(at_table[hand.seat])
    assert not any("AI (" in title for title, _ in scene.hands)


@pytest.mark.parametrize("locale, words", [("zh-CN", ("强", "简单", "普通")), ("en-US", ("strong", "easy", "normal"))])
async def test_the_lobby_says_how_each_ai_seat_plays(harness: Harness, locale: str, words: tuple[str, str, str]):
    """``/table addbot difficulty:strong``: the lobby showed "🤖 电脑1" whatever the difficulty, so the players could not
    see which seat was the strong AI (nor the host check that the right one was added). Each AI seat now says it."""
    from tests.cogs.test_tables import button_id

    h = harness
    prep(h)
    if locale == "en-US":  # the table speaks the server's language
        from tests.cogs.test_settings import ADMIN, ADMIN_PERMISSIONS, open_panel

        panel = await open_panel(h)
        await h.click(panel, custom_id="mjbot:settings:language", values=["en"], user=ADMIN,
                      permissions=ADMIN_PERMISSIONS)
    r = await h.slash("table new", variant="hefei", user=P1, locale=locale)
    await h.slash("table addbot", user=P1, difficulty="strong", locale=locale)
    await h.slash("table addbot", user=P1, difficulty="easy", locale=locale)
    lobby = h.fake.find_message(r.reply.id)
    await h.click(lobby, custom_id=button_id(lobby, ":addbot"), user=P1, locale=locale)  # Add AI: a normal one
    await h.settle()
    seats = h.fake.find_message(r.reply.id).embeds[0]["fields"][0]["value"].splitlines()
    assert [x.split(". ", 1)[0] for x in seats] == ["1", "2", "3", "4"]
    ai_lines = [x for x in seats if "🤖" in x]
    assert len(ai_lines) == 3
    for line, word in zip(ai_lines, words, strict=True):
        assert word in line, (line, word)


@pytest.mark.parametrize("kill_at", [1, 3])
async def test_three_strong_tables_clicking_at_once_lose_nothing_when_a_worker_is_killed(harness: Harness, kill_at: int,
                                                                                           caplog):
    """Three tables of strong AI seats, their players clicking at the same moment, a worker process killed while
    their decisions are in flight: the log says the pool broke, every table plays on, and each game is the one
    played table by table without a fault."""
    import logging
    import os
    import signal

    h = harness
    pool = h.bot.tables.ai
    pool.inline = False
    caplog.set_level(logging.WARNING, logger="bot.tables.aipool")

    async def tables(seed: int, users: tuple[int, ...]) -> list[Any]:
        prep(h, seed=seed)
        return [await _bot_table(h, u, h.add_channel(), "hefei", "strong") for u in users]

    async def play(users: tuple[int, ...], together: bool, kill: int | None) -> list[list[dict]]:
        lts = await tables(61, users)
        for rnd in range(400):
            await h.settle()
            await h.bot.tables.wait_idle()
            live = [(u, lt) for u, lt in zip(users, lts, strict=True) if lt.table.phase in ("play", "claim", "rob")]
            if not live:
                break
            if not together:
                for u, _lt in live:
                    msg = latest_dm_controls(h, u)
                    await h.click(msg, custom_id=choose_click(msg))
                continue
            for u, lt in live:
                assert lt.seat_of(u) in lt.table.awaited(), "the table waits on nobody"
                msg = latest_dm_controls(h, u)
                payload = h.click_payload(msg, custom_id=choose_click(msg), user=u)
                h.bot._connection.parse_interaction_create(payload[0])
            if rnd == kill:
                for _ in range(6):
                    await asyncio.sleep(0)
                w = pool._pool
                assert w is not None
                pids = list(w._processes)
                assert pids
                os.kill(pids[0], signal.SIGKILL)
        return [await _stored(h, lt.match_id) for lt in lts]

    try:
        want = await play((8001, 8002, 8003), False, None)
        got = await play((8004, 8005, 8006), True, kill_at)
    finally:
        await h.bot.tables.close()
    assert all(len(g) > 10 for g in want) and got == want
    assert any("AI pool: the worker pool is broken" in r.getMessage() for r in caplog.records)


async def test_strong_seats_play_the_same_game_when_every_click_is_pressed_twice_at_once(harness: Harness):
    """Strong AI seats deciding in the worker processes, their decisions asked ahead; every control pressed twice at
    the same moment: one press acts, the other is refused as out of date, and the game is that of single presses."""
    h = harness
    games = []
    for twice, user in ((False, P1), (True, P2)):
        prep(h, seed=43)
        h.bot.tables.ai.inline = False
        lt = await _bot_table(h, user, h.add_channel(), "wuhu", "strong")
        refused = await play_the_hand(h, lt, user, twice)
        games.append(await _stored(h, lt.match_id))
        assert await _check_replay(h, lt.match_id, "strong") > 5
        if twice:
            assert refused > 3
    await h.bot.tables.close()
    assert len(games[0]) > 20 and games[1] == games[0]


async def test_an_ai_added_with_the_wrong_difficulty_can_be_taken_out_of_the_lobby(harness: Harness):
    """The host meant a strong AI and pressed Add AI (a normal one): there was no way to take an AI out of a lobby
    (Leave and /table kick are for players), so the lobby had to be ended and everyone gathered again. Remove AI takes
    the AI added last out, the next one added takes its name, a restart keeps the lobby as it is, and it is refused
    (saying why, nothing changed) to someone not seated and at a lobby without AI."""
    from tests.cogs.test_tables import P3, button_id

    h = harness
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1)
    await h.slash("table join", user=P2)
    await h.slash("table addbot", user=P1, difficulty="strong")
    lobby = h.fake.find_message(r.reply.id)
    await h.click(lobby, custom_id=button_id(lobby, ":addbot"), user=P2)

    def seats() -> list[str]:
        return h.fake.find_message(r.reply.id).embeds[0]["fields"][0]["value"].splitlines()

    assert seats()[2:] == ["3. 🤖 电脑1（强）", "4. 🤖 电脑2（普通）"]
    lobby = h.fake.find_message(r.reply.id)
    refused = await h.click(lobby, custom_id=button_id(lobby, ":rmbot"), user=P3)
    assert [m.content for m in refused.messages] == ["You do not sit at this table."]
    assert seats()[2:] == ["3. 🤖 电脑1（强）", "4. 🤖 电脑2（普通）"]
    await h.click(lobby, custom_id=button_id(lobby, ":rmbot"), user=P1)
    assert seats()[2:] == ["3. 🤖 电脑1（强）", "4. （空）"]
    h = await h.restart()
    prep(h)
    await h.slash("table addbot", user=P2, difficulty="strong")
    assert seats()[2:] == ["3. 🤖 电脑1（强）", "4. 🤖 电脑2（强）"]
    lobby = h.fake.find_message(r.reply.id)
    for _ in range(2):
        await h.click(h.fake.find_message(r.reply.id), custom_id=button_id(lobby, ":rmbot"), user=P2)
    assert not any("🤖" in x for x in seats())
    none = await h.click(h.fake.find_message(r.reply.id), custom_id=button_id(lobby, ":rmbot"), user=P2)
    assert [m.content for m in none.messages] == ["There is no AI at this table to remove."]
    lt = h.bot.tables.by_channel[h.channel_id]
    assert [s.user_id for s in lt.seats if s is not None] == [P1, P2]
    await h.close()


async def test_a_hung_worker_pool_is_replaced_and_the_decision_is_the_ais_own(caplog):
    """Both worker processes hang (stuck on something else): a strong decision gets no answer within the pool's
    timeout (on a clock the test moves), the log says so once, the hung processes are ended (not left running) and
    the decision is made at once in a thread - not waited for again in a new pool - and it is the strong AI's own;
    the next decision starts a new pool."""
    import logging
    import time

    from bot.tables.aipool import AiPool
    from engine.ai import choose
    from engine.table import Table
    from tests.harness.simclock import SimClock

    t = Table.new("wuhu", "0d1ce5eed0000002")
    seat = t.awaited()[0]
    legal = t.legal_actions(seat)
    assert len(legal) > 1
    want = choose(t.view(seat), seat, legal, "strong")
    caplog.set_level(logging.WARNING, logger="bot.tables.aipool")
    pool = AiPool()
    clock, waits = SimClock(), asyncio.Event()

    async def sleep(seconds: float) -> None:
        waits.set()
        await clock.sleep(seconds)

    pool.sleep = sleep
    try:
        await pool.warm()
        hung = pool._pool
        assert hung is not None
        procs = list(hung._processes.values())
        for i in range(2):
            hung.submit(i, time.sleep, 600)
        task = asyncio.create_task(pool.choose(t.view(seat), seat, legal, "strong", key=0))
        await asyncio.wait_for(waits.wait(), 120)  # (a bound for a broken test only)
        assert not task.done()
        await clock.advance(pool.timeout, lambda: asyncio.sleep(0))
        got = await task
        assert got == want
        assert (pool.timeouts, pool.fallbacks, pool.pooled) == (1, 1, 0)  # ONE timeout, then a thread
        warned = [r.getMessage() for r in caplog.records]
        assert len(warned) == 1 and "did not answer in time" in warned[0]
        assert pool._pool is None  # retired; no new pool was waited for
        for p in procs:
            p.join(10)
            # is_alive() alone may still say True when the executor's own thread reaped the killed process first
            # (seen on a loaded machine): its state is read where the kernel keeps it (gone, or a zombie)
            assert not p.is_alive() or _dead(p.pid)
        assert await pool.choose(t.view(seat), seat, legal, "strong", key=0) == want  # (starts a new pool)
        assert pool._pool is not None and pool._pool is not hung
    finally:
        pool.close()


@pytest.mark.parametrize("second", [P2, "same"])
async def test_remove_ai_pressed_twice_at_once_takes_out_one_ai(harness: Harness, second: Any):
    """Remove AI pressed twice at the same moment (a double click, or two players who both saw the wrong AI) took two
    AIs out of the lobby, the right one with the wrong one. The button names the lobby it was drawn for: one press
    takes the AI out, the other is refused as out of date (saying so, nothing changed), and the lobby kept as it is
    shown; a press on the lobby as it now is takes the next one."""
    from tests.cogs.test_tables import button_id

    h = harness
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1)
    await h.slash("table join", user=P2)
    await h.slash("table addbot", user=P1, difficulty="strong")
    await h.slash("table addbot", user=P1, difficulty="easy")  # the wrong one
    await h.settle()
    lobby = h.fake.find_message(r.reply.id)
    other = P1 if second == "same" else second
    a = h.click_payload(lobby, custom_id=button_id(lobby, ":rmbot"), user=P1, locale="en-US")
    b = h.click_payload(lobby, custom_id=button_id(lobby, ":rmbot"), user=other, locale="en-US")
    h.bot._connection.parse_interaction_create(a[0])
    h.bot._connection.parse_interaction_create(b[0])
    await h.settle()
    seats = h.fake.find_message(r.reply.id).embeds[0]["fields"][0]["value"].splitlines()
    assert seats[2:] == ["3. 🤖 电脑1（强）", "4. （空）"], "one AI out: the one added last"
    said = [m.content for rec in (a[1], b[1]) for m in rec.messages]
    assert len(said) == 1 and "out of date" in said[0] and "nothing was changed" in said[0], said
    lt = h.bot.tables.by_channel[h.channel_id]
    assert [s.ai for s in lt.seats if s is not None] == [None, None, "strong"]
    from bot.store.lobbies import lobbies

    [(_, _, stored)] = await lobbies(h.bot.store)
    assert [s and s.get("ai") for s in stored["seats"]] == [None, None, "strong", None]
    # the lobby message missed a change (the bot killed before its edit landed): a press on it is refused, and the
    # message is drawn again as the lobby is, so that the next press acts
    for c in h.fake.find_message(r.reply.id).all_components():
        if c.get("custom_id", "").endswith(":rmbot"):
            c["custom_id"] = f"mjl:{h.channel_id}:2:rmbot"
    stale = await h.click(h.fake.find_message(r.reply.id), custom_id=f"mjl:{h.channel_id}:2:rmbot", user=P1)
    await h.settle()
    assert "out of date" in stale.messages[0].content and [s.ai for s in lt.seats if s is not None] == [None, None,
                                                                                                         "strong"]
    fresh = h.fake.find_message(r.reply.id)  # the lobby as it now is: its button takes the next AI out
    assert button_id(fresh, ":rmbot") == f"mjl:{h.channel_id}:1:rmbot"
    await h.click(fresh, custom_id=button_id(fresh, ":rmbot"), user=P1)
    assert [s.ai for s in lt.seats if s is not None] == [None, None]
    await h.slash("table addbot", user=P1)
    # a lobby message drawn before (its Remove AI button without a count) acts as then
    old = copy.deepcopy(h.fake.find_message(r.reply.id))
    for c in old.all_components():
        if c.get("custom_id", "").endswith(":rmbot"):
            c["custom_id"] = f"mjl:{h.channel_id}:rmbot"
    await h.click(old, custom_id=f"mjl:{h.channel_id}:rmbot", user=P2)
    assert [s.ai for s in lt.seats if s is not None] == [None, None]
    await h.close()
