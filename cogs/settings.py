"""Per-server settings: the helpers every cog reads them through, and ``/settings``.

``/settings`` (Manage Server only: Discord hides it from others through ``default_permissions``, and every command
and control checks the permission again in code) answers with a private panel: an embed of the settings in force
and controls to change the default variant, the Wuhu scoring mode, the language, the house rules of every variant,
the timers (a form), hints, and the channels where tables may open. The panel shows the house rules of one variant
at a time (the default one at first); a button per other variant switches the panel to that variant's house rules
without touching the default. Every change is written through the store's audited ``update_guild_settings`` /
``set_house_rules`` (who and when) and applies to new tables only. Every value a control or the timers form sends is
checked against the declarations in :mod:`bot.settings` (a forged payload can send anything): a value outside them
gets a message saying what is allowed, and nothing is written; the store checks again.

The controls are persistent (fixed custom ids, registered at load) and stateless: each reads the server's settings
afresh, so a panel keeps working after a restart and two panels never overwrite each other with stale values. Which
variant a panel shows is read back from the panel message itself (the values of its house-rule select).
"""

from __future__ import annotations

import functools
import logging
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.ai_difficulty import AI_CHOICES, check_ai_difficulty, difficulty_name, set_ai_difficulty
from bot.app import MjBot
from bot.errors import UserError
from bot.i18n import item_name, locale_str, rule_value, t, variant_name
from bot.interactions import lang_of, settings_changed
from bot.options import shown_value, typed_text
from bot.settings import (
    CLAIM_SECONDS,
    LANGUAGES,
    RECORD_EXPIRY_HOURS,
    TURN_SECONDS,
    WUHU_MODES,
    InvalidSetting,
    Range,
    check_house_rules,
    guild_settings,
    parse_whole_number,
    server_language,
    variant_rules,
)
from bot.store import GuildSettings
from cogs import settings_registry
from cogs.checks import check_manager, guild_of
from cogs.errors import SafeModal, SafeView, saved
from cogs.report import latest_report_day
from cogs.settings_audit import RECENT, audit_line, describe_change, field_value, recent_changes, report_text
from engine.errors import EngineError
from engine.variants import VARIANT_KEYS, get_variant

log = logging.getLogger(__name__)

PREFIX = "mjbot:settings:"
#: the panel's last row: timers, hints and channels, then the other variants' buttons (Discord: five to a row)
VIEW_BUTTONS = 5 - 3

# The readers every cog uses live in bot.settings (so that cogs.errors need not import this cog); they stay
# importable from here for the cogs that read them through this module.
__all__ = ["guild_settings", "server_language", "variant_rules", "Settings", "SettingsView", "setup"]


# ---------------------------------------------------------------------------------------------------------------
# checking what a control or a form sent (Discord's client offers only valid values, but a payload can be forged)


def _refuse_choice(field: str, value: Any, allowed: str, lang: str) -> UserError:
    return UserError("settings.bad_choice", field=t(f"settings.field.{field}", lang), value=shown_value(value),
                     allowed=allowed)


def _one(values: list[str], field: str, allowed: str, lang: str) -> str:
    """The one value a single-choice select sent."""
    if len(values) != 1:
        raise _refuse_choice(field, ",".join(values), allowed, lang)
    return values[0]


def _parse_rule(raw_value: str, lang: str) -> tuple[Any, Any, Any]:
    """(variant, HouseRule, value) from a house-rule select value ``variant|key|value``; refused with a message
    when any part is not one of the declared choices (Wuhu's mode has its own control and field)."""
    parts = raw_value.split("|", 2)
    if len(parts) != 3 or parts[0] not in VARIANT_KEYS:
        raise UserError("settings.unknown_rule")
    v = get_variant(parts[0])
    rule = next((r for r in v.house_rules if r.key == parts[1]), None)
    if rule is None or rule.key == "mode":
        raise UserError("settings.unknown_rule")
    allowed = "/".join(rule_value(c, lang) for c in rule.choices)
    try:
        value = rule.parse(parts[2])
        check_house_rules(v.key, {rule.key: value})
    except (EngineError, InvalidSetting):
        raise UserError("settings.bad_choice", field=f"{variant_name(v.key, lang)}: {item_name(rule.zh, rule.en, lang)}",
                        value=shown_value(parts[2]), allowed=allowed) from None
    return v, rule, value


# ---------------------------------------------------------------------------------------------------------------
# the panel


def _rule_choices(variant_key: str) -> list[tuple[Any, Any]]:
    """(HouseRule, value) pairs offered in the house-rule select (Wuhu's mode has its own control)."""
    v = get_variant(variant_key)
    return [(r, c) for r in v.house_rules if r.key != "mode" for c in r.choices]


def _encode_rule(variant_key: str, key: str, value: Any) -> str:
    return f"{variant_key}|{key}|{int(value) if isinstance(value, bool) else value}"


def _viewed_variant(message: Any) -> str | None:
    """The variant whose house rules a panel message shows (from its house-rule select), or None."""
    for row in getattr(message, "components", None) or []:
        for c in getattr(row, "children", []):
            if getattr(c, "custom_id", None) == PREFIX + "rule" and getattr(c, "options", None):
                key = str(c.options[0].value).split("|", 1)[0]
                return key if key in VARIANT_KEYS else None
    return None


def _is_panel(message: Any) -> bool:
    return message is not None and any(
        getattr(c, "custom_id", "") == PREFIX + "variant" for row in message.components
        for c in getattr(row, "children", []))


def settings_embed(settings: GuildSettings, audit: list[Any], lang: str, viewing: str | None = None) -> discord.Embed:
    """The panel's embed; ``viewing`` is the variant whose house rules are listed (default: the default variant)."""
    e = discord.Embed(title=t("settings.title", lang), description=t("settings.intro", lang),
                      colour=discord.Colour.blurple())
    e.add_field(name=t("settings.field.default_variant", lang), value=variant_name(settings.default_variant, lang))
    e.add_field(name=t("settings.field.wuhu_mode", lang), value=str(settings.wuhu_mode))
    e.add_field(name=t("settings.field.language", lang), value=t(f"lang.{settings.language}", lang))
    e.add_field(name=t("settings.field.turn_seconds", lang),
                value=t("settings.timers", lang, turn=settings.turn_seconds, claim=settings.claim_seconds))
    e.add_field(name=t("settings.field.hints", lang), value=rule_value(settings.hints, lang))
    e.add_field(name=t("settings.field.ai_difficulty", lang), value=difficulty_name(settings.ai_difficulty, lang))
    e.add_field(name=t("settings.field.allowed_channels", lang),
                value=describe_change("allowed_channels", settings.allowed_channels, lang))
    v = get_variant(viewing or settings.default_variant)
    rules = variant_rules(settings, v)
    lines = [
        f"• {item_name(r.zh, r.en, lang)}: **{rule_value(rules[r.key], lang)}**"
        + (f" ({t('rules.default_mark', lang)})" if rules[r.key] == r.default else "")
        for r in v.house_rules
        if r.key != "mode"
    ]
    house_title = (t("settings.house_for", lang, variant=variant_name(v.key, lang)) if v.key == settings.default_variant
                   else t("settings.house_for_other", lang, variant=variant_name(v.key, lang),
                          default=variant_name(settings.default_variant, lang)))
    e.add_field(name=house_title,
                value="\n".join(lines) or t("rules.house_none", lang), inline=False)
    recent = [audit_line(a, lang) for a in audit[:RECENT]]
    e.add_field(name=t("settings.recent", lang), value=field_value(recent) or t("settings.none_yet", lang),
                inline=False)
    return e


class _Select(discord.ui.Select["SettingsView"]):
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        assert self.view is not None
        await self.view.handle(interaction, self.custom_id.removeprefix(PREFIX), list(self.values))


class _Button(discord.ui.Button["SettingsView"]):
    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        assert self.view is not None
        await self.view.handle(interaction, (self.custom_id or "").removeprefix(PREFIX), [])


class SettingsView(SafeView):
    """The panel's controls, drawn for ``settings`` in ``lang`` with the house rules of ``viewing`` (default: the
    default variant). One instance per variant is registered for dispatch (so every "show this variant" button is
    known); the callbacks use only the interaction and the store."""

    def __init__(self, bot: MjBot, settings: GuildSettings, lang: str, viewing: str | None = None) -> None:
        super().__init__(timeout=None)
        self.bot = bot
        self.add_item(_Select(
            custom_id=PREFIX + "variant", placeholder=t("settings.ph.variant", lang), row=0,
            options=[discord.SelectOption(label=variant_name(k, lang), value=k, default=k == settings.default_variant)
                     for k in VARIANT_KEYS]))
        self.add_item(_Select(
            custom_id=PREFIX + "mode", placeholder=t("settings.ph.mode", lang), row=1,
            options=[discord.SelectOption(label=f"{variant_name('wuhu', lang)} {m}", value=str(m),
                                          default=m == settings.wuhu_mode) for m in WUHU_MODES]))
        self.add_item(_Select(
            custom_id=PREFIX + "language", placeholder=t("settings.ph.language", lang), row=2,
            options=[discord.SelectOption(label=t(f"lang.{code}", lang), value=code, default=code == settings.language)
                     for code in LANGUAGES]))
        v = get_variant(viewing or settings.default_variant)
        rules = variant_rules(settings, v)
        choices = _rule_choices(v.key)[:25]
        if choices:
            self.add_item(_Select(
                custom_id=PREFIX + "rule", placeholder=t("settings.ph.rule", lang, variant=variant_name(v.key, lang)),
                row=3,
                options=[discord.SelectOption(
                    label=f"{item_name(r.zh, r.en, lang)}: {rule_value(c, lang)}"[:100],
                    value=_encode_rule(v.key, r.key, c),
                    description=(r.help_en if lang == "en" else item_name(r.help_zh, r.help_en, lang))[:100] or None,
                    emoji="✅" if rules[r.key] == c else None,
                ) for r, c in choices]))
        self.add_item(_Button(custom_id=PREFIX + "timers", label=t("settings.btn.timers", lang), emoji="⏱️", row=4))
        self.add_item(_Button(custom_id=PREFIX + "hints", label=t("settings.btn.hints", lang), emoji="💡", row=4))
        self.add_item(_Button(custom_id=PREFIX + "channels", label=t("settings.btn.channels", lang), emoji="#️⃣",
                              row=4))
        # a "show this variant's house rules" button per other variant, as many as the row has room for (three
        # variants: all of them; a variant past that is shown when it is the default)
        others = [k for k in VARIANT_KEYS if k != v.key][:VIEW_BUTTONS]
        for other in others:
            if other != v.key:
                self.add_item(_Button(custom_id=PREFIX + "view:" + other, row=4, emoji="📖",
                                      style=discord.ButtonStyle.secondary,
                                      label=t("settings.btn.view", lang, variant=variant_name(other, lang))))

    async def handle(self, interaction: discord.Interaction[MjBot], what: str, values: list[str]) -> None:
        settings = await check_manager(self.bot, interaction)
        lang = await lang_of(interaction)
        if what == "timers":
            await interaction.response.send_modal(TimersModal(self.bot, settings, lang))
            return
        if what.startswith("view:"):
            shown = what.removeprefix("view:")
            if shown not in VARIANT_KEYS:
                raise UserError("settings.unknown_rule")
            audit = await recent_changes(self.bot.open_store, guild_of(interaction))
            note = None if shown == settings.default_variant else t(
                "settings.viewing", lang, variant=variant_name(shown, lang),
                default=variant_name(settings.default_variant, lang))
            await _show(self.bot, interaction, settings, audit, lang, note, shown)
            return
        viewing = _viewed_variant(interaction.message) if _is_panel(interaction.message) else None
        if what == "channels":
            await interaction.response.send_message(t("settings.channels_prompt", lang),
                                                    view=ChannelsView(self.bot, lang), ephemeral=True)
            return
        if what == "variant":
            field, allowed = "default_variant", "/".join(variant_name(k, lang) for k in VARIANT_KEYS)
            value: Any = _one(values, field, allowed, lang)
            if value not in VARIANT_KEYS:
                raise _refuse_choice(field, value, allowed, lang)
            viewing = value  # a new default variant: show its house rules
        elif what == "mode":
            field, allowed = "wuhu_mode", "/".join(map(str, WUHU_MODES))
            raw = _one(values, field, allowed, lang)
            value = parse_whole_number(raw)
            if value not in WUHU_MODES:
                raise _refuse_choice(field, raw, allowed, lang)
        elif what == "language":
            field, allowed = "language", "/".join(t(f"lang.{code}", lang) for code in LANGUAGES)
            value = _one(values, field, allowed, lang)
            if value not in LANGUAGES:
                raise _refuse_choice(field, value, allowed, lang)
        elif what == "hints":
            field, value = "hints", not settings.hints
        elif what == "rule":
            if len(values) != 1:
                raise UserError("settings.unknown_rule")
            v, rule, parsed = _parse_rule(values[0], lang)
            await set_house_rule(self.bot, interaction, settings, v, rule, parsed)
            return
        else:  # a control from a newer version
            raise UserError("settings.unknown_rule")
        await apply_change(self.bot, interaction, settings, field, value, viewing=viewing)


async def _show(bot: MjBot, interaction: discord.Interaction[MjBot], settings: GuildSettings, audit: list[Any], lang: str,
                note: str | None, viewing: str | None) -> None:
    """Redraw the panel the interaction came from, or answer with a new panel (from a form or a prompt)."""
    embed = settings_embed(settings, audit, lang, viewing)
    view = SettingsView(bot, settings, lang, viewing)
    if interaction.type == discord.InteractionType.component and _is_panel(interaction.message):
        await interaction.response.edit_message(content=note, embed=embed, view=view)
    else:
        await interaction.response.send_message(note, embed=embed, view=view, ephemeral=True)


async def set_house_rule(bot: MjBot, interaction: discord.Interaction[MjBot], settings: GuildSettings, variant: Any,
                         rule: Any, value: Any) -> None:
    """Set one house rule of ``variant`` (any variant, not only the default one) through the store's audited
    ``set_house_rules``, and show that variant's house rules. A value already in force writes nothing."""
    lang = await lang_of(interaction)
    shown = f"{variant_name(variant.key, lang)}: {item_name(rule.zh, rule.en, lang)} = {rule_value(value, lang)}"
    if variant_rules(settings, variant).get(rule.key) == value:
        new_settings, key = settings, "settings.unchanged"
    else:
        overrides = {**settings.rules_for(variant.key), rule.key: value}
        new_settings = await bot.open_store.set_house_rules(guild_of(interaction), interaction.user.id, variant.key,
                                                       overrides)
        key = "settings.changed"
        log.info("guild %s: user %s set %s rule %s to %r", interaction.guild_id, interaction.user.id, variant.key,
                 rule.key, value)
        settings_changed(interaction, new_settings)
    lang = await lang_of(interaction)
    # stored: if what follows fails, the admin is told it was made
    note = saved(interaction, t(key, lang, field=t("settings.field.house_rules", lang), value=shown),
                 when=key == "settings.changed")
    audit = await recent_changes(bot.open_store, guild_of(interaction))
    await _show(bot, interaction, new_settings, audit, lang, note, variant.key)


async def apply_change(bot: MjBot, interaction: discord.Interaction[MjBot], settings: GuildSettings, field: str, value: Any,
                       *, shown: str | None = None, viewing: str | None = None) -> None:
    """Write one audited change and redraw the panel (or answer, when the change came from a form or a prompt)."""
    old = getattr(settings, field)
    new_settings = await bot.open_store.update_guild_settings(guild_of(interaction), interaction.user.id, {field: value})
    settings_changed(interaction, new_settings)  # a new language: the answer speaks it
    lang = await lang_of(interaction)
    label = t(f"settings.field.{field}", lang)
    shown = shown or describe_change(field, value, lang)
    key = "settings.changed" if old != getattr(new_settings, field) else "settings.unchanged"
    note = saved(interaction, t(key, lang, field=label, value=shown), when=key == "settings.changed")
    log.info("guild %s: user %s set %s to %r", interaction.guild_id, interaction.user.id, field, value)
    audit = await recent_changes(bot.open_store, guild_of(interaction))
    await _show(bot, interaction, new_settings, audit, lang, note, viewing)


class TimersModal(SafeModal):
    def __init__(self, bot: MjBot, settings: GuildSettings, lang: str) -> None:
        super().__init__(title=t("settings.modal.title", lang), custom_id=PREFIX + "timers-form", timeout=600)
        self.bot = bot
        self.turn: discord.ui.TextInput[TimersModal] = discord.ui.TextInput(label=t("settings.modal.turn", lang, low=TURN_SECONDS.low,
                                                 high=TURN_SECONDS.high),
                                         custom_id="turn_seconds", default=str(settings.turn_seconds),
                                         max_length=len(str(TURN_SECONDS.high)))
        self.claim: discord.ui.TextInput[TimersModal] = discord.ui.TextInput(
            label=t("settings.modal.claim", lang, low=CLAIM_SECONDS.low, high=CLAIM_SECONDS.high),
            custom_id="claim_seconds", default=str(settings.claim_seconds), max_length=len(str(CLAIM_SECONDS.high)))
        self.add_item(self.turn)
        self.add_item(self.claim)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        await check_manager(self.bot, interaction)
        lang = await lang_of(interaction)
        changes = {}
        allowed: Range
        for field, text, allowed in (("turn_seconds", self.turn.value, TURN_SECONDS),
                                     ("claim_seconds", self.claim.value, CLAIM_SECONDS)):
            number = parse_whole_number(text)  # ASCII or full-width digits only: "²", "₆₀", "-5", "1e3" are not
            if number not in allowed:
                raise UserError("settings.bad_number", field=t(f"settings.field.{field}", lang), low=allowed.low,
                                high=allowed.high, value=shown_value((text or "").strip()))
            changes[field] = number
        new = await self.bot.open_store.update_guild_settings(guild_of(interaction), interaction.user.id, changes)
        settings_changed(interaction, new)
        shown = t("settings.timers", lang, turn=new.turn_seconds, claim=new.claim_seconds)
        note = t("settings.changed", lang, field=t("settings.field.turn_seconds", lang), value=shown)
        audit = await recent_changes(self.bot.open_store, guild_of(interaction))
        viewing = _viewed_variant(interaction.message)
        embed = settings_embed(new, audit, lang, viewing)
        saved(interaction, note)
        if interaction.message is not None:
            await interaction.response.edit_message(content=note, embed=embed,
                                                    view=SettingsView(self.bot, new, lang, viewing))
        else:
            await interaction.response.send_message(note, embed=embed, ephemeral=True)


class ChannelsView(SafeView):
    """The channel picker (a separate private message: the panel has no free row)."""

    def __init__(self, bot: MjBot, lang: str) -> None:
        super().__init__(timeout=None)
        self.bot = bot
        self.pick: discord.ui.ChannelSelect[ChannelsView] = discord.ui.ChannelSelect(
            custom_id=PREFIX + "channels-pick", placeholder=t("settings.ph.channels", lang), min_values=1,
            max_values=25, channel_types=[discord.ChannelType.text, discord.ChannelType.public_thread,
                                          discord.ChannelType.private_thread])
        self.pick.callback = self.on_pick  # type: ignore[method-assign]  # discord.py: a component built in code gets its callback so
        self.all: discord.ui.Button[ChannelsView] = discord.ui.Button(custom_id=PREFIX + "channels-all", label=t("settings.btn.all_channels", lang),
                                     style=discord.ButtonStyle.secondary)
        self.all.callback = self.on_all  # type: ignore[method-assign]  # discord.py: a component built in code gets its callback so
        self.add_item(self.pick)
        self.add_item(self.all)

    async def on_pick(self, interaction: discord.Interaction[Any]) -> None:
        settings = await check_manager(self.bot, interaction)
        ids = sorted({v.id for v in self.pick.values})
        await apply_change(self.bot, interaction, settings, "allowed_channels", ids)

    async def on_all(self, interaction: discord.Interaction[Any]) -> None:
        settings = await check_manager(self.bot, interaction)
        await apply_change(self.bot, interaction, settings, "allowed_channels", [])


# ---------------------------------------------------------------------------------------------------------------
# time zone and weekly report (issue 15): options of /settings, written through bot.store.group (audited)

GROUP_OPTION_NAMES = {"timezone": locale_str("settings.timezone.name"),
                      "report_channel": locale_str("settings.report_channel.name"),
                      "report_day": locale_str("settings.report_day.name"),
                      "replays_show_all_hands": locale_str("settings.replays_show_all_hands.name"),
                      "record_expiry_hours": locale_str("settings.record_expiry_hours.name"),
                      "ai_difficulty": locale_str("settings.ai_difficulty.name")}
GROUP_OPTION_DESCS = {"timezone": locale_str("settings.timezone.desc"),
                      "report_channel": locale_str("settings.report_channel.desc"),
                      "report_day": locale_str("settings.report_day.desc"),
                      "replays_show_all_hands": locale_str("settings.replays_show_all_hands.desc"),
                      "record_expiry_hours": locale_str("settings.record_expiry_hours.desc"),
                      "ai_difficulty": locale_str("settings.ai_difficulty.desc")}
WEEKDAY_CHOICES = [app_commands.Choice(name=locale_str(f"choice.weekday.{d}"), value=str(d)) for d in range(7)] + [
    app_commands.Choice(name=locale_str("choice.weekday.off"), value="off")]
#: What the bot needs in the weekly report's channel.
REPORT_PERMISSIONS = discord.Permissions(view_channel=True, send_messages=True, attach_files=True)


@functools.cache
def _zone_names() -> tuple[str, ...]:
    """Every IANA zone name a server may choose (read once), the usual ones for our players first."""
    from bot.zones import known_zones

    common = ["Asia/Shanghai", "Asia/Hong_Kong", "Asia/Taipei", "Asia/Singapore", "Asia/Tokyo", "Europe/London",
              "Europe/Paris", "America/New_York", "America/Los_Angeles", "Australia/Sydney", "UTC"]
    return tuple(common + sorted(n for n in known_zones() if n not in common))


async def timezone_autocomplete(interaction: discord.Interaction[MjBot], current: str) -> list[app_commands.Choice[str]]:
    """IANA zone names containing what was typed."""
    typed = typed_text(current).strip().lower().replace(" ", "_")
    return [app_commands.Choice(name=n, value=n) for n in _zone_names() if typed in n.lower()][:25]


async def apply_group_options(bot: MjBot, interaction: discord.Interaction[MjBot], lang: str, timezone: str | None,
                              channel: Any, day: str | None) -> str:
    """Apply /settings' time zone and weekly-report options (all checked before anything is written); returns the
    line the panel opens with: the values in force, after a note per change."""
    from datetime import datetime

    from bot.store import group as gstore
    from bot.store.errors import StoreError

    store = bot.open_store
    gid = guild_of(interaction)
    if timezone is not None:
        try:
            gstore.zone(timezone.strip())
        except StoreError:
            raise UserError("group.tz_unknown", name=timezone[:64]) from None
    if day is not None and day != "off" and channel is None and (await gstore.group_settings(store, gid)).report_channel is None:
        raise UserError("group.report_needs_channel")
    if channel is not None:
        if channel.type not in (discord.ChannelType.text, discord.ChannelType.news):
            raise UserError("group.report_cannot_post", channel=channel.id)
        # with the server in the cache (the gateway's guild events), check the bot's own permissions there
        real = interaction.guild.get_channel(channel.id) if interaction.guild is not None else None
        me = interaction.guild.me if interaction.guild is not None else None
        if real is not None and me is not None and not real.permissions_for(me).is_superset(REPORT_PERMISSIONS):
            raise UserError("group.report_cannot_post", channel=channel.id)
    notes = []
    if timezone is not None:
        before = (await gstore.group_settings(store, gid)).timezone
        gs = await gstore.set_timezone(store, gid, interaction.user.id, timezone.strip())
        key = "settings.changed" if gs.timezone != before else "settings.unchanged"
        notes.append(t(key, lang, field=t("settings.field.timezone", lang), value=gs.timezone))
    if channel is not None or day is not None:
        old = await gstore.group_settings(store, gid)
        if day == "off":
            new_channel, weekday = None, old.report_weekday
        else:
            new_channel = channel.id if channel is not None else old.report_channel
            weekday = int(day) if day is not None else old.report_weekday
        first = latest_report_day(datetime.now(old.tz), weekday)
        gs = await gstore.set_weekly_report(store, gid, interaction.user.id, new_channel, weekday,
                                            first.toordinal())
        was = (old.report_channel, old.report_weekday)
        key = "settings.changed" if (gs.report_channel, gs.report_weekday) != was else "settings.unchanged"
        shown = report_text(gs.report_channel, gs.report_weekday, lang)
        notes.append(t(key, lang, field=t("settings.field.weekly_report", lang), value=shown))
    gs = await gstore.group_settings(store, gid)
    shown = report_text(gs.report_channel, gs.report_weekday, lang)
    notes.append(t("group.settings_line", lang, tz=gs.timezone, report=shown))
    return "\n".join(notes)


class Settings(commands.Cog):
    def __init__(self, bot: MjBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        for key in VARIANT_KEYS:  # each draws the buttons of the other variants: together, every control
            self.bot.add_view(SettingsView(self.bot, GuildSettings(guild_id=0), "en", key))
        self.bot.add_view(ChannelsView(self.bot, "en"))

    @app_commands.command(name=locale_str("settings.name"), description=locale_str("settings.desc"))
    @app_commands.default_permissions(manage_guild=True)
    @app_commands.guild_only()
    @app_commands.rename(**GROUP_OPTION_NAMES)
    @app_commands.describe(**GROUP_OPTION_DESCS)
    @app_commands.choices(report_day=WEEKDAY_CHOICES, ai_difficulty=AI_CHOICES)
    @app_commands.autocomplete(timezone=timezone_autocomplete)
    async def settings(self, interaction: discord.Interaction[MjBot], timezone: str | None = None,
                       report_channel: app_commands.AppCommandChannel | None = None,
                       report_day: str | None = None, replays_show_all_hands: bool | None = None,
                       record_expiry_hours: app_commands.Range[int, RECORD_EXPIRY_HOURS.low,
                                                               RECORD_EXPIRY_HOURS.high] | None = None,
                       ai_difficulty: str | None = None) -> None:
        settings = await check_manager(self.bot, interaction)
        lang = await lang_of(interaction)
        if record_expiry_hours is not None and record_expiry_hours not in RECORD_EXPIRY_HOURS:  # before any write
            raise UserError("record.bad_expiry", low=RECORD_EXPIRY_HOURS.low, high=RECORD_EXPIRY_HOURS.high,
                            value=str(record_expiry_hours)[:20])
        check_ai_difficulty(ai_difficulty, lang)  # a forged value: refused before any write
        note = await apply_group_options(self.bot, interaction, lang, timezone, report_channel, report_day)
        saved(interaction, note, when=bool(note) and (timezone, report_channel, report_day) != (None, None, None))
        # the options other cogs own (cogs.settings_registry): each one set says so above the rest, each status line below
        owned = {"replays_show_all_hands": replays_show_all_hands, "record_expiry_hours": record_expiry_hours}
        for name, value in owned.items():
            option = settings_registry.get(name)
            if value is not None and option is not None:
                note = saved(interaction, await option.apply(self.bot, interaction, lang, value) + "\n" + note)
        for name in owned:
            option = settings_registry.get(name)
            if option is not None and option.status is not None:
                note += "\n" + await option.status(self.bot, interaction.guild_id, lang)
        if ai_difficulty is not None:  # issue 19, a setting of its own: the panel below shows the new value
            settings, said = await set_ai_difficulty(self.bot.open_store, guild_of(interaction), interaction.user.id,
                                                     settings, ai_difficulty, lang)
            note = said + "\n" + note
        saved(interaction, note, when=bool(interaction.extras.get("saved")) or ai_difficulty is not None)
        audit = await recent_changes(self.bot.open_store, guild_of(interaction))
        await interaction.response.send_message(note, embed=settings_embed(settings, audit, lang),
                                                view=SettingsView(self.bot, settings, lang), ephemeral=True)


async def setup(bot: MjBot) -> None:
    await bot.add_cog(Settings(bot))
