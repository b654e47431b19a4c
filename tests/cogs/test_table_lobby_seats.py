"""A lobby stored before migration 0015 (``bot/migrations/0015_seated_players.sql``): one of its players may also sit
at a match elsewhere (two processes could seat them twice then). The store refuses only the players a change adds:
the others in the lobby can still join, leave and add or remove AIs; the one seated twice is not thrown out."""

from __future__ import annotations

from tests.cogs.test_tables import P1, P2, P3, button_id, prep
from tests.harness import Harness

OTHER_CH = 555_000_000_000_000_555  # a channel of another server (another process's shard before the upgrade)


async def seat_p1_elsewhere_as_0015_leaves_it(h: Harness) -> None:
    """P1 plays at an active match in ``OTHER_CH`` (claimed by 0015); the lobby, stored before 0015, has no rows."""
    async with h.bot.store.transaction() as conn:
        await conn.execute("DELETE FROM seated_players WHERE channel_id = ?", (h.channel_id,))
        await conn.execute("INSERT INTO players (user_id, display_name, updated_at) VALUES (?, 'p1', 1) "
                           "ON CONFLICT (user_id) DO NOTHING", (P1,))
        await conn.execute("INSERT INTO matches (id, guild_id, channel_id, variant, settings, seed, status, started_at)"
                           " VALUES (900, 777, ?, 'hefei', '{}', '9', 'active', 1000)", (OTHER_CH,))
        await conn.execute("INSERT INTO match_seats (match_id, seat, player_id, ai) VALUES (900, 0, ?, NULL)", (P1,))
        await conn.execute("INSERT INTO seated_players (user_id, channel_id) VALUES (?, ?)", (P1, OTHER_CH))


def said(r) -> str:
    """What the bot answered the interaction with (nothing: the lobby message was edited in place)."""
    return " ".join(m.content or "" for m in r.messages)


async def test_a_player_seated_elsewhere_does_not_lock_the_lobby_for_the_others(harness: Harness):
    h = harness
    prep(h)
    lobby = (await h.slash("table new", variant="hefei", user=P1, locale="en-US")).reply
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":join"), user=P2, locale="en-US")
    lt = h.bot.tables.by_channel[h.channel_id]
    await seat_p1_elsewhere_as_0015_leaves_it(h)

    def press(op: str, user: int):
        msg = h.fake.find_message(lobby.id)
        return h.click(msg, custom_id=button_id(msg, op), user=user, locale="en-US")

    r = await press(":join", P3)  # P3 sits nowhere
    assert "already sit" not in said(r)
    assert lt.players() == [P1, P2, P3]
    r = await press(":addbot", P2)
    assert "already sit" not in said(r)
    assert sum(1 for s in lt.seats if s is not None and s.ai) == 1
    r = await press(":rmbot", P3)
    assert "already sit" not in said(r)
    assert not any(s is not None and s.ai for s in lt.seats)
    r = await press(":leave", P2)
    assert "already sit" not in said(r)
    assert lt.players() == [P1, P3]
    # P2, out of the lobby, can open a table elsewhere
    r = await h.slash("table new", variant="hefei", user=P2, locale="en-US", channel=h.channel_id + 1)
    assert "already sit" not in said(r)
    assert h.bot.tables.by_player.get(P2) == h.channel_id + 1
    # the lobby's message shows the change, and the store keeps the lobby with P1 and P3
    async with h.bot.store.transaction(write=False) as conn:
        seated = {int(u): int(c) for u, c in await conn.all("SELECT user_id, channel_id FROM seated_players")}
    assert seated[P3] == h.channel_id and seated[P1] == OTHER_CH


async def test_a_player_seated_elsewhere_is_still_refused_a_seat_in_the_lobby(harness: Harness):
    h = harness
    prep(h)
    lobby = (await h.slash("table new", variant="hefei", user=P2, locale="en-US")).reply
    await seat_p1_elsewhere_as_0015_leaves_it(h)
    msg = h.fake.find_message(lobby.id)
    r = await h.click(msg, custom_id=button_id(msg, ":join"), user=P1, locale="en-US")
    assert said(r) == f"You already sit at a table (in <#{OTHER_CH}>). Leave it first."
    assert h.bot.tables.by_channel[h.channel_id].players() == [P2]
