"""Strong AI seats at a real table (through the harness): added with /table addbot, deciding in the AI pool's worker
processes (or inline, for tests), and the match in the store replays to the same decisions."""

from __future__ import annotations

import json

import pytest

from bot.store.tables import players_for
from engine.ai import choose
from engine.table import Action, Table
from tests.cogs.test_tables import P1, button_id, live, play_until_hand_ends, prep
from tests.harness import Harness


async def _strong_table(h: Harness, variant: str) -> int:
    r = await h.slash("table new", variant=variant, user=P1)
    lobby = r.reply
    for _ in range(3):
        r2 = await h.slash("table addbot", user=P1, difficulty="strong")
        assert not r2.reply.ephemeral or "AI" in r2.reply.text or r2.reply.text
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=P1)
    return lobby.id


async def _check_replay(h: Harness, lt) -> int:
    """Every AI action stored for the hand is what the strong AI decides from that seat's view (the decision is a
    pure function of the view: a replay reproduces it). Returns how many AI decisions were checked."""
    m = await h.bot.store.match(lt.match_id)
    acts = [json.loads(a.action) for a in await h.bot.store.actions(lt.match_id)]
    t = Table.new(m.variant, m.seed, m.settings, players_for(m.seats))
    checked = 0
    for a in acts:
        act = Action.from_json(a)
        if t.hand.phase in ("play", "claim", "rob") and act.seat != 0 and act.type != "timeout":
            la = t.legal_actions(act.seat)
            if len(la) > 1:
                assert choose(t.view(act.seat), act.seat, la, "strong") == act
                checked += 1
        t.apply(act)
    return checked


@pytest.mark.parametrize("inline", [False, True])
async def test_strong_bots_play_a_hand_in_the_pool(harness: Harness, inline: bool):
    h = harness
    prep(h)
    pool = h.bot.tables.ai
    pool.inline = inline
    await _strong_table(h, "hefei")
    lt = live(h)
    assert [s.ai for s in lt.seats if s is not None and s.ai] == ["strong"] * 3
    await play_until_hand_ends(h, [P1], lt)
    assert lt.table.hand.phase in ("ended", "over")
    assert await _check_replay(h, lt) > 5
    # an AI seat's decision is asked while the action before it is written, and it is the strong AI's own decision
    # from the table as that action left it (the replay above)
    assert h.bot.tables.asked_ahead > 3
    if inline:
        assert pool.pooled == 0
    else:
        assert pool.pooled > 5  # the decisions were made in the worker processes
    await h.bot.tables.close()
    assert pool._pool is None  # the workers are shut down with the manager
