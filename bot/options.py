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

_INTEGER = discord.AppCommandOptionType.integer
_NUMBER = discord.AppCommandOptionType.number
_STRING = discord.AppCommandOptionType.string
_BOOLEAN = discord.AppCommandOptionType.boolean


def _text(s: Any, lang: str) -> str:
    """A command string (a ``locale_str`` with its catalogue key, or plain text) in ``lang``."""
    key = getattr(s, "extras", {}).get("key") if isinstance(s, app_commands.locale_str) else None
    return t(key, lang) if key else str(s)


def _shown(value: Any) -> str:
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
        super().__init__("error.bad_option_value", option=param.display_name, value=_shown(value))

    def message(self, lang: str | None = "en") -> str:
        lang = lang or "en"
        p = self.param
        option = _text(p.locale_name or p.display_name, lang)
        if self.problem == "choice":
            allowed = " / ".join(_text(c._locale_name or c.name, lang) for c in p.choices)
            return t("score.bad_option", lang, option=option, value=_shown(self.value), allowed=allowed)
        if self.problem == "length":
            return t("error.bad_option_length", lang, option=option, low=p.min_value or 0, high=p.max_value,
                     length=len(str(self.value)))
        own = RANGE_MESSAGES.get(getattr(p.locale_name, "extras", {}).get("key", ""))
        if own is not None and self.problem in ("range", "type") and not p.choices:
            return t(own, lang, low=p.min_value, high=p.max_value, value=_shown(self.value))
        if self.problem == "range":
            low = "…" if p.min_value is None else p.min_value
            high = "…" if p.max_value is None else p.max_value
            return t("error.bad_option_range", lang, option=option, low=low, high=high, value=_shown(self.value))
        return t("error.bad_option_value", lang, option=option, value=_shown(self.value))


def problem_of(p: app_commands.Parameter, value: Any) -> str | None:
    """What is wrong with ``value`` sent for option ``p`` (None: nothing).

    >>> from discord.app_commands import Choice
    >>> class P:  # the parts of a Parameter this looks at
    ...     type, choices, min_value, max_value = _INTEGER, [Choice(name="315", value=315)], None, None
    >>> problem_of(P, 315), problem_of(P, 999), problem_of(P, "315"), problem_of(P, True)
    (None, 'choice', 'choice', 'choice')
    """
    kind = p.type
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
    """The check run before a command (and before its options are converted): every option sent is one the
    command declares a member may send."""
    cmd = interaction.command
    if not isinstance(cmd, app_commands.Command) or interaction.type is not discord.InteractionType.application_command:
        return True
    sent = interaction.namespace.__dict__
    for p in cmd.parameters:
        value = sent.get(p.display_name, sent.get(p.name))
        if value is None:
            continue
        problem = problem_of(p, value)
        if problem is not None:
            raise OptionRefused(p, value, problem)
    return True


def install(tree: app_commands.CommandTree[Any]) -> None:
    """Add :func:`options_valid` to every slash command of ``tree`` (once)."""
    for cmd in tree.walk_commands():
        if isinstance(cmd, app_commands.Command) and options_valid not in cmd.checks:
            cmd.add_check(options_valid)
