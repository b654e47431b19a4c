"""``/score``: score a winning hand with the engine; the itemised breakdown as text and the score card image.

The server's default variant, Wuhu mode and house rules apply unless the command names a variant or mode.
A hand the engine refuses gets the engine's own message in the player's language, an example of the notation and a
"Notation help" button (a persistent button: it keeps working after a restart).
"""

from __future__ import annotations

import asyncio
import io
import logging
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.i18n import item_name, lang_for, locale_str, seat_name, t, variant_name
from cogs.errors import SafeView, UserError
from cogs.settings import guild_settings, variant_rules
from engine.errors import EngineError
from engine.tiles import Hand, parse_hand
from engine.variants import VARIANT_KEYS, ScoreResult, Situation, Variant, get_variant

log = logging.getLogger(__name__)

HELP_CUSTOM_ID = "mjbot:score:notation-help"

# One hand per variant that scores, shown with every refusal (tests check that each one really scores).
EXAMPLES: Mapping[str, str] = {
    "wuhu": "23456799m345p67s+8s",
    "hefei": "1234678922m345s+5m",
    "chizhou": "123m456p789s5z(7777z)+5z",
}

SITUATIONS = ("kong_draw", "rob_kong", "last_tiles", "heavenly", "earthly")

VARIANT_CHOICES = [Choice(name=locale_str(f"choice.variant.{k}"), value=k) for k in VARIANT_KEYS]
SEAT_CHOICES = [Choice(name=locale_str(f"choice.seat.{s}"), value=s) for s in "ESWN"]
WIN_CHOICES = [Choice(name=locale_str("choice.win.discard"), value="discard"),
               Choice(name=locale_str("choice.win.self"), value="self")]
SITUATION_CHOICES = [Choice(name=locale_str(f"choice.situation.{s}"), value=s) for s in SITUATIONS]
MODE_CHOICES = [Choice(name=locale_str(f"choice.mode.{m}"), value=m) for m in (315, 525)]


def build_situation(*, win: str | None, winner: str | None, discarder: str | None, situation: str | None,
                    dealer_streak: int | None) -> Situation:
    """The engine's :class:`Situation` from the command's options, with friendly defaults:

    - winner S, or E for 天胡;
    - self-drawn unless a discarder is named or ``win`` is ``discard``; 地胡 is on the dealer's (E) discard;
    - ``win=discard`` (or 抢杠) without a discarder: the seat before the winner in turn order.

    >>> build_situation(win=None, winner=None, discarder="W", situation=None, dealer_streak=None)
    Situation(winner=1, discarder=2, kong_draw=False, rob_kong=False, last_tiles=False, heavenly=False, earthly=False, dealer_streak=1, melds_by_seat=None)
    >>> build_situation(win="discard", winner="N", discarder=None, situation=None, dealer_streak=None).discarder
    2
    """
    flags = {s: situation == s for s in SITUATIONS}
    win_seat = "ESWN".index(winner) if winner else (0 if flags["heavenly"] else 1)
    if win == "self" and discarder:
        raise UserError("score.win_conflict")
    if discarder:
        from_seat: int | None = "ESWN".index(discarder)
    elif win == "self":
        from_seat = None
    elif flags["earthly"] and win_seat != 0:
        from_seat = 0
    elif win == "discard" or flags["rob_kong"]:
        from_seat = (win_seat + 3) % 4
    else:
        from_seat = None
    return Situation(winner=win_seat, discarder=from_seat, dealer_streak=dealer_streak or 1, **flags)


def _signed(n: int) -> str:
    return f"+{n}" if n > 0 else str(n)


def _item_value(kind: str, value: int) -> str:
    return f"×{value}" if kind == "mul" else str(value)


def breakdown_text(result: ScoreResult, variant: Variant, situation: Situation, rules: Mapping[str, Any],
                   lang: str) -> str:
    """The reply's text: title, every item with its value, notes, what each payer owes and the payments."""
    key = variant.key
    if situation.discarder is None:
        how = t("score.how.self", lang)
    elif situation.rob_kong:
        how = t("score.how.rob_kong", lang, discarder=seat_name(situation.discarder, lang))
    else:
        how = t("score.how.discard", lang, discarder=seat_name(situation.discarder, lang))
    title = t("score.title", lang, variant=variant_name(key, lang), winner=seat_name(situation.winner, lang), how=how)
    extras = []
    if "mode" in rules:
        extras.append(t("score.mode", lang, mode=rules["mode"]))
    if key == "hefei" and situation.dealer_streak != 1:
        extras.append(t("score.streak", lang, n=situation.dealer_streak))
    for s in ("kong_draw", "rob_kong", "last_tiles", "heavenly", "earthly"):
        if getattr(situation, s):
            from bot.i18n import COMMANDS

            extras.append(COMMANDS[f"choice.situation.{s}"][{"en": 0, "zh": 1, "zh-TW": 2}[lang]])
    lines = [f"**{title}**" + (" · " + " · ".join(extras) if extras else "")]
    lines.append(f"__{t('score.items', lang)}__")
    for item in result.items:
        name = item_name(item.zh, item.en, lang)
        value = _item_value(item.kind, item.value)
        lines.append(f"• {name}: {value}" if item.kind != "info" else f"• _{name}: {value}_")
    if result.notes:
        lines.append(f"__{t('score.notes', lang)}__")
        for note in result.notes:
            lines.append(f"• {item_name(note.zh, note.en, lang)}" + (f": {note.value}" if note.value else ""))
    if result.per_payer:
        owed = " · ".join(f"{seat_name(s, lang)} {v}" for s, v in sorted(result.per_payer.items()))
        lines.append(f"{t('score.per_payer', lang)}: {owed}")
    lines.append(f"__{t('score.payments', lang)}__ ({t('score.unit', lang)})")
    lines.append(_payment_line(result.payments, result.winner, lang))
    if any(result.jiao_payments):
        lines.append(f"{t('score.stacks', lang)}: {_payment_line(result.stack_payments, None, lang)}")
        lines.append(f"{t('score.jiao', lang)}: {_payment_line(result.jiao_payments, None, lang)}")
    changed = [r for r in variant.house_rules if rules.get(r.key) != r.default and r.key != "mode"]
    if changed:
        text = ", ".join(f"{item_name(r.zh, r.en, lang)} = {_rule_value(rules[r.key], lang)}" for r in changed)
        lines.append(t("score.rules_used", lang, rules=text))
    return "\n".join(lines)


def _rule_value(value: Any, lang: str) -> str:
    if isinstance(value, bool):
        return t("common.on" if value else "common.off", lang)
    return str(value)


def _payment_line(payments: tuple[int, ...], winner: int | None, lang: str) -> str:
    parts = []
    for seat, amount in enumerate(payments):
        mark = f" ({t('score.winner_mark', lang)})" if seat == winner else ""
        parts.append(f"{seat_name(seat, lang)} {_signed(amount)}{mark}")
    return " · ".join(parts)


def render_image(hand: Hand, result: ScoreResult, situation: Situation, lang: str, title: str = "") -> tuple[bytes, str]:
    """PNG bytes of the score card (render.render_score) and its file name. Runs in a worker thread."""
    from render import ScoreScene, render_score

    names = ("", "", "", "")  # no players here: the card spells out the winds
    scene = ScoreScene.from_result(hand, result, names, discarder=situation.discarder, title=title)
    return render_score(scene, lang=lang), "score.png"


class HelpButton(discord.ui.Button["HelpView"]):
    def __init__(self, lang: str) -> None:
        super().__init__(label=t("score.help_button", lang), style=discord.ButtonStyle.secondary, emoji="❔",
                         custom_id=HELP_CUSTOM_ID)

    async def callback(self, interaction: discord.Interaction) -> None:
        lang = lang_for(interaction, None)
        await interaction.response.send_message(t("score.help", lang), ephemeral=True)


class HelpView(SafeView):
    """The "Notation help" button; persistent (registered once at load), so old messages keep working."""

    def __init__(self, lang: str = "en") -> None:
        super().__init__(timeout=None)
        self.add_item(HelpButton(lang))


class Score(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
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
    @app_commands.choices(variant=VARIANT_CHOICES, win=WIN_CHOICES, winner=SEAT_CHOICES, discarder=SEAT_CHOICES,
                          situation=SITUATION_CHOICES, mode=MODE_CHOICES)
    async def score(
        self,
        interaction: discord.Interaction,
        hand: app_commands.Range[str, 1, 200],
        variant: str | None = None,
        win: str | None = None,
        winner: str | None = None,
        discarder: str | None = None,
        situation: str | None = None,
        mode: int | None = None,
        dealer_streak: app_commands.Range[int, 1, 99] | None = None,
    ) -> None:
        settings = await guild_settings(self.bot, interaction.guild_id)
        lang = lang_for(interaction, settings.language if interaction.guild_id else None)
        key = variant or settings.default_variant
        v = get_variant(key)
        rules = variant_rules(settings, v)
        if mode is not None and "mode" in rules:
            rules["mode"] = mode
        sit = build_situation(win=win, winner=winner, discarder=discarder, situation=situation,
                              dealer_streak=dealer_streak)
        try:
            parsed = parse_hand(hand)
            result = v.score(parsed, sit, rules)
        except EngineError as e:
            text = t("score.bad_hand", lang, error=e.message(lang)) + "\n" + t("score.example", lang,
                                                                                example=EXAMPLES[key])
            await interaction.response.send_message(text, ephemeral=True, view=HelpView(lang))
            return
        text = breakdown_text(result, v, sit, rules, lang)
        await interaction.response.defer(thinking=True)
        image = None
        try:
            title = variant_name(key, lang) + (f" · {rules['mode']}" if "mode" in rules else "")
            image = await asyncio.to_thread(render_image, parsed, result, sit, lang, title)
        except Exception:  # the breakdown matters more than the picture
            log.exception("score image failed for %r", hand)
        if image is None:
            await interaction.followup.send(text, view=HelpView(lang))
        else:
            data, name = image
            await interaction.followup.send(text, file=discord.File(io.BytesIO(data), filename=name),
                                            view=HelpView(lang))


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Score(bot))
