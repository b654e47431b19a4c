"""Table management (issue 15) through the real discord.py dispatch: 托管, replace / restore, kick, dissolve by vote.

What a player would notice is asserted: the answers they get, who plays a seat, the buttons on the vote message,
the match's status and its ledger, the stored metadata a restart reads, and the audit rows.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from bot.i18n import t
from bot.tables.state import LiveTable
from tests.cogs.test_table_faults import OTHER_GUILD
from tests.cogs.test_tables import (
    P1,
    P2,
    P3,
    P4,
    button_id,
    choose_click,
    latest_dm_controls,
    live,
    open_table,
    prep,
    replay_from_store,
)
from tests.harness import ADMIN_PERMISSIONS, Harness
from tests.harness.faults import FlakyConnection
from tests.harness.simclock import SimClock

pytestmark = pytest.mark.both_backends

STRANGER = 7099
OUTSIDER_BOT = 7098


def said(r) -> str:
    """Everything the bot answered to one interaction (the response and its followups)."""
    return "\n".join(m.content or "" for m in r.messages)


async def audit(h: Harness) -> list[tuple[int, str, dict]]:
    rows = await h.bot.store.settings_audit(h.guild_id)
    return [(a.user_id, a.field, json.loads(a.new_value) if isinstance(a.new_value, str) else a.new_value)
            for a in rows if a.field.startswith("table.")]


async def stored_away(h: Harness, match_id: int) -> list:
    meta, _ = await h.bot.store.match_meta(match_id)
    return [s.get("away") for s in meta["seats"]]


# ------------------------------------------------------------------------------------------------ 托管


async def hand_to_ai(h: Harness):
    """A Hefei table of P1 and three AI seats; P1 hands the seat to the AI (托管) with the table's button at the
    first turn: (the live table, P1's seat, the button's response)."""
    prep(h)
    await open_table(h, "hefei", humans=(P1,))
    lt = live(h)
    table_msg = h.fake.find_message(lt.message_id)
    r = await h.click(table_msg, custom_id=button_id(table_msg, ":auto"), user=P1, locale="en-US")
    return lt, lt.seat_of(P1), r


async def test_autoplay_by_button_and_back_by_command(harness: Harness):
    h = harness
    lt, seat, r = await hand_to_ai(h)
    assert "AI plays your seat" in said(r)
    assert lt.seats[seat].afk and lt.seats[seat].away == "autoplay"
    # the AI played the human's seat on: with every seat automatic the hand ran to its end without a click
    assert lt.table.phase in ("ended", "over")
    assert any("托管" in m.content for m in h.channel())
    assert (await stored_away(h, lt.match_id))[seat] == "autoplay"
    # asking twice is refused and changes nothing
    r = await h.slash("table autoplay", on="on", user=P1, locale="zh-TW")
    assert said(r) == t("tables.already_auto", "zh-TW") and lt.seats[seat].away == "autoplay"
    r = await h.slash("table autoplay", on="off", user=P1, locale="en-US")
    assert "yours again" in said(r) and not lt.seats[seat].afk
    assert (await stored_away(h, lt.match_id))[seat] is None
    assert [(u, f) for u, f, _ in await audit(h)] == [(P1, "table.back"), (P1, "table.autoplay")]  # newest first
    # taking it back twice: told, nothing changes
    r = await h.slash("table autoplay", on="off", user=P1, locale="en-US")
    assert "not away" in said(r)
    assert (await replay_from_store(h, lt.match_id)).state_hash() == lt.table.state_hash()


async def test_autoplay_survives_a_restart(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    await h.slash("table autoplay", on="on", user=P2)
    assert lt.seats[lt.seat_of(P2)].afk
    h2 = await h.restart()
    try:
        prep(h2)
        lt2 = h2.bot.tables.by_channel[h2.channel_id]
        s = lt2.seats[lt2.seat_of(P2)]
        assert s.afk and s.away == "autoplay" and not lt2.seats[lt2.seat_of(P1)].afk
        r = await h2.slash("table autoplay", on="off", user=P2, locale="en-US")
        assert "yours again" in said(r) and not s.afk
    finally:
        await h2.close()


# ------------------------------------------------------------------------------------------------ replace / restore


async def test_host_replaces_an_absent_player_and_hands_the_seat_back(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "wuhu", humans=(P1, P2))
    lt = live(h)
    s2 = lt.seats[lt.seat_of(P2)]
    # not the host, not a manager: refused in code, nothing changes
    r = await h.slash("table replace", member=P1, user=P2, locale="en-US")
    assert "host" in said(r).lower() and not lt.seats[lt.seat_of(P1)].afk
    # bad targets: someone not seated, a bot, a seat not replaced
    r = await h.slash("table replace", member=STRANGER, user=P1, locale="en-US")
    assert "does not sit at this table" in said(r)
    h.fake.add_user(OUTSIDER_BOT)["bot"] = True
    r = await h.slash("table replace", member=OUTSIDER_BOT, user=P1, locale="zh-CN")
    assert "机器人" in said(r)
    r = await h.slash("table restore", member=P2, user=P1, locale="en-US")
    assert "was not handed to the AI" in said(r)
    assert not s2.afk and await audit(h) == []
    # the host replaces P2: the AI plays the seat
    r = await h.slash("table replace", member=P2, user=P1, locale="en-US")
    assert "AI now plays for" in said(r) and s2.afk and s2.away == "replaced"
    assert (await stored_away(h, lt.match_id))[lt.seat_of(P2)] == "replaced"
    r = await h.slash("table replace", member=P2, user=P1, locale="en-US")
    assert "already plays" in said(r)
    # P2 never clicks; P1 plays the hand to its end: P2's seat is never waited for
    for _ in range(400):
        if lt.table.phase not in ("play", "claim", "rob"):
            break
        m = latest_dm_controls(h, P1)
        assert m is not None, "only P1 is ever waited for"
        await h.click(m, custom_id=choose_click(m))
    # the ledger: the seat is still P2's (a match's seats are fixed), whatever the AI won or lost for them
    match = await h.bot.store.match(lt.match_id)
    assert [s.player_id for s in sorted(match.seats, key=lambda s: s.seat)][lt.seat_of(P2)] == P2
    # a server manager (not the host) hands the seat back
    r = await h.slash("table restore", member=P2, user=P3, permissions=ADMIN_PERMISSIONS, locale="en-US")
    assert "seat back" in said(r) and not s2.afk
    assert (await stored_away(h, lt.match_id))[lt.seat_of(P2)] is None
    rows = await audit(h)
    assert [(u, f) for u, f, _ in rows] == [(P3, "table.restore"), (P1, "table.replace")]
    assert rows[1][2] == {"match": lt.match_id, "seat": lt.seat_of(P2), "member": P2}


async def test_a_replaced_player_comes_back_by_im_back_and_a_restart_keeps_the_replacement(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    await h.slash("table replace", member=P2, user=P1)
    assert lt.seats[lt.seat_of(P2)].away == "replaced"
    h2 = await h.restart()
    try:
        prep(h2)
        lt2 = h2.bot.tables.by_channel[h2.channel_id]
        s2 = lt2.seats[lt2.seat_of(P2)]
        assert s2.afk and s2.away == "replaced"
        table_msg = h2.fake.find_message(lt2.message_id)
        await h2.click(table_msg, custom_id=button_id(table_msg, ":back"), user=P2)
        assert not s2.afk and (await stored_away(h2, lt2.match_id))[lt2.seat_of(P2)] is None
    finally:
        await h2.close()


async def test_replace_racing_the_players_own_click_is_serialised(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    # P2 hands the seat to the AI and the host replaces them at the same moment: the lock orders them; the
    # second one finds the seat already away (the replace turns a 托管 seat into a replaced one, never twice)
    a = h.slash_payload("table autoplay", on="on", user=P2, locale="en-US")
    b = h.slash_payload("table replace", member=P2, user=P1, locale="en-US")
    h.bot._connection.parse_interaction_create(a[0])
    h.bot._connection.parse_interaction_create(b[0])
    await h.settle()
    s2 = lt.seats[lt.seat_of(P2)]
    assert s2.afk
    stored = (await stored_away(h, lt.match_id))[lt.seat_of(P2)]
    assert stored == s2.away  # memory and store agree whichever came first
    fields = sorted(f for _, f, _ in await audit(h))
    assert fields in (["table.autoplay", "table.replace"], ["table.replace"])
    assert (await replay_from_store(h, lt.match_id)).state_hash() == lt.table.state_hash()


async def test_a_locked_database_refuses_the_replacement_and_changes_nothing(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("INSERT INTO settings_audit", times=1)
    r = await h.slash("table replace", member=P2, user=P1, locale="en-US")
    assert "not recorded" in said(r) and flaky.hits == 1
    s2 = lt.seats[lt.seat_of(P2)]
    assert not s2.afk and s2.away is None
    assert (await stored_away(h, lt.match_id))[lt.seat_of(P2)] is None and await audit(h) == []
    # 托管 too
    flaky.fail("INSERT INTO settings_audit", times=1)
    r = await h.slash("table autoplay", on="on", user=P2, locale="en-US")
    assert "not recorded" in said(r) and not s2.afk
    r = await h.slash("table replace", member=P2, user=P1, locale="en-US")  # the store answers again
    assert "AI now plays" in said(r) and s2.afk


# ------------------------------------------------------------------------------------------------ kick


async def test_host_kicks_a_player_from_the_lobby(harness: Harness):
    h = harness
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1)
    lobby = r.reply
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":join"), user=P2)
    lt = live(h)
    r = await h.slash("table kick", member=P1, user=P2, locale="en-US")
    assert "host" in said(r).lower() and lt.seat_of(P1) is not None
    r = await h.slash("table kick", member=P1, user=P1, locale="en-US")
    assert "use Leave" in said(r)
    r = await h.slash("table kick", member=P3, user=P1, locale="en-US")
    assert "does not sit" in said(r)
    r = await h.slash("table kick", member=P2, user=P1, locale="en-US")
    assert "removed from the lobby" in said(r)
    assert lt.seat_of(P2) is None and P2 not in h.bot.tables.by_player
    # the lobby message shows the seat empty
    assert f"<@{P2}>" not in json.dumps(h.fake.find_message(lobby.id).payload())
    assert [(u, f) for u, f, _ in await audit(h)] == [(P1, "table.kick")]
    # P2 is free to sit elsewhere or again
    await h.slash("table join", user=P2)
    assert lt.seat_of(P2) is not None
    # once the match started, kick is refused (replace is the tool then)
    for _ in range(2):
        await h.slash("table addbot", user=P1)
    await h.click(h.fake.find_message(lobby.id), custom_id=button_id(lobby, ":start"), user=P1)
    r = await h.slash("table kick", member=P2, user=P1, locale="en-US")
    assert "started" in said(r) and lt.seat_of(P2) is not None


async def test_a_manager_kicking_the_last_player_closes_the_lobby(harness: Harness):
    h = harness
    prep(h)
    r = await h.slash("table new", variant="hefei", user=P1)
    lt = live(h)
    r = await h.slash("table kick", member=P1, user=P3, permissions=ADMIN_PERMISSIONS, locale="en-US")
    assert "removed from the lobby" in said(r)
    await h.bot.tables.wait_idle()
    assert lt.closed and h.channel_id not in h.bot.tables.by_channel and P1 not in h.bot.tables.by_player
    lobby = h.fake.find_message(lt.lobby_message_id)
    assert not lobby.buttons() and "关闭" in lobby.content


# ------------------------------------------------------------------------------------------------ dissolve


def vote_message(h: Harness):
    return next(m for m in reversed(h.channel()) if any(c["custom_id"].startswith("mjv:") for c in m.buttons()))


def vote_message_id(h: Harness) -> int:
    """The latest vote message, with or without its buttons."""
    return next(m.id for m in reversed(h.channel()) if "解散" in (m.content or "") and "提议" in (m.content or ""))


async def test_dissolve_by_majority_keeps_the_settled_hands(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2, P3))
    lt = live(h)
    match_id = lt.match_id
    # settle one hand first (everyone 托管 for a moment would be simpler, but players finish it by clicking)
    for u in (P1, P2, P3):
        await h.slash("table autoplay", on="on", user=u)
    assert lt.table.phase in ("ended", "over")
    for u in (P1, P2, P3):
        await h.slash("table autoplay", on="off", user=u)
    settled = [x for x in await h.bot.store.hands(match_id) if x.status == "finished"]
    ledger_before = {x.hand_id: [(r.seat, r.amount) for r in await h.bot.store.hand_ledger(x.hand_id)]
                     for x in settled}
    assert settled
    table_msg = h.fake.find_message(lt.message_id)
    r = await h.click(table_msg, custom_id=button_id(table_msg, ":dissolve"), user=P1, locale="en-US")
    vm = vote_message(h)
    assert not r.reply.ephemeral and "3 位玩家" in vm.content  # the table's language
    # a second proposal while one is open
    r = await h.slash("table dissolve", user=P2, locale="en-US")
    assert "already open" in said(r)
    yes = next(c["custom_id"] for c in vm.buttons() if c["custom_id"].endswith(":y"))
    # a stranger's vote, the proposer voting again, a forged vote from another guild: refused, nothing counted
    r = await h.click(vm, custom_id=yes, user=STRANGER, locale="en-US")
    assert "do not sit" in said(r)
    r = await h.click(vm, custom_id=yes, user=P1, locale="en-US")
    assert "already voted" in said(r)
    other = h.add_channel(guild_id=OTHER_GUILD)
    h.fake.channels[other].messages.append(vm.__class__(id=vm.id + 1, channel_id=other, guild_id=None,
                                                        author=vm.author, components=vm.components))
    r = await h.click(h.fake.channels[other].messages[-1], custom_id=yes, user=P2, locale="en-US")
    assert "somewhere else" in said(r)
    assert lt.vote is not None and lt.vote.yes == {P1} and not lt.closed
    late = h.click_payload(vm, custom_id=yes, user=P3, locale="en-US")  # P3's click, on its way
    # P2 agrees: 2 of 3 is a majority; the match ends (the click's answer says so on the vote message)
    r = await h.click(vm, custom_id=yes, user=P2, locale="en-US")
    assert r.callback_type == 7 and "解散投票通过" in h.fake.find_message(vm.id).content
    await h.bot.tables.wait_idle()
    assert lt.closed and (await h.bot.store.match(match_id)).status == "aborted"
    vm = h.fake.find_message(vm.id)
    assert not vm.buttons() and "解散投票通过" in vm.content
    assert any("经投票解散" in m.content for m in h.channel())
    # the settled hands are untouched
    for hid, rows in ledger_before.items():
        assert [(x.seat, x.amount) for x in await h.bot.store.hand_ledger(hid)] == rows
    # a late answer (its click made while the buttons showed) is told how the vote ended, the table being gone
    r = await h.send(*late)
    assert said(r) == "The dissolve vote passed."
    assert [f for _, f, _ in await audit(h)][0] == "table.dissolve"


async def test_a_single_human_dissolves_at_once(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "wuhu", humans=(P1,))
    lt = live(h)
    r = await h.slash("table dissolve", user=P1, locale="en-US")
    assert "passed" in said(r)
    await h.bot.tables.wait_idle()
    assert lt.closed and (await h.bot.store.match(lt.match_id)).status == "aborted"
    assert not [c for c in h.channel() if any(b["custom_id"].startswith("mjv:") for b in c.buttons())]


async def test_a_vote_lapses_after_its_minute_and_a_refusal_ends_it(harness: Harness):
    h = harness
    prep(h)
    mgr = h.bot.tables
    clock = VoteClock(h)  # the minute ends when the test says so, whatever the machine's speed
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    await h.slash("table dissolve", user=P1)
    vm = vote_message(h)
    await clock.end_minute(h, lt.vote)  # the expiry timer itself: awaited, not polled
    assert lt.vote is None and not lt.closed
    vm = h.fake.find_message(vm.id)
    assert not vm.buttons() and "过期" in vm.content
    # a new vote, refused by the other of two humans: a majority is out of reach, it ends at once
    await h.slash("table dissolve", user=P2)
    vm = vote_message(h)
    no = next(c["custom_id"] for c in vm.buttons() if c["custom_id"].endswith(":n"))
    r = await h.click(vm, custom_id=no, user=P1, locale="en-US")
    assert r.callback_type == 7 and "拒绝（1）：player7001" in h.fake.find_message(vm.id).content
    await mgr.wait_idle()
    assert lt.vote is None and not lt.closed and not h.fake.find_message(vm.id).buttons()
    assert "未通过" in h.fake.find_message(vm.id).content


async def test_two_votes_at_once_dissolve_once(harness: Harness):
    h = harness
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2, P3, P4))
    lt = live(h)
    await h.slash("table dissolve", user=P1)
    vm = vote_message(h)
    yes = next(c["custom_id"] for c in vm.buttons() if c["custom_id"].endswith(":y"))
    await h.click(vm, custom_id=yes, user=P2)
    a = h.click_payload(vm, custom_id=yes, user=P3, locale="en-US")
    b = h.click_payload(vm, custom_id=yes, user=P4, locale="en-US")
    h.bot._connection.parse_interaction_create(a[0])
    h.bot._connection.parse_interaction_create(b[0])  # before the first one is handled
    await h.settle()
    await h.bot.tables.wait_idle()
    answers = sorted((said(x[1]), x[1].callback_type) for x in (a, b))
    assert answers == [("", 7), ("The dissolve vote passed.", 4)]  # the first: shown on the message; the second: passed
    assert "解散投票通过" in h.fake.find_message(vm.id).content
    assert lt.closed and (await h.bot.store.match(lt.match_id)).status == "aborted"
    assert [f for _, f, _ in await audit(h)].count("table.dissolve") == 1


async def test_replace_and_restore_in_a_lobby_say_the_game_has_not_started(harness: Harness):
    """In a lobby, /table replace and /table restore answered "That table is over": they act once the table is
    playing, and the answer says so (and points to /table kick), in the member's language; nothing changes."""
    h = harness
    prep(h)
    await h.slash("table new", variant="hefei", user=P1, locale="en-US")
    await h.slash("table join", user=P2, locale="en-US")
    lt = h.bot.tables.by_channel[h.channel_id]
    seats = list(lt.seats)
    for cmd in ("table replace", "table restore"):
        for locale, words, kick in (("en-US", "has not started yet", "/table kick"), ("zh-CN", "还没有开始", "/牌桌 移出"),
                                    ("zh-TW", "還沒有開始", "/牌桌 移出")):
            r = await h.slash(cmd, member=P2, user=P1, locale=locale)
            assert words in said(r) and kick in said(r) and "over" not in said(r), said(r)
            assert r.reply.ephemeral
    assert list(lt.seats) == seats and not lt.started and not lt.closed


async def test_dissolve_and_autoplay_in_a_lobby_say_the_game_has_not_started(harness: Harness):
    """In a lobby, /table dissolve and /table autoplay (on or off) answered "That table is over" to the player who just
    opened it: the answer says the game has not started, in the player's language, and the lobby stays open."""
    h = harness
    prep(h)
    await h.slash("table new", variant="hefei", user=P1, locale="en-US")
    await h.slash("table join", user=P2, locale="en-US")
    lt = h.bot.tables.by_channel[h.channel_id]
    seats = list(lt.seats)
    for cmd, kw in (("table dissolve", {}), ("table autoplay", {"on": "on"}), ("table autoplay", {"on": "off"})):
        for locale, words, over in (("en-US", "The game has not started yet.", "over"),
                                    ("zh-CN", "牌局还没有开始。", "结束"), ("zh-TW", "牌局還沒有開始。", "結束")):
            r = await h.slash(cmd, user=P1, locale=locale, **kw)
            assert said(r) == words and over not in said(r), said(r)
            assert r.reply.ephemeral
    assert list(lt.seats) == seats and not lt.started and not lt.closed
    assert h.bot.tables.by_channel[h.channel_id] is lt
    assert not any(s.afk for s in lt.seats if s is not None)


class VoteClock:
    """The wall clock a vote's deadline is on, and the sleeper its timer waits with (``TableManager.wall`` and
    ``vote_sleep``): the minute is up when the test says so (:meth:`end_minute`), not after a real minute."""

    def __init__(self, h: Harness) -> None:
        self.now = 1_800_000_000.0
        self.up = asyncio.Event()
        h.bot.tables.wall = lambda: self.now
        h.bot.tables.vote_sleep = self.sleep

    async def sleep(self, seconds: float) -> None:
        await self.up.wait()
        self.now += seconds

    async def end_minute(self, h: Harness, vote) -> None:
        """Let the open vote's timer run out and decide; the next vote waits again."""
        self.up.set()
        await asyncio.wait_for(asyncio.shield(vote.timer), 30)  # (a bound for a hang only)
        self.up = asyncio.Event()
        await h.bot.tables.wait_idle()


async def test_a_seat_the_ai_plays_for_an_away_player_does_not_hold_a_dissolve_vote(harness: Harness):
    """Two friends; the host chose 托管 and left. The other could neither end the table (host only) nor dissolve it
    (a vote needed both) nor sit at another table: held until a server manager came. An away player's seat now
    abstains at the vote's deadline unless that player answers; with three humans one away, two of three agreeing
    still pass at once, and an away player who does answer counts."""
    h = harness
    clock, lt, r = await _host_away_vote(h)
    assert "passed" not in said(r) and not lt.closed  # the host has the minute to answer
    await clock.end_minute(h, lt.vote)
    assert lt.closed and (await h.bot.store.match(lt.match_id)).status == "aborted"
    assert "解散投票通过" in h.fake.find_message(vote_message_id(h)).content
    # three humans, P3 away: P3 answering no makes it one of each, and two of three still pass
    h2 = harness
    await open_table(h2, "hefei", humans=(P1, P2, P3))
    lt = live(h2)
    await h2.slash("table autoplay", on="on", user=P3)
    await h2.bot.tables.wait_idle()
    await h2.slash("table dissolve", user=P1)
    vm = vote_message(h2)
    assert "全部 3 位玩家" in vm.content
    no = next(c["custom_id"] for c in vm.buttons() if c["custom_id"].endswith(":n"))
    r = await h2.click(vm, custom_id=no, user=P3, locale="en-US")
    assert "拒绝（1）：player7003" in h2.fake.find_message(vm.id).content
    assert lt.vote is not None  # 1 of 3 said yes, 1 no: a majority is still in reach
    yes = next(c["custom_id"] for c in vm.buttons() if c["custom_id"].endswith(":y"))
    r = await h2.click(vm, custom_id=yes, user=P2, locale="en-US")
    assert "解散投票通过" in h2.fake.find_message(vm.id).content
    await h2.bot.tables.wait_idle()
    assert lt.closed


async def test_one_player_cannot_end_a_match_the_moment_the_others_timed_out(harness: Harness):
    """Three friends; P1 and P2 step away and each times out twice (the AI plays their seats). P3 proposes 解散:
    the match was aborted at the click, the others never saw a vote. Now the vote runs its minute; at its end it
    counts those here or who answered: P1 answering no keeps the match; a second vote nobody else answers passes."""
    h = harness
    prep(h)
    sim = SimClock()
    mgr = h.bot.tables
    mgr.clock, mgr.sleep = sim.time, sim.sleep
    clock = VoteClock(h)
    mgr.timers.next_hand, mgr.timers.turn, mgr.timers.claim = 3600.0, 10.0, 3600.0
    await open_table(h, "hefei", humans=(P1, P2, P3))
    lt = live(h)
    s1, s2, s3 = lt.seat_of(P1), lt.seat_of(P2), lt.seat_of(P3)
    for _ in range(300):
        if lt.seats[s1].afk and lt.seats[s2].afk:
            break
        tb = lt.table
        if tb.phase == "ended":
            table = h.fake.find_message(lt.message_id)
            await h.click(table, custom_id=button_id(table, ":next"), user=P3)
        elif s3 in tb.awaited():
            m = latest_dm_controls(h, P3)
            await h.click(m, custom_id=choose_click(m))
        else:
            await sim.advance(10.0, h.settle)
        await mgr.wait_idle()
    assert lt.seats[s1].away == "timeout" and lt.seats[s2].away == "timeout" and not lt.closed
    r = await h.slash("table dissolve", user=P3, locale="en-US")
    await mgr.wait_idle()
    assert "passed" not in said(r) and not lt.closed and lt.vote is not None
    vm = vote_message(h)
    no = next(c["custom_id"] for c in vm.buttons() if c["custom_id"].endswith(":n"))
    r = await h.click(vm, custom_id=no, user=P1, locale="en-US")
    assert "拒绝（1）：player7001" in h.fake.find_message(vm.id).content
    assert lt.vote is not None  # P2 could still agree (or stay away)
    await clock.end_minute(h, lt.vote)
    assert lt.vote is None and not lt.closed  # one yes, one no among those who count: it fails
    assert "过期" in h.fake.find_message(vm.id).content and not h.fake.find_message(vm.id).buttons()
    r = await h.slash("table dissolve", user=P3, locale="en-US")
    assert "passed" not in said(r) and lt.vote is not None and not lt.closed
    await clock.end_minute(h, lt.vote)  # nobody away answered: P3 is the vote
    assert lt.closed and (await h.bot.store.match(lt.match_id)).status == "aborted"
    assert "解散投票通过" in h.fake.find_message(vote_message_id(h)).content


async def test_a_vote_the_players_here_agreed_to_passes_at_its_deadline(harness: Harness):
    """Four friends: P1 proposes, P2 agrees (2 of 4: not at once); P3 and P4 choose 托管 and leave without
    answering. At the end of the minute both players here agree: the match is dissolved (it lapsed as failed)."""
    h = harness
    prep(h)
    clock = VoteClock(h)
    await open_table(h, "hefei", humans=(P1, P2, P3, P4))
    lt = live(h)
    await h.slash("table dissolve", user=P1)
    vm = vote_message(h)
    yes = next(c["custom_id"] for c in vm.buttons() if c["custom_id"].endswith(":y"))
    await h.click(vm, custom_id=yes, user=P2, locale="en-US")
    shown = h.fake.find_message(vm.id).content
    assert "同意（2）：player7001、player7002" in shown and "还差 1 位" in shown and "解散投票通过" not in shown
    await h.slash("table autoplay", on="on", user=P3)
    await h.slash("table autoplay", on="on", user=P4)
    await h.bot.tables.wait_idle()
    assert lt.vote is not None and not lt.closed
    await clock.end_minute(h, lt.vote)
    assert lt.closed and (await h.bot.store.match(lt.match_id)).status == "aborted"
    msg = h.fake.find_message(vm.id)
    assert not msg.buttons() and "解散投票通过" in msg.content


async def _host_away_vote(h: Harness) -> tuple[VoteClock, LiveTable, Any]:
    """Two friends (Hefei), the host P1 on 托管; P2 proposes 解散 (the answer to P2 in English: not passed at once,
    the host has the minute)."""
    prep(h)
    clock = VoteClock(h)
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    await h.slash("table autoplay", on="on", user=P1)
    await h.bot.tables.wait_idle()
    r = await h.slash("table dissolve", user=P2, locale="en-US")
    return clock, lt, r


async def test_a_vote_passing_at_its_deadline_is_tried_again_when_the_store_fails(harness: Harness):
    """The minute is up and the players here agreed, but the store refuses the dissolve's audit row once: the vote
    is not dropped as lapsed (nor lost); its timer tries again and the match is dissolved."""
    h = harness
    clock, lt, _ = await _host_away_vote(h)
    vm = vote_message(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("INSERT INTO settings_audit", times=1)
    await clock.end_minute(h, lt.vote)
    assert flaky.hits == 1
    assert lt.closed and (await h.bot.store.match(lt.match_id)).status == "aborted"
    msg = h.fake.find_message(vm.id)
    assert not msg.buttons() and "解散投票通过" in msg.content and "过期" not in msg.content


async def test_a_vote_that_lapsed_is_not_passed_after_a_restart(harness: Harness):
    """Two friends, both here. P1 proposes 解散, P2 does not answer: at the end of the minute the vote lapses and
    the vote message says "解散投票已过期：牌局继续". The store was failing at that moment, so the forgetting of the
    vote (three tries) did not land. The store is back; P2 chooses 托管 for a while (stored). The bot restarts: the
    stored vote, its deadline long past, was decided again as at its deadline, P2 then counted as away, and the
    match the players were told goes on was dissolved. A vote found past its deadline at start-up lapses."""
    h = harness
    prep(h)
    clock = VoteClock(h)
    h.bot.tables.store_backoff = (0.01, 0.02, 0.05)
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    match_id = lt.match_id
    await h.slash("table dissolve", user=P1)
    vm = vote_message(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("match_votes", times=3)
    await clock.end_minute(h, lt.vote)
    await h.bot.tables.wait_idle()
    assert lt.vote is None and not lt.closed
    assert "过期" in h.fake.find_message(vm.id).content  # told: the vote lapsed, the match goes on
    await h.slash("table autoplay", on="on", user=P2)
    await h.bot.tables.wait_idle()
    assert not lt.closed
    now = clock.now

    def frozen_wall(bot) -> None:
        bot.tables.wall = lambda: now

    h2 = await h.kill(prepare=frozen_wall)
    try:
        prep(h2)
        await h2.bot.tables.wait_idle()
        status = (await h2.bot.store.match(match_id)).status
        msg = h2.fake.find_message(vm.id).content
        assert status != "aborted" and "解散投票通过" not in msg, (status, msg)
    finally:
        await h2.close()


async def test_a_vote_retried_at_its_deadline_audits_one_dissolve(harness: Harness):
    """Two friends, P1 on 托管; P2 proposes 解散 and at the end of the minute it passes, but the store refuses the
    match's abort for a while (the audit row goes in): the vote's timer tries again until the store takes it. The
    settings audit (what an admin reads of who dissolved what) holds one dissolve, not one per try."""
    h = harness
    clock, lt, _ = await _host_away_vote(h)
    h.bot.tables.store_backoff = (0.01, 0.02, 0.05)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("UPDATE matches SET status = 'aborted'", times=6)  # two rounds of the timer (three quick tries each)
    await clock.end_minute(h, lt.vote)
    await h.bot.tables.wait_idle()
    assert lt.closed and (await h.bot.store.match(lt.match_id)).status == "aborted"
    rows = [f for _, f, _ in await audit(h) if f == "table.dissolve"]
    assert len(rows) == 1, rows
