"""What players see of a table, built under its lock and handed to the publisher: announcements and score cards,
the table message, each human seat's private hand (superseded controls removed), the match's summary. A mixin of
:class:`~bot.tables.manager.TableManager`; no Discord here either (the publisher sends)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

import render
from bot.observe import Observers
from bot.posting import MESSAGE_LIMIT
from bot.seams import TableUI
from bot.store import Store
from bot.store.resume import retrying
from engine.table import Event

from . import scenes
from .announce import announcements
from .publisher import HandPayload, Png, TablePayload
from .state import LiveTable, State
from .strings import shown_name, t

if TYPE_CHECKING:
    from .publisher import Publisher

log = logging.getLogger(__name__)

PLAYING = ("play", "claim", "rob")
AWAY = "away"  # a seat's dm_key is (AWAY, why) once its hand message says the AI plays it (come_back clears it)
RESULT_TEXT = 1600  # a hand's result text longer than this is posted, not written into the table message
PNG_STUB = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00:~\x9bU"
            b"\x00\x00\x00\nIDATx\x9cc`\x00\x00\x00\x02\x00\x01H\xaf\xa4q\x00\x00\x00\x00IEND\xaeB`\x82")


class Output:
    """The output half of the table manager (see :class:`~bot.tables.manager.TableManager` for the attributes)."""

    render_images: bool
    observers: Observers
    publisher: Publisher
    ui: TableUI | None
    by_id: dict[int, LiveTable]
    store_backoff: tuple[float, ...]
    clock: Callable[[], float]  # the event loop's time: what the table's deadlines are on

    if TYPE_CHECKING:  # the manager's
        @property
        def store(self) -> Store: ...

    def delays(self, lt: LiveTable) -> tuple[float, float, float]:
        raise NotImplementedError

    def _arm_timer(self, lt: LiveTable) -> None:
        raise NotImplementedError

    async def _closing(self, lt: LiveTable) -> None:
        raise NotImplementedError

    def _close_out(self, lt: LiveTable) -> None:
        raise NotImplementedError

    def _forget(self, lt: LiveTable) -> None:
        raise NotImplementedError

    async def _render(self, kind: str, scene: Any, lang: str, public: bool, lt: LiveTable,
                      user: int | None = None) -> bytes:
        seq = lt.table.seq if lt.table is not None else -1
        self.observers.emit("table_image", kind=kind, scene=scene, seq=seq, public=public, user=user)
        if not self.render_images:
            return PNG_STUB
        renderers: dict[str, Callable[..., bytes]] = {
            "table": render.render_table, "hand": render.render_hand, "score": render.render_score,
            "match": render.render_match}
        fn = renderers[kind]
        return await asyncio.to_thread(fn, scene, "dark", lang)

    async def _publish(self, lt: LiveTable, events: list[Event], *, fresh: bool = False) -> None:
        """Everything players must see after a batch of events: announcements and score cards, the table message,
        private hands (superseded controls removed); then the timer, and at the match's end the summary."""
        tb = lt.table
        assert tb is not None
        text, files, shows = await self._announcements(lt, events)
        started = any(e.type == "hand_start" for e in events)
        ended = shows is not None
        if shows is not None and not started and tb.phase == "ended" and len(text) <= 1 and len(
                text[0] if text else "") <= RESULT_TEXT:
            # the hand's result is written into the table message in place (one edit instead of a post, a re-post
            # and a delete); it stays in the channel when the next hand's table is posted. The match's last result
            # is a post: a restart that did not note it posts it again, and its nonce makes that the same post
            self.publisher.result_parts[lt.id] = (text[0] if text else "", files, shows)
            text, files, ended = [], [], False
        else:
            self._post(lt, text, files, shows)
        # a new hand or a finished one posted above: the table goes to the bottom of the channel again
        fresh = fresh or started or ended
        await self._table_message(lt, fresh=fresh)
        await self._send_hands(lt)
        self._arm_timer(lt)
        if lt.state is State.FINISHED and self.by_id.get(lt.id) is lt:  # once: forgotten right after
            await self._closing(lt)
            await self._summary(lt)
            self._forget(lt)
            self.publisher.strip_table_message(lt)
            self._close_out(lt)

    async def _announcements(self, lt: LiveTable, events: list[Event]) -> tuple[list[str], list[Png], int | None]:
        """(messages, score cards, the hand whose result they show, if one ended) of a batch of events."""
        text, cards = announcements(lt, events)
        files = [Png(await self._render("score", scene, lt.lang, True, lt), name) for name, scene in cards]
        ends = [e.data["hand_no"] for e in events if e.type == "hand_end"]
        return text, files, ends[-1] if ends else None

    def _post(self, lt: LiveTable, text: list[str], files: list[Png], shows: int | None = None) -> None:
        """Post announcements, the score cards with the last message; ``shows``: the hand whose result they show
        (marked on the last message: a restarted bot does not show it again, :meth:`Publisher.post`)."""
        marks = None if shows is None else {"shown": shows}
        for i, chunk in enumerate(text):
            last = i == len(text) - 1
            self.publisher.post(lt, chunk, files if last else None, marks=marks if last else None)
        if files and not text:
            self.publisher.post(lt, "", files, marks=marks)

    async def _summary(self, lt: LiveTable) -> None:
        """The match's final 子 as the ledger has them, with the match chart."""
        tb = lt.table
        if tb is None:
            return
        try:
            m = await retrying(lambda: self.store.match(lt.id), "reading the totals", self.store_backoff,
                               tries=4)
            totals = [s.total for s in sorted(m.seats, key=lambda s: s.seat)]
        except Exception as e:  # the ledger cannot be read: the settled hands' sum is what it holds
            log.warning("table %s: totals read from the engine (%s)", lt.id, e)
            totals = [sum(d[c] for d in lt.deltas) for c in range(4)]
        names = lt.names()
        unit = t("tables.unit", lt.lang)
        text = t("tables.summary", lt.lang, lines=" · ".join(f"{shown_name(names[c])} {totals[c]:+d} {unit}"
                                                           for c in range(4)))
        if lt.deltas and lt.humans():  # where each player finds the AI's review of their decisions in the match
            from engine.replay import encode_code

            text += "\n" + t("tables.summary_review", lt.lang, cmd="/" + t("replay.name", lt.lang),
                             code=encode_code(lt.id, len(lt.deltas) - 1), button=t("memory.match_review", lt.lang))
        files = []
        if lt.deltas:
            from render.scene import MatchScene

            scene = MatchScene.from_deltas(names, lt.deltas, title=scenes.variant_title(lt))
            files.append(Png(await self._render("match", scene, lt.lang, True, lt), f"match-{lt.id}.png"))
        self.publisher.post(lt, text, files, marks={"summary": 1})

    def _next_hand_in(self, lt: LiveTable) -> float:
        """Seconds until the timer deals the next hand: the time left to the deadline kept since the hand's end
        (:attr:`LiveTable.deadlines`; a table message edited between hands does not promise the full delay again),
        or the full delay while none is set yet (the hand has just ended: the timer is armed after this message) or
        while every human is away (no timer runs then: I'm back starts the full delay, which the message promises)."""
        _, _, nxt = self.delays(lt)
        tb = lt.table
        at = lt.deadlines.get(("next", tb.seq)) if tb is not None and not lt.everyone_away() else None
        return nxt if at is None else max(0.0, at - self.clock())

    async def _table_message(self, lt: LiveTable, *, fresh: bool = False) -> None:
        tb = lt.table
        assert tb is not None
        scene = scenes.table_scene(lt, tb.view(None))
        png = await self._render("table", scene, lt.lang, True, lt)
        content = scenes.status_text(lt, self._next_hand_in(lt))
        view = self.ui.table_view(lt) if self.ui else None
        table = Png(png, f"table-{lt.id}.png")
        if tb.phase in PLAYING:
            self.publisher.result_parts.pop(lt.id, None)
        result = self.publisher.result_parts.get(lt.id)
        if result is not None:  # between hands: the result card (score cards; a drawn hand: the final table)
            head, cards, shows = result
            pngs = cards or [table]
            content = f"{head}\n\n{content}"[:MESSAGE_LIMIT] if head else content
            self.publisher.table_message(lt, TablePayload(content, pngs[0], view, fresh, result=True, shows=shows,
                                                          more=pngs[1:]))
            return
        self.publisher.table_message(lt, TablePayload(content, table, view, fresh))

    async def hand_message(self, lt: LiveTable, seat: int, lang: str) -> tuple[str, bytes, Any]:
        """(text, PNG, controls) of a seat's private hand."""
        text, marks = scenes.private_text(lt, seat, lang)
        png = await self.hand_image(lt, seat, lang, marks)
        view = self.ui.hand_view(lt, seat, lang, marks) if self.ui and lt.stall != "error" else None
        return text, png, view

    async def hand_image(self, lt: LiveTable, seat: int, lang: str, marks: frozenset[int] = frozenset(), *,
                         numbered: bool = True) -> bytes:
        """The PNG of a seat's own hand as the table stands (between hands: the hand it ended with, nothing set apart
        but the tile it won with, if it won, nothing numbered); ``marks``: the tiles the hint marks; not ``numbered``: no
        discard numbers even when it may discard (a hand message without controls)."""
        tb = lt.table
        assert tb is not None
        scene = scenes.hand_scene(lt, tb.view(seat), marks)
        if numbered and lt.stall != "error" and any(a.type == "discard" for a in tb.legal_actions(seat)):
            scene = replace(scene, labels=True)  # numbered as its discard buttons (render.discard_numbers)
        return await self._render("hand", scene, lang, False, lt, lt.occupant(seat).user_id)

    def dm_key(self, lt: LiveTable, seat: int) -> Any:
        tb = lt.table
        assert tb is not None
        waiting = seat in tb.awaited() and tb.phase in PLAYING
        return (tb.hand_no, tuple(tb.counts[seat]), len(tb.melds[seat]), lt.since[seat] if waiting else None)

    async def _send_hands(self, lt: LiveTable) -> None:
        tb = lt.table
        assert tb is not None
        if tb.phase not in PLAYING or lt.stall == "error" or lt.closed:
            why = ("paused" if lt.stall == "error" else "match_over" if lt.closed or tb.phase == "over"
                   else "hand_over")
            for c in lt.humans():  # the hand (or the table) is over: no decision is left in any DM
                away = why == "hand_over" and lt.occupant(c).afk  # (still away: what to press to come back)
                # the match over or paused, the AI playing the seat: every player's latest hand message says so (one
                # edit where it does not already). A hand over is told where it had controls only: a player who was
                # waiting keeps "waiting for the others" until the next hand's message (no edit for each player at
                # every hand's end; the table message shows the result and Next). That edit also shows the hand the
                # player ended the hand with: the AI seats may have played on after their last decision, whose
                # picture had the tile they discarded set apart and every tile numbered
                final = await self._final_hand(lt, c)
                self.publisher.strip_dm(lt, c, scenes.over_text(lt, c, "away" if away else why),
                                        reword=away or why != "hand_over", png=final)
            return
        for c in lt.humans():
            s = lt.seats[c]
            assert s is not None and s.user_id is not None
            if s.afk and s.dm_key != (AWAY, s.away):  # the AI plays the seat now: its hand message says so and why,
                # once, again if why changes (also when the player was waiting, no controls). When its latest hand
                # message is of this hand, the same edit shows the hand as the AI takes it over, unnumbered: the
                # picture of the decision it timed out on had the tile the AI then discarded set apart and every tile
                # numbered
                this_hand = s.dm_key is not None and s.dm_key[0] == tb.hand_no and not s.dm_failed
                s.dm_key = (AWAY, s.away)
                taken = Png(await self.hand_image(lt, c, s.lang, numbered=False), "hand.png") if this_hand else None
                self.publisher.strip_dm(lt, c, scenes.over_text(lt, c, "away"), reword=True, png=taken)
            if s.afk:
                continue
            key = self.dm_key(lt, c)
            if key == s.dm_key:
                continue
            new_hand = s.dm_key is not None and s.dm_key[0] != key[0]
            if s.dm_failed and not new_hand and s.dm_key is not None:
                continue  # closed DMs: My hand shows the hand; a DM is tried again at the next hand only
            s.dm_key = key
            text, png, view = await self.hand_message(lt, c, s.lang)
            s.dm_head = text.partition("\n")[0]
            self.publisher.hand(lt, HandPayload(c, s.user_id, text, Png(png, "hand.png"), view, new_hand,
                                                lt.since[c] if view is not None else None, probe=s.dm_failed))

    async def say_back(self, lt: LiveTable, seat: int) -> None:
        """The seat was given back between hands (I'm back, /table autoplay off, the host's restore): its latest hand
        message said the AI plays it (every away seat's does at a hand's end, :meth:`_send_hands`) and, no hand
        message coming until the next deal, kept saying so. It now says the seat is the player's again and that its
        controls come with the next hand's deal, in one edit. Call once the table is published: that same edit shows
        the hand as it ended. During a hand the seat's next hand message says it."""
        tb = lt.table
        s = lt.seats[seat]
        if tb is None or tb.phase != "ended" or lt.closed or s is None or s.dm_failed:
            return
        text = scenes.over_text(lt, seat, "back")
        if text is not None:  # (its picture was the hand as the AI took it over, which may have claimed since)
            self.publisher.strip_dm(lt, seat, text, reword=True,
                                    png=Png(await self.hand_image(lt, seat, s.lang), "hand.png"))

    async def _final_hand(self, lt: LiveTable, seat: int) -> Png | None:
        """The picture of the hand a seat ended the hand with, for its hand message once the hand is over; None
        while a hand is in play (a table paused or closed in the middle of one), for a seat without DMs (My hand
        shows its hand) and when its latest hand message already shows these tiles, unnumbered (it was waiting for
        the others: nothing of its hand changed since)."""
        tb = lt.table
        s = lt.seats[seat]
        if tb is None or tb.phase in PLAYING or s is None or s.dm_failed:
            return None
        if s.afk and s.dm_key == (AWAY, s.away):
            # its hand message said so already, in this hand or an earlier one: no edit is made (saying the final
            # hand of a seat the AI took over in the middle of the hand would be an edit of its own at every such
            # hand's end; the picture stays that of the hand as the AI took it over)
            return None
        _, counts, melds, _ = self.dm_key(lt, seat)
        # the key of its last hand message in the hand just over (whose number the engine has already counted)
        if s.dm_key == (tb.hand_no - 1, counts, melds, None):
            return None
        return Png(await self.hand_image(lt, seat, s.lang), "hand.png")

    async def _dm_changed(self, lt: LiveTable) -> None:
        """A seat's DMs were found delayed (Discord failing) or working again (:class:`Publisher`): the table
        message says who sees their hand by My hand, and a seat whose DMs work again gets its latest hand."""
        async with lt.lock:
            if lt.closed or lt.table is None or self.by_id.get(lt.id) is not lt:
                return
            await self._table_message(lt)
            await self._send_hands(lt)

