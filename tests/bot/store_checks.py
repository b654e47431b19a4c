"""Invariants of a store database, checked against the ledger's own sums and against engine replays.

Used by the crash test after every kill and by the concurrency tests.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

from bot.store import Store, resume_all
from bot.store.tables import ledger_rows, players_for, rebuild_table
from engine.table import Table
from tests.harness.db import SqliteReader, connect


def check_sql(path: str | Path) -> dict[str, int]:
    """Integrity, ledger completeness and zero-sum, action sequences, totals and roll-ups, from SQL alone."""
    db = connect(path)
    try:
        if isinstance(db, SqliteReader):  # PostgreSQL checks its pages and foreign keys itself
            assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
            assert db.execute("PRAGMA foreign_key_check").fetchall() == []
        # every finished hand: exactly seats 0-3, each column zero-sum; no ledger for other hands
        hands = db.execute("SELECT id, status FROM hands").fetchall()
        rows = defaultdict(list)
        for hand_id, seat, amount, stack, jiao in db.execute(
            "SELECT hand_id, seat, amount, stack_amount, jiao_amount FROM ledger"
        ):
            rows[hand_id].append((seat, amount, stack, jiao))
        finished = 0
        for hand_id, status in hands:
            r = sorted(rows.get(hand_id, []))
            if status == "finished":
                finished += 1
                assert [x[0] for x in r] == [0, 1, 2, 3], (hand_id, r)
                for col in (1, 2, 3):
                    assert sum(x[col] for x in r) == 0, (hand_id, r)
            else:
                assert r == [], (hand_id, status, r)
        # actions: seq runs 0..n-1 in every match (the primary key already forbids a seq twice)
        for match_id, n, lo, hi in db.execute(
            "SELECT match_id, COUNT(*), MIN(seq), MAX(seq) FROM actions GROUP BY match_id"
        ):
            assert (lo, hi) == (0, n - 1), (match_id, n, lo, hi)
        # running totals = sums over the ledger
        sums = {
            (m, s): (a, b, c)
            for m, s, a, b, c in db.execute(
                "SELECT match_id, seat, SUM(amount), SUM(stack_amount), SUM(jiao_amount) FROM ledger "
                "GROUP BY match_id, seat"
            )
        }
        for m, s, a, b, c in db.execute("SELECT match_id, seat, total, stack_total, jiao_total FROM match_seats"):
            assert sums.get((m, s), (0, 0, 0)) == (a, b, c), (m, s)
        # leaderboard roll-ups = sums over the ledger
        want = db.execute(
            "SELECT guild_id, variant, player_id, COUNT(*), SUM(won), SUM(self_draw), SUM(deal_in), SUM(drawn), "
            "MAX(CASE WHEN won = 1 THEN hand_value ELSE 0 END), SUM(amount) FROM ledger "
            "WHERE player_id IS NOT NULL GROUP BY 1, 2, 3 ORDER BY 1, 2, 3"
        ).fetchall()
        got = db.execute(
            "SELECT guild_id, variant, player_id, hands, wins, self_draws, deal_ins, draws, biggest, net "
            "FROM board_totals ORDER BY 1, 2, 3"
        ).fetchall()
        assert got == want
        return {
            "hands_finished": finished,
            "matches_finished": db.execute("SELECT COUNT(*) FROM matches WHERE status = 'finished'").fetchone()[0],
            "actions": db.execute("SELECT COUNT(*) FROM actions").fetchone()[0],
        }
    finally:
        db.close()


class Replays:
    """Engine replays of a database's matches, advanced incrementally from one check to the next."""

    def __init__(self, guild_id: int = 1) -> None:
        self.guild_id = guild_id
        self.tables: dict[int, Table] = {}
        self.expected: dict[int, dict[int, tuple[list, str]]] = defaultdict(dict)  # match -> hand no -> ledger
        self.compared: dict[int, set[int]] = defaultdict(set)
        self.done: set[int] = set()

    async def check(self, store: Store) -> dict[str, int]:
        """Each hand the store has settled must carry exactly the ledger the engine computes when replaying the
        match to that hand's end; a hand the engine ended but the store has not settled is only allowed as the
        last thing in an unfinished match (the crash came between recording the action and settling; the next
        start catches it up). A finished match must have every hand settled and the engine's totals. Then every
        unfinished game must resume (``resume_all``, a full replay) to its stored state hash."""
        lag = 0
        for m in await store.matches(self.guild_id, limit=1_000_000):
            mid = m.match_id
            if mid in self.done:
                continue
            assert m.status != "aborted", (mid, m.reason)
            t = self.tables.get(mid)
            if t is None:
                t = self.tables[mid] = Table.new(m.variant, m.seed, m.settings, players=players_for(m.seats))
                assert t.state_hash() == m.start_hash
            actions = [a for a in await store.actions(mid) if a.seq >= t.seq]
            for a in actions:
                assert a.seq == t.seq
                before = t.hand_no
                t.apply(json.loads(a.action))
                if t.hand_no > before:
                    self.expected[mid][before] = (ledger_rows(t), t.state_hash())
                    assert t.state_hash() == a.state_hash, (mid, a.seq)
            if actions:
                assert t.state_hash() == actions[-1].state_hash, (mid, actions[-1].seq)
            stored = {h.number: h for h in await store.hands(mid)}
            for n, h in stored.items():
                if h.status == "finished" and n not in self.compared[mid]:
                    rows, state = self.expected[mid][n]
                    assert await store.hand_ledger(h.hand_id) == rows, (mid, n)
                    assert h.state_hash == state, (mid, n)
                    self.compared[mid].add(n)
                else:
                    assert h.status in ("finished", "active"), (mid, n, h.status)
            unsettled = set(self.expected[mid]) - self.compared[mid]
            if m.status == "finished":
                assert not unsettled and t.phase == "over" and set(stored) == self.compared[mid], mid
                assert [s.total for s in m.seats] == t.totals(), mid
                assert m.final_hash == t.state_hash(), mid
                self.done.add(mid)
                del self.tables[mid]
            elif unsettled:
                # only the hand ended by the very last recorded action may still be unsettled
                assert unsettled == {t.hand_no - 1} and t.phase in ("ended", "over"), (mid, unsettled)
                lag += 1
        report = await resume_all(store, rebuild_table)
        assert report.aborted == [], [a.reason for a in report.aborted]
        assert all(r.checked for r in report.resumed)
        return {"unfinished": len(report.resumed), "settle_lag": lag}
