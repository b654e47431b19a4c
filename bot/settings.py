"""What a server may set, declared as data, and the one check every writer uses.

Every per-server setting has a declared range or choice set here; every house rule has its choice set next to its
definition in the variant (:class:`engine.variants.HouseRule`, read through :func:`house_rule_choices`). The
store refuses anything else (:meth:`bot.store.Store.update_guild_settings` / ``set_house_rules`` call
:func:`check_setting` / :func:`check_house_rules`), ``/settings`` builds its controls and its form labels from the
same declarations, and ``/score`` checks its options against them too, so a forged component or command payload
never reaches a table.

This module also holds the helpers every cog reads the settings through (:func:`guild_settings`,
:func:`server_language`, :func:`variant_rules`); they live in the bot layer so that ``cogs.errors`` and
``cogs.settings`` do not import each other.

>>> TURN_SECONDS.low, TURN_SECONDS.high, CLAIM_SECONDS.low, CLAIM_SECONDS.high
(15, 300, 5, 60)
>>> parse_whole_number("90"), parse_whole_number(" ６０ "), parse_whole_number("²"), parse_whole_number("₆₀")
(90, 60, None, None)
>>> check_setting("turn_seconds", 10)
Traceback (most recent call last):
...
bot.settings.InvalidSetting: turn_seconds cannot be 10 (allowed: 15-300)
>>> check_house_rules("wuhu", {"di_per_match": 2}) is None
True
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from engine.ai import DIFFICULTIES
from engine.variants import VARIANT_KEYS, HouseRule, Variant, get_variant


@dataclass(frozen=True, slots=True)
class Range:
    """A whole number from ``low`` to ``high`` inclusive."""

    low: int
    high: int

    def __contains__(self, value: object) -> bool:
        return type(value) is int and self.low <= value <= self.high

    def __str__(self) -> str:
        return f"{self.low}-{self.high}"


#: Seconds a player has for a turn / to claim a discard (the table's timers).
TURN_SECONDS = Range(15, 300)
CLAIM_SECONDS = Range(5, 60)
#: Languages a server may choose (Discord's zh-CN, zh-TW and English).
LANGUAGES = ("zh", "zh-TW", "en")
#: How the AIs a lobby's Add AI button (or ``/table addbot`` without a difficulty) adds play: the engine's levels.
AI_DIFFICULTIES: tuple[str, ...] = tuple(DIFFICULTIES)
#: A server's language until it chooses one (the store's default setting), and a table's outside a server. Not
#: ``text.lang.DEFAULT``: that is the language of a text asked for in no language at all.
SERVER_LANGUAGE = "zh"
#: Wuhu's scoring modes (from the variant's own ``mode`` house rule).
WUHU_MODES: tuple[int, ...] = tuple(get_variant("wuhu").modes)
#: At most this many channels where tables may open (Discord's channel select takes at most 25).
MAX_ALLOWED_CHANNELS = 25
#: A Discord id: a positive 64-bit integer.
SNOWFLAKE = Range(1, 2**63 - 1)
#: ``/score``'s Hefei 庄数 (consecutive dealerships, the first one counts as 1). 99 is far above anything a table
#: reaches (each repeat needs the dealer to win or draw again) and keeps the amounts readable.
DEALER_STREAK = Range(1, 99)
#: ``/score``'s hand text: Discord's option limit, far above the longest hand in the notation.
HAND_LENGTH = Range(1, 200)


class InvalidSetting(ValueError):
    """A setting or house-rule value outside its declared range or choice set."""

    def __init__(self, field: str, value: Any, allowed: str) -> None:
        self.field = field
        self.value = value
        self.allowed = allowed
        super().__init__(f"{field} cannot be {value!r} (allowed: {allowed})")


def _one_of(value: Any, choices: tuple[Any, ...]) -> bool:
    """``value`` is one of ``choices``, with the same type (``1`` is not ``True``, ``True`` is not ``1``)."""
    return any(type(value) is type(c) and value == c for c in choices)


def _describe(choices: tuple[Any, ...]) -> str:
    return "/".join("on" if c is True else "off" if c is False else str(c) for c in choices)


def house_rule_choices(variant: str) -> dict[str, tuple[Any, ...]]:
    """The house rules of ``variant`` with their allowed values (declared next to each rule in the variant).

    >>> house_rule_choices("hefei")["quan_per_match"]
    (1, 4)
    """
    return {r.key: tuple(r.choices) for r in get_variant(variant).house_rules}


def check_house_rules(variant: Any, rules: Any) -> None:
    """Refuse (:class:`InvalidSetting`) a variant we do not know, a rule it does not have, or a value outside the
    rule's choices."""
    if not isinstance(variant, str) or variant not in VARIANT_KEYS:
        raise InvalidSetting("house_rules", variant, "/".join(VARIANT_KEYS))
    if not isinstance(rules, Mapping):
        raise InvalidSetting(f"house_rules.{variant}", rules, "a mapping of rule -> value")
    known = house_rule_choices(variant)
    for key, value in rules.items():
        if key not in known:
            raise InvalidSetting(f"house_rules.{variant}", key, ", ".join(known) or "-")
        if not _one_of(value, known[key]):
            raise InvalidSetting(f"{variant}.{key}", value, _describe(known[key]))


def _check_channels(value: Any) -> None:
    if not isinstance(value, list | tuple) or len(value) > MAX_ALLOWED_CHANNELS:
        raise InvalidSetting("allowed_channels", value, f"at most {MAX_ALLOWED_CHANNELS} channel ids")
    for c in value:
        if c not in SNOWFLAKE:
            raise InvalidSetting("allowed_channels", c, "channel ids")


def check_setting(field: str, value: Any) -> None:
    """Refuse (:class:`InvalidSetting`) a value outside the declared range or choice set of ``field`` (a key of
    :data:`SETTING_DEFAULTS`); ``KeyError`` for a field that does not exist."""
    if field == "default_variant":
        if not _one_of(value, VARIANT_KEYS):
            raise InvalidSetting(field, value, "/".join(VARIANT_KEYS))
    elif field == "wuhu_mode":
        if not _one_of(value, WUHU_MODES):
            raise InvalidSetting(field, value, _describe(WUHU_MODES))
    elif field == "language":
        if not _one_of(value, LANGUAGES):
            raise InvalidSetting(field, value, "/".join(LANGUAGES))
    elif field in ("turn_seconds", "claim_seconds"):
        allowed = TURN_SECONDS if field == "turn_seconds" else CLAIM_SECONDS
        if value not in allowed:
            raise InvalidSetting(field, value, str(allowed))
    elif field == "hints":
        if type(value) is not bool:
            raise InvalidSetting(field, value, "on/off")
    elif field == "ai_difficulty":
        if not _one_of(value, AI_DIFFICULTIES):
            raise InvalidSetting(field, value, "/".join(AI_DIFFICULTIES))
    elif field == "allowed_channels":
        _check_channels(value)
    elif field == "house_rules":
        if not isinstance(value, Mapping):
            raise InvalidSetting(field, value, "a mapping of variant -> rules")
        for variant, rules in value.items():
            check_house_rules(variant, rules)
    else:
        raise KeyError(field)


#: Settings fields a server may change, with their defaults (the same as the schema's column defaults).
SETTING_DEFAULTS: dict[str, Any] = {
    "default_variant": "wuhu",
    "wuhu_mode": 315,
    "house_rules": {},
    "turn_seconds": 60,
    "claim_seconds": 15,
    "language": "zh",
    "allowed_channels": [],
    "hints": True,
    "ai_difficulty": "normal",
}


@dataclass(frozen=True, slots=True)
class GuildSettings:
    guild_id: int
    default_variant: str = "wuhu"
    wuhu_mode: int = 315
    house_rules: dict[str, dict[str, Any]] = field(default_factory=dict)  # {variant: {rule: value}}
    turn_seconds: int = 60
    claim_seconds: int = 15
    language: str = "zh"
    allowed_channels: list[int] = field(default_factory=list)  # empty = every channel
    hints: bool = True
    ai_difficulty: str = "normal"  # the AIs added without a difficulty (the lobby's Add AI button)
    updated_at: datetime | None = None  # None = never changed (all defaults)

    def rules_for(self, variant: str) -> dict[str, Any]:
        """This server's house-rule overrides for ``variant`` (pass to ``Variant.rules``)."""
        return dict(self.house_rules.get(variant, {}))


_DIGITS = re.compile(r"[0-9０-９]{1,6}")


def parse_whole_number(text: str | None) -> int | None:
    """A whole number typed in a form: ASCII digits, or the full-width digits a Chinese keyboard types; None for
    anything else (signs, decimals, superscripts such as ``²``, subscripts such as ``₆₀``, other scripts' digits).
    Python's ``int()`` and ``str.isdigit()`` each accept some of those; a player typing them gets the range
    message instead."""
    raw = (text or "").strip()
    if not _DIGITS.fullmatch(raw):
        return None
    return int(raw.translate({0xFF10 + d: 0x30 + d for d in range(10)}))


# ---------------------------------------------------------------------------------------------------------------
# reading a server's settings (every cog)


async def guild_settings(bot: object, guild_id: int | None) -> GuildSettings:
    """This server's settings; the defaults in DMs or when the store is not open."""
    store = getattr(bot, "store", None)
    if guild_id is None or store is None:
        return GuildSettings(guild_id=guild_id or 0)
    return await store.guild_settings(guild_id)


async def server_language(bot: object, guild_id: int | None) -> str | None:
    """The language the server chose, or None outside a server."""
    if guild_id is None:
        return None
    return (await guild_settings(bot, guild_id)).language


def variant_rules(settings: GuildSettings, variant: Variant) -> dict[str, Any]:
    """The house rules in force for ``variant`` on this server: its defaults, the server's overrides, and for Wuhu
    the server's scoring mode. Overrides the variant no longer has, or whose value is outside the rule's choices
    (left over from an older version), are ignored: nothing invalid reaches a table."""
    rules: dict[str, HouseRule] = {r.key: r for r in variant.house_rules}
    overrides = {k: v for k, v in settings.rules_for(variant.key).items()
                 if k in rules and _one_of(v, tuple(rules[k].choices))}
    if "mode" in rules and "mode" not in overrides and _one_of(settings.wuhu_mode, tuple(rules["mode"].choices)):
        overrides["mode"] = settings.wuhu_mode
    return variant.rules(overrides)


def table_allowed_in(settings: GuildSettings, channel: Any) -> bool:
    """Whether a table may open in ``channel`` (a thread counts as its parent channel too)."""
    if not settings.allowed_channels:
        return True
    ids = {getattr(channel, "id", None), getattr(channel, "parent_id", None)}
    return bool(ids & set(settings.allowed_channels))


#: ``replays_show_all_hands`` (issue 14): once a hand is over, a replay shows every seat's concealed tiles. Default on;
#: Manage Server turns it off in ``/settings`` (then each viewer sees only their own tiles, as during play).
REPLAYS_SHOW_ALL_HANDS_DEFAULT = True

#: ``record_expiry_hours`` (issue 14): how long a hand recorded with ``/record`` waits for every paying player's
#: confirmation before it expires and changes nothing. A day by default: the players of an evening's game confirm
#: the next morning at the latest; a week at most, so that an old proposal never lands in the ledger by surprise.
RECORD_EXPIRY_HOURS = Range(1, 168)
RECORD_EXPIRY_HOURS_DEFAULT = 24
