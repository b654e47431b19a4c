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

from bot.errors import UserError
from bot.i18n import item_name, lang_for, locale_str, rule_value, seat_name, t, variant_name
from bot.settings import DEALER_STREAK, HAND_LENGTH, WUHU_MODES, guild_settings, variant_rules
from cogs.errors import SafeView
from engine.errors import EngineError
from engine.tiles import Hand, parse_hand
from engine.variants import VARIANT_KEYS, ScoreResult, Situation, Variant, get_variant
from render import ScoreScene, render_score

log = logging.getLogger(__name__)

HELP_CUSTOM_ID = "mjbot:score:notation-help"

# One hand per variant that scores, shown with every refusal (tests check that each one really scores).
EXAMPLES: Mapping[str, str] = {
    "wuhu": "23456799m345p67s+8s",
    "hefei": "1234678922m345s+5m",
    "chizhou": "123m456p789s5z(7777z)+5z",
}

SITUATIONS = ("kong_draw", "rob_kong", "last_tiles", "heavenly", "earthly")
WINS = ("discard", "self")
SEATS = "ESWN"

#: Discord's limit on a message's text; a longer breakdown is cut and sent whole as :data:`BREAKDOWN_FILE`.
MESSAGE_LIMIT = 2000
BREAKDOWN_FILE = "score.txt"

VARIANT_CHOICES = [Choice(name=locale_str(f"choice.variant.{k}"), value=k) for k in VARIANT_KEYS]
SEAT_CHOICES = [Choice(name=locale_str(f"choice.seat.{s}"), value=s) for s in SEATS]
WIN_CHOICES = [Choice(name=locale_str(f"choice.win.{w}"), value=w) for w in WINS]
SITUATION_CHOICES = [Choice(name=locale_str(f"choice.situation.{s}"), value=s) for s in SITUATIONS]
MODE_CHOICES = [Choice(name=locale_str(f"choice.mode.{m}"), value=m) for m in WUHU_MODES]


def check_options(lang: str, *, hand: Any, variant: Any, win: Any, winner: Any, discarder: Any, situation: Any,
                  mode: Any, dealer_streak: Any) -> None:
    """Refuse option values Discord's client would never send (the payload can be forged): each choice option
    must be one of its choices, the dealer streak within :data:`bot.settings.DEALER_STREAK` and the hand within
    :data:`bot.settings.HAND_LENGTH` characters. Raises :class:`UserError` with the option's name in ``lang``."""
    checks: list[tuple[str, Any, tuple[Any, ...], str]] = [  # option, value sent, its choices, their names' keys
        ("variant", variant, VARIANT_KEYS, "variant"), ("win", win, WINS, "win"),
        ("winner", winner, tuple(SEATS), "seat"), ("discarder", discarder, tuple(SEATS), "seat"),
        ("situation", situation, SITUATIONS, "situation"), ("mode", mode, WUHU_MODES, "mode"),
    ]
    for option, value, choices, names in checks:
        if value is not None and not any(type(value) is type(c) and value == c for c in choices):
            allowed = " / ".join(t(f"choice.{names}.{c}", lang) for c in choices)
            name_key = f"score.{option}.name"
            shown = str(value) if len(str(value)) <= 20 else str(value)[:19] + "…"
            raise UserError("score.bad_option", option=t(name_key, lang), value=shown, allowed=allowed)
    if dealer_streak is not None and dealer_streak not in DEALER_STREAK:
        shown = str(dealer_streak) if len(str(dealer_streak)) <= 20 else str(dealer_streak)[:19] + "…"
        raise UserError("score.bad_streak", low=DEALER_STREAK.low, high=DEALER_STREAK.high, value=shown)
    if not isinstance(hand, str) or len(hand) > HAND_LENGTH.high:
        raise UserError("score.bad_hand_length", high=HAND_LENGTH.high, length=len(str(hand)))


def build_situation(*, win: str | None, winner: str | None, discarder: str | None, situation: str | None,
                    dealer_streak: int | None) -> Situation:
    """The engine's :class:`Situation` from the command's options, with friendly defaults:

    - winner S, or E for 天胡;
    - self-drawn unless a discarder is named or ``win`` is ``discard``; 地胡 is on the dealer's (E) discard;
    - ``win=discard`` (or 抢杠) without a discarder: the seat before the winner in turn order.

    >>> s = build_situation(win=None, winner=None, discarder="W", situation=None, dealer_streak=None)
    >>> s.winner, s.discarder, s.dealer_streak, s.kong_draw
    (1, 2, 1, False)
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
    for s in SITUATIONS:
        if getattr(situation, s):
            extras.append(t(f"choice.situation.{s}", lang))
    lines = [f"**{title}**" + (" · " + " · ".join(extras) if extras else "")]
    lines.append(f"__{t('score.items', lang)}__")
    lines.append(f"_{t('score.rule_ref', lang)}_")  # where the "(W5)" after each item name leads
    for item in result.items:
        name = _with_rule(item_name(item.zh, item.en, lang), variant.rule_for(item.code))
        value = _item_value(item.kind, item.value)
        lines.append(f"• {name}: {value}" if item.kind != "info" else f"• _{name}: {value}_")
    if result.notes:
        lines.append(f"__{t('score.notes', lang)}__")
        for note in result.notes:
            name = _with_rule(item_name(note.zh, note.en, lang), variant.rule_for(note.code))
            lines.append(f"• {name}" + (f": {note.value}" if note.value else ""))
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
        text = ", ".join(f"{item_name(r.zh, r.en, lang)} = {rule_value(rules[r.key], lang)}" for r in changed)
        lines.append(t("score.rules_used", lang, rules=text))
    return "\n".join(lines)


def _with_rule(name: str, rule: str) -> str:
    """An item's name followed by the ruling it comes from, as ``/rules`` and docs/rules/ number them: "压档 (W5)"."""
    return f"{name} ({rule})" if rule else name


def fit_message(text: str, lang: str, limit: int = MESSAGE_LIMIT) -> tuple[str, str | None]:
    """The message text within Discord's ``limit``, and the whole breakdown for :data:`BREAKDOWN_FILE` when it
    had to be cut (else None). A cut message keeps the title, as many items as fit, a pointer to the file and the
    payments (from the payments heading on), so what each seat pays is always in the message itself.

    >>> fit_message("short", "en")
    ('short', None)
    >>> body = chr(10).join(["**Title**"] + [f"• item {i}: {i}" for i in range(50)] + ["__Payments__", "E -3 · S +3"])
    >>> text, whole = fit_message(body, "en", limit=120)
    >>> len(text) <= 120, whole == body, text.splitlines()[0], text.splitlines()[-1]
    (True, True, '**Title**', 'E -3 · S +3')
    """
    if len(text) <= limit:
        return text, None
    lines = text.splitlines()
    tail_at = next((i for i, line in enumerate(lines) if line.startswith(f"__{t('score.payments', lang)}__")),
                   len(lines))
    head, middle, tail = lines[:1], lines[1:tail_at], lines[tail_at:]
    note = t("score.full_in_file", lang, file=BREAKDOWN_FILE)
    budget = limit - len("\n".join([*head, note, *tail])) - 1
    kept: list[str] = []
    for line in middle:
        if budget - len(line) - 1 < 0:
            break
        kept.append(line)
        budget -= len(line) + 1
    out = "\n".join([*head, *kept, note, *tail])
    if len(out) > limit:  # the title and payments alone are too long: cannot happen with real hands, but be safe
        out = out[: limit - 1] + "…"
    return out, text


def _payment_line(payments: tuple[int, ...], winner: int | None, lang: str) -> str:
    parts = []
    for seat, amount in enumerate(payments):
        mark = f" ({t('score.winner_mark', lang)})" if seat == winner else ""
        parts.append(f"{seat_name(seat, lang)} {_signed(amount)}{mark}")
    return " · ".join(parts)


def score_scene(hand: Hand, result: ScoreResult, situation: Situation, title: str = "") -> ScoreScene:
    """What the score card shows: the engine's items and payments, the winner and who dealt in."""
    names = ("", "", "", "")  # no players here: the card spells out the winds
    return ScoreScene.from_result(hand, result, names, discarder=situation.discarder, title=title)


def render_image(scene: ScoreScene, lang: str) -> bytes:
    """PNG bytes of the score card for ``scene``. Runs in a worker thread."""
    return render_score(scene, lang=lang)


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
        #: When a list (tests), every score card's scene is appended before it is drawn.
        self.scene_log: list[ScoreScene] | None = None

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
        hand: app_commands.Range[str, HAND_LENGTH.low, HAND_LENGTH.high],
        variant: str | None = None,
        win: str | None = None,
        winner: str | None = None,
        discarder: str | None = None,
        situation: str | None = None,
        mode: int | None = None,
        dealer_streak: app_commands.Range[int, DEALER_STREAK.low, DEALER_STREAK.high] | None = None,
    ) -> None:
        settings = await guild_settings(self.bot, interaction.guild_id)
        lang = lang_for(interaction, settings.language if interaction.guild_id else None)
        check_options(lang, hand=hand, variant=variant, win=win, winner=winner, discarder=discarder,
                      situation=situation, mode=mode, dealer_streak=dealer_streak)
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
        text, whole = fit_message(breakdown_text(result, v, sit, rules, lang), lang, MESSAGE_LIMIT)
        await interaction.response.defer(thinking=True)
        files = []
        try:
            title = variant_name(key, lang) + (f" · {rules['mode']}" if "mode" in rules else "")
            scene = score_scene(parsed, result, sit, title)
            if self.scene_log is not None:
                self.scene_log.append(scene)
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


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Score(bot))
