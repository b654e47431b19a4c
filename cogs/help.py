"""``/help`` and the first-time walk-through.

``/help`` answers privately with one page of help in the player's language (zh-CN, zh-TW, en) and a select to turn
to the others: what the bot does, starting a table, reading the images, the hand notation with examples, house
rules and running a group. The select is persistent and stateless (a fixed custom id; the page is its value), so it
keeps working after a restart, and each player reads the pages in their own language.

When the bot joins a server it posts a short walk-through once, in the server's system channel if it may send
there. Like every public message it is in the server's ``/settings`` language (简体中文 until an admin chooses), never
its Discord locale (most servers report en-US whatever their members speak: docs/discord.md); its footer says, in
each language, which language the tables speak and where to change it. The server is remembered in the store
(``group_settings.welcomed_at``) before posting, so rejoining or a second GUILD_CREATE never posts it twice; if the
post fails the mark is given back.
"""

from __future__ import annotations

import logging
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import MjBot
from bot.i18n import locale_str, notation_examples, t
from bot.interactions import lang_of
from bot.posting import missing_to_post
from bot.store import group as gstore
from cogs.errors import SafeView
from text.lang import LANGS

log = logging.getLogger(__name__)

PAGES = ("about", "table", "images", "notation", "server")
SELECT_ID = "mjbot:help:page"


def help_embed(page: str, lang: str) -> discord.Embed:
    n = PAGES.index(page) + 1
    e = discord.Embed(title=f"🀄 {t(f'help.page.{page}', lang)}", description=t(f"help.{page}", lang, examples=notation_examples(lang)),
                      colour=discord.Colour.dark_green())
    e.set_footer(text=t("help.footer", lang, n=n, total=len(PAGES)))
    return e


class HelpView(SafeView):
    def __init__(self, lang: str, page: str = "about") -> None:
        super().__init__(timeout=None)
        select: discord.ui.Select[HelpView] = discord.ui.Select(
            custom_id=SELECT_ID, placeholder=t("help.select", lang),
            options=[discord.SelectOption(label=t(f"help.page.{p}", lang), value=p, default=p == page)
                     for p in PAGES])
        select.callback = self.turn  # type: ignore[method-assign]  # discord.py: a component built in code gets its callback so
        self.add_item(select)

    async def turn(self, interaction: discord.Interaction[Any]) -> None:
        values = cast(dict[str, Any], interaction.data or {}).get("values") or ["about"]
        page = values[0] if values[0] in PAGES else "about"
        lang = await lang_of(interaction)
        await interaction.response.edit_message(embed=help_embed(page, lang), view=HelpView(lang, page))


def welcome_embed(lang: str) -> discord.Embed:
    """The walk-through in the server's language ``lang``; its footer names the tables' language and the setting
    that changes it in every language we speak, ``lang``'s first (an admin who reads another one can still find it)."""
    e = discord.Embed(title=t("welcome.title", lang), description=t("welcome.body", lang),
                      colour=discord.Colour.dark_green())
    e.set_footer(text="\n".join(
        t("welcome.language", reader, language=t(f"lang.{lang}", reader), settings=f"/{t('settings.name', reader)}",
          field=t("settings.field.language", reader))
        for reader in sorted(LANGS, key=lambda code: code != lang)))
    return e


class Help(commands.Cog):
    def __init__(self, bot: MjBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_view(HelpView("en"))

    @app_commands.command(name=locale_str("help.name"), description=locale_str("help.desc"))
    async def help(self, interaction: discord.Interaction[MjBot]) -> None:
        lang = await lang_of(interaction)
        await interaction.response.send_message(embed=help_embed("about", lang), view=HelpView(lang),
                                                ephemeral=True)

    @commands.Cog.listener()
    async def on_guild_join(self, guild: discord.Guild) -> None:
        await self.welcome(guild)

    async def welcome(self, guild: discord.Guild) -> bool:
        """Post the walk-through in ``guild``'s system channel once; True if it was posted now."""
        store: Any = getattr(self.bot, "store", None)
        channel = guild.system_channel
        if store is None or channel is None:
            return False
        if missing_to_post(channel.permissions_for(guild.me), files=False):  # (one embed, no image)
            log.info("guild %s: no permission to post the walk-through in its system channel", guild.id)
            return False
        if not await gstore.mark_welcomed(store, guild.id):
            return False
        lang = (await store.guild_settings(guild.id)).language  # as every public message (docs/discord.md)
        try:
            await channel.send(embed=welcome_embed(lang), allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException as e:
            log.warning("guild %s: walk-through not posted: %s", guild.id, e)
            await gstore.unmark_welcomed(store, guild.id)
            return False
        log.info("guild %s: walk-through posted", guild.id)
        return True


async def setup(bot: MjBot) -> None:
    await bot.add_cog(Help(bot))
