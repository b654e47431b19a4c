"""The scheduler's public posts (the weekly report, a season's final board at its end date) speak the server's
/settings language, as its tables do (docs/discord.md, Languages), never the server's Discord locale."""

from __future__ import annotations

from datetime import datetime
from zoneinfo import ZoneInfo

import pytest

from bot.store import group as gstore
from cogs.report import Report
from tests.cogs.test_group import guild_payload
from tests.harness import ADMIN_PERMISSIONS, GUILD_ID, USER_ID, Harness, snowflake

SH = ZoneInfo("Asia/Shanghai")
MONDAY = datetime(2030, 1, 14, 10, 5, tzinfo=SH)  # the report of Jan 7-13 is due; the season ended on Jan 10


async def scheduled_posts(h: Harness) -> tuple[str, str]:
    """Turn the weekly report on, start a season that ends on Jan 10, and run the scheduler on the Monday after:
    (the report's text, the final board's text)."""
    # the server as the gateway caches it: a server that is not a Community server reports en-US
    payload = guild_payload(GUILD_ID, snowflake(), can_send=False)
    payload["preferred_locale"] = "en-US"
    h.bot._connection.parse_guild_create(payload)
    await h.settle()
    assert str(h.bot.get_guild(GUILD_ID).preferred_locale) == "en-US"
    ch = h.add_channel(name="reports")
    await gstore.set_weekly_report(h.bot.store, GUILD_ID, USER_ID, ch, 0, datetime(2030, 1, 7).toordinal())
    await h.slash("season start", title="Spring", ends="2030-01-10", permissions=ADMIN_PERMISSIONS)
    cog: Report = h.bot.get_cog("Report")
    cog.clock = lambda: MONDAY
    await cog.tick()
    await h.settle()
    [report] = h.channel(ch)
    [final] = [m.content for m in h.channel() if m.content.startswith("🏁")]
    return report.content, final


async def test_a_server_that_never_chose_gets_its_scheduled_posts_in_its_tables_language(harness: Harness):
    """A server that never opened /settings: its tables speak 简体中文, and so do its weekly report and the final
    board the scheduler posts (they came out in English, from the server's Discord locale)."""
    h = harness
    assert (await h.bot.store.guild_settings(GUILD_ID)).language == "zh"
    report, final = await scheduled_posts(h)
    assert report.startswith("📰 **本周战报**") and final.startswith("🏁") and "最终排名" in final, (report, final)


@pytest.mark.parametrize(("language", "report_title", "final_title"), [
    ("en", "📰 **Weekly report**", "Final board of"), ("zh-TW", "📰 **本週戰報**", "最終排名")])
async def test_scheduled_posts_follow_the_language_the_server_chose(harness: Harness, language, report_title,
                                                                    final_title):
    h = harness
    await h.bot.store.update_guild_settings(GUILD_ID, USER_ID, {"language": language})
    report, final = await scheduled_posts(h)
    assert report.startswith(report_title) and final_title in final, (report, final)
