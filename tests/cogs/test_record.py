"""``/record`` through the real discord.py dispatch: a hand played in person is proposed, confirmed by the paying
players (or a Manage Server member), written to the ledger in one transaction, and counted by every reader; rejects,
expiry, races, forged ids, bad input and faults of Discord and the disk change nothing they must not."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.store import LedgerRow, SeatSpec, Store
from bot.store import records as rstore
from cogs.record import hand_notation
from engine.replay import encode_code
from engine.tiles import parse_hand
from engine.variants import Situation, get_variant
from tests.harness import ADMIN_PERMISSIONS, CHANNEL_ID, GUILD_ID, USER_ID, Harness, snowflake
from tests.harness.db import dump, sql
from tests.harness.fake import FakeResponse, user_payload
from tests.harness.faults import FlakyConnection

pytestmark = pytest.mark.both_backends

A, B, C, D, E = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3, USER_ID + 4
NAMES = {A: "小明", B: "Bob", C: "張三", D: "Dee", E: "Eve"}
OTHER_GUILD = GUILD_ID + 7
SEATS = {"east": A, "south": B, "west": C, "north": D}
HEFEI = "1234678922m345s+5m"  # S wins on W's discard: S +20, W -20 (mjbot score ... --variant hefei --from W)
WUHU = "23456799m345p67s+8s"  # S self-draws in 315: E -9, S +21, W -6, N -6
CHIZHOU = "123m456p789s5z(7777z)+5z"  # N self-draws: E -1, S -1, W -1, N +3


@pytest.fixture
async def h(db_target: Path | str):
    db = db_target
    store = await Store.open(db)
    # one hand played on Discord, so that filtering by source has something on each side: B deals in to A for 8
    seats = [SeatSpec.human(p, NAMES[p]) for p in (A, B, C, D)]
    at = datetime.now(UTC) - timedelta(days=1)
    mid = await store.start_match(GUILD_ID, CHANNEL_ID, "hefei", {}, 1, seats, at=at)
    hid = await store.start_hand(mid, 0, "h0", None, at=at)
    await store.finish_hand(hid, [LedgerRow(0, 8, won=True, hand_value=8), LedgerRow(1, -8, deal_in=True),
                                  LedgerRow(2, 0), LedgerRow(3, 0)], at=at)
    await store.finish_match(mid, at=at)
    await store.close()
    harness = await Harness.boot(db)
    for p, n in NAMES.items():
        harness.fake.add_user(p, n)
    try:
        yield harness
    finally:
        await harness.close()


def cog(h: Harness):
    return h.bot.get_cog("Recorder")


async def record(h: Harness, *, user: int = B, hand: str = HEFEI, winner: int | None = B, discarder: int | None = C,
                 locale: str = "en-US", variant: str = "hefei", **kw):
    opts = {**SEATS, **kw}
    return await h.slash("record", user=user, hand=hand, winner=winner, discarder=discarder, locale=locale,
                         variant=variant, **opts)


async def get(h: Harness, rid: int, guild: int = GUILD_ID) -> rstore.Record:
    return await rstore.get(h.bot.store, guild, rid)


async def last(h: Harness, guild: int = GUILD_ID) -> rstore.Record:
    rid = sql(h, "SELECT id FROM records WHERE guild_id = ? ORDER BY id DESC LIMIT 1", (guild,))[0][0]
    return await get(h, rid, guild)


def card(h: Harness, rec: rstore.Record):
    return h.fake.find_message(rec.message_id)


async def press(h: Harness, rec: rstore.Record, label: str, user: int, **kw):
    return await h.click(card(h, rec), label=label, user=user, **kw)


def answer(r) -> str:
    """What the presser was told: the private reply, or the card the press edited."""
    if r.callback_type == 7:
        return r.original.content
    return r.reply.content


def in_person_ledger(h: Harness) -> list[tuple]:
    return sql(h, "SELECT player_id, seat, amount, stack_amount, jiao_amount, won, self_draw, deal_in, drawn, "
                  "hand_value, source, variant, guild_id FROM ledger WHERE source = 'in_person' ORDER BY seat")


def board_of(text: str) -> dict[str, tuple[int, int, int]]:
    out = {}
    for line in text.splitlines():
        m = re.match(r"^(?:__)?\d+\. \*\*(.+?)\*\* · ([+-]?\d+) 子 · played (\d+) · won (\d+)", line)
        if m:
            out[m.group(1)] = (int(m.group(2)), int(m.group(3)), int(m.group(4)))
    return out


# ------------------------------------------------------------------------------------------------ the whole path


async def test_record_confirm_and_it_counts_everywhere(h: Harness):
    r = await record(h)  # Bob (south) won on 張三's (west) discard
    rec = await last(h)
    assert rec.status == "pending" and rec.variant == "hefei" and rec.proposer_id == B
    assert [(s.player_id, s.amount) for s in rec.seats] == [(A, 0), (B, 20), (C, -20), (D, 0)]
    msg = card(h, rec)
    assert not msg.ephemeral and msg is r.reply
    assert f"<@{B}> won, on <@{C}>'s discard" in msg.content
    assert f"South: <@{B}> +20 子" in msg.content and f"West: <@{C}> -20 子 ⏳" in msg.content
    assert "Waiting for 1 confirmation" in msg.content
    assert msg.images, "the score card image is attached"
    assert [b["label"] for b in msg.buttons()] == ["Confirm", "Reject"]
    # nothing in the ledger yet, nothing on the board
    assert in_person_ledger(h) == []
    # the winner does not pay: their Confirm is not what is waited for
    r2 = await press(h, rec, "Confirm", B)
    assert "Only the players who pay confirm" in r2.reply.content and r2.reply.ephemeral
    assert in_person_ledger(h) == []
    # the payer confirms: written, the card says so and loses its buttons
    r3 = await press(h, rec, "Confirm", C)
    rec = await get(h, rec.record_id)
    assert rec.status == "confirmed" and rec.hand_id is not None
    msg = card(h, rec)
    assert f"Confirmed: in the ledger as hand #{rec.hand_id}" in msg.content and msg.buttons() == []
    assert r3.callback_type == 7
    assert in_person_ledger(h) == [
        (A, 0, 0, 0, 0, 0, 0, 0, 0, 0, "in_person", "hefei", GUILD_ID),
        (B, 1, 20, 0, 0, 1, 0, 0, 0, 20, "in_person", "hefei", GUILD_ID),
        (C, 2, -20, 0, 0, 0, 0, 1, 0, 0, "in_person", "hefei", GUILD_ID),
        (D, 3, 0, 0, 0, 0, 0, 0, 0, 0, "in_person", "hefei", GUILD_ID),
    ]
    assert sql(h, "SELECT status, seed FROM matches WHERE id = ?", (rec.match_id,)) == [
        ("finished", f"in-person:{rec.record_id}")]
    assert sql(h, "SELECT status FROM hands WHERE id = ?", (rec.hand_id,)) == [("finished",)]
    # the record, the payer's confirmation and the settlement are audited
    audit = sql(h, "SELECT user_id, field FROM settings_audit WHERE field LIKE 'record%' ORDER BY id")
    assert audit == [(B, "record"), (C, "record_confirm"), (C, "record_confirm")]
    # the leaderboard counts it with the played hand; the filters separate them
    both = board_of((await h.slash("leaderboard", variant="hefei")).reply.content)
    assert both["Bob"] == (20 - 8, 2, 1) and both["張三"] == (-20, 2, 0) and both["小明"] == (8, 2, 1)
    played = board_of((await h.slash("leaderboard", variant="hefei", source="played")).reply.content)
    assert played["Bob"] == (-8, 1, 0) and played["小明"] == (8, 1, 1) and played["張三"] == (0, 1, 0)
    person = (await h.slash("leaderboard", variant="hefei", source="in_person")).reply.content
    assert board_of(person)["Bob"] == (20, 1, 1) and board_of(person)["張三"] == (-20, 1, 0)
    assert "played in person" in person
    # /stats: the same split
    s_all = (await h.slash("stats", player=B, variant="hefei")).reply.content
    assert "Hands 2 · Wins 1 (50%)" in s_all and "Biggest hand 20 子 · Net +12 子" in s_all
    s_in = (await h.slash("stats", player=B, source="in_person")).reply.content
    s_pl = (await h.slash("stats", player=B, source="played")).reply.content
    assert "Hands 1 · Wins 1 (100%) · Self-draws 0 · Deal-ins 0" in s_in and "played in person" in s_in
    assert "Hands 1 · Wins 0 (0%) · Self-draws 0 · Deal-ins 1" in s_pl and "played here" in s_pl
    h2h = (await h.slash("stats", player=B, other_player=C, source="in_person")).reply.content
    assert "Hands together 1 · Bob won 1 · 張三 won 0" in h2h and "張三 → Bob 20 子" in h2h
    # /history marks it; /replay says there is no replay of a hand played in person
    hist = (await h.slash("history", player=B)).reply.content
    code = encode_code(rec.match_id, 0)
    line = next(x for x in hist.splitlines() if code in x)
    assert "in person" in line
    rp = await h.slash("replay", code=code)
    assert "played in person" in rp.reply.content and "no replay" in rp.reply.content and rp.reply.ephemeral
    # a void works like for a played hand
    v = await h.slash("correct void", hand=rec.hand_id, reason="typo in the hand", permissions=ADMIN_PERMISSIONS)
    assert "void" in v.reply.content.lower() or v.reply.ephemeral
    person = await h.slash("leaderboard", variant="hefei", source="in_person")
    assert board_of(person.reply.content) == {}
    both = board_of((await h.slash("leaderboard", variant="hefei")).reply.content)
    assert both["Bob"] == (-8, 1, 0)


async def test_export_has_the_source_column(h: Harness):
    await record(h)
    rec = await last(h)
    await press(h, rec, "Confirm", C)
    from bot.store import group as gstore

    rows = await gstore.ledger_rows(h.bot.store, GUILD_ID)
    assert sorted({r.source for r in rows}) == ["in_person", "played"]
    assert [r.amount for r in rows if r.source == "in_person"] == [0, 20, -20, 0]


async def test_a_manager_confirms_for_the_payers(h: Harness):
    await record(h, hand=WUHU, winner=B, discarder=None, variant="wuhu")  # self-drawn: E, W, N pay
    rec = await last(h)
    assert [s.amount for s in rec.seats] == [-9, 21, -6, -6]
    assert [s.seat for s in rec.waiting] == [0, 2, 3]
    await press(h, rec, "Confirm", A)  # the dealer confirms his own
    rec = await get(h, rec.record_id)
    assert [s.seat for s in rec.waiting] == [2, 3] and rec.status == "pending"
    assert "Waiting for 2 confirmation" in card(h, rec).content
    # a member who did not play and cannot manage the server is refused
    r = await press(h, rec, "Confirm", E)
    assert "You did not play this hand" in r.reply.content and r.reply.ephemeral
    assert in_person_ledger(h) == []
    # a manager confirms for the two still waiting
    await press(h, rec, "Confirm", E, permissions=ADMIN_PERMISSIONS)
    rec = await get(h, rec.record_id)
    assert rec.status == "confirmed"
    assert [(s.seat, s.confirmed_by) for s in rec.seats if s.seat != 1] == [(0, A), (2, E), (3, E)]
    rows = in_person_ledger(h)
    assert [(p, a, st, j, w, sd, di) for p, _, a, st, j, w, sd, di, *_ in rows] == [
        (A, -9, -9, 0, 0, 0, 0), (B, 21, 21, 0, 1, 1, 0), (C, -6, -6, 0, 0, 0, 0), (D, -6, -6, 0, 0, 0, 0)]
    assert rows[1][9] == 21 and {r[11] for r in rows} == {"wuhu"}
    audit = sql(h, "SELECT user_id, new_value FROM settings_audit WHERE field = 'record_confirm' ORDER BY id")
    assert [u for u, _ in audit] == [A, E, E, E] and "(for)" in audit[1][1] and "(self)" in audit[0][1]


async def test_chizhou_record_and_a_proposer_who_pays_confirms_too(h: Harness):
    await record(h, user=A, hand=CHIZHOU, winner=D, discarder=None, variant="chizhou")
    rec = await last(h)
    assert [s.amount for s in rec.seats] == [-1, -1, -1, 3]
    assert [s.seat for s in rec.waiting] == [0, 1, 2]  # A proposed, and pays: proposing is not confirming
    await press(h, rec, "Confirm", A)
    await press(h, rec, "Confirm", B)
    await press(h, rec, "Confirm", C)
    assert (await get(h, rec.record_id)).status == "confirmed"
    assert [(r[0], r[2], r[5], r[6]) for r in in_person_ledger(h)] == [
        (A, -1, 0, 0), (B, -1, 0, 0), (C, -1, 0, 0), (D, 3, 1, 1)]


async def test_reject_changes_nothing(h: Harness):
    await record(h)
    rec = await last(h)
    r = await press(h, rec, "Reject", E)
    assert "You did not play this hand" in r.reply.content
    before = sql(h, "SELECT COUNT(*) FROM ledger")
    await press(h, rec, "Reject", D)  # a player who neither wins nor pays may reject
    rec = await get(h, rec.record_id)
    assert rec.status == "rejected" and rec.decided_by == D
    msg = card(h, rec)
    assert f"Rejected by <@{D}>" in msg.content and msg.buttons() == []
    assert sql(h, "SELECT COUNT(*) FROM ledger") == before and in_person_ledger(h) == []
    assert sql(h, "SELECT user_id FROM settings_audit WHERE field = 'record_reject'") == [(D,)]


# ------------------------------------------------------------------------------------------------ closed records


async def test_expiry_with_an_injected_clock(h: Harness):
    await record(h)
    rec = await last(h)
    c = cog(h)
    c.clock = lambda: datetime.now(UTC) + timedelta(hours=23)
    await c.tick()
    assert (await get(h, rec.record_id)).status == "pending"
    c.clock = lambda: datetime.now(UTC) + timedelta(hours=24, minutes=1)
    # a press after the time is up but before the tick: told it expired, nothing written
    before = dump(h)
    r = await press(h, rec, "Confirm", C)
    assert "has expired" in r.reply.content and r.reply.ephemeral
    assert dump(h) == before
    await c.tick()
    rec = await get(h, rec.record_id)
    assert rec.status == "expired"
    msg = card(h, rec)
    assert "Expired before everyone confirmed" in msg.content and msg.buttons() == []
    assert in_person_ledger(h) == []
    assert sql(h, "SELECT user_id FROM settings_audit WHERE field = 'record_expire'") == [(0,)]


async def test_the_expiry_is_a_setting_with_a_range_and_audited(h: Harness):
    r = await h.slash("settings", record_expiry_hours=2, permissions=ADMIN_PERMISSIONS)
    assert "2 h" in r.reply.content
    assert sql(h, "SELECT field, old_value, new_value FROM settings_audit WHERE field = 'record_expiry_hours'") == [
        ("record_expiry_hours", "24", "2")]
    await record(h)
    rec = await last(h)
    assert rec.expires_at - rec.created_at == timedelta(hours=2)
    await press(h, rec, "Reject", D)
    # the settings panel shows the value and the change, in words; a record's steps are kept in the audit, not
    # listed among the changes to settings
    panel = await h.slash("settings", permissions=ADMIN_PERMISSIONS, locale="zh-CN")
    assert "用 /记账 记下的牌局等待确认 2 小时。" in panel.reply.content
    assert "记账确认时限 → 2" in panel.reply.text and "拒绝记账" not in panel.reply.text
    assert [f for (f,) in sql(h, "SELECT field FROM settings_audit WHERE field LIKE 'record%' ORDER BY id")] == [
        "record_expiry_hours", "record", "record_reject"]
    # outside the declared range (a forged payload): refused, nothing written
    before = dump(h)
    data, rec2 = h.slash_payload("settings", record_expiry_hours=3, permissions=ADMIN_PERMISSIONS)
    data["data"]["options"][0]["value"] = 500
    out = await h.send(data, rec2)
    assert out.reply.ephemeral and dump(h) == before


async def test_an_expired_card_is_edited_when_discord_answers_again(h: Harness):
    await record(h)
    rec = await last(h)
    c = cog(h)
    c.clock = lambda: datetime.now(UTC) + timedelta(days=2)
    path = rf"/channels/{CHANNEL_ID}/messages/{rec.message_id}"
    fault = h.fake.fail(path, status=503, method="PATCH")
    await c.tick()
    assert fault.hits == 1
    assert (await get(h, rec.record_id)).status == "expired"
    assert card(h, rec).buttons() != []  # Discord failed: the card still shows its buttons ...
    r = await press(h, rec, "Confirm", C)  # ... and a press says the truth
    assert "has expired" in r.reply.content and in_person_ledger(h) == []
    h = await h.restart()  # the card still to redraw is in the database, not in memory
    c = cog(h)
    c.clock = lambda: datetime.now(UTC) + timedelta(days=2)
    h.fake.rate_limit(path, method="PATCH")  # a 429 is waited out by discord.py
    await c.tick()
    assert card(h, rec).buttons() == [] and "Expired" in card(h, rec).content
    assert sql(h, "SELECT card_stale FROM records WHERE id = ?", (rec.record_id,)) == [(0,)]
    await h.close()


async def test_a_press_on_a_confirmed_or_rejected_record(h: Harness):
    await record(h)
    rec = await last(h)
    stale = card(h, rec).payload()
    await press(h, rec, "Confirm", C)
    before = dump(h)
    # the old buttons (a stale client) pressed again: the card has none left, so press from its earlier payload
    data, r = _press_payload(h, rec, "ok", C, stale)
    out = await h.send(data, r)
    assert "already confirmed and in the ledger" in out.reply.content and dump(h) == before
    data, r = _press_payload(h, rec, "no", D, stale)
    out = await h.send(data, r)
    assert "already confirmed" in out.reply.content and dump(h) == before


def _press_payload(h: Harness, rec: rstore.Record, op: str, user: int, message: dict):
    """A press of a record button of an earlier version of its card (a stale client)."""
    return forged(h, message, f"mjrec:{GUILD_ID}:{rec.record_id}:{op}", user)


def forged(h: Harness, message: dict, custom_id: str, user: int, *, permissions=None):
    """A button press with any custom id, on a copy of ``message`` whose first button carries that id (discord.py
    only dispatches a custom id the message holds)."""
    import copy

    message = copy.deepcopy(message)
    if not message["components"]:
        message["components"] = [{"type": 1, "components": [{"type": 2, "style": 3, "label": "x",
                                                             "custom_id": custom_id}]}]
    message["components"][0]["components"][0]["custom_id"] = custom_id
    data, r = h._base(3, user=user, guild=GUILD_ID, channel=int(message["channel_id"]), locale="en-US",
                      guild_locale=None, permissions=permissions, name=None)
    data["data"] = {"custom_id": custom_id, "component_type": 2}
    data["message"] = message
    r.message_id = int(message["id"])
    return data, r


async def test_two_confirmations_at_once_count_once(h: Harness):
    await record(h)
    rec = await last(h)
    d1, r1 = h.click_payload(card(h, rec), label="Confirm", user=C)
    d2, r2 = h.click_payload(card(h, rec), label="Confirm", user=C)
    h.bot._connection.parse_interaction_create(d1)
    h.bot._connection.parse_interaction_create(d2)
    await h.settle()
    assert len(in_person_ledger(h)) == 4
    assert sql(h, "SELECT COUNT(*) FROM matches WHERE seed LIKE 'in-person:%'") == [(1,)]
    texts = [answer(r1), answer(r2)]
    assert sum("Confirmed: in the ledger" in x for x in texts) == 1
    assert sum("already confirmed and in the ledger" in x for x in texts) == 1
    # and a manager pressing at the same moment as the payer
    await record(h)
    rec = await last(h)
    d1, r1 = h.click_payload(card(h, rec), label="Confirm", user=C)
    d2, r2 = h.click_payload(card(h, rec), label="Confirm", user=E, permissions=ADMIN_PERMISSIONS)
    h.bot._connection.parse_interaction_create(d1)
    h.bot._connection.parse_interaction_create(d2)
    await h.settle()
    assert len(in_person_ledger(h)) == 8


async def test_a_forged_custom_id_from_another_guild(h: Harness):
    other_channel = h.add_channel(guild_id=OTHER_GUILD)
    await h.slash("record", user=B, guild=OTHER_GUILD, channel=other_channel, hand=HEFEI, winner=B, discarder=C,
                  **SEATS)
    theirs = await last(h, OTHER_GUILD)
    await record(h)
    ours = await last(h)
    before = dump(h)
    # our server's button naming the other server's record id
    out = await h.send(*forged(h, card(h, ours).payload(), f"mjrec:{GUILD_ID}:{theirs.record_id}:ok", C))
    assert "no such record on this server" in out.reply.content and out.reply.ephemeral
    # a custom id naming the other server, pressed here (by a manager, even)
    out = await h.send(*forged(h, card(h, ours).payload(), f"mjrec:{OTHER_GUILD}:{theirs.record_id}:ok", C,
                               permissions=ADMIN_PERMISSIONS))
    assert "belongs to another server" in out.reply.content
    assert dump(h) == before
    assert (await get(h, theirs.record_id, OTHER_GUILD)).status == "pending"


# ------------------------------------------------------------------------------------------------ bad input


@pytest.mark.parametrize("case, expect", [
    ("bad_hand", "This hand cannot be recorded"),
    ("same_player", "is named twice"),
    ("bot", "is a bot"),
    ("not_at_table", "You are not one of the four players"),
    ("winner_outside", "is not in any seat"),
    ("discarder_outside", "is not in any seat"),
    ("discarder_is_winner", "The winner cannot have discarded"),
    ("draw", "A drawn hand"),
    ("variant_rejects", "This hand cannot be recorded"),
])
async def test_bad_input_is_refused_and_nothing_is_stored(h: Harness, case: str, expect: str):
    robot = snowflake()
    h.fake.users[robot] = user_payload(robot, "Robot", bot=True)
    before = dump(h)
    kw: dict = {}
    if case == "bad_hand":
        kw = {"hand": "123m456m789m123p5p"}  # no winning tile
    elif case == "same_player":
        kw = {"west": B}
    elif case == "bot":
        kw = {"north": robot}
    elif case == "not_at_table":
        kw = {"user": E}
    elif case == "winner_outside":
        kw = {"winner": E}
    elif case == "discarder_outside":
        kw = {"discarder": E}
    elif case == "discarder_is_winner":
        kw = {"discarder": B}
    elif case == "draw":
        kw = {"winner": None, "discarder": None}
    elif case == "variant_rejects":
        kw = {"hand": "123m456p789s5z(7777z)+5z", "variant": "hefei"}  # honours: not in Hefei's tiles
    r = await record(h, **kw)
    assert expect in r.reply.content, r.reply.content
    assert r.reply.ephemeral
    assert dump(h) == before


@pytest.mark.parametrize("variant, option, locale, said", [
    ("hefei", {"mode": 525}, "en-US", "The option mode is Wuhu's 315/525 scoring: Hefei has no modes."),
    ("chizhou", {"mode": 525}, "zh-CN", "选项「模式」是芜湖的 315/525 计分：池州没有这个选项。"),
    ("wuhu", {"dealer_streak": 3}, "zh-TW", "選項「莊數」是合肥的莊數：蕪湖不計莊數。"),
    ("chizhou", {"dealer_streak": 2}, "en-US", "The option dealer_streak is Hefei's dealer streak (庄数): Chizhou"),
])
async def test_an_option_of_another_variant_is_refused_and_nothing_is_stored(h: Harness, variant, option, locale,
                                                                             said):
    """/record variant:Hefei mode:525 was recorded as a Hefei hand with the option dropped: the players would
    confirm a record they believed was something else. It is refused privately and nothing is stored."""
    hand = {"hefei": HEFEI, "wuhu": WUHU, "chizhou": CHIZHOU}[variant]
    before = dump(h)
    r = await record(h, hand=hand, variant=variant, discarder=None, locale=locale, **option)
    assert r.reply.ephemeral and r.reply.content.startswith(said), r.reply.content
    assert dump(h) == before
    assert h.channel() == []


async def test_a_manager_may_record_for_others(h: Harness):
    r = await record(h, user=E, permissions=ADMIN_PERMISSIONS)
    assert not r.reply.ephemeral
    rec = await last(h)
    assert rec.proposer_id == E and [s.seat for s in rec.waiting] == [2]


# ------------------------------------------------------------------------------------------------ faults


async def test_a_failing_database_at_the_last_confirmation(h: Harness):
    await record(h)
    rec = await last(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("INSERT INTO ledger")
    before = dump(h)
    r = await press(h, rec, "Confirm", C)
    assert "could not save" in r.reply.content and "still waiting" in r.reply.content and r.reply.ephemeral
    assert dump(h) == before  # nothing half-written: not even the confirmation
    assert (await get(h, rec.record_id)).status == "pending"
    r = await press(h, rec, "Confirm", C)  # the retry works
    assert r.callback_type == 7 and (await get(h, rec.record_id)).status == "confirmed"
    assert len(in_person_ledger(h)) == 4


class _NoWaitAsyncio:
    """``asyncio`` for discord.py's webhook module with its back-off sleeps made instant (its retries still run)."""

    def __getattr__(self, name: str):
        import asyncio

        return getattr(asyncio, name)

    async def sleep(self, delay: float, *args, **kwargs):
        import asyncio

        await asyncio.sleep(0)


async def test_discord_failing_the_card_edit_on_a_press(h: Harness, monkeypatch):
    import discord.webhook.async_ as webhook

    await record(h, hand=WUHU, winner=B, discarder=None, variant="wuhu")  # A, C and D pay
    rec = await last(h)
    # one 503: discord.py retries and the card is edited
    fault = h.fake.fail(r"/interactions/\d+/[^/]+/callback", status=503, times=1)
    r = await press(h, rec, "Confirm", A)
    assert fault.hits == 1 and r.callback_type == 7
    assert f"East: <@{A}> -9 子 ✅" in card(h, rec).content and "Waiting for 2 confirmation" in card(h, rec).content
    await press(h, rec, "Confirm", D)
    # Discord failing every try: the player is told what was saved, the card is redrawn by the next tick
    monkeypatch.setattr(webhook, "asyncio", _NoWaitAsyncio())
    fault = h.fake.fail(r"/interactions/\d+/[^/]+/callback", status=503, times=5)
    r = await press(h, rec, "Confirm", C)
    assert fault.hits == 5
    assert "is confirmed and in the ledger" in r.reply.content and r.reply.ephemeral  # told the truth
    assert (await get(h, rec.record_id)).status == "confirmed" and len(in_person_ledger(h)) == 4
    assert card(h, rec).buttons() != [] and "⏳" in card(h, rec).content
    await cog(h).tick()  # the next tick redraws the card
    assert card(h, rec).buttons() == [] and "Confirmed" in card(h, rec).content


# ------------------------------------------------------------------------------------------------ languages


@pytest.mark.parametrize("locale, title, button, refusal", [
    ("zh-CN", "线下牌局", "确认", "填了两次"),
    ("zh-TW", "線下牌局", "確認", "填了兩次"),
    ("en-US", "Hand played in person", "Confirm", "is named twice"),
])
async def test_languages(h: Harness, locale: str, title: str, button: str, refusal: str):
    r = await record(h, locale=locale)
    assert title in r.reply.content and button in [b["label"] for b in r.reply.buttons()]
    r = await record(h, locale=locale, west=B)
    assert refusal in r.reply.content


async def test_the_card_shows_what_the_engine_scores(h: Harness):
    h.seen.clear()
    await record(h, hand=WUHU, winner=B, discarder=None, variant="wuhu")
    scene = h.seen.record_cards()[-1]
    hand = parse_hand(WUHU)
    result = get_variant("wuhu").score(hand, Situation(winner=1), None)
    assert scene.payments == result.payments == (-9, 21, -6, -6)
    assert scene.names == ("小明", "Bob", "張三", "Dee") and scene.winner == 1


# ------------------------------------------------------------------------------------------------ from /score


async def test_record_this_hand_under_a_score_answer(h: Harness):
    r = await h.slash("score", user=B, hand=HEFEI, variant="hefei", winner="S", discarder="W")
    assert "South +20" in r.reply.content
    [button] = [b for b in r.reply.buttons() if b["label"] == "Record this hand"]
    assert button["custom_id"] == f"mjrs:h:SW:-:1:{hand_notation(parse_hand(HEFEI))}"
    h = await h.restart()  # the button outlives a restart
    opened = await h.click(r.reply, label="Record this hand", user=B)
    assert opened.modal is not None and "who sat where" in opened.modal["title"]
    labels = [c["label"] for c in opened.modal["components"]]
    assert labels == ["East (the dealer)", "South", "West", "North"]
    # the same member twice: refused, nothing stored
    before = dump(h)
    bad = await h.submit_modal(opened, {"mjrs-seat-E": [A], "mjrs-seat-S": [B], "mjrs-seat-W": [B],
                                        "mjrs-seat-N": [D]})
    assert "is named twice" in bad.reply.content and bad.reply.ephemeral and dump(h) == before
    done = await h.submit_modal(opened, {"mjrs-seat-E": [A], "mjrs-seat-S": [B], "mjrs-seat-W": [C],
                                         "mjrs-seat-N": [D]})
    rec = await last(h)
    assert done.reply.id == rec.message_id and not done.reply.ephemeral
    assert [(s.player_id, s.amount) for s in rec.seats] == [(A, 0), (B, 20), (C, -20), (D, 0)]
    assert rec.winner == 1 and rec.discarder == 2 and rec.variant == "hefei" and rec.proposer_id == B
    await press(h, rec, "Confirm", C)
    assert [(r[0], r[2], r[5], r[7]) for r in in_person_ledger(h)] == [(A, 0, 0, 0), (B, 20, 1, 0), (C, -20, 0, 1),
                                                                       (D, 0, 0, 0)]
    await h.close()


async def test_no_record_button_in_dms(h: Harness):
    r = await h.slash("score", user=B, hand=HEFEI, variant="hefei", guild=False)
    assert [b["label"] for b in r.reply.buttons()] == ["Notation help"]


async def test_discord_failing_to_post_the_card_withdraws_the_record(h: Harness, monkeypatch):
    import discord.webhook.async_ as webhook

    monkeypatch.setattr(webhook, "asyncio", _NoWaitAsyncio())
    fault = h.fake.fail(r"/webhooks/\d+/[^/]+/messages/@original$", status=503, method="PATCH", times=5)
    r = await record(h)
    assert fault.hits == 5
    # the answer fills the command's public "thinking" message: the channel learns the record is withdrawn
    assert "could not post the record's card" in r.reply.content and "nothing was recorded" in r.reply.content
    rec = await last(h)
    assert rec.status == "rejected" and rec.decided_by == 0 and rec.message_id is None
    assert in_person_ledger(h) == []
    r = await record(h)  # and again once Discord answers
    assert (await last(h)).message_id == r.reply.id


async def test_the_buttons_work_after_a_restart(h: Harness):
    await record(h)
    rec = await last(h)
    h = await h.restart()
    try:
        r = await press(h, rec, "Confirm", C)
        assert r.callback_type == 7 and (await get(h, rec.record_id)).status == "confirmed"
        assert len(in_person_ledger(h)) == 4
    finally:
        await h.close()


# ------------------------------------------------------------------------------------------------ review fixes


async def test_record_this_hand_keeps_the_wuhu_mode_of_the_score_answer(h: Harness):
    """/score mode:525 on a 315 server shows 525's amounts: the record made from its button pays those, not 315's
    (it recorded E -9 S +21 W -6 N -6, the 315 amounts, under an answer that said +48)."""
    h.seen.clear()
    r = await h.slash("score", user=B, hand=WUHU, variant="wuhu", winner="S", mode=525)
    assert "East -20 · South +48 (winner) · West -14 · North -14" in r.reply.content
    opened = await h.click(r.reply, label="Record this hand", user=B)
    await h.submit_modal(opened, {"mjrs-seat-E": [A], "mjrs-seat-S": [B], "mjrs-seat-W": [C], "mjrs-seat-N": [D]})
    rec = await last(h)
    assert [s.amount for s in rec.seats] == [-20, 48, -14, -14] and rec.rules["mode"] == 525
    assert h.seen.record_cards()[-1].payments == (-20, 48, -14, -14)
    assert f"South: <@{B}> +48 子" in card(h, rec).content and "mode 525" in card(h, rec).content
    await press(h, rec, "Confirm", A, permissions=ADMIN_PERMISSIONS)
    assert [r[2] for r in in_person_ledger(h)] == [-20, 48, -14, -14]
    # /record takes the mode too, as /score does; a forged mode is refused and stores nothing
    await record(h, hand=WUHU, winner=B, discarder=None, variant="wuhu", mode=525)
    assert [s.amount for s in (await last(h)).seats] == [-20, 48, -14, -14]
    before = dump(h)
    out = await h.send(*forged(h, r.reply.payload(), "mjrs:w999:S-:-:1:23456799m345p67s+8s", B))
    assert out.modal is not None
    bad = await h.submit_modal(out, {"mjrs-seat-E": [A], "mjrs-seat-S": [B], "mjrs-seat-W": [C],
                                     "mjrs-seat-N": [D]})
    assert "999" in bad.reply.content and bad.reply.ephemeral and dump(h) == before


async def test_a_bot_killed_between_the_last_confirmation_and_the_card_edit(h: Harness):
    """The settlement is committed, then the process dies before Discord gets the card's edit: after the restart
    the scheduler redraws the card (it kept its buttons and 'Waiting for 1 confirmation' forever)."""
    import asyncio

    await record(h)
    rec = await last(h)

    def killed(req) -> None:  # the process ends here: nothing after this line of the press runs
        if req.path.endswith("/callback"):
            raise asyncio.CancelledError

    h.fake.on_request.append(killed)
    data, _ = h.click_payload(card(h, rec), label="Confirm", user=C)
    h.bot._connection.parse_interaction_create(data)
    await h.settle()
    h.fake.on_request.remove(killed)
    assert (await get(h, rec.record_id)).status == "confirmed" and len(in_person_ledger(h)) == 4
    assert card(h, rec).buttons() != []  # the card still asks for the confirmation
    h = await h.restart()
    try:
        await cog(h).tick()
        assert card(h, rec).buttons() == [] and "Confirmed: in the ledger" in card(h, rec).content
        assert sql(h, "SELECT card_stale FROM records WHERE id = ?", (rec.record_id,)) == [(0,)]
        edits = len(h.fake.requests_to(rf"/messages/{rec.message_id}$", "PATCH"))
        await cog(h).tick()  # drawn once: the next tick leaves it alone
        assert len(h.fake.requests_to(rf"/messages/{rec.message_id}$", "PATCH")) == edits
    finally:
        await h.close()


async def test_a_card_whose_id_could_not_be_stored(h: Harness):
    """The card is posted but the database fails to note its message id: the proposer is not told that nothing
    changed (the record is live and its card works), and the first press remembers the card, so the expiry can
    redraw it."""
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("UPDATE records SET message_id")
    r = await record(h)
    rec = await last(h)
    assert rec.message_id is None and rec.status == "pending"
    assert [m.ephemeral for m in r.messages] == [False], [m.content for m in r.messages]
    assert "Waiting for 1 confirmation" in r.reply.content
    assert [m.pinged for m in h.channel() if "please confirm" in m.content] == [frozenset({C})]  # the call below it
    await h.click(r.reply, label="Reject", user=A)  # the card's id is remembered by the first press
    rec = await get(h, rec.record_id)
    assert rec.message_id == r.reply.id and rec.status == "rejected" and r.reply.buttons() == []


@pytest.mark.parametrize("rid", [2**63, 2**70, 10**40, 0])
async def test_a_forged_record_id_past_the_database(h: Harness, rid: int):
    """A custom id naming a record id larger than SQLite's integers answered 'Something went wrong' (an
    OverflowError in the driver): it is a record that does not exist."""
    await record(h)
    ours = await last(h)
    before = dump(h)
    out = await h.send(*forged(h, card(h, ours).payload(), f"mjrec:{GUILD_ID}:{rid}:ok", C,
                               permissions=ADMIN_PERMISSIONS))
    assert "no such record on this server" in out.reply.content and out.reply.ephemeral
    assert dump(h) == before


# Hands whose payments were worked out by hand from the rulings (docs/rules/) (seats E S W N = A B C D, E the dealer):
#   H4 base of HEFEI = 胡 5 + 门清 10 + 支 3 (11 万) + 缺门 1 + 卡 1 = 20; 庄分 1 x 庄数 on ron, 2 x 庄数 on self-draw
#   W8 清一色 (1 交): 315 pays 30 a payer (+10 self-drawn), 525 pays 50; W10 every win is paid by all three
#   W12 3对报警: E fed all three pungs of one suit, so E pays for all (90), whoever discarded
#   W10 点炮包三家 (house rule on): the discarder pays the three shares 4 + 3 + 3 of WUHU
#   C9 承包: S holds 3 口 of 万 from E and wins with 蜡子 (f = 3): W deals in: W 3 and E 3 more; self-draw: E 3f;
#      E deals in: E 3f
FLUSH = "1112223334569m+9m"
BAO3 = "4569m[111m:E][222m:E][333m:E]+9m"
CONTRACT = "4599m[1111m:E][2222m:E][3333m:E]+6m"
BY_HAND = [
    # variant, hand, winner, discarder, extra options, payments E S W N, 交 part E S W N (Wuhu)
    ("hefei", HEFEI, A, None, {"dealer_streak": 2}, [72, -24, -24, -24], None),
    ("hefei", HEFEI, B, None, {"dealer_streak": 3}, [-26, 66, -20, -20], None),
    ("hefei", HEFEI, A, C, {"dealer_streak": 2}, [22, 0, -22, 0], None),
    ("hefei", HEFEI, B, A, {"dealer_streak": 2}, [-22, 22, 0, 0], None),
    ("wuhu", FLUSH, B, None, {}, [-40, 120, -40, -40], [-40, 120, -40, -40]),
    ("wuhu", FLUSH, A, D, {"mode": 525}, [150, -50, -50, -50], [150, -50, -50, -50]),
    ("wuhu", BAO3, B, D, {}, [-90, 90, 0, 0], [-90, 90, 0, 0]),
    ("wuhu", WUHU, B, D, {"bao": True}, [0, 10, 0, -10], [0, 0, 0, 0]),
    ("wuhu", WUHU, B, None, {"mode": 525}, [-20, 48, -14, -14], [0, 0, 0, 0]),
    ("chizhou", CONTRACT, B, C, {}, [-3, 6, -3, 0], None),
    ("chizhou", CONTRACT, B, None, {}, [-9, 15, -3, -3], None),
    ("chizhou", CONTRACT, B, A, {}, [-9, 9, 0, 0], None),
]


@pytest.mark.parametrize("variant, hand, winner, discarder, extra, pays, jiao", BY_HAND)
async def test_amounts_worked_out_by_hand(h: Harness, variant: str, hand: str, winner: int, discarder: int | None,
                                          extra: dict, pays: list[int], jiao: list[int] | None):
    """The card (its text and the scene its image is drawn from), /score for the same input, the ledger rows and the
    in-person leaderboard all carry the amounts worked out by hand; the ledger is zero-sum."""
    extra = dict(extra)
    if extra.pop("bao", False):
        await h.bot.store.set_house_rules(GUILD_ID, A, "wuhu", {"dianpao_bao_san": True})
    h.seen.clear()
    seat = {A: "E", B: "S", C: "W", D: "N"}
    await record(h, hand=hand, variant=variant, winner=winner, discarder=discarder, **extra)
    rec = await last(h)
    assert [s.amount for s in rec.seats] == pays and sum(pays) == 0
    assert h.seen.record_cards()[-1].payments == tuple(pays)
    text = card(h, rec).content
    for p, amount in zip((A, B, C, D), pays, strict=True):
        assert f"<@{p}> {f'{amount:+d}' if amount else '0'} 子" in text
    payments_line = " · ".join(f"{w} {'+' if a > 0 else ''}{a}{' (winner)' if p == winner else ''}"
                               for w, a, p in zip(("East", "South", "West", "North"), pays, (A, B, C, D),
                                                  strict=True))
    assert payments_line in text
    scored = await h.slash("score", hand=hand, variant=variant, winner=seat[winner],
                           discarder=seat[discarder] if discarder else None, win=None if discarder else "self",
                           **extra)
    assert payments_line in scored.reply.content
    # every payer confirms their own; then the ledger and the board
    for p, amount in zip((A, B, C, D), pays, strict=True):
        if amount < 0:
            await press(h, rec, "Confirm", p)
    assert (await get(h, rec.record_id)).status == "confirmed"
    rows = in_person_ledger(h)
    assert [r[2] for r in rows] == pays and sum(r[2] for r in rows) == 0
    assert [r[4] for r in rows] == (jiao or [0, 0, 0, 0])
    assert [r[3] for r in rows] == ([a - j for a, j in zip(pays, jiao, strict=True)] if jiao else [0, 0, 0, 0])
    assert [bool(r[5]) for r in rows] == [p == winner for p in (A, B, C, D)]
    assert [bool(r[7]) for r in rows] == [p == discarder for p in (A, B, C, D)]
    board = board_of((await h.slash("leaderboard", variant=variant, source="in_person")).reply.content)
    assert {name: v[0] for name, v in board.items()} == {NAMES[p]: a for p, a in zip((A, B, C, D), pays,
                                                                                    strict=True)}


@pytest.mark.parametrize("locale, how", [("en-US", f"by robbing <@{C}>'s kong"), ("zh-CN", f"抢 <@{C}> 的杠"),
                                         ("zh-TW", f"搶 <@{C}> 的槓")])
async def test_a_robbed_kong_is_not_called_a_discard(h: Harness, locale: str, how: str):
    """Hefei 抢杠: the robbed player pays the three shares (H6); the card said '<@W>'s discard' (点炮)."""
    r = await record(h, situation="rob_kong", locale=locale)
    rec = await last(h)
    assert [s.amount for s in rec.seats] == [0, 62, -62, 0]
    assert how in r.reply.content.splitlines()[0]


@pytest.mark.parametrize("statement", ["SELECT id, hand_text, situation, message_id", "INSERT INTO records",
                                       "INSERT INTO record_seats", "INSERT INTO settings_audit"])
@pytest.mark.parametrize("locale, text", [("en-US", "The database could not save the record just now"),
                                          ("zh-CN", "数据库暂时无法保存这次记账"), ("zh-TW", "資料庫暫時無法保存這次記帳")])
async def test_a_failing_database_when_proposing(h: Harness, statement: str, locale: str, text: str):
    """The proposal's transaction fails anywhere: the player is told nothing was recorded (it said 'Something went
    wrong on our side'), nothing is kept, and the same /record works a moment later."""
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail(statement)
    before = dump(h)
    r = await record(h, locale=locale)
    assert flaky.hits == 1 and [m.content for m in r.messages] == [r.reply.content]
    assert text in r.reply.content and dump(h) == before
    r = await record(h, locale=locale)
    assert (await last(h)).message_id == r.reply.id


@pytest.mark.parametrize("locale, rob, earthly", [
    ("en-US", "name the player whose kong was robbed as the discarder", "the discarder is East (the dealer)"),
    ("zh-CN", "请把被抢杠的人填为点炮者", "点炮者是东家（庄家）"),
    ("zh-TW", "請把被搶槓的人填為放槍者", "放槍者是東家（莊家）"),
])
async def test_who_discarded_is_asked_in_the_words_of_the_options(h: Harness, locale: str, rob: str, earthly: str):
    """抢杠 with no discarder, 地胡 on a seat other than the dealer's: the refusal named the command line's
    '--from', which /record does not have."""
    before = dump(h)
    r = await record(h, discarder=None, situation="rob_kong", locale=locale)
    assert rob in r.reply.content and "--from" not in r.reply.content and r.reply.ephemeral
    r = await record(h, variant="wuhu", hand=WUHU, discarder=C, situation="earthly", locale=locale)
    assert earthly in r.reply.content and "--from" not in r.reply.content and r.reply.ephemeral
    assert dump(h) == before


async def test_the_same_hand_twice_while_it_waits(h: Harness):
    """Two players record the hand they just played (one typed it in Chinese numerals, one pressed 'Record this
    hand'), or a form is sent twice: both were stored, and confirming both counted the hand twice. The second is
    refused while the first waits, privately and in the player's language; a different hand, or the same one once
    the first is closed, is recorded."""
    await record(h)
    first = await last(h)
    before = dump(h)
    r = await record(h, user=C, hand="一二三四六七八九二二万 345s +5m", locale="zh-CN")
    assert f"这手牌已经作为记账 #{first.record_id} 在等待确认" in r.reply.content and r.reply.ephemeral
    assert dump(h) == before
    # two at once: the store tells them apart under its lock
    await press(h, first, "Reject", A)
    d1, r1 = h.slash_payload("record", user=B, hand=HEFEI, winner=B, discarder=C, variant="hefei", **SEATS)
    d2, r2 = h.slash_payload("record", user=C, hand=HEFEI, winner=B, discarder=C, variant="hefei", **SEATS)
    h.bot._connection.parse_interaction_create(d1)
    h.bot._connection.parse_interaction_create(d2)
    await h.settle()
    assert sql(h, "SELECT COUNT(*) FROM records WHERE status = 'pending'") == [(1,)]
    texts = [r1.reply.content, r2.reply.content]
    # the second is refused: told the card is on its way when it came before the first's card was posted (not sent
    # to a card that is not there yet), else sent to that card; which of the two depends on the machine's speed
    on_its_way = ["was recorded a moment ago as record #" in x and "its card is still on its way" in x for x in texts]
    waiting = ["is already waiting for confirmations as record #" in x for x in texts]
    assert sum(on_its_way) + sum(waiting) == 1, texts
    # another hand of the same players, and the same hand with another winner, are not the same record
    await record(h, winner=C, discarder=B)
    await record(h, hand=CHIZHOU, variant="chizhou", winner=D, discarder=None)
    assert sql(h, "SELECT COUNT(*) FROM records WHERE status = 'pending'") == [(3,)]


async def test_an_older_card_edit_landing_after_a_newer_one(h: Harness, monkeypatch):
    """Two payers confirm at once; Discord fails the first press's edit once, discord.py retries it after the second
    press's edit went through, so the card shows the older state (one ✅). The first press's edit does not clear
    the card's mark, and the next tick draws the state the database holds. (discord.py's wait before its retry is
    held here until the second edit is in: which lands last must not depend on the machine's speed.)"""
    import asyncio
    import types

    import discord.webhook.async_ as webhook_async

    gate = asyncio.Event()

    async def held(delay, result=None):
        await gate.wait()
        return result

    await record(h, hand=WUHU, winner=B, discarder=None, variant="wuhu")  # A, C and D pay
    rec = await last(h)
    fake_asyncio = types.SimpleNamespace(**{k: getattr(asyncio, k) for k in dir(asyncio) if not k.startswith("__")})
    fake_asyncio.sleep = held
    monkeypatch.setattr(webhook_async, "asyncio", fake_asyncio)
    fault = h.fake.fail(r"/interactions/\d+/[^/]+/callback", status=503, times=1)
    d1, r1 = h.click_payload(card(h, rec), label="Confirm", user=A)
    d2, r2 = h.click_payload(card(h, rec), label="Confirm", user=D)
    h.bot._connection.parse_interaction_create(d1)
    h.bot._connection.parse_interaction_create(d2)
    for _ in range(1000):  # the second press answered (the first one's retry held at the gate)
        if fault.hits == 1 and r2.callbacks:
            break
        await asyncio.sleep(0.01)
    assert r2.callback_type == 7 and not r1.callbacks
    gate.set()
    await h.settle()
    assert fault.hits == 1 and r1.callback_type == 7 and r2.callback_type == 7
    text = card(h, rec).content
    assert text.count("✅") == 1 and "Waiting for 2 confirmation" in text  # the older edit landed last
    assert [s.seat for s in (await get(h, rec.record_id)).waiting] == [2]
    await cog(h).tick()
    text = card(h, rec).content
    assert f"East: <@{A}> -9 子 ✅" in text and f"North: <@{D}> -6 子 ✅" in text
    assert "Waiting for 1 confirmation" in text
    assert sql(h, "SELECT card_stale FROM records WHERE id = ?", (rec.record_id,)) == [(0,)]


@pytest.mark.parametrize("locale, text", [("en-US", "only in a server"), ("zh-CN", "服务器"), ("zh-TW", "伺服器")])
async def test_record_and_its_buttons_sent_from_a_dm(h: Harness, locale: str, text: str):
    """A /record payload from a DM (guild_only only hides the command there) answered the generic apology: its
    members could not be converted. A record button pressed in a DM said 'another server'. Both say it works only
    in a server, and change nothing."""
    await record(h)
    rec = await last(h)
    before = dump(h)
    r = await h.slash("record", user=B, guild=False, hand=HEFEI, winner=B, discarder=C, locale=locale, **SEATS)
    assert text in r.reply.content and "went wrong" not in r.reply.content
    data, out = h._base(3, user=C, guild=False, channel=None, locale=locale, guild_locale=None, permissions=None,
                        name=None)
    data["data"] = {"custom_id": f"mjrec:{GUILD_ID}:{rec.record_id}:ok", "component_type": 2}
    data["message"] = {**card(h, rec).payload(), "channel_id": str(out.channel_id)}
    await h.send(data, out)
    assert text in out.reply.content and out.reply.ephemeral
    assert dump(h) == before


async def test_a_stored_hand_the_engine_no_longer_scores(h: Harness):
    """A record stored by an earlier version whose hand this engine refuses (a ruling changed): the scheduler raised
    on it and stopped, so no other card after it was ever redrawn, and a press on it answered the engine's refusal
    after its confirmation was saved. Its card is drawn from the stored amounts, without the breakdown."""
    await record(h)
    old = await last(h)
    await record(h, hand=CHIZHOU, variant="chizhou", winner=D, discarder=None)
    other = await last(h)
    await record(h, winner=C, discarder=B)
    third = await last(h)
    async with h.bot.store.transaction() as conn:  # as an earlier engine accepted them
        await conn.execute("UPDATE records SET hand_text = '123m456p789s5z(7777z)+5z' WHERE id IN (?, ?)",
                           (old.record_id, third.record_id))
    r = await press(h, third, "Confirm", B)
    assert r.callback_type == 7 and (await get(h, third.record_id)).status == "confirmed"
    assert "Confirmed: in the ledger" in card(h, third).content and f"West: <@{C}> +20 子" in card(h, third).content
    assert [r[2] for r in in_person_ledger(h)] == [0, -20, 20, 0]
    c = cog(h)
    c.clock = lambda: datetime.now(UTC) + timedelta(days=2)
    await c.tick()
    for rec in (old, other):
        assert card(h, rec).buttons() == [] and "Expired" in card(h, rec).content
    assert f"South: <@{B}> +20 子" in card(h, old).content
    assert sql(h, "SELECT COUNT(*) FROM records WHERE card_stale = 1") == [(0,)]


@pytest.mark.parametrize("value", [0, -1, 999, 169, "²", "24h", 2**70])
@pytest.mark.parametrize("locale, text", [("en-US", "must be 1-168 hours"), ("zh-CN", "1-168"), ("zh-TW", "1-168")])
async def test_the_expiry_setting_refuses_forged_values(h: Harness, value, locale: str, text: str):
    before = dump(h)
    data, r = h.slash_payload("settings", record_expiry_hours=3, permissions=ADMIN_PERMISSIONS, locale=locale)
    data["data"]["options"][0]["value"] = value
    out = await h.send(data, r)
    assert text in out.reply.content and out.reply.ephemeral and "went wrong" not in out.reply.content
    assert dump(h) == before


async def test_a_locked_database_at_a_confirmation_is_a_warning(h: Harness, caplog):
    """The database locked by another writer when a payer confirms passes by itself: the payer is told to press
    again and the log says so as a warning (as /correct, /export and /season do), not as an ERROR with a
    traceback."""
    await record(h)
    rec = await last(h)
    flaky = FlakyConnection.install(h.bot.store)
    flaky.fail("INSERT INTO ledger")  # "database is locked"
    caplog.clear()
    r = await press(h, rec, "Confirm", C)
    assert "could not save" in r.reply.content and r.reply.ephemeral
    mine = [x for x in caplog.records if x.name == "cogs.record"]
    assert [x.levelname for x in mine] == ["WARNING"], [(x.levelname, x.getMessage()) for x in mine]
    assert mine[0].exc_info is None and "locked" in mine[0].getMessage()
    assert not [x for x in caplog.records if x.levelno >= 40]


async def test_a_hand_proposed_before_a_season_start_counts_in_the_season_it_was_played_in(h: Harness):
    """A hand recorded (played) in season 1 and confirmed after ``/season start`` began season 2 counts in season
    1, where it was played, like a table's hand at its end; season 2 starts from nothing. The final board of season
    1, posted at the season's start, was drawn before the confirmation and does not show it (docs/record.md); the
    answer to /season start names the records still waiting."""
    from bot.store import group as gstore

    now = datetime.now(UTC)
    await gstore.start_season(h.bot.store, GUILD_ID, A, "Spring", ends_at=None, channel_id=CHANNEL_ID,
                              at=now - timedelta(hours=1))
    cog(h).clock = lambda: now - timedelta(minutes=30)  # the hand is proposed during season 1
    await record(h)
    rec = await last(h)
    started = await h.slash("season start", title="Summer", permissions=ADMIN_PERMISSIONS)
    [final] = [m for m in h.channel() if "Final board" in m.content]
    assert "Season 1 · Spring" in final.content and "Bob" not in final.content  # still waiting then
    # the admin is told which records still wait, and where they will count (they used to learn it from no one)
    assert (f"Still waiting for confirmations: #{rec.record_id} (recorded with /record during season 1)"
            in started.reply.content)
    assert "count in season 1, as played in it" in started.reply.content
    cog(h).clock = lambda: datetime.now(UTC)
    await press(h, rec, "Confirm", C)
    assert (await get(h, rec.record_id)).status == "confirmed"
    old = board_of((await h.slash("leaderboard", variant="hefei", season="1")).reply.content)
    assert old == {"Bob": (20, 1, 1), "張三": (-20, 1, 0), "小明": (0, 1, 0), "Dee": (0, 1, 0)}
    current = (await h.slash("leaderboard", variant="hefei")).reply.content
    assert "Season 2 · Summer" in current and board_of(current) == {}


async def test_a_card_discord_took_whose_answer_was_lost_is_posted_once(h: Harness, monkeypatch):
    """Discord took the card but its answer was lost (a 503 after the write): discord.py tried again and the
    command's answer, a follow-up with no nonce, became a second card with the same buttons, only one of which the
    bot kept up to date. The card is written into the command's deferred answer: the retry is the same message."""
    import discord.webhook.async_ as webhook

    monkeypatch.setattr(webhook, "asyncio", _NoWaitAsyncio())
    real, lost = h.fake.handle, []

    def handle(method, url, kwargs):
        answer = real(method, url, kwargs)
        if "/webhooks/" in url and method != "GET" and not lost:  # taken, then the answer lost on the way back
            lost.append(answer.status)
            return FakeResponse(503, {"message": "Service Unavailable", "code": 0})
        return answer

    monkeypatch.setattr(h.fake, "handle", handle)
    r = await record(h)
    assert lost == [200]
    rec = await last(h)
    cards = [m for m in h.channel() if m.buttons()]
    assert cards == [r.reply] and rec.message_id == r.reply.id and rec.status == "pending"
    assert "Hand played in person" in r.reply.content and r.reply.images
    await press(h, rec, "Confirm", C)
    assert (await get(h, rec.record_id)).status == "confirmed" and len(in_person_ledger(h)) == 4


@pytest.mark.parametrize("locale, words, confirm", [("en-US", "please confirm or reject record #", "Confirm"),
                                                     ("zh-CN", "请确认或拒绝", "确认")])
async def test_the_payers_the_card_waits_for_are_notified(h: Harness, locale: str, words: str, confirm: str):
    """The card names the payers who must confirm, but it is the command's deferred answer, and Discord notifies
    nobody named in one (filling it is an edit): a payer learnt of the record only by reading the channel. A line
    under the card names them as a new message, which notifies them, and nobody else (not the proposer, who pays
    too but has just sent the command)."""
    await record(h, locale=locale, variant="chizhou", hand=CHIZHOU, winner=D, discarder=None)  # A, B, C pay
    rec = await last(h)
    assert {s.player_id for s in rec.waiting} == {A, B, C} and rec.proposer_id == B
    notified = [m for m in h.channel() if m.pinged]
    assert [m.pinged for m in notified] == [frozenset({A, C})]
    assert words in notified[0].content and str(rec.record_id) in notified[0].content
    assert notified[0].id != rec.message_id and not notified[0].buttons()
    await press(h, rec, confirm, A)
    assert [m.pinged for m in h.channel() if m.pinged] == [frozenset({A, C})]  # a redraw notifies nobody again


async def test_the_call_to_confirm_discord_took_whose_answer_was_lost_notifies_once(h: Harness, monkeypatch):
    """The line under the card that notifies the payers was a follow-up, which carries no nonce: when Discord took
    it and its answer was lost (a 502 after the write), discord.py's retry posted a second line and notified them
    twice. It is a channel post with the record's nonce: the retry is the same message."""
    import discord.http as http

    monkeypatch.setattr(http, "asyncio", _NoWaitAsyncio())
    real, lost = h.fake.handle, []

    def handle(method, url, kwargs):
        answer = real(method, url, kwargs)
        if method == "POST" and (url.endswith(f"/channels/{CHANNEL_ID}/messages") or "/webhooks/" in url) and not lost:
            lost.append(answer.status)  # taken, then the answer lost on the way back (a 502 discord.py retries)
            return FakeResponse(502, {"message": "Bad Gateway", "code": 0})
        return answer

    monkeypatch.setattr(h.fake, "handle", handle)
    await record(h)
    assert lost == [200]
    rec = await last(h)
    calls = [m for m in h.channel() if "please confirm or reject record" in m.content]
    assert [m.pinged for m in calls] == [frozenset({C})] and rec.status == "pending"


async def test_the_payers_are_notified_where_the_bot_may_not_post(h: Harness):
    """/record needs no channel permission (the card is the command's answer), but the line notifying the payers is
    a channel post: where the bot may not post (403 Missing Permissions), it was lost and nobody was notified. It
    falls back to a follow-up of the command."""
    refused = h.fake.fail(f"^/channels/{CHANNEL_ID}/messages$", method="POST", status=403, code=50013,
                          times=10**9, message="Missing Permissions")
    await record(h)
    rec = await last(h)
    assert rec.status == "pending" and refused.hits == 1
    assert [m.pinged for m in h.channel() if m.pinged] == [frozenset({C})]
