"""``/score``: score a winning hand with the engine; the itemised breakdown as text and the score card image.

The server's default variant, Wuhu mode and house rules apply unless the command names a variant or mode.
A hand the engine refuses gets the engine's own message in the player's language, an example of the notation and a
"Notation help" button (a persistent button: it keeps working after a restart). What ``/record`` shares with it
(option checks, the breakdown, the card) is in :mod:`cogs.scoring`.
"""

from __future__ import annotations

import asyncio
import io
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import MjBot
from bot.i18n import locale_str, notation_examples, t, variant_name
from bot.interactions import lang_of, settings_of
from bot.posting import MESSAGE_LIMIT
from bot.settings import DEALER_STREAK, HAND_LENGTH, variant_rules
from cogs.choices import MODE_CHOICES, SEAT_CHOICES, SITUATION_CHOICES, WIN_CHOICES, variant_choices
from cogs.errors import SafeView
from cogs.scoring import (
    BREAKDOWN_FILE,
    breakdown_text,
    build_situation,
    check_options,
    check_variant_options,
    fit_message,
    render_image,
    score_scene,
)
from engine.errors import EngineError
from engine.tiles import parse_hand
from engine.variants import get_variant

log = logging.getLogger(__name__)

HELP_CUSTOM_ID = "mjbot:score:notation-help"


class HelpButton(discord.ui.Button["HelpView"]):
    def __init__(self, lang: str) -> None:
        super().__init__(label=t("score.help_button", lang), style=discord.ButtonStyle.secondary, emoji="❔",
                         custom_id=HELP_CUSTOM_ID)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        lang = await lang_of(interaction)
        await interaction.response.send_message(t("score.help", lang, examples=notation_examples(lang)), ephemeral=True)


class HelpView(SafeView):
    """The "Notation help" button; persistent (registered once at load), so old messages keep working."""

    def __init__(self, lang: str = "en") -> None:
        super().__init__(timeout=None)
        self.add_item(HelpButton(lang))


class Score(commands.Cog):
    def __init__(self, bot: MjBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.add_view(HelpView())

    @app_commands.command(name=locale_str("score.name"), description=locale_str("score.desc"))
    @app_commands.rename(
        hand=locale_str("score.hand.name"),
        variant=locale_str("score.variant.name"),
        win=locale_str("score.win.name"),
        winner=locale_str("score.winner.name"),
        discarder=locale_str("score.discarder.name"),
        situation=locale_str("score.situation.name"),
        mode=locale_str("score.mode.name"),
        dealer_streak=locale_str("score.streak.name"),
    )
    @app_commands.describe(
        hand=locale_str("score.hand.desc"),
        variant=locale_str("score.variant.desc"),
        win=locale_str("score.win.desc"),
        winner=locale_str("score.winner.desc"),
        discarder=locale_str("score.discarder.desc"),
        situation=locale_str("score.situation.desc"),
        mode=locale_str("score.mode.desc"),
        dealer_streak=locale_str("score.streak.desc"),
    )
    @app_commands.choices(variant=variant_choices(), win=WIN_CHOICES, winner=SEAT_CHOICES, discarder=SEAT_CHOICES,
                          situation=SITUATION_CHOICES, mode=MODE_CHOICES)
    async def score(
        self,
        interaction: discord.Interaction[MjBot],
        hand: app_commands.Range[str, HAND_LENGTH.low, HAND_LENGTH.high],
        variant: str | None = None,
        win: str | None = None,
        winner: str | None = None,
        discarder: str | None = None,
        situation: str | None = None,
        mode: int | None = None,
        dealer_streak: app_commands.Range[int, DEALER_STREAK.low, DEALER_STREAK.high] | None = None,
    ) -> None:
        settings = await settings_of(interaction)
        lang = await lang_of(interaction)
        check_options(lang, hand=hand, variant=variant, win=win, winner=winner, discarder=discarder,
                      situation=situation, mode=mode, dealer_streak=dealer_streak)
        key = variant or settings.default_variant
        v = get_variant(key)
        check_variant_options(v, lang, mode=mode, dealer_streak=dealer_streak)
        rules = variant_rules(settings, v)
        if mode is not None and "mode" in rules:
            rules["mode"] = mode
        sit = build_situation(win=win, winner=winner, discarder=discarder, situation=situation,
                              dealer_streak=dealer_streak)
        try:
            parsed = parse_hand(hand)
            v.check_entered(sit, parsed)
            result = v.score(parsed, sit, rules)
        except EngineError as e:
            text = t("score.bad_hand", lang, error=e.message(lang)) + "\n" + t("score.example", lang,
                                                                                example=v.example)
            await interaction.response.send_message(text, ephemeral=True, view=HelpView(lang))
            return
        text, whole = fit_message(breakdown_text(result, v, sit, rules, lang), lang, MESSAGE_LIMIT)
        await interaction.response.defer(thinking=True)
        files = []
        try:
            title = variant_name(key, lang) + (f" · {rules['mode']}" if "mode" in rules else "")
            scene = score_scene(parsed, result, sit, title)
            self.bot.observers.emit("score_card", scene=scene)
            image = await asyncio.to_thread(render_image, scene, lang)
            files.append(discord.File(io.BytesIO(image), filename="score.png"))
        except Exception:  # the breakdown matters more than the picture
            log.exception("score image failed for %r", hand)
        if whole is not None:
            files.append(discord.File(io.BytesIO(whole.encode("utf-8")), filename=BREAKDOWN_FILE))
        view = HelpView(lang)
        if interaction.guild_id is not None:  # a hand played in person can go into the server's ledger (/record)
            from cogs.record import RecordHandButton, record_button_id

            cid = record_button_id(key, parsed, sit, situation, rules.get("mode"))
            if cid is not None:
                view.add_item(RecordHandButton(cid, t("record.this_hand", lang)))
        await interaction.followup.send(text, files=files, view=view)


async def setup(bot: MjBot) -> None:
    await bot.add_cog(Score(bot))
