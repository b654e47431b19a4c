"""At a hand's end the player's hand message shows the hand they ended it with (found by an independent review).

After the player's last decision the AI seats play the hand out within the same batch: the hand message was edited
to "This hand is over" (or to say that the AI plays the seat) but kept the picture of that decision: 14 tiles, the
tile just discarded still set apart as the drawn tile, every tile numbered as if it could be discarded, and when the
player dealt in, the winning tile still in their hand; a player who won on a discard or by robbing a kong saw the 13
tiles they decided on, without the tile they won with, which a self-drawn winner's picture sets apart. The edit that
removes the controls and rewrites the text now carries the picture of the hand as it ended, whether it is the click's
own answer or the publisher's edit: no request is added. Real pictures here (``images=True``): the picture a DM shows is matched to the scene the bot drew."""

from __future__ import annotations

import pytest

import render
from bot.tables.state import LiveTable
from engine.ai import choose
from engine.table.actions import parse_tile
from engine.tiles import MeldKind, tile_name
from render.scene import HandScene
from tests.cogs.test_tables import P1, P2, button_id, controls, latest_dm_controls, live, open_table, prep
from tests.harness import Harness
from tests.harness.simclock import SimClock

PLAYING = ("play", "claim", "rob")
HAND_OVER = "This hand is over: its result is on the table's message."
OPS = {"discard": "d", "win": "w", "pung": "p", "kong": "k", "chi": "c", "pass": "x"}


def ai_click(lt: LiveTable, seat: int, msg) -> str:
    """The button of ``msg`` that the normal AI would press for the seat (a player who claims and wins)."""
    tb = lt.table
    a = choose(tb, seat, tb.legal_actions(seat), "normal")
    op = OPS.get(a.type, "x")
    for c in controls(msg):
        parts = c["custom_id"].split(":")
        if parts[4] == op and (op in ("w", "x") or a.tile is None or parts[5] == tile_name(a.tile)):
            return c["custom_id"]
    raise AssertionError(f"no button for {a}")


def picture_of(h: Harness, user: int) -> bytes:
    """The hand picture the user's DMs show last (a decision on an unchanged hand is posted without one: the
    picture just above it is the hand)."""
    return next(m.images[-1] for m in reversed(h.dms(user)) if m.images)


def scene_of(h: Harness, user: int, png: bytes, lang: str = "en") -> HandScene:
    """The hand scene the bot drew for ``user`` whose picture is ``png`` (the newest such)."""
    for u, scene, _ in reversed(h.seen.private_images()):
        if u == user and render.render_hand(scene, "dark", lang) == png:
            return scene
    raise AssertionError("the DM shows a picture the bot never drew for this player")


def assert_shows_the_final_hand(lt: LiveTable, seat: int, scene: HandScene) -> None:
    """``scene`` is the seat's hand as the hand ended: its tiles, its melds, nothing numbered, no tile set apart but the
    winning tile of a winner (self-drawn, on a discard or by robbing a kong: the hand it won with, as the score card
    shows it)."""
    view = lt.table.view(seat)
    wins = [w for w in view["last_result"]["winners"] if w["seat"] == seat]
    won = parse_tile(wins[0]["tile"]) if wins else None
    held = sorted(scene.concealed + ((scene.drawn,) if scene.drawn is not None else ()))
    # (the engine's view of a winner on another's tile holds the 13 others)
    holds = view["hand"] if not wins or wins[0]["self_drawn"] else sorted([*view["hand"], won])
    assert held == holds, f"the DM shows {len(held)} concealed tiles, the player holds {len(holds)}"
    assert scene.drawn == won, "the winning tile is not set apart, or another tile is as if just drawn"
    assert not scene.labels, "the tiles are numbered as if they could still be discarded"
    assert [(m.kind, m.tile) for m in scene.melds] == [(MeldKind(m["kind"]), m["tile"]) for m in view["melds"][seat]]


@pytest.mark.parametrize(("variant", "seed", "how"), [
    ("wuhu", 10, "dealt in"),  # two pungs; an AI wins on the player's discard
    ("hefei", 6, "dealt in"),
    ("chizhou", 2, "wall"),  # the wall runs out after the player's discard (a kong and two pungs)
    ("wuhu", 11, "self-drawn"),  # the player wins on their own draw: the winning tile stays apart
    ("wuhu", 16, "on a discard"),  # the player wins on a discard: the winning tile is set apart, as self-drawn
    ("hefei", 1, "on a discard"),
    ("chizhou", 15, "robbing a kong"),  # the player wins on the tile an AI adds to its pung: set apart too
])
async def test_the_click_that_ends_the_hand_shows_the_hand_the_player_ended_with(harness: Harness, variant, seed, how):
    h = harness
    prep(h, seed=seed, images=True)
    h.bot.tables.timers.next_hand = 3600.0
    await open_table(h, variant, humans=(P1,), locale="en-US")
    lt = live(h)
    seat = lt.seat_of(P1)
    while lt.table.phase in PLAYING:
        msg = latest_dm_controls(h, P1)
        before, decided_on = len(h.fake.requests), picture_of(h, P1)
        r = await h.click(msg, custom_id=ai_click(lt, seat, msg))
    await h.bot.tables.wait_idle()
    [w] = lt.table.last_result["winners"] or [None]
    assert how == ("wall" if w is None else "self-drawn" if w["seat"] == seat and w["self_drawn"] else
                   "robbing a kong" if w["seat"] == seat and w["rob_kong"] else
                   "on a discard" if w["seat"] == seat else "dealt in" if w["from"] == seat else "")
    # the click's own answer (type 7: exempt from the global budget) is the only write to the player's DMs
    assert r.callback_type == 7
    sent = h.fake.requests[before:]
    assert not [q for q in sent if q.path.startswith(f"/channels/{msg.channel_id}/")]
    [answer] = [q for q in sent if q.path.endswith("/callback")]
    shown = h.fake.find_message(msg.id)
    assert shown.content.splitlines()[-1] == HAND_OVER and not controls(shown)
    png = picture_of(h, P1)
    assert_shows_the_final_hand(lt, seat, scene_of(h, P1, png))
    # the picture changed (a winner on another's tile: the winning tile joins the 13 it decided on) and goes with
    # the answer
    assert png != decided_on
    assert [a.data for a in answer.files] == [png]
    if w is not None and w["seat"] == seat:
        # between hands My hand (on the table message) shows the same hand: the ephemeral panel's picture
        table_msg = h.fake.find_message(lt.message_id)
        panel = await h.click(table_msg, custom_id=button_id(table_msg, ":hand"), user=P1, locale="en-US")
        [mine] = panel.reply.images
        assert_shows_the_final_hand(lt, seat, scene_of(h, P1, mine))
        assert mine == png


def sim_time(h: Harness) -> SimClock:
    clock = SimClock()
    mgr = h.bot.tables
    mgr.clock, mgr.sleep = clock.time, clock.sleep
    return clock


@pytest.mark.parametrize("how", ["timed out", "autoplay"])
async def test_a_hand_the_ai_plays_out_for_the_player_ends_with_their_hand_in_the_dm(harness: Harness, how):
    """No click of the player ends the hand: they time out twice, or hand their seat to the AI (托管 on the table
    message) on their turn. The AI plays their seat and the AI seats play the hand out; the publisher's one edit of
    the hand message (its controls go, it says why the AI plays the seat) shows the hand as it ended."""
    h = harness
    prep(h, seed=1, images=True)
    clock = sim_time(h)
    mgr = h.bot.tables
    mgr.timers.turn, mgr.timers.claim, mgr.timers.next_hand = 10.0, 3600.0, 3600.0
    await open_table(h, "hefei", humans=(P1,), locale="en-US")
    lt = live(h)
    seat = lt.seat_of(P1)
    await h.settle()
    assert lt.table.awaited() == [seat] and lt.table.phase == "play"
    dm = latest_dm_controls(h, P1)
    while lt.table.phase in PLAYING:
        dm = h.dms(P1)[-1]
        before = len(h.fake.requests)
        if how == "autoplay":
            table_msg = h.fake.find_message(lt.message_id)
            await h.click(table_msg, custom_id=button_id(table_msg, ":auto"), user=P1, locale="en-US")
        else:
            await clock.advance(10.0, h.settle)
        await mgr.wait_idle()
    assert lt.seats[seat].afk
    # one write to the player's DMs for the hand's end, as before: the edit of its latest hand message
    [edit] = [q for q in h.fake.requests[before:] if q.path.startswith(f"/channels/{dm.channel_id}/")]
    assert edit.method == "PATCH" and edit.path.endswith(f"/messages/{dm.id}")
    shown = h.fake.find_message(dm.id)
    why = "you timed out twice" if how == "timed out" else "you chose auto-play"
    assert why in shown.content.splitlines()[-1] and not controls(shown)
    [png] = shown.images
    assert [a.data for a in edit.files] == [png]
    assert_shows_the_final_hand(lt, seat, scene_of(h, P1, png))


async def test_when_the_clicks_answer_fails_the_hands_end_is_still_drawn_in_the_dm(harness: Harness):
    """Every answer to the player's clicks fails (404 Unknown interaction: too late): the hand's end is written by
    the publisher instead, in one edit, with the picture of the hand as it ended."""
    h = harness
    prep(h, seed=6, images=True)
    h.bot.tables.timers.next_hand = 3600.0
    await open_table(h, "hefei", humans=(P1,), locale="en-US")
    lt = live(h)
    seat = lt.seat_of(P1)
    h.fake.fail(r"^/interactions/\d+/[^/]+/callback$", status=404, code=10062, times=10**6,
                message="Unknown interaction")
    while lt.table.phase in PLAYING:
        msg = latest_dm_controls(h, P1)
        before = len(h.fake.requests)
        await h.click(msg, custom_id=ai_click(lt, seat, msg))
        await h.bot.tables.wait_idle()
    [edit] = [q for q in h.fake.requests[before:] if q.path.startswith(f"/channels/{msg.channel_id}/")]
    assert edit.method == "PATCH" and edit.path.endswith(f"/messages/{msg.id}")
    shown = h.fake.find_message(msg.id)
    assert shown.content.splitlines()[-1] == HAND_OVER and not controls(shown)
    [png] = shown.images
    assert [a.data for a in edit.files] == [png]
    assert_shows_the_final_hand(lt, seat, scene_of(h, P1, png))


@pytest.mark.parametrize("seed", [1, 2, 3])
async def test_a_player_waiting_for_the_others_gets_no_edit_at_the_hands_end_and_shows_their_hand(harness: Harness,
                                                                                                   seed):
    """Two players and two AI seats: whoever did not end the hand was waiting for the others; their hand message is
    not edited at the hand's end (no request per player at every hand's end), and its picture is already the hand
    they ended with."""
    h = harness
    prep(h, seed=seed, images=True)
    h.bot.tables.timers.next_hand = 3600.0
    await open_table(h, "hefei", humans=(P1, P2), locale="en-US")
    lt = live(h)
    last = None
    while lt.table.phase in PLAYING:
        last = next(u for u in (P1, P2) if lt.seat_of(u) in lt.table.awaited())
        msg = latest_dm_controls(h, last)
        before = len(h.fake.requests)
        await h.click(msg, custom_id=ai_click(lt, lt.seat_of(last), msg), user=last)
        await h.bot.tables.wait_idle()
    other = P2 if last == P1 else P1
    dm = h.dms(other)[-1]
    assert not controls(dm) and not [q for q in h.fake.requests[before:] if q.path.startswith(f"/channels/{dm.channel_id}/")]
    assert_shows_the_final_hand(lt, lt.seat_of(other), scene_of(h, other, picture_of(h, other)))


async def two_friends_until_p1_decides(h: Harness):
    """A Hefei table of P1 and P2 (and two AIs), the next hand held back; P2 plays as the normal AI would until the
    hand waits on P1 alone. The table and P1's seat."""
    h.bot.tables.timers.next_hand = 3600.0
    await open_table(h, "hefei", humans=(P1, P2), locale="en-US")
    lt = live(h)
    seat = lt.seat_of(P1)
    while not (lt.table.phase == "play" and lt.table.awaited() == [seat]):
        msg = latest_dm_controls(h, P2)
        await h.click(msg, custom_id=ai_click(lt, lt.seat_of(P2), msg), user=P2)
        await h.bot.tables.wait_idle()
    return lt, seat


@pytest.mark.parametrize("seed", [1, 2])
async def test_a_seat_handed_to_the_ai_in_the_middle_of_a_hand_shows_the_hand_the_ai_takes_over(harness: Harness,
                                                                                                seed):
    """Two players: P1 hands their seat to the AI (托管 on the table message) on their turn, and P2 plays on. The one
    edit of P1's hand message (its controls go, it says the AI plays the seat) showed the picture of P1's decision:
    14 tiles, the drawn tile apart, numbered. It shows P1's hand as the AI took it over (the AI has discarded for
    them), nothing numbered; at the hand's end P1's hand message is not edited again (as before)."""
    h = harness
    prep(h, seed=seed, images=True)
    lt, seat = await two_friends_until_p1_decides(h)
    dm = latest_dm_controls(h, P1)
    before = len(h.fake.requests)
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":auto"), user=P1, locale="en-US")
    await h.bot.tables.wait_idle()
    assert lt.seats[seat].afk and lt.table.phase in PLAYING, "the hand goes on with P2"
    [edit] = [q for q in h.fake.requests[before:] if q.path.startswith(f"/channels/{dm.channel_id}/")]
    assert edit.method == "PATCH" and edit.path.endswith(f"/messages/{dm.id}")
    shown = h.fake.find_message(dm.id)
    assert "you chose auto-play" in shown.content.splitlines()[-1] and not controls(shown)
    [png] = shown.images
    assert [a.data for a in edit.files] == [png]
    scene = scene_of(h, P1, png)
    assert sorted(scene.concealed) == lt.table.view(seat)["hand"] and scene.drawn is None and not scene.labels
    before = len(h.fake.requests)
    while lt.table.phase in PLAYING:
        msg = latest_dm_controls(h, P2)
        await h.click(msg, custom_id=ai_click(lt, lt.seat_of(P2), msg), user=P2)
        await h.bot.tables.wait_idle()
    assert not [q for q in h.fake.requests[before:] if q.path.startswith(f"/channels/{dm.channel_id}/")]


@pytest.mark.parametrize("how", ["timed out", "autoplay"])
async def test_im_back_between_hands_says_so_in_the_dm_at_once(harness: Harness, how):
    """The AI played the player's seat to the hand's end (two time-outs, or 托管); between hands the player presses
    I'm back on the table message. Their hand message kept saying "The AI plays your seat now ... press I'm back"
    until the next hand's deal; it now says at once, in one edit, that the seat is theirs again and that the controls
    come with the next hand's deal. (The click is on the table message: its own answer cannot edit the DM.)"""
    h = harness
    prep(h, seed=1)
    clock = sim_time(h)
    mgr = h.bot.tables
    mgr.timers.turn, mgr.timers.claim, mgr.timers.next_hand = 10.0, 3600.0, 3600.0
    await open_table(h, "hefei", humans=(P1,), locale="en-US")
    lt = live(h)
    await h.settle()
    while lt.table.phase in PLAYING:
        if how == "autoplay":
            table_msg = h.fake.find_message(lt.message_id)
            await h.click(table_msg, custom_id=button_id(table_msg, ":auto"), user=P1, locale="en-US")
        else:
            await clock.advance(10.0, h.settle)
        await mgr.wait_idle()
    dm = h.dms(P1)[-1]
    assert "The AI plays your seat now" in h.fake.find_message(dm.id).content
    before = len(h.fake.requests)
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":back"), user=P1, locale="en-US")
    await mgr.wait_idle()
    assert not lt.seats[lt.seat_of(P1)].afk and lt.table.phase == "ended"
    [edit] = [q for q in h.fake.requests[before:] if q.path.startswith(f"/channels/{dm.channel_id}/")]
    assert edit.method == "PATCH" and edit.path.endswith(f"/messages/{dm.id}")
    shown = h.fake.find_message(dm.id)
    assert h.dms(P1)[-1].id == dm.id and not controls(shown)
    assert shown.content.splitlines()[-1] == "Your seat is yours again: your controls come with the next hand's deal."
    # and the next hand's deal brings the player their hand message again
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1, locale="en-US")
    await mgr.wait_idle()
    assert lt.table.phase in PLAYING and h.dms(P1)[-1].id != dm.id


async def test_im_back_between_hands_shows_the_hand_the_ai_ended_it_with(harness: Harness):
    """P1 hands their seat to the AI (托管) on their turn; P2 plays the hand out and the AI plays P1's seat (it claims
    a meld for them). Between hands P1 presses I'm back: the one edit of P1's hand message that says the seat is
    theirs again shows the hand as it ended (the AI's meld in it), not the hand as the AI took it over."""
    h = harness
    prep(h, seed=1, images=True)
    lt, seat = await two_friends_until_p1_decides(h)
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":auto"), user=P1, locale="en-US")
    await h.bot.tables.wait_idle()
    melds = len(lt.table.melds[seat])
    while lt.table.phase in PLAYING:  # P2 plays the hand out; the AI plays P1's seat
        msg = latest_dm_controls(h, P2)
        await h.click(msg, custom_id=ai_click(lt, lt.seat_of(P2), msg), user=P2)
        await h.bot.tables.wait_idle()
    assert len(lt.table.melds[seat]) > melds, "the AI claimed a meld for P1 (what makes the pictures differ)"
    dm = h.dms(P1)[-1]
    before = len(h.fake.requests)
    table_msg = h.fake.find_message(lt.message_id)
    await h.click(table_msg, custom_id=button_id(table_msg, ":back"), user=P1, locale="en-US")
    await h.bot.tables.wait_idle()
    [edit] = [q for q in h.fake.requests[before:] if q.path.startswith(f"/channels/{dm.channel_id}/")]
    assert edit.method == "PATCH" and edit.path.endswith(f"/messages/{dm.id}")
    shown = h.fake.find_message(dm.id)
    assert shown.content.splitlines()[-1].startswith("Your seat is yours again") and not controls(shown)
    [png] = shown.images
    assert [a.data for a in edit.files] == [png]
    assert_shows_the_final_hand(lt, seat, scene_of(h, P1, png))
