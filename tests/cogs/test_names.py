"""A display name that an image cannot show (invisible characters, spaces, a script the fonts lack) sits at the
table under the member's username, so four such players are not four blank or "???" seats.

Names are escaped: the font tool reads the tests' sources.
"""

from __future__ import annotations

from render.scene import TableScene
from tests.cogs.test_tables import P1, P2, P3, P4, live, open_table, prep
from tests.harness import Harness
from tests.harness.fake import user_payload

SHOWN = {  # user: (global display name, username)
    P1: ("\u3164\u3164", "host.one"),  # the Hangul filler: a blank name in Discord's member list
    P2: ("\u200b", "zw_two"),  # a zero-width space
    P3: ("\u0e2a\u0e21\u0e0a\u0e32\u0e22", "somchai"),  # Thai: the image fonts lack it
    P4: ("\u738b\u946b", "wangxin"),  # drawable: kept
}


async def test_seats_whose_display_name_draws_nothing_take_the_username(harness: Harness):
    h = harness
    prep(h)
    for user, (shown, username) in SHOWN.items():
        h.fake.users[user] = {**user_payload(user, username), "global_name": shown}
    await open_table(h, "hefei", humans=(P1, P2, P3, P4))  # P1 opens the lobby, the others join it
    lt = live(h)
    assert {u: lt.seats[lt.seat_of(u)].name for u in SHOWN} == {
        P1: "host.one", P2: "zw_two", P3: "somchai", P4: "\u738b\u946b"}
    tables = [sc for k, sc, _ in h.seen.public_images() if k == "table"]
    assert tables and isinstance(tables[-1], TableScene)
    assert sorted(s.name for s in tables[-1].seats) == sorted(["host.one", "zw_two", "somchai", "\u738b\u946b"])
    await h.slash("table dissolve", user=P1)


def test_a_stored_name_that_draws_nothing_is_the_boards_stand_in_on_images(monkeypatch):
    """Names stored before (or by /record for a member who left) go through the same check on the leaderboard image
    and the replays: the stand-in "Player …1234" instead of a blank row."""
    from types import SimpleNamespace

    import render.common
    from bot.store import BoardRow
    from cogs.leaderboard import _board_png, display
    from cogs.memory import names_of

    drawn: list[str] = []
    mask = render.common.text_mask
    monkeypatch.setattr(render.common, "text_mask", lambda text, *a, **k: drawn.append(text) or mask(text, *a, **k))
    rows = [(i + 1, BoardRow(pid, name, 10, 3, 1, 1, 0, 5, 20 - 10 * i))
            for i, (pid, name) in enumerate([(11111234, "\u3164"), (22225678, "Bob"), (33339012, "\u200b ")])]
    _board_png("t", "s", rows, None, "en")
    assert {display(None, 11111234, "en"), "Bob", display(None, 33339012, "en")} <= set(drawn)
    assert display(None, 11111234, "en") == "Player …1234"
    seats = [SimpleNamespace(player_id=1111, display_name="\u3164"), SimpleNamespace(player_id=2222, display_name="Al"),
             SimpleNamespace(player_id=None, display_name="AI 3"), SimpleNamespace(player_id=None, display_name=None)]
    assert names_of(SimpleNamespace(seats=seats), "en") == [display(None, 1111, "en"), "Al", "AI 3", "AI 1"]
