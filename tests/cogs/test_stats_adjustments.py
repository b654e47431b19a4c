"""/stats of a player whose net adjustments made (``/correct adjust``).

The leaderboard ranks a member whose only entries are adjustments ("+25 子 · played 0"); /stats of that member used
to say privately that they had no hands "yet" and hid the net the board showed (README: adjustments count in
/leaderboard and /stats). It now shows the net and says it comes from adjustments; the text of a player with hands
says how much of the net adjustments made, as the image does."""

from __future__ import annotations

import re

import pytest

from tests.harness import ADMIN_PERMISSIONS, USER_ID, Harness

A, B, C, D = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3
NAMES = {A: "Ann", B: "Bob", C: "Cid", D: "Dee"}
SEATS = {"east": A, "south": B, "west": C, "north": D}
GONE = USER_ID + 50  # a member who has left the server


@pytest.fixture
async def h(harness: Harness):
    for p, n in NAMES.items():
        harness.fake.add_user(p, n)
    return harness


async def adjust(h: Harness, payer: int, payee: int, amount: int, reason: str = "owed from last night") -> None:
    r = await h.slash("correct adjust", payer=payer, payee=payee, amount=amount, reason=reason, variant="hefei",
                      permissions=ADMIN_PERMISSIONS)
    assert f"Adjustment: **{amount} 子** from" in r.reply.content, r.reply.content


@pytest.mark.parametrize(("locale", "said"), [
    ("en-US", "No hands yet · Net +25 子, all of it from adjustments (/correct adjust)."),
    ("zh-CN", "还没有对局 · 净输赢 +25 子，全部来自调整（/更正 调整）。"),
    ("zh-TW", "還沒有對局 · 淨輸贏 +25 子，全部來自調整（/更正 調整）。"),
])
async def test_a_member_with_adjustments_alone_is_shown_the_net_the_board_ranks(h: Harness, locale, said):
    await adjust(h, A, B, 25)
    board = (await h.slash("leaderboard", variant="hefei", user=B)).reply.content
    assert "**Bob** · +25 子 · played 0" in board
    for variant in ("hefei", None):  # one variant, and all variants together
        r = await h.slash("stats", player=B, user=B, locale=locale, **({"variant": variant} if variant else {}))
        assert said in r.reply.content, r.reply.content
        assert not r.reply.ephemeral and r.reply.images == []  # a record, in public; no chart of no hands
    payer = (await h.slash("stats", player=A, variant="hefei", user=B)).reply.content
    assert "No hands yet · Net -25 子, all of it from adjustments" in payer


async def test_a_player_whose_hands_were_voided_keeps_the_net_of_an_adjustment(h: Harness):
    r = await h.slash("record", user=B, hand="1234678922m345s+5m", winner=B, discarder=C, variant="hefei", **SEATS)
    assert "Hand played in person #1" in r.reply.content
    card = next(m for m in h.channel() if "Hand played in person #1" in m.content)
    await h.click(card, label="Confirm", user=C)
    hand = int(re.search(r"in the ledger as hand #(\d+)", h.fake.find_message(card.id).content).group(1))
    voided = await h.slash("correct void", hand=hand, reason="misrecorded", permissions=ADMIN_PERMISSIONS)
    assert voided.reply.content and "went wrong" not in voided.reply.content
    await adjust(h, C, B, 20, "settled in cash")
    r = await h.slash("stats", player=B, variant="hefei")
    assert "No hands yet · Net +20 子, all of it from adjustments" in r.reply.content


async def test_a_former_member_with_adjustments_alone_has_a_record_here(h: Harness):
    h.fake.add_user(GONE, "Gone")
    await adjust(h, GONE, B, 8, "paid back in cash")  # while they were a member
    data, rec = h.slash_payload("stats", player=GONE, variant="hefei")
    data["data"]["resolved"].get("members", {}).pop(str(GONE), None)  # they left: Discord sends the user alone
    r = await h.send(data, rec)
    assert "No hands yet · Net -8 子, all of it from adjustments" in r.reply.content
    assert "not a member" not in r.reply.content


async def test_the_text_says_how_much_of_a_players_net_adjustments_made(h: Harness):
    r = await h.slash("record", user=B, hand="1234678922m345s+5m", winner=B, discarder=C, variant="hefei", **SEATS)
    card = next(m for m in h.channel() if "Hand played in person #1" in m.content)
    await h.click(card, label="Confirm", user=C)
    await adjust(h, A, B, 5)
    r = await h.slash("stats", player=B, variant="hefei")
    assert "Hands 1 · Wins 1 (100%)" in r.reply.content and "Net +25 子" in r.reply.content
    assert "-# The net includes +5 子 of adjustments (/correct adjust)." in r.reply.content
    assert len(r.reply.images) == 1
    plain = (await h.slash("stats", player=C, variant="hefei")).reply.content  # no adjustment: no such line
    assert "Net -20 子" in plain and "adjustments" not in plain
