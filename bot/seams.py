"""What the table lifecycle asks of the layer above it, as types: the manager and the publisher hold a
:class:`Host` (the bot: its store and Discord's channels) and a :class:`TableUI` (the controls of each kind of
message, built by ``cogs.tables``). Neither imports the cog nor the bot's class: they call these methods only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import discord
    from discord.abc import Snowflake

    from bot.observe import Observers
    from bot.store import Store
    from bot.tables.state import LiveTable


class Host(Protocol):
    """The bot as the tables see it (``bot.app.MjBot``): the open store (None while it is closed) and the channels
    the publisher writes to."""

    store: Store | None
    observers: Observers

    def get_partial_messageable(self, id: int, *, guild_id: int | None = None,
                                type: discord.ChannelType | None = None) -> discord.PartialMessageable: ...

    async def create_dm(self, user: Snowflake) -> discord.DMChannel: ...


class TableUI(Protocol):
    """The controls of the tables' messages (``cogs.table_controls.UI``): the manager asks for them when it writes."""

    def lobby_message(self, lt: LiveTable) -> tuple[discord.Embed, discord.ui.View]:
        """A lobby's embed (seats, rules, host) and its buttons."""
        ...

    def table_view(self, lt: LiveTable) -> discord.ui.View | None:
        """The public table message's buttons (None: none, the match is over)."""
        ...

    def hand_view(self, lt: LiveTable, seat: int, lang: str, marks: frozenset[int]) -> discord.ui.View | None:
        """A seat's private hand controls in ``lang`` (None: nothing for it to decide)."""
        ...
