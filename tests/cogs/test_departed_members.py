"""A player who has left the server, named in a command (a mention or a pasted id: Discord then sends their user and
no member data), through the real discord.py dispatch: an admin settles their balance with ``/correct adjust``,
anyone pages through their ``/history``, a host replaces or kicks them at a table, and ``/record`` (and its form)
refuses them clearly; never the generic apology, never an error logged as a bug."""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta

import discord
import pytest
from discord import app_commands
from discord.app_commands.transformers import MemberTransformer

from bot.store import LedgerRow, SeatSpec, Store
from tests.cogs.test_table_admin import said
from tests.cogs.test_tables import P1, P2, live, open_table, prep
from tests.harness import ADMIN_PERMISSIONS, CHANNEL_ID, GUILD_ID, USER_ID, Harness
from tests.harness.db import dump

pytestmark = pytest.mark.both_backends

A, B, C, GONE, STRANGER = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 50, USER_ID + 60
SEATS = {"east": A, "south": B, "west": C, "north": GONE}
HEFEI = "1234678922m345s+5m"  # S wins on W's discard


@pytest.fixture
async def h(db_target):
    """Ann, Bob, Cid and 老王 played a hand on Discord yesterday (Cid dealt in to 老王 for 8); then 老王 left the
    server. Discord still knows him by his own name, "wang.global"."""
    store = await Store.open(db_target)
    at = datetime.now(UTC) - timedelta(days=1)
    seats = [SeatSpec.human(p, n) for p, n in ((A, "Ann"), (B, "Bob"), (C, "Cid"), (GONE, "老王"))]
    mid = await store.start_match(GUILD_ID, CHANNEL_ID, "hefei", {}, 1, seats, at=at)
    hid = await store.start_hand(mid, 0, "h0", None, at=at)
    await store.finish_hand(hid, [LedgerRow(0, 0), LedgerRow(1, 0), LedgerRow(2, -8, deal_in=True),
                                  LedgerRow(3, 8, won=True, hand_value=8)], at=at)
    await store.finish_match(mid, at=at)
    await store.close()
    harness = await Harness.boot(db_target)
    for p, n in ((A, "Ann"), (B, "Bob"), (C, "Cid"), (GONE, "wang.global"), (STRANGER, "stranger")):
        harness.fake.add_user(p, n)
    harness.fake.leave(GONE)
    harness.fake.leave(STRANGER)  # never played here
    try:
        yield harness
    finally:
        await harness.close()


def bugs(caplog) -> list[logging.LogRecord]:
    return [x for x in caplog.records if x.levelno >= logging.ERROR]


async def test_an_admin_settles_with_a_player_who_left(h: Harness, caplog):
    r = await h.slash("correct adjust", payer=GONE, payee=C, amount=8, reason="paid back in cash", variant="hefei",
                      permissions=ADMIN_PERMISSIONS)
    assert r.reply.content.startswith("Adjustment: **8 子** from 老王 to Cid (Hefei)")
    board = (await h.slash("leaderboard", variant="hefei")).reply.content
    assert "**老王** · 0 子" in board and "**Cid** · 0 子" in board  # settled, under the name the server knew
    assert "wang.global" not in board
    assert not bugs(caplog)


@pytest.mark.parametrize(("locale", "phrase"), [("en-US", "is not a member of this server and has no record here"),
                                                ("zh-CN", "不是本服务器的成员，这里也没有他的记录"),
                                                ("zh-TW", "不是本伺服器的成員，這裡也沒有他的記錄")])
async def test_someone_who_never_played_here_is_not_settled_with(h: Harness, caplog, locale, phrase):
    before = dump(h)
    r = await h.slash("correct adjust", payer=STRANGER, payee=C, amount=8, reason="typo", variant="hefei",
                      permissions=ADMIN_PERMISSIONS, locale=locale)
    assert r.reply.ephemeral and "stranger" in r.reply.content and phrase in r.reply.content
    r = await h.slash("history", player=STRANGER, locale=locale)
    assert r.reply.ephemeral and "stranger" in r.reply.content and phrase in r.reply.content
    assert dump(h) == before and not bugs(caplog)


async def test_the_history_of_a_player_who_left(h: Harness, caplog):
    r = await h.slash("history", player=GONE)
    text = r.reply.content
    assert r.reply.ephemeral and "老王" in text and "+8" in text
    assert not bugs(caplog)


@pytest.mark.parametrize(("locale", "phrase"), [("en-US", "is not a member of this server"),
                                                ("zh-CN", "不是本服务器的成员"), ("zh-TW", "不是本伺服器的成員")])
async def test_record_refuses_a_player_who_left(h: Harness, caplog, locale, phrase):
    before = dump(h)
    r = await h.slash("record", user=B, hand=HEFEI, winner=B, discarder=C, variant="hefei", locale=locale, **SEATS)
    text = r.reply.content
    assert r.reply.ephemeral and "wang.global" in text and phrase in text
    assert "/correct adjust" in text or "/更正 调整" in text or "/更正 調整" in text  # what to do instead
    assert h.channel() == [] and dump(h) == before and not bugs(caplog)


async def test_the_record_form_refuses_a_player_who_left(h: Harness, caplog):
    scored = await h.slash("score", hand=HEFEI, variant="hefei", winner="S", discarder="W")
    opened = await h.click(scored.reply, label="Record this hand", user=B)
    before = dump(h)
    r = await h.submit_modal(opened, {"mjrs-seat-E": [A], "mjrs-seat-S": [B], "mjrs-seat-W": [C],
                                      "mjrs-seat-N": [GONE]})
    assert r.reply.ephemeral and "wang.global is not a member of this server" in r.reply.content
    assert dump(h) == before and not bugs(caplog)


async def test_a_host_replaces_a_player_who_left_in_the_middle_of_a_match(h: Harness, caplog):
    prep(h)
    await open_table(h, "hefei", humans=(P1, P2))
    lt = live(h)
    h.fake.leave(P2)
    r = await h.slash("table replace", member=P2, user=P1, locale="en-US")
    assert "AI now plays for" in said(r)
    assert lt.seats[lt.seat_of(P2)].away == "replaced"
    assert not bugs(caplog)


async def test_no_command_option_takes_only_members(h: Harness):
    """Discord sends a user who left without member data: an option typed ``discord.Member`` fails converting them
    (discord.py's TransformerError) whatever the command would do with them. Every user option takes a user."""
    members = [f"/{cmd.qualified_name} {name}" for cmd in h.bot.tree.walk_commands()
               if isinstance(cmd, app_commands.Command) for name, p in cmd._params.items()
               if isinstance(p._annotation, MemberTransformer)]
    assert members == []
    users = [p for cmd in h.bot.tree.walk_commands() if isinstance(cmd, app_commands.Command)
             for p in cmd._params.values() if p.type is discord.AppCommandOptionType.user]
    assert len(users) >= 10  # /record's six, /correct adjust's two, /history, /stats, /table's ...


@pytest.mark.parametrize(("locale", "phrase"), [("en-US", "wang.global is not a member of this server"),
                                                ("zh-CN", "wang.global不是本服务器的成员"),
                                                ("zh-TW", "wang.global不是本伺服器的成員")])
async def test_a_member_option_naming_a_user_who_left_is_answered_as_such(h: Harness, caplog, locale, phrase):
    """Should a command take ``discord.Member`` again, the error handler says what is wrong with the choice (not
    "try again": the same choice fails the same way) and logs no bug."""

    @app_commands.command(name="pick", description="pick a member")
    async def pick(interaction: discord.Interaction, member: discord.Member) -> None:
        await interaction.response.send_message(member.display_name)

    h.bot.tree.add_command(pick)
    r = await h.slash("pick", member=GONE, locale=locale)
    assert r.reply.ephemeral and phrase in r.reply.content
    assert "try again" not in r.reply.content and "再试" not in r.reply.content and not bugs(caplog)
