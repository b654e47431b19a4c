"""Several processes on PostgreSQL, and a server that removes the bot (GUILD_DELETE reaches every connection of its
shard): only the process that drives the server's tables ends them, and a standby that takes the shard later ends the
tables of a server the bot left while nobody held it (bot/tables/gone.py, docs/sharding.md)."""

from __future__ import annotations

import pytest

from bot.tables.strings import t
from tests.bot.test_cluster import (
    CH1,
    G1,
    U1,
    _no_background_ticks,  # noqa: F401  (that module's fixture)
    boot,
    fresh_fake,
    guild_on,
    open_table,
)
from tests.harness import Harness
from tests.harness.db import sql

pytestmark = pytest.mark.usefixtures("_no_background_ticks")  # (lease checks when the test steps them)

G1B, CH1B, U1B = guild_on(1, 1), CH1 + 10, U1 + 10


def _status(h: Harness, match_id: int) -> str:
    return sql(h, "SELECT status FROM matches WHERE id = ?", (match_id,))[0][0]


def _told(h: Harness, user: int, key: str, lang: str, channel: int) -> int:
    text = t(key, lang, channel=channel)
    return sum(1 for m in h.fake.dm_messages(user) if m.content == text)


async def test_only_the_owner_ends_a_removed_servers_tables_and_a_standby_ends_them_when_it_takes_the_shard(pg_url):
    url = pg_url
    fake = fresh_fake()
    owner = await boot(url, (1,), fake)
    t1 = await open_table(owner, G1, CH1, U1)
    t2 = await open_table(owner, G1B, CH1B, U1B)
    lang1 = owner.bot.tables.by_id[t1].seats[0].lang
    lang2 = owner.bot.tables.by_id[t2].seats[0].lang
    standby = await boot(url, (1,), fake)
    try:
        assert standby.bot.cluster.held == set() and not standby.bot.tables.by_id
        for h in (owner, standby):
            await h.connect(guilds=[G1, G1B])  # the schedulers (weekly report, record expiry) start with the ready

        # the bot is removed from G1: Discord tells both connections of shard 1; the standby acts on nothing
        standby.gateway("GUILD_DELETE", {"id": str(G1)})
        await standby.settle()
        assert _status(owner, t1) == "active"
        owner.gateway("GUILD_DELETE", {"id": str(G1)})
        await owner.bot.tables.wait_idle()
        await owner.settle()
        assert _status(owner, t1) == "aborted" and _status(owner, t2) == "active"
        assert _told(owner, U1, "tables.gone_dm.server", lang1, CH1) == 1  # told once, by the owner

        # the owner stops; the bot is removed from G1B while no process holds shard 1 (only the standby hears it)
        await owner.close()
        standby.gateway("GUILD_DELETE", {"id": str(G1B)})
        await standby.settle()
        assert _status(standby, t2) == "active"
        await standby.bot.cluster.step()  # takes the lease: the table resumes, and ends (its server is gone)
        await standby.bot.tables.wait_idle()
        await standby.settle()
        assert standby.bot.cluster.held == {1}
        assert _status(standby, t2) == "aborted" and t2 not in standby.bot.tables.by_id
        assert _told(standby, U1B, "tables.gone_dm.server", lang2, CH1B) == 1
    finally:
        await owner.close()
        await standby.close()
