"""Every slash command's options checked on the server, before the command runs.

Discord's client offers only an option's choices and keeps numbers and texts within the ranges a command declares,
but a raw payload can send anything: discord.py hands a forged ``mode: 999`` of a ``choices`` option, an integer past
a ``Range`` or a 10,000-character text straight to the command (``/table new`` opened a lobby whose first hand then
paused with an engine error). :func:`install` adds one check to every command of the tree: each option sent must be
one of its declared choices, of its declared type, and within its declared range or length; otherwise the command
does not run and the member is told which option is wrong and what it may be, in their language.
"""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands

from bot.errors import UserError
from bot.i18n import t
from bot.ids import db_id

_INTEGER = discord.AppCommandOptionType.integer
_NUMBER = discord.AppCommandOptionType.number
_STRING = discord.AppCommandOptionType.string
_BOOLEAN = discord.AppCommandOptionType.boolean
#: Options naming a member, a channel or a role: Discord sends the id and the object it resolved.
_RESOLVED = (discord.AppCommandOptionType.user, discord.AppCommandOptionType.mentionable,
             discord.AppCommandOptionType.channel, discord.AppCommandOptionType.role)


def _text(s: Any, lang: str) -> str:
    """A command string (a ``locale_str`` with its catalogue key, or plain text) in ``lang``."""
    key = getattr(s, "extras", {}).get("key") if isinstance(s, app_commands.locale_str) else None
    return t(key, lang) if key else str(s)


def shown_value(value: Any) -> str:
    """A value as a payload sent it, short enough to quote back in a reply (20 characters at most).

    >>> shown_value("hard"), shown_value("x" * 30)
    ('hard', 'xxxxxxxxxxxxxxxxxxx…')
    """
    s = str(value)
    return s if len(s) <= 20 else s[:19] + "…"


#: Options whose commands word an out-of-range value their own way (the message takes ``low``, ``high``, ``value``).
RANGE_MESSAGES = {"settings.record_expiry_hours.name": "record.bad_expiry", "score.streak.name": "score.bad_streak",
                  "record.streak.name": "score.bad_streak"}


class OptionRefused(UserError, app_commands.CheckFailure):
    """An option value Discord's client never sends. The option's and the choices' names are put in the member's
    language when the message is written (:meth:`message`)."""

    def __init__(self, param: app_commands.Parameter, value: Any, problem: str) -> None:
        self.param, self.value, self.problem = param, value, problem
        super().__init__("error.bad_option_value", option=param.display_name, value=shown_value(value))

    def message(self, lang: str | None = "en") -> str:
        lang = lang or "en"
        p = self.param
        option = _text(p.locale_name or p.display_name, lang)
        if self.problem == "choice":
            allowed = " / ".join(_text(c._locale_name or c.name, lang) for c in p.choices)
            return t("score.bad_option", lang, option=option, value=shown_value(self.value), allowed=allowed)
        if self.problem == "length":
            return t("error.bad_option_length", lang, option=option, low=p.min_value or 0, high=p.max_value,
                     length=len(str(self.value)))
        own = RANGE_MESSAGES.get(getattr(p.locale_name, "extras", {}).get("key", ""))
        if own is not None and self.problem in ("range", "type") and not p.choices:
            return t(own, lang, low=p.min_value, high=p.max_value, value=shown_value(self.value))
        if self.problem == "range":
            low = "…" if p.min_value is None else p.min_value
            high = "…" if p.max_value is None else p.max_value
            return t("error.bad_option_range", lang, option=option, low=low, high=high, value=shown_value(self.value))
        return t("error.bad_option_value", lang, option=option, value=shown_value(self.value))


def problem_of(p: app_commands.Parameter, value: Any) -> str | None:
    """What is wrong with ``value`` sent for option ``p`` (None: nothing).

    >>> from discord.app_commands import Choice
    >>> class P:  # the parts of a Parameter this looks at
    ...     type, choices, min_value, max_value = _INTEGER, [Choice(name="315", value=315)], None, None
    >>> problem_of(P, 315), problem_of(P, 999), problem_of(P, "315"), problem_of(P, True)
    (None, 'choice', 'choice', 'choice')
    """
    kind = p.type
    if kind in _RESOLVED:
        # an id Discord did not resolve reaches the command as a bare ``Object``; an id past the database's
        # integers (a forged "resolved" entry) names nobody either
        if isinstance(value, discord.Object) or db_id(getattr(value, "id", None)) is None:
            return "type"
        return None
    if kind in (_INTEGER, _NUMBER, _STRING, _BOOLEAN):
        ok_type: tuple[type, ...] = {_INTEGER: (int,), _NUMBER: (int, float), _STRING: (str,), _BOOLEAN: (bool,)}[kind]
        if not isinstance(value, ok_type) or (kind is not _BOOLEAN and isinstance(value, bool)):
            return "choice" if p.choices else "type"
    if p.choices:
        if not any(type(value) is type(c.value) and value == c.value for c in p.choices):
            return "choice"
        return None
    if kind in (_INTEGER, _NUMBER):
        if (p.min_value is not None and value < p.min_value) or (p.max_value is not None and value > p.max_value):
            return "range"
        if kind is _NUMBER and value != value:  # NaN
            return "range"
    if kind is _STRING and ((p.min_value is not None and len(value) < p.min_value)
                            or (p.max_value is not None and len(value) > p.max_value)):
        return "length"
    return None


async def options_valid(interaction: discord.Interaction) -> bool:
    """The check run before a command (and before its options are converted): a server's command comes from a
    server, and every option sent is one the command declares a member may send."""
    cmd = interaction.command
    if not isinstance(cmd, app_commands.Command) or interaction.type is not discord.InteractionType.application_command:
        return True
    if interaction.guild_id is None and (cmd.guild_only or getattr(cmd.root_parent, "guild_only", False)):
        # ``guild_only`` only hides a command from DMs: a payload sent from one anyway ran it (a lobby in a DM)
        raise app_commands.NoPrivateMessage()
    sent = interaction.namespace.__dict__
    for p in cmd.parameters:
        value = sent.get(p.display_name, sent.get(p.name))
        if value is None:
            continue
        problem = problem_of(p, value)
        if problem is not None:
            raise OptionRefused(p, getattr(value, "id", value) if p.type in _RESOLVED else value, problem)
    return True


def typed_text(current: Any) -> str:
    """What a member typed into an option with a picker (autocomplete): Discord sends it as text, a raw payload may
    send a number, a list or a boolean; anything not text is read as its text (a list or a mapping as nothing).

    >>> typed_text(" lond"), typed_text(12), typed_text(True), typed_text([1]), typed_text(None)
    (' lond', '12', 'True', '', '')
    """
    if isinstance(current, str):
        return current
    return str(current) if isinstance(current, int | float) else ""


class RawOptionRefused(UserError, app_commands.CheckFailure):
    """An option whose raw value discord.py cannot even read (a member, channel or role id that is not a number):
    refused before discord.py builds the command's options, which raised outside any handler (no answer at all,
    an ERROR in the log)."""

    def __init__(self, option: str, value: Any) -> None:
        super().__init__("error.bad_option_value", option=shown_value(option), value=shown_value(value))


#: Raw option types whose value discord.py turns into a number: a member, channel, role, mentionable, attachment.
_SNOWFLAKE_TYPES = (6, 7, 8, 9, 11)


def raw_problem(options: Any) -> tuple[str, Any] | None:
    """The first option of a raw interaction payload that discord.py cannot read, as (name, value); None: none.

    >>> raw_problem([{"name": "g", "type": 2, "options": [{"name": "s", "type": 1, "options": [
    ...     {"name": "player", "type": 6, "value": "abc"}]}]}])
    ('player', 'abc')
    >>> raw_problem([{"name": "player", "type": 6, "value": "123"}, {"name": "hand", "type": 3, "value": "x"}])
    """
    for o in options if isinstance(options, list) else []:
        if not isinstance(o, dict):
            continue
        if o.get("type") in (1, 2):
            found = raw_problem(o.get("options"))
            if found is not None:
                return found
        elif o.get("type") in _SNOWFLAKE_TYPES and not o.get("focused"):
            v = o.get("value")
            if not (isinstance(v, str) and v.isascii() and v.isdigit() and len(v) <= 20):
                return str(o.get("name")), v
    return None


async def raw_options_readable(interaction: discord.Interaction) -> bool:
    """The tree's check before discord.py reads a command's options (:func:`raw_problem`)."""
    data: Any = interaction.data or {}
    problem = raw_problem(data.get("options")) if isinstance(data, dict) else None
    if problem is None:
        return True
    if interaction.type is discord.InteractionType.autocomplete:
        return False  # (a picker gets no answer: nothing to say)
    raise RawOptionRefused(*problem)


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Add :func:`options_valid` to every slash command of ``tree`` (once), and :func:`raw_options_readable` to the
    tree."""
    tree.interaction_check = raw_options_readable  # type: ignore[method-assign]
    for cmd in tree.walk_commands():
        if isinstance(cmd, app_commands.Command) and options_valid not in cmd.checks:
            cmd.add_check(options_valid)
