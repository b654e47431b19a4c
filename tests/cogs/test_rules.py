"""/rules through the harness: every variant in every language, with this server's house rules in force."""

from __future__ import annotations

import pytest

from engine.variants import VARIANT_KEYS, get_variant
from tests.harness import Harness

LOCALES = {"en-US": ("mahjong", "House rules on this server"), "zh-CN": ("麻将", "本服务器的规则设置"),
           "zh-TW": ("麻將", "本伺服器的規則設定")}


@pytest.mark.parametrize("variant", VARIANT_KEYS)
@pytest.mark.parametrize("locale", sorted(LOCALES))
async def test_rules_summary_in_each_language(harness: Harness, variant, locale):
    r = await harness.slash("rules", variant=variant, locale=locale)
    reply = r.reply
    assert reply.ephemeral
    [embed] = reply.embeds
    title_word, house_heading = LOCALES[locale]
    assert title_word in embed["title"]
    names = [f["name"] for f in embed["fields"]]
    assert house_heading in names and len(names) >= 4
    house = next(f["value"] for f in embed["fields"] if f["name"] == house_heading)
    v = get_variant(variant)
    assert house.count("•") == len(v.house_rules)
    for rule in v.house_rules:
        name = rule.en if locale == "en-US" else None
        if name:
            assert f"**{name}**" in house
    if locale == "zh-TW":  # Traditional, not Simplified: no 张 / 门 / 条 left in the text
        text = reply.text
        assert not set("张门条杠庄对") & set(text), [c for c in text if c in "张门条杠庄对"]
    for field in embed["fields"]:
        assert len(field["value"]) <= 1024


async def test_rules_show_the_servers_house_rules_and_default_variant(harness: Harness):
    store = harness.bot.store
    await store.update_guild_settings(harness.guild_id, 1, {"default_variant": "chizhou"})
    await store.set_house_rules(harness.guild_id, 1, "chizhou", {"contracts": False, "quan_per_match": 4})
    r = await harness.slash("rules", locale="en-US")
    [embed] = r.reply.embeds
    assert embed["title"].startswith("Chizhou")
    house = embed["fields"][-1]["value"]
    contracts = next(line for line in house.splitlines() if "承包" in line or "contract" in line.lower())
    assert ": off" in contracts and "(default)" not in contracts
    hua = next(line for line in house.splitlines() if "skip" in line.lower() or "花" in line)
    assert "(default)" in hua


async def test_wuhu_mode_of_the_server_is_shown(harness: Harness):
    await harness.bot.store.update_guild_settings(harness.guild_id, 1, {"wuhu_mode": 525})
    r = await harness.slash("rules", variant="wuhu", locale="zh-CN")
    house = r.reply.embeds[0]["fields"][-1]["value"]
    mode_line = next(line for line in house.splitlines() if "525" in line or "315" in line)
    assert "525" in mode_line and "默认" not in mode_line


def _cited(text: str) -> set[str]:
    """Rule ids named in a section title: "W1-W3", "H1、H2" ... (ranges expanded)."""
    import re

    out: set[str] = set()
    for a, lo, hi in re.findall(r"([GWHC])(\d+)(?:-[GWHC](\d+))?", text):
        out |= {f"{a}{n}" for n in range(int(lo), int(hi or lo) + 1)}
    return out


@pytest.mark.parametrize("variant", VARIANT_KEYS)
@pytest.mark.parametrize("locale", sorted(LOCALES))
async def test_every_ruling_a_score_line_cites_has_its_section_in_rules(harness: Harness, variant, locale):
    """/score shows "压档 (W5)": /rules for that variant has a section whose title names W5."""
    r = await harness.slash("rules", variant=variant, locale=locale)
    [embed] = r.reply.embeds
    titled = set().union(*(_cited(f["name"]) for f in embed["fields"]))
    cited = set(get_variant(variant).rule_of.values())
    assert cited <= titled, sorted(cited - titled)


@pytest.mark.parametrize(("locale", "heading", "default", "server"), [
    ("en-US", "Default house rules", "(default)", "server"),
    ("zh-CN", "默认规则设置", "(默认)", "服务器"),
    ("zh-TW", "預設規則設定", "(預設)", "伺服器"),
])
async def test_rules_in_a_dm_show_the_defaults_and_say_so(harness: Harness, locale, heading, default, server):
    """/rules in a DM was headed "House rules on this server" where there is no server: it says the house rules are
    the defaults (they are: every one is marked so), in the player's language."""
    r = await harness.slash("rules", variant="wuhu", guild=False, locale=locale)
    [embed] = r.reply.embeds
    names = [f["name"] for f in embed["fields"]]
    assert heading in names and not any(server in n for n in names), names
    house = next(f["value"] for f in embed["fields"] if f["name"] == heading)
    lines = house.splitlines()
    assert len(lines) == len(get_variant("wuhu").house_rules) and all(default in ln for ln in lines), lines
