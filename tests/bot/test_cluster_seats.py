"""A player sits at one table at a time whatever the deployment (docs/playing.md): with two processes on one
PostgreSQL database (shard 0 and shard 1, tests/bot/test_cluster.py's helpers), a player seated at a table that one
process drives is refused a seat at the other's - a new table, a lobby's Join - with the words one process says, and
is free again once the first table is left or ended, also after a process was killed and started again."""

from __future__ import annotations

import pytest

from tests.bot.test_cluster import CH0, CH1, G0, G1, U0, U1, boot, close_all, fresh_fake, open_table
from tests.harness import Harness

pytestmark = pytest.mark.usefixtures("stepped_cluster")

SEATED = f"You already sit at a table (in <#{CH0}>). Leave it first."


def said(r) -> str:
    return r.reply.content if r.reply is not None else ""


def lobby_players(h: Harness, channel: int) -> list[int]:
    lt = h.bot.tables.by_channel.get(channel)
    return [] if lt is None or lt.closed else lt.players()


async def test_a_player_at_a_match_of_one_process_gets_no_seat_at_another_until_it_ends(pg_url):
    fake = fresh_fake()
    p0 = await boot(pg_url, (0,), fake)
    p1 = await boot(pg_url, (1,), fake)
    try:
        await open_table(p0, G0, CH0, U0)
        p1.add_channel(CH1, guild_id=G1)

        r = await p1.slash("table new", variant="wuhu", user=U0, guild=G1, channel=CH1, locale="en-US")
        assert said(r) == SEATED
        assert lobby_players(p1, CH1) == []  # no lobby was opened for them

        await p1.slash("table new", variant="wuhu", user=U1, guild=G1, channel=CH1, locale="en-US")
        r = await p1.slash("table join", user=U0, guild=G1, channel=CH1, locale="en-US")
        assert said(r) == SEATED
        assert lobby_players(p1, CH1) == [U1]

        await p0.slash("table end", user=U0, guild=G0, channel=CH0, locale="en-US")  # the match is over: free
        r = await p1.slash("table join", user=U0, guild=G1, channel=CH1, locale="en-US")
        assert "already sit" not in said(r)
        assert lobby_players(p1, CH1) == [U1, U0]
    finally:
        await close_all(p0, p1)


async def test_a_lobby_keeps_its_player_across_a_kill_and_frees_them_when_it_closes(pg_url):
    fake = fresh_fake()
    p0 = await boot(pg_url, (0,), fake)
    p1 = await boot(pg_url, (1,), fake)
    try:
        p0.add_channel(CH0, guild_id=G0)
        p1.add_channel(CH1, guild_id=G1)
        await p0.slash("table new", variant="wuhu", user=U0, guild=G0, channel=CH0, locale="en-US")
        p0 = await p0.kill()  # as kill -9: the lobby comes back with the new process, and so does its player's seat

        r = await p1.slash("table new", variant="wuhu", user=U0, guild=G1, channel=CH1, locale="en-US")
        assert said(r) == SEATED
        assert lobby_players(p0, CH0) == [U0]

        await p0.slash("table leave", user=U0, guild=G0, channel=CH0, locale="en-US")  # the lobby closes with them
        r = await p1.slash("table new", variant="wuhu", user=U0, guild=G1, channel=CH1, locale="en-US")
        assert "already sit" not in said(r)
        assert lobby_players(p1, CH1) == [U0]
    finally:
        await close_all(p0, p1)


async def test_one_process_holding_both_shards_refuses_as_before(pg_url):
    fake = fresh_fake()
    both = await boot(pg_url, (0, 1), fake)
    try:
        await open_table(both, G0, CH0, U0)
        both.add_channel(CH1, guild_id=G1)
        r = await both.slash("table new", variant="wuhu", user=U0, guild=G1, channel=CH1, locale="en-US")
        assert said(r) == SEATED
    finally:
        await close_all(both)
