"""Bringing every unfinished match, its open dissolve vote, and every lobby back after a restart, through the
store's own path.

``bot.store.resume_all`` replays each match with ``rebuild_table`` and checks its state hash (retrying a store that
is briefly unavailable); :meth:`TableRecorder.resume` catches up whatever a crash interrupted (a settlement, the
next hand, the match's end). The bot's own data (names, languages, who hosts, where its messages are) comes from
the store's ``match_meta``. The old table message is replaced, and a DM whose controls are still current is kept
(its buttons go on working); superseded ones lose their controls. A hand whose result never went out (the bot
stopped first) has it shown now.

A match that ended while the bot was stopped before it had closed its messages (``/table end`` or the last hand
stored, then a kill) is closed first (:func:`close_left_open`): its result if it never went out, the end said, the
summary, every control removed.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.store import resume_all
from bot.store.lobbies import delete_lobby, lobbies, open_votes
from bot.store.resume import hash_mismatch, retrying
from bot.store.tables import TableRecorder, bot_meta, engine_settings, rebuild_table
from engine.table import Event, Table
from engine.variants import get_variant

from .state import KEPT_AWAY, LiveTable, Seat, State
from .strings import t

if TYPE_CHECKING:
    from bot.store import Shards

    from .manager import TableManager

log = logging.getLogger(__name__)


def _live_table(game: Any, meta: dict[str, Any], rec: TableRecorder) -> tuple[LiveTable, list[Event]]:
    """The live table of a stored match, and the events that ended its last hand (none ended: [])."""
    m = game.match
    meta = bot_meta(meta, m.settings)
    rules, _ = engine_settings(m.settings)
    lt = LiveTable(guild_id=m.guild_id, channel_id=m.channel_id, host_id=meta.get("host", 0), variant=m.variant,
                   rules=rules, lang=meta.get("lang", "zh"), turn_seconds=meta.get("turn", 60),
                   claim_seconds=meta.get("claim", 15), hints=meta.get("hints", True), state=State.STARTING)
    seats = meta.get("seats") or []
    for i, st in enumerate(m.seats):
        sm = seats[i] if i < len(seats) else {}
        lt.seats[i] = Seat(st.player_id, sm.get("name") or st.display_name or f"AI {i + 1}", ai=st.ai,
                           lang=sm.get("lang", lt.lang))
        if sm.get("away") in KEPT_AWAY:  # 托管 or replaced by the host (issue 15): still played by the AI
            lt.occupant(i).go_away(sm["away"])
    lt.rec = rec
    # replay the decision points and the hand results exactly as they were reached
    tb = Table.new(m.variant, m.seed, rec.table.settings, players=rec.table.players)
    lt.update_since(tb)
    end: list[Event] = []
    for a in rec.actions:
        events = tb.apply(a)
        for i, e in enumerate(events):
            if e.type == "hand_end":
                lt.deltas.append(list(e.data["payments"]))
                end = events[:i + 1]
        lt.update_since(tb)
    return lt, end


def _unseen(lt: LiveTable, end: list[Event], messages: dict[str, Any]) -> list[Event]:
    """The events that ended the last hand when its result never went out and nothing came after it (the table
    stands between hands, or the match is over); sets ``lt.shown``. A list from before ``shown`` was stored counts
    a result card as shown."""
    last = end[-1].data["hand_no"] if end else -1
    lt.shown = int(messages.get("shown", last if messages.get("result") else -1))
    tb = lt.table
    if tb is None or tb.phase not in ("ended", "over") or last <= lt.shown:
        return []
    return end


async def resume_tables(mgr: TableManager) -> None:
    """Rebuild every unfinished match from the store; close the ones that cannot be rebuilt, with a message. The
    matches that ended while the bot was stopped are closed first (:func:`close_left_open`).

    Only the servers of the shards this process holds as it begins (bot.cluster), read from the store by their
    shards: its matches, their votes and its lobbies are all of the same servers. A lease taken meanwhile is not
    half taken here (its lobby back without its match, which that lobby would then keep out): the gain's own resume,
    which waits for this one (``Cluster.following``), brings all of that shard back."""
    store = mgr.store
    mine = mgr.own_shards()

    def owned(guild_id: int) -> bool:
        return mgr.owns(guild_id) and (mine is None or mine.holds(guild_id))

    await close_left_open(mgr, mine, owned)
    # only those not already here (a lobby over a match in play gives way: _lobby_over)
    report = await resume_all(
        store, rebuild_table, backoff=mgr.store_backoff, shards=mine,
        keep=lambda g: owned(g.match.guild_id) and (_free(mgr, g) or _lobby_over(mgr, g) is not None))
    for a in report.aborted:
        log.warning("match %s aborted on resume: %s", a.game.match_id, a.reason)
        await _unrestorable(mgr, a.game)
    for r in report.resumed:
        try:
            rec = await retrying(functools.partial(TableRecorder.resume, store, r.game, r.table),
                                 f"catching up match {r.game.match_id}", mgr.store_backoff)
            meta, messages = await _meta(mgr, r.game.match_id)
            lt, end = _live_table(r.game, meta, rec)
        except Exception:
            log.exception("match %s: could not resume", r.game.match_id)
            await retrying(functools.partial(store.abort_match, r.game.match_id, "resume failed"), "aborting",
                           mgr.store_backoff)
            await _unrestorable(mgr, r.game)
            continue
        if not await _make_room(mgr, r.game):  # (a start in its channel went on meanwhile)
            continue
        await _take_over(mgr, lt, messages, end)
    await _restore_votes(mgr, {r.game.match_id for r in report.resumed})
    await _restore_lobbies(mgr, mine, owned)
    mgr.servers_left()  # a server the bot was removed from meanwhile ends its tables (once the gateway has said: .gone)


def _free(mgr: TableManager, game: Any) -> bool:
    """Whether a stored active match is no table's in this process: not playing here, and its channel holds no
    table here (a lobby that is starting, maybe this very match between its record and its first hand, or a lobby
    whose start replaces an unplayed match there: a reread during a Start must not drive that match twice)."""
    return game.match_id not in mgr.by_id and game.match.channel_id not in mgr.by_channel


def _lobby_over(mgr: TableManager, game: Any) -> LiveTable | None:
    """The open lobby (not starting) of this process in the channel of ``game``, a match really in play (it started
    a hand) that no table here drives: a lobby opened while that match was not played here (its table let go to be
    read again, say). That lobby can never start there (``channel_busy``), and the players of the match wait on it:
    the match takes its channel back (:func:`_make_room`). A match that never started a hand stays the lobby's (a
    start whose answer was lost: that lobby's Start takes it, replaces it or closes with it)."""
    lt = mgr.by_channel.get(game.match.channel_id)
    if lt is None or lt.state is not State.LOBBY or not game.hands or game.match_id in mgr.by_id:
        return None
    return lt


async def _make_room(mgr: TableManager, game: Any) -> bool:
    """Whether the channel of a match being resumed is free for it now; a lobby over that match in play
    (:func:`_lobby_over`) is closed first: forgotten by the store, its players free, its message saying that the
    match in play is back (they open a new table once it is over). Never two tables in one channel."""
    lobby = _lobby_over(mgr, game)
    if lobby is not None:
        async with lobby.lock:
            if lobby.state is State.LOBBY and mgr.by_channel.get(lobby.channel_id) is lobby:
                try:
                    await retrying(functools.partial(delete_lobby, mgr.store, lobby.channel_id), "forgetting a lobby",
                                   mgr.store_backoff, tries=3)
                except Exception as e:  # (a start-up forgets it: the channel has a match in play then)
                    log.warning("lobby in %s: stays stored until the next start-up: %s", lobby.channel_id, e)
                log.warning("lobby in %s closed: match %s is in play there", lobby.channel_id, game.match_id)
                mgr._close_lobby(lobby, "tables.lobby_gave_way")
    return _free(mgr, game)


async def close_left_open(mgr: TableManager, mine: Shards | None = None,
                          owned: Callable[[int], bool] | None = None) -> None:
    """Close every match of this process's servers (``mine``, ``owned``: see :func:`resume_tables`; by default the
    servers it drives now) that ended while the bot was stopped before it had closed its messages
    (``Store.games_left_open``: ``/table end`` or a dissolve stored, or the last hand settled, then a kill or a
    restart during a Discord outage): the last hand's result if it never went out, the end said (a match ended
    early), the summary, every control removed. Before the unfinished matches are resumed: no table of this run is
    in its channel yet."""
    games = await retrying(functools.partial(mgr.store.games_left_open, mine), "reading the matches left open",
                           mgr.store_backoff)
    owned = owned or mgr.owns
    for game in games:
        if not owned(game.match.guild_id) or game.match_id in mgr.by_id or game.match_id in mgr.closing_out:
            continue  # (another process's server, or a match this run closes itself)
        meta: dict[str, Any] = {}
        messages: dict[str, Any] = {}
        try:
            meta, messages = await _meta(mgr, game.match_id)
            table = rebuild_table(game)
            mismatch = hash_mismatch(game, table)
            if mismatch is not None:
                raise ValueError(mismatch)
            rec = TableRecorder(mgr.store, game.match_id, table, [json.loads(a.action) for a in game.actions])
            lt, end = _live_table(game, meta, rec)
            _messages_into(mgr, lt, messages, taken_over=False)
            unseen = _unseen(lt, end, messages)
            finished = game.match.status == "finished"
            said = finished or bool(messages.get("end"))  # (a match that finished did not end early)
            async with lt.lock:
                if unseen:
                    mgr._post(lt, *await mgr._announcements(lt, unseen))
                await mgr._close(lt, None if said else t("tables.closed_unsaid", lt.lang),
                                 "match_over" if finished else "table_closed", summary=not messages.get("summary"))
        except Exception:
            log.exception("match %s: could not be closed", game.match_id)
            await _unrestorable(mgr, game, meta, messages, key="tables.closed_unsaid")


async def _unrestorable(mgr: TableManager, game: Any, meta: dict[str, Any] | None = None,
                        messages: dict[str, Any] | None = None, *, key: str = "tables.unrestorable") -> None:
    """A match that could not be rebuilt: its channel told (``key``; unless its end was said), the controls of its
    stored messages removed and the list forgotten (kept while a removal still fails: the next start tries again)."""
    try:
        if meta is None or messages is None:
            meta, messages = await _meta(mgr, game.match_id)
        if not messages.get("end"):
            lang = bot_meta(meta, game.settings).get("lang") or "zh"
            if await mgr.publisher.say_closed(game.match.channel_id, t(key, lang)):
                await mgr.publisher.mark_stored(game.match_id, {"end": 1})
        if not await mgr.publisher.strip_stored(game.match.channel_id, messages):
            return
        await retrying(lambda: mgr.publisher.closed_out(game.match_id), "forgetting the messages of a match",
                       mgr.store_backoff, tries=3)
    except Exception as e:
        log.warning("match %s: its messages could not be closed: %s", game.match_id, e)


async def _restore_votes(mgr: TableManager, resumed: set[int]) -> None:
    """Each resumed match's open dissolve vote, with the deadline it had (lapsed while down: it ends now)."""
    votes = await retrying(lambda: open_votes(mgr.store), "reading the votes", mgr.store_backoff)
    for match_id, (held, vote) in votes.items():
        lt = mgr.by_id.get(match_id)
        if lt is None or match_id not in resumed:
            continue
        try:
            await mgr.restore_vote(lt, held, vote)
        except Exception:
            log.exception("match %s: its vote could not be restored", match_id)


async def _restore_lobbies(mgr: TableManager, mine: Shards | None, owned: Callable[[int], bool]) -> None:
    """Every stored lobby of this process's servers (see :func:`resume_tables`) open again, in its channel, with its
    seats, host, settings and message (whose buttons name the channel, so they work as before). A lobby whose
    channel has a match in play is forgotten and its message loses its buttons: it was started (a stop between the
    start's match and the lobby's removal), or opened while that match was not played here; the match wins."""
    stored = await retrying(lambda: lobbies(mgr.store, mine), "reading the lobbies", mgr.store_backoff)
    for guild_id, channel_id, state in stored:
        if not owned(guild_id) or channel_id in mgr.by_channel \
                and mgr.by_channel[channel_id].state in (State.LOBBY, State.STARTING):
            continue  # another process's server, or a lobby open here already (or starting: its start drops it)
        try:
            lt = LiveTable.from_lobby_state(guild_id, channel_id, state)
            if channel_id in mgr.by_channel:
                _close_lobby_message(mgr, lt, mgr.by_channel[channel_id])
                raise ValueError("the channel has a match in play")
            get_variant(lt.variant)
            humans = [s.user_id for s in lt.seats if s is not None and s.user_id is not None]
            if not humans or any(mgr.by_player.get(u, channel_id) != channel_id for u in humans):
                raise ValueError("no player, or a player seated elsewhere")
        except Exception as e:
            log.warning("lobby in %s not restored: %s", channel_id, e)
            try:
                await retrying(functools.partial(delete_lobby, mgr.store, channel_id), "forgetting a lobby",
                               mgr.store_backoff, tries=3)
            except Exception as e2:
                log.warning("lobby in %s: could not be forgotten: %s", channel_id, e2)
            continue
        mgr.by_channel[channel_id] = lt
        for u in humans:
            mgr.by_player[u] = channel_id


def _close_lobby_message(mgr: TableManager, lobby: LiveTable, match: LiveTable) -> None:
    """The message of a stored lobby forgotten under the match in play in its channel loses its buttons and says
    why: the match started (its lineup is the lobby's), or the match in play there is back."""
    lineup = [s and (s.user_id, s.ai) for s in lobby.seats]
    started = lineup == [s and (s.user_id, s.ai) for s in match.seats]
    mgr.publisher.close_lobby(lobby, t("tables.started" if started else "tables.lobby_gave_way", lobby.lang))


async def _meta(mgr: TableManager, match_id: int) -> tuple[dict[str, Any], dict[str, Any]]:
    return await retrying(lambda: mgr.store.match_meta(match_id), f"reading match {match_id}", mgr.store_backoff)


def _messages_into(mgr: TableManager, lt: LiveTable, messages: dict[str, Any], *, taken_over: bool = True) -> None:
    """Where the run before left the table's messages: the table message, each seat's DM with controls (kept when
    ``taken_over`` and still the current decision), the superseded ones still to fix (fixed now), and what of a
    match's end went out."""
    lt.said = {k: int(messages[k]) for k in ("end", "summary") if k in messages}
    table_msg = messages.get("table")
    if table_msg:
        lt.message_id = int(table_msg[1])  # replaced (deleted) by the fresh table message below
        if messages.get("result"):  # unless it is a hand's result card: kept, without its controls
            mgr.publisher.results.add(lt.id)
    if messages.get("leftovers"):  # superseded while the previous run was stopped: finished now
        mgr.publisher.strip_leftovers(lt, messages["leftovers"])
    for key, (ch, mid, since) in (messages.get("dm") or {}).items():
        s = lt.seats[int(key)]
        if s is None:
            continue
        s.dm_controls, s.dm_since = (int(ch), int(mid)), since
        tb = lt.table
        if not taken_over:
            s.dm_head = ""  # its controls go with a line saying why (over_text)
        elif tb is not None and since == lt.since[int(key)] and tb.phase in ("play", "claim", "rob") \
                and int(key) in tb.awaited():
            s.dm_last = s.dm_controls  # still the current decision: its buttons stay, no new DM
            s.dm_key = mgr.dm_key(lt, int(key))


async def _take_over(mgr: TableManager, lt: LiveTable, messages: dict[str, Any], end: list[Event]) -> None:
    _messages_into(mgr, lt, messages)
    unseen = _unseen(lt, end, messages)
    for s in lt.seats:
        if s is not None and s.user_id is not None and s.user_id not in mgr.by_player:
            mgr.by_player[s.user_id] = lt.channel_id
    mgr.by_channel[lt.channel_id] = lt
    mgr.by_id[lt.id] = lt
    async with lt.lock:
        lt.follow_engine()  # resumed: the engine's phase says where it stands
        if lt.state is not State.FINISHED:
            mgr.publisher.post(lt, t("tables.resumed", lt.lang))
        try:
            await mgr._play_on(lt, unseen, fresh=True)  # (a result that never went out is shown now)
        except Exception as e:
            await mgr._pause(lt, e)
