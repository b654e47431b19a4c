"""Settings are checked where they are stored: forged component values and odd digits in the timers form are
refused with a message in the admin's language, and nothing changes (settings, audit); the store itself refuses
anything outside the declared ranges, and values left in the database by older versions never reach a table."""

from __future__ import annotations

import json

import pytest

from bot.settings import CLAIM_SECONDS, LANGUAGES, TURN_SECONDS, WUHU_MODES, house_rule_choices
from bot.store import StoreError
from engine.variants import VARIANT_KEYS, get_variant
from tests.harness import ADMIN_PERMISSIONS, Harness

ADMIN = 4242
PANEL = "mjbot:settings:"
LOCALE = {"en": "en-US", "zh": "zh-CN", "zh-TW": "zh-TW"}
NOTHING_CHANGED = {"en": "Nothing was changed", "zh": "什么都没有改动", "zh-TW": "什麼都沒有改動"}


async def open_panel(h: Harness):
    r = await h.slash("settings", user=ADMIN, permissions=ADMIN_PERMISSIONS, locale="en-US")
    return r.reply


async def snapshot(h: Harness):
    s = await h.bot.store.guild_settings(h.guild_id)
    return s, await h.bot.store.settings_audit(h.guild_id)


async def forge(h: Harness, panel, custom_id: str, values: list[str], lang: str = "en"):
    """Send a select interaction with ``values`` the select never offered (Discord's client would not; a forged
    payload can)."""
    return await h.click(panel, custom_id=PANEL + custom_id, values=values, user=ADMIN, permissions=ADMIN_PERMISSIONS,
                         locale=LOCALE[lang])


FORGED = [
    ("mode", ["999"], "999"),
    ("mode", ["abc"], "abc"),
    ("mode", ["315", "525"], "315,525"),
    ("mode", [], ""),
    ("mode", ["３１５０"], "３１５０"),
    ("variant", ["mahjong-soul"], "mahjong-soul"),
    ("language", ["fr"], "fr"),
    ("rule", ["wuhu|di_per_match|999"], "999"),
    ("rule", ["hefei|quan_per_match|2"], "2"),
    ("rule", ["chizhou|contracts|maybe"], "maybe"),
]


@pytest.mark.parametrize(("control", "values", "quoted"), FORGED)
async def test_a_forged_select_value_is_refused_and_changes_nothing(harness: Harness, control, values, quoted):
    panel = await open_panel(harness)
    # one real change first, so that "the audit is unchanged" is about a non-empty audit
    await forge(harness, panel, "mode", ["525"])
    panel = harness.fake.find_message(panel.id)
    before = await snapshot(harness)
    r = await forge(harness, panel, control, values)
    reply = r.reply
    assert reply.ephemeral and reply.visible_to == ADMIN
    assert "Nothing was changed" in reply.content and "went wrong" not in reply.content
    assert quoted in reply.content
    assert await snapshot(harness) == before
    # the panel itself was not redrawn with anything new
    assert harness.fake.find_message(panel.id).embeds == panel.embeds


@pytest.mark.parametrize("lang", ["en", "zh", "zh-TW"])
async def test_wuhu_mode_999_is_refused_in_the_admins_language(harness: Harness, lang):
    panel = await open_panel(harness)
    before = await snapshot(harness)
    r = await forge(harness, panel, "mode", ["999"], lang)
    assert r.reply.ephemeral and NOTHING_CHANGED[lang] in r.reply.content
    assert "315" in r.reply.content and "525" in r.reply.content
    assert {"en": "Wuhu scoring", "zh": "芜湖计分", "zh-TW": "蕪湖計分"}[lang] in r.reply.content
    assert await snapshot(harness) == before


@pytest.mark.parametrize("raw", ["nope", "wuhu|mode|525", "wuhu|nothing|1", "chizhou", "bot|x|1"])
async def test_a_forged_house_rule_key_is_refused(harness: Harness, raw):
    panel = await open_panel(harness)
    before = await snapshot(harness)
    r = await forge(harness, panel, "rule", [raw])
    assert r.reply.ephemeral and "does not exist" in r.reply.content
    assert await snapshot(harness) == before


async def open_timers(h: Harness, panel):
    opened = await h.click(h.fake.find_message(panel.id), custom_id=PANEL + "timers", user=ADMIN,
                           permissions=ADMIN_PERMISSIONS)
    assert opened.modal is not None
    return opened


@pytest.mark.parametrize("typed", ["²", "₆₀", "٦٠", "-30", "+30", "1e2", "30.0", "3 0", "", "x", "9" * 4000])
async def test_odd_digits_in_the_timers_form_get_the_range_message(harness: Harness, typed):
    """``"²".isdigit()`` is True, ``int("٦٠")`` is 60: neither may slip through, and nothing is written."""
    panel = await open_panel(harness)
    before = await snapshot(harness)
    opened = await open_timers(harness, panel)
    r = await harness.submit_modal(opened, {"turn_seconds": typed, "claim_seconds": "20"},
                                   permissions=ADMIN_PERMISSIONS)
    reply = r.reply
    assert reply.ephemeral and "went wrong" not in reply.content
    assert f"from {TURN_SECONDS.low} to {TURN_SECONDS.high}" in reply.content and "Nothing was changed" in reply.content
    assert len(reply.content) < 300, "a forged long value is not echoed whole"
    assert await snapshot(harness) == before


@pytest.mark.parametrize("lang", ["zh", "zh-TW"])
async def test_timers_range_message_in_chinese(harness: Harness, lang):
    panel = await open_panel(harness)
    opened = await open_timers(harness, panel)
    r = await harness.submit_modal(opened, {"turn_seconds": "60", "claim_seconds": "₆₀"}, locale=LOCALE[lang],
                                   permissions=ADMIN_PERMISSIONS)
    assert f"{CLAIM_SECONDS.low} 到 {CLAIM_SECONDS.high}" in r.reply.content
    assert NOTHING_CHANGED[lang] in r.reply.content
    assert (await harness.bot.store.guild_settings(harness.guild_id)).claim_seconds == 15


async def test_full_width_digits_from_a_chinese_keyboard_are_read(harness: Harness):
    panel = await open_panel(harness)
    opened = await open_timers(harness, panel)
    r = await harness.submit_modal(opened, {"turn_seconds": " ９０ ", "claim_seconds": "２０"},
                                   permissions=ADMIN_PERMISSIONS)
    assert r.callback_type == 7
    s = await harness.bot.store.guild_settings(harness.guild_id)
    assert (s.turn_seconds, s.claim_seconds) == (90, 20)


@pytest.mark.parametrize(("field", "low", "high"), [("turn_seconds", TURN_SECONDS.low, TURN_SECONDS.high),
                                                     ("claim_seconds", CLAIM_SECONDS.low, CLAIM_SECONDS.high)])
async def test_timer_bounds_are_inclusive(harness: Harness, field, low, high):
    store = harness.bot.store
    for ok in (low, high):
        assert getattr(await store.update_guild_settings(harness.guild_id, 1, {field: ok}), field) == ok
    for bad in (low - 1, high + 1):
        with pytest.raises(StoreError):
            await store.update_guild_settings(harness.guild_id, 1, {field: bad})


# ---- the store refuses by itself (a cog that forgot to check cannot write an invalid value)

BAD_SETTINGS = [
    {"turn_seconds": 10_000}, {"turn_seconds": True}, {"turn_seconds": "60"}, {"claim_seconds": 0},
    {"wuhu_mode": 999}, {"wuhu_mode": "315"}, {"default_variant": "sichuan"}, {"language": "fr"},
    {"hints": 1}, {"allowed_channels": [-1]}, {"allowed_channels": list(range(1, 30))},
    {"house_rules": {"wuhu": {"di_per_match": 99}}}, {"house_rules": {"bot": {"x": 1}}},
    {"house_rules": {"hefei": {"short_deck": 1}}}, {"nonsense": 1},
]


@pytest.mark.parametrize("changes", BAD_SETTINGS)
async def test_the_store_refuses_values_outside_the_declared_ranges(harness: Harness, changes):
    store = harness.bot.store
    await store.update_guild_settings(harness.guild_id, 1, {"turn_seconds": 90})
    before = await snapshot(harness)
    with pytest.raises(StoreError) as err:
        await store.update_guild_settings(harness.guild_id, 2, {"claim_seconds": 30, **changes})
    assert err.value.code in ("bad_setting", "bad_setting_value")
    assert "什么都没有改动" in err.value.message("zh") or err.value.code == "bad_setting"
    assert await snapshot(harness) == before, "not even the valid part of the change was written"


@pytest.mark.parametrize(("variant", "rules"), [("wuhu", {"di_per_match": 0}), ("wuhu", {"di_per_match": True}),
                                                ("hefei", {"quan_per_match": 2}), ("chizhou", {"contracts": "no"}),
                                                ("chizhou", {"unknown": True}), ("sichuan", {})])
async def test_set_house_rules_refuses_a_value_outside_the_rules_choices(harness: Harness, variant, rules):
    before = await snapshot(harness)
    with pytest.raises(StoreError):
        await harness.bot.store.set_house_rules(harness.guild_id, 1, variant, rules)
    assert await snapshot(harness) == before


def test_every_house_rule_has_a_declared_choice_set_that_holds_its_default():
    for key in VARIANT_KEYS:
        declared = house_rule_choices(key)
        for rule in get_variant(key).house_rules:
            assert declared[rule.key], (key, rule.key)
            assert rule.default in declared[rule.key] and type(rule.default) in {type(c) for c in declared[rule.key]}
    assert set(WUHU_MODES) == set(house_rule_choices("wuhu")["mode"])
    assert set(LANGUAGES) == {"zh", "zh-TW", "en"}


async def test_a_value_left_invalid_in_the_database_never_reaches_a_table(harness: Harness):
    """A row written by an older version (or by hand) with a value outside the choices: the server's rules fall
    back to the rule's default for that value, in /rules, /score and every new table."""
    store = harness.bot.store
    await store.set_house_rules(harness.guild_id, 1, "wuhu", {"di_per_match": 3})
    async with store.transaction() as conn:
        await conn.execute("UPDATE guild_settings SET house_rules = ? WHERE guild_id = ?",
                           (json.dumps({"wuhu": {"di_per_match": 999, "dianpao_bao_san": "yes"}}), harness.guild_id))
    from bot.settings import variant_rules

    rules = variant_rules(await store.guild_settings(harness.guild_id), get_variant("wuhu"))
    assert rules["di_per_match"] == 1 and rules["dianpao_bao_san"] is False
    r = await harness.slash("rules", variant="wuhu", locale="en-US")
    house = r.reply.embeds[0]["fields"][-1]["value"]
    line = next(x for x in house.splitlines() if "stacks (底) per match" in x)
    assert ": 1 (default)" in line and "999" not in house


def test_the_defaults_are_within_the_declared_ranges():
    from bot.settings import check_setting
    from bot.store.models import SETTING_DEFAULTS, GuildSettings

    for field, value in SETTING_DEFAULTS.items():
        check_setting(field, value)
        assert getattr(GuildSettings(guild_id=1), field) == value


async def test_a_long_forged_value_is_quoted_short(harness: Harness):
    with pytest.raises(StoreError) as err:
        await harness.bot.store.update_guild_settings(harness.guild_id, 1,
                                                      {"allowed_channels": list(range(1, 400))})
    for lang in ("en", "zh", "zh-TW"):
        assert len(err.value.message(lang)) < 200


ALL_CHANGED = {"wuhu": {"dianpao_bao_san": True, "di_per_match": 8},
               "hefei": {"short_deck": True, "concealed_kongs_unlimited": False, "quan_per_match": 1},
               "chizhou": {"big_hands_skip_hua": True, "contracts": False, "quan_per_match": 4}}


async def test_the_panel_stays_within_discords_embed_limits_with_long_audit_lines(harness: Harness):
    store = harness.bot.store
    for _ in range(3):  # every house rule of every variant flipped, back and forth: long audit lines
        await store.update_guild_settings(harness.guild_id, 1, {"house_rules": ALL_CHANGED})
        await store.update_guild_settings(harness.guild_id, 1, {"house_rules": {}})
    audit = await store.settings_audit(harness.guild_id, limit=5)
    panel = await open_panel(harness)
    [embed] = panel.embeds
    recent = next(f["value"] for f in embed["fields"] if f["name"] == "Recent changes")
    assert all(len(f["value"]) <= 1024 and len(f["name"]) <= 256 for f in embed["fields"])
    assert 0 < recent.count("\n") + 1 <= len(audit)
    assert recent.splitlines()[0].startswith("<t:") and "Short deck" in recent, "whole lines, newest first"
