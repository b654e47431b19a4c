"""Errors with a message for the player, shared by the cogs.

:class:`UserError` lives here, in ``bot`` and not in an extension module: ``load_extension`` executes a cog's module
afresh, so a class defined in ``cogs.errors`` could exist twice (an older copy held by a cog imported earlier) and
``isinstance`` would miss it. ``bot.errors`` is imported once, like any other module.
"""

from __future__ import annotations

from typing import Any

from bot.i18n import t


class UserError(Exception):
    """A refusal with a message for the player: ``UserError("error.no_permission")`` names a key of the message
    catalogue; ``params`` fill it in.

    >>> e = UserError("error.guild_only")
    >>> e.message("en"), e.key
    ('This works only in a server, not in DMs.', 'error.guild_only')
    """

    def __init__(self, key: str, **params: Any) -> None:
        self.key = key
        self.params = params
        super().__init__(key)

    def message(self, lang: str | None = "en") -> str:
        return t(self.key, lang, **self.params)

    def __str__(self) -> str:
        return self.message("en")
