"""The group's memory: ``/history [player]`` and ``/replay <code>`` (issue 14).

- ``/history [player]``: the member's latest settled hands on this server (date in the server's time zone, variant,
  their result, 子, the replay code), ten a page, ◀ ▶ to page and a select that opens a hand's replay. Private
  (ephemeral) to whoever asked; only hands of this server.
- ``/replay code``: the table at each step of a finished hand, drawn by :mod:`render.replay`. The viewer sees their
  own concealed tiles (if they sat in the hand) and nobody else's; every hand is shown only because the hand is over
  (a hand in play is refused) and the server allows it (``replays_show_all_hands``, ``/settings``). Buttons: ⏮ ◀ ▶ ⏭, the viewer's
  previous / next decision, the AI's review card, the animated GIF (rendered in a thread), the other theme.

Every control is a :class:`discord.ui.DynamicItem` whose custom id carries the guild, the code, the viewer, the
step and the theme: a click from another server is refused, a click by someone else opens their own replay (from the
start, as their seat sees it), so a forged id never shows anyone a hand they may not see. The step in an id is the
number the viewer sees (``HandReplay.number``, as the head and the file name number the steps), never the raw step
index, so the ids of consecutive steps show no gap where another seat's answer in a claim window is hidden; a click
maps it back (``HandReplay.numbered``). An id made before ids carried the viewer's numbers holds the raw index: it
is drawn as the nearest step the viewer may see (``HandReplay.nearest_visible``), as is any step the viewer may not
see, never another seat's answer in a claim window.
"""

from __future__ import annotations

import asyncio
import io
import logging
import re
import time
from collections import OrderedDict
from datetime import datetime, tzinfo
from typing import Any, cast

import discord
from discord import app_commands
from discord.ext import commands

from bot.app import MjBot
from bot.errors import UserError
from bot.i18n import locale_str, t, variant_name
from bot.ids import db_id
from bot.interactions import lang_of
from bot.names import drawn_name
from bot.posting import MESSAGE_LIMIT
from bot.store.history import (
    AdjustmentRow,
    HandUnavailable,
    HistoryEntry,
    HistoryRow,
    hand_voided,
    history_counts,
    load_hand,
    load_match_actions,
    player_hands,
    replays_show_all_hands,
)
from bot.store.models import MatchInfo
from cogs import settings_registry
from cogs.checks import guild_of
from cogs.errors import report
from cogs.leaderboard import day_text, display, safe, server_tz, signed
from cogs.settings_registry import SettingsOption
from engine.errors import EngineError
from engine.replay import HandReplay, decode_code, encode_code
from engine.review import MatchReview, Review, review_hand, review_match
from render.match_review import match_review_card, match_review_summary
from render.replay import (
    render_replay,
    render_replay_animation,
    replay_scene,
    review_card,
    review_numbers,
    review_summary,
)

log = logging.getLogger(__name__)

PAGE = 10  # entries (hands, adjustments) per /history page
REASON_CLIP = 80  # characters of a correction's reason shown in /history (the export has it whole)
THEMES = ("dark", "light")
_CACHE = 16  # replays kept built (a replay replays its match up to the hand)
_NO_PINGS = discord.AllowedMentions.none()


def seat_of(match: MatchInfo, user_id: int) -> int | None:
    """The chair ``user_id`` sat in (None: a spectator)."""
    return next((s.seat for s in match.seats if s.player_id == user_id), None)


def names_of(match: MatchInfo, lang: str) -> list[str]:
    """The seats' names on a replay: the players', and the AI seats' as their table named them (``load_hand``), or
    numbered as a table numbers them when the match kept no names."""
    out, n = [], 0
    for s in match.seats:
        if s.player_id is None and not s.display_name:
            n += 1
            out.append(t("tables.ai_name", lang, n=n))
        else:
            out.append(drawn_name(s.display_name) or display(None, s.player_id or 0, lang))
    return out


def result_text(r: HistoryRow, lang: str) -> str:
    """The player's result in a hand, in words, marked when the hand was played in person (``/record``).

    >>> from datetime import datetime
    >>> r = HistoryRow(1, 1, 0, "hefei", datetime(2026, 1, 1), 0, 12, True, True, False, False, 12)
    >>> result_text(r, "en"), result_text(r, "zh")
    ('won (self-drawn)', '自摸')
    """
    res = _outcome(r, lang)
    if r.source == "in_person":
        res += " · " + t("record.in_person_mark", lang)
    return res


def _outcome(r: HistoryRow, lang: str) -> str:
    if r.won:
        return t("memory.result_self" if r.self_draw else "memory.result_won", lang)
    if r.deal_in:
        return t("memory.result_dealt_in", lang)
    if r.drawn:
        return t("memory.result_draw", lang)
    return t("memory.result_paid" if r.amount < 0 else "memory.result_other", lang)


def _when(at: datetime, tz: tzinfo, lang: str) -> str:
    local = at.astimezone(tz)
    return f"{day_text(local, lang)} {local:%H:%M}"


def clip(text: str, n: int) -> str:
    """``text`` cut to ``n`` characters with an ellipsis.

    >>> clip("side bet", 20), clip("a very long reason", 8)
    ('side bet', 'a very …')
    """
    return text if len(text) <= n else text[: n - 1] + "…"


def entry_text(r: HistoryEntry, lang: str, tz: tzinfo, names: dict[int, str | None],
               reason_clip: int = REASON_CLIP) -> str:
    r"""One entry of ``/history``: a hand (a voided one struck, with why, who and when), or an adjustment (how much to
    or from whom, who posted it, why). Who posted a correction is a mention (shown as their name, never a ping).

    >>> from datetime import UTC, datetime
    >>> a = AdjustmentRow(7, "hefei", datetime(2026, 3, 2, 4, 5, tzinfo=UTC), -25, 12, "side bet", 99)
    >>> entry_text(a, "en", UTC, {12: "Bob"})
    'Mar 2 04:05 · Hefei · adjustment · **-25** 子 to Bob\n-# ↳ posted by <@99>: side bet'
    """
    when = _when(r.at, tz, lang)
    variant = variant_name(r.variant, lang)
    if isinstance(r, AdjustmentRow):
        other = names.get(r.other_id) if r.other_id is not None else None
        key = "memory.history_adjust_in" if r.amount > 0 else "memory.history_adjust_out"
        return t(key, lang, when=when, variant=variant, amount=signed(r.amount),
                 other=safe(other) if other else f"<@{r.other_id}>", by=f"<@{r.user_id}>",
                 reason=safe(clip(r.reason, reason_clip)))
    if r.voided is not None:
        return t("memory.history_void", lang, when=when, variant=variant, result=result_text(r, lang),
                 amount=signed(r.amount), code=r.code, by=f"<@{r.voided.user_id}>",
                 date=day_text(r.voided.posted_at.astimezone(tz), lang), reason=safe(clip(r.voided.reason, reason_clip)))
    return t("memory.history_line", lang, when=when, variant=variant, result=result_text(r, lang),
             amount=signed(r.amount), code=r.code)


# ------------------------------------------------------------------------------------------------ controls


class HistoryButton(discord.ui.DynamicItem[discord.ui.Button],
                    template=r"mjh:(?P<g>\d+):(?P<p>\d+):(?P<v>\d+):(?P<page>\d+)"):
    """Turn to page ``page`` of player ``p``'s history (for viewer ``v`` on guild ``g``)."""

    def __init__(self, guild: int, player: int, viewer: int, page: int, label: str = "", disabled: bool = False):
        super().__init__(discord.ui.Button(label=label or str(page + 1), style=discord.ButtonStyle.secondary,
                                           custom_id=f"mjh:{guild}:{player}:{viewer}:{page}", disabled=disabled))
        self.guild, self.player, self.viewer, self.page = guild, player, viewer, page

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any], match: re.Match[str]):  # type: ignore[override]  # discord.py hands over the component its template matched
        return cls(int(match["g"]), int(match["p"]), int(match["v"]), int(match["page"]), item.label or "")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.cog(Memory)
        try:
            await cog.history_page(interaction, self.guild, self.player, self.viewer, self.page)
        except Exception as e:
            await report(interaction, e, where="history page")


class HistorySelect(discord.ui.DynamicItem[discord.ui.Select], template=r"mjhs:(?P<g>\d+)"):
    """Pick a hand from a /history page: opens its replay (value: the replay code)."""

    def __init__(self, guild: int, options: list[discord.SelectOption] | None = None, placeholder: str = ""):
        super().__init__(discord.ui.Select(custom_id=f"mjhs:{guild}", options=options or [
            discord.SelectOption(label="-", value="-")], placeholder=placeholder or None))
        self.guild = guild

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Select[Any], match: re.Match[str]):  # type: ignore[override]  # discord.py hands over the component its template matched
        return cls(int(match["g"]), list(item.options), item.placeholder or "")

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.cog(Memory)
        values = cast(dict[str, Any], interaction.data or {}).get("values") or [""]
        try:
            if interaction.guild_id != self.guild:
                raise UserError("memory.other_server")
            await cog.open_replay(interaction, str(values[0]))
        except Exception as e:
            await report(interaction, e, where="history select")


REPLAY_OPS = ("s", "p", "n", "e", "pd", "nd", "rv", "mrv", "gif", "th", "mine")

#: How a replay button's id counts its step: over the steps the viewer may see with the other hands hidden, or over
#: every step when every hand is shown (``replays_show_all_hands``); an id of neither kind holds the raw step.
COUNTED = {False: "h", True: "a"}


class ReplayButton(discord.ui.DynamicItem[discord.ui.Button],
                   template=r"mjr:(?P<g>\d+):(?P<code>[0-9A-Z]+):(?P<v>\d+):(?P<c>[ha]?)(?P<k>\d+):(?P<th>[dl]):(?P<op>[a-z]+)"):
    """A replay control: ``op`` s / p / n / e (start, previous, next, end), pd / nd (the viewer's previous / next
    decision), rv (review card), mrv (the match review card: every finished hand of the match), gif (animated
    file), th (other theme), mine (open my own).

    ``step`` is the step as the viewer counts it, ``counted`` says how (:data:`COUNTED`): ``h`` over the steps the
    viewer may see with the other hands hidden, ``a`` over every step (every hand shown: the raw step), ``""`` an id
    made before the ids carried the viewer's numbers (the raw step index)."""

    def __init__(self, guild: int, code: str, viewer: int, counted: str, step: int, theme: str, op: str,
                 label: str = "", disabled: bool = False, row: int | None = None,
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary):
        cid = f"mjr:{guild}:{code}:{viewer}:{counted}{step}:{theme[0]}:{op}"
        super().__init__(discord.ui.Button(label=label or op, style=style, custom_id=cid, disabled=disabled, row=row))
        self.guild, self.code, self.viewer, self.theme, self.op = guild, code, viewer, theme, op
        self.counted, self.step = counted, step

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any], match: re.Match[str]):  # type: ignore[override]  # discord.py hands over the component its template matched
        theme = "dark" if match["th"] == "d" else "light"
        return cls(int(match["g"]), match["code"], int(match["v"]), match["c"], int(match["k"]), theme, match["op"],
                   item.label or "")

    def raw_step(self, rp: HandReplay, seat: int | None) -> int:
        """The step of the hand this id names (0..n) for ``seat``, the viewer. ``h``: the step the viewer counts as
        ``step`` with the other hands hidden (past the end: the result), which they may see whatever the server's
        setting is now; ``a`` and an old id: the raw step, which the caller draws as the nearest step the viewer may
        see (``HandReplay.nearest_visible``) when the other hands are hidden."""
        if self.counted == "h":
            return rp.numbered(self.step, seat, show_all=False)
        return min(self.step, rp.n)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = interaction.client.cog(Memory)
        try:
            await cog.replay_click(interaction, self)
        except Exception as e:
            await report(interaction, e, where=f"replay {self.op}")


# ------------------------------------------------------------------------------------------------ the cog


class Memory(commands.Cog):
    def __init__(self, bot: MjBot) -> None:
        self.bot = bot
        self.page_size = PAGE
        self._replays: OrderedDict[tuple[int, int], tuple[MatchInfo, HandReplay]] = OrderedDict()
        self._reviews: dict[tuple[int, int, int], Review] = {}
        self._match_reviews: OrderedDict[tuple[int, int, frozenset[int]], MatchReview] = OrderedDict()

    async def _lang(self, interaction: discord.Interaction[MjBot]) -> str:
        return await lang_of(interaction)

    # ---- /history

    @app_commands.command(name=locale_str("history.name"), description=locale_str("history.desc"))
    @app_commands.guild_only()
    @app_commands.rename(player=locale_str("history.player.name"))
    @app_commands.describe(player=locale_str("history.player.desc"))
    async def history(self, interaction: discord.Interaction[MjBot], player: discord.User | None = None) -> None:
        # discord.User, not Member: a former member's hands stay in the ledger, and their history with them
        who = player or interaction.user
        if who.bot:
            raise UserError("memory.bot_member", name=safe(who.display_name))
        if not isinstance(who, discord.Member) and interaction.guild_id is not None and not (
                await history_counts(self.bot.open_store, interaction.guild_id, who.id)).total:
            raise UserError("memory.not_member", name=safe(who.display_name))
        await self.history_page(interaction, interaction.guild_id, who.id, interaction.user.id, 0, new=True,
                                known_as=who.display_name)

    async def history_page(self, interaction: discord.Interaction[MjBot], guild: int | None, player: int, viewer: int,
                           page: int, *, new: bool = False, known_as: str | None = None) -> None:
        """One page of ``player``'s hands. Their name: the store's, else ``known_as`` (the member the command
        named: a newcomer the store has not met yet), else the presser's own when it is their history."""
        if interaction.guild_id is None or interaction.guild_id != guild:
            raise UserError("memory.other_server")
        if db_id(player) is None:  # a forged id past what the database holds names nobody
            raise UserError("memory.unknown_player")
        lang = await self._lang(interaction)
        store = self.bot.open_store
        counts = await history_counts(store, guild, player)
        size = self.page_size
        pages = max(1, -(-counts.total // size))
        page = min(max(page, 0), pages - 1)
        rows = await player_hands(store, guild, player, size, page * size)
        tz = await server_tz(self.bot, guild)
        if known_as is None and interaction.user.id == player:
            known_as = interaction.user.display_name
        name = await store.display_name(player) or known_as or display(None, player, lang)
        others = {r.other_id: await store.display_name(r.other_id) for r in rows
                  if isinstance(r, AdjustmentRow) and r.other_id is not None}
        title = t("memory.history_title", lang, name=safe(name), total=counts.hands)
        if counts.voided:
            title += " · " + t("memory.count_voided", lang, n=counts.voided)
        if counts.adjustments:
            title += " · " + t("memory.count_adjustments", lang, n=counts.adjustments)
        footer = [t("memory.history_empty", lang)] if not rows else []
        if pages > 1:
            footer.append(t("memory.page", lang, n=page + 1, total=pages))
        options = []
        for r in rows:
            if isinstance(r, HistoryRow):
                when = _when(r.at, tz, lang)
                res = result_text(r, lang)
                amount = t("memory.voided_amount", lang) if r.voided else signed(r.amount)
                options.append(discord.SelectOption(
                    label=f"{r.code} · {when}"[:100], value=r.code,
                    description=f"{variant_name(r.variant, lang)} · {res} · {amount}"[:100]))
        # reasons are shown up to REASON_CLIP characters, fewer when a page would not fit one message
        for reason_clip in (REASON_CLIP, 40, 12):
            text = "\n".join([title, *(entry_text(r, lang, tz, others, reason_clip) for r in rows), *footer])
            if len(text) <= MESSAGE_LIMIT:
                break
        view = discord.ui.View(timeout=None)
        if pages > 1:
            view.add_item(HistoryButton(guild, player, viewer, max(page - 1, 0), "◀", disabled=page == 0))
            view.add_item(HistoryButton(guild, player, viewer, min(page + 1, pages - 1), "▶", disabled=page >= pages - 1))
        if options:
            view.add_item(HistorySelect(guild, options, t("memory.pick_hand", lang)))
        if new:
            await interaction.response.send_message(text, view=view, ephemeral=True, allowed_mentions=_NO_PINGS)
        else:
            await interaction.response.edit_message(content=text, view=view, allowed_mentions=_NO_PINGS)

    # ---- /replay

    @app_commands.command(name=locale_str("replay.name"), description=locale_str("replay.desc"))
    @app_commands.guild_only()
    @app_commands.rename(code=locale_str("replay.code.name"))
    @app_commands.describe(code=locale_str("replay.code.desc"))
    async def replay(self, interaction: discord.Interaction[MjBot], code: app_commands.Range[str, 1, 40]) -> None:
        await self.open_replay(interaction, code)

    async def _load(self, guild: int, code: str) -> tuple[str, MatchInfo, HandReplay]:
        match_id, hand_no = decode_code(code)  # EngineError: a typo (check character), a bad character
        norm = encode_code(match_id, hand_no)
        if db_id(match_id, low=0) is None:  # a code for a match past what the database holds names no hand
            raise UserError("memory.replay_unknown", code=norm)
        key = (match_id, hand_no)
        hit = self._replays.get(key)
        if hit is not None and hit[0].guild_id == guild:
            self._replays.move_to_end(key)
            return norm, hit[0], hit[1]
        try:
            match, rp = await load_hand(self.bot.open_store, guild, match_id, hand_no, norm)
        except HandUnavailable as e:
            raise UserError(f"memory.replay_{e.reason}", code=norm) from None
        except EngineError as e:
            if e.code == "hand_in_play":
                raise UserError("memory.replay_in_play", code=norm) from None
            raise UserError("memory.replay_unknown", code=norm) from None
        self._replays[key] = (match, rp)
        while len(self._replays) > _CACHE:
            self._replays.popitem(last=False)
        return norm, match, rp

    async def _review(self, match: MatchInfo, rp: HandReplay, seat: int) -> Review:
        """The seat's review of the hand (the strong AI's evaluator at each decision: up to a second or two of
        work, done in a thread so the event loop keeps answering), cached."""
        key = (match.match_id, rp.hand_no, seat)
        if key not in self._reviews:
            review = await asyncio.to_thread(review_hand, rp, seat)
            if len(self._reviews) > 4 * _CACHE:
                self._reviews.clear()
            self._reviews[key] = review
        return self._reviews[key]

    async def _match_review(self, match: MatchInfo, seat: int) -> MatchReview:
        """The seat's review over every finished hand of the match (each hand as its own review card has it; a
        second or two of work for a long match, done in a thread), cached until another hand of it finishes."""
        data = await load_match_actions(self.bot.open_store, match)
        key = (match.match_id, seat, data.finished)
        hit = self._match_reviews.get(key)
        if hit is None:
            hit = await asyncio.to_thread(lambda: review_match(data.hands(match), seat))
            self._match_reviews[key] = hit
            while len(self._match_reviews) > _CACHE:
                self._match_reviews.popitem(last=False)
        return hit

    async def _show_all(self, guild: int) -> bool:
        return await replays_show_all_hands(self.bot.open_store, guild)

    async def open_replay(self, interaction: discord.Interaction[MjBot], code: str) -> None:
        if interaction.guild_id is None:
            raise UserError("memory.other_server")
        await self._send_step(interaction, code, 0, "dark", new=True)

    async def _send_step(self, interaction: discord.Interaction[MjBot], code: str, step: int, theme: str, *,
                         new: bool) -> None:
        guild = interaction.guild_id
        assert guild is not None
        lang = await self._lang(interaction)
        code, match, rp = await self._load(guild, code)
        viewer = interaction.user.id
        seat = seat_of(match, viewer)
        show_all = await self._show_all(guild)
        voided = await hand_voided(self.bot.open_store, match.match_id, rp.hand_no)
        # the step comes from a button's id, which a client can edit: draw the nearest step the viewer may see
        step = rp.nearest_visible(step, seat, show_all=show_all)
        if not new:
            await interaction.response.defer()
        else:
            await interaction.response.defer(ephemeral=True, thinking=True)
        review = await self._review(match, rp, seat) if seat is not None else None
        t0 = time.perf_counter()
        scene = replay_scene(rp, step, seat, lang=lang, names=names_of(match, lang), show_all=show_all, review=review,
                             code=code)
        png = await asyncio.to_thread(render_replay, scene, theme, lang)
        ms = round((time.perf_counter() - t0) * 1000)
        self.bot.observers.emit("replay_step", code=code, step=step, ms=ms, viewer=viewer, scene=scene)
        lines = [t("memory.replay_head", lang, code=code, variant=variant_name(rp.variant, lang), hand=rp.hand_no + 1,
                   step=scene.number, n=scene.total)]  # counted over the steps the viewer may see
        if voided is not None:  # /correct void: the hand counts for nothing, and the replay says so
            lines.append(t("memory.replay_voided", lang, by=f"<@{voided.user_id}>",
                           date=day_text(voided.posted_at.astimezone(await server_tz(self.bot, guild)), lang),
                           reason=safe(clip(voided.reason, REASON_CLIP))))
        if review is not None:
            lines.append(review_summary(review, lang, review_numbers(rp, seat, show_all=show_all)))
        view = self._controls(guild, code, viewer, step, theme, rp, seat, lang, show_all)
        file = discord.File(io.BytesIO(png), filename=f"replay-{code}-{scene.number}.png")
        if new:
            await interaction.followup.send("\n".join(lines), file=file, view=view, ephemeral=True,
                                            allowed_mentions=_NO_PINGS)
        else:
            await interaction.edit_original_response(content="\n".join(lines), attachments=[file], view=view,
                                                     allowed_mentions=_NO_PINGS)

    def _controls(self, guild: int, code: str, viewer: int, step: int, theme: str, rp: HandReplay,
                  seat: int | None, lang: str, show_all: bool) -> discord.ui.View:
        v = discord.ui.View(timeout=None)
        # the ids carry the step as the viewer counts it, never the raw index: the ids of consecutive steps, which a
        # client can read, show no gap where another seat's answer is hidden
        number, _total = rp.number(step, seat, show_all=show_all)

        def b(op: str, label: str, *, disabled: bool = False, row: int = 0) -> None:
            v.add_item(ReplayButton(guild, code, viewer, COUNTED[show_all], number, theme, op, label,
                                    disabled=disabled, row=row))

        b("s", "⏮", disabled=step == 0)
        b("p", "◀", disabled=step == 0)
        b("n", "▶", disabled=step >= rp.n)
        b("e", "⏭", disabled=step >= rp.n)
        if seat is not None:
            b("pd", t("memory.prev_decision", lang), disabled=rp.prev_decision(step, seat) is None, row=1)
            b("nd", t("memory.next_decision", lang), disabled=rp.next_decision(step, seat) is None, row=1)
            b("rv", t("memory.review", lang), row=2)
            b("mrv", t("memory.match_review", lang), row=2)
        b("gif", t("memory.animation", lang), row=2)
        b("th", t("memory.theme_light" if theme == "dark" else "memory.theme_dark", lang), row=2)
        return v

    async def replay_click(self, interaction: discord.Interaction[MjBot], item: ReplayButton) -> None:
        if interaction.guild_id is None or interaction.guild_id != item.guild:
            raise UserError("memory.other_server")
        if interaction.user.id != item.viewer or item.op == "mine":
            # someone else's controls: their own replay, from the start, as their own seat sees it
            await self._send_step(interaction, item.code, 0, item.theme, new=True)
            return
        lang = await self._lang(interaction)
        code, match, rp = await self._load(item.guild, item.code)
        seat = seat_of(match, interaction.user.id)
        show_all = await self._show_all(item.guild)
        k, op = item.raw_step(rp, seat), item.op
        if op == "rv":
            if seat is None:
                raise UserError("memory.not_seated")
            await interaction.response.defer(ephemeral=True, thinking=True)
            review = await self._review(match, rp, seat)
            # steps numbered as the replay shows them to the player (with every hand hidden, no gap for an answer)
            png, texts = await asyncio.to_thread(lambda: review_card(review, rp, item.theme, lang, "",
                                                                     names_of(match, lang), show_all=show_all))
            self.bot.observers.emit("review_card", code=code, viewer=interaction.user.id, texts=texts)
            await interaction.followup.send(review_summary(review, lang, review_numbers(rp, seat, show_all=show_all)),
                                            ephemeral=True,
                                            file=discord.File(io.BytesIO(png), filename=f"review-{code}.png"))
            return
        if op == "mrv":
            if seat is None:
                raise UserError("memory.not_seated")
            await interaction.response.defer(ephemeral=True, thinking=True)
            mr = await self._match_review(match, seat)
            if not mr.hands:
                raise UserError("memory.match_review_none")
            t0 = time.perf_counter()
            png, texts = await asyncio.to_thread(lambda: match_review_card(mr, match.variant, item.theme, lang,
                                                                           names_of(match, lang), show_all=show_all))
            self.bot.observers.emit("match_review", code=code, viewer=interaction.user.id, review=mr, lang=lang,
                                    texts=texts,
                                    ms=round((time.perf_counter() - t0) * 1000))
            await interaction.followup.send(match_review_summary(mr, lang, show_all=show_all), ephemeral=True,
                                            file=discord.File(io.BytesIO(png), filename=f"match-review-{code}.png"))
            return
        if op == "gif":
            await interaction.response.defer(ephemeral=True, thinking=True)
            marks = await self._review(match, rp, seat) if seat is not None else None
            t0 = time.perf_counter()
            data = await asyncio.to_thread(render_replay_animation, rp, seat, theme=item.theme, lang=lang,
                                           show_all=show_all, names=names_of(match, lang), review=marks, code=code)
            ms = round((time.perf_counter() - t0) * 1000)
            self.bot.observers.emit("replay_animation", code=code, ms=ms, size=len(data))
            log.info("replay %s: animation %d ms, %d bytes", code, ms, len(data))
            await interaction.followup.send(t("memory.animation_done", lang, code=code), ephemeral=True,
                                            file=discord.File(io.BytesIO(data), filename=f"replay-{code}.gif"))
            return
        theme = item.theme
        if op == "s":
            k = 0
        elif op == "e":
            k = rp.n
        elif op == "n":
            k = rp.next_step(k, seat, show_all=show_all)
        elif op == "p":
            k = rp.prev_step(k, seat, show_all=show_all)
        elif op in ("nd", "pd") and seat is not None:
            j = rp.next_decision(k, seat) if op == "nd" else rp.prev_decision(k, seat)
            k = k if j is None else j
        elif op == "th":
            theme = "light" if theme == "dark" else "dark"
        await self._send_step(interaction, code, k, theme, new=False)


async def setup(bot: MjBot) -> None:
    settings_registry.register(SettingsOption("replays_show_all_hands", apply_replay_option))
    bot.add_dynamic_items(HistoryButton, HistorySelect, ReplayButton)
    await bot.add_cog(Memory(bot))


async def apply_replay_option(bot: MjBot, interaction: discord.Interaction[MjBot], lang: str, value: bool) -> str:
    """``/settings replays_show_all_hands``: set it (audited) and say what is in force."""
    from bot.store.history import set_replays_show_all_hands

    before = await replays_show_all_hands(bot.open_store, guild_of(interaction))
    now = await set_replays_show_all_hands(bot.open_store, guild_of(interaction), interaction.user.id, value)
    key = "settings.changed" if now != before else "settings.unchanged"
    return t(key, lang, field=t("memory.setting_show_all", lang), value=t(f"memory.{'on' if now else 'off'}", lang))
