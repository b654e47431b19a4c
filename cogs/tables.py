"""``/table``: open a lobby, sit down, add AI players, start, play with buttons, end.

The game itself runs in :class:`bot.tables.TableManager` (``bot.tables``); this cog turns slash commands and
button clicks into its calls; :mod:`cogs.table_controls` builds every control. All controls are ``discord.ui.DynamicItem`` buttons whose
custom id carries what they act on (the channel for a lobby; the table id, the seat's decision number, the action
for play), registered with ``bot.add_dynamic_items``: they keep working after a restart and a stale or repeated
click is refused ephemerally without changing anything.
"""

from __future__ import annotations

import io
import logging

import discord
from discord import app_commands
from discord.app_commands import Choice
from discord.ext import commands

from bot.app import MjBot
from bot.i18n import locale_str
from bot.interactions import lang_of, settings_of
from bot.names import player_name
from bot.posting import post_refusal, refusal_may_pass
from bot.settings import SERVER_LANGUAGE, table_allowed_in, variant_rules
from bot.shards import shard_of
from bot.tables import LiveTable, Refusal, TableManager, resume_tables
from bot.tables.strings import t  # display names in its messages are escaped (no pings, no markdown)
from cogs.choices import MODE_CHOICES, variant_choices
from cogs.errors import EXPIRED_CODES, reply_ephemeral, saved
from cogs.scoring import check_variant_options
from cogs.table_controls import UI, LobbyButton, PlayButton, VoteButton
from engine.variants import get_variant
from text.lang import lang_for, lang_of_locale

log = logging.getLogger(__name__)

AUTOPLAY_CHOICES = [Choice(name=locale_str(f"choice.autoplay.{v}"), value=v) for v in ("on", "off")]
DIFFICULTY_CHOICES = [Choice(name=locale_str(f"choice.difficulty.{d}"), value=d) for d in ("easy", "normal", "strong")]


async def _lang(interaction: discord.Interaction[MjBot]) -> str:
    """The reply's language (worked out once per interaction: bot.interactions); where the settings cannot be read
    (a click answered in any case, an error being answered), the player's own language or the default."""
    try:
        return await lang_of(interaction)
    except Exception:
        return lang_for(interaction, None)


def _player_lang(interaction: discord.Interaction[MjBot], server: str | None) -> str:
    return lang_of_locale(getattr(interaction, "locale", None)) or server or SERVER_LANGUAGE


ANSWER_WITHIN = 2.0  # seconds a click waits for its decision before deferring (Discord allows 3)


_say = reply_ephemeral  # one ephemeral answer for every cog (cogs.errors), whether or not the interaction was deferred
DISCORD_FAILED = (discord.HTTPException, OSError, TimeoutError)  # Discord refused or failed a request, or the network



class Tables(commands.Cog):
    table = app_commands.Group(name=locale_str("table.name"), description=locale_str("table.desc"), guild_only=True)

    def __init__(self, bot: MjBot) -> None:
        self.bot = bot
        self.manager: TableManager = bot.tables
        self.ui = UI(bot)
        self.manager.ui = self.ui
        self.manager.server_left = self._server_left
        self.manager.listed = bot.is_ready
        self.manager.may_post = lambda guild_id, channel_id: refusal_may_pass(bot.get_guild(guild_id), channel_id)

    async def cog_unload(self) -> None:
        await self.manager.close()

    # ---- the Discord world changing under the tables (bot.tables.gone) --------------------------------------

    def _server_left(self, guild_id: int) -> bool:
        """Whether the bot is known to be out of the server: the gateway has listed every server of this process's
        shards (discord.py's ready: the READY of each shard names all its servers, an unavailable one included) and
        this one is not among them (nor joined since). Never for a shard this process does not run."""
        bot = self.bot
        if not bot.is_ready():
            return False  # starting: the servers are not all listed yet
        ids = bot.shard_ids
        if ids is not None and shard_of(guild_id, bot.shard_count or 1) not in ids:
            return False
        return bot.get_guild(guild_id) is None

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        self.manager.servers_left()  # the tables resumed at start-up whose server the bot has left meanwhile

    @commands.Cog.listener()
    async def on_guild_remove(self, guild: discord.Guild) -> None:
        # (discord.py dispatches this for a GUILD_DELETE without "unavailable": an outage is guild_unavailable)
        self.manager.server_removed(guild.id)

    @commands.Cog.listener()
    async def on_guild_channel_delete(self, channel: discord.abc.GuildChannel) -> None:
        self.manager.channel_deleted(channel.id)
        # Discord deletes a channel's threads with it but tells only of the channel: discord.py makes up the thread
        # deletes of the threads it holds, not of an archived one (a table idle between hands lets its thread be
        # archived). A table of the server in a channel discord.py does not hold is looked up once.
        for lt in [lt for lt in self.manager.by_channel.values() if lt.guild_id == channel.guild.id and not lt.closed]:
            if lt.channel_id != channel.id and channel.guild.get_channel_or_thread(lt.channel_id) is None:
                try:
                    await self.bot.fetch_channel(lt.channel_id)
                except discord.NotFound:
                    self.manager.channel_deleted(lt.channel_id)
                except DISCORD_FAILED as e:  # its first write will tell
                    log.info("channel %s: could not be looked up after %s was deleted (%s)", lt.channel_id,
                             channel.id, e)

    @commands.Cog.listener()
    async def on_raw_thread_delete(self, payload: discord.RawThreadDeleteEvent) -> None:
        self.manager.channel_deleted(payload.thread_id)  # (also each thread of a deleted channel)

    # ---- helpers ------------------------------------------------------------------------------------------

    async def _server_lang(self, interaction: discord.Interaction[MjBot]) -> str:
        """The server's language (read once per interaction); :data:`SERVER_LANGUAGE` outside a server."""
        if interaction.guild_id is None:
            return SERVER_LANGUAGE
        return (await settings_of(interaction)).language or SERVER_LANGUAGE

    async def _refuse(self, interaction: discord.Interaction[MjBot], r: Refusal) -> None:
        lang = await lang_of(interaction)
        await _say(interaction, t(r.key, lang, **r.params))

    def lobby_embed(self, lt: LiveTable) -> discord.Embed:
        return self.ui.lobby_embed(lt)

    # ---- commands -----------------------------------------------------------------------------------------

    @table.command(name=locale_str("table.new.name"), description=locale_str("table.new.desc"))
    @app_commands.rename(variant=locale_str("table.variant.name"), mode=locale_str("table.mode.name"))
    @app_commands.describe(variant=locale_str("table.variant.desc"), mode=locale_str("table.mode.desc"))
    @app_commands.choices(variant=variant_choices(), mode=MODE_CHOICES)
    async def new(self, interaction: discord.Interaction[MjBot], variant: str | None = None, mode: int | None = None) -> None:
        settings = await settings_of(interaction)
        if not table_allowed_in(settings, interaction.channel or discord.Object(interaction.channel_id or 0)):
            where = " ".join(f"<#{c}>" for c in settings.allowed_channels)
            await _say(interaction, t("tables.not_here", await lang_of(interaction), channels=where))
            return
        cannot = post_refusal(interaction, await lang_of(interaction))  # (a table nobody could see: nothing opens)
        if cannot is not None:
            await _say(interaction, cannot)
            return
        key = variant or settings.default_variant
        V = get_variant(key)
        check_variant_options(V, await lang_of(interaction), mode=mode, dealer_streak=None,
                              names=("table.mode.name", "score.streak.name"))
        rules = variant_rules(settings, V)
        if mode is not None and "mode" in rules:
            rules["mode"] = mode
        try:
            lt = await self.manager.open_lobby(interaction.guild_id or 0, interaction.channel_id or 0,
                                               interaction.user.id, player_name(interaction.user),
                                               _player_lang(interaction, settings.language), key, rules, settings)
        except Refusal as r:
            await self._refuse(interaction, r)
            return
        saved(interaction, t("tables.opened_unshown", await lang_of(interaction)))  # the lobby is stored
        await interaction.response.send_message(embed=self.lobby_embed(lt), view=self.ui.lobby_view(lt, lt.lang))
        await self._lobby_answer_posted(interaction, lt)
        await self._say_the_tables_language(interaction, lt)

    async def _say_the_tables_language(self, interaction: discord.Interaction[MjBot], lt: LiveTable) -> None:
        """A host whose Discord speaks another language than the server's tables is told, privately and in their own
        language, which language the table speaks and where an admin changes it: the lobby they just opened, its
        buttons and the table are all in the server's language (an English newcomer met a Chinese table they could
        not read; found by an independent review). A follow-up of the command: no request of the global budget."""
        player = lang_of_locale(interaction.locale)
        if player is None or player == lt.lang:
            return
        note = t("tables.lang_note", player, language=t(f"lang.{lt.lang}", player),
                 settings=f"/{t('settings.name', player)}", field=t("settings.field.language", player))
        try:
            await interaction.followup.send(note, ephemeral=True)
        except discord.HTTPException as e:  # the lobby is up: the note is a courtesy
            log.info("lobby in %s: the language note was not sent (%s)", lt.channel_id, e)

    async def _lobby_answer_posted(self, interaction: discord.Interaction[MjBot], lt: LiveTable) -> None:
        """The lobby message is this command's answer: the manager remembers it (and stores it)."""
        try:
            msg = await interaction.original_response()
        except discord.HTTPException as e:
            log.info("lobby in %s: its message is not known (%s); the next change posts one", lt.channel_id, e)
            return
        await self.manager.lobby_posted(lt, msg.id)

    async def _lobby_op(self, interaction: discord.Interaction[MjBot], channel_id: int, op: str,
                        difficulty: str | None = None, seen: int | None = None) -> None:
        server = await self._server_lang(interaction)
        lang = await lang_of(interaction)
        component = interaction.type == discord.InteractionType.component
        try:
            lt = self.manager.by_channel.get(channel_id)
            if lt is None and self.manager.settling(interaction.guild_id):  # (its lobby may be coming back here)
                raise Refusal("tables.moving")
            if lt is None or lt.closed:
                raise Refusal("tables.lobby_gone" if component else "tables.no_table")
            # a lobby's buttons act only in its own channel (a forged custom id elsewhere changes nothing)
            self.manager.check_place(lt, interaction.guild_id if interaction.guild_id is not None else -1,
                                     interaction.channel_id)
            if lt.started:  # (leaving a table in play: what the player can do instead)
                raise Refusal("tables.not_lobby_leave" if op == "leave" and lt.seat_of(interaction.user.id) is not None
                              else "tables.not_lobby")
            user = interaction.user
            name = user.display_name
            if op == "join":
                await self.manager.join(lt, user.id, player_name(user), _player_lang(interaction, server))
            elif op == "leave":
                await self.manager.leave(lt, user.id)
                if lt.closed:
                    await _say(interaction, t("tables.left", lang, name=user.display_name))
                    return
            elif op == "addbot":
                if difficulty is None:  # the server's (bot.ai_difficulty), from this interaction's one read
                    difficulty = (await settings_of(interaction)).ai_difficulty
                name = await self.manager.add_ai(lt, difficulty, user.id)
            elif op == "rmbot":
                name = await self.manager.remove_ai(lt, user.id, seen)
            elif op == "start":
                perms = getattr(interaction, "permissions", None)
                self.manager.may_manage(lt, user.id, bool(perms and perms.manage_guild))
                if any(s is None for s in lt.seats):
                    raise Refusal("tables.need_four")
                cannot = post_refusal(interaction, lang)  # (permissions taken away since the lobby opened)
                if cannot is not None:
                    await _say(interaction, cannot)
                    return
                if component:
                    await interaction.response.defer()
                else:
                    await interaction.response.defer(ephemeral=True, thinking=True)
                # "开始！" is said once: on the lobby message, which loses its buttons when the match is recorded
                await self.manager.start(lt)
                if not component:
                    await interaction.followup.send(t("tables.start_ok", lang), ephemeral=True)
                return
        except Refusal as r:
            await _say(interaction, t(r.key, lang, **r.params))
            return
        # the lobby message itself is written by the publisher, in the table's order of writes
        if component:
            await interaction.response.defer()
        else:
            key = {"join": "tables.joined", "leave": "tables.left", "addbot": "tables.joined"}[op]
            await interaction.response.send_message(t(key, lang, name=name), ephemeral=True)

    async def lobby_click(self, interaction: discord.Interaction[MjBot], channel_id: int, op: str,
                          seen: int | None = None) -> None:
        try:
            await self._lobby_op(interaction, channel_id, op, seen=seen)
        except Exception:
            log.exception("lobby click %s failed", op)
            await _say(interaction, t("tables.unknown", await _lang(interaction)))

    @table.command(name=locale_str("table.join.name"), description=locale_str("table.join.desc"))
    async def join(self, interaction: discord.Interaction[MjBot]) -> None:
        await self._lobby_op(interaction, interaction.channel_id or 0, "join")

    @table.command(name=locale_str("table.leave.name"), description=locale_str("table.leave.desc"))
    async def leave(self, interaction: discord.Interaction[MjBot]) -> None:
        await self._lobby_op(interaction, interaction.channel_id or 0, "leave")

    @table.command(name=locale_str("table.addbot.name"), description=locale_str("table.addbot.desc"))
    @app_commands.rename(difficulty=locale_str("table.difficulty.name"))
    @app_commands.describe(difficulty=locale_str("table.difficulty.desc"))
    @app_commands.choices(difficulty=DIFFICULTY_CHOICES)
    async def addbot(self, interaction: discord.Interaction[MjBot], difficulty: str | None = None) -> None:
        await self._lobby_op(interaction, interaction.channel_id or 0, "addbot", difficulty)

    @table.command(name=locale_str("table.start.name"), description=locale_str("table.start.desc"))
    async def start(self, interaction: discord.Interaction[MjBot]) -> None:
        await self._lobby_op(interaction, interaction.channel_id or 0, "start")

    @table.command(name=locale_str("table.end.name"), description=locale_str("table.end.desc"))
    async def end(self, interaction: discord.Interaction[MjBot]) -> None:
        lang = await lang_of(interaction)
        try:
            lt = self.manager.table_in(interaction.channel_id or 0, interaction.guild_id)
            perms = interaction.permissions
            self.manager.may_manage(lt, interaction.user.id, bool(perms and perms.manage_guild))
        except Refusal as r:
            await _say(interaction, t(r.key, lang, **r.params))
            return
        await interaction.response.defer(ephemeral=True)
        try:
            await self.manager.end(lt, interaction.user.display_name)
        except Refusal as r:
            await _say(interaction, t(r.key, lang, **r.params))
            return
        await interaction.followup.send(t("tables.ended_by", lang, name=interaction.user.display_name), ephemeral=True)

    @table.command(name=locale_str("table.show.name"), description=locale_str("table.show.desc"))
    async def show(self, interaction: discord.Interaction[MjBot]) -> None:
        lang = await lang_of(interaction)
        try:
            lt = self.manager.table_in(interaction.channel_id or 0, interaction.guild_id)
        except Refusal as r:
            await _say(interaction, t(r.key, lang, **r.params))
            return
        if not lt.started:
            await interaction.response.send_message(embed=self.lobby_embed(lt),
                                                    view=self.ui.lobby_view(lt, lt.lang))
            await self._lobby_answer_posted(interaction, lt)  # the old lobby message loses its buttons
            return
        cannot = post_refusal(interaction, lang)
        if cannot is not None:
            await _say(interaction, cannot)
            return
        await interaction.response.defer(ephemeral=True)
        await self.manager.repost(lt)
        await interaction.followup.send("✓", ephemeral=True)

    # ---- table management (issue 15) ----------------------------------------------------------------------
    # replace / restore / kick are for the host as well as for server managers, so Discord's default permissions
    # cannot hide them (that would hide them from the host): the check is in code (TableManager.may_manage).
    # Their option is a discord.User, not a Member: a player who left the server in the middle of a match is still
    # in their seat, and is named then with no member data.

    @table.command(name=locale_str("table.autoplay.name"), description=locale_str("table.autoplay.desc"))
    @app_commands.rename(on=locale_str("table.autoplay.on.name"))
    @app_commands.describe(on=locale_str("table.autoplay.on.desc"))
    @app_commands.choices(on=AUTOPLAY_CHOICES)
    async def autoplay(self, interaction: discord.Interaction[MjBot], on: str) -> None:
        lang = await lang_of(interaction)
        try:
            lt = self.manager.table_in(interaction.channel_id or 0, interaction.guild_id)
            await interaction.response.defer(ephemeral=True)
            await self.manager.autoplay(lt, interaction.user.id, on == "on")
        except Refusal as r:
            await _say(interaction, t(r.key, lang, **r.params))
            return
        await _say(interaction, t("tables.autoplay_ok" if on == "on" else "tables.back_ok", lang))

    async def _seat_admin(self, interaction: discord.Interaction[MjBot], member: discord.Member | discord.User,
                          op: str) -> None:
        lang = await lang_of(interaction)
        try:
            lt = self.manager.table_in(interaction.channel_id or 0, interaction.guild_id)
            perms = interaction.permissions
            self.manager.may_manage(lt, interaction.user.id, bool(perms and perms.manage_guild))
            if member.bot:
                raise Refusal("tables.target_bot")
            await interaction.response.defer(ephemeral=True)
            if op == "replace":
                name = await self.manager.replace(lt, interaction.user.id, member.id)
                key = "tables.replace_ok"
            elif op == "restore":
                name = await self.manager.restore(lt, interaction.user.id, member.id)
                key = "tables.restore_ok"
            else:
                name = await self.manager.kick(lt, interaction.user.id, member.id)
                key = "tables.kicked"
        except Refusal as r:
            await _say(interaction, t(r.key, lang, **r.params))
            return
        await _say(interaction, t(key, lang, name=name))

    @table.command(name=locale_str("table.replace.name"), description=locale_str("table.replace.desc"))
    @app_commands.rename(member=locale_str("table.member.name"))
    @app_commands.describe(member=locale_str("table.member.desc"))
    async def replace(self, interaction: discord.Interaction[MjBot], member: discord.User) -> None:
        await self._seat_admin(interaction, member, "replace")

    @table.command(name=locale_str("table.restore.name"), description=locale_str("table.restore.desc"))
    @app_commands.rename(member=locale_str("table.member.name"))
    @app_commands.describe(member=locale_str("table.member.desc"))
    async def restore(self, interaction: discord.Interaction[MjBot], member: discord.User) -> None:
        await self._seat_admin(interaction, member, "restore")

    @table.command(name=locale_str("table.kick.name"), description=locale_str("table.kick.desc"))
    @app_commands.rename(member=locale_str("table.member.name"))
    @app_commands.describe(member=locale_str("table.member.desc"))
    async def kick(self, interaction: discord.Interaction[MjBot], member: discord.User) -> None:
        await self._seat_admin(interaction, member, "kick")

    @table.command(name=locale_str("table.dissolve.name"), description=locale_str("table.dissolve.desc"))
    async def dissolve(self, interaction: discord.Interaction[MjBot]) -> None:
        lang = await lang_of(interaction)
        try:
            lt = self.manager.table_in(interaction.channel_id or 0, interaction.guild_id)
            if not lt.started:  # a lobby (no match id yet) is closed by its players leaving, not by a vote
                raise Refusal("tables.not_started")
            await self._propose(interaction, lt.id, lang)
        except Refusal as r:
            await _say(interaction, t(r.key, lang, **r.params))

    async def _propose(self, interaction: discord.Interaction[MjBot], table_id: int, lang: str) -> None:
        """Open a dissolve vote: the vote message (public, with its buttons) is the answer to the interaction."""
        mgr = self.manager
        vote, passed = await mgr.propose_dissolve(table_id, interaction.user.id)
        lt = mgr.by_id.get(table_id)
        if passed or lt is None:
            await _say(interaction, t("tables.vote_passed", lang))
            return
        text = vote.shown  # the proposal and its tally (the proposer agrees)
        await interaction.response.send_message(text, view=self.ui.vote_view(lt, vote.number, lt.lang))
        try:
            msg = await interaction.original_response()
        except discord.HTTPException as e:
            log.warning("table %s: the vote message is not known: %s", table_id, e)
            return
        await mgr.vote_posted(lt, vote, msg.channel.id, msg.id, text)

    async def vote_click(self, interaction: discord.Interaction[MjBot], table_id: int, number: int, yes: bool) -> None:
        """An answer to a dissolve vote: the vote message shows the new tally in the click's own response (the
        clicker's name among those who agreed or refused); a refusal is answered privately."""
        lang = await _lang(interaction)
        try:
            lt = self.manager.by_id.get(table_id)
            if lt is None:  # the table is gone (this vote passed, say, or /table end): how the vote ended
                raise Refusal(self.manager.vote_ended(table_id, number, interaction.channel_id))
            # a vote button acts only in its own table's channel (a forged id elsewhere: refused)
            self.manager.check_place(lt, interaction.guild_id if interaction.guild_id is not None else -1,
                                     interaction.channel_id)
            msg = interaction.message
            on = None if msg is None or interaction.channel_id is None else (interaction.channel_id, msg.id)
            cast = self.manager.cast_vote(table_id, number, interaction.user.id, yes, on)
            vote, answered = await self.manager.publisher.answer_vote(interaction, lt, cast, ANSWER_WITHIN)
            if not answered:  # (not on the vote's message: told here; the publisher edits the message)
                passed = vote.end == "tables.vote_passed"
                await _say(interaction, t("tables.vote_passed" if passed else "tables.vote_counted", lang))
        except Refusal as r:
            await _say(interaction, t(r.key, lang, **r.params))
        except Exception:
            log.exception("table %s: vote click failed", table_id)
            await _say(interaction, t("tables.unknown", lang))

    # ---- play ---------------------------------------------------------------------------------------------

    async def play_click(self, interaction: discord.Interaction[MjBot], table_id: int, seat: int, seq: int, op: str,
                         arg: str | None) -> None:
        try:
            await self._play_click(interaction, table_id, seat, seq, op, arg)
        finally:
            if "routed" in interaction.extras and self.bot.cluster is not None:  # its router need not answer it
                await self.bot.cluster.answered(interaction.id)

    async def _play_click(self, interaction: discord.Interaction[MjBot], table_id: int, seat: int, seq: int, op: str,
                          arg: str | None) -> None:
        lang = await _lang(interaction)
        try:
            lt = self.manager.by_id.get(table_id)
            if lt is not None:  # controls pressed in a server act only on that channel's table
                self.manager.check_place(lt, interaction.guild_id, interaction.channel_id)
            elif self.bot.cluster is not None:  # the table may be another process's (bot.cluster.Cluster.place)
                how = await self.bot.cluster.place(interaction, table_id, self.manager.owns,
                                                   lambda: _say(interaction, t("tables.moving", lang)))
                if how == "moving":
                    raise Refusal("tables.moving")
                if how == "unknown":  # this process cannot reach its lease: it cannot tell who drives the table
                    await self.bot.cluster.answer_blind(interaction, lang)
                    return
                if how != "here":
                    return
            if op == "hand":
                await self._my_hand(interaction, table_id, lang)
                return
            if op == "dissolve":
                if interaction.guild_id is None:  # the table message's button, forged in a DM: the vote would be
                    raise Refusal("tables.wrong_place")  # posted where the other players cannot answer it
                await self._propose(interaction, table_id, lang)
                return
            if op == "back":
                await interaction.response.defer()
                await self.manager.back(table_id, interaction.user.id)
                return
            if op == "auto":
                if lt is None:
                    raise Refusal("tables.table_gone")
                await interaction.response.defer()
                await self.manager.autoplay(lt, interaction.user.id, True)
                await _say(interaction, t("tables.autoplay_ok", lang))
                return
            msg = interaction.message
            # usually decided at once: the answer then edits the clicked message itself (exempt from the global
            # budget); a slow decision (a stalled store) is deferred within Discord's 3 seconds
            outcome = await self.manager.publisher.answer_click(
                interaction, lambda: self.manager.by_id.get(table_id),
                self.manager.act(table_id, interaction.user.id, seat, seq, op, arg), ANSWER_WITHIN)
            if msg is not None and msg.flags.ephemeral:  # the My hand panel: show the new hand in place
                await self._refresh_panel(interaction, table_id, lang)
            if outcome.note:
                await _say(interaction, t(outcome.note, lang, what=outcome.done))
        except Refusal as r:
            await _say(interaction, t(r.key, lang, **r.params))
        except Exception:
            log.exception("table %s: click %s failed", table_id, op)
            await _say(interaction, t("tables.unknown", lang))

    async def _refresh_panel(self, interaction: discord.Interaction[MjBot], table_id: int, lang: str) -> None:
        lt = self.manager.by_id.get(table_id)
        seat = None if lt is None else lt.seat_of(interaction.user.id)
        if lt is None or lt.table is None or seat is None or lt.closed:
            return
        async with lt.lock:
            text, png, view = await self.manager.hand_message(lt, seat, lang)
        try:
            file = discord.File(io.BytesIO(png), filename="hand.png")
            if interaction.response.is_done():
                await interaction.edit_original_response(content=text, attachments=[file], view=view)
            else:
                await interaction.response.edit_message(content=text, attachments=[file], view=view)
        except discord.HTTPException as e:  # an old panel (interaction token expired): the next My hand shows it
            log.info("table %s: could not refresh a hand panel: %s", table_id, e)

    async def _my_hand(self, interaction: discord.Interaction[MjBot], table_id: int, lang: str) -> None:
        mgr = self.manager
        lt = mgr.by_id.get(table_id)
        if lt is None or lt.closed or lt.table is None:
            raise Refusal("tables.table_gone")
        seat = lt.seat_of(interaction.user.id)
        if seat is None:
            raise Refusal("tables.spectator")
        try:
            await interaction.response.defer(ephemeral=True, thinking=True)
        except DISCORD_FAILED as e:
            await _hand_undelivered(interaction, table_id, lang, e)
            return
        async with lt.lock:
            text, png, view = await mgr.hand_message(lt, seat, lang)
        try:
            await interaction.followup.send(text, file=discord.File(io.BytesIO(png), filename="hand.png"),
                                            ephemeral=True, **({"view": view} if view else {}))
        except DISCORD_FAILED as e:
            await _hand_undelivered(interaction, table_id, lang, e)


async def _hand_undelivered(interaction: discord.Interaction[MjBot], table_id: int, lang: str,
                            e: BaseException) -> None:
    """Discord failed the My hand panel, its "thinking..." or the hand after it (a 5xx past discord.py's tries, the
    network, an expired token): an expected condition, one line in the log. While the token lives, the player is told
    to press My hand again (one try: Discord may be failing it too); nothing is lost, the hand is only shown."""
    code = getattr(e, "code", None)
    expired = isinstance(e, discord.HTTPException) and code in EXPIRED_CODES
    (log.info if expired else log.warning)("table %s: the hand panel for %s was not delivered (%s %s: %s)", table_id,
                                           interaction.user.id, getattr(e, "status", type(e).__name__), code or "",
                                           e)
    if expired:
        return  # nobody is left to answer: the player presses My hand again
    if not interaction.response.is_done():  # (the "thinking..." itself failed: an answer may still go)
        await _say(interaction, t("tables.hand_undelivered", lang))
        return
    try:
        await interaction.edit_original_response(content=t("tables.hand_undelivered", lang), attachments=[],
                                                 view=None)
    except DISCORD_FAILED as again:
        log.info("table %s: could not tell %s to press My hand again: %s", table_id, interaction.user.id, again)


async def setup(bot: MjBot) -> None:
    bot.add_dynamic_items(LobbyButton, PlayButton, VoteButton)
    cog = Tables(bot)
    await bot.add_cog(cog)
    if bot.store is not None:
        async with bot.tables_follow_leases():
            await resume_tables(cog.manager)
