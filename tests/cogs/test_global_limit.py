"""Discord's global limit, shared by the bot's processes (bot/ratelimit.py): through the real dispatch, a burst of the
bot's own requests is spread so that no second holds more than this process's share, interaction responses never
wait for it, and a 429 with ``global: true`` is still waited out and retried. Time is simulated (the limiter's
injectable clock and sleep): nothing here depends on the machine's speed."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from bot.config import Config
from bot.ratelimit import GLOBAL_LIMIT, GlobalLimiter, counted, share
from tests.cogs.test_tables import (
    PLAYERS,
    button_id,
    choose_click,
    latest_dm_controls,
    live,
    open_table,
    prep,
)
from tests.harness import Harness
from tests.harness.simclock import SimClock


def limited(h: Harness, rate: float) -> tuple[SimClock, list[tuple[float, Any]]]:
    """Turn the bot's limiter on at ``rate`` on a simulated clock; every request Discord receives, with its time."""
    clock = SimClock()
    lim = h.bot.limiter
    lim.clock, lim.sleep, lim.rate = clock.time, clock.sleep, rate
    log: list[tuple[float, Any]] = []
    h.fake.on_request.append(lambda req: log.append((clock.now, req)))
    return clock, log


def busiest_second(log: list[tuple[float, Any]]) -> int:
    """The most counted requests (on the bot's token) Discord answered in any one second (from a request's time
    on: the windows that can hold the most)."""
    times = sorted(t for t, r in log if r.transport == "http" and r.status != 429)
    return max((sum(1 for u in times if t <= u < t + 1.0) for t in times), default=0)


async def drain(clock: SimClock, h: Harness) -> None:
    for _ in range(2000):  # a bound for a hang only: simulated time, each step settles the bot
        if not clock.sleepers:
            return
        await clock.advance(0.25, h.settle)
    raise AssertionError("requests still waiting for the limiter")


async def test_a_burst_is_spread_under_the_share_and_interaction_responses_never_wait(harness: Harness):
    h = harness
    prep(h)
    rate = share(1, 25)  # this process runs 1 shard of 25: 2 requests a second
    assert rate == 2.0
    clock, log = limited(h, rate)
    # four players open a table: the lobby, the table message, each player's DM and hand go out
    r = await h.slash("table new", variant="hefei", user=PLAYERS[0])
    lobby = r.reply
    joins = [await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":join"), user=u)
             for u in PLAYERS[1:]]
    start = await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=PLAYERS[0])
    # the clock has not moved: every interaction was answered at once while the bot's own requests wait their turn
    assert clock.now == 0.0 and clock.sleepers > 0
    assert all(rec.responded for rec in (r, *joins, start))
    await drain(clock, h)
    lt = live(h)
    # every player has their hand, sent within the share; the burst needed several seconds
    assert all(h.dms(u) for u in PLAYERS)
    counted = [t for t, q in log if q.transport == "http"]
    assert len(counted) >= 3 * rate and max(counted) >= 2.0
    assert busiest_second(log) <= rate
    # a few moves: each click is answered at the moment it is made, whatever waits behind the limiter
    for _ in range(6):
        u = next(u for u in PLAYERS if lt.seat_of(u) in lt.table.awaited())
        msg = latest_dm_controls(h, u)
        if msg is None:
            await drain(clock, h)
            msg = latest_dm_controls(h, u)
        at = clock.now
        rec = await h.click(msg, custom_id=choose_click(msg))
        assert rec.responded and clock.now == at
        exempt_now = [q for t, q in log if q.transport == "webhook" and t == at]
        assert exempt_now  # the response went out at once
    await drain(clock, h)
    assert busiest_second(log) <= rate
    assert h.bot.limiter.delayed > 0 and h.bot.limiter.counted == len([1 for _, q in log if q.transport == "http"])


async def test_a_global_429_is_still_waited_out_and_retried(harness: Harness):
    h = harness
    prep(h)
    clock, log = limited(h, 5.0)
    h.fake.rate_limit(r"^/channels/\d+/messages$", method="POST", times=1, retry_after=0.0, is_global=True)
    await open_table(h, "hefei", humans=PLAYERS)
    await drain(clock, h)
    posts = [q for _, q in log if q.method == "POST" and q.path == f"/channels/{h.channel_id}/messages"]
    assert [q.status for q in posts][:2] == [429, 200]  # refused once, globally, then sent
    lt = live(h)
    assert [m.id for m in h.channel() if m.id == lt.message_id] == [lt.message_id]  # the table, once
    assert all(h.dms(u) for u in PLAYERS)
    assert busiest_second(log) <= 5


async def test_a_try_again_after_a_429_takes_a_slot_of_its_own(harness: Harness):
    # Discord counts every request it receives: discord.py's second try of a request refused for its route is one more
    h = harness
    prep(h)
    clock, log = limited(h, 3.0)
    h.fake.rate_limit(r"^/channels/\d+/messages$", method="POST", times=1, retry_after=0.0)
    await open_table(h, "hefei", humans=PLAYERS)
    await drain(clock, h)
    assert all(h.dms(u) for u in PLAYERS)
    sent = [q for _, q in log if q.transport == "http"]
    assert [q.status for q in sent if q.method == "POST" and q.path == f"/channels/{h.channel_id}/messages"][:2] \
        == [429, 200]
    assert h.bot.limiter.counted == len(sent)  # the refused try counted too
    assert busiest_second(log) <= 3


async def _sent_times(lim: GlobalLimiter, clock: SimClock, n: int) -> list[float]:
    """``n`` requests asking at once (task names "0".."n-1"), each taking its slot: the times they went."""
    sent: list[float] = []

    async def one() -> None:
        await lim.acquire()
        sent.append(clock.now)

    async def settle() -> None:
        for _ in range(10):
            await asyncio.sleep(0)

    tasks = [asyncio.create_task(one(), name=str(i)) for i in range(n)]
    await settle()
    for _ in range(1000):
        if not clock.sleepers:
            break
        await clock.advance(0.1, settle)
    await asyncio.gather(*tasks)
    return sent


async def test_a_waiter_woken_late_does_not_let_a_second_hold_more_than_the_rate():
    # a busy event loop wakes a sleeper late: the third request should go at 1.0 but goes at 1.4. The requests behind
    # it count from when it really went, so no second of the requests as sent holds more than 2.
    clock = SimClock()

    async def sleep(delay: float) -> None:
        task = asyncio.current_task()
        late = 0.4 if task is not None and task.get_name() == "2" else 0.0
        await clock.sleep(delay + late)

    lim = GlobalLimiter(2, clock=clock.time, sleep=sleep)
    sent = await _sent_times(lim, clock, 8)
    assert sent == [0.0, 0.0, 1.4, 1.4, 2.4, 2.4, 3.4, 3.4]
    assert max(sum(1 for u in sent if t <= u < t + 1.0) for t in sent) == 2
    assert lim.counted == 8 and lim.delayed == 6


async def test_the_share_of_a_process_and_the_limiter_on_its_own():
    assert share() == GLOBAL_LIMIT and share(2, 8) == 12.5
    with pytest.raises(ValueError):
        share(9, 8)
    clock = SimClock()
    assert await _sent_times(GlobalLimiter(3, clock=clock.time, sleep=clock.sleep), clock, 7) == \
        [0, 0, 0, 1.0, 1.0, 1.0, 2.0]
    clock = SimClock()
    slow = GlobalLimiter(0.5, clock=clock.time, sleep=clock.sleep)  # below one a second: one every two seconds
    assert await _sent_times(slow, clock, 3) == [0, 2.0, 4.0]
    clock = SimClock()
    assert await _sent_times(GlobalLimiter(None, clock=clock.time, sleep=clock.sleep), clock, 60) == [0.0] * 60


def test_the_configured_share_wins_and_a_bad_one_is_refused():
    from bot.app import create_bot
    from bot.config import ConfigError

    assert create_bot(Config(token=None, db_path="x.db")).limiter.rate == GLOBAL_LIMIT
    assert create_bot(Config.from_env({"MJBOT_GLOBAL_RATE": "12.5"}, dotenv=False)).limiter.rate == 12.5
    for bad in ("0", "-3", "fast", "51", "nan", "inf", "1e-300", "0.05"):
        with pytest.raises(ConfigError) as e:
            Config.from_env({"MJBOT_GLOBAL_RATE": bad}, dotenv=False)
        assert "MJBOT_GLOBAL_RATE" in str(e.value)


def test_requests_on_an_interaction_or_webhook_token_are_not_counted():
    bot_token = {"Authorization": "Bot abc", "User-Agent": "DiscordBot"}
    assert counted(bot_token, "/api/v10/channels/1/messages")
    assert not counted(bot_token, "/api/v10/interactions/1/tok/callback")
    assert not counted({"User-Agent": "DiscordBot"}, "/api/v10/webhooks/1/tok")  # a follow-up: the webhook's token
    assert not counted({}, "/gateway")
