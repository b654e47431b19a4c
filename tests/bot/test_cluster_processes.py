"""Three bot processes over one PostgreSQL database, as issue 20 asks: real subprocesses (tests/bot/cluster_worker.py),
each the real bot with its own fake Discord capturing its requests, running shard 0, 1 and 2 of 3. A table in a
server of each shard; its human plays by clicking the buttons of the DMs, and every DM click is delivered to shard
0's process, as Discord does: that process plays its own table's clicks and routes the others' to their owners.

- every click reaches its table exactly once (one more move of that player in the store per click), acknowledged by
  shard 0's process with a deferral and answered by the owner through the interaction's token;
- one process is killed with SIGKILL in the middle of a hand: a click on its table is answered "the table is moving"
  and changes nothing, the other tables play on; a new process for its shard takes the lease, resumes the table from
  the store, and the next click plays;
- at the end the store is sound: every finished hand's ledger complete and zero-sum, the leaderboards' roll-ups
  equal to the ledger's sums, no action recorded twice (tests/bot/store_checks.py).

Nothing waits against a deadline: every wait polls for its condition with a generous limit.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
from pathlib import Path
from typing import Any

import pytest

from bot.cluster_lease import LEASE_CLASS, lease_key
from bot.shards import shard_of
from tests.bot.store_checks import check_sql
from tests.harness.db import connect

ROOT = Path(__file__).resolve().parents[2]
WORKER = Path(__file__).with_name("cluster_worker.py")
COUNT = 3
BASE_GUILD = 1_240_000_000_000_000_000
CHANNEL0 = 1_250_000_000_000_000_000
USER0 = 1_260_000_000_000_000_000
ROUNDS_BEFORE_KILL = 3
MAX_CLICKS = 80  # per table: a hand of one human among three AI players ends well before


def guild_on(shard: int) -> int:
    g = BASE_GUILD
    while shard_of(g, COUNT) != shard:
        g += 1 << 22
    return g


class Proc:
    """One worker process, spoken to in JSON lines."""

    def __init__(self, name: str, proc: asyncio.subprocess.Process, log: Path) -> None:
        self.name, self.proc, self.log = name, proc, log
        self.n = 0
        self.ready: dict[str, Any] = {}

    @classmethod
    async def start(cls, name: str, url: str, shard: int, base: int, folder: Path, channels: str = "") -> Proc:
        log = folder / f"{name}.log"
        with log.open("wb") as err:
            proc = await asyncio.create_subprocess_exec(
                sys.executable, str(WORKER), url, str(shard), str(COUNT), str(base), channels, cwd=str(ROOT),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=err)
        self = cls(name, proc, log)
        self.ready = await self._line()
        assert self.ready.get("ready"), self.ready
        return self

    async def _line(self, timeout: float = 120) -> dict[str, Any]:
        raw = await asyncio.wait_for(self.proc.stdout.readline(), timeout=timeout)  # type: ignore[union-attr]
        if not raw:
            raise AssertionError(f"{self.name} ended:\n{self.log.read_text(errors='replace')[-4000:]}")
        return dict(json.loads(raw))

    async def call(self, op: str, **kw: Any) -> dict[str, Any]:
        self.n += 1
        self.proc.stdin.write((json.dumps({"op": op, "n": self.n, **kw}) + "\n").encode())  # type: ignore[union-attr]
        await self.proc.stdin.drain()  # type: ignore[union-attr]
        out = await self._line()
        assert out.get("n") == self.n and out.get("ok"), (self.name, op, out)
        return out

    async def kill(self) -> None:
        os.kill(self.proc.pid, signal.SIGKILL)
        # (a bounded wait: on Python 3.11 it also waits for whatever still holds the process's stdout)
        assert await asyncio.wait_for(self.proc.wait(), timeout=60) == -signal.SIGKILL

    async def quit(self) -> None:
        if self.proc.returncode is None:
            self.proc.stdin.write(b'{"op": "quit"}\n')  # type: ignore[union-attr]
            await self.proc.stdin.drain()  # type: ignore[union-attr]
            await asyncio.wait_for(self.proc.wait(), timeout=60)


async def until(cond: Any, what: str, timeout: float = 60.0) -> None:
    """Poll ``cond`` every 10 ms until it is true; the limit counts polls, not the clock (as test_cluster.py's: a
    stall of this process is not counted against what it has had no turn to notice)."""
    for _ in range(int(timeout / 0.01)):
        if cond():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"still not {what} after {timeout} s of polls")


class Table:
    def __init__(self, shard: int) -> None:
        self.shard = shard
        self.guild = guild_on(shard)
        self.channel = CHANNEL0 + shard
        self.user = USER0 + shard
        self.match = 0
        self.clicks = 0  # clicks applied (the player's moves expected in the store)
        self.controls: dict[str, Any] = {}  # the player's DM with live controls, as Discord shows it


@pytest.fixture
def url(pg_url):
    return pg_url


async def test_three_processes_dm_clicks_routed_exactly_once_and_a_killed_process_loses_nothing(url, tmp_path):
    db = connect(url)
    procs: dict[int, Proc] = {}
    bases = iter(1_300_000_000_000_000_000 + k * 10**14 for k in range(1, 10))

    def moves(t: Table) -> int:
        rows = db.execute("SELECT action FROM actions WHERE match_id = ?", (t.match,))
        acts = [json.loads(r[0]) for r in rows]
        return sum(1 for a in acts if a.get("seat") == 0 and a["type"] not in ("timeout", "next_hand"))

    def finished_hands(t: Table) -> int:
        return int(db.execute("SELECT COUNT(*) FROM hands WHERE match_id = ? AND status = 'finished'",
                              (t.match,))[0][0])

    def lease_held(shard: int) -> bool:
        return bool(db.execute("SELECT COUNT(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = ? "
                               "AND objid = ? AND objsubid = 2 AND granted AND database = "
                               "(SELECT oid FROM pg_database WHERE datname = current_database())",
                               (LEASE_CLASS, lease_key(COUNT, shard)))[0][0])

    async def refresh(t: Table) -> bool:
        """The player's DM with live controls, from the owner's Discord (pressing Next hand when the hand is
        over); False when the match is over."""
        owner = procs[t.shard]
        c = await owner.call("controls", user=t.user, channel=t.channel)
        if c["message"] is None and c["phase"] == "ended":
            await owner.call("next", user=t.user, channel=t.channel)
            await owner.call("settle")
            c = await owner.call("controls", user=t.user, channel=t.channel)
        if c["message"] is not None:
            t.controls = c
        return c["message"] is not None or c["phase"] not in ("over", None)

    async def click(t: Table) -> None:
        """The player presses a control of their DM; Discord delivers it to shard 0's process."""
        c = t.controls
        p = await procs[0].call("prepare", message=c["message"], user=t.user, custom_id=c["custom_id"])
        if t.shard != 0:  # Discord knows the interaction: the owner may answer through its token
            await procs[t.shard].call("expect", message=c["message"], token=p["token"], id=p["id"], user=t.user)
        fed = await procs[0].call("feed", token=p["token"])
        t.clicks += 1
        await until(lambda: moves(t) == t.clicks, f"click {t.clicks} of table {t.shard} applied")
        await procs[t.shard].call("settle")
        assert moves(t) == t.clicks  # once: not twice
        if t.shard != 0:
            assert fed["callbacks"] == [6] and not fed["said"], fed  # deferred by shard 0's process, no refusal
            answered = await procs[t.shard].call("answered", token=p["token"])
            assert answered["statuses"] and all(200 <= s < 300 for s in answered["statuses"]), answered
        await refresh(t)

    try:
        for s in range(COUNT):
            procs[s] = await Proc.start(f"p{s}", url, s, next(bases), tmp_path)
            assert procs[s].ready["held"] == [s]
        tables = [Table(s) for s in range(COUNT)]
        for t in tables:
            t.match = (await procs[t.shard].call("open", guild=t.guild, channel=t.channel, user=t.user))["match"]
            t.clicks = moves(t)
            await procs[t.shard].call("settle")
            assert await refresh(t)

        for _ in range(ROUNDS_BEFORE_KILL):
            for t in tables:
                await click(t)

        # process 1 dies in the middle of a hand
        victim = tables[1]
        assert finished_hands(victim) == 0 and victim.controls.get("message")
        await procs[1].kill()
        await until(lambda: not lease_held(1), "the killed process's lease freed by the server")
        before = moves(victim)
        p = await procs[0].call("prepare", message=victim.controls["message"], user=victim.user,
                                custom_id=victim.controls["custom_id"])
        fed = await procs[0].call("feed", token=p["token"])
        assert any("The table is moving" in said for said in fed["said"]), fed
        for t in (tables[0], tables[2]):  # the others play on meanwhile
            await click(t)
        assert moves(victim) == before
        assert db.execute("SELECT COUNT(*) FROM routed_clicks WHERE interaction_id = ?", (int(p["id"]),))[0][0] == 0

        # a new process for shard 1: it takes the lease and resumes the table from the store
        procs[1] = await Proc.start("p1-again", url, 1, next(bases), tmp_path,
                                    channels=f"{victim.guild}:{victim.channel}")  # its channel is in Discord
        assert procs[1].ready["held"] == [1] and procs[1].ready["tables"] == [victim.match]
        await procs[1].call("settle")
        await refresh(victim)  # a new DM if the kept one is no longer current; else the one the player has
        await click(victim)  # the next click plays

        # play on until every table has finished a hand
        for t in tables:
            while finished_hands(t) == 0:
                assert t.clicks < MAX_CLICKS, f"table {t.shard}: no hand finished after {t.clicks} clicks"
                if not t.controls.get("message"):
                    await procs[t.shard].call("settle")
                    if not await refresh(t):
                        break
                    continue
                await click(t)
                if finished_hands(t):
                    break
    finally:
        for proc in procs.values():
            if proc.proc.returncode is None:
                await proc.quit()
    for t in tables:
        assert moves(t) == t.clicks and finished_hands(t) >= 1
    print("clicks per table:", [t.clicks for t in tables], "hands:", [finished_hands(t) for t in tables])
    counts = check_sql(url)  # ledgers complete and zero-sum, roll-ups (leaderboards) = ledger sums, seq 0..n-1
    assert counts
    db.close()
