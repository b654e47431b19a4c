"""``bot.store.records`` and the source filter of the boards, on the real store: refusals write nothing, the last
confirmation writes one hand whatever the concurrency, and every reader's ``source`` filter equals plain SQL sums."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.store import LedgerRow, SeatSpec, Store, StoreError
from bot.store import group as gstore
from bot.store import records as rstore
from tests.harness.db import connect, dump_target

G, CH = 10, 20
A, B, C, D = 1, 2, 3, 4
T0 = datetime(2026, 11, 2, 12, tzinfo=UTC)


def seats(amounts: list[int]) -> list[rstore.SeatProposal]:
    return [rstore.SeatProposal(p, f"p{p}", a) for p, a in zip((A, B, C, D), amounts, strict=True)]


async def propose(store: Store, amounts: list[int], *, winner: int = 1, discarder: int | None = 2,
                  at: datetime = T0, variant: str = "hefei") -> rstore.Record:
    return await rstore.propose(store, guild_id=G, channel_id=CH, proposer_id=B, hand_text="x", variant=variant,
                                rules={}, situation={"winner": winner, "discarder": discarder}, hand_value=max(amounts),
                                lang="en", seats=seats(amounts), at=at)


pytestmark = pytest.mark.both_backends
dump = dump_target


@pytest.fixture
async def store(db_target: Path | str):
    s = await Store.open(db_target)
    try:
        yield s
    finally:
        await s.close()


async def test_refusals_write_nothing(store: Store):
    before = dump(store.path)
    with pytest.raises(StoreError) as e:
        await rstore.propose(store, guild_id=G, channel_id=CH, proposer_id=B, hand_text="x", variant="hefei",
                             rules={}, situation={"winner": 1}, hand_value=1, lang="en",
                             seats=[rstore.SeatProposal(A, "a", 1), rstore.SeatProposal(A, "a", -1),
                                    rstore.SeatProposal(C, "c", 0), rstore.SeatProposal(D, "d", 0)])
    assert e.value.code == "bad_seats"
    with pytest.raises(StoreError) as e:
        await propose(store, [0, 5, -4, 0])
    assert e.value.code == "not_zero_sum"
    with pytest.raises(StoreError) as e:
        await rstore.get(store, G + 1, 1)
    assert e.value.code == "unknown_record"
    assert dump(store.path) == before


async def test_concurrent_confirmations_write_one_hand(store: Store):
    rec = await propose(store, [-3, 9, -3, -3], discarder=None)
    outs = await asyncio.gather(*[rstore.confirm(store, G, rec.record_id, p, manager=p == D, at=T0)
                                  for p in (A, C, D, A, C, D) * 3])
    kinds = [o.outcome for o in outs]
    assert kinds.count("settled") == 1
    db = connect(store.path)
    assert db.execute("SELECT COUNT(*) FROM ledger").fetchone() == (4,)
    assert db.execute("SELECT SUM(amount), COUNT(DISTINCT hand_id) FROM ledger").fetchone() == (0, 1)
    assert db.execute("SELECT net, hands FROM board_totals WHERE player_id = ?", (B,)).fetchone() == (9, 1)
    db.close()
    # expired and rejected records refuse every press
    late = await propose(store, [0, 2, -2, 0])
    assert (await rstore.confirm(store, G, late.record_id, C, manager=False,
                                 at=T0 + timedelta(hours=25))).outcome == "closed"
    assert [r.record_id for r in await rstore.expire_due(store, at=T0 + timedelta(hours=25))] == [late.record_id]
    assert await rstore.expire_due(store, at=T0 + timedelta(hours=26)) == []
    assert (await rstore.reject(store, G, late.record_id, B, manager=False, at=T0)).outcome == "closed"


async def test_source_filters_equal_the_ledger_sums(store: Store):
    # two played hands, two recorded ones (one voided later), one adjustment
    m = await store.start_match(G, CH, "hefei", {}, 1, [SeatSpec.human(p, f"p{p}") for p in (A, B, C, D)], at=T0)
    for n, rows in enumerate(([5, -5, 0, 0], [0, 0, 7, -7])):
        hid = await store.start_hand(m, n, f"h{n}", None, at=T0 + timedelta(hours=n))
        await store.finish_hand(hid, [LedgerRow(s, a, won=a > 0, deal_in=a < 0, hand_value=max(a, 0))
                                      for s, a in enumerate(rows)], at=T0 + timedelta(hours=n))
    r1 = await propose(store, [0, 20, -20, 0], at=T0 + timedelta(days=1))
    r2 = await propose(store, [-4, 12, -4, -4], discarder=None, at=T0 + timedelta(days=2))
    await rstore.confirm(store, G, r1.record_id, C, manager=False, at=T0 + timedelta(days=1))
    await rstore.confirm(store, G, r2.record_id, 99, manager=True, at=T0 + timedelta(days=2))
    r2 = await rstore.get(store, G, r2.record_id)
    await gstore.void_hand(store, G, 99, r2.hand_id, "typo", at=T0 + timedelta(days=3))
    await gstore.adjust(store, G, 99, A, D, 6, "hefei", "side bet", at=T0 + timedelta(days=3))

    def net(board):
        return {r.player_id: (r.net, r.hands, r.wins) for r in board}

    every = net(await gstore.board(store, G, "hefei", limit=100))
    played = net(await gstore.board(store, G, "hefei", limit=100, source="played"))
    person = net(await gstore.board(store, G, "hefei", limit=100, source="in_person"))
    assert played == {A: (5, 2, 1), B: (-5, 2, 0), C: (7, 2, 1), D: (-7, 2, 0)}
    assert person == {B: (20, 1, 1), C: (-20, 1, 0), A: (0, 1, 0), D: (0, 1, 0)}  # the voided hand counts nothing
    assert every == {A: (5 - 6, 3, 1), B: (15, 3, 1), C: (-13, 3, 1), D: (-1, 3, 0)}  # the adjustment: all only
    # the same with a range that cuts days (roll-ups and raw rows mixed for "all")
    since = T0 + timedelta(hours=1)
    assert net(await gstore.board(store, G, "hefei", since, limit=100, source="played")) == {
        A: (0, 1, 0), B: (0, 1, 0), C: (7, 1, 1), D: (-7, 1, 0)}
    s = await gstore.player_record(store, G, B, source="in_person")
    assert (s.hands, s.wins, s.net, s.biggest_hand) == (1, 1, 20, 20)
    s = await gstore.player_record(store, G, B, source="played")
    assert (s.hands, s.net) == (2, -5)
    hh = await gstore.head_to_head(store, G, B, C, source="in_person")
    assert (hh.hands, hh.b_to_a) == (1, 20)
    with pytest.raises(StoreError):
        await gstore.board(store, G, "hefei", source="nope")
