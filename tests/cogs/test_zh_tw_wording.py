"""Traditional Chinese as a reader in Taiwan sees it, through the real dispatch (found by an independent review):
OpenCC's wrong characters (只 "only" written as the measure word 隻), a word said twice, mainland quotes and 消息.
Every catalogue text is checked for the same mistakes in tests/text/test_catalog.py."""

from __future__ import annotations

from tests.cogs.test_tables import P1, open_table, prep
from tests.harness import Harness


async def test_the_eight_of_a_suit_refusal_says_only_not_the_measure_word(harness: Harness):
    # a Wuhu hand without 八支 (eight of one suit): it read "這手牌最多隻有 6 張"
    r = await harness.slash("score", hand="11123m456p789s12s+3s", variant="wuhu", locale="zh-TW")
    first = r.reply.content.splitlines()[0]
    assert r.reply.ephemeral and "八支" in first
    assert "這手牌最多只有 6 張" in first and "隻" not in first


async def test_the_server_page_of_help_names_the_time_zone_once(harness: Harness):
    r = await harness.slash("help", locale="zh-TW")
    await harness.click(harness.fake.find_message(r.reply.id), custom_id="mjbot:help:page", values=["server"],
                        locale="zh-TW")
    text = harness.fake.find_message(r.reply.id).embeds[0]["description"]
    assert "可開桌的頻道、時區和每週戰報" in text and "時區（時區）" not in text


async def test_leaving_a_table_in_play_quotes_the_buttons_as_taiwan_does(harness: Harness):
    """The buttons it names are quoted 「…」 (not the mainland's “…”) and the table's message is a 訊息 (not 消息)."""
    prep(harness)
    await open_table(harness, "wuhu", humans=(P1,))
    r = await harness.slash("table leave", user=P1, locale="zh-TW")
    said = r.reply.content
    assert r.reply.ephemeral and "牌桌訊息上的「託管」" in said and "按「我回來了」" in said and "按「解散」" in said
    assert "“" not in said and "”" not in said and "消息" not in said


async def test_the_ledger_is_written_as_the_record_command_is(harness: Harness):
    """Taiwan writes 帳 (記帳, as the command /記帳 is named, 帳本): OpenCC's 賬 made /help say 記總賬 and the
    settings say 記賬（/記帳） on one line."""
    r = await harness.slash("help", locale="zh-TW")
    text = harness.fake.find_message(r.reply.id).embeds[0]["description"]
    assert "機器人記總帳" in text and "賬" not in text
