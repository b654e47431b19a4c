"""/settings through the harness: Manage Server only, every change audited, applied to what follows."""

from __future__ import annotations

import discord
import pytest

from tests.harness import ADMIN_PERMISSIONS, MEMBER_PERMISSIONS, Harness

ADMIN = 4242


async def open_panel(h: Harness, locale: str = "en-US"):
    r = await h.slash("settings", user=ADMIN, permissions=ADMIN_PERMISSIONS, locale=locale)
    assert r.reply.ephemeral and r.reply.visible_to == ADMIN
    return r.reply


def field(message, name: str) -> str:
    return next(f["value"] for f in message.embeds[0]["fields"] if f["name"].startswith(name))


async def test_panel_shows_the_settings_and_controls(harness: Harness):
    panel = await open_panel(harness)
    assert field(panel, "Default variant") == "Wuhu"
    assert field(panel, "Language") == "简体中文"
    ids = {c["custom_id"] for c in panel.all_components()}
    assert {"mjbot:settings:variant", "mjbot:settings:mode", "mjbot:settings:language", "mjbot:settings:rule",
            "mjbot:settings:timers", "mjbot:settings:hints", "mjbot:settings:channels"} <= ids
    assert "none yet" in field(panel, "Recent changes")


async def test_command_is_hidden_from_members_by_default(harness: Harness):
    await harness.bot.tree.sync()
    [cmd] = [c for c in harness.fake.commands[None] if c["name"] == "settings"]
    assert int(cmd["default_member_permissions"]) == discord.Permissions(manage_guild=True).value
    assert cmd.get("contexts") in (None, [0]) and cmd.get("dm_permission") in (None, False)


@pytest.mark.parametrize(("locale", "phrase"), [("en-US", "Manage Server"), ("zh-CN", "管理服务器")])
async def test_member_without_manage_server_cannot_open_or_use_settings(harness: Harness, locale, phrase):
    r = await harness.slash("settings", user=77, permissions=MEMBER_PERMISSIONS, locale=locale)
    assert r.reply.ephemeral and phrase in r.reply.content and not r.reply.embeds
    # even holding a panel (say the permission was taken away), a click changes nothing
    panel = await open_panel(harness)
    click = await harness.click(panel, custom_id="mjbot:settings:variant", values=["hefei"], user=ADMIN,
                                permissions=MEMBER_PERMISSIONS, locale=locale)
    assert click.reply.ephemeral and phrase in click.reply.content
    store = harness.bot.store
    assert (await store.guild_settings(harness.guild_id)).default_variant == "wuhu"
    assert await store.settings_audit(harness.guild_id) == []


async def test_settings_in_a_dm_are_refused(harness: Harness):
    r = await harness.slash("settings", guild=False, locale="en-US")
    assert r.reply.ephemeral and "server" in r.reply.content


async def test_changing_the_default_variant_is_audited_and_applies_to_score(harness: Harness):
    panel = await open_panel(harness)
    click = await harness.click(panel, custom_id="mjbot:settings:variant", values=["hefei"], user=ADMIN,
                                permissions=ADMIN_PERMISSIONS)
    assert click.callback_type == 7, "the panel itself is redrawn"
    updated = harness.fake.find_message(panel.id)
    assert field(updated, "Default variant") == "Hefei"
    assert "Saved" in updated.content and "new tables" in updated.content.lower()
    assert any(f["name"] == "House rules: Hefei" for f in updated.embeds[0]["fields"])
    assert "Short deck" in field(updated, "House rules")
    [entry] = await harness.bot.store.settings_audit(harness.guild_id)
    assert (entry.user_id, entry.field, entry.old_value, entry.new_value) == (ADMIN, "default_variant", "wuhu", "hefei")
    assert f"<@{ADMIN}>" in field(updated, "Recent changes")
    r = await harness.slash("score", hand="1234678922m345s+5m", discarder="W")
    assert r.reply.content.startswith("**Hefei")


async def test_house_rule_change_reaches_rules_and_score(harness: Harness):
    panel = await open_panel(harness)
    await harness.click(panel, custom_id="mjbot:settings:rule", values=["wuhu|dianpao_bao_san|1"], user=ADMIN,
                        permissions=ADMIN_PERMISSIONS)
    settings = await harness.bot.store.guild_settings(harness.guild_id)
    assert settings.rules_for("wuhu") == {"dianpao_bao_san": True}
    r = await harness.slash("score", hand="23456799m345p67s+8s", variant="wuhu", discarder="W")
    payments = r.reply.content.splitlines()[-2]
    assert "East 0" in payments and "North 0" in payments
    rules = await harness.slash("rules", variant="wuhu")
    house = rules.reply.embeds[0]["fields"][-1]["value"]
    line = next(x for x in house.splitlines() if "three" in x.lower() or "点炮包三家" in x)
    assert ": on" in line and "(default)" not in line


async def test_mode_language_and_hints(harness: Harness):
    panel = await open_panel(harness)
    await harness.click(panel, custom_id="mjbot:settings:mode", values=["525"], user=ADMIN,
                        permissions=ADMIN_PERMISSIONS)
    panel = harness.fake.find_message(panel.id)
    await harness.click(panel, custom_id="mjbot:settings:language", values=["en"], user=ADMIN,
                        permissions=ADMIN_PERMISSIONS)
    panel = harness.fake.find_message(panel.id)
    await harness.click(panel, custom_id="mjbot:settings:hints", user=ADMIN, permissions=ADMIN_PERMISSIONS)
    s = await harness.bot.store.guild_settings(harness.guild_id)
    assert (s.wuhu_mode, s.language, s.hints) == (525, "en", False)
    assert [a.field for a in await harness.bot.store.settings_audit(harness.guild_id)] == [
        "hints", "language", "wuhu_mode"]
    # a player whose Discord language we do not speak now gets the server's language (English)
    r = await harness.slash("score", hand="bad", variant="wuhu", locale="fr")
    assert "That hand cannot be scored" in r.reply.content
    # a Chinese-speaking player still gets Chinese
    r = await harness.slash("score", hand="bad", variant="wuhu", locale="zh-CN")
    assert "这手牌无法计分" in r.reply.content


async def test_timers_form(harness: Harness):
    panel = await open_panel(harness)
    opened = await harness.click(panel, custom_id="mjbot:settings:timers", user=ADMIN, permissions=ADMIN_PERMISSIONS)
    assert opened.callback_type == 9 and opened.modal is not None
    bad = await harness.submit_modal(opened, {"turn_seconds": "5", "claim_seconds": "10"},
                                     permissions=ADMIN_PERMISSIONS)
    assert bad.reply.ephemeral and "15" in bad.reply.content and "300" in bad.reply.content
    assert (await harness.bot.store.guild_settings(harness.guild_id)).turn_seconds == 60
    opened = await harness.click(harness.fake.find_message(panel.id), custom_id="mjbot:settings:timers", user=ADMIN,
                                 permissions=ADMIN_PERMISSIONS)
    ok = await harness.submit_modal(opened, {"turn_seconds": "90", "claim_seconds": "20"},
                                    permissions=ADMIN_PERMISSIONS)
    assert ok.callback_type == 7
    s = await harness.bot.store.guild_settings(harness.guild_id)
    assert (s.turn_seconds, s.claim_seconds) == (90, 20)
    assert "90" in field(harness.fake.find_message(panel.id), "Seconds per turn")


async def test_allowed_channels(harness: Harness):
    other = harness.add_channel(name="mahjong-2")
    panel = await open_panel(harness)
    prompt = await harness.click(panel, custom_id="mjbot:settings:channels", user=ADMIN,
                                 permissions=ADMIN_PERMISSIONS)
    picker = prompt.reply
    assert picker.ephemeral
    await harness.click(picker, custom_id="mjbot:settings:channels-pick", values=[other, harness.channel_id],
                        user=ADMIN, permissions=ADMIN_PERMISSIONS)
    s = await harness.bot.store.guild_settings(harness.guild_id)
    assert s.allowed_channels == sorted([other, harness.channel_id])
    await harness.click(picker, custom_id="mjbot:settings:channels-all", user=ADMIN, permissions=ADMIN_PERMISSIONS)
    assert (await harness.bot.store.guild_settings(harness.guild_id)).allowed_channels == []


async def test_panel_controls_survive_a_restart(harness: Harness):
    panel = await open_panel(harness)
    h2 = await harness.restart()
    try:
        click = await h2.click(h2.fake.find_message(panel.id), custom_id="mjbot:settings:variant",
                               values=["chizhou"], user=ADMIN, permissions=ADMIN_PERMISSIONS)
        assert click.callback_type == 7
        assert (await h2.bot.store.guild_settings(h2.guild_id)).default_variant == "chizhou"
    finally:
        await h2.close()
