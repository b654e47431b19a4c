"""Several bot processes over one PostgreSQL database (bot.cluster), booted side by side in this test's event loop,
each the real bot under the harness, answering one shared fake Discord (as one bot application's processes do):

- a table is driven only by the process holding its server's shard lease: start-up resumes only its own shards'
  tables, a second process with an overlapping shard set plays nothing of them (a standby), and takes them over when
  the owner stops; a process that loses its lease stops driving those tables at once;
- a DM click on another process's table is deferred by the process that got it, routed through the queue and
  applied exactly once by the owner, which answers through the interaction's token; duplicates and forged ones are
  not applied; a click whose table has no owner gets "the table is moving" and changes nothing; a queued click whose
  NOTIFY was lost is taken by the owner's poll; one that no owner takes in time is dropped, never applied later.

The same with real subprocesses and a SIGKILL: tests/bot/test_cluster_processes.py.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import shutil
import tempfile
import urllib.parse
from collections.abc import Callable
from typing import Any

import pytest

from bot.cluster import CHANNEL, LEASE_CLASS, Cluster, ClusterError
from bot.config import Config
from bot.shards import ShardPlan, shard_of
from bot.tables import Timers
from tests.harness import Harness, Message
from tests.harness.db import sql
from tests.harness.fake import FakeDiscord, InteractionRecord, user_payload

APP = 1_200_000_000_000_000_001
COUNT = 2
BASE = 1_210_000_000_000_000_000


def guild_on(shard: int, n: int = 0) -> int:
    """A server id on ``shard`` of COUNT."""
    g = ((BASE >> 22) + n * COUNT) << 22
    while shard_of(g, COUNT) != shard:
        g += 1 << 22
    return g


G0, G1 = guild_on(0), guild_on(1)
CH0, CH1 = 1_220_000_000_000_000_000, 1_220_000_000_000_000_001
U0, U1 = 1_230_000_000_000_000_000, 1_230_000_000_000_000_001


@pytest.fixture
def url(pg_url):
    return pg_url


@pytest.fixture(autouse=True)
def _no_background_ticks(stepped_cluster, monkeypatch):
    """The lease checks and queue polls run when a test calls ``cluster.step()``, not on a timer."""
    monkeypatch.setattr(Cluster, "blind_wait", 0.0)  # (a process without its lease connection answers at once)


def _slow_timers(bot: Any) -> None:
    bot.tables.timers = Timers(turn=3600, claim=3600, next_hand=3600)
    seeds = itertools.count()
    bot.tables.new_seed = lambda: f"cluster:{next(seeds)}"  # the same deals every run (a random one could end first)


async def boot(url: str, ids: tuple[int, ...] | None, fake: FakeDiscord) -> Harness:
    config = Config(token=None, db_path=url, shards=ShardPlan(ids, COUNT if ids is not None else None))
    return await Harness.boot(url, config=config, fake=fake, prepare=_slow_timers)


async def until(cond: Callable[[], Any], what: str, timeout: float = 30.0) -> None:
    """Poll ``cond`` (sync or async) every 10 ms until it is true (a generous limit: only a broken bot ever reaches
    it). The limit counts polls, not the clock: a process stalled longer than the limit (a loaded or paused machine)
    has had no turn of its event loop to notice anything in, and a clock deadline would fail it on its first look
    after the stall, before the events that arrived meanwhile are handled."""
    for _ in range(int(timeout / 0.01)):
        got = cond()
        if asyncio.iscoroutine(got):
            got = await got
        if got:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"still not {what} after {timeout} s of polls")


async def open_table(h: Harness, guild: int, channel: int, user: int) -> int:
    h.add_channel(channel, guild_id=guild)
    await h.slash("table new", variant="wuhu", user=user, guild=guild, channel=channel)
    for _ in range(3):
        await h.slash("table addbot", user=user, guild=guild, channel=channel)
    await h.slash("table start", user=user, guild=guild, channel=channel)
    lt = h.bot.tables.by_channel[channel]
    # the AI seats play up to the player's turn: the tests start from the player holding live controls in a DM
    await until(lambda: _has_controls(h.fake, user), "the player's DM with controls")
    return lt.id


async def router_and_owner(url: str, route_timeout: float | None = None) -> tuple[FakeDiscord, Harness, Harness, int]:
    """One Discord, process 0 (shard 0: it receives the DM clicks; ``route_timeout``: how long it waits for the
    owner) and process 1 driving a table of guild 1."""
    fake = fresh_fake()
    p0 = await boot(url, (0,), fake)
    if route_timeout is not None:
        p0.bot.cluster.route_timeout = route_timeout
    p1 = await boot(url, (1,), fake)
    return fake, p0, p1, await open_table(p1, G1, CH1, U1)


async def close_all(*hs: Harness) -> None:
    for h in hs:
        await h.close()


async def takes_it_back_and_plays_on(h: Harness, fake: FakeDiscord, match_id: int) -> None:
    """Shard 1 free again (its lease lost here, or its owner stopped): the process's next lease check takes it
    (reconnecting if need be), the table ``match_id`` (U1's) resumes from the store there and the player's next click
    plays; then the process stops."""
    await h.settle()
    await h.bot.cluster.step()
    await h.settle()
    assert h.bot.cluster.held == {1} and set(h.bot.tables.by_id) == {match_id}
    moves = human_moves(h, match_id)
    m, cid = controls(fake, U1)
    await h.click(m, custom_id=cid)
    assert human_moves(h, match_id) == moves + 1
    await h.close()


async def told_moving_and_never_applied(rec: InteractionRecord, p0: Harness, p1: Harness, match_id: int,
                                       moves: int) -> None:
    """The click routed by ``p0`` is dropped and its player told the table is moving; its owner ``p1`` never plays
    it; both stop."""
    await until(lambda: any("The table is moving" in f.content for f in rec.followups), "told it is moving")
    assert sql(p0, "SELECT state FROM routed_clicks") == [("dropped",)]
    await p1.bot.cluster.step()
    await p1.settle()
    assert human_moves(p1, match_id) == moves
    await close_all(p0, p1)



def keep_opened(monkeypatch: Any) -> list[Cluster]:
    """Every :class:`Cluster` opened from now on, in order (a process being started, whose bot a test cannot reach yet)."""
    opened: list[Cluster] = []
    open_cluster = Cluster.open.__func__  # type: ignore[attr-defined]

    async def keep(cls: type[Cluster], *args: Any, **kwargs: Any) -> Cluster:
        opened.append(await open_cluster(cls, *args, **kwargs))
        return opened[-1]

    monkeypatch.setattr(Cluster, "open", classmethod(keep))
    return opened

def slow_resume(monkeypatch: Any) -> tuple[asyncio.Event, asyncio.Event, Callable[[], None]]:
    """Resuming a table waits at its first read of the store (the database slow to answer) until the first event is
    set; the second is set when it got there; the callable puts the usual read back."""
    import bot.tables.resume as resume_mod

    gate, entered = asyncio.Event(), asyncio.Event()
    read = resume_mod._meta

    async def slow_read(mgr: Any, match_id: int) -> Any:
        entered.set()
        await gate.wait()
        return await read(mgr, match_id)

    monkeypatch.setattr(resume_mod, "_meta", slow_read)
    return gate, entered, lambda: monkeypatch.setattr(resume_mod, "_meta", read)


async def lives_only_in_the_next_owner(url: str, fake: FakeDiscord, stale: Harness, match_id: int) -> None:
    """``stale`` lost shard 1 and dropped its table ``match_id``: another process takes the free shard and the table
    lives there only; both stop."""
    assert match_id not in stale.bot.tables.by_id
    pc = await boot(url, (1,), fake)
    assert pc.bot.cluster.held == {1} and match_id in pc.bot.tables.by_id and match_id not in stale.bot.tables.by_id
    await close_all(pc, stale)


def _has_controls(fake: FakeDiscord, user: int) -> bool:
    try:
        controls(fake, user)
    except AssertionError:
        return False
    return True


def controls(fake: FakeDiscord, user: int) -> tuple[Message, str]:
    """The player's DM with live play controls, and the control to press (a discard, else pass, else any)."""
    for m in reversed(fake.dm_messages(user)):
        cids = [c["custom_id"] for c in m.buttons() if c.get("custom_id", "").startswith("mjt:")
                and not c.get("disabled")]
        if cids:
            by_op = {cid.split(":")[4]: cid for cid in cids}
            return m, by_op.get("d") or by_op.get("x") or cids[0]
    raise AssertionError(f"player {user} has no DM with controls")


def human_moves(h: Harness, match_id: int, seat: int = 0) -> int:
    rows = sql(h, "SELECT action FROM actions WHERE match_id = ?", (match_id,))
    acts = [json.loads(r[0]) for r in rows]
    return sum(1 for a in acts if a.get("seat") == seat and a["type"] not in ("timeout", "next_hand"))


def dm_press(fake: FakeDiscord, user: int, to: Harness) -> InteractionRecord:
    """The player presses their live control in the DM; Discord delivers the click to ``to`` (shard 0's process)."""
    m, cid = controls(fake, user)
    data, rec = to.click_payload(m, custom_id=cid)
    to.bot._connection.parse_interaction_create(data)
    return rec


def fresh_fake() -> FakeDiscord:
    return FakeDiscord(APP, user_payload(APP, "mjbot", bot=True))


async def test_start_up_resumes_only_its_own_shards_and_an_overlapping_process_plays_nothing(url):
    fake = fresh_fake()
    both = await boot(url, (0, 1), fake)
    t0 = await open_table(both, G0, CH0, U0)
    t1 = await open_table(both, G1, CH1, U1)
    await both.close()  # its leases go back with its session

    p0 = await boot(url, (0,), fake)
    p1 = await boot(url, (1,), fake)
    assert set(p0.bot.tables.by_id) == {t0} and set(p1.bot.tables.by_id) == {t1}
    assert p0.bot.cluster.held == {0} and p1.bot.cluster.held == {1}

    # a second process for shard 1 while its owner runs: it holds nothing, resumes nothing, opens nothing
    before = sql(p1, "SELECT COUNT(*) FROM matches")[0][0]
    dup = await boot(url, (1,), fake)
    assert dup.bot.cluster.held == set() and not dup.bot.tables.by_id and not dup.bot.tables.by_channel
    r = await dup.slash("table new", variant="wuhu", user=U1 + 7, guild=G1, channel=CH1 + 7)
    assert not r.responded  # Discord delivers it to the owner too, which answers it
    await dup.bot.cluster.step()  # still held by the owner: it takes nothing
    assert dup.bot.cluster.held == set() and not dup.bot.tables.by_id
    assert sql(p1, "SELECT COUNT(*) FROM matches")[0][0] == before

    # the owner stops: the standby takes shard 1 at its next check and the table resumes there
    await p1.close()
    await takes_it_back_and_plays_on(dup, fake, t1)
    await p0.close()


async def test_another_shard_count_on_the_same_database_is_refused(url):
    fake = fresh_fake()
    p0 = await boot(url, (0,), fake)
    config = Config(token=None, db_path=url, shards=ShardPlan((0,), 3))
    with pytest.raises(ClusterError, match="same --shard-count"):
        await Harness.boot(url, config=config, fake=fake)
    await p0.close()


async def test_a_dm_click_is_routed_to_the_owner_and_applied_once(url):
    fake, p0, p1, t1 = await router_and_owner(url)
    moves = human_moves(p1, t1)
    m, cid = controls(fake, U1)

    data, rec = p0.click_payload(m, custom_id=cid)
    p0.bot._connection.parse_interaction_create(data)  # Discord delivers DM clicks to shard 0's process
    await until(lambda: human_moves(p1, t1) == moves + 1, "applied by the owner")
    await p1.settle()
    await p0.settle()
    assert rec.callback_type == 6  # shard 0's process acknowledged it (a deferred update) within the 3 s
    answers = [r for r in fake.requests if r.path.startswith(f"/webhooks/{APP}/{rec.token}")]
    assert answers and all(r.status == 200 for r in answers)  # the owner answered through the token
    assert rec.original is not None and rec.original.id == m.id and rec.original.edits >= 1
    state = sql(p0, "SELECT state, payload FROM routed_clicks WHERE interaction_id = ?", (rec.id,))
    assert state == [("taken", "answered")]  # emptied when taken, marked once handled

    # the same delivery again (Discord retrying, or a replay): not acknowledged twice, not queued, not applied
    p0.bot._connection.parse_interaction_create(data)
    await p0.settle()
    await p1.bot.cluster.step()
    await p1.settle()
    assert human_moves(p1, t1) == moves + 1
    assert sql(p0, "SELECT COUNT(*) FROM routed_clicks")[0][0] == 1

    # a forged click (a token Discord never issued): the acknowledgement fails, nothing is queued or applied
    m, cid = controls(fake, U1)
    forged, frec = p0.click_payload(m, custom_id=cid)
    del fake.interactions[frec.token]
    p0.bot._connection.parse_interaction_create(forged)
    await p0.settle()
    await p1.bot.cluster.step()
    await p1.settle()
    assert human_moves(p1, t1) == moves + 1 and not frec.callbacks
    assert sql(p0, "SELECT COUNT(*) FROM routed_clicks")[0][0] == 1

    # a click naming a match that does not exist (a forged control): answered, nothing queued, and not remembered
    # (forged ids must not grow the process's memory of which server a match belongs to)
    m, cid = controls(fake, U1)
    parts = cid.split(":")
    parts[1] = "987654321"
    ghost, grec = p0.click_payload(m, custom_id=cid)
    ghost["data"]["custom_id"] = ":".join(parts)  # a client sends whatever custom_id it likes, on a copy of the
    ghost["message"] = json.loads(json.dumps(ghost["message"]).replace(cid, ":".join(parts)))  # message holding it
    r = await p0.send(ghost, grec)
    assert r.messages and sql(p0, "SELECT COUNT(*) FROM routed_clicks")[0][0] == 1
    assert 987654321 not in p0.bot.cluster._guilds and human_moves(p1, t1) == moves + 1

    # the next real click plays
    dm_press(fake, U1, p0)
    await until(lambda: human_moves(p1, t1) == moves + 2, "the next click applied")
    # the memory of which server a match belongs to keeps the newest 10,000: months of matches never grow it
    known = p0.bot.cluster._guilds
    real = next(iter(known))
    guild = known.pop(real)
    known.update({-i: 0 for i in range(1, 10_001)})
    assert await p0.bot.cluster.guild_of(real) == guild
    assert len(known) == 10_000 and -1 not in known and known[real] == guild
    await close_all(p0, p1)


async def test_a_click_whose_owner_is_down_is_told_the_table_is_moving_and_changes_nothing(url):
    fake, p0, p1, t1 = await router_and_owner(url)
    await p1.close()
    moves = human_moves(p0, t1)
    m, cid = controls(fake, U1)
    for locale, text in (("en-US", "The table is moving"), ("zh-CN", "这一桌正在转移"), ("zh-TW", "這一桌正在轉移")):
        r = await p0.click(m, custom_id=cid, locale=locale)
        assert text in r.reply.content and r.reply.ephemeral
    assert human_moves(p0, t1) == moves and sql(p0, "SELECT COUNT(*) FROM routed_clicks")[0][0] == 0

    # its shard comes back: the table resumes in the new process and the next click plays
    p1 = await boot(url, (1,), fake)
    assert set(p1.bot.tables.by_id) == {t1}
    dm_press(fake, U1, p0)
    await until(lambda: human_moves(p1, t1) == moves + 1, "applied after the restart")
    await close_all(p0, p1)


async def lose_notifies(p) -> None:
    """The process stops hearing the queue's NOTIFY (on the lease connection, one statement at a time: its own
    lease checks may be running on it)."""
    async with p.bot.cluster._lock:
        await p.bot.cluster.conn.remove_listener(CHANNEL, p.bot.cluster._notified)


async def test_a_queued_click_whose_notify_was_lost_is_taken_by_the_owners_poll(url):
    fake, p0, p1, t1 = await router_and_owner(url)
    moves = human_moves(p1, t1)
    await lose_notifies(p1)  # the NOTIFY never arrives
    dm_press(fake, U1, p0)
    await until(lambda: sql(p0, "SELECT state FROM routed_clicks") == [("queued",)], "queued")
    assert human_moves(p1, t1) == moves
    await p1.bot.cluster.step()  # the poll every tick
    await until(lambda: human_moves(p1, t1) == moves + 1, "applied from the queue")
    await close_all(p0, p1)


async def test_a_click_no_owner_takes_in_time_is_dropped_and_never_applied_later(url, monkeypatch):
    fake, p0, p1, t1 = await router_and_owner(url)
    moves = human_moves(p1, t1)
    await lose_notifies(p1)
    p0.bot.cluster.route_timeout = 0.05
    m, cid = controls(fake, U1)
    data, rec = p0.click_payload(m, custom_id=cid, locale="en-US")
    p0.bot._connection.parse_interaction_create(data)
    await told_moving_and_never_applied(rec, p0, p1, t1, moves)


@pytest.mark.parametrize("owner_polls_first", [False, True], ids=["router-drops", "owner-dropped-it-meanwhile"])
async def test_a_click_no_owner_took_is_answered_once_its_routers_lost_connection_is_back(url, pg_server,
                                                                                         monkeypatch,
                                                                                         owner_polls_first):
    """The router's wait for the owner ends while its own lease connection is gone (the database restarting): it
    cannot drop the click then. It looks again once the lease check has reconnected, drops it and tells the player
    the table is moving; before, it said nothing, and the click kept thinking until Discord gave up on it. The owner's
    poll may have dropped the click meanwhile (it is older than a routed click may wait): the router still answers
    (its first version took only its own drop for one, and said nothing)."""
    fake, p0, p1, t1 = await router_and_owner(url)
    moves = human_moves(p1, t1)
    await lose_notifies(p1)  # the NOTIFY never arrives
    cb = p0.bot.cluster
    cb.route_timeout, cb.watch_retry = 0.0, 0.02
    p1.bot.cluster.route_timeout = 0.0  # every process runs the same settings
    gate, looked = asyncio.Event(), []
    verdict = Cluster._verdict

    async def after_the_loss(self: Cluster, interaction_id: int) -> Any:
        await gate.wait()
        looked.append(self.conn is not None and not self.conn.is_closed())
        return await verdict(self, interaction_id)

    monkeypatch.setattr(Cluster, "_verdict", after_the_loss)
    m, cid = controls(fake, U1)
    data, rec = p0.click_payload(m, custom_id=cid, locale="en-US")
    p0.bot._connection.parse_interaction_create(data)
    await until(lambda: sql(p1, "SELECT state FROM routed_clicks") == [("queued",)], "queued")
    assert pg_server.psql(f"SELECT pg_terminate_backend({cb.backend_pid})").strip() == "t"
    await until(lambda: not cb.held and cb._losing is not None and cb._losing.done(), "the router's loss handled")
    gate.set()
    await until(lambda: len(looked) >= 3, "looked again while the connection is gone")
    assert not any(looked) and not any("The table is moving" in f.content for f in rec.followups)
    if owner_polls_first:
        await p1.bot.cluster.step()  # the owner's poll: the click is older than a routed click may wait
        await until(lambda: sql(p1, "SELECT state FROM routed_clicks") == [("dropped",)], "dropped by the owner")
    await cb.step()  # the lease check reconnects and takes shard 0 back
    assert cb.held == {0}
    await told_moving_and_never_applied(rec, p0, p1, t1, moves)


async def test_a_process_that_loses_its_lease_stops_driving_those_tables_then_takes_them_back(url, pg_server):
    fake = fresh_fake()
    p1 = await boot(url, (1,), fake)
    t1 = await open_table(p1, G1, CH1, U1)
    cluster = p1.bot.cluster
    # the server drops the lease session (a restart, a fail-over, a network cut)
    assert pg_server.psql(f"SELECT pg_terminate_backend({cluster.backend_pid})").strip() == "t"
    try:
        await until(lambda: not cluster.held, "noticed")
    except AssertionError as e:  # say what each side saw: the process its connection, the server the session
        closed = cluster.conn is not None and cluster.conn.is_closed()
        session = pg_server.psql(f"SELECT state FROM pg_stat_activity WHERE pid = {cluster.backend_pid}").strip()
        raise AssertionError(f"{e}: lease connection closed here: {closed}; the server's session: "
                             f"{session or 'gone'}") from None
    await until(lambda: not p1.bot.tables.by_id, "its tables dropped")
    assert not p1.bot.tables.by_channel
    moves = human_moves(p1, t1)
    m, cid = controls(fake, U1)
    r = await p1.click(m, custom_id=cid)  # its old controls no longer play here
    assert human_moves(p1, t1) == moves and r.reply.ephemeral
    await cluster.step()  # reconnects and takes the lease again: the table resumes from the store
    await p1.settle()
    assert cluster.held == {1} and set(p1.bot.tables.by_id) == {t1}
    m, cid = controls(fake, U1)
    await p1.click(m, custom_id=cid)
    assert human_moves(p1, t1) == moves + 1
    await p1.close()


async def test_a_lease_connection_asyncpg_ends_without_its_termination_callback_is_taken_for_lost_at_once(url):
    """asyncpg ends a connection that fails while a statement is being sent (the server gone at that very moment)
    without calling its termination listeners (seen 3 times in 400 sessions terminated during lease checks): the
    statement's failure is where the loss shows, and the tables stop there, not at the next lease check. The
    statement here: the owner noting that it answered a routed click, waiting on that row (another transaction
    holds it) when the connection ends."""
    import asyncpg

    fake = fresh_fake()
    p1 = await boot(url, (1,), fake)
    t1 = await open_table(p1, G1, CH1, U1)
    cluster = p1.bot.cluster
    conn = cluster.conn
    admin = await asyncpg.connect(url)
    try:
        await admin.execute("INSERT INTO routed_clicks (interaction_id, shard_count, shard, match_id, payload, state, "
                            "queued_at) VALUES (1, $1, 1, $2, '', 'taken', 0)", COUNT, t1)
        tx = admin.transaction()
        await tx.start()
        await admin.execute("SELECT 1 FROM routed_clicks WHERE interaction_id = 1 FOR UPDATE")  # the row held
        noted = asyncio.ensure_future(cluster.answered(1))  # its statement sent, waiting for the row
        waiting = "SELECT EXISTS (SELECT 1 FROM pg_locks WHERE pid = $1 AND NOT granted)"
        await until(lambda: admin.fetchval(waiting, cluster.backend_pid), "the statement waiting on the server")
        conn._protocol.abort()  # what asyncpg does when sending a statement fails: no termination callback
        await until(lambda: noted.done(), "the statement failed")
        assert noted.exception() is None and conn.is_closed()  # answered() never fails: at worst nothing noted
        assert not cluster.held
        await until(lambda: not p1.bot.tables.by_id, "its tables dropped")
        await tx.rollback()
    finally:
        await admin.close()
    await takes_it_back_and_plays_on(p1, fake, t1)


async def test_a_lease_lost_during_a_move_is_taken_back_only_once_that_table_has_stopped_here(url, pg_server):
    """The lease connection drops while a move holds its table (its store write retrying, say, while the database
    restarts): the table stops here only when the move lets go of it, and the lease is not taken back before that.
    Taken back earlier, the shard would be this process's again with the table dropped from memory afterwards and not
    resumed (it was still in memory when the shard came back): a table played by nobody."""
    fake = fresh_fake()
    p1 = await boot(url, (1,), fake)
    t1 = await open_table(p1, G1, CH1, U1)
    cluster = p1.bot.cluster
    lt = p1.bot.tables.by_id[t1]
    await lt.lock.acquire()  # a move in progress holds the table
    assert pg_server.psql(f"SELECT pg_terminate_backend({cluster.backend_pid})").strip() == "t"
    await until(lambda: not cluster.held, "noticed")
    await cluster.step()  # the old table has not stopped yet: nothing is taken back
    assert not cluster.held and set(p1.bot.tables.by_id) == {t1}
    lt.lock.release()  # the move ends: the table stops here
    await until(lambda: not p1.bot.tables.by_id, "its table dropped")
    await takes_it_back_and_plays_on(p1, fake, t1)


class SilentProxy:
    """A Unix socket in front of the PostgreSQL server's whose traffic can stop (``silent``): a network cut, where
    nothing passes and nothing closes (only keep-alives would ever notice)."""

    def __init__(self, url: str) -> None:
        host = urllib.parse.parse_qs(urllib.parse.urlparse(url).query)["host"][0]
        self.target = os.path.join(host, ".s.PGSQL.5432")
        self.dir = tempfile.mkdtemp(prefix="mjbot-proxy-")
        self.url = url.split("?")[0] + "?host=" + self.dir
        self.silent = False

    async def start(self) -> None:
        self.server = await asyncio.start_unix_server(self._client, path=os.path.join(self.dir, ".s.PGSQL.5432"))

    async def _client(self, r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
        ur, uw = await asyncio.open_unix_connection(self.target)

        async def pump(a: asyncio.StreamReader, b: asyncio.StreamWriter) -> None:
            while data := await a.read(65536):
                if not self.silent:
                    b.write(data)
            if not self.silent:
                b.close()

        await asyncio.gather(pump(r, uw), pump(ur, w), return_exceptions=True)

    async def close(self) -> None:
        self.server.close()
        await self.server.wait_closed()
        shutil.rmtree(self.dir, ignore_errors=True)  # (its socket's folder, which tests left in /dev/shm)


async def test_a_statement_hung_on_a_silent_network_does_not_keep_the_lease_check_from_giving_up(url):
    """The network to the server goes silent while a statement on the lease connection waits for its answer (a
    DM click's owner lookup, say), holding the connection: the lease check, which waits for it, gives the shards up
    after ``check_timeout`` all the same (the server's keep-alives end that session soon, and another process may
    take the shards then), and ending the connection frees the hung statement."""
    proxy = SilentProxy(url)
    await proxy.start()
    a = await Cluster.open(proxy.url, ShardPlan((0, 1), 2), lease_wait=0.0)
    a.check_timeout = 0.2  # (after the start: its own statements keep the usual bound, whatever the machine's load)
    try:
        assert a.held == {0, 1}
        proxy.silent = True
        lookup = asyncio.ensure_future(a.owner_alive(1))  # holds the connection, its answer never comes
        await until(a._lock.locked, "the lookup under way")
        await asyncio.wait_for(a.step(), 60)  # on the code before, still waiting behind the lookup an hour later
        assert not a.held
        with pytest.raises(Exception):  # noqa: B017 (the connection ended under it: asyncpg's error of that)
            await asyncio.wait_for(lookup, 60)
    finally:
        a.kill()
        await proxy.close()


async def _holding_0_with_1_free(url: str, **settings: Any) -> Cluster:
    """A process on shards 0 and 1 of 2 that holds only 0: 1 was another's when it started, and is free now."""
    other = await Cluster.open(url, ShardPlan((1,), 2), lease_wait=0.0)
    a = await Cluster.open(url, ShardPlan((0, 1), 2), lease_wait=0.0, **settings)
    await other.close()
    assert a.held == {0}
    return a


async def test_taking_a_lease_on_a_silent_network_gives_up_in_time_and_hangs_nothing(url):
    """The network goes silent while the process takes a free lease (its transaction under way): the round ends
    within ``check_timeout`` all the same, the shards given up (ending the connection fails the statement and its
    rollback at once: cancelling it would wait for the server's answer to the cancel), and nothing stays waiting on
    the connection."""
    import asyncpg

    proxy = SilentProxy(url)
    await proxy.start()
    a = await _holding_0_with_1_free(proxy.url)
    a.check_timeout = 0.2  # (after the start, as above)
    lost: list[set[int]] = []

    async def on_lose(shards: set[int]) -> None:
        lost.append(shards)

    a.on_lose = on_lose
    counts = a._other_counts

    async def silent_midway(conn: asyncpg.Connection) -> list[int]:  # the cut, inside the take's transaction
        proxy.silent = True
        return await counts(conn)

    a._other_counts = silent_midway  # type: ignore[method-assign]
    try:
        await asyncio.wait_for(a.step(), 60)  # on the code before, still in the rollback an hour later
        assert not a.held
        await until(lambda: lost == [{0}], "its tables dropped, once")
        assert await asyncio.wait_for(a.owner_alive(1), 60) is None  # nothing waits on a dead connection
    finally:
        a.kill()
        await proxy.close()


async def test_another_process_taking_leases_does_not_make_this_one_give_its_shards_up(url):
    """Another process holds the key that serialises taking leases (it stalled in the middle of a take): this one
    keeps its shards and takes the free one once the key is free, rather than waiting behind it until its own
    check gives everything up."""
    import asyncpg

    a = await _holding_0_with_1_free(url, check_timeout=20.0)  # on the code before, each step gave up after it
    lost: list[set[int]] = []

    async def on_lose(shards: set[int]) -> None:
        lost.append(shards)

    a.on_lose = on_lose
    other = await asyncpg.connect(url)
    try:
        tx = other.transaction()
        await tx.start()
        await other.execute("SELECT pg_advisory_xact_lock($1, 0)", LEASE_CLASS)
        for _ in range(3):
            await asyncio.wait_for(a.step(), 60)
        assert a.held == {0} and not lost
        await tx.rollback()
        await a.step()
        assert a.held == {0, 1} and not lost
    finally:
        await other.close()
        await a.close()


async def test_a_lease_lost_while_its_tables_resume_drops_them_once_they_are_in(url, pg_server, monkeypatch):
    """A standby takes a shard and resumes its table (reading the store: slow, the database restarting), and its
    lease connection drops before the resume is done: the table is dropped once it is in, not missed (dropped before
    it was there, it would stay, stale, in a process that no longer drives it while another resumes it)."""
    fake = fresh_fake()
    pa = await boot(url, (1,), fake)
    t1 = await open_table(pa, G1, CH1, U1)
    pb = await boot(url, (1,), fake)  # a standby
    assert not pb.bot.cluster.held and not pb.bot.tables.by_id
    gate, entered, usual_read = slow_resume(monkeypatch)
    await pa.close()
    cb = pb.bot.cluster
    step = asyncio.ensure_future(cb.step())  # takes shard 1 and resumes its table
    await until(entered.is_set, "the table being resumed")
    assert pg_server.psql(f"SELECT pg_terminate_backend({cb.backend_pid})").strip() == "t"
    await until(lambda: not cb.held, "the loss noticed")
    gate.set()
    await step
    await until(lambda: cb._losing is not None and cb._losing.done(), "the loss handled")
    await pb.settle()
    usual_read()
    await lives_only_in_the_next_owner(url, fake, pb, t1)


async def test_a_lease_lost_while_the_start_up_resumes_its_tables_drops_them_once_they_are_in(url, pg_server,
                                                                                              monkeypatch):
    """The same at start-up: a process took shard 1's lease and is resuming its table (the store slow to answer) when
    its lease connection drops. The table is dropped once it is in; before, the start-up's resume did not wait for
    the loss's handling nor the loss for the resume, so the table went in after the loss had dropped everything and
    stayed, stale, in a process that no longer held its shard."""
    fake = fresh_fake()
    pa = await boot(url, (1,), fake)
    t1 = await open_table(pa, G1, CH1, U1)
    await pa.close()
    gate, entered, usual_read = slow_resume(monkeypatch)
    opened = keep_opened(monkeypatch)
    starting = asyncio.ensure_future(boot(url, (1,), fake))
    await until(entered.is_set, "the start-up resuming the table")
    cb = opened[0]
    assert cb.held == {1}
    assert pg_server.psql(f"SELECT pg_terminate_backend({cb.backend_pid})").strip() == "t"
    await until(lambda: not cb.held, "the loss noticed")
    gate.set()
    pb = await starting
    await until(lambda: cb._losing is not None and cb._losing.done(), "the loss handled")
    await pb.settle()
    assert not pb.bot.tables.by_channel
    usual_read()
    await lives_only_in_the_next_owner(url, fake, pb, t1)


async def test_leases_are_per_database(pg_database, url):
    """Two bots' databases on one PostgreSQL server: another database's leases neither block nor stand in for this
    one's (PostgreSQL lists every database's advisory locks together)."""
    other = pg_database()
    fake, fake_b = fresh_fake(), fresh_fake()
    p0 = await boot(url, (0,), fake)
    p1 = await boot(url, (1,), fake)
    t1 = await open_table(p1, G1, CH1, U1)
    await p1.close()
    # the other bot runs another shard count: no conflict with this database's processes
    b3 = await Harness.boot(other, config=Config(token=None, db_path=other, shards=ShardPlan((2,), 3)),
                            fake=fresh_fake())
    assert b3.bot.cluster.held == {2}
    await b3.close()
    # and holds shard 1 of 2 there: not this database's shard 1
    b1 = await boot(other, (1,), fake_b)
    assert b1.bot.cluster.held == {1}
    moves = human_moves(p0, t1)
    m, cid = controls(fake, U1)
    r = await p0.click(m, custom_id=cid)  # nobody holds shard 1 in this database: moving, not routed
    assert "moving" in r.reply.content and human_moves(p0, t1) == moves
    assert sql(p0, "SELECT COUNT(*) FROM routed_clicks")[0][0] == 0
    for h in (p0, b1):
        await h.close()


async def test_a_lease_check_without_answer_gives_the_shards_up_at_once(url):
    """The server stops answering the lease connection (a machine or a network lost): the process cannot know
    whether its session lives on, so it stops driving its tables rather than risk playing them twice; once the
    server answers again it takes the lease back and the table resumes."""
    fake = fresh_fake()
    p1 = await boot(url, (1,), fake)
    t1 = await open_table(p1, G1, CH1, U1)
    cluster = p1.bot.cluster
    conn = cluster.conn

    class Unanswered:
        """asyncpg's connection as a dead network leaves it: every query times out."""

        def __getattr__(self, name: str) -> Any:
            return getattr(conn, name)

        async def fetch(self, *args: Any, **kwargs: Any) -> Any:
            raise TimeoutError

    cluster.conn = Unanswered()
    await cluster.step()
    await p1.settle()
    assert cluster.held == set() and not p1.bot.tables.by_id and conn.is_closed()
    await until(cluster_step_takes(cluster), "the lease taken back")
    await p1.settle()
    assert set(p1.bot.tables.by_id) == {t1}
    await p1.close()


def cluster_step_takes(cluster: Cluster) -> Callable[[], Any]:
    async def step() -> bool:
        await cluster.step()
        return cluster.held == {1}

    return step


async def test_a_queued_click_whose_router_died_is_never_applied_late_by_the_next_owner(url, monkeypatch):
    """The process that queued a click is killed before it could drop it (its ``route_timeout`` watch dies with
    it), and the owner stops before taking it: the row stays queued. The next owner of the shard starts minutes
    later: the player's old click must not be played by surprise (their token has long expired, nobody would be
    told); it is dropped."""
    monkeypatch.setattr(Cluster, "route_timeout", 0.2)
    # process 0's watch is killed with it, below, before it would ever fire
    fake, p0, p1, t1 = await router_and_owner(url, route_timeout=3600.0)
    moves = human_moves(p1, t1)
    await lose_notifies(p1)  # the NOTIFY never arrives
    dm_press(fake, U1, p0)
    await until(lambda: sql(p0, "SELECT state FROM routed_clicks") == [("queued",)], "queued")
    p0.bot.cluster.kill()  # the router is gone, and its watch with it
    await p1.close()  # the owner stops before its next poll
    await asyncio.sleep(0.3)  # the shard's next owner starts later than a routed click may wait (0.2 s here)
    p1 = await boot(url, (1,), fake)
    await p1.bot.cluster.step()
    await p1.settle()
    assert set(p1.bot.tables.by_id) == {t1}
    # its first poll of the queue (at start, in the background) drops it
    await until(lambda: sql(p1, "SELECT state FROM routed_clicks") == [("dropped",)], "the old click dropped")
    await p1.settle()
    assert human_moves(p1, t1) == moves
    await p1.close()
    await p0.close()


async def test_a_dm_click_while_shard_0s_lease_connection_is_down_is_told_the_database_is_out_of_reach(url, pg_server):
    """The database fails over: shard 0's process has lost its lease connection and not yet reconnected. A DM click
    on another process's table can be neither routed nor known lost for that moment: the player reads that the bot
    cannot reach its database (try again), not that the table is moving nor that it is over; nothing is played."""
    fake, p0, p1, t1 = await router_and_owner(url)
    moves = human_moves(p1, t1)
    pg_server.psql(f"SELECT pg_terminate_backend({p0.bot.cluster.backend_pid})")
    await until(lambda: not p0.bot.cluster.held, "noticed")
    m, cid = controls(fake, U1)
    r = await p0.click(m, custom_id=cid, locale="en-US")
    assert "cannot reach its database" in r.reply.content and r.reply.ephemeral
    assert "moving" not in r.reply.content and "over" not in r.reply.content
    assert human_moves(p1, t1) == moves and sql(p1, "SELECT COUNT(*) FROM routed_clicks")[0][0] == 0
    await close_all(p0, p1)


async def test_a_routed_click_reaching_an_owner_that_just_lost_the_table_is_told_moving(url, pg_server):
    """The owner takes a routed click, and loses its lease before the click is applied (the server dropped its
    session): the table has stopped there, the click is not played, and the player reads that the table is moving
    (it plays on once another process takes the shard), not that it is over. (The router waits an hour for the
    owner: the answer read is the owner's, not the router's own "moving" after its wait.)"""
    fake, p0, p1, t1 = await router_and_owner(url, route_timeout=3600.0)
    moves = human_moves(p1, t1)
    cluster = p1.bot.cluster
    deliver = cluster.deliver

    def late(payload: dict[str, Any], shard: int) -> None:  # the lease is lost between the take and the apply
        async def then() -> None:
            await until(lambda: cluster._drain_task.done(), "the take finished")
            pg_server.psql(f"SELECT pg_terminate_backend({cluster.backend_pid})")
            await until(lambda: not p1.bot.tables.by_id, "its tables dropped")
            deliver(payload, shard)

        asyncio.get_running_loop().create_task(then())

    cluster.deliver = late
    m, cid = controls(fake, U1)
    data, rec = p0.click_payload(m, custom_id=cid, locale="en-US")
    p0.bot._connection.parse_interaction_create(data)
    await until(lambda: rec.followups, "answered")
    await p1.settle()
    texts = [f.content for f in rec.followups]
    assert any("The table is moving" in x for x in texts) and not any("over" in x for x in texts), texts
    assert human_moves(p0, t1) == moves
    await close_all(p0, p1)


async def test_a_routed_click_whose_owner_died_before_applying_it_is_told_moving(url):
    """The owner takes a routed click from the queue and is killed before it applies it: the click is not played,
    and the player is not left waiting on nothing: once the router's wait is over it sees that the process that
    took the click is gone, and tells the player the table is moving (they press again once it has moved)."""
    fake, p0, p1, t1 = await router_and_owner(url, route_timeout=2.0)
    moves = human_moves(p1, t1)
    cluster = p1.bot.cluster
    taken: list[dict[str, Any]] = []
    cluster.deliver = lambda payload, shard: taken.append(payload)  # the process dies right after its take
    m, cid = controls(fake, U1)
    data, rec = p0.click_payload(m, custom_id=cid, locale="en-US")
    p0.bot._connection.parse_interaction_create(data)
    await until(lambda: taken, "taken by the owner")
    cluster.kill()  # its lease session ends with it
    await until(lambda: rec.followups, "answered")
    assert any("The table is moving" in f.content for f in rec.followups)
    assert human_moves(p0, t1) == moves
    assert sql(p0, "SELECT state FROM routed_clicks") == [("taken",)]
    await close_all(p0, p1)


async def test_a_routed_click_applied_before_its_owner_died_is_not_told_to_try_again(url):
    """The owner applies a routed click and answers it, then is killed while the router still waits: the router
    must not tell the player that nothing was played."""
    fake, p0, p1, t1 = await router_and_owner(url, route_timeout=1.0)
    moves = human_moves(p1, t1)
    m, cid = controls(fake, U1)
    data, rec = p0.click_payload(m, custom_id=cid, locale="en-US")
    p0.bot._connection.parse_interaction_create(data)
    await until(lambda: human_moves(p1, t1) == moves + 1, "applied by the owner")
    await until(lambda: sql(p0, "SELECT payload FROM routed_clicks") == [("answered",)], "handled")
    p1.bot.cluster.kill()
    watches = [t for t in p0.bot.cluster._tasks if t.get_name() == "mjbot-route-watch"]
    assert watches
    await asyncio.gather(*watches)
    assert not any("moving" in f.content for f in rec.followups)
    await close_all(p0, p1)


def channel_control(fake: FakeDiscord, channel: int) -> tuple[Message, str]:
    """The table's message in its server channel with a play control (My hand)."""
    for m in reversed(fake.channel_messages(channel)):
        cids = [c["custom_id"] for c in m.buttons() if c.get("custom_id", "").startswith("mjt:")]
        if cids:
            return m, cids[0]
    raise AssertionError(f"no play control in channel {channel}")


async def test_a_server_channel_click_reaching_a_process_that_does_not_own_the_shard(url, pg_server):
    """Discord delivers a server's events to every connection running its shard: during a restart's overlap the
    standby gets a copy of each click in that server. It leaves the answer to the owner (it says nothing that could
    win the race against the owner's answer); and when no process holds the shard, the player reads that the table
    is moving, not that it is over."""
    fake = fresh_fake()
    p1 = await boot(url, (1,), fake)
    t1 = await open_table(p1, G1, CH1, U1)
    dup = await boot(url, (1,), fake)
    assert dup.bot.cluster.held == set()
    m, cid = channel_control(fake, CH1)
    r = await dup.click(m, custom_id=cid, user=U1, locale="en-US")
    assert not r.responded  # the owner's copy of the event answers it
    r = await p1.click(m, custom_id=cid, user=U1, locale="en-US")
    assert r.responded and "over" not in r.reply.content

    await p1.close()  # nobody holds shard 1 now (the standby takes it at its next check)
    r = await dup.click(m, custom_id=cid, user=U1, locale="en-US")
    assert "The table is moving" in r.reply.content and r.reply.ephemeral
    r = await dup.slash("table new", variant="wuhu", user=U1 + 7, guild=G1, channel=CH1 + 7, locale="en-US")
    assert "The table is moving" in r.reply.content and r.reply.ephemeral
    await dup.bot.cluster.step()
    await dup.settle()
    assert set(dup.bot.tables.by_id) == {t1}
    await dup.close()


async def test_a_dm_click_reaching_a_standby_of_shard_0_is_left_to_shard_0s_owner(url):
    """Two processes run shard 0 (a restart's overlap, or a unit file's mistake): Discord delivers every DM event
    to both. The one that does not hold shard 0's lease leaves the click to the one that does, which routes it:
    it is acknowledged once, queued once and applied once."""
    fake = fresh_fake()
    p0 = await boot(url, (0,), fake)
    p1 = await boot(url, (1,), fake)
    dup = await boot(url, (0,), fake)
    assert dup.bot.cluster.held == set()
    t1 = await open_table(p1, G1, CH1, U1)
    moves = human_moves(p1, t1)
    m, cid = controls(fake, U1)
    data, rec = p0.click_payload(m, custom_id=cid)
    dup.bot._connection.parse_interaction_create(data)  # the standby's copy first
    await dup.settle()
    assert not rec.responded and sql(p0, "SELECT COUNT(*) FROM routed_clicks")[0][0] == 0
    p0.bot._connection.parse_interaction_create(data)  # the owner's copy
    await until(lambda: human_moves(p1, t1) == moves + 1, "applied by the owner")
    await p1.settle()
    assert rec.callback_type == 6 and sql(p0, "SELECT COUNT(*) FROM routed_clicks")[0][0] == 1
    for h in (dup, p0, p1):
        await h.close()
