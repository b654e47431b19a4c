"""Taking a shard over, as the players see it (bot.cluster, docs/sharding.md):

- a Start or a /table end refused by the fence (another process holds the shard now: the database answered) says
  the table is moving, not that the database did not answer.

Processes side by side in this test's event loop, as in tests/bot/test_cluster.py.
"""

from __future__ import annotations

from typing import Any

import pytest

from bot.tables.strings import t
from tests.bot.test_cluster import (
    CH1,
    G1,
    U1,
    boot,
    fresh_fake,
    open_table,
    until,
)

pytestmark = pytest.mark.usefixtures("stepped_cluster")  # lease checks when a test steps them

MOVING = t("tables.moving", "en")


def said(rec: Any) -> list[str]:
    """Everything an interaction was answered with (its first answer and its follow-ups)."""
    first = [(c.get("data") or {}).get("content") or "" for c in rec.callbacks]
    return first + [f.content or "" for f in rec.followups]


# ------------------------------------------------------------------------------ writes refused by the fence


def lose_lease_before(h: Any, pg_server: Any, name: str) -> None:
    """The store's ``name`` is called just after the process's lease session was ended by the server (and the
    process noticed): the write meets the fence."""
    store = h.bot.store
    real = getattr(store, name)

    async def first_the_loss(*args: Any, **kwargs: Any) -> Any:
        pg_server.psql(f"SELECT pg_terminate_backend({h.bot.cluster.backend_pid})")
        await until(lambda: not h.bot.cluster.held, "the loss noticed")
        return await real(*args, **kwargs)

    setattr(store, name, first_the_loss)


async def test_a_table_end_refused_by_the_fence_says_the_table_is_moving(pg_url, pg_server):
    fake = fresh_fake()
    p1 = await boot(pg_url, (1,), fake)
    await open_table(p1, G1, CH1, U1)
    lose_lease_before(p1, pg_server, "abort_match")
    r = await p1.slash("table end", user=U1, guild=G1, channel=CH1, locale="en-US")
    await until(lambda: any(m.content for m in r.messages), "the host answered")
    answer = " ".join(m.content or "" for m in r.messages)
    await p1.close()
    assert MOVING in answer and "did not answer" not in answer, answer


async def test_a_start_refused_by_the_fence_says_the_table_is_moving(pg_url, pg_server):
    fake = fresh_fake()
    p1 = await boot(pg_url, (1,), fake)
    p1.add_channel(CH1, guild_id=G1)
    await p1.slash("table new", variant="wuhu", user=U1, guild=G1, channel=CH1, locale="en-US")
    for _ in range(3):
        await p1.slash("table addbot", user=U1, guild=G1, channel=CH1, locale="en-US")
    lose_lease_before(p1, pg_server, "start_match")
    r = await p1.slash("table start", user=U1, guild=G1, channel=CH1, locale="en-US")
    await until(lambda: any(m.content for m in r.messages), "the host answered")
    answer = " ".join(m.content or "" for m in r.messages)
    await p1.close()
    assert MOVING in answer and "did not answer" not in answer, answer
