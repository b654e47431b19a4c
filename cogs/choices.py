"""The slash commands' choices, defined once for every cog that offers them (``/score``, ``/record``,
``/rules``, ``/table``, ``/leaderboard``, ``/season`` ...). Not an extension: a module the cogs import.

Every choice's name is a catalogue key (``choice.<kind>.<value>``), shown in the player's language by
:class:`bot.i18n.Translator`.
"""

from __future__ import annotations

from typing import Any

from discord.app_commands import Choice

from bot.i18n import locale_str
from bot.settings import WUHU_MODES
from engine.variants import variant_keys

SITUATIONS = ("kong_draw", "rob_kong", "last_tiles", "heavenly", "earthly")
WINS = ("discard", "self")
SEATS = "ESWN"

SEAT_CHOICES = [Choice(name=locale_str(f"choice.seat.{s}"), value=s) for s in SEATS]
WIN_CHOICES = [Choice(name=locale_str(f"choice.win.{w}"), value=w) for w in WINS]
SITUATION_CHOICES = [Choice(name=locale_str(f"choice.situation.{s}"), value=s) for s in SITUATIONS]
#: Any: offered beside str choices in one ``app_commands.choices`` (whose values share one type parameter)
MODE_CHOICES: list[Choice[Any]] = [Choice(name=locale_str(f"choice.mode.{m}"), value=m) for m in WUHU_MODES]


def variant_choices() -> list[Choice[str]]:
    """One choice per registered variant, read when a cog's module runs (``load_extension`` runs it afresh, so a
    variant registered before the bot loads its cogs is offered, and accepted by ``bot.options``' checks)."""
    return [Choice(name=locale_str(f"choice.variant.{k}"), value=k) for k in variant_keys()]
