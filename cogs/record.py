"""``/record``: a hand played in person goes into the server's ledger once the players who pay confirm it (issue 14).

``/record hand east south west north [winner] [discarder] [situation] [dealer_streak] [variant]``: the hand in the
notation ``/score`` takes, the four players by seat (east is the dealer), who won and who dealt in (none: self-drawn).
The hand is scored exactly as ``/score`` scores it (:mod:`cogs.score`: the same option checks, situation and engine
call) with the server's variant and house rules, and the bot posts the score card with the players' names, what each
pays or gets, and two buttons:

- **Confirm**: a paying player confirms their payment; a Manage Server member confirms for every payer still
  waiting. The press that completes the confirmations writes the hand to the ledger (:mod:`bot.store.records`: one
  transaction) and the card says so; the hand then counts in ``/leaderboard``, ``/stats``, ``/history`` (marked as
  played in person) and the export, and ``/correct void`` voids it like any other.
- **Reject**: any of the four players (or a Manage Server member) closes the record; nothing is written.

A record whose card was lost (the bot stopped between storing it and posting the card) gets its card from the
scheduler (:meth:`Recorder._lost_cards`), or is withdrawn with a word in its channel if Discord refuses the card.
A record nobody completes expires after ``record_expiry_hours`` (``/settings``, default 24 h): the scheduler
(:meth:`Recorder.tick`, every :data:`TICK_SECONDS`, with ``self.clock`` for tests) closes it and edits its card. A
press on a closed record answers privately what happened to it and changes nothing. The buttons are
:class:`discord.ui.DynamicItem` whose custom id names the guild and the record, so they work after a restart and a
forged id naming another server's record is refused.

Decisions where the issue is silent (docs/replay.md): the proposer must be one of the four players unless they may
Manage Server (a scorekeeper); a proposer who pays confirms by button like the other payers; a drawn hand is refused because no
variant settles anything on a draw (ruling G7, docs/rules/common.md#g7: a drawn hand pays nothing); Wuhu amounts are the hand's score (stack
and 交) without the table's 底 stacks, which a single hand played elsewhere does not have.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import io
import logging
import re
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands, tasks

from bot.app import MjBot
from bot.i18n import locale_str, t, variant_name
from bot.ids import require_id
from bot.interactions import lang_of, settings_of
from bot.names import player_name
from bot.own_posts import own_post
from bot.settings import DEALER_STREAK, HAND_LENGTH, RECORD_EXPIRY_HOURS, variant_rules
from bot.store import records as rstore
from bot.store.errors import StoreError
from bot.store.failures import DATABASE_ERRORS
from cogs import settings_registry
from cogs.checks import guild_of
from cogs.choices import MODE_CHOICES, SITUATION_CHOICES, SITUATIONS, variant_choices
from cogs.errors import SafeModal, UserError, report, transient
from cogs.record_card import (
    CARD_BUTTON,
    CardEdits,
    call_to_confirm,
    card_of,
    card_text,
    hand_notation,
    pings,
    redrawn_card,
    score_record,
    variant_of_code,
)
from cogs.record_others import OTHERS_LENGTH, others_field, with_others
from cogs.record_seats import check_seats
from cogs.scoring import build_situation, check_options, check_variant_options, render_image, score_scene
from cogs.settings_registry import SettingsOption
from engine.errors import EngineError
from engine.tiles import Hand, parse_hand
from engine.variants import ScoreResult, Situation, get_variant

# what a write of a record may fail with and still leave the record whole: the database, or the store refusing
RECORD_WRITE_ERRORS: tuple[type[BaseException], ...] = (*DATABASE_ERRORS, StoreError)

log = logging.getLogger(__name__)

TICK_SECONDS = 60
SEAT_OPTIONS = ("east", "south", "west", "north")
#: Room kept in the card's 2,000 characters for the lines above the breakdown (title, four players, status).
_HEAD_ROOM = 700


def _in_a_server(interaction: discord.Interaction[MjBot]) -> bool:
    """A check run before the options are converted: ``guild_only`` only hides a command from DMs, and a payload
    sent from one anyway failed converting its members (the generic apology) instead of saying why."""
    if interaction.guild_id is None:
        raise app_commands.NoPrivateMessage()
    return True


def _db_failed(error: BaseException, what: str, *args: Any) -> None:
    """Log a database failure the player is told about: one that passes by itself (the database busy or locked,
    :func:`cogs.errors.transient`) is a warning without a traceback, as every other command logs it; anything else
    (a bug) keeps its traceback."""
    if transient(error) is not None:
        log.warning(what + ": %r", *args, error)
    else:
        log.error(what, *args, exc_info=error)


def card_view(rec: rstore.Record, lang: str) -> discord.ui.View | None:
    """Confirm / Reject while the record is pending; nothing once it is closed."""
    if rec.status != "pending":
        return None
    v = discord.ui.View(timeout=None)
    v.add_item(RecordButton(rec.guild_id, rec.record_id, "ok", t("record.confirm", lang)))
    v.add_item(RecordButton(rec.guild_id, rec.record_id, "no", t("record.reject", lang)))
    return v


class RecordButton(discord.ui.DynamicItem[discord.ui.Button], template=CARD_BUTTON):
    """Confirm (``ok``) or reject (``no``) record ``r`` of guild ``g``."""

    def __init__(self, guild: int, record: int, op: str, label: str = "") -> None:
        style = discord.ButtonStyle.success if op == "ok" else discord.ButtonStyle.danger
        super().__init__(discord.ui.Button(label=label or op, style=style, custom_id=f"mjrec:{guild}:{record}:{op}"))
        self.guild, self.record, self.op = guild, record, op

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any],  # type: ignore[override]  # discord.py hands over the component its template matched
                             match: re.Match[str]) -> RecordButton:
        return cls(int(match["g"]), int(match["r"]), match["op"], item.label or "")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.cog(Recorder)
        try:
            await cog.press(interaction, self)
        except Exception as e:
            await report(interaction, e, where=f"record {self.op}")


#: Engine refusals about who discarded, said in the words of /record's options (the engine's own text names the
#: command line's ``--from``).
_OPTION_ERRORS = {"rob_kong_needs_from": "record.rob_kong_needs_discarder",
                  "earthly_from_dealer": "record.earthly_from_dealer"}


def record_button_id(variant: str, hand: Hand, sit: Situation, situation: str | None,
                     mode: int | None = None) -> str | None:
    """The custom id of a /score answer's "Record this hand" button: the variant (with the Wuhu mode the answer
    was scored in, so that the record pays what the answer showed), the winner's and the discarder's seats, the
    situation, the dealer streak and the hand. None when it would not fit Discord's 100 characters (the answer then
    has no such button; /record still takes the hand).

    >>> record_button_id("hefei", parse_hand("1234678922m345s+5m"), Situation(winner=1, discarder=2), None)
    'mjrs:h:SW:-:1:1222346789m345s+5m'
    >>> record_button_id("wuhu", parse_hand("23456799m345p67s+8s"), Situation(winner=1), None, 525)
    'mjrs:w525:S-:-:1:23456799m345p67s+8s'
    """
    d = "ESWN"[sit.discarder] if sit.discarder is not None else "-"
    s = str(SITUATIONS.index(situation)) if situation in SITUATIONS else "-"
    v = get_variant(variant).short + (str(mode) if mode is not None else "")
    cid = f"mjrs:{v}:{'ESWN'[sit.winner]}{d}:{s}:{sit.dealer_streak}:{hand_notation(hand)}"
    return cid if len(cid) <= 100 else None


class RecordHandButton(discord.ui.DynamicItem[discord.ui.Button],
                       template=r"mjrs:(?P<v>[a-z]+)(?P<m>\d{3})?:(?P<w>[ESWN])(?P<d>[ESWN-]):(?P<s>[0-4-]):(?P<k>\d{1,2}):(?P<h>\S+)"):
    """"Record this hand" under a /score answer: opens the form that asks who sat where, then proposes the
    scored hand exactly as ``/record`` does, in the Wuhu mode the answer used (ids without a mode, from before
    the mode was carried: the server's)."""

    def __init__(self, custom_id: str, label: str = "") -> None:
        super().__init__(discord.ui.Button(label=label or "Record", style=discord.ButtonStyle.primary, emoji="📝",
                                           custom_id=custom_id))
        m = re.fullmatch(self.__discord_ui_compiled_template__, custom_id)
        assert m is not None
        self.variant = variant_of_code(m["v"])
        self.mode = int(m["m"]) if m["m"] else None
        self.winner, self.discarder = "ESWN".index(m["w"]), None if m["d"] == "-" else "ESWN".index(m["d"])
        self.situation = None if m["s"] == "-" else SITUATIONS[int(m["s"])]
        self.streak, self.hand = int(m["k"]), m["h"]

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any],  # type: ignore[override]  # discord.py hands over the component its template matched
                             match: re.Match[str]) -> RecordHandButton:
        return cls(match.string, item.label or "")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        try:
            lang = await lang_of(interaction)
            if interaction.guild_id is None:
                raise UserError("error.guild_only")
            await interaction.response.send_modal(RecordModal(self, lang))
        except Exception as e:
            await report(interaction, e, where="record this hand")


class RecordModal(SafeModal):
    """Who sat in each seat (a member picker per seat, the winner's and the discarder's marked)."""

    def __init__(self, button: RecordHandButton, lang: str) -> None:
        super().__init__(title=t("record.form_title", lang)[:45], timeout=15 * 60)
        self.button = button
        self.selects: list[discord.ui.UserSelect[Any]] = []
        for seat in range(4):
            role = ("record.form_winner" if seat == button.winner
                    else "record.form_discarder" if seat == button.discarder else None)
            select: discord.ui.UserSelect[Any] = discord.ui.UserSelect(custom_id=f"mjrs-seat-{'ESWN'[seat]}",
                                                                       min_values=1, max_values=1)
            self.selects.append(select)
            self.add_item(discord.ui.Label(text=t(f"record.form_seat_{'ESWN'[seat]}", lang)[:45], component=select,
                                           description=t(role, lang)[:100] if role else None))
        self.others = others_field(self, button.variant, lang)  # Chizhou: the other seats' melds (反包)

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.cog(Recorder)
        settings = await settings_of(interaction)
        lang = await lang_of(interaction)
        players = [sel.values[0] if sel.values else None for sel in self.selects]
        if any(p is None for p in players):
            raise UserError("record.form_incomplete")
        b = self.button
        await cog.propose(interaction, settings, lang, hand=b.hand, players=players,
                          winner=players[b.winner], discarder=None if b.discarder is None else players[b.discarder],
                          situation=b.situation, dealer_streak=b.streak, variant=b.variant, mode=b.mode,
                          others=self.others.value if self.others else None)


class Recorder(commands.Cog):
    def __init__(self, bot: MjBot) -> None:
        self.bot = bot
        self.clock: Callable[[], datetime] = lambda: datetime.now(UTC)
        self.posting: set[int] = set()  # records whose first card this process is posting
        self.unstored: dict[int, tuple[int, int]] = {}  # record -> (guild, card message) whose id was not stored
        self.edits = CardEdits()  # card edits in flight: two at once leave the card to the scheduler
        self.first_round = True  # the first tick after a start posts the card of every pending record without one

    async def cog_load(self) -> None:
        self.loop.start()

    async def cog_unload(self) -> None:
        self.loop.cancel()
        await self._store_unstored()  # a restart keeps the ids of the cards posted (the tick does not look for them)

    @tasks.loop(seconds=TICK_SECONDS)
    async def loop(self) -> None:
        try:
            await self.tick()
        except Exception:  # a failing tick must not stop the loop
            log.exception("record expiry tick failed")

    @loop.before_loop
    async def _wait_ready(self) -> None:
        await self.bot.wait_until_ready()

    @property
    def store(self) -> Any:
        return self.bot.store

    # ---- /record

    @app_commands.command(name=locale_str("record.name"), description=locale_str("record.desc"))
    @app_commands.guild_only()
    @app_commands.check(_in_a_server)
    @app_commands.rename(
        hand=locale_str("record.hand.name"), east=locale_str("record.east.name"),
        south=locale_str("record.south.name"), west=locale_str("record.west.name"),
        north=locale_str("record.north.name"), winner=locale_str("record.winner.name"),
        discarder=locale_str("record.discarder.name"), situation=locale_str("record.situation.name"),
        dealer_streak=locale_str("record.streak.name"), variant=locale_str("record.variant.name"),
        mode=locale_str("score.mode.name"), others=locale_str("record.others.name"),
        replaces=locale_str("record.replaces.name"))
    @app_commands.describe(
        hand=locale_str("record.hand.desc"), east=locale_str("record.east.desc"),
        south=locale_str("record.south.desc"), west=locale_str("record.west.desc"),
        north=locale_str("record.north.desc"), winner=locale_str("record.winner.desc"),
        discarder=locale_str("record.discarder.desc"), situation=locale_str("record.situation.desc"),
        dealer_streak=locale_str("record.streak.desc"), variant=locale_str("record.variant.desc"),
        mode=locale_str("score.mode.desc"), others=locale_str("record.others.desc"),
        replaces=locale_str("record.replaces.desc"))
    @app_commands.choices(situation=SITUATION_CHOICES, variant=variant_choices(), mode=MODE_CHOICES)
    async def record(
        self,
        interaction: discord.Interaction[MjBot],
        hand: app_commands.Range[str, HAND_LENGTH.low, HAND_LENGTH.high],
        east: discord.User,  # a member arrives as a discord.Member; a user who left is refused (cogs.record_seats)
        south: discord.User,
        west: discord.User,
        north: discord.User,
        winner: discord.User | None = None,
        discarder: discord.User | None = None,
        situation: str | None = None,
        dealer_streak: app_commands.Range[int, DEALER_STREAK.low, DEALER_STREAK.high] | None = None,
        variant: str | None = None,
        mode: int | None = None,
        others: app_commands.Range[str, 1, OTHERS_LENGTH] | None = None,
        replaces: int | None = None,
    ) -> None:
        settings = await settings_of(interaction)
        lang = await lang_of(interaction)
        check_options(lang, hand=hand, variant=variant, win=None, winner=None, discarder=None, situation=situation,
                      mode=mode, dealer_streak=dealer_streak)
        check_variant_options(get_variant(variant or settings.default_variant), lang, mode=mode,
                              dealer_streak=dealer_streak, names=("score.mode.name", "record.streak.name"))
        await self.propose(interaction, settings, lang, hand=hand, players=[east, south, west, north], winner=winner,
                           discarder=discarder, situation=situation, dealer_streak=dealer_streak,
                           variant=variant or settings.default_variant, mode=mode, others=others, replaces=replaces)

    async def propose(self, interaction: discord.Interaction[MjBot], settings: Any, lang: str, *, hand: str,
                      players: Sequence[discord.abc.User], winner: discord.abc.User | None,
                      discarder: discord.abc.User | None, situation: str | None, dealer_streak: int | None,
                      variant: str, mode: int | None = None, others: str | None = None,
                      replaces: int | None = None) -> None:
        """Check the players, score the hand, store the record and post its card: what ``/record`` and the
        "Record this hand" form of a ``/score`` answer both do. Every refusal comes before anything is written.
        ``mode``: the Wuhu mode to score in (None: the server's), as /score's option; ``others``:
        :mod:`cogs.record_others`. ``replaces``: the voided hand it is made in place of (a Manage Server member's
        correction: it counts at that hand's time)."""
        key = variant
        # the values a "Record this hand" button carries are checked as /record's options are (an id can be forged)
        check_options(lang, hand=hand, variant=key, win=None, winner=None, discarder=None, situation=situation,
                      mode=mode, dealer_streak=dealer_streak)
        ids, w, d = check_seats(players, winner, discarder, proposer=interaction.user.id,
                                manager=bool(interaction.permissions.manage_guild), variant=key, lang=lang)
        v = get_variant(key)
        rules = variant_rules(settings, v)
        if mode is not None and "mode" in rules:
            rules["mode"] = mode
        win = None if d is None and situation == "earthly" else ("discard" if d else "self")
        try:
            sit = build_situation(win=win, winner=w, discarder=d, situation=situation, dealer_streak=dealer_streak)
            parsed = parse_hand(hand)
            v.check_entered(sit, parsed)
            sit, shown = with_others(others, key, sit, parsed, lang)
            result = v.score(parsed, sit, rules)
        except EngineError as e:
            if e.code in _OPTION_ERRORS:  # the engine names the CLI's --from: say it with /record's options
                raise UserError(_OPTION_ERRORS[e.code]) from None
            raise UserError("record.bad_hand", error=e.message(lang), example=v.example) from None
        seats = []
        for i, p in enumerate(players):
            amount = int(result.payments[i])
            jiao = int(result.jiao_payments[i]) if v.splits_jiao else 0
            seats.append(rstore.SeatProposal(p.id, player_name(p), amount, amount - jiao if v.splits_jiao else 0,
                                             jiao))
        sit_json = {"winner": sit.winner, "discarder": sit.discarder, "dealer_streak": sit.dealer_streak,
                    **{k: getattr(sit, k) for k in ("kong_draw", "rob_kong", "last_tiles", "heavenly", "earthly")}, **shown}
        try:
            dup = await rstore.pending_duplicate(self.store, guild_id=guild_of(interaction), variant=key,
                                                 hand_text=hand, situation=sit_json, players=ids, at=self.clock())
        except DATABASE_ERRORS as e:
            _db_failed(e, "record: the database failed to read the pending records")
            raise UserError("record.db_failed_propose") from None
        if dup is not None:  # told privately; two proposals at once are told apart again under the store's lock
            raise UserError("record.duplicate" if dup.card else "record.duplicate_no_card", id=dup.record_id)
        if replaces is not None:  # a correction of the ledger, as /correct is: refused privately before the card
            if not interaction.permissions.manage_guild:
                raise UserError("record.replaces_manager")
            require_id(replaces, "store.unknown_hand", hand_id=str(replaces)[:40])
            await rstore.check_replaceable(self.store, guild_of(interaction), replaces, at=self.clock())
        await interaction.response.defer(thinking=True)
        try:
            rec = await rstore.propose(
                self.store, guild_id=guild_of(interaction), channel_id=interaction.channel_id or 0,
                proposer_id=interaction.user.id, hand_text="".join(hand.split()), variant=key, rules=rules,
                situation=sit_json, hand_value=int(result.payments[sit.winner]), lang=lang, seats=seats,
                at=self.clock(), replaces_hand=replaces)
        except DATABASE_ERRORS as e:  # one transaction: nothing of the record was kept
            _db_failed(e, "record: the database failed to store a proposal")
            raise UserError("record.db_failed_propose") from None
        except StoreError as e:
            if e.code == "record_duplicate":
                key = "record.duplicate" if e.params.get("card", True) else "record.duplicate_no_card"
                raise UserError(key, id=e.params["record_id"]) from None
            raise
        self.posting.add(rec.record_id)  # its card is on its way: the scheduler leaves it alone
        try:
            await self._first_card(interaction, rec, parsed, result, sit, lang)
        finally:
            self.posting.discard(rec.record_id)

    async def _first_card(self, interaction: discord.Interaction[MjBot], rec: rstore.Record, parsed: Hand,
                          result: ScoreResult, sit: Situation, lang: str) -> None:
        """Write a record's card into the command's deferred answer (a retry is the same message: docs/record.md)."""
        files = await self._card_files(rec, parsed, result, sit, lang)
        try:
            msg = await interaction.edit_original_response(content=card_text(rec, result, sit, lang),
                                                           attachments=files, view=card_view(rec, lang),
                                                           allowed_mentions=pings(rec))
        except discord.HTTPException as e:
            # without its card nobody can confirm it: withdraw it (audited) rather than leave it waiting unseen
            log.warning("record %s: its card could not be posted (%s); withdrawn", rec.record_id, e)
            await rstore.reject(self.store, rec.guild_id, rec.record_id, rstore.SYSTEM_USER, manager=True,
                                at=self.clock())
            raise UserError("record.post_failed") from None
        await self._card_posted(rec, msg.id)
        await call_to_confirm(self.bot, interaction, rec, lang)

    async def _card_posted(self, rec: rstore.Record, message_id: int, *, found: bool = False) -> int | None:
        """Store the id of the card just posted (or ``found`` again) for ``rec`` as drawn: the card the record names
        (an earlier one if a press stored it meanwhile), None if the write failed (kept in :attr:`unstored`)."""
        try:
            return await rstore.set_message(self.store, rec.guild_id, rec.record_id, message_id, shown=rec,
                                            stale=found)
        except RECORD_WRITE_ERRORS as e:  # the record and its card work: the next tick (or the first press) stores it
            log.warning("record %s: its card's id could not be stored (%s)", rec.record_id, e)
            self.unstored[rec.record_id] = (rec.guild_id, message_id)
            return None

    async def _store_unstored(self) -> None:
        for rid, (guild_id, message_id) in list(self.unstored.items()):
            try:
                await rstore.set_message(self.store, guild_id, rid, message_id)
            except Exception as e:  # RECORD_WRITE_ERRORS, or a store already closed
                log.warning("record %s: its card's id could not be stored again (%s)", rid, e)
                continue
            del self.unstored[rid]

    async def _card_files(self, rec: rstore.Record, parsed: Hand, result: ScoreResult, sit: Situation,
                          lang: str) -> list[discord.File]:
        """The card's score image with the players' names (none if it fails: the figures matter more)."""
        names = cast(tuple[str, str, str, str], tuple(s.display_name for s in rec.seats))  # the four seats
        try:
            title = variant_name(rec.variant, lang) + (f" · {rec.rules['mode']}" if "mode" in rec.rules else "")
            scene = dataclasses.replace(score_scene(parsed, result, sit, title), names=names)
            self.bot.observers.emit("record_card", scene=scene)
            image = await asyncio.to_thread(render_image, scene, lang)
            return [discord.File(io.BytesIO(image), filename="record.png")]
        except Exception:
            log.exception("record image failed for %r", rec.hand_text)
            return []

    # ---- the buttons

    async def press(self, interaction: discord.Interaction[MjBot], item: RecordButton) -> None:
        lang = await lang_of(interaction)
        if interaction.guild_id is None:
            raise app_commands.NoPrivateMessage()
        if interaction.guild_id != item.guild:
            raise UserError("record.other_server")
        require_id(item.record, "record.unknown")  # a forged id past what the database holds names no record
        manager = bool(interaction.permissions.manage_guild)
        user = interaction.user.id
        try:
            if item.op == "ok":
                out = await rstore.confirm(self.store, item.guild, item.record, user, manager=manager, at=self.clock())
            else:
                out = await rstore.reject(self.store, item.guild, item.record, user, manager=manager, at=self.clock())
        except StoreError as e:
            if e.code == "unknown_record":
                raise UserError("record.unknown") from None
            raise
        except DATABASE_ERRORS as e:
            _db_failed(e, "record %s: %s by %s failed in the database", item.record, item.op, user)
            raise UserError("record.db_failed") from None
        rec = out.record
        if out.outcome == "closed":
            key = "expired" if rec.status in ("pending", "expired") else rec.status
            raise UserError(f"record.closed_{key}", id=rec.record_id)
        if out.outcome == "already":
            raise UserError("record.already", id=rec.record_id)
        if out.outcome == "not_payer":
            raise UserError("record.not_payer" if rec.involves(user) else "record.not_involved")
        if out.outcome == "not_involved":
            raise UserError("record.not_involved")
        await self._redraw(interaction, rec, out.outcome, lang)

    async def _redraw(self, interaction: discord.Interaction[MjBot], rec: rstore.Record, outcome: str, lang: str) -> None:
        """Answer the press by editing the card (one interaction response); if Discord fails, say privately what
        was saved and leave the card to the next tick."""
        text, message_id = redrawn_card(rec, rec.lang, now=self.clock()), getattr(interaction.message, "id", None)
        with self.edits.drawing(rec.record_id) as crossed:
            try:
                await interaction.response.edit_message(content=text, view=card_view(rec, rec.lang),
                                                        allowed_mentions=pings(rec))
            except discord.HTTPException as e:  # the card stays marked stale (the press's transaction marked it)
                log.warning("record %s: card edit failed (%s); the next tick redraws it", rec.record_id, e)
                if not interaction.response.is_done():
                    await interaction.response.send_message(t(f"record.saved_{outcome}", lang, id=rec.record_id),
                                                            ephemeral=True)
                return
            try:
                await rstore.mark_card(self.store, rec.guild_id, rec.record_id, stale=crossed(), shown=rec,
                                       message_id=message_id)
            except RECORD_WRITE_ERRORS as e:  # the card is right; the next tick only draws it once more
                log.warning("record %s: could not note its card as drawn (%s)", rec.record_id, e)

    # ---- the scheduler

    async def tick(self) -> None:
        """Expire the records whose time is up, post the cards that were lost (:meth:`_lost_cards`) and redraw the
        cards (any an earlier edit failed too)."""
        now = self.clock()
        await rstore.expire_due(self.store, at=now)  # marks their cards stale
        await self._lost_cards(now)
        for rec in await rstore.stale_cards(self.store, self.bot.tables.own_shards()):  # the leases held
            message = self.bot.get_partial_messageable(rec.channel_id, guild_id=rec.guild_id).get_partial_message(
                rec.message_id)  # type: ignore[arg-type]  # a stale card is a card posted
            shown: rstore.Record | None = rec
            with self.edits.drawing(rec.record_id) as crossed:
                try:
                    await message.edit(content=redrawn_card(rec, rec.lang, now=now),
                                       view=card_view(rec, rec.lang), allowed_mentions=pings(rec))
                except (discord.NotFound, discord.Forbidden):
                    log.warning("record %s: its card is gone or out of reach", rec.record_id)
                    shown = None  # nothing to redraw, whatever the record's state
                except (TimeoutError, discord.HTTPException, OSError) as e:
                    log.warning("record %s: card edit failed (%s); retried next tick", rec.record_id, e)
                    continue
                await rstore.mark_card(self.store, rec.guild_id, rec.record_id, stale=crossed() and shown is not None,
                                       shown=shown)

    async def _lost_cards(self, now: datetime) -> None:
        """Cards lost (a bot stopped between storing the record and posting its card, or before storing the card's
        id), posted now so that nothing is lost: the records without a card past :data:`bot.store.records.CARD_GRACE`
        (at the first tick after a start, every one), except those whose card this process is posting or posted
        without storing its id (that id is stored now). A card Discord took is found in the channel and kept, not
        posted again (:meth:`_post_lost_card`). A card Discord refuses for good withdraws its record, said there."""
        first, self.first_round = self.first_round, False
        await self._store_unstored()
        held = self.bot.tables.own_shards()  # the servers of the shards whose leases this process holds
        for rec in await rstore.cardless(self.store, before=None if first else now - rstore.CARD_GRACE, shards=held):
            if rec.record_id in self.posting or rec.record_id in self.unstored:
                continue
            self.posting.add(rec.record_id)
            try:
                await self._post_lost_card(rec, now)
            finally:
                self.posting.discard(rec.record_id)

    async def _post_lost_card(self, rec: rstore.Record, now: datetime) -> None:
        """The card of ``rec``: found in its channel if Discord took one whose id was never stored (one request:
        a look at the channel's messages since the record), else posted."""
        try:
            found = await own_post(self.bot, rec.channel_id, rec.guild_id, since=rec.created_at,
                                   match=lambda m: card_of(m) == (rec.guild_id, rec.record_id))
        except (TimeoutError, OSError, discord.HTTPException) as e:
            log.warning("record %s: its channel could not be read (%s); retried next tick", rec.record_id, e)
            return
        if found is not None:  # redrawn at once (what it shows is not known)
            log.info("record %s: its card was found in its channel", rec.record_id)
            await self._card_posted(rec, found.id, found=True)
            return
        channel = self.bot.get_partial_messageable(rec.channel_id, guild_id=rec.guild_id)
        try:
            parsed, result, sit = score_record(rec)
            files = await self._card_files(rec, parsed, result, sit, rec.lang)
        except Exception:
            log.exception("record %s: its hand no longer scores; its card is posted without the breakdown",
                          rec.record_id)
            files = []
        try:
            # the record's nonce: a post a kill interrupted (or another process's) is the same message
            msg = await channel.send(redrawn_card(rec, rec.lang, now=now), files=files,
                                     view=card_view(rec, rec.lang) or discord.utils.MISSING,
                                     allowed_mentions=pings(rec), nonce=f"mjc{rec.record_id}"[:25])
        except (TimeoutError, OSError, discord.DiscordServerError, discord.RateLimited) as e:
            log.warning("record %s: its lost card could not be posted (%s); retried next tick", rec.record_id, e)
            return
        except discord.HTTPException as e:  # refused for good (no permission, no channel): withdrawn, and said
            if e.status == 429:
                return
            log.warning("record %s: its lost card cannot be posted (%s); withdrawn", rec.record_id, e)
            await rstore.reject(self.store, rec.guild_id, rec.record_id, rstore.SYSTEM_USER, manager=True, at=now)
            with contextlib.suppress(discord.HTTPException, OSError, TimeoutError):
                await channel.send(t("record.withdrawn_no_card", rec.lang, id=rec.record_id, user=rec.proposer_id),
                                   allowed_mentions=discord.AllowedMentions.none())
            return
        log.info("record %s: its lost card was posted", rec.record_id)
        stored = await self._card_posted(rec, msg.id)
        if stored is not None and stored != msg.id:  # a press stored the card it was made on meanwhile: one card
            with contextlib.suppress(discord.HTTPException, OSError, TimeoutError):
                await msg.delete()


async def setup(bot: MjBot) -> None:
    settings_registry.register(SettingsOption("record_expiry_hours", apply_expiry_option, expiry_line))
    bot.add_dynamic_items(RecordButton, RecordHandButton)
    await bot.add_cog(Recorder(bot))


async def apply_expiry_option(bot: MjBot, interaction: discord.Interaction[MjBot], lang: str, hours: int) -> str:
    """``/settings record_expiry_hours``: set it (audited; the declared range) and say what is in force."""
    if hours not in RECORD_EXPIRY_HOURS:
        raise UserError("record.bad_expiry", low=RECORD_EXPIRY_HOURS.low, high=RECORD_EXPIRY_HOURS.high,
                        value=str(hours)[:20])
    before = await rstore.record_expiry_hours(bot.open_store, guild_of(interaction))
    now = await rstore.set_record_expiry_hours(bot.open_store, guild_of(interaction), interaction.user.id, hours)
    key = "settings.changed" if now != before else "settings.unchanged"
    return t(key, lang, field=t("record.setting_expiry", lang), value=t("record.hours", lang, n=now))


async def expiry_line(bot: MjBot, guild_id: int | None, lang: str) -> str:
    """The /settings line saying how long records wait for their confirmations."""
    hours = await rstore.record_expiry_hours(bot.open_store, guild_id)  # type: ignore[arg-type]  # None: the default
    return t("record.expiry_line", lang, value=t("record.hours", lang, n=hours))
