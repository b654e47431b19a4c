"""argparse's own messages in the player's language, for the player's commands (``mjbot score``, ``mjbot local``).

argparse writes its messages (a missing argument, an invalid choice, the ``usage:`` line of an error) through
``gettext``: its module's ``_`` looks each English message up, as Python's argparse how-to ("How to translate the
argparse output") describes. While :func:`speaking` holds, that lookup is our catalogue's: each argparse message
a player can meet has a key (:data:`MSGIDS`, ``cli.argparse.*``), written with argparse's own ``%`` placeholders,
which argparse fills in as before. A message without a key stays argparse's English (a newer Python's new wording
too); the help (``--help``) stays English, as the options' descriptions are.

The language is the command's ``--lang`` (``zh`` by default, as the commands' own output), read from the command
line before argparse parses it; the operator's commands (``run``, ``check``, ``sim``, ``duel``, ``db``) speak
English.

>>> command_lang(["score", "123m", "--lang", "en"]), command_lang(["local", "--lang=zh-TW"]), command_lang(["sim"])
('en', 'zh-TW', None)
>>> command_lang(["score", "--variant", "wuhu"]), command_lang(["score", "--lang", "fr"])
('zh', 'zh')
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, NoReturn

from text import catalog
from text.lang import LANGS, Lang

#: the commands a player types, which speak ``--lang``; their default language
PLAYER_COMMANDS: Final = frozenset(("score", "local"))
DEFAULT_LANG: Final[Lang] = "zh"

#: argparse's message (its msgid, Python 3.11 to 3.13) -> our catalogue's key
MSGIDS: Final[dict[str, str]] = {
    "%(prog)s: error: %(message)s\n": "cli.argparse.error",
    "usage: ": "cli.argparse.usage",
    "argument %(argument_name)s: %(message)s": "cli.argparse.argument",
    "the following arguments are required: %s": "cli.argparse.required",
    "unrecognized arguments: %s": "cli.argparse.unrecognized",
    "invalid choice: %(value)r (choose from %(choices)s)": "cli.argparse.invalid_choice",
    "invalid %(type)s value: %(value)r": "cli.argparse.invalid_value",
    "expected one argument": "cli.argparse.expected_one",
    "ambiguous option: %(option)s could match %(matches)s": "cli.argparse.ambiguous",
    "ignored explicit argument %r": "cli.argparse.ignored_explicit",
}
#: translated only in an error's usage line, not at the head of ``--help`` (whose body is English)
_ERROR_ONLY: Final = frozenset(("cli.argparse.usage",))

_state: dict[str, Any] = {"lang": None, "erroring": False, "hint": False}

#: under an error in Chinese that no ``--lang`` asked for: how to have it in English (the README and ``--help`` are
#: English, and a newcomer's first ``mjbot local`` without ``--variant`` met "缺少必需的参数：--variant")
EN_HINT: Final = "(--lang en: these messages in English)\n"


def command_lang(argv: Sequence[str]) -> Lang | None:
    """The language of the command in ``argv`` (the arguments after ``mjbot``): its ``--lang`` (the last one given,
    as argparse takes it; one we do not speak reads as the default, and argparse refuses it) for a player's command,
    None (English) for the others."""
    command = next((a for a in argv if not a.startswith("-")), None)
    if command not in PLAYER_COMMANDS:
        return None
    lang: Lang = DEFAULT_LANG
    for i, a in enumerate(argv):
        value = a.partition("=")[2] if a.startswith("--lang=") else argv[i + 1] if a == "--lang" and i + 1 < len(
            argv) else None
        if value is not None:
            lang = next((x for x in LANGS if x == value), DEFAULT_LANG)
    return lang


def current() -> Lang:
    """The language of the command being parsed (English outside :func:`speaking` or for an operator's command):
    what the option types' own refusals (a bad seat ...) are written in."""
    lang = _state["lang"]
    return "en" if lang is None else lang


def _gettext(msgid: str) -> str:
    key = MSGIDS.get(msgid)
    lang = _state["lang"]
    if key is None or lang is None or lang == "en" or (key in _ERROR_ONLY and not _state["erroring"]):
        return msgid
    return catalog.template(key, lang)


@contextlib.contextmanager
def speaking(argv: Sequence[str]) -> Iterator[Lang | None]:
    """Within it, argparse writes its messages in the language of the command in ``argv`` (:func:`command_lang`)."""
    saved: Callable[[str], str] = argparse._  # type: ignore[attr-defined]
    _state["lang"] = command_lang(argv)
    _state["hint"] = _state["lang"] not in (None, "en") and not any(
        a == "--lang" or a.startswith("--lang=") for a in argv)
    argparse._ = _gettext  # type: ignore[attr-defined]
    try:
        yield _state["lang"]
    finally:
        argparse._ = saved  # type: ignore[attr-defined]
        _state["lang"] = None
        _state["hint"] = False


class Parser(argparse.ArgumentParser):
    """``mjbot``'s parser: an error's usage line in the command's language too (its subparsers are of this class),
    and a help or version that cannot be written (``mjbot --help > /dev/full``) is an error, not a silent exit 0."""

    def _print_message(self, message: str, file: Any = None) -> None:
        # argparse's own swallows OSError: for the output (a help, the version) it is raised here, and main() says
        # the output cannot be written (exit 1); an error's message to a stderr that cannot take it is dropped as
        # before (the exit status, 2, still tells)
        if message:
            file = file or sys.stderr
            with contextlib.suppress(*(() if file is sys.stdout else (OSError,))):
                file.write(message)
                file.flush()

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        if message and _state["erroring"] and _state["hint"]:
            message += EN_HINT
        super().exit(status, message)

    def error(self, message: str) -> NoReturn:
        _state["erroring"] = True
        try:
            super().error(message)
        finally:
            _state["erroring"] = False
