"""/record's scheduler in a cluster: a record's card is redrawn (its edit failed: ``card_stale``) and a lost card
posted (its id never stored) by the process holding the lease of the record's server's shard, no other: not the
process of another shard, nor a standby configured with the same shard (cogs/record.py ``Recorder.tick``)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from tests.bot.test_cluster import CH1, G1, U1, boot, fresh_fake
from tests.harness.db import sql

pytestmark = pytest.mark.usefixtures("stepped_cluster")

HEFEI = "1234678922m345s+5m"
A, B, C, D = U1, U1 + 1, U1 + 2, U1 + 3


async def mark(h, sql_set: str) -> None:
    async with h.bot.store.transaction() as conn:
        await conn.execute(f"UPDATE records SET {sql_set}")


def requests(fake, channel: int) -> int:
    return sum(1 for r in fake.requests if r.path.startswith(f"/channels/{channel}/messages"))


def edits(fake, channel: int, message: int) -> int:
    return sum(1 for r in fake.requests if r.method == "PATCH" and r.path == f"/channels/{channel}/messages/{message}")


async def cluster(pg_url, *shards: tuple[int, ...]):
    fake = fresh_fake()
    for p in (A, B, C, D):
        fake.add_user(p, f"p{p % 100}")
    hs = [await boot(pg_url, ids, fake) for ids in shards]
    for h in hs:
        for cog in ("Report", "Recorder"):
            h.bot.get_cog(cog).loop.cancel()  # the test runs the ticks itself
    return fake, hs


async def a_record(h) -> tuple[int, int]:
    h.add_channel(CH1, guild_id=G1)
    await h.slash("record", user=B, guild=G1, channel=CH1, hand=HEFEI, winner=B, discarder=C, variant="hefei",
                  east=A, south=B, west=C, north=D)
    [(rid, mid)] = sql(h, "SELECT id, message_id FROM records")
    assert mid is not None
    return rid, mid


async def test_a_stale_card_is_redrawn_once_and_by_its_shards_process(pg_url):
    fake, (p0, p1) = await cluster(pg_url, (0,), (1,))
    try:
        rid, mid = await a_record(p1)

        await mark(p1, "card_stale = 1")  # the card's last edit failed (a press's edit got a 503)
        before = edits(fake, CH1, mid)
        await p0.bot.get_cog("Recorder").tick()  # the process of shard 0 only: G1 is not its server
        by_p0 = edits(fake, CH1, mid) - before

        await mark(p1, "card_stale = 1")
        before = edits(fake, CH1, mid)  # both processes' ticks at once (each on its own timer)
        await asyncio.gather(p0.bot.get_cog("Recorder").tick(), p1.bot.get_cog("Recorder").tick())
        together = edits(fake, CH1, mid) - before

        for h in (p0, p1):  # the record expires: both processes' ticks after its time is up
            h.bot.get_cog("Recorder").clock = lambda: datetime.now(UTC) + timedelta(days=2)
        before = edits(fake, CH1, mid)
        await asyncio.gather(p0.bot.get_cog("Recorder").tick(), p1.bot.get_cog("Recorder").tick())
        expired = edits(fake, CH1, mid) - before
        assert sql(p1, "SELECT status, card_stale FROM records") == [("expired", 0)]
        assert (by_p0, together, expired) == (0, 1, 1), (
            f"G1 (shard 1)'s card edited by shard 0's process: {by_p0}; edits with both ticks at once: {together}; "
            f"at expiry: {expired}")
    finally:
        for h in (p0, p1):
            await h.close()


async def test_a_lost_card_is_posted_by_the_lease_holder_not_by_a_standby_of_the_same_shard(pg_url):
    fake, (owner, standby) = await cluster(pg_url, (1,), (1,))
    try:
        assert owner.bot.cluster.owns_guild(G1) and not standby.bot.cluster.owns_guild(G1)
        rid, mid = await a_record(owner)
        await mark(owner, "message_id = NULL")  # the card's id was never stored (the bot stopped first)

        before = requests(fake, CH1)
        await standby.bot.get_cog("Recorder").tick()  # its first round: every cardless record, were it its own
        assert requests(fake, CH1) - before == 0 and sql(owner, "SELECT message_id FROM records") == [(None,)]

        await owner.bot.get_cog("Recorder").tick()  # the card is found in the channel and its id kept
        assert sql(owner, "SELECT message_id FROM records") == [(mid,)]
        assert len([m for m in owner.channel(CH1) if m.buttons()]) == 1
    finally:
        for h in (owner, standby):
            await h.close()
