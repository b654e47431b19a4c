"""The answer to a click on a table's control (a mixin of :class:`~bot.tables.publisher.Publisher`): one call,
:meth:`ClickAnswers.answer_click` (:meth:`ClickAnswers.answer_vote` for a dissolve vote's buttons), so that the cog
hands over the click and the move and never works inside the publisher or on a seat's messages itself.

A move is usually decided at once: its answer then edits the clicked message itself, in the interaction's response
(exempt from Discord's global budget), and the private hand write the publisher would have sent for it is taken out
of its queue. A slow decision (a stalled store) is deferred within Discord's 3 seconds. When the answer does not
reach Discord, the hand goes by DM as usual. A vote's answer shows the vote's new tally on its message the same way
(in the response; one edit by the publisher when that fails).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

import discord

from .state import LiveTable, Vote

log = logging.getLogger(__name__)

T = TypeVar("T")


async def _outcome(work: Awaitable[T]) -> tuple[T | None, BaseException | None]:
    """(result, None) or (None, the error): the error is raised where the result is awaited, not in its task."""
    try:
        return await work, None
    except Exception as e:
        return None, e


@dataclass(frozen=True)
class Strip:
    """A seat's controls must go (it has nothing left to decide), and its hand message's text, when given, says why
    instead of the decision it asked for ("your turn" stayed on a hand message after its hand was over); ``png``,
    when given, is the hand the seat ended the hand with: the edit of the latest hand message that removes its
    controls or rewords it shows that picture too, in the same request (its picture of the decision before, 14 tiles
    numbered for discarding, stayed on it after the AI seats played the hand out)."""

    text: str | None = None
    reword: bool = False  # the text goes on the latest hand message even when it has no controls (a player waiting
    #                       for the others: the AI plays their seat now, or why changed; the match or table ended)
    png: Any = None  # the publisher's Png of the seat's hand as the hand ended (None: the picture stays)


class ClickAnswers:
    """Answering a click with the clicker's new hand (mixed into the publisher)."""

    if TYPE_CHECKING:  # the publisher's own methods
        def hold(self, lt: LiveTable, seat: int) -> None: ...
        def release(self, lt: LiveTable, seat: int) -> None: ...
        def take_hand(self, lt: LiveTable, seat: int, where: tuple[int, int]) -> Any: ...
        def result_answered(self, lt: LiveTable, message_id: int) -> bool: ...
        def image_shown(self, lt: LiveTable, seat: int, where: tuple[int, int], png: Any) -> bool: ...
        def picture_shown(self, lt: LiveTable, seat: int, png: Any) -> bool: ...
        def showing(self, lt: LiveTable, seat: int, where: tuple[int, int], png: Any) -> None: ...
        def answer_failed(self, lt: LiveTable, message_id: int) -> None: ...
        def strip_dm(self, lt: LiveTable, seat: int, text: str | None = None, *, reword: bool = False,
                     png: Any = None) -> None: ...
        def hand(self, lt: LiveTable, payload: Any) -> None: ...
        def show_vote(self, lt: LiveTable, vote: Vote) -> None: ...
        @staticmethod
        async def write_vote(vote: Vote, edit: Callable[..., Awaitable[Any]]) -> bool: ...

    async def answer_click(self, interaction: discord.Interaction[Any], table: Callable[[], LiveTable | None],
                           move: Awaitable[T], within: float) -> T:
        """Make the clicked ``move`` and answer the click on a table control (``table()``: the clicked table now,
        None when it is gone). While the move is decided the clicker's private hand write is held; a decision
        slower than ``within`` seconds is deferred. A refused move (its error is raised here) releases the hold.
        Then the clicked message shows the clicker's new hand (once the hand is over: the hand it ended with, without
        controls); a click on
        an ephemeral "My hand" panel is left to the caller, which redraws the panel. Returns the move's result."""
        lt = table()
        msg = interaction.message
        me = None if lt is None else lt.seat_of(interaction.user.id)
        held = lt is not None and me is not None and msg is not None and not msg.flags.ephemeral
        if held:
            assert lt is not None and me is not None
            self.hold(lt, me)
        work = asyncio.ensure_future(_outcome(move))
        try:
            done, _ = await asyncio.wait([work], timeout=within)
            if not done and not interaction.response.is_done():  # a routed click comes deferred (bot.cluster)
                try:
                    await interaction.response.defer()
                except discord.HTTPException as e:
                    # the click's token is dead (404 Unknown interaction) or Discord failed: the move goes on, and
                    # its answer falls back to the DM write below (it raised here: the hold stayed, the DM never
                    # got the player's next controls, and the player read "that did not work")
                    log.info("table %s: deferring a slow click failed (%s)", None if lt is None else lt.id, e)
            outcome, error = await work
        except BaseException:
            if held:
                assert lt is not None and me is not None
                self.release(lt, me)
            raise
        if error is not None:
            if held:
                assert lt is not None and me is not None
                self.release(lt, me)
            raise error
        if msg is None or not msg.flags.ephemeral:
            # the table as it is now; the one clicked when the move closed it (the match's last hand): its held
            # writes (the controls going) are still this click's to show
            after = table()
            await self._answer_with_hand(interaction, lt if after is None and held else after)
        return cast(T, outcome)  # no error: the move's own result

    async def _answer_with_hand(self, interaction: discord.Interaction[Any], lt: LiveTable | None) -> None:
        """Show the clicker's hand after their move on the clicked DM message itself, in the interaction response:
        the private hand write the publisher would have sent is taken out of its queue."""
        msg = interaction.message
        seat = None if lt is None else lt.seat_of(interaction.user.id)
        p: Any = None  # the publisher's HandPayload, a Strip (the hand is over) or None (nothing taken)
        where: tuple[int, int] | None = None
        if lt is not None and seat is not None and msg is not None and interaction.channel_id is not None:
            where = (interaction.channel_id, msg.id)
            p = self.take_hand(lt, seat, where)
        elif lt is not None and seat is not None:
            self.release(lt, seat)
        try:
            if p is None and lt is not None and msg is not None and self.result_answered(lt, msg.id):
                # Next on a hand's result card: the card stays, its controls go in this answer (exempt)
                if interaction.response.is_done():
                    await interaction.edit_original_response(view=None)
                else:
                    await interaction.response.edit_message(view=None)
                return
            if p is None:
                if not interaction.response.is_done():
                    await interaction.response.defer()
                return
            # a hand to show: it was taken for this seat and message
            assert lt is not None and seat is not None and where is not None
            png = p.png
            if isinstance(p, Strip):  # the hand is over: its controls go, its picture is the hand as it ended
                kw: dict[str, Any] = {"view": None} if p.text is None else {"view": None, "content": p.text}
                if png is not None and self.picture_shown(lt, seat, png):
                    png = None  # (on this message, or on the one just above it)
            else:
                kw = {"content": p.content, "view": p.view}
                if self.image_shown(lt, seat, where, png):
                    png = None
            if png is not None:
                kw["attachments"] = [png.file()]
            if interaction.response.is_done():
                await interaction.edit_original_response(**kw)
            else:
                await interaction.response.edit_message(**kw)
            if not isinstance(p, Strip) or png is not None:
                self.showing(lt, seat, where, p.png)
        except discord.HTTPException as e:  # the answer did not reach Discord: the DM is written as usual
            log.info("table %s: click answer failed (%s); the hand goes by DM", None if lt is None else lt.id, e)
            if p is None and lt is not None and msg is not None:
                self.answer_failed(lt, msg.id)
            if isinstance(p, Strip):
                assert lt is not None and seat is not None
                seat_state = lt.seats[seat]
                assert seat_state is not None
                seat_state.dm_controls = where
                self.strip_dm(lt, seat, p.text, reword=p.reword, png=p.png)
            elif p is not None and lt is not None:
                self.hand(lt, p)

    async def answer_vote(self, interaction: discord.Interaction[Any], lt: LiveTable, cast: Awaitable[Vote],
                          within: float) -> tuple[Vote, bool]:
        """Cast the clicked answer to a dissolve vote (``cast``: ``TableManager.cast_vote``, its error raised here)
        and, when the click is on the vote's message, show the vote as it is now on that message in the click's own
        response (UPDATE_MESSAGE: exempt from the global budget, and no other request), in order with every other
        write of the message (``vote.writing``). Whatever is not decided within ``within`` seconds of the click (a
        stalled store, a write of the message on its way) is deferred first. Returns the vote and whether the click
        was answered; if not (the click was not on the vote's message), the caller answers it, and the publisher
        edits the message."""
        until = asyncio.get_running_loop().time() + within
        work = asyncio.ensure_future(_outcome(cast))
        if not (await asyncio.wait([work], timeout=within))[0]:
            await self._defer_update(interaction, lt)
        vote, error = await work
        if error is not None:
            raise error
        assert vote is not None
        msg = interaction.message
        if msg is None or vote.message != (interaction.channel_id, msg.id):
            return vote, False
        try:
            try:
                await asyncio.wait_for(vote.writing.acquire(), max(0.0, until - asyncio.get_running_loop().time()))
            except TimeoutError:
                await self._defer_update(interaction, lt)
                await vote.writing.acquire()
            try:
                if interaction.response.is_done():
                    edit: Callable[..., Awaitable[Any]] = interaction.edit_original_response
                else:
                    edit = interaction.response.edit_message
                if not await self.write_vote(vote, edit) and not interaction.response.is_done():
                    await interaction.response.defer()  # it shows this already: the click is only acknowledged
            finally:
                vote.writing.release()
        except discord.HTTPException as e:  # the answer did not reach Discord: the message is edited as usual
            log.info("table %s: vote click answer failed (%s); the vote message is edited", lt.id, e)
            self.show_vote(lt, vote)
        return vote, True

    async def _defer_update(self, interaction: discord.Interaction[Any], lt: LiveTable) -> None:
        """Acknowledge a click whose answer is slow (its message is updated later); a failure is only logged."""
        if interaction.response.is_done():
            return
        try:
            await interaction.response.defer()
        except discord.HTTPException as e:
            log.info("table %s: deferring a slow vote click failed (%s)", lt.id, e)
