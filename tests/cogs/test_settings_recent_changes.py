"""The /settings panel's "Recent changes": the latest changes to settings, every line in words of the panel's
language; what players do at tables (a host's kick, 托管 ...) is audited beside them but is no setting change."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.store import group as gstore
from bot.store.history import set_replays_show_all_hands
from bot.store.records import set_record_expiry_hours
from cogs.settings_audit import SETTING_FIELDS, audit_line
from tests.harness import ADMIN_PERMISSIONS, USER_ID, Harness

P1, P2 = USER_ID + 11, USER_ID + 12
pytestmark = pytest.mark.both_backends  # the store filters the audit by field: on both databases

RECENT = {"en-US": "Recent changes", "zh-CN": "最近的改动"}


def recent(panel, locale: str) -> str:
    return next(f["value"] for f in panel.embeds[0]["fields"] if f["name"] == RECENT[locale])


@pytest.mark.parametrize("locale", ["en-US", "zh-CN"])
async def test_recent_changes_list_settings_in_words_and_no_table_actions(harness: Harness, locale: str):
    """An admin turns a replay setting off; then a host kicks a player from a lobby five times (each kick is
    audited). The panel still shows the admin's change, in words, and none of the kicks (no raw message key, no
    stored record)."""
    h = harness
    await h.slash("settings", replays_show_all_hands=False, permissions=ADMIN_PERMISSIONS, locale=locale)
    lobby = (await h.slash("table new", variant="hefei", user=P1)).reply
    join = next(b["custom_id"] for b in lobby.buttons() if b["custom_id"].endswith(":join"))
    for _ in range(5):
        await h.click(h.fake.find_message(lobby.id), custom_id=join, user=P2)
        await h.slash("table kick", member=P2, user=P1, locale=locale)
    assert len([a for a in await h.bot.store.settings_audit(h.guild_id) if a.field == "table.kick"]) == 5
    text = recent((await h.slash("settings", permissions=ADMIN_PERMISSIONS, locale=locale)).reply, locale)
    shown = {"en-US": "Replays show every player's tiles → off", "zh-CN": "回放显示全部手牌 → 关"}[locale]
    assert text.count("\n") == 0 and shown in text, text
    assert "settings.field." not in text and "match" not in text, text


async def test_every_setting_the_bot_audits_reads_as_words_in_every_language(harness: Harness):
    """One audit row of every setting the bot writes (through the functions the commands use), each line of
    "Recent changes" drawn in every language: a name from the catalogue and a value in words, never a message key,
    a stored record or a Python value."""
    h = harness
    store, gid = h.bot.store, h.guild_id
    await store.update_guild_settings(gid, USER_ID, {
        "default_variant": "hefei", "wuhu_mode": 525, "turn_seconds": 45, "claim_seconds": 10, "language": "en",
        "allowed_channels": [1200000000000000555], "hints": False, "ai_difficulty": "strong"})
    await store.set_house_rules(gid, USER_ID, "hefei", {"short_deck": True})
    await gstore.set_timezone(store, gid, USER_ID, "Europe/Paris")
    await gstore.set_weekly_report(store, gid, USER_ID, 1200000000000000666, 4, datetime.now(UTC).date().toordinal())
    await set_replays_show_all_hands(store, gid, USER_ID, False)
    await set_record_expiry_hours(store, gid, USER_ID, 48)
    rows = await store.settings_audit(gid, limit=100, fields=SETTING_FIELDS)
    assert sorted({a.field for a in rows}) == sorted(SETTING_FIELDS)
    for lang in ("en", "zh", "zh-TW"):
        for a in rows:
            line = audit_line(a, lang)
            assert not any(bad in line for bad in ("settings.", "{", "[", "None", "True", "False", "…")), line
