"""The store's repeat guards (``bot.store.group.REPEAT_MS``): an adjustment or a season start repeated word for
word by the same admin within ten minutes is refused, whichever of two processes' clocks runs ahead; a legitimate
second one is not."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.store import Store, StoreError
from bot.store import group as gstore
from tests.harness.db import dump_target

pytestmark = pytest.mark.both_backends

G, ADMIN, OTHER, P, Q = 1200000000000000100, 1200000000000001001, 1200000000000001009, 1200000000000001002, \
    1200000000000001003
T = datetime(2031, 3, 1, 12, tzinfo=UTC)


@pytest.mark.parametrize("skew", [timedelta(seconds=-1), timedelta(0), timedelta(minutes=9)])
async def test_an_adjustment_repeated_within_ten_minutes_either_way_is_refused(db_target, skew):
    store = await Store.open(db_target)
    try:
        first = await gstore.adjust(store, G, ADMIN, P, Q, 25, "hefei", "side bet", at=T)
        before = dump_target(db_target)
        with pytest.raises(StoreError) as e:
            await gstore.adjust(store, G, ADMIN, P, Q, 25, "hefei", "side bet", at=T + skew)
        assert e.value.code == "adjust_repeated" and e.value.params["id"] == first.correction_id
        assert dump_target(db_target) == before
    finally:
        await store.close()


@pytest.mark.parametrize("change", [
    {"at": T + timedelta(minutes=10)}, {"at": T - timedelta(minutes=10)}, {"user": OTHER}, {"amount": 26},
    {"variant": "wuhu"}, {"reason": "side bet 2"}, {"payer": Q, "payee": P},
])
async def test_another_adjustment_is_not_a_repeat(db_target, change):
    store = await Store.open(db_target)
    try:
        await gstore.adjust(store, G, ADMIN, P, Q, 25, "hefei", "side bet", at=T)
        kw = {"user": ADMIN, "payer": P, "payee": Q, "amount": 25, "variant": "hefei", "reason": "side bet", "at": T,
              **change}
        second = await gstore.adjust(store, G, kw["user"], kw["payer"], kw["payee"], kw["amount"], kw["variant"],
                                     kw["reason"], at=kw["at"])
        assert [(r.player_id, r.amount) for r in second.rows] == [(kw["payer"], -kw["amount"]),
                                                                  (kw["payee"], kw["amount"])]
    finally:
        await store.close()


async def test_a_season_start_repeated_by_a_clock_behind_is_refused_and_no_season_ends_before_it_starts(db_target):
    store = await Store.open(db_target)
    try:
        await gstore.start_season(store, G, ADMIN, "Spring", ends_at=None, channel_id=1, at=T - timedelta(days=1))
        await gstore.start_season(store, G, ADMIN, "Summer", ends_at=None, channel_id=1, at=T)
        with pytest.raises(StoreError) as e:
            await gstore.start_season(store, G, ADMIN, "Summer", ends_at=None, channel_id=1,
                                      at=T - timedelta(seconds=1))
        assert e.value.code == "season_repeated_now"  # (a second apart: "just now", not "1 min ago")
        # another name from a clock a second behind starts season 3; season 2 ends as it starts, not before
        await gstore.start_season(store, G, ADMIN, "Autumn", ends_at=None, channel_id=1, at=T - timedelta(seconds=1))
        seasons = sorted(await gstore.seasons(store, G), key=lambda s: s.number)  # (listed newest first)
        assert [(s.number, s.name) for s in seasons] == [(1, "Spring"), (2, "Summer"), (3, "Autumn")]
        assert all(s.ended_at is None or s.ended_at >= s.started_at for s in seasons)
        assert seasons[1].ended_at == seasons[1].started_at == T
    finally:
        await store.close()
