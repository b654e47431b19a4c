"""``/rules [variant]``: how a variant is played, in our own words, with this server's house rules in force."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import MjBot
from bot.i18n import item_name, locale_str, rule_value, t, variant_name
from bot.interactions import lang_of, settings_of
from bot.settings import variant_rules
from cogs.choices import variant_choices
from engine.variants import get_variant
from text.catalog import has


def sections(variant_key: str) -> int:
    """How many summary sections the catalogue has for the variant: section n reads from the keys
    ``rules.<variant>.<n>.title`` and ``rules.<variant>.<n>.body`` (data/locale), numbered from 1; every body under
    Discord's 1024-character field limit. A variant the catalogue does not describe has none (its house rules
    still show).

    >>> sections("wuhu") > 0, sections("no_such_variant")
    (True, 0)
    """
    n = 0
    while has(f"rules.{variant_key}.{n + 1}.title"):
        n += 1
    return n


def rules_embed(variant_key: str, rules: dict[str, Any], lang: str, *, in_server: bool = True) -> discord.Embed:
    """The /rules answer: the summary sections and every house rule with the value in force here. Outside a
    server (``in_server`` false: a DM) the rules are the defaults, and their heading says so."""
    v = get_variant(variant_key)
    heading = t("rules.house" if in_server else "rules.house_default", lang)
    embed = discord.Embed(title=t("rules.title", lang, variant=variant_name(variant_key, lang)),
                          colour=discord.Colour.dark_green())
    for n in range(1, sections(variant_key) + 1):
        embed.add_field(name=t(f"rules.{variant_key}.{n}.title", lang), value=t(f"rules.{variant_key}.{n}.body", lang),
                        inline=False)
    if v.house_rules:
        lines = []
        for r in v.house_rules:
            value = rules.get(r.key, r.default)
            mark = f" ({t('rules.default_mark', lang)})" if value == r.default else ""
            helptext = r.help_en if lang == "en" else item_name(r.help_zh, r.help_en, lang)
            line = f"• **{item_name(r.zh, r.en, lang)}**: {rule_value(value, lang)}{mark}"
            lines.append(line + (f" — {helptext}" if helptext else ""))
        embed.add_field(name=heading, value="\n".join(lines)[:1024], inline=False)
    else:
        embed.add_field(name=heading, value=t("rules.house_none", lang), inline=False)
    embed.set_footer(text=t("rules.footer", lang, ref=next(iter(v.rule_of.values()), "")))  # (a file of the project's repository means nothing to a player)
    return embed


class Rules(commands.Cog):
    def __init__(self, bot: MjBot) -> None:
        self.bot = bot

    @app_commands.command(name=locale_str("rules.name"), description=locale_str("rules.desc"))
    @app_commands.rename(variant=locale_str("rules.variant.name"))
    @app_commands.describe(variant=locale_str("rules.variant.desc"))
    @app_commands.choices(variant=variant_choices())
    async def rules(self, interaction: discord.Interaction[MjBot], variant: str | None = None) -> None:
        settings = await settings_of(interaction)
        lang = await lang_of(interaction)
        key = variant or settings.default_variant
        rules = variant_rules(settings, get_variant(key))
        embed = rules_embed(key, rules, lang, in_server=interaction.guild_id is not None)
        await interaction.response.send_message(embed=embed, ephemeral=True)


async def setup(bot: MjBot) -> None:
    await bot.add_cog(Rules(bot))
