"""A dissolve (解散) vote's message shows its tally, through the real discord.py dispatch: after every answer it says
who agreed and who refused and how many more agreeing end the match at once, with its deadline; each click on it is
answered by updating the message itself (UPDATE_MESSAGE: one request, exempt from the global budget), and a vote
kept over a restart shows the same tally.
"""

from __future__ import annotations

import sys

import pytest

from bot.i18n import t
from bot.tables.strings import shown_name
from tests.cogs.test_table_admin import VoteClock, said, vote_message
from tests.cogs.test_tables import P1, P2, P3, P4, live, open_table, prep
from tests.harness import Harness
from tests.harness.fake import user_payload

pytestmark = pytest.mark.both_backends

HOSTILE = "<@123456789012345678> **P3** @everyone"  # a display name that would ping and restyle the message if it were not escaped
DEADLINE = "<t:1800000060:R>"  # VoteClock's now plus the vote's minute, as Discord shows a time to each reader

# what the vote message says, by the table's language: the proposal, then after P2 agrees and P3 refuses
WORDS = {
    "en": ("player7001 proposes to dissolve (解散) this match", "Agree (1): player7001", "Refuse (0): —",
           "It ends at once when 3 of the 4 players agree: 2 more needed.",
           "Agree (2): player7001, player7002", "Refuse (1): ",
           "It ends at once when 3 of the 4 players agree: 1 more needed.",
           "Agree (3): player7001, player7002, player7004", "The dissolve vote passed."),
    "zh": ("player7001 提议解散这一局", "同意（1）：player7001", "拒绝（0）：—", "全部 4 位玩家中有 3 位同意即立刻结束：还差 2 位。",
           "同意（2）：player7001、player7002", "拒绝（1）：", "全部 4 位玩家中有 3 位同意即立刻结束：还差 1 位。",
           "同意（3）：player7001、player7002、player7004", "解散投票通过。"),
    "zh-TW": ("player7001 提議解散這一局", "同意（1）：player7001", "拒絕（0）：—", "全部 4 位玩家中有 3 位同意即立刻結束：還差 2 位。",
              "同意（2）：player7001、player7002", "拒絕（1）：", "全部 4 位玩家中有 3 位同意即立刻結束：還差 1 位。",
              "同意（3）：player7001、player7002、player7004", "解散投票通過。"),
}


async def four_friends(h: Harness, lang: str) -> None:
    """Four humans at a Hefei table whose server speaks ``lang``; P3's display name is hostile."""
    prep(h)
    await h.bot.store.update_guild_settings(h.guild_id, 1, {"language": lang})
    h.fake.users[P3] = {**user_payload(P3, "p3"), "global_name": HOSTILE}
    await open_table(h, "hefei", humans=(P1, P2, P3, P4))


def answer(vm, yes: bool) -> str:
    return next(c["custom_id"] for c in vm.buttons() if c["custom_id"].endswith(":y" if yes else ":n"))


async def click(h: Harness, vm, user: int, yes: bool):
    """``user`` answers on the vote message: the answer, and every request the bot made for it."""
    n = len(h.fake.requests)
    r = await h.click(h.fake.find_message(vm.id), custom_id=answer(vm, yes), user=user, locale="en-US")
    await h.bot.tables.wait_idle()
    return r, h.fake.requests[n:]


def only_the_answer(r, requests) -> None:
    """The click cost one request: its response, which updated the clicked message (no followup, no edit)."""
    assert r.callback_type == 7 and not said(r)
    assert [(q.method, q.path) for q in requests] == [("POST", f"/interactions/{r.id}/{r.token}/callback")]


@pytest.mark.parametrize("lang", ["en", "zh", "zh-TW"])
async def test_the_vote_message_shows_who_answered_and_how_many_more_end_it(harness: Harness, lang: str):
    h = harness
    VoteClock(h)
    await four_friends(h, lang)
    (proposal, yes1, no0, need2, yes2, no1, need1, yes3, passed) = WORDS[lang]
    await h.slash("table dissolve", user=P1, locale="en-US")
    vm = vote_message(h)
    lines = vm.content.split("\n")
    assert proposal in lines[0] and DEADLINE in lines[0]
    assert lines[1:] == [yes1, no0, need2]
    # P2 agrees: the clicked message itself shows it, its buttons still there
    r, requests = await click(h, vm, P2, True)
    only_the_answer(r, requests)
    vm = h.fake.find_message(vm.id)
    assert vm.content.split("\n")[1:] == [yes2, no0, need1]
    assert len(vm.buttons()) == 2 and DEADLINE in vm.content
    # P3 refuses: named as typed, escaped (no ping, no bold)
    r, requests = await click(h, vm, P3, False)
    only_the_answer(r, requests)
    vm = h.fake.find_message(vm.id)
    lines = vm.content.split("\n")
    assert lines[1:] == [yes2, no1 + shown_name(HOSTILE), need1]
    assert "<@123456789012345678>" not in vm.content and "@everyone" not in vm.content and "**" not in vm.content
    # P4 agrees: 3 of 4, passed; the click's own answer says so on the message and takes its buttons away
    lt = live(h)
    r, requests = await click(h, vm, P4, True)
    assert r.callback_type == 7 and not said(r) and not r.followups
    assert not [q for q in requests if q.path.endswith(f"/messages/{vm.id}") or q.transport == "webhook"
                and "/callback" not in q.path]
    vm = h.fake.find_message(vm.id)
    lines = vm.content.split("\n")
    assert lines[1:] == [yes3, no1 + shown_name(HOSTILE), passed] and not vm.buttons()
    assert lt.closed and (await h.bot.store.match(lt.match_id)).status == "aborted"


async def test_a_vote_kept_over_a_restart_shows_the_same_tally(harness: Harness):
    h = harness
    clock = VoteClock(h)
    await four_friends(h, "en")
    (_, _, no0, _, yes2, no1, need1, yes3, passed) = WORDS["en"]
    await h.slash("table dissolve", user=P1, locale="en-US")
    vm = vote_message(h)
    await click(h, vm, P2, True)
    before = h.fake.find_message(vm.id).content
    assert before.split("\n")[1:] == [yes2, no0, need1]

    def frozen_wall(bot) -> None:
        bot.tables.wall = lambda: clock.now

    h2 = await h.kill(prepare=frozen_wall)
    try:
        prep(h2)
        await h2.bot.tables.wait_idle()
        # written once at start-up, with what it shows already (the store does not keep what the message says)
        assert len(h2.fake.requests_to(f"/messages/{vm.id}$")) <= 1
        assert h2.fake.find_message(vm.id).content == before and len(h2.fake.find_message(vm.id).buttons()) == 2
        r, requests = await click(h2, vm, P3, False)
        only_the_answer(r, requests)
        after = h2.fake.find_message(vm.id).content
        assert after == before.replace(no0, no1 + shown_name(HOSTILE))
        r, _ = await click(h2, vm, P4, True)
        msg = h2.fake.find_message(vm.id)
        assert msg.content.split("\n")[1:] == [yes3, no1 + shown_name(HOSTILE), passed] and not msg.buttons()
        assert after.split("\n")[0] == msg.content.split("\n")[0] and DEADLINE in msg.content
    finally:
        await h2.close()


async def test_an_answer_stored_before_a_kill_shows_on_the_vote_message_after_the_restart(harness: Harness):
    """P2's answer is stored, but neither the click's response nor the edit that stands in for it reaches Discord
    before the bot is killed: the restarted bot writes the stored tally on the vote message, once."""
    h = harness
    clock = VoteClock(h)
    await four_friends(h, "en")
    (_, yes1, no0, need2, yes2, no1, need1, _, _) = WORDS["en"]
    await h.slash("table dissolve", user=P1, locale="en-US")
    vm = vote_message(h)
    data, rec = h.click_payload(vm, custom_id=answer(vm, True), user=P2, locale="en-US")
    h.fake.expire(rec)  # the click's response is lost ...
    edit = h.fake.fail(f"^/channels/\\d+/messages/{vm.id}$", method="PATCH", status=403, code=50001,
                       message="Missing Access")  # ... and so is the edit that stands in for it
    await h.send(data, rec)
    await h.bot.tables.wait_idle()
    assert edit.hits == 1 and live(h).vote.yes == {P1, P2}  # stored
    assert h.fake.find_message(vm.id).content.split("\n")[1:] == [yes1, no0, need2]

    def frozen_wall(bot) -> None:
        bot.tables.wall = lambda: clock.now

    h2 = await h.kill(prepare=frozen_wall)
    try:
        prep(h2)
        n = len(h2.fake.requests_to(f"/messages/{vm.id}$"))
        await h2.bot.tables.wait_idle()
        assert len(h2.fake.requests_to(f"/messages/{vm.id}$")) - n <= 1
        msg = h2.fake.find_message(vm.id)
        assert msg.content.split("\n")[1:] == [yes2, no0, need1] and len(msg.buttons()) == 2
        r, requests = await click(h2, msg, P3, False)  # the next answer adds to it as usual
        only_the_answer(r, requests)
        assert h2.fake.find_message(vm.id).content.split("\n")[1:] == [yes2, no1 + shown_name(HOSTILE), need1]
    finally:
        await h2.close()


@pytest.mark.parametrize("lang", ["en", "zh", "zh-TW"])
async def test_a_click_that_loses_the_race_to_the_deciding_one_is_told_the_vote_passed(harness: Harness, lang: str):
    """P2, P4 and P3 agree at the same moment: P4's answer passes the vote and the match is dissolved; P3's, decided
    after, is told privately that the vote passed (it was "That vote is over; nothing was changed")."""
    h = harness
    VoteClock(h)
    await four_friends(h, "en")
    (*_, yes3, passed) = WORDS["en"]
    await h.slash("table dissolve", user=P1, locale="en-US")
    vm = vote_message(h)
    lt = live(h)
    locale = {"en": "en-US", "zh": "zh-CN", "zh-TW": "zh-TW"}[lang]
    clicks = [h.click_payload(vm, custom_id=answer(vm, True), user=u, locale=locale) for u in (P2, P4, P3)]
    for data, _ in clicks:  # parsed back to back: three clicks at once
        h.bot._connection.parse_interaction_create(data)
    await h.settle()
    await h.bot.tables.wait_idle()
    msg = h.fake.find_message(vm.id)
    assert msg.content.split("\n")[1:] == [yes3, WORDS["en"][2], passed] and not msg.buttons()
    assert lt.closed and (await h.bot.store.match(lt.match_id)).status == "aborted"
    late = clicks[2][1]
    assert said(late) == t("tables.vote_passed", lang) and late.reply.ephemeral


async def test_a_slow_answer_is_deferred_and_shows_the_tally_all_the_same(harness: Harness, monkeypatch):
    """An answer not decided within the click's window (a busy store) is deferred first; the vote message then shows
    the tally through the interaction's own token (no request against the global budget)."""
    h = harness
    await four_friends(h, "en")
    (_, _, no0, _, yes2, _, need1, _, _) = WORDS["en"]
    await h.slash("table dissolve", user=P1, locale="en-US")
    vm = vote_message(h)
    monkeypatch.setattr(sys.modules[type(h.bot.get_cog("Tables")).__module__], "ANSWER_WITHIN", 0.0)  # deferred
    r, requests = await click(h, vm, P2, True)
    assert r.callback_type == 6 and not said(r)
    assert not [q for q in requests if q.transport == "http"]
    msg = h.fake.find_message(vm.id)
    assert msg.content.split("\n")[1:] == [yes2, no0, need1] and len(msg.buttons()) == 2


async def test_an_answer_whose_response_fails_is_shown_by_one_edit(harness: Harness):
    """The click's response does not reach Discord (it came too late: Unknown interaction): the answer was counted
    (stored), so the vote message shows it all the same, by one edit of the message."""
    h = harness
    await four_friends(h, "en")
    (_, _, no0, _, yes2, _, need1, _, _) = WORDS["en"]
    await h.slash("table dissolve", user=P1, locale="en-US")
    vm = vote_message(h)
    n = len(h.fake.requests)
    data, r = h.click_payload(vm, custom_id=answer(vm, True), user=P2, locale="en-US")
    h.fake.expire(r)
    await h.send(data, r)
    await h.bot.tables.wait_idle()
    assert not r.responded
    edits = [q for q in h.fake.requests[n:] if q.method == "PATCH" and q.path.endswith(f"/messages/{vm.id}")]
    assert len(edits) == 1 and "components" not in edits[0].json  # its buttons stay
    msg = h.fake.find_message(vm.id)
    assert msg.content.split("\n")[1:] == [yes2, no0, need1] and len(msg.buttons()) == 2
    assert live(h).vote is not None and live(h).vote.yes == {P1, P2}


async def test_a_table_ended_during_a_vote_says_so_on_the_vote_message(harness: Harness):
    h = harness
    VoteClock(h)
    await four_friends(h, "en")
    await h.slash("table dissolve", user=P1, locale="en-US")
    vm = vote_message(h)
    await click(h, vm, P2, True)
    await h.slash("table end", user=P1, locale="en-US")  # the host ends the match while the vote is open
    await h.bot.tables.wait_idle()
    vm = h.fake.find_message(vm.id)
    lines = vm.content.split("\n")
    assert lines[-1] == "The table has ended, and this vote with it." and not vm.buttons()
    assert "nothing was changed" not in vm.content  # (the words for a click on a vote already over)


@pytest.mark.parametrize("ended_by", ["passing", "table end"])
async def test_a_click_after_the_table_is_gone_is_told_how_the_vote_ended(harness: Harness, ended_by: str):
    """P3's screen still shows the vote's buttons (the edit that took them away has not reached it) when the match
    ends - by the answer that passed the vote, or by the host's /table end - and P3's click comes a moment after the
    table is gone: P3 is told how the vote ended, not that nothing was changed."""
    h = harness
    VoteClock(h)
    await four_friends(h, "en")
    await h.slash("table dissolve", user=P1, locale="en-US")
    vm = vote_message(h)
    lt = live(h)
    yes = answer(vm, True)
    late_data, late = h.click_payload(vm, custom_id=yes, user=P3, locale="en-US")  # made while the buttons show
    if ended_by == "passing":
        for u in (P2, P4):  # P4's answer passes the vote
            data, _ = h.click_payload(vm, custom_id=yes, user=u, locale="en-US")
            h.bot._connection.parse_interaction_create(data)
            await h.settle()
            await h.bot.tables.wait_idle()
    else:
        await h.slash("table end", user=P1, locale="en-US")
        await h.bot.tables.wait_idle()
    assert lt.closed and lt.match_id not in h.bot.tables.by_id
    h.bot._connection.parse_interaction_create(late_data)
    await h.settle()
    await h.bot.tables.wait_idle()
    told = {"passing": "The dissolve vote passed.", "table end": "The table has ended, and this vote with it."}
    assert said(late) == told[ended_by] and "nothing was changed" not in said(late)
