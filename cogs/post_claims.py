"""Scheduled posts made once (a season's final board, the weekly report): what a failed post means for its claim,
the notes of posts Discord took, and the look in the channel before a claim taken over posts again.

A post is claimed in the database, posted with a nonce, then noted as posted (:mod:`cogs.group`
``post_final_board``, :mod:`cogs.report`). When it fails, the answer decides what happens to the claim:

- Discord refused it for good (403 / 404: no permission, no channel): the post is ended (or moved, for a board);
- Discord refused this body (another 4xx, not a 429): nothing was posted, so the claim is given back and the next
  round posts it (:func:`given_back`);
- nobody knows whether Discord took it (:func:`maybe_posted`: no answer, a 5xx, a 429): the claim is kept, and the
  round that takes it over once it is older than :data:`CLAIM_LEASE` looks for the post in its channel before it
  posts again (:func:`posted_before`). A claim given back would be claimed afresh and posted without looking: a
  second post once Discord forgot the nonce (a few minutes).
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any

import aiohttp
import discord

from bot.own_posts import own_post

log = logging.getLogger(__name__)

#: A post claimed that long ago and never confirmed is taken over (the bot posting it stopped, could not give it
#: back, or does not know whether Discord took it): longer than a post takes with discord.py's retries, shorter
#: than the scheduler's round, so a claim kept after a failure is taken over (looked for first) at the next round.
CLAIM_LEASE = timedelta(minutes=2)


def maybe_posted(error: BaseException) -> bool:
    """A failed post that Discord may have taken all the same: its claim is kept (taken over after
    :data:`CLAIM_LEASE`, which looks in the channel first). As discord.py reports a post:

    - no answer: an ``OSError`` (a reset; discord.py retries only a reset with errno 54 / 10054), a time-out, an
      aiohttp client error (the server disconnected): the request may have reached Discord;
    - a 5xx (``DiscordServerError``): Discord failing, possibly after making the message; discord.py retried
      500 / 502 / 504 / 524 already, each try possibly made it;
    - a 429 (``HTTPException`` from Cloudflare, or ``RateLimited``): this try was refused, but an earlier try of
      the same call (a 5xx or a reset that discord.py retried) may have made the message.

    >>> maybe_posted(ConnectionResetError()), maybe_posted(TimeoutError()), maybe_posted(ValueError())
    (True, True, False)
    """
    if isinstance(error, discord.HTTPException):
        return error.status >= 500 or error.status == 429
    return isinstance(error, OSError | asyncio.TimeoutError | aiohttp.ClientError | discord.RateLimited)


def given_back(error: BaseException) -> bool:
    """A failed post whose answer proves nothing was posted and that may pass by itself: a 4xx other than 403 / 404
    / 429 (Discord validates every try's body alike, so no earlier try made it). Its claim is given back and the
    next round posts it. Neither this nor :func:`maybe_posted` (a missing permission, a deleted channel, a fault of
    the bot's own): the post is given up."""
    if isinstance(error, discord.Forbidden | discord.NotFound) or maybe_posted(error):
        return False
    return isinstance(error, discord.HTTPException)


async def noted(what: str, write: Awaitable[Any]) -> None:
    """A write that ends or gives back a claim after a post: a failure is logged, never raised (the post, or the
    command that led to it, happened): a claim left standing is taken over later (:data:`CLAIM_LEASE`)."""
    try:
        await write
    except Exception as e:
        log.warning("%s: could not be noted (%r); the scheduler takes the claim over later", what, e)


#: The notes of posts Discord took that could not be written yet, per bot: (kind, id) -> the write. Retried at once, then
#: at each round of the scheduler (and as the bot stops); a post with a note waiting is never made again.
_UNNOTED: weakref.WeakKeyDictionary[Any, dict[tuple[str, int, int], Callable[[], Awaitable[Any]]]] = \
    weakref.WeakKeyDictionary()

#: How many times a note of a post is tried at once before it waits for the next round.
NOTE_TRIES = 3


async def note_posted(bot: Any, key: tuple[str, int, int], what: str, write: Callable[[], Awaitable[Any]]) -> None:
    """Note that Discord took a post (``write()``, an idempotent write ending its claim): tried again at once, then
    kept in memory and tried at each round (:func:`retry_notes`) while the claim stays. Never raises."""
    for _ in range(NOTE_TRIES):
        try:
            await write()
        except Exception as e:
            log.warning("%s: posted, could not be noted (%r)", what, e)
            continue
        _UNNOTED.get(bot, {}).pop(key, None)
        return
    log.warning("%s: posted; noting it is tried again at the next round, it is not posted again", what)
    _UNNOTED.setdefault(bot, {})[key] = write


def unnoted(bot: Any, key: tuple[str, int, int]) -> bool:
    """A post Discord took whose note is still waiting: the scheduler leaves its claim alone."""
    return key in _UNNOTED.get(bot, {})


async def retry_notes(bot: Any) -> None:
    """Write the notes of posts that are waiting (:func:`note_posted`)."""
    for key, write in list(_UNNOTED.get(bot, {}).items()):
        try:
            await write()
        except Exception as e:
            log.warning("%s %s: posted, still could not be noted (%r)", key[0], key[1], e)
            continue
        _UNNOTED[bot].pop(key, None)


def first_line(text: str) -> str:
    return text.split("\n", 1)[0].strip()


async def posted_before(bot: Any, what: str, channel_id: int, guild_id: int, since: datetime | None, text: str,
                        filename: str) -> bool | None:
    """A claim taken over (the bot posting it stopped, or failed to give it back): whether Discord has the post
    already, looked for in its channel (:func:`bot.own_posts.own_post`, one request; by its first line, or its
    image's file name when it was drawn in another language). None when the channel could not be read: the claim
    is then taken over later rather than posted again blindly."""
    try:
        found = await own_post(bot, channel_id, guild_id, since=since,
                               match=lambda m: first_line(m.content) == first_line(text)
                               or any(a.filename == filename for a in m.attachments))
    except Exception as e:
        log.warning("%s: its channel could not be read (%r); the claim is taken over later", what, e)
        return None
    if found is not None:
        log.info("%s was posted already (message %s)", what, found.id)
    return found is not None
