"""``/record``'s ``others`` (and the "Record this hand" form's field): the other seats' shown melds, so that Chizhou's
反包 (ruling C9) is judged for a hand played in person as at a table; without them the card says it was not judged;
bad input and other variants are refused and change nothing. Through the real discord.py dispatch."""

from __future__ import annotations

import pytest

from bot.store import records as rstore
from engine.tiles import parse_hand
from engine.variants import Situation, get_variant
from tests.harness import GUILD_ID, USER_ID, Harness
from tests.harness.db import dump, sql

pytestmark = pytest.mark.both_backends

A, B, C, D = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3
NAMES = {A: "小明", B: "Bob", C: "張三", D: "Dee"}
SEATS = {"east": A, "south": B, "west": C, "north": D}
# S (Bob) self-draws (f = 1); W (張三) holds three 口 of 万 fed by S and no 花: W pays 3 x f (反包, C9)
HAND = "123m456p78s11z(5555z)+9s"
W_MELDS = "W[123m:S][456m:S][789m:S][555p:N]"
AT_TABLE = (-1, 5, -3, -1)


@pytest.fixture
async def h(harness: Harness):
    for p, n in NAMES.items():
        harness.fake.add_user(p, n)
    return harness


async def record(h: Harness, *, locale: str = "en-US", variant: str = "chizhou", hand: str = HAND, **kw):
    return await h.slash("record", user=B, hand=hand, winner=B, locale=locale, variant=variant, **SEATS, **kw)


async def last(h: Harness) -> rstore.Record:
    rid = sql(h, "SELECT id FROM records WHERE guild_id = ? ORDER BY id DESC LIMIT 1", (GUILD_ID,))[0][0]
    return await rstore.get(h.bot.store, GUILD_ID, rid)


def ledger(h: Harness) -> list[tuple]:
    return sql(h, "SELECT seat, amount FROM ledger WHERE source = 'in_person' ORDER BY seat")


async def confirm_all(h: Harness, rec: rstore.Record, label: str = "Confirm") -> str:
    for p in (A, C, D):  # the three payers
        await h.click(h.fake.find_message(rec.message_id), label=label, user=p)
    return h.fake.find_message(rec.message_id).content


def test_the_table_pays_the_reverse_contract():
    """The figures the record must reach: the engine given the table's melds (as tests/engine/test_chizhou.py)."""
    hand = parse_hand(HAND)
    w = parse_hand("1z" + W_MELDS[1:] + "+1z").melds
    at_table = get_variant("chizhou").score(hand, Situation(winner=1, melds_by_seat=((), hand.melds, w, ())), {})
    assert at_table.payments == AT_TABLE


async def test_reverse_contract_reaches_the_card_and_the_ledger(h: Harness):
    r = await record(h, others=W_MELDS + " N")  # N: no melds, said outright
    rec = await last(h)
    assert [s.amount for s in rec.seats] == list(AT_TABLE)
    text = r.reply.content
    assert f"South: <@{B}> +5 子" in text and f"West: <@{C}> -3 子 ⏳" in text
    assert "Other seats' melds: West [123m:S][456m:S][789m:S][555p:N]" in text
    assert "Reverse contract" in text or "反包" in text.split("\n\n", 1)[1]  # the breakdown names the contract
    after = await confirm_all(h, rec)
    assert "Confirmed" in after and f"West: <@{C}> -3 子 ✅" in after  # redrawn from what was stored
    assert ledger(h) == list(enumerate(AT_TABLE))


async def test_without_the_other_melds_the_card_says_reverse_contracts_were_not_judged(h: Harness):
    r = await record(h)
    assert [s.amount for s in (await last(h)).seats] == [-1, 3, -1, -1]
    assert "not entered: contracts on them (反包) are not judged" in r.reply.content
    zh = await h.slash("record", user=B, hand=HAND, winner=B, locale="zh-CN", variant="chizhou", others="-",
                       **{**SEATS, "east": C, "west": A})  # none shown: said, and the line about 反包 goes
    assert "他家副露：无" in zh.reply.content and "不判反包" not in zh.reply.content
    tw = await h.slash("record", user=C, hand=HAND, winner=B, locale="zh-TW", variant="chizhou",
                       **{**SEATS, "east": D, "north": A})  # other seats: another record
    assert "沒有填寫其他幾家的副露：不判反包" in tw.reply.content


@pytest.mark.parametrize(("first", "second", "locale", "said"), [
    (None, "-", "en-US", "This hand is already waiting for confirmations as record #1"),
    (None, W_MELDS, "zh-CN", "这手牌已经作为记账 #1 在等待确认"),
    (W_MELDS, None, "zh-TW", "這手牌已經作為記帳 #1 在等待確認"),
    ("W[123m:S][456m:S]", "W[456m:S][123m:S]", "en-US", "as record #1"),
    (None, "N", "en-US", "as record #1"),
])
async def test_the_same_hand_with_other_melds_is_the_same_record(h: Harness, first, second, locale: str, said: str):
    """The same hand of the same players, recorded while the first waits with the melds, without them, with ``-``
    or in another order: refused with the first record's number, else both are confirmed and the hand counts twice.
    Rejecting the first lets it be recorded again with the melds."""
    await record(h, **({} if first is None else {"others": first}))
    rec = await last(h)
    before = dump(h)
    r = await h.slash("record", user=C, hand=HAND, winner=B, locale=locale, variant="chizhou", **SEATS,
                      **({} if second is None else {"others": second}))
    assert r.reply.ephemeral and said in r.reply.content, r.reply.content
    assert dump(h) == before
    await h.click(h.fake.find_message(rec.message_id), label="Reject", user=C)
    again = await record(h, others=W_MELDS)
    assert not again.reply.ephemeral, again.reply.content
    await confirm_all(h, await last(h))
    assert ledger(h) == list(enumerate(AT_TABLE))  # one hand, counted once, with 反包


@pytest.mark.parametrize(("others", "locale"), [
    ("W［123m：S］［456m：S］［789m：S］［555p：N］", "zh-CN"),  # a Chinese keyboard in full-width mode
    ("Ｗ［１２３ｍ：Ｓ］［456m:S］［789m:S］［555p:N］", "zh-TW"),
    ("西［123m：南］［456m：南］［789m：南］［555p：北］", "zh-CN"),
    ("西家[123m:南][456m:南][789m:南][555p:北]", "zh-TW"),
    ("WEST[123m:S][456m:S][789m:S][555p:N]", "en-US"),  # not the seats W, E, S (the winner) and T
    ("west: [123m:S][456m:S][789m:S][555p:N] -", "en-US"),  # a trailing "nothing else"
    ("w[123m:S][456m:S][789m:S][555p:N] n", "en-US"),  # lower case: not a suit when it stands alone
])
async def test_other_melds_typed_as_players_type_them(h: Harness, others: str, locale: str):
    """Full-width text (refused before with a false "the meld is never closed"), a seat's name, lower-case seat
    letters and a trailing ``-`` are read as the table's melds: the card and the ledger as with ``W_MELDS``."""
    r = await record(h, others=others, locale=locale)
    assert not r.reply.ephemeral, r.reply.content
    assert "[123m:S][456m:S][789m:S][555p:N]" in r.reply.content
    rec = await last(h)
    assert [s.amount for s in rec.seats] == list(AT_TABLE)
    await confirm_all(h, rec, {"en-US": "Confirm", "zh-CN": "确认", "zh-TW": "確認"}[locale])
    assert ledger(h) == list(enumerate(AT_TABLE))


@pytest.mark.parametrize(("others", "locale", "said"), [
    ("W[123m:S] none", "en-US", "West's melds cannot be read"),  # a word is not read as seats N, O, N, E
    ("s[123m:E]", "en-US", "South is the winner"),
    ("[123m:S]", "en-US", "Write each seat's melds after its letter"),
    ("S[123m:E]", "en-US", "South is the winner: the winner's melds go in the hand"),
    ("W[123m:S] W[456m:S]", "en-US", "West is written twice"),
    ("W123m", "en-US", "Only shown melds in brackets go in West's part"),
    ("W[124m:S]", "en-US", "West's melds cannot be read: a chi must be three consecutive tiles"),
    ("W[555p:W]", "en-US", "West's meld [555p:W] cannot come from West's own discard"),
    ("W[123m:E]", "en-US", "West's chi [123m:E] can only come from the seat before it (South)"),
    ("W[555z:S]", "en-US", "five copies of 5z"),
    ("N[111m][222m][333m][444m][555m]", "en-US", "North cannot show more than four melds"),
    ("S[123m:E]", "zh-CN", "南家是和牌者：和牌者的副露写在手牌里"),
    ("W[123m:E]", "zh-TW", "西家的吃 [123m:E] 只能吃上家（南家）的牌"),
])
async def test_bad_other_melds_are_refused_and_nothing_is_stored(h: Harness, others: str, locale: str, said: str):
    before = dump(h)
    r = await record(h, others=others, locale=locale)
    assert r.reply.ephemeral and said in r.reply.content, r.reply.content
    assert "Traceback" not in r.reply.content and dump(h) == before


@pytest.mark.parametrize(("variant", "hand", "locale", "said"), [
    ("hefei", "1234678922m345s+5m", "en-US", "The option others is for Chizhou's contracts (反包): Hefei does not"),
    ("wuhu", "23456799m345p67s+8s", "zh-CN", "选项「他家副露」用于池州的反包：芜湖不看其他几家的副露"),
])
async def test_other_variants_refuse_the_option(h: Harness, variant: str, hand: str, locale: str, said: str):
    before = dump(h)
    r = await record(h, variant=variant, hand=hand, others="W[555p:S]", locale=locale)
    assert r.reply.ephemeral and said in r.reply.content, r.reply.content
    assert dump(h) == before
    ok = await record(h, variant=variant, hand=hand)  # without it: recorded, and no word about 反包
    assert not ok.reply.ephemeral and "反包" not in ok.reply.content


async def test_record_this_hand_form_takes_the_other_melds_in_chizhou(h: Harness):
    r = await h.slash("score", user=B, hand=HAND, variant="chizhou", winner="S")
    opened = await h.click(r.reply, label="Record this hand", user=B)
    assert opened.modal is not None
    assert [c["label"] for c in opened.modal["components"]][-1] == "Other seats' melds (for 反包)"
    seats = {"mjrs-seat-E": [A], "mjrs-seat-S": [B], "mjrs-seat-W": [C], "mjrs-seat-N": [D]}
    before = dump(h)
    bad = await h.submit_modal(opened, {**seats, "mjrs-others": "S[123m:E]"})
    assert bad.reply.ephemeral and "the winner's melds go in the hand" in bad.reply.content and dump(h) == before
    await h.submit_modal(opened, {**seats, "mjrs-others": W_MELDS})
    rec = await last(h)
    assert [s.amount for s in rec.seats] == list(AT_TABLE)
    await confirm_all(h, rec)
    assert ledger(h) == list(enumerate(AT_TABLE))
    hefei = await h.slash("score", user=B, hand="1234678922m345s+5m", variant="hefei", winner="S", discarder="W")
    form = await h.click(hefei.reply, label="Record this hand", user=B)
    assert form.modal is not None and len(form.modal["components"]) == 4  # no such field where it cannot count
