"""The ``/settings`` panel's "Recent changes": the latest changes to the server's settings, one line each (when,
who, what) in words of the panel's language.

Only changes to settings are listed (:data:`SETTING_FIELDS`). The same audit table (``settings_audit``) also keeps
who did what at tables (托管 on / back, a host's kick / replace / restore, a passed dissolve: ``table.*``), the
steps of in-person records (``record*``) and the admins' seasons, corrections and exports; those are not settings,
and in a busy server the players' own actions would push the admins' changes out of the panel's few lines. They
stay in the store, each with who and when, and are shown where they belong: a correction in ``/history`` and
``/export``, a season in ``/season list``.
"""

from __future__ import annotations

from typing import Any

from bot.ai_difficulty import difficulty_name
from bot.i18n import item_name, rule_value, t, variant_name
from bot.settings import SETTING_DEFAULTS
from engine.variants import VARIANT_KEYS, get_variant
from text.catalog import has

#: The audit fields that are settings: the panel's own (``guild_settings``), the time zone and the weekly report,
#: and the options other cogs own (``cogs.settings_registry``: replays, the time to confirm a /record).
SETTING_FIELDS: tuple[str, ...] = (*SETTING_DEFAULTS, "timezone", "weekly_report", "replays_show_all_hands",
                                   "record_expiry_hours")
RECENT = 5  # lines of "Recent changes"
EMBED_FIELD_LIMIT = 1024  # Discord's limit on an embed field's value


async def recent_changes(store: Any, guild_id: int) -> list[Any]:
    """The server's latest changes to its settings, newest first (what "Recent changes" lists)."""
    return list(await store.settings_audit(guild_id, limit=RECENT, fields=SETTING_FIELDS))


def report_text(channel: int | None, weekday: int, lang: str) -> str:
    """``Monday in <#channel>`` / ``off``."""
    if channel is None:
        return t("group.report_off", lang)
    return t("group.report_on", lang, day=t(f"choice.weekday.{weekday}", lang), channel=channel)


def house_diff(old: Any, new: Any, lang: str) -> str:
    """What a change of ``house_rules`` did, e.g. "Hefei: Short deck (ranks 2-8) → on" (rules removed from the
    server's overrides show their default again)."""
    old = old if isinstance(old, dict) else {}
    new = new if isinstance(new, dict) else {}
    parts = []
    for vkey in sorted(set(old) | set(new), key=lambda k: (k not in VARIANT_KEYS, k)):
        before, after = old.get(vkey) or {}, new.get(vkey) or {}
        try:
            variant = get_variant(vkey)
        except ValueError:  # a variant this version does not know: say nothing about it
            continue
        for rule in variant.house_rules:
            if rule.key in before or rule.key in after:
                value = after.get(rule.key, rule.default)
                if before.get(rule.key, rule.default) != value:
                    parts.append(f"{variant_name(vkey, lang)}: {item_name(rule.zh, rule.en, lang)} → "
                                 f"{rule_value(value, lang)}")
    return "; ".join(parts) or "…"


def describe_change(field: str, value: Any, lang: str) -> str:
    """A setting's new value in words (a value this version cannot word, such as a record of another shape, is
    "…", never its raw form).

    >>> describe_change("record_expiry_hours", 48, "zh"), describe_change("replays_show_all_hands", False, "en")
    ('48 小时', 'off')
    >>> describe_change("turn_seconds", 30, "en"), describe_change("some_new_setting", {"a": 1}, "en")
    ('30', '…')
    """
    if field == "default_variant":
        return variant_name(value, lang)
    if field == "language":
        return t(f"lang.{value}", lang)
    if field == "ai_difficulty":
        return difficulty_name(value, lang)
    if field == "allowed_channels":
        return ", ".join(f"<#{c}>" for c in value) if value else t("settings.channels_all", lang)
    if field == "record_expiry_hours" and isinstance(value, int):
        return t("settings.hours", lang, n=value)
    if field == "weekly_report" and isinstance(value, dict):  # {"channel": id or None, "weekday": 0-6}
        return report_text(value.get("channel"), value.get("weekday", 0), lang)
    if isinstance(value, bool | int | str) and field != "house_rules":
        return rule_value(value, lang)
    return "…"


def field_label(field: str, lang: str) -> str:
    """A setting's name; a generic one for a field this version has no name for."""
    key = f"settings.field.{field}"
    return t(key, lang) if has(key) else t("settings.field.other", lang)


def audit_line(a: Any, lang: str) -> str:
    """One line of "Recent changes": when, who, what."""
    what = (f"{field_label(a.field, lang)}: {house_diff(a.old_value, a.new_value, lang)}" if a.field == "house_rules"
            else f"{field_label(a.field, lang)} → {describe_change(a.field, a.new_value, lang)}")
    return f"<t:{int(a.changed_at.timestamp())}:R> <@{a.user_id}>: {what}"


def field_value(lines: list[str]) -> str:
    """As many whole lines as fit in one embed field (the newest audit lines come first)."""
    out: list[str] = []
    for line in lines:
        line = line if len(line) <= EMBED_FIELD_LIMIT else line[: EMBED_FIELD_LIMIT - 1] + "…"
        if len("\n".join([*out, line])) > EMBED_FIELD_LIMIT:
            break
        out.append(line)
    return "\n".join(out)
