"""One bot process of a cluster, for tests/bot/test_cluster_processes.py: the real bot booted as in production
(``create_bot`` + the setup hooks: the store opens on PostgreSQL, the shard leases are taken, the cogs load and the
tables of its shards resume) with its own fake Discord under its transports (tests/harness), driven by JSON lines.

    python tests/bot/cluster_worker.py URL SHARD_IDS SHARD_COUNT SNOWFLAKE_BASE [GUILD:CHANNEL,...]

The channels are the servers' channels that exist in Discord already (a process started later finds its tables'
channels there).

It prints ``{"ready": true, "held": [...], "tables": [...]}`` once booted, then answers each command line on stdin
with one line (same ``n``). Commands (``op``):

- ``open`` guild channel user: a table in that server's channel, the user and three AI players, started;
- ``controls`` user: the player's DM with live play controls in this process's Discord (its payload and the control
  to press), and the table's phase;
- ``next`` channel user: press Next hand on the table message;
- ``expect`` message token id user: Discord's record of a click that another process acknowledged (deferred) on
  this DM message, so that this process may answer it through the token (the message is put in this process's
  Discord if it is not there: it is the same message in the real Discord);
- ``prepare`` message user custom_id: a click on that DM message as Discord would deliver it (the payload is kept);
  ``feed`` token: deliver it to this process (shard 0's: Discord sends every DM event there) and wait; the answer
  says how it was acknowledged and what the player was told;
- ``answered`` token: the webhook requests made for that interaction, with their statuses;
- ``settle``; ``state``; ``quit``.

Each line is written with one ``os.write``.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import tests.harness.fake as fake_module  # noqa: E402
from bot.cluster import Cluster  # noqa: E402
from bot.config import Config  # noqa: E402
from bot.shards import parse_shards  # noqa: E402
from bot.tables import Timers  # noqa: E402
from tests.harness import APPLICATION_ID, Harness, stdin_lines  # noqa: E402
from tests.harness.fake import FakeDiscord, InteractionRecord, user_payload  # noqa: E402


def say(obj: dict[str, Any]) -> None:
    os.write(1, (json.dumps(obj) + "\n").encode())


class Worker:
    def __init__(self, h: Harness) -> None:
        self.h = h
        self.prepared: dict[str, dict[str, Any]] = {}
        self.records: dict[str, InteractionRecord] = {}

    async def handle(self, cmd: dict[str, Any]) -> dict[str, Any]:
        h, op = self.h, cmd["op"]
        if op == "open":
            g, ch, u = int(cmd["guild"]), int(cmd["channel"]), int(cmd["user"])
            h.add_channel(ch, guild_id=g)
            await h.slash("table new", variant="wuhu", user=u, guild=g, channel=ch, locale="en-US")
            for _ in range(3):
                await h.slash("table addbot", user=u, guild=g, channel=ch, locale="en-US")
            await h.slash("table start", user=u, guild=g, channel=ch, locale="en-US")
            return {"match": h.bot.tables.by_channel[ch].id}
        if op == "controls":
            u = int(cmd["user"])
            lt = h.bot.tables.by_channel.get(int(cmd["channel"]))
            phase = None if lt is None or lt.table is None else lt.table.phase
            out: dict[str, Any] = {"phase": phase, "message": None}
            for m in reversed(h.fake.dm_messages(u)):
                cids = [c["custom_id"] for c in m.buttons() if c.get("custom_id", "").startswith("mjt:")
                        and not c.get("disabled")]
                if cids:
                    by_op = {cid.split(":")[4]: cid for cid in cids}
                    out.update(message=m.payload(), custom_id=by_op.get("d") or by_op.get("x") or cids[0])
                    break
            return out
        if op == "next":
            ch, u = int(cmd["channel"]), int(cmd["user"])
            for m in reversed(h.channel(ch)):
                nxt = [c for c in m.buttons() if c.get("custom_id", "").endswith(":next")]
                if nxt:
                    await h.click(m, custom_id=nxt[0]["custom_id"], user=u, locale="en-US")
                    return {"pressed": True}
            return {"pressed": False}
        if op == "expect":
            u = int(cmd["user"])
            m = h.fake.adopt_dm(cmd["message"], u)
            rec = InteractionRecord(id=int(cmd["id"]), token=cmd["token"], type=3, channel_id=m.channel_id,
                                    guild_id=None, user_id=u, message_id=m.id, callbacks=[{"type": 6}], original=m)
            h.fake.interactions[rec.token] = rec
            return {}
        if op == "prepare":
            u = int(cmd["user"])
            m = h.fake.adopt_dm(cmd["message"], u)
            data, rec = h.click_payload(m, custom_id=cmd["custom_id"], user=u, locale="en-US")
            self.prepared[rec.token], self.records[rec.token] = data, rec
            return {"token": rec.token, "id": str(rec.id)}
        if op == "feed":
            token = cmd["token"]
            h.bot._connection.parse_interaction_create(self.prepared[token])  # type: ignore[arg-type]
            await h.settle()
            rec = self.records[token]
            return {"callbacks": [c["type"] for c in rec.callbacks],
                    "said": [m.content for m in rec.messages if m.ephemeral]}
        if op == "answered":
            token = cmd["token"]
            reqs = [r for r in h.fake.requests if r.path.startswith(f"/webhooks/{APPLICATION_ID}/{token}")]
            return {"statuses": [r.status for r in reqs], "methods": [r.method for r in reqs]}
        if op == "settle":
            await h.settle()
            await h.bot.tables.wait_idle()
            return {}
        if op == "state":
            cluster = h.bot.cluster
            return {"held": sorted(cluster.held) if cluster else None, "tables": sorted(h.bot.tables.by_id)}
        raise ValueError(f"unknown op {op!r}")


async def main(url: str, ids: str, count: str, base: int, channels: str = "") -> None:
    fake_module._snowflakes = itertools.count(base)  # ids of this process's Discord objects never meet another's
    Cluster.tick = 0.2  # lease checks and queue polls
    Cluster.lease_wait = 30.0  # a killed predecessor's session is gone within milliseconds; the limit is generous

    def prepare(bot: Any) -> None:
        bot.tables.timers = Timers(turn=3600, claim=3600, next_hand=3600)  # the test's players decide; no timer
        bot.tables.render_images = False
        bot.tables.new_seed = lambda: f"cluster-{ids}"  # the same deals (and AI choices) every run

    config = Config(token=None, db_path=url, shards=parse_shards(ids, count))
    fake = FakeDiscord(APPLICATION_ID, user_payload(APPLICATION_ID, "mjbot", bot=True))
    for pair in filter(None, channels.split(",")):
        guild, channel = pair.split(":")
        fake.add_channel(int(channel), int(guild))
    h = await Harness.boot(url, config=config, fake=fake, prepare=prepare)
    await h.settle()
    worker = Worker(h)
    say({"ready": True, "held": sorted(h.bot.cluster.held), "tables": sorted(h.bot.tables.by_id)})
    lines = stdin_lines()
    while True:
        line = await lines.get()
        if not line:
            break
        cmd = json.loads(line)
        if cmd["op"] == "quit":
            break
        try:
            out = await worker.handle(cmd)
            say({"n": cmd["n"], "ok": True, **out})
        except Exception as e:
            say({"n": cmd["n"], "ok": False, "error": f"{type(e).__name__}: {e}"})
    await h.close()
    say({"bye": True})


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), *sys.argv[5:6]))
