"""AI seats decide in the AI pool's worker processes (bot/tables/aipool.py), through the real dispatch: the same
seed and the same clicks give the same game inline and through the pool, for every difficulty (the easy AI's
seeded generator included), and a killed worker does not stop a table."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import signal
import threading
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from bot.store.tables import players_for
from engine.ai import choose, decision_rng
from engine.table import Action, Table
from tests.cogs.test_tables import P1, P2, button_id, play_until_hand_ends, prep
from tests.harness import Harness


async def _bot_table(h: Harness, user: int, channel: int, variant: str, difficulty: str):
    r = await h.slash("table new", variant=variant, user=user, channel=channel)
    for _ in range(3):
        await h.slash("table addbot", user=user, channel=channel, difficulty=difficulty)
    await h.click(h.fake.find_message(r.reply.id), custom_id=button_id(r.reply, ":start"), user=user)
    lt = h.bot.tables.by_channel[channel]
    assert [s.ai for s in lt.seats if s is not None and s.ai] == [difficulty] * 3
    return lt


async def _stored(h: Harness, match_id: int) -> list[dict]:
    return [json.loads(a.action) for a in await h.bot.store.actions(match_id)]


async def _check_replay(h: Harness, match_id: int, difficulty: str | list[str | None]) -> int:
    """Every stored AI decision is what the AI decides from that seat's view (the easy AI with the generator of
    that decision: the match's seed, the table's position, the seat). ``difficulty``: the AI seats', or each seat's
    (None: a human)."""
    m = await h.bot.store.match(match_id)
    t = Table.new(m.variant, m.seed, m.settings, players_for(m.seats))
    diffs = difficulty if isinstance(difficulty, list) else [None] + [difficulty] * 3
    checked = 0
    for a in await _stored(h, match_id):
        act = Action.from_json(a)
        d = diffs[act.seat]
        if d and t.hand.phase in ("play", "claim", "rob") and act.type != "timeout":
            la = t.legal_actions(act.seat)
            if len(la) > 1:
                assert choose(t.view(act.seat), act.seat, la, d, decision_rng(m.seed, t.seq, act.seat)) == act
                checked += 1
        t.apply(act)
    return checked


@pytest.mark.parametrize("difficulty, variant", [("easy", "wuhu"), ("normal", "hefei"), ("strong", "chizhou")])
async def test_the_same_game_inline_and_in_the_pool(harness: Harness, difficulty: str, variant: str):
    """Two tables with the same seed, one human clicking the same way: AI seats decided inline at the first and in
    the worker processes at the second play exactly the same actions (the easy AI's generator state goes to the
    worker with each decision)."""
    h = harness
    pool = h.bot.tables.ai
    games = []
    for inline, user in ((True, P1), (False, P2)):
        prep(h, seed=7)  # both matches get the same seed
        pool.inline = inline
        before = pool.pooled
        lt = await _bot_table(h, user, h.add_channel(), variant, difficulty)
        await play_until_hand_ends(h, [user], lt)
        assert lt.table.hand.phase in ("ended", "over")
        games.append(await _stored(h, lt.match_id))
        assert await _check_replay(h, lt.match_id, difficulty) > 5
        # the next AI seat's decision is asked while an action is written, the easy AI's too (its generator is
        # that decision's own)
        assert h.bot.tables.asked_ahead > 0
        if inline:
            assert pool.pooled == before
        else:
            assert pool.pooled - before > 5  # the decisions were made in the worker processes
    inline_game, pooled_game = games
    assert len(inline_game) > 20
    assert pooled_game == inline_game
    await h.bot.tables.close()
    assert pool._pool is None  # the workers are shut down with the manager


async def test_the_first_ai_decision_after_a_click_is_asked_while_the_players_action_is_written(harness: Harness):
    """A player's click starts a run of AI seats: every AI decision of the run with a real choice is asked ahead,
    the first one while the player's own action is being written (so a click waits for one write less), and each is
    the AI's own from its view."""
    from tests.cogs.test_tables import choose_click, latest_dm_controls

    h = harness
    prep(h, seed=7)
    lt = await _bot_table(h, P1, h.add_channel(), "hefei", "normal")
    me = lt.seat_of(P1)
    m = await h.bot.store.match(lt.match_id)
    runs = 0
    for _ in range(30):
        await h.bot.tables.wait_idle()
        await h.settle()
        if lt.table.phase not in ("play", "claim", "rob"):
            break
        n0, a0 = len(await _stored(h, lt.match_id)), h.bot.tables.asked_ahead
        msg = latest_dm_controls(h, P1)
        await h.click(msg, custom_id=choose_click(msg))
        stored = await _stored(h, lt.match_id)
        t = Table.new(m.variant, m.seed, m.settings, players_for(m.seats))
        for a in stored[:n0 + 1]:  # up to the player's action
            t.apply(Action.from_json(a))
        assert stored[n0]["seat"] == me
        choices = 0
        for a in stored[n0 + 1:]:  # the AI seats' run
            assert a["seat"] != me
            choices += len(t.legal_actions(a["seat"])) > 1
            t.apply(Action.from_json(a))
        assert h.bot.tables.asked_ahead - a0 == choices
        runs += choices > 0
    assert runs > 5
    assert await _check_replay(h, lt.match_id, "normal") > 5
    await h.bot.tables.close()


def _dead(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as f:
            return f.read().rsplit(")", 1)[1].split()[0] in ("Z", "X")
    except FileNotFoundError:
        return True


async def test_a_killed_worker_does_not_stop_the_table(harness: Harness, caplog):
    """A worker process dies (killed) between two clicks: the next AI decision finds the pool broken, the log says
    so, that decision is made in a thread at once, the next ones in a new pool, and the hand plays on to its end with
    the AI's own decisions."""
    h = harness
    prep(h)
    pool = h.bot.tables.ai
    pool.inline = False
    lt = await _bot_table(h, P1, h.channel_id, "hefei", "normal")
    first = pool._pool
    assert first is not None and all(first.ready)  # started with the table (its first decisions: in a thread)
    procs = list(first._processes.values())
    assert procs
    os.kill(procs[0].pid, signal.SIGKILL)
    procs[0].join(10)
    # dead: is_alive() alone may still say True when the pool's own thread reaped the process first (the poll then
    # cannot wait for it), so its state is read where the kernel keeps it (gone, or a zombie)
    assert not procs[0].is_alive() or _dead(procs[0].pid)
    caplog.set_level(logging.WARNING, logger="bot.tables.aipool")
    pooled, fallbacks = pool.pooled, pool.fallbacks
    await play_until_hand_ends(h, [P1], lt)
    assert lt.table.hand.phase in ("ended", "over")
    assert any("AI pool: the worker pool is broken" in r.getMessage() for r in caplog.records)
    assert pool._pool is not None and pool._pool is not first  # a new pool took over
    assert pool.fallbacks > fallbacks and pool.pooled > pooled and pool.timeouts == 0
    assert await _check_replay(h, lt.match_id, "normal") > 5
    await h.bot.tables.close()


async def test_a_pool_that_cannot_start_falls_back_to_a_thread(harness: Harness, caplog):
    """No worker process can be started at all (here: the interpreter to spawn is missing): each decision is made
    in a thread at once (it never waits for a start); the log says so and the hand plays on with the AI's own
    decisions."""
    from multiprocessing import spawn

    h = harness
    prep(h)
    pool = h.bot.tables.ai
    pool.inline = False
    caplog.set_level(logging.WARNING, logger="bot.tables.aipool")
    python = spawn.get_executable()
    spawn.set_executable("/nonexistent/python")
    try:
        lt = await _bot_table(h, P1, h.channel_id, "wuhu", "normal")
        await play_until_hand_ends(h, [P1], lt)
    finally:
        spawn.set_executable(python)
    assert lt.table.hand.phase in ("ended", "over")
    assert pool.fallbacks > 5 and pool.pooled == 0
    text = [r.getMessage() for r in caplog.records]
    assert any("AI pool: the workers did not start" in m and "in a thread" in m for m in text)
    assert await _check_replay(h, lt.match_id, "normal") > 5
    await h.bot.tables.close()


def test_the_workers_of_a_killed_bot_end_by_themselves(tmp_path):
    """The bot's process is killed (SIGKILL: no close): its AI workers notice their parent is gone and end, instead of
    staying behind for ever."""
    import subprocess
    import sys
    import time

    script = (
        "import asyncio, sys\n"
        "from bot.tables.aipool import AiPool\n"
        "pool = AiPool()\n"
        "async def main():\n"
        "    await pool.warm()\n"
        "    print(' '.join(str(p) for p in pool._pool._processes), flush=True)\n"
        "    await asyncio.sleep(3600)\n"
        "asyncio.run(main())\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                            cwd=str(Path(__file__).resolve().parents[2]))
    try:
        line = proc.stdout.readline()
        workers = [int(p) for p in line.split()]
        assert len(workers) == 2, line
    finally:
        proc.kill()
        proc.wait()

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        # a zombie waiting for init to reap it counts as ended
        with contextlib.suppress(OSError):
            if Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] == "Z":
                return False
        return True

    for _ in range(300):  # a generous bound, not a timing assertion: each worker checks its parent every second
        if not any(alive(p) for p in workers):
            break
        time.sleep(0.1)
    assert not any(alive(p) for p in workers)


async def test_the_workers_run_nicer_than_the_bot():
    """On a machine with no core to spare the bot's event loop (the players' clicks) gets the CPU before the AI's
    worker processes: they run ``WORKER_NICE`` nicer than the bot (as far as the system allows)."""
    from bot.tables.aipool import AiPool
    from bot.tables.workers import WORKER_NICE

    pool = AiPool()
    try:
        await pool.warm()
        assert pool._pool is not None
        pids = list(pool._pool._processes)
        assert len(pids) == 2
        want = min(19, os.getpriority(os.PRIO_PROCESS, 0) + WORKER_NICE)
        # (a worker sets it as it starts: the second may still be importing the engine when the first answered)
        for _ in range(6000):  # a bound for a broken pool only, not a deadline
            if all(os.getpriority(os.PRIO_PROCESS, p) == want for p in pids):
                break
            await asyncio.sleep(0.01)
        assert [os.getpriority(os.PRIO_PROCESS, p) for p in pids] == [want, want]
    finally:
        pool.close()


async def test_a_worker_keeps_what_its_decisions_leave_out_of_the_garbage_collectors_walk():
    """A strong AI worker's caches only grow; left in the garbage collector's generations they made a full collection
    of 100-150 ms every few hundred decisions, holding the decisions queued behind it. The worker freezes its
    start-up and, after each decision, what the decision left: the collector has almost nothing to walk, and the
    frozen count grows with the caches. The decisions are the same as inline."""
    import gc

    from bot.tables.aipool import AiPool

    pool = AiPool(workers=1)
    try:
        await pool.warm()
        w = pool._pool
        assert w is not None

        async def in_worker(fn: Callable[[], Any]) -> Any:
            return await asyncio.wrap_future(w.submit(0, fn))

        at_start = await in_worker(gc.get_freeze_count)
        assert at_start > 5000  # the engine, imported as the worker started
        t = Table.new("hefei", "0d1ce5eed0000001", dealer=0)
        decided = 0
        while t.hand.phase in ("play", "claim", "rob") and decided < 60:
            s = t.awaited()[0]
            legal = t.legal_actions(s)
            act = await pool.choose(t.view(s), s, legal, "strong", key=0)
            assert act == choose(t.view(s), s, legal, "strong")
            decided += len(legal) > 1
            t.apply(act)
        assert decided >= 30 and pool.pooled == decided and pool.fallbacks == 0
        assert await in_worker(gc.get_freeze_count) > at_start + 1000  # what the decisions kept: frozen
        assert len(await in_worker(gc.get_objects)) < 1000  # and what the collector still walks: next to nothing
    finally:
        pool.close()


def test_the_ais_decisions_leave_no_reference_cycles():
    """The workers freeze what each decision leaves (the test above): a reference cycle a decision made would then
    never be collected, and a worker would grow for its whole life. Whole games of every difficulty in every variant
    (the table's own objects included), played with the collector off, leave nothing for it to find."""
    import gc

    from engine.duel import play_deal

    gc.collect()
    gc.disable()
    try:
        for variant in ("wuhu", "hefei", "chizhou"):
            for deal in range(3):
                play_deal(variant, "strong", "easy", deal, "cycles")
                play_deal(variant, "normal", "easy", deal, "cycles")
        assert gc.collect() == 0
    finally:
        gc.enable()


async def test_one_tables_decisions_go_to_one_worker_while_it_is_free():
    """Each worker process keeps what it priced (the strong AI's scored ready hands), so one table's decisions go
    to the same process; to another only when that one is busy and the other idle (no decision waits while a
    process has nothing to do)."""
    from bot.tables.aipool import AiPool

    pool = AiPool()
    try:
        await pool.warm()
        w = pool._pool
        assert w is not None and len(w._processes) == 2
        pids = set()
        for _ in range(6):
            i = w.pick(7)
            pids.add(await asyncio.wrap_future(w.submit(i, os.getpid)))
        assert len(pids) == 1 and w.pick(8) != w.pick(7)
        w.busy[w.pick(7)] += 1  # the table's process is busy, the other idle: the other takes it
        assert w.pick(7) == 8 % 2
        w.busy[0] += 1  # both busy: the table's own
        assert w.pick(7) == 7 % 2
    finally:
        pool.close()


async def test_a_worker_killed_while_other_tables_wait_on_the_other_worker_stops_no_table():
    """One worker process dies while decisions of other tables wait in the other process's queue: the pool is
    replaced (its other process ended too) and every waiting decision is decided again in the new pool; none of them
    is lost (a decision cancelled with the retired pool would end its table's run: the table would wait on nobody)."""
    import time

    from bot.tables.aipool import AiPool

    t = Table.new("hefei", "0d1ce5eed0000001")
    seat = t.awaited()[0]
    legal = t.legal_actions(seat)
    assert len(legal) > 1
    want = choose(t.view(seat), seat, legal, "normal")
    pool = AiPool()
    try:
        await pool.warm()
        w = pool._pool
        assert w is not None and all(w.started(i) for i in (0, 1))
        # both processes busy with something long: the decisions below queue behind it
        holds = [w.submit(i, time.sleep, 600) for i in (0, 1)]
        a = asyncio.create_task(pool.choose(t.view(seat), seat, legal, "normal", key=0))
        for _ in range(5):
            await asyncio.sleep(0)
        others = [asyncio.create_task(pool.choose(t.view(seat), seat, legal, "normal", key=1)) for _ in range(5)]
        for _ in range(5):
            await asyncio.sleep(0)
        assert w.busy == [1, 5]  # table 0's decision waits on process 0, the other tables' on process 1
        pid0 = w.processes[0].pid
        os.kill(pid0, signal.SIGKILL)
        got = await asyncio.gather(a, *others, return_exceptions=True)
        assert got == [want] * 6
        assert pool._pool is not w
        # the calls the dead process and the other one held fail as the pool breaks, each told why
        held = await asyncio.gather(*holds, return_exceptions=True)
        assert [type(e).__name__ for e in held] == ["BrokenProcessPool", "BrokenProcessPool"], held
    finally:
        pool.close()


def _wait_for_file(path: str) -> str:
    """A worker's task that ends when the test creates ``path`` (it stands for decisions queued before another)."""
    import time

    while not os.path.exists(path):
        time.sleep(0.005)
    return path


async def test_a_busy_worker_keeps_its_pool_and_a_silent_one_is_retired(tmp_path):
    """At many tables on a machine with no core to spare, a decision may wait in its worker's queue past the pool's
    bound while the worker answers the decisions before it: that worker is busy, not hung, and the decision waits on
    in it (made in a thread of the bot's process instead, it would take the CPU from the event loop: the bound used
    to count the queue, and a saturated pool was retired again and again). A worker that answers nothing for a whole
    bound is still taken for hung. The bound passes on a clock the test moves."""
    from bot.tables.aipool import AiPool
    from tests.harness.simclock import SimClock

    t = Table.new("hefei", "0d1ce5eed0000001")
    seat = t.awaited()[0]
    legal = t.legal_actions(seat)
    want = choose(t.view(seat), seat, legal, "normal")
    clock = SimClock()
    pool = AiPool(workers=1)
    pool.sleep = clock.sleep

    async def bound_passes(before: int) -> None:
        while clock.sleepers == before:  # the decision's deadline is registered once it is submitted
            await asyncio.sleep(0)
        await clock.advance(pool.timeout, lambda: asyncio.sleep(0))
        for _ in range(20):
            await asyncio.sleep(0)

    try:
        await pool.warm()
        w = pool._pool
        assert w is not None
        first, second = tmp_path / "first", tmp_path / "second"
        queued = [asyncio.wrap_future(w.submit(0, _wait_for_file, str(f))) for f in (first, second)]
        d = asyncio.create_task(pool.choose(t.view(seat), seat, legal, "normal", key=0))
        while clock.sleepers == 0:
            await asyncio.sleep(0)
        first.touch()
        assert await queued[0] == str(first)  # the worker answered the task before the decision's
        await bound_passes(0)  # the bound passes: the decision still waits behind the second task
        assert not d.done() and pool._pool is w and (pool.timeouts, pool.fallbacks, pool.waited_busy) == (0, 0, 1)
        second.touch()
        assert await d == want and pool.pooled == 1 and pool.fallbacks == 0 and pool._pool is w

        w.submit(0, _wait_for_file, str(tmp_path / "never"))
        before = clock.sleepers  # (the deadlines of the answered decision stay on the clock, dropped)
        d2 = asyncio.create_task(pool.choose(t.view(seat), seat, legal, "normal", key=0))
        await bound_passes(before)  # a whole bound and nothing answered: hung, the decision is made in a thread
        assert await d2 == want
        assert (pool.timeouts, pool.fallbacks, pool.waited_busy) == (1, 1, 1) and pool._pool is not w
        assert w.retired  # its processes killed (the silent task with them)
    finally:
        pool.close()


def _unpicklable() -> Any:
    """A worker's task whose answer cannot be pickled back."""
    return lambda: None


async def test_a_workers_calls_cross_its_socket_whole_one_at_a_time_and_its_errors_come_back_told(tmp_path):
    """The loop writes and reads each worker's socket itself, one call at a time per worker, the others queued on
    the loop. Answers of megabytes arrive in many reads and come back whole; a call dropped while it is queued is never
    run, and the answer of one dropped while it runs is read and discarded, the next call's answer its own; an error
    raised in the worker (an AI's bug) comes back as itself, with the worker's traceback in a note; an answer that
    cannot be pickled back is an error, not a lost call. None of it breaks the pool."""
    from bot.tables.aipool import AiPool

    pool = AiPool(workers=1)
    try:
        await pool.warm()
        w = pool._pool
        assert w is not None and w.ready == [True]
        big = os.urandom(3_000_000)
        assert await w.submit(0, bytes, big) == big  # out and back: far past a socket's buffer
        assert await w.submit(0, len, big) == 3_000_000

        with pytest.raises(ValueError, match="invalid literal") as err:
            await w.submit(0, int, "八")
        assert any("in the AI worker" in n and "Traceback" in n for n in err.value.__notes__)
        with pytest.raises(RuntimeError, match="could not be sent"):
            await w.submit(0, _unpicklable)

        gate = tmp_path / "gate"
        running = w.submit(0, _wait_for_file, str(gate))
        queued = w.submit(0, os.getpid)
        after = w.submit(0, abs, -7)
        answered = w.answered[0]
        queued.cancel()  # dropped before it was sent: never run
        running.cancel()  # running: its answer is read and thrown away
        gate.touch()
        assert await after == 7
        assert w.answered[0] == answered + 2  # the running one's answer and the last one's; the dropped one never ran
        assert not w.broken and not w.retired and pool._pool is w
    finally:
        pool.close()


@pytest.mark.parametrize("difficulty", ["easy", "normal", "strong"])
async def test_ai_writes_failing_while_the_next_decision_is_asked_ahead_give_the_same_game(harness: Harness,
                                                                                           difficulty: str):
    """The AI seats' actions fail to be written now and then (a locked database) while the next AI seat's decision
    is already asked (in the worker processes): each decision asked ahead of a failed write is dropped, the table
    stalls and recovers by itself, and the game stored is the very one of a run without a fault (same seed, same
    clicks), every AI action the AI's own from its view."""
    from tests.cogs.test_table_faults import fast
    from tests.cogs.test_tables import choose_click, latest_dm_controls
    from tests.harness.faults import FlakyConnection

    h = harness
    pool = h.bot.tables.ai
    pool.inline = False
    fast(h)
    flaky = FlakyConnection.install(h.bot.store)
    games, ahead = [], []
    for faults, user in ((False, P1), (True, P2)):
        prep(h, seed=11)
        lt = await _bot_table(h, user, h.add_channel(), "hefei", difficulty)
        n0, a0 = flaky.hits, h.bot.tables.asked_ahead
        if faults:  # the AI seats' writes among them (the human makes one action in four at most)
            for skip, times in ((1, 1), (4, 2), (9, 1), (14, 1), (20, 3)):
                flaky.fail("INSERT INTO actions", skip=skip, times=times)
        for _ in range(400):
            await h.bot.tables.wait_idle()
            await h.settle()
            tb = lt.table
            if tb.phase not in ("play", "claim", "rob"):
                break
            assert lt.stall is None and lt.seat_of(user) in tb.awaited(), "the table waits on nobody"
            msg = latest_dm_controls(h, user)
            await h.click(msg, custom_id=choose_click(msg))
        assert lt.table.hand.phase in ("ended", "over")
        games.append(await _stored(h, lt.match_id))
        ahead.append(h.bot.tables.asked_ahead - a0)
        assert (flaky.hits > n0) == faults
        said = "\n".join(m.content for m in h.channel(lt.channel_id))
        assert ("数据库没有响应" in said and "数据库恢复了" in said) == faults  # an AI seat's write failed: stalled, back
        assert await _check_replay(h, lt.match_id, difficulty) > 5
    assert len(games[0]) > 15 and games[1] == games[0]
    assert ahead[0] > 3 and ahead[1] > 0
    await h.bot.tables.close()


async def test_a_table_of_easy_normal_and_strong_seats_plays_the_same_game_inline_and_in_the_pool(harness: Harness):
    """Easy, normal and strong AI seats at one table, every seat's decision asked ahead (while the action before it
    is written): every decision stored is the one its AI gives from the seat's view (the easy AI with that
    decision's own generator), and the game is the same inline and in the worker processes."""
    h = harness
    pool = h.bot.tables.ai
    games = []
    for inline, user in ((True, P1), (False, P2)):
        prep(h, seed=5)
        pool.inline = inline
        channel = h.add_channel()
        r = await h.slash("table new", variant="hefei", user=user, channel=channel)
        for d in ("easy", "normal", "strong"):
            await h.slash("table addbot", user=user, channel=channel, difficulty=d)
        await h.click(h.fake.find_message(r.reply.id), custom_id=button_id(r.reply, ":start"), user=user)
        lt = h.bot.tables.by_channel[channel]
        diffs = [s.ai if s is not None else None for s in lt.seats]
        assert sorted(d for d in diffs if d) == ["easy", "normal", "strong"]
        await play_until_hand_ends(h, [user], lt)
        games.append(await _stored(h, lt.match_id))
        for d in ("easy", "normal", "strong"):
            assert await _check_replay(h, lt.match_id, [x if x == d else None for x in diffs]) > 2, d
    assert h.bot.tables.asked_ahead > 3
    assert games[1] == games[0]
    await h.bot.tables.close()


async def test_a_decision_never_waits_for_the_pool_to_start():
    """The pool's processes take a while to start (spawn, imports: seconds on a busy machine). A decision asked
    meanwhile is made in a thread at once - it is the AI's own - and once the processes have started the decisions go
    to them. A pool retired while it starts (another decision found it broken) ends its start without a word and the
    next decision starts a new one."""
    from bot.tables.aipool import AiPool

    t = Table.new("hefei", "0d1ce5eed0000001")
    seat = t.awaited()[0]
    legal = t.legal_actions(seat)
    want = choose(t.view(seat), seat, legal, "normal")
    pool = AiPool()
    try:
        assert await pool.choose(t.view(seat), seat, legal, "normal", key=0) == want
        first = pool._pool
        assert first is not None and not any(first.ready)  # still starting: that decision was made in a thread
        assert (pool.pooled, pool.fallbacks) == (0, 1)
        await pool.warm()
        assert pool._pool is first and all(first.ready)
        assert await pool.choose(t.view(seat), seat, legal, "normal", key=0) == want
        assert (pool.pooled, pool.fallbacks) == (1, 1)
        pool.close()
        assert await pool.choose(t.view(seat), seat, legal, "normal", key=0) == want  # a new pool starts
        second = pool._pool
        assert second is not None and second is not first
        pool._retire(second)  # what another table's decision does when it finds the pool broken
        await asyncio.gather(*[t for t in asyncio.all_tasks() if t.get_name() == "mjbot-ai-start"])
        assert pool._pool is None and not any(second.ready)
        assert await pool.choose(t.view(seat), seat, legal, "normal", key=0) == want
        assert pool._pool is not None and pool._pool is not second
        assert pool.fallbacks == 3 and pool.timeouts == 0
    finally:
        pool.close()


async def _easy_game(h: Harness, user: int, seed: int, at: int = 0,
                     interrupt: Callable[[Harness, Any], Awaitable[Harness]] | None = None) -> list[dict]:
    """A Wuhu table of ``user`` and three easy AI seats, ``user`` clicking as ``choose_click`` until the hand ends;
    with ``interrupt``, before click ``at`` it is given the harness and that click's message and returns the bot that
    plays on (a restarted or killed one, closed here at the end). The stored game; every easy decision in it is
    checked against its own generator."""
    from tests.cogs.test_tables import choose_click, latest_dm_controls

    prep(h, seed=seed)
    channel = h.add_channel()
    lt = await _bot_table(h, user, channel, "wuhu", "easy")
    clicks, replaced = 0, None
    try:
        while lt.table is not None and lt.table.phase in ("play", "claim", "rob"):
            msg = latest_dm_controls(h, user)
            assert msg is not None
            if interrupt is not None and replaced is None and clicks == at:
                h = replaced = await interrupt(h, msg)
                lt = h.bot.tables.by_channel[channel]
                continue
            await h.click(msg, custom_id=choose_click(msg))
            clicks += 1
        assert (replaced is not None) == (interrupt is not None) and clicks > at
        assert await _check_replay(h, lt.match_id, "easy") > 5
        return await _stored(h, lt.match_id)
    finally:
        if replaced is not None:
            await replaced.close()


async def test_easy_seats_play_on_after_a_restart_as_if_none_happened(harness: Harness):
    """Three easy AI seats, the bot restarted in the middle of the hand: the game stored is the very one of a run
    without the restart (same seed, same clicks), because each easy decision's generator comes from the match's
    seed and the table's position, not from one the old process carried."""

    async def restart(h: Harness, _msg: Any) -> Harness:
        h = await h.restart()
        prep(h)
        return h

    games = [await _easy_game(harness, P1, 21, 3), await _easy_game(harness, P2, 21, 3, restart)]
    assert len(games[0]) > 20 and games[1] == games[0]


def kill_after(spins: int) -> Callable[[Harness, Any], Awaitable[Harness]]:
    """An interruption for a game helper: P2 presses the first control of ``msg`` and, ``spins`` steps of the event
    loop into handling it (wherever that lands among the AI answers being decided and written), the bot is killed
    (as ``kill -9``); returns the new bot once it has played on."""
    async def kill(h: Harness, msg: Any) -> Harness:
        from tests.cogs.test_tables import choose_click

        payload = h.click_payload(msg, custom_id=choose_click(msg), user=P2)
        h.bot._connection.parse_interaction_create(payload[0])
        for _ in range(spins):
            await asyncio.sleep(0)
        h = await h.kill()
        prep(h)
        await h.settle()
        await h.bot.tables.wait_idle()
        return h

    return kill


@pytest.mark.parametrize("spins", [0, 2, 8])
async def test_easy_seats_play_on_after_a_kill_in_the_middle_of_their_turns(harness: Harness, spins: int):
    """Three easy AI seats, the bot killed (as ``kill -9``) while a click's AI answers are being decided and
    written (wherever the kill lands in them): the new bot plays on and the game stored is the very one of a run
    without the kill (same seed, same clicks)."""
    games = [await _easy_game(harness, P1, 23, 4), await _easy_game(harness, P2, 23, 4, kill_after(spins))]
    assert len(games[0]) > 20 and games[1] == games[0]


async def test_easy_seats_play_the_same_next_hand_after_the_write_that_ends_a_hand_failed(harness: Harness):
    """Easy AI seats; the write of the very action that ends the first hand fails twice (a locked database): the
    table stalls, recovers by itself, the next hand is started by the same click, and both hands stored are the
    very ones of a run without the fault (each easy decision's generator is the position's own)."""
    from tests.cogs.test_table_faults import fast
    from tests.cogs.test_tables import play_until_hand_ends
    from tests.harness.faults import FlakyConnection

    h = harness
    fast(h)
    flaky = FlakyConnection.install(h.bot.store)
    games, ending = [], 0
    for faults, user in ((False, P1), (True, P2)):
        prep(h, seed=31)
        lt = await _bot_table(h, user, h.add_channel(), "wuhu", "easy")
        rule = flaky.fail("INSERT INTO actions", skip=ending - 1 if faults else 10**9, times=2 if faults else 0)
        await play_until_hand_ends(h, [user], lt)
        for _ in range(50):  # the stalled write is retried in the background until it lands
            await h.bot.tables.wait_idle()
            await h.settle()
            if lt.stall is None and lt.rec.behind is None:
                break
        assert lt.table.hand.phase == "ended" and lt.stall is None
        if not faults:
            ending = 10**9 - rule.skip  # the writes of the first hand, the last one the action that ended it
        else:  # both faults were spent on the first hand's last write (the one holding the action that ended it)
            assert rule.skip == 0 and rule.times == 0
            said = "\n".join(m.content for m in h.channel(lt.channel_id))
            assert "数据库没有响应" in said and "数据库恢复了" in said
        table_msg = h.fake.find_message(lt.message_id)
        await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=user)
        await play_until_hand_ends(h, [user], lt)
        games.append(await _stored(h, lt.match_id))
        assert await _check_replay(h, lt.match_id, "easy") > 10
    assert len(games[0]) > 40 and games[1] == games[0]
    await h.bot.tables.close()


async def play_the_hand(h: Harness, lt: Any, user: int, twice: bool) -> int:
    """``user`` plays the hand of ``lt`` to its end by the DM controls (the first offered each time), pressing each
    control once, or ``twice`` at the same moment (the second press arrives before the first is handled); returns
    how many presses were refused."""
    from tests.cogs.test_tables import choose_click, latest_dm_controls

    refused = 0
    for _ in range(400):
        await h.settle()
        await h.bot.tables.wait_idle()
        if lt.table.phase not in ("play", "claim", "rob"):
            break
        msg = latest_dm_controls(h, user)
        cid = choose_click(msg)
        if not twice:
            await h.click(msg, custom_id=cid)
            continue
        a = h.click_payload(msg, custom_id=cid, user=user)
        b = h.click_payload(msg, custom_id=cid, user=user)
        h.bot._connection.parse_interaction_create(a[0])
        h.bot._connection.parse_interaction_create(b[0])
        await h.settle()
        await h.bot.tables.wait_idle()
        refused += sum(1 for r in (a[1], b[1]) if r.messages)
    return refused


async def test_easy_seats_play_the_same_game_when_every_click_is_pressed_twice_at_once(harness: Harness):
    """Easy AI seats deciding in the worker processes, their decisions asked ahead; the player presses every
    control twice at the same moment (the second press arrives before the first is handled): one press acts, the
    other is refused as out of date, and the game stored is the very one of a run of single presses."""
    h = harness
    pool = h.bot.tables.ai
    pool.inline = False
    games = []
    try:
        for twice, user in ((False, P1), (True, P2)):
            prep(h, seed=41)
            lt = await _bot_table(h, user, h.add_channel(), "wuhu", "easy")
            refused = await play_the_hand(h, lt, user, twice)
            assert lt.table.hand.phase in ("ended", "over")
            games.append(await _stored(h, lt.match_id))
            assert await _check_replay(h, lt.match_id, "easy") > 5
            if twice:
                assert refused > 5
        assert h.bot.tables.asked_ahead > 3
        assert len(games[0]) > 20 and games[1] == games[0]
    finally:
        await h.bot.tables.close()


def _raises_stop_iteration() -> Any:
    """An AI bug as the engine could make one: ``next(...)`` of an empty generator, outside a generator."""
    return next(x for x in () if x)


class _KeywordError(Exception):
    """An exception whose class needs a keyword argument: it pickles, but does not unpickle."""

    def __init__(self, *, why: str) -> None:
        super().__init__(why)


def _raises_keyword_error() -> Any:
    raise _KeywordError(why="the AI's own bug")


async def test_an_ai_error_that_is_stop_iteration_comes_back_and_breaks_no_pool():
    """A call that raises StopIteration (``next()`` on an exhausted generator, an AI bug the engine could make)
    comes back as an error like any other AI bug: asyncio refuses StopIteration on a future, and set there it
    closed the worker's transport from inside ``data_received`` (the pool taken for broken though its process was
    alive, every call waiting on it failed, this one's never completed). Found by a review."""
    from bot.tables.aipool import AiPool

    pool = AiPool(workers=1)
    try:
        await pool.warm()
        w = pool._pool
        assert w is not None and w.ready == [True]
        fut = w.submit(0, _raises_stop_iteration)
        with pytest.raises(Exception) as err:
            await asyncio.wait_for(fut, 10)
        assert not isinstance(err.value, TimeoutError), "the call's future was never completed"
        assert not w.broken, w.broken
        assert await w.submit(0, abs, -3) == 3  # and the worker still answers
    finally:
        pool.close()


async def test_an_ai_error_that_cannot_be_unpickled_still_says_what_it_was():
    """An error raised in the worker comes back as itself, with the worker's traceback in a note; one whose class
    pickles in the worker but does not unpickle in the bot (a keyword-only argument) comes back as a RuntimeError
    that names it and its message (not as pickle's TypeError), and the pool is not broken."""
    from bot.tables.aipool import AiPool

    pool = AiPool(workers=1)
    try:
        await pool.warm()
        w = pool._pool
        assert w is not None
        with pytest.raises(Exception) as err:
            await asyncio.wait_for(w.submit(0, _raises_keyword_error), 30)
        told = str(err.value) + "".join(getattr(err.value, "__notes__", []))
        assert "_KeywordError" in told and "the AI's own bug" in told, repr(err.value)
        assert not w.broken
    finally:
        pool.close()


def test_a_pool_left_by_a_closed_event_loop_does_not_make_a_decision_raise():
    """A pool started under one event loop (asyncio.run) and asked under the next one (any code that keeps an
    AiPool over a loop): its transports belong to the closed loop, so the pool is replaced at once (its processes
    ended, its sockets closed without the dead loop) and the decision is the AI's own, not an error."""
    from bot.tables.aipool import AiPool

    t = Table.new("hefei", "0d1ce5eed0000001")
    seat = t.awaited()[0]
    legal = t.legal_actions(seat)
    pool = AiPool()
    procs: list[Any] = []

    async def first() -> None:
        await pool.warm()
        assert pool._pool is not None and all(pool._pool.ready)
        procs.extend(p for p in pool._pool.processes if p is not None)

    async def second() -> Any:
        try:
            return await pool.choose(t.view(seat), seat, legal, "normal", key=0)
        finally:
            pool.close()  # (nothing raised by the closed loop's transports)

    try:
        asyncio.run(first())
        act = asyncio.run(second())
        assert act in legal
    finally:
        for p in procs:
            p.kill()
            p.join(10)


async def test_warm_never_raises_even_when_its_pool_is_retired_while_it_starts():
    """``warm`` never raises: a table start awaits it. A pool retired while its processes import the engine (a hung
    worker found by another table's decision, or the pool's close) cancels the pending no-op calls of its start; the start
    ends quietly and ``warm`` returns (a CancelledError would look like its caller being cancelled)."""
    from bot.tables.aipool import AiPool

    pool = AiPool()
    try:
        task = asyncio.create_task(pool.warm())
        for _ in range(60_000):  # until the start's no-op calls are sent (the processes are still importing then)
            w = pool._pool
            if w is not None and all(r is not None for r in w._running):
                break
            await asyncio.sleep(0.001)
        assert w is not None and not all(w.ready)
        pool._retire(w)  # as AiPool._failed does
        await task
    finally:
        pool.close()


async def test_closing_the_pool_while_a_process_starts_leaves_no_socket_open(monkeypatch):
    """``close()`` while the spawn thread is inside ``Process.start``: ``kill()`` on the loop runs before the thread
    records the process and its socket; the thread then kills the process and closes the loop's end of its socket
    itself (``connect`` never runs: the start's task was cancelled)."""
    from multiprocessing.context import SpawnProcess

    from bot.tables.aipool import AiPool

    started, real = threading.Event(), SpawnProcess.start

    def slow_start(self: SpawnProcess) -> None:  # a start that takes a while, as on a loaded machine
        real(self)
        started.set()
        time.sleep(0.3)

    monkeypatch.setattr(SpawnProcess, "start", slow_start)
    pool = AiPool(workers=1)
    task = asyncio.create_task(pool.warm())
    await asyncio.sleep(0)
    w = pool._pool
    assert w is not None
    while not started.is_set():
        await asyncio.sleep(0.001)
    pool.close()
    await asyncio.gather(task, return_exceptions=True)
    for _ in range(1000):
        if w.processes[0] is not None:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    p = w.processes[0]
    assert p is not None
    p.join(10)
    assert not p.is_alive()  # the process is killed ...
    left = [s for s in w._socks if s is not None]
    try:
        assert left == []  # ... and its socket closed
    finally:
        for s in left:
            s.close()


async def test_an_ai_bug_raising_stop_iteration_in_the_thread_fallback_is_an_error_not_a_wait(monkeypatch):
    """A decision made in a thread (the pool still starting) whose AI raises StopIteration (a bug: ``next()`` on an
    exhausted generator) raises a RuntimeError to the table, like any other AI bug; set on the thread's future as
    itself, asyncio would refuse it and the decision would wait for ever."""
    from bot.tables import aipool

    t = Table.new("hefei", "0d1ce5eed0000001")
    seat = t.awaited()[0]
    legal = t.legal_actions(seat)

    def buggy(*_args: Any) -> Any:
        return next(iter(()))

    monkeypatch.setattr(aipool, "choose", buggy)  # the engine's AI with a bug in it
    pool = aipool.AiPool()
    try:
        with pytest.raises(RuntimeError, match="StopIteration"):
            await asyncio.wait_for(pool.choose(t.view(seat), seat, legal, "normal", key=0), 60)
        assert pool.fallbacks == 1 and pool.pooled == 0
    finally:
        pool.close()


async def test_an_ai_bug_of_any_kind_pauses_its_table_and_tells_the_players(harness: Harness, monkeypatch, caplog):
    """Through the real dispatch: an AI seat's decision raises (here StopIteration, which asyncio cannot carry on a
    future, made in a thread while no worker process can start). The table pauses with its reference, whether the
    decision came with the start's click (the first hand's dealer an AI seat: the start did not pause the table
    before, and it waited on nobody) or with a move's; the clicker and the channel are told, the log has what
    reproduces it, and nothing waits for ever."""
    from multiprocessing import spawn

    from bot.tables import aipool
    from tests.cogs.test_tables import choose_click, latest_dm_controls

    def buggy(*_args: Any) -> Any:
        return next(iter(()))  # the engine's AI with a bug in it

    monkeypatch.setattr(aipool, "choose", buggy)
    h = harness
    python = spawn.get_executable()
    spawn.set_executable("/nonexistent/python")  # every decision in a thread, where the bug is
    paused_by = []
    try:
        for seed, user in ((0, P1), (1, P2)):  # a move's click pauses the first table, the start's the second
            prep(h, seed=seed)
            h.bot.tables.ai.inline = False
            channel = h.add_channel()
            lobby = await h.slash("table new", variant="hefei", user=user, channel=channel)
            for _ in range(3):
                await h.slash("table addbot", user=user, channel=channel, difficulty="normal")
            with caplog.at_level(logging.ERROR):
                r = await h.click(h.fake.find_message(lobby.reply.id), custom_id=button_id(lobby.reply, ":start"),
                                  user=user)
                lt = h.bot.tables.by_channel[channel]
                clicks = 0
                while lt.stall is None and clicks < 20:
                    msg = latest_dm_controls(h, user)
                    assert msg is not None, "the table waits on nobody"
                    r = await h.click(msg, custom_id=choose_click(msg), user=user)
                    clicks += 1
            paused_by.append(clicks)
            assert lt.stall == "error" and lt.timer is None
            said = [m.content for m in r.messages]
            if not clicks:  # the start's click: its clicker is told (a move's click was taken: it is not refused)
                assert any("paused after an internal error" in m for m in said), (seed, said)
            assert any("内部错误" in m.content for m in h.channel(channel))  # the channel is told
            logged = "\n".join(rec.getMessage() for rec in caplog.records)
            assert "paused after an engine error" in logged and lt.seed in logged
    finally:
        spawn.set_executable(python)
    assert paused_by[0] > 0 and paused_by[1] == 0, paused_by  # both paths were taken
    assert h.bot.tables.ai.fallbacks >= 2 and h.bot.tables.ai.pooled == 0
    await h.bot.tables.close()
