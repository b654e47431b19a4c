"""A ``/record`` card's words: each player with their seat, amount and confirmation, the record's state, then the
hand's breakdown as ``/score`` writes it (:mod:`cogs.record` posts it with its buttons and redraws it as the record
changes). The card of a stored record is drawn from what was stored: the engine is a pure function. Also what
names a card's hand in a button's id (:func:`hand_notation`, :func:`variant_of_code`) and the card edits in flight
(:class:`CardEdits`)."""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any

import discord

from bot.i18n import seat_name, t, variant_name
from bot.own_posts import custom_ids
from bot.store import records as rstore
from bot.tables.strings import shown_name
from cogs.record_others import others_line, stored_others
from cogs.scoring import breakdown_text, fit_message
from engine.tiles import Hand, format_tiles, parse_hand, tile_name
from engine.variants import ScoreResult, Situation, get_variant, variant_keys

log = logging.getLogger(__name__)

#: The custom id of a card's Confirm (``ok``) and Reject (``no``) buttons: record ``r`` of guild ``g``.
CARD_BUTTON = r"mjrec:(?P<g>\d+):(?P<r>\d+):(?P<op>ok|no)"


def card_of(message: discord.Message) -> tuple[int, int] | None:
    """The (guild, record) whose buttons ``message`` carries: a record's card (None: not one)."""
    for cid in custom_ids(message):
        m = re.fullmatch(CARD_BUTTON, cid)
        if m:
            return int(m["g"]), int(m["r"])
    return None


def hand_notation(hand: Hand) -> str:
    """The hand in the project's notation, as short as it gets (for a custom id).

    >>> hand_notation(parse_hand("二二二万 555m 888m 9m [777z:W] +9m"))
    '2225558889m[777z:W]+9m'
    """
    assert hand.win_tile is not None
    return format_tiles(hand.concealed) + "".join(m.notation() for m in hand.melds) + "+" + tile_name(hand.win_tile)


def variant_of_code(code: str) -> str:
    """The variant a Record button's id names by its short code (:attr:`Variant.short`); an unknown code is given
    back as it is (the variant is then refused like any unknown one).

    >>> variant_of_code("h"), variant_of_code("zz")
    ('hefei', 'zz')
    """
    return next((k for k in variant_keys() if get_variant(k).short == code), code)


def pings(rec: rstore.Record) -> discord.AllowedMentions:
    """The card pings the payers who still have to confirm, and nobody else."""
    return discord.AllowedMentions(everyone=False, roles=False,
                                   users=[discord.Object(s.player_id) for s in rec.waiting])


async def call_to_confirm(bot: discord.Client, interaction: discord.Interaction[Any], rec: rstore.Record,
                          lang: str) -> None:
    """The line under a record's first card that notifies the payers it waits for (not the proposer, who just sent
    the command); nothing when it waits for nobody else. The card itself is the command's deferred answer, which
    notifies nobody it names: filling it is an edit (docs/record.md). A channel post, whose nonce makes a retry
    after a lost answer the same message; where the bot may not post (403), a follow-up of the command."""
    users = [s.player_id for s in rec.waiting if s.player_id != rec.proposer_id]
    if not users:
        return
    text = t("record.call_to_confirm", lang, users=" ".join(f"<@{u}>" for u in users), id=rec.record_id)
    mentions = discord.AllowedMentions(everyone=False, roles=False, users=[discord.Object(u) for u in users])
    try:
        await bot.get_partial_messageable(rec.channel_id, guild_id=rec.guild_id).send(
            text, allowed_mentions=mentions, nonce=f"mjp{rec.record_id}"[:25])
    except discord.Forbidden:
        with contextlib.suppress(discord.HTTPException):
            await interaction.followup.send(text, allowed_mentions=mentions)
    except discord.HTTPException as e:  # the card stands; its names are there to read
        log.warning("record %s: the line notifying its payers was not posted (%s)", rec.record_id, e)


def record_situation(rec: rstore.Record) -> Situation:
    """The situation the record was scored in, as stored."""
    s = rec.situation
    flags: dict[str, Any] = {k: bool(s.get(k)) for k in ("kong_draw", "rob_kong", "last_tiles", "heavenly", "earthly")}
    return Situation(winner=s["winner"], discarder=s.get("discarder"), dealer_streak=s.get("dealer_streak", 1), **flags)


def score_record(rec: rstore.Record) -> tuple[Hand, ScoreResult, Situation]:
    """The record's hand scored again (the engine is a pure function: the card of a stored record is redrawn from
    what was stored, the other seats' melds entered included)."""
    hand = parse_hand(rec.hand_text)
    sit = stored_others(rec.situation, record_situation(rec), hand)
    return hand, get_variant(rec.variant).score(hand, sit, rec.rules), sit


def redrawn_card(rec: rstore.Record, lang: str, *, now: datetime | None = None) -> str:
    """The card of a stored record. The seats' amounts are the stored ones; the breakdown is the engine's, and is
    left out if the engine no longer scores the stored hand the same way (a newer version refusing it): one such
    record must not stop its own card, or the scheduler's other cards, from showing what happened."""
    try:
        _, result, sit = score_record(rec)
    except Exception:
        log.exception("record %s: its hand no longer scores; the card is drawn without its breakdown", rec.record_id)
        return card_text(rec, None, record_situation(rec), lang, now=now)
    return card_text(rec, result, sit, lang, now=now)


def status_line(rec: rstore.Record, lang: str, *, now: datetime | None = None) -> str:
    """What the card says about the record's state."""
    expired = rec.status == "expired" or (rec.status == "pending" and now is not None and rec.expires_at <= now)
    if expired:
        return t("record.status_expired", lang)
    if rec.status == "rejected" and rec.decided_by == rstore.SYSTEM_USER:  # withdrawn: its card was lost
        return t("record.status_withdrawn", lang)
    if rec.status == "rejected":
        return t("record.status_rejected", lang, user=rec.decided_by)
    if rec.status == "confirmed" and rec.voided is not None:
        v = rec.voided
        reason = shown_name(v.reason)
        line = t("record.status_voided", lang, hand=rec.hand_id, user=v.user_id, reason=reason,
                 when=f"<t:{int(v.posted_at.timestamp())}:f>")
        if rec.replaced_by is not None:  # recorded again in its place
            line += "\n" + t("record.status_replaced", lang, id=rec.replaced_by.record_id, hand=rec.replaced_by.hand_id)
        return line
    if rec.status == "confirmed":
        return t("record.status_confirmed", lang, hand=rec.hand_id)
    stamp = int(rec.expires_at.timestamp())
    return t("record.status_pending", lang, n=len(rec.waiting), when=f"<t:{stamp}:R>")


def card_text(rec: rstore.Record, result: ScoreResult | None, sit: Situation, lang: str, *,
              now: datetime | None = None) -> str:
    """The public card: a title, each player with their seat, amount and confirmation, the state, then the
    breakdown as /score writes it (cut to fit Discord's limit, payments kept)."""
    how = (t("record.how_self", lang) if sit.discarder is None
           else t("record.how_rob_kong" if sit.rob_kong else "record.how_discard", lang,
                  user=rec.seats[sit.discarder].player_id))
    lines = [t("record.title", lang, id=rec.record_id, variant=variant_name(rec.variant, lang),
               winner=rec.seats[sit.winner].player_id, how=how)]
    if rec.replaces is not None:  # where it counts: the voided hand's time
        lines.append(t("record.replaces_line", lang, hand=rec.replaces.hand_id,
                       when=f"<t:{int(rec.replaces.at.timestamp())}:f>"))
    payers = rec.payer_seats
    for s in rec.seats:
        mark = ""
        if s.seat in payers:
            mark = " ✅" if s.confirmed else " ⏳"
        lines.append(t("record.seat_line", lang, seat=seat_name(s.seat, lang), user=s.player_id,
                       amount=f"{s.amount:+d}" if s.amount else "0") + mark)
    shown = others_line(rec.variant, rec.situation, lang)  # the other seats' melds, or that 反包 was not judged
    if shown is not None:
        lines.append(shown)
    lines.append(status_line(rec, lang, now=now))
    head = "\n".join(lines)
    if result is None:
        return head
    rules = rec.rules
    body, _ = fit_message(breakdown_text(result, get_variant(rec.variant), sit, rules, lang), lang,
                          2000 - len(head) - 2)
    return head + "\n\n" + body


class CardEdits:
    """The card edits of this process in flight, by record. Two edits of one card at once (two presses, a press and
    the scheduler) may land on Discord in either order, whatever order their writes came in: each then marks the
    card stale, so that the scheduler draws it once more from the database (one edit more, only in such a race),
    instead of the last mark written saying the card is right while the older edit is the one shown.

    >>> edits = CardEdits()
    >>> with edits.drawing(7) as first:
    ...     with edits.drawing(7) as second:
    ...         pass
    >>> with edits.drawing(7) as alone:
    ...     pass
    >>> first(), second(), alone(), edits.in_flight
    (True, True, False, {})
    """

    def __init__(self) -> None:
        self.in_flight: dict[int, int] = {}
        self.crossed: set[int] = set()

    @contextlib.contextmanager
    def drawing(self, record_id: int) -> Iterator[Callable[[], bool]]:
        """Around one edit of a record's card and its mark: yields whether another edit of it crossed this one."""
        n = self.in_flight.get(record_id, 0) + 1
        self.in_flight[record_id] = n
        if n > 1:
            self.crossed.add(record_id)
        crossed = False

        def seen() -> bool:
            return crossed or record_id in self.crossed

        try:
            yield seen
        finally:
            crossed = record_id in self.crossed
            self.in_flight[record_id] -= 1
            if not self.in_flight[record_id]:
                del self.in_flight[record_id]
                self.crossed.discard(record_id)
