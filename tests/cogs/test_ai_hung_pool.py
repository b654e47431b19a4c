"""A hung AI worker never holds a table (bot/tables/aipool.py, "A hung or broken pool never holds a table"), through
the real dispatch: the worker processes are stopped (SIGSTOP: alive, but answering nothing) just before a player's
click, the AI decision that click calls for waits for its deadline - on a clock the test moves, so nothing here
depends on the machine's speed - and then the table plays on: that decision made at once in a thread after ONE
timeout (not waited for again in a new pool), the player's next prompt sent, one warning in the log, the hung
processes ended, and the game stored the very one of a run without the hang (same seed, same clicks)."""

from __future__ import annotations

import asyncio
import copy
import logging
import os
import signal
from collections.abc import Callable
from typing import Any

import pytest

from bot.tables.manager import action_of
from engine.table import Action, Table
from tests.cogs.test_ai_pool import _bot_table, _check_replay, _dead, _stored
from tests.cogs.test_tables import P1, P2, controls, latest_dm_controls, prep
from tests.harness import Harness
from tests.harness.simclock import SimClock

HANG_BOUND = 120  # seconds: a bound for a broken test only (a decision waits here for the test's own clock)


class Deadlines:
    """The AI pool's decision deadlines on a :class:`SimClock`: each decision that waits for a worker's answer
    registers its deadline here (``waiting`` is set); :meth:`expire` moves the clock past the deadlines registered so
    far (those registered later are never reached)."""

    def __init__(self, h: Harness) -> None:
        self.h = h
        self.pool = h.bot.tables.ai
        self.clock = SimClock()
        self.waiting = asyncio.Event()
        self.pool.sleep = self.sleep

    async def sleep(self, seconds: float) -> None:
        self.waiting.set()
        await self.clock.sleep(seconds)

    async def expire(self) -> None:
        # (every deadline passes at once: those of the decisions answered before are dropped sleepers, and the bot
        # cannot settle before the hung one has passed)
        await self.clock.advance(self.pool.timeout, lambda: asyncio.sleep(0))
        await self.h.settle()
        await self.h.bot.tables.wait_idle()


def policy(legal: list[Action]) -> Action:
    """A player who wins when offered, then melds a kong, then a pung, else discards the last tile offered."""
    for typ in ("win", "kong", "pung"):
        for a in legal:
            if a.type == typ:
                return a
    discards = [a for a in legal if a.type == "discard"]
    return discards[-1] if discards else next(a for a in legal if a.type == "pass")


def control_for(msg: Any, want: Action) -> str:
    """The custom id of the control of ``msg`` that makes ``want``."""
    for c in controls(msg):
        parts = c["custom_id"].split(":")
        if action_of(want.seat, parts[4], parts[5] if len(parts) > 5 else None) == want:
            return c["custom_id"]
    raise AssertionError(f"no control for {want} in {[c['custom_id'] for c in controls(msg)]}")


def stop(pids: list[int]) -> None:
    for pid in pids:
        os.kill(pid, signal.SIGSTOP)


def ended(procs: list[Any]) -> bool:
    for p in procs:
        p.join(HANG_BOUND)
    return all(not p.is_alive() or _dead(p.pid) for p in procs)


async def play(h: Harness, user: int, seed: int, variant: str, difficulty: str, *,
               hang: Callable[[Table, Action], bool] | None = None) -> tuple[list[dict], dict[str, Any]]:
    """``user`` and three AI seats deciding in the worker processes play one hand by :func:`policy`; with ``hang``,
    the workers are stopped just before the first click whose action ``hang`` picks (given the table as that action
    leaves it), the test looks at the table while the AI decision waits, then lets its deadline pass. The stored game,
    and what was seen."""
    prep(h, seed=seed)
    pool = h.bot.tables.ai
    pool.inline = False
    deadlines = Deadlines(h)
    lt = await _bot_table(h, user, h.add_channel(), variant, difficulty)
    seen: dict[str, Any] = {}
    for _ in range(400):
        await h.settle()
        await h.bot.tables.wait_idle()
        tb = lt.table
        if tb.phase not in ("play", "claim", "rob"):
            break
        me = lt.seat_of(user)
        assert me in tb.awaited(), "the table waits on nobody"
        msg = latest_dm_controls(h, user)
        assert msg is not None
        want = policy(tb.legal_actions(me))
        cid = control_for(msg, want)
        after = copy.deepcopy(tb)
        after.apply(want)
        if hang is None or seen or not hang(after, want):
            await h.click(msg, custom_id=cid, user=user)
            continue
        w = pool._pool
        assert w is not None and all(w.ready)
        procs = list(w._processes.values())
        stop([p.pid for p in procs])
        seen.update(phase=after.phase, procs=procs, pooled=pool.pooled, fallbacks=pool.fallbacks,
                    dms=len(h.dms(user)))
        deadlines.waiting.clear()
        payload, rec = h.click_payload(msg, custom_id=cid, user=user)
        h.bot._connection.parse_interaction_create(payload)
        await asyncio.wait_for(deadlines.waiting.wait(), HANG_BOUND)
        # an AI decision waits on the hung workers: the table shows nothing new and waits on that AI seat
        seen["waiting"] = (lt.table.phase, [s for s in lt.table.awaited() if s != me], me in lt.table.awaited(),
                           len(h.dms(user)) - seen["dms"], pool.timeouts, pool.fallbacks - seen["fallbacks"])
        await deadlines.expire()
        seen["after"] = (pool.timeouts, pool.fallbacks - seen["fallbacks"], pool._pool is not w)
        seen["rec"] = rec
    assert lt.table.hand.phase in ("ended", "over")
    assert await _check_replay(h, lt.match_id, difficulty) > 5
    return await _stored(h, lt.match_id), seen


def one_warning(caplog: Any) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.name == "bot.tables.aipool" and r.levelno >= logging.WARNING]


@pytest.mark.parametrize("variant", ["hefei", "wuhu"])
async def test_a_hung_pool_in_the_middle_of_a_hand_does_not_hold_the_table(harness: Harness, caplog, variant: str):
    """Strong AI seats; every worker process hangs just before the player's third discard: the AI decision it calls
    for gets no answer, its deadline passes (once), it is made in a thread at once, the player's next prompt comes,
    the hand plays on to its end, and the game stored is that of a run without the hang."""
    h = harness
    caplog.set_level(logging.INFO, logger="bot.tables.aipool")
    clicks = [0]

    def third(_after: Table, action: Action) -> bool:
        clicks[0] += action.type == "discard"
        return clicks[0] == 3

    want, _ = await play(h, P1, 31, variant, "strong")
    got, seen = await play(h, P2, 31, variant, "strong", hang=third)
    await h.bot.tables.close()
    assert len(want) > 20 and got == want
    phase, ais, me_awaited, new_dms, timeouts, threads = seen["waiting"]
    assert ais and not me_awaited and new_dms == 0 and timeouts == 0 and threads == 0
    assert seen["after"] == (1, seen["after"][1], True) and seen["after"][1] >= 1  # ONE timeout, then a thread
    assert not seen["rec"].messages  # the click itself was not refused nor failed
    warned = one_warning(caplog)
    assert len(warned) == 1 and "did not answer in time" in warned[0], warned
    assert ended(seen["procs"])  # the hung processes were killed, not left running


async def test_a_hung_pool_while_the_ai_seats_decide_claims_on_the_players_discard(harness: Harness, caplog):
    """The workers hang just as the player discards a tile an AI seat could claim: that seat's claim decision waits
    for its deadline (the claim window open, the player not asked anything), then is made in a thread, and the game
    is that of a run without the hang."""
    h = harness
    caplog.set_level(logging.INFO, logger="bot.tables.aipool")

    def claimable(after: Table, action: Action) -> bool:
        return (action.type == "discard" and after.phase == "claim"
                and any(s != action.seat and len(after.legal_actions(s)) > 1 for s in after.awaited()))

    want, _ = await play(h, P1, 5, "hefei", "strong")
    got, seen = await play(h, P2, 5, "hefei", "strong", hang=claimable)
    await h.bot.tables.close()
    assert seen, "no discard of the player's could be claimed in this hand"
    assert len(want) > 20 and got == want
    assert seen["phase"] == "claim" and seen["waiting"][0] == "claim"
    assert seen["waiting"][1] and not seen["waiting"][2] and seen["waiting"][3:] == (0, 0, 0)
    assert seen["after"][0] == 1 and seen["after"][1] >= 1 and seen["after"][2]
    assert len(one_warning(caplog)) == 1
    assert ended(seen["procs"])


async def test_a_hung_pool_while_an_ai_seat_decides_to_rob_the_players_kong(harness: Harness, caplog):
    """Hefei: the player adds a fourth tile to a pung (加杠) that a strong AI seat waits on, and the workers hang
    just then: the robbing seat's decision (win or let it go) waits for its deadline, then is made in a thread, and
    the game is that of a run without the hang (seed 0x7f2: the deal where this happens)."""
    h = harness
    caplog.set_level(logging.INFO, logger="bot.tables.aipool")

    def robbable(after: Table, action: Action) -> bool:
        return action.type == "kong" and after.phase == "rob"

    want, _ = await play(h, P1, 0x7f2, "hefei", "strong")
    got, seen = await play(h, P2, 0x7f2, "hefei", "strong", hang=robbable)
    await h.bot.tables.close()
    assert seen, ("the player's kong could not be robbed in this hand: the strong AI now plays this deal otherwise; "
                  "take the first seed from 0x700 where, with the player (seat 0) playing policy() and three strong "
                  "AIs (engine.ai.choose) the others, the player's kong leaves the table in the rob phase")
    assert got == want
    assert seen["phase"] == "rob" and seen["waiting"][0] == "rob"
    assert seen["waiting"][1] and not seen["waiting"][2] and seen["waiting"][3:] == (0, 0, 0)
    assert seen["after"][0] == 1 and seen["after"][1] >= 1 and seen["after"][2]
    assert len(one_warning(caplog)) == 1
    assert ended(seen["procs"])


async def _click_policy(h: Harness, lt: Any, user: int, *, send: bool = True) -> tuple[Action, Any] | None:
    """``user``'s next control by :func:`policy` (None: the player is not awaited); pressed and waited for, or only
    fed (``send=False``: returns the action and the interaction's record)."""
    tb = lt.table
    me = lt.seat_of(user)
    if tb.phase not in ("play", "claim", "rob") or me not in tb.awaited():
        return None
    msg = latest_dm_controls(h, user)
    assert msg is not None
    want = policy(tb.legal_actions(me))
    cid = control_for(msg, want)
    if send:
        await h.click(msg, custom_id=cid, user=user)
        return want, None
    payload, rec = h.click_payload(msg, custom_id=cid, user=user)
    h.bot._connection.parse_interaction_create(payload)
    return want, rec


async def _two_tables(h: Harness, users: tuple[int, int], hang_at: int | None
                      ) -> tuple[list[list[dict]], dict[str, Any]]:
    """Tables A and B of ``users``, each with three strong AI seats, their players taking turns to click; with
    ``hang_at``, before A's discard number ``hang_at`` the worker process A's decisions go to is stopped, and B's
    player clicks while A's AI decision waits on it."""
    prep(h, seed=11)
    pool = h.bot.tables.ai
    pool.inline = False
    deadlines = Deadlines(h)
    ua, ub = users
    a = await _bot_table(h, ua, h.add_channel(), "hefei", "strong")
    b = await _bot_table(h, ub, h.add_channel(), "hefei", "strong")
    seen: dict[str, Any] = {}
    discards = 0
    for _ in range(800):
        await h.settle()
        await h.bot.tables.wait_idle()
        if all(lt.table.phase not in ("play", "claim", "rob") for lt in (a, b)):
            break
        tb = a.table
        me = a.seat_of(ua)
        mine = tb.phase in ("play", "claim", "rob") and me in tb.awaited()
        if mine and policy(tb.legal_actions(me)).type == "discard":
            discards += 1
        if not (mine and discards == hang_at and not seen):
            await _click_policy(h, a, ua)
            await _click_policy(h, b, ub)
            continue
        w = pool._pool
        assert w is not None and all(w.ready) and w.busy == [0, 0]
        i = w.pick(a.channel_id)
        hung = w.processes[i]
        assert hung is not None
        stop([hung.pid])
        deadlines.waiting.clear()
        await _click_policy(h, a, ua, send=False)
        await asyncio.wait_for(deadlines.waiting.wait(), HANG_BOUND)
        # A's AI decision waits on the stopped process: B's player clicks meanwhile, and the harness waits for B only
        held = {t.get_name() for t in asyncio.all_tasks() if not t.done()}
        before = set(h.ignored_task_names)
        h.ignored_task_names |= held
        b_seq, pooled, threads = b.table.seq, pool.pooled, pool.fallbacks
        b_click = await _click_policy(h, b, ub, send=False)
        assert b_click is not None, "B's player was not awaited"
        await h.settle()
        h.ignored_task_names = before
        b_me = b.seat_of(ub)
        seen["b"] = (b.table.seq != b_seq and (b_me in b.table.awaited() or b.table.phase == "ended"),
                     not b_click[1].messages, pool.pooled > pooled, pool.fallbacks == threads)
        seen["a"] = (me in a.table.awaited(), pool.timeouts)
        await deadlines.expire()
        seen["after"] = (pool.timeouts, pool.fallbacks - threads, pool._pool is not w)
        seen["hung"] = hung
    games = [await _stored(h, lt.match_id) for lt in (a, b)]
    for lt in (a, b):
        assert lt.table.hand.phase in ("ended", "over")
        assert await _check_replay(h, lt.match_id, "strong") > 5
    return games, seen


async def test_a_hung_worker_holds_no_other_table(harness: Harness, caplog):
    """Two tables of strong AI seats; the worker process table A's decisions go to hangs just as A's player
    discards. While A's AI decision waits on it, B's player clicks and B's AI seats answer (in the other process): B
    is not held behind A. A's decision's deadline then passes once, it is made in a thread, both hands play on, and
    both games are those of a run without the hang."""
    h = harness
    caplog.set_level(logging.INFO, logger="bot.tables.aipool")
    want, _ = await _two_tables(h, (8101, 8102), None)
    got, seen = await _two_tables(h, (8103, 8104), 3)
    await h.bot.tables.close()
    assert seen, "A's player made fewer than three discards"
    assert all(len(g) > 15 for g in want) and got == want
    # B moved on to its player's next prompt, the click answered, its AI seats deciding in the pool, while A waited
    assert seen["b"] == (True, True, True, True)
    assert seen["a"] == (False, 0)  # A still waiting on its AI seat, nothing timed out yet
    assert seen["after"][0] == 1 and seen["after"][1] >= 1 and seen["after"][2]
    warned = one_warning(caplog)
    assert len(warned) == 1 and "did not answer in time" in warned[0], warned
    assert ended([seen["hung"]])


async def test_the_bot_stops_at_once_with_a_hung_worker(harness: Harness):
    """The AI's worker processes hang (stopped) at a table of strong AI seats, and the bot stops (the table manager's
    close, as at a restart): the hung processes are ended, not left for the exit to wait on."""
    h = harness
    prep(h)
    h.bot.tables.ai.inline = False
    await _bot_table(h, P1, h.channel_id, "hefei", "strong")
    w = h.bot.tables.ai._pool
    assert w is not None and all(w.ready)
    procs = list(w._processes.values())
    stop([p.pid for p in procs])
    await h.bot.tables.close()
    assert ended(procs)


def test_a_hung_worker_does_not_hold_the_bots_exit():
    """A bot process whose AI worker hangs (busy for an hour) and whose pool is closed, as the table manager's close
    does at a stop, exits at once: nothing of the bot's process waits for the hung worker at the interpreter's exit
    (the executor the pool used until 2026-12-04 had threads the exit joined, and a restart waited for them)."""
    import subprocess
    import sys
    from pathlib import Path

    script = (
        "import asyncio, time\n"
        "from bot.tables.aipool import AiPool\n"
        "async def main():\n"
        "    pool = AiPool()\n"
        "    await pool.warm()\n"
        "    for i in range(2):\n"
        "        pool._pool.submit(i, time.sleep, 3600)\n"
        "    await asyncio.sleep(0.2)\n"
        "    pool.close()\n"
        "    print('closed', flush=True)\n"
        "if __name__ == '__main__':\n"
        "    asyncio.run(main())\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            cwd=str(Path(__file__).resolve().parents[2]))
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "closed"
        proc.wait(HANG_BOUND)  # (a bound for the hang only: the worker would sleep for an hour)
        assert proc.returncode == 0
    finally:
        proc.kill()
        proc.wait()
