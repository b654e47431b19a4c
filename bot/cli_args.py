"""The option types of ``mjbot``'s command line: each turns an option's text into its value, or refuses it with
``argparse.ArgumentTypeError``, which argparse prints under the usage line naming the option (exit 2). A player's
command's refusals are in its ``--lang`` (:func:`bot.cli_lang.current`), an operator's in English."""

from __future__ import annotations

import argparse
from typing import Any

from engine.errors import EngineError
from engine.tiles import seat_index
from text import catalog

from . import cli_lang


def seat(text: str) -> int:
    """A seat, E S W N (or 东 南 西 北): refused in the command's language."""
    try:
        return seat_index(text)
    except EngineError as e:
        raise argparse.ArgumentTypeError(e.message(cli_lang.current())) from None


def count(low: int, high: int) -> Any:
    """An option's whole number from ``low`` to ``high``: refused by argparse, naming the option, with the usage."""
    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            n = low - 1
        if not low <= n <= high:
            raise argparse.ArgumentTypeError(f"must be a whole number from {low:,} to {high:,}, not {text!r}")
        return n
    return parse


def application_id(text: str) -> int:
    """A Discord application id as the Developer Portal shows it: a snowflake of 15 to 21 digits (the length the
    token's own is checked against), so that a mistyped one is refused, not given a ✓ and a broken invite link."""
    if not (text.isascii() and text.isdigit() and 15 <= len(text.lstrip("0")) <= 21):
        raise argparse.ArgumentTypeError(f"an application id is 15 to 21 digits (General Information page), not "
                                         f"{text!r}")
    return int(text)


def streak(text: str) -> int:
    """``--dealer-streak``: a whole number within the range ``/score`` takes (:data:`bot.settings.DEALER_STREAK`)."""
    from .settings import DEALER_STREAK

    n = int(text) if text.strip().isdecimal() else 0  # (isdigit takes ², which int refuses)
    if n not in DEALER_STREAK:
        raise argparse.ArgumentTypeError(catalog.text("cli.streak_range", cli_lang.current(), low=DEALER_STREAK.low,
                                                      high=DEALER_STREAK.high, value=repr(text)))
    return n
