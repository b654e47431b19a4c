"""Issue 19: the server's AI difficulty (``/settings ai_difficulty``), through the real dispatch. A server whose
players practise against strong AIs sets it once; the lobby's Add AI button and ``/table addbot`` without a
difficulty then add AIs of that difficulty (an explicit ``difficulty:`` still wins), and the stored seats play so.
Changing it later changes no AI already seated, in a lobby or at a running table."""

from __future__ import annotations

import pytest

from tests.cogs.test_ai_pool import _check_replay
from tests.cogs.test_forged_options import forged_payload
from tests.cogs.test_settings import ADMIN, field
from tests.cogs.test_tables import P1, button_id, choose_click, latest_dm_controls, prep
from tests.harness import ADMIN_PERMISSIONS, MEMBER_PERMISSIONS, Harness

pytestmark = pytest.mark.both_backends


async def _set(h: Harness, value: str, locale: str = "en-US"):
    return await h.slash("settings", user=ADMIN, permissions=ADMIN_PERMISSIONS, locale=locale, ai_difficulty=value)


def _seats(h: Harness, lobby_id: int) -> list[str]:
    return h.fake.find_message(lobby_id).embeds[0]["fields"][0]["value"].splitlines()


@pytest.mark.parametrize(("locale", "name", "shown", "saved", "next_ai"), [
    ("en-US", "AI difficulty", "strong", "Saved", "The next AI added to a lobby"),
    ("zh-CN", "电脑难度", "强", "已保存", "之后加入牌桌的电脑"),
    ("zh-TW", "電腦難度", "強", "已儲存", "之後加入牌桌的電腦")])
async def test_an_admin_sets_the_ai_difficulty_in_settings_audited_and_shown(harness: Harness, locale: str, name: str,
                                                                             shown: str, saved: str, next_ai: str):
    h = harness
    r = await _set(h, "strong", locale)
    panel = r.reply
    assert panel.ephemeral and panel.visible_to == ADMIN
    assert saved in panel.content and f"{name}" in panel.content and shown in panel.content, panel.content
    assert next_ai in panel.content, "it says when it applies: to the next AI added, not to new tables"
    assert field(panel, name) == shown, "the panel shows the value now in force"
    assert (await h.bot.store.guild_settings(h.guild_id)).ai_difficulty == "strong"
    [entry] = await h.bot.store.settings_audit(h.guild_id)
    assert (entry.user_id, entry.field, entry.old_value, entry.new_value) == (ADMIN, "ai_difficulty", "normal",
                                                                             "strong")
    again = await h.slash("settings", user=ADMIN, permissions=ADMIN_PERMISSIONS, locale=locale)
    assert field(again.reply, name) == shown
    assert f"{name} → {shown}" in field(again.reply, "Recent changes" if locale == "en-US" else "最近")
    await _set(h, "strong", locale)  # the same value again: said so, no second audit row
    assert len(await h.bot.store.settings_audit(h.guild_id)) == 1


async def test_a_member_cannot_set_the_ai_difficulty(harness: Harness):
    h = harness
    r = await h.slash("settings", user=77, permissions=MEMBER_PERMISSIONS, ai_difficulty="strong")
    assert r.reply.ephemeral and "Manage Server" in r.reply.content and not r.reply.embeds
    assert (await h.bot.store.guild_settings(h.guild_id)).ai_difficulty == "normal"
    assert await h.bot.store.settings_audit(h.guild_id) == []


@pytest.mark.parametrize(("locale", "words"), [("en-US", ("ai_difficulty", "hard", "easy / normal / strong")),
                                               ("zh-CN", ("电脑难度", "hard", "简单 / 普通 / 强"))])
async def test_a_forged_ai_difficulty_is_refused_and_changes_nothing(harness: Harness, locale: str,
                                                                   words: tuple[str, ...]):
    h = harness
    r = await h.send(*forged_payload(h, "settings", "ai_difficulty", "hard", locale))
    assert r.reply.ephemeral and not r.reply.embeds
    assert all(w in r.reply.content for w in words), r.reply.content
    assert (await h.bot.store.guild_settings(h.guild_id)).ai_difficulty == "normal"
    assert await h.bot.store.settings_audit(h.guild_id) == []


async def test_add_ai_and_addbot_add_the_servers_difficulty_and_the_seats_play_it(harness: Harness):
    """Strong set on the server: the Add AI button and ``/table addbot`` add strong AIs, ``difficulty:easy`` an easy
    one; the match stores them so and each AI decides as its difficulty does, even after the server's setting
    changes in the middle of the match."""
    h = harness
    prep(h, seed=5)
    await _set(h, "strong")
    r = await h.slash("table new", variant="hefei", user=P1)
    lobby = h.fake.find_message(r.reply.id)
    await h.click(lobby, custom_id=button_id(lobby, ":addbot"), user=P1)  # the lobby's Add AI button
    await h.slash("table addbot", user=P1)  # no difficulty
    await h.slash("table addbot", user=P1, difficulty="easy")  # an explicit one wins
    await h.settle()
    assert _seats(h, r.reply.id)[1:] == ["2. 🤖 电脑1（强）", "3. 🤖 电脑2（强）", "4. 🤖 电脑3（简单）"]
    await h.click(h.fake.find_message(r.reply.id), custom_id=button_id(lobby, ":start"), user=P1)
    lt = h.bot.tables.by_channel[h.channel_id]
    m = await h.bot.store.match(lt.match_id)
    assert [s.ai for s in m.seats] == [None, "strong", "strong", "easy"]
    await _set(h, "easy")  # a running table keeps its AIs
    assert [s.ai for s in lt.seats if s is not None] == [None, "strong", "strong", "easy"]
    for _ in range(40):
        await h.settle()
        await h.bot.tables.wait_idle()
        msg = latest_dm_controls(h, P1)
        if lt.table is None or lt.table.phase not in ("play", "claim", "rob") or msg is None:
            break
        await h.click(msg, custom_id=choose_click(msg))
    assert await _check_replay(h, lt.match_id, [None, "strong", "strong", "easy"]) > 5
    await h.bot.tables.close()


async def test_an_ai_already_in_the_lobby_keeps_its_difficulty_when_the_setting_changes(harness: Harness):
    h = harness
    prep(h)
    r = await h.slash("table new", variant="wuhu", user=P1)
    lobby = h.fake.find_message(r.reply.id)
    await h.click(lobby, custom_id=button_id(lobby, ":addbot"), user=P1)  # the default: normal, as before
    await _set(h, "strong")
    await h.click(h.fake.find_message(r.reply.id), custom_id=button_id(lobby, ":addbot"), user=P1)
    await _set(h, "easy")
    h = await h.restart()  # the lobby is stored with its seats' difficulties
    prep(h)
    await h.slash("table addbot", user=P1)
    await h.settle()
    assert _seats(h, r.reply.id)[1:] == ["2. 🤖 电脑1（普通）", "3. 🤖 电脑2（强）", "4. 🤖 电脑3（简单）"]
    lt = h.bot.tables.by_channel[h.channel_id]
    assert [s.ai for s in lt.seats if s is not None] == [None, "normal", "strong", "easy"]
    await h.close()


@pytest.mark.parametrize("how", ["button", "slash"])
async def test_add_ai_reads_the_servers_settings_once(harness: Harness, how: str):
    """Add AI (the button, or ``/table addbot`` without a difficulty) read the server's settings twice: once for the
    interaction (its language) and again in the table manager for the AI difficulty, where every other click reads
    them at most once (``bot.interactions``). The second read was one more database round trip a click, and a store
    failing it alone answered "That did not work" instead of the interaction's own answer. One read serves both."""
    from tests.cogs.test_i18n import count_settings_reads

    h = harness
    prep(h)
    await _set(h, "strong")
    r = await h.slash("table new", variant="hefei", user=P1)
    lobby = h.fake.find_message(r.reply.id)
    reads = count_settings_reads(h)
    if how == "button":
        await h.click(lobby, custom_id=button_id(lobby, ":addbot"), user=P1, locale="fr")
    else:
        await h.slash("table addbot", user=P1, locale="fr")
    await h.settle()
    assert _seats(h, r.reply.id)[1] == "2. 🤖 电脑1（强）", "the server's difficulty"
    assert reads == [h.guild_id], "one read of the server's settings for the click"
