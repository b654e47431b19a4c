"""Who sits in a ``/record``: the checks of the four players, the winner and the discarder that ``/record`` and the
"Record this hand" form share (:meth:`cogs.record.Recorder.propose`), before anything is scored or written. Not an
extension.

A seat takes a member of the server. The options are ``discord.User`` (a member named there arrives as a
``discord.Member``): a user who left the server, named by a mention or a pasted id, comes without member data, and
is refused here in the player's language (discord.py's own conversion to a member would fail as an error of the bot).
A former member cannot see the card, confirm or reject it; settling with one is ``/correct adjust``'s work
(docs/record.md).
"""

from __future__ import annotations

from collections.abc import Sequence

import discord

from bot.errors import UserError
from bot.i18n import variant_name
from bot.tables.strings import shown_name


def check_seats(players: Sequence[discord.abc.User], winner: discord.abc.User | None,
                discarder: discord.abc.User | None, *, proposer: int, manager: bool, variant: str,
                lang: str) -> tuple[list[int], str, str | None]:
    """The players' ids by seat and the winner's and the discarder's seats (``E S W N``, None: self-drawn), or a
    :class:`UserError`: a bot or a former member in a seat, a player twice, a proposer who is neither at the table
    nor a Manage Server member (``manager``), a drawn hand, a winner or discarder who is not seated, the winner as
    discarder."""
    for p in players:
        if p.bot:
            raise UserError("record.bot_player", user=p.id)
        if not isinstance(p, discord.Member):
            raise UserError("record.not_member", name=shown_name(p.display_name))
    ids = [p.id for p in players]
    for p in players:
        if ids.count(p.id) > 1:
            raise UserError("record.same_player", user=p.id)
    if proposer not in ids and not manager:
        raise UserError("record.not_at_table")
    if winner is None:
        raise UserError("record.draw_pays_nothing", variant=variant_name(variant, lang))
    if winner.id not in ids:
        raise UserError("record.winner_not_player", user=winner.id)
    if discarder is not None and discarder.id not in ids:
        raise UserError("record.discarder_not_player", user=discarder.id)
    if discarder is not None and discarder.id == winner.id:
        raise UserError("record.discarder_is_winner")
    return ids, "ESWN"[ids.index(winner.id)], "ESWN"[ids.index(discarder.id)] if discarder is not None else None
