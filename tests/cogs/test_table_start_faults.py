"""Starting a table when the database's answer to the match's start is lost (the COMMIT landed, the connection
dropped as its answer was on its way: a fail-over, a proxy cutting one connection), through the real discord.py
dispatch, on SQLite and on PostgreSQL. The channel never gets a second match of the same lobby: the start is found
where it landed, and a Start pressed again is the same start."""

from __future__ import annotations

import pytest

from bot.tables import State
from tests.cogs.test_tables import P1, P2, button_id, live, prep
from tests.harness import Harness
from tests.harness.db import sql
from tests.harness.faults import FlakyConnection

pytestmark = pytest.mark.both_backends


def texts(r) -> str:
    return " | ".join(m.content or "" for m in r.messages)


async def full_lobby(h: Harness) -> None:
    prep(h)
    await h.slash("table new", variant="hefei", user=P1, locale="en-US")
    for _ in range(3):
        await h.slash("table addbot", user=P1, locale="en-US")


async def lost_start(h: Harness) -> tuple[int, str]:
    """A full lobby's Start whose match lands but whose answer is lost, and the check right after it fails too: the
    host is told "not recorded" and the lobby stays. The match that landed all the same, and its seed."""
    await full_lobby(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.lose_answer("INSERT INTO matches")
    flaky.fail("FROM matches WHERE channel_id", skip=1)  # the check right after the lost answer fails too
    r = await h.slash("table start", user=P1, locale="en-US")
    assert "not recorded" in texts(r) and live(h).state is State.LOBBY
    [(landed, seed)] = active(h)  # it landed all the same
    return landed, seed


def active(h: Harness) -> list[tuple]:
    return sql(h, "SELECT id, seed FROM matches WHERE channel_id = ? AND status = 'active' ORDER BY id",
               (h.channel_id,))


async def restarted(h: Harness) -> tuple[list[int], list[tuple]]:
    """The store's faults cleared and the bot restarted: the matches its tables play, and the channel's active
    matches."""
    h.bot.store.backend.wrap = None
    h2 = await h.restart()
    try:
        return sorted(h2.bot.tables.by_id), active(h2)
    finally:
        await h2.close()


async def test_a_start_whose_answer_is_lost_starts_the_match_that_landed(harness: Harness):
    """The host's first Start is answered "not recorded" no more: the bot finds the match where it landed and plays
    it. Before, the host was told nothing was changed, pressed Start again and the channel had two active matches with
    the same players, both resumed after a restart (a hidden one sending DMs and turn timers)."""
    h = harness
    await full_lobby(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.lose_answer("INSERT INTO matches")
    r = await h.slash("table start", user=P1, locale="en-US")
    assert flaky.hits == 1
    assert "not recorded" not in texts(r) and "Started" in texts(r)
    lt = live(h)
    assert lt.state is not State.LOBBY and lt.rec is not None and lt.start_seed is None
    assert active(h) == [(lt.match_id, lt.rec.table.seed)]
    again = await h.slash("table start", user=P1, locale="en-US")
    assert "Started" not in texts(again) and len(active(h)) == 1
    assert (await restarted(h))[0] == [lt.match_id]


async def test_a_start_pressed_again_after_not_recorded_is_the_same_match(harness: Harness):
    """The answer is lost and the store cannot be read right after either: the host is told "not recorded" (the bot
    cannot know better) and the lobby stays. The match had landed; Start pressed again finds it and plays it: one
    match in the channel, not two."""
    h = harness
    landed, seed = await lost_start(h)
    r = await h.slash("table start", user=P1, locale="en-US")
    assert "Started" in texts(r)
    lt = live(h)
    assert lt.match_id == landed and active(h) == [(landed, seed)] and lt.rec.table.seed == seed
    assert len(sql(h, "SELECT id FROM matches")) == 1
    assert sql(h, "SELECT number FROM hands WHERE match_id = ?", (landed,)) == [(0,)]  # its first hand recorded


async def test_a_lobby_changed_after_a_lost_start_starts_anew_and_the_unseen_match_is_dropped(harness: Harness):
    """As above, then the lobby changes (an AI out, a player in) before Start is pressed again: the match that landed
    with the old seats was never shown nor played, so it is aborted and the new lineup's match starts: still one
    active match in the channel, with the players now seated."""
    h = harness
    ghost, _ = await lost_start(h)
    lobby = h.fake.find_message(live(h).lobby_message_id)
    await h.click(lobby, custom_id=button_id(lobby, ":rmbot"), user=P1)
    await h.slash("table join", user=P2)
    r = await h.slash("table start", user=P1, locale="en-US")
    assert "Started" in texts(r)
    lt = live(h)
    assert lt.match_id != ghost and [m for m, _ in active(h)] == [lt.match_id]
    assert sql(h, "SELECT status, reason FROM matches WHERE id = ?", (ghost,)) == [("aborted", "replaced by a new start")]
    assert {p for (p,) in sql(h, "SELECT player_id FROM match_seats WHERE match_id = ? AND player_id IS NOT NULL",
                              (lt.match_id,))} == {P1, P2}
