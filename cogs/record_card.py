"""A ``/record`` card's words: each player with their seat, amount and confirmation, the record's state, then the
hand's breakdown as ``/score`` writes it (:mod:`cogs.record` posts it with its buttons and redraws it as the record
changes). The card of a stored record is drawn from what was stored: the engine is a pure function."""

from __future__ import annotations

import logging
import re
from datetime import datetime
from typing import Any

import discord

from bot.i18n import seat_name, t, variant_name
from bot.own_posts import custom_ids
from bot.store import records as rstore
from cogs.scoring import breakdown_text, fit_message
from engine.tiles import Hand, parse_hand
from engine.variants import ScoreResult, Situation, get_variant

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


def pings(rec: rstore.Record) -> discord.AllowedMentions:
    """The card pings the payers who still have to confirm, and nobody else."""
    return discord.AllowedMentions(everyone=False, roles=False,
                                   users=[discord.Object(s.player_id) for s in rec.waiting])


def record_situation(rec: rstore.Record) -> Situation:
    """The situation the record was scored in, as stored."""
    s = rec.situation
    flags: dict[str, Any] = {k: bool(s.get(k)) for k in ("kong_draw", "rob_kong", "last_tiles", "heavenly", "earthly")}
    return Situation(winner=s["winner"], discarder=s.get("discarder"), dealer_streak=s.get("dealer_streak", 1), **flags)


def score_record(rec: rstore.Record) -> tuple[Hand, ScoreResult, Situation]:
    """The record's hand scored again (the engine is a pure function: the card of a stored record is redrawn from
    what was stored)."""
    sit = record_situation(rec)
    hand = parse_hand(rec.hand_text)
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
    payers = rec.payer_seats
    for s in rec.seats:
        mark = ""
        if s.seat in payers:
            mark = " ✅" if s.confirmed else " ⏳"
        lines.append(t("record.seat_line", lang, seat=seat_name(s.seat, lang), user=s.player_id,
                       amount=f"{s.amount:+d}" if s.amount else "0") + mark)
    lines.append(status_line(rec, lang, now=now))
    head = "\n".join(lines)
    if result is None:
        return head
    rules = rec.rules
    body, _ = fit_message(breakdown_text(result, get_variant(rec.variant), sit, rules, lang), lang,
                          2000 - len(head) - 2)
    return head + "\n\n" + body
