"""Table management (issue 15): 托管 (voluntary auto-play), replacing an absent player by the AI and handing the seat
back, removing a player from a lobby, and dissolving (解散) a match by vote. No Discord here.

All of it reuses the away seat of the lifecycle (:attr:`Seat.afk`, played by the AI until "I'm back"): 托管 is an
away seat by the player's choice (``away = "autoplay"``), a replaced player an away seat by the host's
(``away = "replaced"``); either way "I'm back" (or ``/table autoplay off`` / ``/table restore``) gives it back.
Both are stored in the match's bot metadata so a restart keeps them, and every such change is recorded with an
audit row in one transaction (:func:`bot.store.table_admin.record_table_action`) *before* it takes effect: when the
store fails, nothing changes and the player is told so.

Ledger: a match's seats are fixed when it is recorded, so the member who sat down stays the seat's owner and is
credited (or charged) every 子 of it, including hands the AI played for them while away or replaced.

Dissolve: a seated human proposes, the proposer's voice counts as yes; the match is aborted (the hands already
settled stay in the ledger, the hand in play pays nothing) at once when a strict majority of all the seated humans
agree (one human seat: at once). Otherwise the vote runs ``timers.vote`` seconds and at its deadline passes when a
strict majority of the humans who are here or answered agree (:meth:`LiveTable.voters`: a player away counts only
by answering), else it lapses; refusals that put even that out of reach end it early. Only one vote at a time; the
vote message's buttons are removed when it passes, lapses or the table closes. Every step runs under the table's
lock.

The vote message shows the tally after every answer (:func:`vote_text`): who agreed and who refused, and how many
agreeing end it at once. Each stored change sets what it is to say (``Vote.shown``); a click on the message itself
shows it in its own interaction response (``Publisher.answer_vote``), any other change edits it once through the
publisher (``Publisher.show_vote``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from bot.seams import TableUI
from bot.store import Store
from bot.store.lobbies import save_vote
from bot.store.resume import retrying
from bot.store.table_admin import record_table_action
from engine.table import Event

from .publisher import Publisher
from .state import LiveTable, Refusal, Seat, State, Timers, Vote
from .strings import t

log = logging.getLogger(__name__)

#: how many recently ended tables' last votes are remembered (:attr:`Admin.vote_ends`)
ENDED_VOTES_KEPT = 256
VOTE_TASK_NAME = "mjbot-table-timer"  # the vote's expiry is a table timer like the others (tests await it)


def vote_text(lt: LiveTable, vote: Vote, end: str | None = None) -> str:
    """What a dissolve vote's message says: its proposal, who agreed and who refused (their seats' names in seat
    order, escaped like every name of the table's texts) and, while it is open, how many agreeing end it at once
    (:meth:`Vote.needed` of all the seated humans; the rule at the deadline is the proposal's); once over, how it
    ended (the message key ``end``)."""
    lang = lt.lang
    sep = ", " if lang == "en" else "、"

    def names(ids: set[int]) -> str:
        return sep.join(s.name for s in lt.seats if s is not None and s.user_id in ids) or "—"

    lines = [vote.text, t("tables.vote_yes", lang, count=len(vote.yes), names=names(vote.yes)),
             t("tables.vote_no", lang, count=len(vote.no), names=names(vote.no))]
    if end is None:
        humans = len(lt.humans())
        need = vote.needed(humans)
        lines.append(t("tables.vote_need", lang, need=need, n=humans, more=need - len(vote.yes)))
    else:
        lines.append(t(end, lang))
    return "\n".join(x for x in lines if x)


class Admin:
    """The table-management half of :class:`~bot.tables.TableManager` (a mixin: it uses the manager's lock
    discipline, publisher, store and ``ui``)."""

    publisher: Publisher
    timers: Timers
    ui: TableUI | None
    by_player: dict[int, int]
    by_id: dict[int, LiveTable]
    #: how the last vote of each recently ended table ended (its number, the message key, the table's channel), by
    #: match id: a click that comes after the table is gone is told the truth too (bounded: :data:`ENDED_VOTES_KEPT`)
    vote_ends: dict[int, tuple[int, str, int]]
    closing: bool

    if TYPE_CHECKING:  # the manager's own methods
        @property
        def store(self) -> Store: ...
        def _spawn(self, coro: Any, name: str | None = None) -> asyncio.Task[Any]: ...
        def show_lobby(self, lt: LiveTable) -> None: ...
        def _close_lobby(self, lt: LiveTable, key: str) -> None: ...
        async def _end_in_store(self, lt: LiveTable, reason: str) -> None: ...
        async def _close(self, lt: LiveTable, text: str | None, why: str = "table_closed", *,
                         summary: bool = True) -> None: ...
        async def _play_on(self, lt: LiveTable, events: list[Event], *, fresh: bool = False) -> None: ...
        def _live(self, table_id: int) -> LiveTable: ...
        async def back(self, table_id: int, user_id: int) -> None: ...
        async def say_back(self, lt: LiveTable, seat: int) -> None: ...
        async def _pause(self, lt: LiveTable, exc: BaseException) -> None: ...
    store_backoff: tuple[float, ...]
    wall: Callable[[], float]  # Unix time (a vote's deadline outlives the process)
    vote_sleep: Callable[[float], Awaitable[Any]]  # how a vote waits for its deadline

    # ------------------------------------------------------------------------------------------- recording

    async def _drop_lost_start(self, lt: LiveTable) -> None:
        """A lobby going away: the match a start whose answer was lost left, if it landed and never started a hand,
        goes with it (the lobby's ``start_seed`` names it)."""
        if lt.start_seed is not None:
            await self.store.abort_unstarted(lt.guild_id, lt.channel_id, lt.start_seed,
                                             "never played: its lobby was closed")
            lt.start_seed = None

    async def _record(self, lt: LiveTable, by: int, action: str, detail: dict[str, Any],
                      change: Callable[[], Any], undo: Callable[[], Any]) -> None:
        """Apply ``change``, store the table's new metadata (a lobby: the lobby, deleted when no human is left)
        with an audit row; on a store failure undo it and refuse (nothing changed)."""
        change()
        lobby = None
        if lt.state is State.LOBBY:
            lobby = (lt.channel_id, lt.lobby_state() if lt.humans() else None)
        try:
            await record_table_action(self.store, lt.guild_id, by, action, match_id=lt.match_id,
                                      detail=detail, meta=lt.meta() if lt.rec is not None else None, lobby=lobby,
                                      players=lt.players(), adding=())  # it seats no one
        except Exception as e:
            undo()
            log.warning("table %s: %s not recorded: %s", lt.id, action, e)
            raise Refusal("tables.not_recorded") from e

    def _in_play(self, lt: LiveTable) -> None:
        """Refuse unless ``lt`` is a match in play: over (``table_gone``), a lobby or still starting
        (``not_started``: a lobby has no engine table yet, which does not make it over) or paused."""
        if lt.closed:
            raise Refusal("tables.table_gone")
        if not lt.started or lt.table is None:
            raise Refusal("tables.not_started")
        if lt.stall == "error":
            raise Refusal("tables.is_paused")

    async def _after_seat_change(self, lt: LiveTable) -> None:
        """The AI takes over (or gives back) at once: let it act if it is awaited, then publish and re-arm."""
        try:
            await self._play_on(lt, [])
        except Exception as e:
            await self._pause(lt, e)

    # ------------------------------------------------------------------------------------------- 托管

    async def autoplay(self, lt: LiveTable, user_id: int, on: bool) -> None:
        """Hand one's seat to the AI (``on``) or take it back (same as I'm back)."""
        if not lt.closed and not lt.started:  # a lobby has no match id: not "that table is over"
            raise Refusal("tables.not_started")
        if not on:
            await self.back(lt.id if lt.rec else 0, user_id)
            return
        async with lt.lock:
            self._in_play(lt)
            seat = lt.seat_of(user_id)
            if seat is None:
                raise Refusal("tables.not_seated")
            s = lt.seats[seat]
            assert s is not None
            if s.afk:
                raise Refusal("tables.already_auto")
            await self._record(lt, user_id, "autoplay", {"seat": seat}, lambda: s.go_away("autoplay"),
                               s.come_back)
            self.publisher.post(lt, t("tables.autoplay_on", lt.lang, name=s.name))
            await self._after_seat_change(lt)

    # ------------------------------------------------------------------------------------------- replace / restore

    def _seated_in_play(self, lt: LiveTable, target: int) -> tuple[int, Seat]:
        """``target``'s seat number and seat at a table in play (Refusal when the match is not in play or they do
        not sit at it). In a lobby: said so (the seats there are changed with Join, Leave and /table kick)."""
        if not lt.closed and not lt.started:
            raise Refusal("tables.seat_admin_lobby")
        self._in_play(lt)
        seat = lt.seat_of(target)
        if seat is None:
            raise Refusal("tables.target_not_seated")
        s = lt.seats[seat]
        assert s is not None
        return seat, s

    async def replace(self, lt: LiveTable, by: int, target: int) -> str:
        """The AI plays ``target``'s seat until they or the host hand it back. Returns the seat's name."""
        async with lt.lock:
            seat, s = self._seated_in_play(lt, target)
            if s.afk and s.away == "replaced":
                raise Refusal("tables.target_replaced", name=s.name)
            was = (s.afk, s.away)

            def undo() -> None:
                s.afk, s.away = was

            await self._record(lt, by, "replace", {"seat": seat, "member": target}, lambda: s.go_away("replaced"),
                               undo)
            self.publisher.post(lt, t("tables.replaced", lt.lang, name=s.name))
            await self._after_seat_change(lt)
            return s.name

    async def restore(self, lt: LiveTable, by: int, target: int) -> str:
        """Hand a replaced seat back to its player (they play from their next decision on)."""
        async with lt.lock:
            seat, s = self._seated_in_play(lt, target)
            if not (s.afk and s.away == "replaced"):
                raise Refusal("tables.target_not_replaced", name=s.name)
            await self._record(lt, by, "restore", {"seat": seat, "member": target}, s.come_back,
                               lambda: s.go_away("replaced"))
            self.publisher.post(lt, t("tables.restored", lt.lang, name=s.name))
            await self._after_seat_change(lt)
            await self.say_back(lt, seat)
            return s.name

    # ------------------------------------------------------------------------------------------- kick

    async def kick(self, lt: LiveTable, by: int, target: int) -> str:
        """Remove a player from a lobby (not oneself: that is Leave). Returns their name."""
        async with lt.lock:
            if lt.state is not State.LOBBY:  # (in play: what the host can do instead)
                raise Refusal("tables.lobby_gone" if lt.closed else "tables.not_lobby_kick")
            if target == by:
                raise Refusal("tables.kick_self")
            seat = lt.seat_of(target)
            if seat is None:
                raise Refusal("tables.target_not_seated")
            s = lt.seats[seat]
            assert s is not None

            host = lt.host_id

            def change() -> None:
                lt.seats[seat] = None
                if target == lt.host_id and lt.humans():
                    lt.host_id = lt.host_after()

            def undo() -> None:
                lt.seats[seat], lt.host_id = s, host

            await self._record(lt, by, "kick", {"seat": seat, "member": target, "channel": lt.channel_id},
                               change, undo)
            if self.by_player.get(target) == lt.channel_id:
                del self.by_player[target]
            if not lt.humans():  # a manager removed the last player: the lobby closes, as when they leave
                try:
                    await self._drop_lost_start(lt)
                except Exception as e:  # the channel's next start replaces it (it never started a hand)
                    log.warning("lobby in %s: the match of a lost start stays for now: %s", lt.channel_id, e)
                self._close_lobby(lt, "tables.not_started_end")
            else:
                self.show_lobby(lt)
            return s.name

    # ------------------------------------------------------------------------------------------- dissolve

    async def propose_dissolve(self, table_id: int, user_id: int) -> tuple[Vote, bool]:
        """Open a dissolve vote (the proposer agrees). Returns the vote and whether it passed at once (the match is
        then closed). The caller posts the vote message (``vote.shown``) and passes its place to
        :meth:`vote_posted`."""
        lt = self._live(table_id)
        async with lt.lock:
            self._in_play(lt)
            seat = lt.seat_of(user_id)
            if seat is None:
                raise Refusal("tables.not_seated")
            if lt.vote is not None:
                raise Refusal("tables.vote_open")
            vote = Vote(lt.votes + 1, user_id, {user_id}, deadline=self.wall() + self.timers.vote * self.timers.scale)
            vote.text = t("tables.dissolve_vote", lt.lang, name=lt.occupant(seat).name, n=len(lt.humans()),
                          deadline=f"<t:{round(vote.deadline)}:R>")  # (Discord shows it in the reader's time)
            if vote.passes(len(lt.humans())):  # at once only by a majority of everyone seated
                await self._dissolve(lt, vote)
                lt.votes += 1
                return vote, True
            await self._keep_vote(lt, vote, held=lt.votes + 1)  # stored first: a restart keeps it and its minute
            lt.votes += 1
            lt.vote = vote
            self._vote_changed(lt, vote)
            self._arm_vote(lt, vote)
            return vote, False

    async def vote_posted(self, lt: LiveTable, vote: Vote, channel_id: int, message_id: int, text: str) -> None:
        """Where the vote's message is, posted saying ``text`` (its buttons are removed when the vote ends)."""
        async with lt.lock:
            vote.message = (channel_id, message_id)
            if vote.written is None:
                vote.written = (text, False)
            if lt.vote is not vote:  # it ended while the message was being posted
                self.publisher.show_vote(lt, vote)
                return
            with contextlib.suppress(Refusal):  # without it a restarted bot cannot remove its buttons at the end
                await self._keep_vote(lt, vote)
            if vote.written != (vote.shown, vote.end is not None):  # answered meanwhile, not on this message
                self.publisher.show_vote(lt, vote)

    def _vote_changed(self, lt: LiveTable, vote: Vote, end: str | None = None, *, by_click: bool = False) -> None:
        """A change of the vote is stored, or it ended (``end``: how; its buttons go): what its message is to say
        (under the lock). A click on the message itself (``by_click``) shows it in its own answer; else the
        publisher edits the message (once, whatever changed meanwhile)."""
        vote.shown, vote.end = vote_text(lt, vote, end), end
        if end is not None and lt.match_id is not None:
            self.vote_ends.pop(lt.match_id, None)  # (re-inserted: the newest ends are the last to be forgotten)
            self.vote_ends[lt.match_id] = (vote.number, end, lt.channel_id)
            while len(self.vote_ends) > ENDED_VOTES_KEPT:
                del self.vote_ends[next(iter(self.vote_ends))]
        if not by_click and vote.message is not None:
            self.publisher.show_vote(lt, vote)

    # ---- the vote in the store (issue 10: an open vote and its deadline survive a restart)

    async def _keep_vote(self, lt: LiveTable, vote: Vote | None, held: int | None = None) -> None:
        """Store the match's open vote (None: none is open); Refusal ``tables.not_recorded`` when the store fails."""
        assert lt.match_id is not None, "a vote belongs to a match"
        try:
            await save_vote(self.store, lt.match_id, lt.votes if held is None else held,
                            None if vote is None else vote.to_json())
        except Exception as e:
            log.warning("table %s: vote not recorded: %s", lt.id, e)
            raise Refusal("tables.not_recorded") from e

    def _arm_vote(self, lt: LiveTable, vote: Vote) -> None:
        vote.timer = asyncio.get_running_loop().create_task(self._vote_timer(lt, vote), name=VOTE_TASK_NAME)

    def _forget_vote_soon(self, lt: LiveTable) -> None:
        """The vote ended: the store forgets it (in the background; failing, a restart finds it over or lapsed and
        says so again on the same message)."""
        if lt.match_id is None or lt.closed or self.closing:
            return

        async def forget() -> None:
            try:
                await retrying(lambda: self._keep_vote_now(lt), "forgetting a vote", self.store_backoff, tries=3)
            except Exception as e:
                log.warning("table %s: the ended vote stays stored: %s", lt.id, e)
        self._spawn(forget())

    async def _keep_vote_now(self, lt: LiveTable) -> None:
        async with lt.lock:
            assert lt.match_id is not None, "a vote belongs to a match"
            await save_vote(self.store, lt.match_id, lt.votes, None if lt.vote is None else lt.vote.to_json())

    async def restore_vote(self, lt: LiveTable, held: int, stored: dict[str, Any] | None) -> None:
        """After a restart: the match's open vote back, its buttons working, its message written once with the
        stored tally; lapsed while the bot was down, it ends now (its message says so, once). A vote found past its deadline lapses: who was here at the deadline is
        not known after a restart (a timeout's away is not kept), and a vote whose minute ended before the stop may
        have lapsed then already, its message saying so, with only its removal from the store lost."""
        async with lt.lock:
            lt.votes = max(lt.votes, held)
            if stored is None or lt.closed or lt.vote is not None:
                return
            vote = Vote.from_json(stored)
            lt.vote = vote
            vote.shown = vote_text(lt, vote)
            if vote.deadline <= self.wall() or not vote.can_pass(len(lt.humans())):
                self._drop_vote(lt, "tables.vote_expired")
            else:
                self._arm_vote(lt, vote)
                # its message may not show the stored tally (an answer stored just before a kill, its click's
                # response lost): written once now (the store does not keep what the message says)
                self.publisher.show_vote(lt, vote)

    async def cast_vote(self, table_id: int, number: int, user_id: int, yes: bool,
                        on: tuple[int, int] | None = None) -> Vote:
        """A seated human's answer to vote ``number``, clicked on the message ``on`` (channel, message). Returns
        the vote: ``vote.shown`` is what its message says now (``vote.end``: how it ended; the match is dissolved when
        it passed). When ``on`` is the vote's message the caller shows the change in the click's answer
        (``Publisher.answer_vote``); otherwise the publisher edits the vote message."""
        lt = self.by_id.get(table_id)
        if lt is None:
            raise Refusal(self.vote_ended(table_id, number, None if on is None else on[0]))
        async with lt.lock:
            vote = lt.vote
            if lt.closed or vote is None or vote.number != number:
                raise Refusal(self.vote_ended(table_id, number, lt.channel_id))
            if lt.seat_of(user_id) is None:
                raise Refusal("tables.not_seated")
            if user_id in vote.yes or user_id in vote.no:
                raise Refusal("tables.voted_already")
            if vote.message is None and on is not None:  # its post was not confirmed: the clicked message is it
                vote.message = on
            here = on is not None and vote.message == on
            if not yes:
                vote.no.add(user_id)
                humans = len(lt.humans())  # out of reach even if every other player agrees or stays away
                try:  # stored first (a vote this no ends is stored as over: a restart never reopens it)
                    await self._keep_vote(lt, vote if vote.can_pass(humans) else None)
                except Refusal:
                    vote.no.discard(user_id)
                    raise
                if not vote.can_pass(humans):
                    self._drop_vote(lt, "tables.vote_failed", by_click=here)
                else:
                    self._vote_changed(lt, vote, by_click=here)
                return vote
            vote.yes.add(user_id)
            humans = len(lt.humans())
            try:
                if vote.passes(humans):
                    await self._dissolve(lt, vote, by_click=here)
                    return vote
                await self._keep_vote(lt, vote)
            except Refusal:
                vote.yes.discard(user_id)
                raise
            self._vote_changed(lt, vote, by_click=here)
            return vote

    def vote_ended(self, table_id: int, number: int, channel_id: int | None) -> str:
        """What a click on vote ``number`` of the table ``table_id``, no longer open (a click that lost the race to
        the deciding one, or came after the table was gone), is told in the channel ``channel_id``: that it passed
        (the match was dissolved) or that the table ended with it, as :attr:`vote_ends` says; else (it failed or
        lapsed, an older vote, a table ended long ago, a forged id elsewhere) that it is over and nothing changed."""
        ended = self.vote_ends.get(table_id)
        if ended is not None and ended[0] == number and ended[2] == channel_id and ended[1] in (
                "tables.vote_passed", "tables.vote_table_closed"):
            return ended[1]
        return "tables.vote_over"

    async def _vote_timer(self, lt: LiveTable, vote: Vote) -> None:
        wait, n = max(0.0, vote.deadline - self.wall()), 0
        while True:
            await self.vote_sleep(wait)
            async with lt.lock:
                if lt.vote is not vote or lt.closed or await self._vote_due(lt, vote):
                    return
            wait, n = self.store_backoff[min(n, len(self.store_backoff) - 1)], n + 1

    async def _vote_due(self, lt: LiveTable, vote: Vote) -> bool:
        """The vote's minute is up (under the lock): it passes when a strict majority of the humans who are here or
        answered agree (:meth:`LiveTable.voters`), else it lapses. False: the store did not take the dissolve (the
        vote stays open; the caller tries again)."""
        if not vote.passes(lt.voters(vote)):
            self._drop_vote(lt, "tables.vote_expired")
            return True
        try:
            await self._dissolve(lt, vote)
        except Refusal:
            return False
        return True

    def _drop_vote(self, lt: LiveTable, key: str = "tables.vote_over", *, by_click: bool = False) -> None:
        """End the open vote (if any): its timer stops and its message loses its buttons, saying ``key`` (in the
        answer to the click that ended it when ``by_click``)."""
        vote, lt.vote = lt.vote, None
        if vote is None:
            return
        if vote.timer is not None and vote.timer is not asyncio.current_task():
            vote.timer.cancel()
        self._vote_changed(lt, vote, key, by_click=by_click)
        self._forget_vote_soon(lt)

    async def _dissolve(self, lt: LiveTable, vote: Vote, *, by_click: bool = False) -> None:
        """The vote passed (under the lock): audited first (a store failure refuses, nothing changes), then the
        match is aborted like ``/table end``: settled hands stay, the hand in play pays nothing."""
        if not vote.audited:
            try:
                await record_table_action(self.store, lt.guild_id, vote.by, "dissolve", match_id=lt.match_id,
                                          detail={"yes": sorted(vote.yes)})
            except Exception as e:
                log.warning("table %s: dissolve not recorded: %s", lt.id, e)
                raise Refusal("tables.not_recorded") from e
            vote.audited = True
        await self._end_in_store(lt, "dissolved by vote")  # (a Refusal: the vote stays open, nothing changed)
        if lt.vote is vote:
            lt.vote = None
            if vote.timer is not None and vote.timer is not asyncio.current_task():  # (its deadline: it ends itself)
                vote.timer.cancel()
        self._vote_changed(lt, vote, "tables.vote_passed", by_click=by_click)
        names = ", ".join(s.name for s in lt.seats if s is not None and s.user_id in vote.yes)
        await self._close(lt, t("tables.dissolved", lt.lang, names=names))
