"""A player's name as the bot keeps it for its images (the table, the cards, the boards, the replays).

A Discord display name can be spaces, invisible characters (a display name of U+3164 looks blank in Discord's own
list) or a script the image fonts lack: drawn, it would leave a seat blank or "???", and two such players could not
be told apart. The bot then takes the member's username instead, which Discord keeps to ASCII letters, digits, ``_``
and ``.``; a name already stored that draws nothing gives way to the board's stand-in (``board.unknown_player``).
"""

from __future__ import annotations

from typing import Protocol

from render.fonts import drawable


class Named(Protocol):
    """What :func:`player_name` reads of a ``discord.User`` or ``discord.Member``."""

    @property
    def display_name(self) -> str: ...

    @property
    def name(self) -> str: ...


def player_name(member: Named) -> str:
    """The member's display name, or their username when an image would show nothing of the display name.

    >>> from types import SimpleNamespace as U  # a name escaped: the font tool reads this file
    >>> player_name(U(display_name="\\u738b\\u946b", name="wangxin")) == "\\u738b\\u946b"
    True
    >>> player_name(U(display_name="\\u3164", name="kim.mj"))
    'kim.mj'
    """
    shown = member.display_name
    return shown if drawable(shown) or not member.name else member.name


def drawn_name(name: str | None) -> str | None:
    """A stored name when an image can show it, else ``None`` (the caller's stand-in).

    >>> drawn_name("Bob"), drawn_name("\\u200b\\u200b"), drawn_name(None)
    ('Bob', None, None)
    """
    return name if name is not None and drawable(name) else None
