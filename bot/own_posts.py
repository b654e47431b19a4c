"""Finding a post of the bot's own in a channel (one request): a post Discord took whose id the bot never learned
or never stored (killed before the answer, a database write that failed) is found again instead of posted twice.

Discord returns a message's ``nonce`` only for a short while after it is created, so a post is recognised by what
the bot controls: its author (the bot) and its content or buttons."""
from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import discord

log = logging.getLogger(__name__)

#: How many messages one look-up reads (one request; Discord gives at most 100 a request).
LOOK_BACK = 50

#: Read from this long before the post could have been made (the clocks of the bot and of Discord differ a little).
CLOCK_MARGIN = timedelta(minutes=5)


async def own_post(bot: Any, channel_id: int, guild_id: int | None, *, since: datetime | None,
                   match: Callable[[discord.Message], bool]) -> discord.Message | None:
    """The bot's own message in ``channel_id`` that ``match`` recognises, among the :data:`LOOK_BACK` messages
    posted from ``since`` (less :data:`CLOCK_MARGIN`; None: the latest ones). None when there is none or the bot may
    not read the channel's history (403 / 404: the post is then made, as before). Other failures (Discord failing,
    the network) are raised: the caller tries again later rather than post blindly."""
    me = bot.user.id if bot.user is not None else None
    channel = bot.get_partial_messageable(channel_id, guild_id=guild_id)
    after = None if since is None else since - CLOCK_MARGIN
    try:
        async for message in channel.history(limit=LOOK_BACK, after=after):
            if message.author.id == me and match(message):
                return message
    except (discord.Forbidden, discord.NotFound) as e:
        log.info("channel %s: its history cannot be read (%s); posting without looking", channel_id, e)
    return None


def custom_ids(message: discord.Message) -> list[str]:
    """The custom ids of a message's buttons and menus."""
    out = []
    for row in message.components:
        for item in getattr(row, "children", [row]):
            cid = getattr(item, "custom_id", None)
            if cid:
                out.append(cid)
    return out
