"""Replays: step through one hand of a stored game, as any seat saw it, and the short replay codes that name a hand.

A stored game is what the store keeps of a match: ``Table.new``'s variant, seed, settings and players, and the list
of every action of the match in order (see ``bot/store/tables.py``). :meth:`HandReplay.build` replays the match up
to the wanted hand and records that hand's actions as its **steps**: step ``k`` (1..n) is the hand's k-th action,
"the table at step k" is the table after it, step 0 is the deal. A step names who acted and what they did (a
timeout is shown as what the table did for them).

What a viewer may see (everything here is pure data; the bot decides who the viewer is):

- :meth:`HandReplay.view` ``(k, seat)``: ``Table.view(seat)`` at step k - the seat's own concealed tiles, nobody
  else's, never the wall. ``seat=None``: the public view.
- :meth:`HandReplay.hands` ``(k)``: every seat's concealed tiles at step k ("show all hands"). Only for a hand that
  is over (a hand still in play cannot even be built: ``hand_in_play``).
- :meth:`HandReplay.visible_steps` ``(seat)``: the steps a seat noticed at the table. In a claim window (or a window
  to rob a kong) the answers of the other seats are private, whatever they were (a pass, a pung, a kong, a chi, a win
  call): an answer tells that the seat was offered the tile (it holds a pair of it, or could win on it), and one a
  win overruled never happened at the table. What the window came to is public: its **resolution** (who took the
  tile and how, the win(s), or the hand's end), shown at the window's last step (:meth:`HandReplay.resolves`); a
  window that came to nothing is left out for a seat that did not answer in it. The seat's own answers are in. All
  steps when every hand is shown. :meth:`HandReplay.names_action` says whether a step's action may be named (else
  only its resolution is), :meth:`HandReplay.number` numbers the steps as the seat counts them ("step 23/70": only
  the ones it may see), :meth:`HandReplay.numbered` turns such a number back into the step, and
  :meth:`HandReplay.nearest_visible` turns any raw step number (an old button's, which a client can forge) into one
  it may see.
- :meth:`HandReplay.decisions` ``(seat)``: the steps where the seat chose among more than one legal action (a
  discard, a claim or pass, a kong, a win or not, laying a tile aside in the last four or winning).

Replay codes (回放码): :func:`encode_code` / :func:`decode_code`. A code is the pair (match id, hand number) in
Crockford base32 (digits and capital letters without I L O U; read case-insensitively, ``I``/``L`` as 1 and ``O`` as
0, hyphens and spaces ignored) followed by a check character (Luhn mod 32), so a mistyped character or two swapped
neighbours are caught instead of opening another hand.

>>> encode_code(1, 0)
'0G0G'
>>> decode_code('0g0g'), decode_code(encode_code(123456, 37))
((1, 0), (123456, 37))
"""

from __future__ import annotations

import copy
import unicodedata
from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import EngineError
from .table import Action, Event, Table
from .table.state import HandResult, View
from .tiles import NUM_KINDS

# ------------------------------------------------------------------------------------------------ replay codes

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford base32: no I L O U
_READ = {c: i for i, c in enumerate(ALPHABET)} | {"I": 1, "L": 1, "O": 0}
HAND_BITS = 9  # hands per match < 512 (a Wuhu 底 rarely passes 40 hands; Hefei/Chizhou quan x 4 passes + streaks)
MIN_DIGITS = 3  # codes are at least 4 characters (3 + the check character)


def _check_char(digits: Sequence[int]) -> int:
    """Luhn mod 32 check value of base-32 digit values (most significant first).

    >>> _check_char([0, 16, 0])
    16
    """
    factor, total = 2, 0
    for d in reversed(digits):
        a = d * factor
        total += a // 32 + a % 32
        factor = 1 if factor == 2 else 2
    return (32 - total % 32) % 32


def encode_code(match_id: int, hand_no: int) -> str:
    """The replay code of hand ``hand_no`` (0-based) of match ``match_id``: deterministic, upper case.

    >>> encode_code(42, 3), encode_code(987654, 11)
    ('N03F', 'F2830B9')
    """
    if not (isinstance(match_id, int) and match_id >= 0 and isinstance(hand_no, int) and 0 <= hand_no < 1 << HAND_BITS):
        raise EngineError("replay_code_range", match=match_id, hand=hand_no)
    n = (match_id << HAND_BITS) | hand_no
    digits: list[int] = []
    while n:
        n, r = divmod(n, 32)
        digits.append(r)
    digits = (digits + [0] * MIN_DIGITS)[: max(len(digits), MIN_DIGITS)][::-1]
    return "".join(ALPHABET[d] for d in digits) + ALPHABET[_check_char(digits)]


def decode_code(code: str) -> tuple[int, int]:
    """``(match_id, hand_no)`` of a replay code; raises ``EngineError`` ``replay_code_length`` /
    ``replay_code_char`` / ``replay_code_check`` (catalogue keys ``engine.<code>``).

    >>> decode_code("n03-f"), decode_code("NO3F"), decode_code("Ｎ０３－ｆ")
    ((42, 3), (42, 3), (42, 3))
    >>> decode_code("N03G")
    Traceback (most recent call last):
    ...
    engine.errors.EngineError: 'N03G' is not a replay code: a character is mistyped (the check character does not match)
    >>> decode_code("N0U3F")
    Traceback (most recent call last):
    ...
    engine.errors.EngineError: 'N0U3F' is not a replay code: 'U' is never used in codes
    """
    raw = str(code)
    # a Chinese keyboard's full-width ０Ｇ０Ｇ reads as 0G0G, as a hand's full-width digits do (engine.tiles)
    text = "".join(c for c in unicodedata.normalize("NFKC", raw).strip().upper() if c not in "- ")
    if not 1 + MIN_DIGITS <= len(text) <= 16:
        raise EngineError("replay_code_length", text=raw[:24], n=len(text))
    vals = []
    for c in text:
        if c not in _READ:
            raise EngineError("replay_code_char", text=raw[:24], char=c)
        vals.append(_READ[c])
    digits, check = vals[:-1], vals[-1]
    if _check_char(digits) != check:
        raise EngineError("replay_code_check", text=raw[:24])
    n = 0
    for d in digits:
        n = n * 32 + d
    return n >> HAND_BITS, n & ((1 << HAND_BITS) - 1)


# ------------------------------------------------------------------------------------------------ steps


@dataclass(frozen=True, slots=True)
class Step:
    """One action of the hand. ``index``: 1..n. ``action``: what was done (a timeout resolved to what the table did).
    ``window``: it answered a claim window (any answer there is private to the seat). ``choice``: the seat had more than
    one legal action. ``events``: what the action caused (``Event.for_seat`` hides the private ones). ``by_ai``: the
    AI decided it for a player's seat (away, 托管, replaced; stored with ``"ai": true``)."""

    index: int
    seat: int
    action: Action
    timeout: bool
    window: bool
    choice: bool
    events: tuple[Event, ...]
    by_ai: bool = False

    def private_to_seat(self) -> bool:
        """An answer in a claim window (or a window to rob a kong): a pass, a pung, a kong, a chi or a win call. Only
        the seat knows it was offered the tile; what the window came to is public (:meth:`takes`)."""
        return self.window

    def takes(self) -> bool:
        """The step (a window's last answer) settles the window by a claim or a win: somebody took the tile. A window
        that came to nothing (every answer a pass: the next seat draws, an added kong stands) takes nothing."""
        return any(e.type in ("win", "pung", "chi") or (e.type == "kong" and e.data.get("kind") == "claimed")
                   for e in self.events)


def counted(visible: Sequence[int], k: int) -> int:
    """Step ``k``'s number among the steps a seat may see (``visible``, ascending from 0, the deal): a step not among
    them counts as the one before it that is (:meth:`HandReplay.number`, the review's numbers of its decisions).

    >>> counted([0, 1, 3, 4], 3), counted([0, 1, 3, 4], 2)
    (2, 1)
    """
    return max(bisect_right(visible, k) - 1, 0)


class HandReplay:
    """One finished hand of a stored game, step by step (see the module docstring)."""

    def __init__(self, start: Table, steps: Sequence[Step], hand_no: int, *, final: Table) -> None:
        self._start = start  # the table just dealt (pickled copies are made from it)
        self.steps: tuple[Step, ...] = tuple(steps)
        self.hand_no = hand_no
        self._final = final
        self._cache: tuple[int, Table] | None = None
        self._visible: dict[tuple[int | None, bool], list[int]] = {}

    # ---------------------------------------------------------------------------------------------- building

    @classmethod
    def build(
        cls,
        variant: str,
        seed: int | str,
        settings: Mapping[str, Any] | None,
        actions: Sequence[Action | Mapping[str, Any]],
        hand_no: int,
        players: Sequence[str] = ("AI",) * 4,
        *,
        wall: Sequence[int | str] | None = None,
        dealer: int | None = None,
    ) -> HandReplay:
        """Replay the match's ``actions`` (Action objects or their JSON, as stored) and keep hand ``hand_no``
        (0-based). Raises ``no_such_hand`` when the actions never reach it and ``hand_in_play`` when it has not
        ended. ``wall`` / ``dealer``: as in ``Table.new`` (scripted games)."""
        if not isinstance(hand_no, int) or hand_no < 0:
            raise EngineError("no_such_hand", hand=hand_no)
        t = Table.new(variant, seed, settings, players, wall=wall, dealer=dealer)
        acts, by_ai = _parsed(actions)
        i = 0
        while t.hand_no < hand_no and i < len(acts):
            t.apply(acts[i])
            i += 1
        if t.hand_no < hand_no:
            raise EngineError("no_such_hand", hand=hand_no + 1)
        if t.phase == "ended":  # the hand before has ended: the next action starts ours
            if i >= len(acts):
                raise EngineError("no_such_hand", hand=hand_no + 1)
            t.apply(acts[i])
            i += 1
        if t.hand_no != hand_no or t.phase not in ("play", "claim", "rob"):
            raise EngineError("no_such_hand", hand=hand_no + 1)
        start = copy.deepcopy(t)
        steps: list[Step] = []
        while t.hand_no == hand_no:
            if i >= len(acts):
                raise EngineError("hand_in_play", hand=hand_no + 1)
            steps.append(_play(t, acts[i], len(steps) + 1, by_ai[i]))
            i += 1
        return cls(start, steps, hand_no, final=t)

    @classmethod
    def each(
        cls,
        variant: str,
        seed: int | str,
        settings: Mapping[str, Any] | None,
        actions: Sequence[Action | Mapping[str, Any]],
        players: Sequence[str] = ("AI",) * 4,
        *,
        wall: Sequence[int | str] | None = None,
        dealer: int | None = None,
    ) -> Iterator[HandReplay]:
        """Every ended hand of the match in order, in ONE pass over the actions: for each, what ``build`` gives for
        its number (a match review reads them all without replaying the match once per hand). Stops before a hand
        still in play (or one the actions break off in) and at the match's end."""
        t = Table.new(variant, seed, settings, players, wall=wall, dealer=dealer)
        acts, by_ai = _parsed(actions)
        i = 0
        while True:
            if t.phase == "ended":  # the hand before has ended: the next action starts the next one
                if i >= len(acts):
                    return
                t.apply(acts[i])
                i += 1
            if t.phase not in ("play", "claim", "rob"):
                return
            hand_no = t.hand_no
            start = copy.deepcopy(t)
            steps: list[Step] = []
            while t.hand_no == hand_no:
                if i >= len(acts):
                    return  # in play
                steps.append(_play(t, acts[i], len(steps) + 1, by_ai[i]))
                i += 1
            yield cls(start, steps, hand_no, final=copy.deepcopy(t))

    # ---------------------------------------------------------------------------------------------- stepping

    @property
    def n(self) -> int:
        """Number of steps (the last one ends the hand)."""
        return len(self.steps)

    @property
    def variant(self) -> str:
        return self._start.variant

    @property
    def players(self) -> tuple[str, ...]:
        return self._start.players

    @property
    def dealer(self) -> int:
        return self._start.dealer

    @property
    def winds(self) -> list[int]:
        """Each chair's wind in this hand (0 = E = the dealer). The table after the last step has already moved the
        dealer on for the next hand: show this instead."""
        return [self._start.wind(s) for s in range(4)]

    @property
    def result(self) -> HandResult | None:
        """The hand's result (``Table.last_result``: winners, items, payments)."""
        return self._final.last_result

    def _check(self, k: int) -> None:
        if not isinstance(k, int) or not 0 <= k <= self.n:
            raise EngineError("bad_step", step=k, n=self.n)

    def table(self, k: int) -> Table:
        """A fresh table at step ``k`` (0 = dealt, n = over): yours to keep, the replay is not changed.

        Steps forward from the last table asked for when it is at or before k (stepping with ▶ costs one action)."""
        self._check(k)
        if self._cache is not None and self._cache[0] <= k:
            at, t = self._cache[0], copy.deepcopy(self._cache[1])
        else:
            at, t = 0, copy.deepcopy(self._start)
        for s in self.steps[at:k]:
            t.apply(Action(s.action.type, s.action.seat, s.action.tile))
        self._cache = (k, t)
        return copy.deepcopy(t)

    def walk(self) -> Iterator[tuple[int, Table]]:
        """``(k, table at step k)`` for k = 0..n in order, on ONE private table moved forward in place (cheap: no copy
        per step). Read it before asking for the next; do not change it."""
        t = copy.deepcopy(self._start)
        yield 0, t
        for s in self.steps:
            t.apply(Action(s.action.type, s.action.seat, s.action.tile))
            yield s.index, t

    def view(self, k: int, seat: int | None) -> View:
        """``Table.view(seat)`` at step k: what ``seat`` saw then (None: the public view)."""
        if seat is not None and seat not in (0, 1, 2, 3):
            raise EngineError("bad_seat_number", seat=seat)
        return self.table(k).view(seat)

    def hands(self, k: int, table: Table | None = None) -> list[list[int]]:
        """Every seat's concealed tiles (kinds, sorted) at step k: "show all hands", for a hand that is over.
        ``table``: the table at step k when the caller has it (from :meth:`walk`)."""
        if self._final.hand_no <= self.hand_no:  # cannot happen: build refuses a hand in play
            raise EngineError("hands_hidden")
        t = table if table is not None else self.table(k)
        return [[x for x in range(NUM_KINDS) for _ in range(t.counts[s][x])] for s in range(4)]

    def drawn(self, k: int, table: Table | None = None) -> list[int | None]:
        """Each seat's tile just drawn at step k (for "show all hands")."""
        return list((table if table is not None else self.table(k)).drawn)

    def names_action(self, k: int, seat: int | None, *, show_all: bool = False) -> bool:
        """Whether step ``k``'s action may be named to ``seat``: not another seat's answer in a claim window (unless
        every hand is shown): that one is shown, when at all, by what the window came to. The deal (k = 0) is
        public."""
        if k == 0 or show_all:
            return True
        s = self.steps[k - 1]
        return not s.private_to_seat() or s.seat == seat

    def resolves(self, k: int) -> bool:
        """Step ``k`` is a window's last answer: the one that settles it (the table takes the claim, the win, or
        moves on). Answers in a window follow each other with nothing in between."""
        return 0 < k <= self.n and self.steps[k - 1].window and (k == self.n or not self.steps[k].window)

    def visible_steps(self, seat: int | None, *, show_all: bool = False) -> list[int]:
        """Step numbers (0..n) ``seat`` may step through (everything when every hand is shown): every step but the
        other seats' answers in claim windows; of those, a window's last answer stands for the window's resolution
        when it took the tile (a claim, a win) or ended the hand, so a window the seat did not answer shows as one
        step, or none when it came to nothing. The last step, the hand's result, is public: every viewer may see it
        (when the viewer may not see its action named, the caption names the result alone: :meth:`names_action`)."""
        key = (seat, show_all)
        if key not in self._visible:
            self._visible[key] = [
                k for k in range(self.n + 1)
                if k == self.n or self.names_action(k, seat, show_all=show_all)
                or (self.resolves(k) and self.steps[k - 1].takes())]
        return list(self._visible[key])

    def number(self, k: int, seat: int | None, *, show_all: bool = False) -> tuple[int, int]:
        """``(i, m)``: step ``k`` as ``seat`` counts the steps, "step i/m": the steps it may see, numbered 0 (the
        deal) .. m (the result), so neither a gap nor the total tells how many answers it may not see. A step it
        may not see counts as the one before it that it may."""
        vis = self.visible_steps(seat, show_all=show_all)
        return counted(vis, k), len(vis) - 1

    def numbered(self, i: int, seat: int | None, *, show_all: bool = False) -> int:
        """The step ``seat`` counts as number ``i`` (:meth:`number`'s inverse over the steps it may see), ``i``
        clamped to 0..m first: what a number from outside (a replay button's id, which a client can edit) is drawn
        as, so the ids the viewer can read carry only the numbers the viewer sees."""
        vis = self.visible_steps(seat, show_all=show_all)
        return vis[min(max(i, 0), len(vis) - 1)]

    def nearest_visible(self, k: int, seat: int | None, *, show_all: bool = False) -> int:
        """The step ``seat`` may see nearest to ``k`` (the earlier one of two as near), ``k`` clamped to 0..n first:
        what a step number from outside (a button's id, which a client can edit) is drawn as."""
        k = min(max(k, 0), self.n)
        return min(self.visible_steps(seat, show_all=show_all), key=lambda x: (abs(x - k), x))

    def decisions(self, seat: int) -> list[int]:
        """Steps where ``seat`` acted with more than one legal action to choose from."""
        return [s.index for s in self.steps if s.seat == seat and s.choice]

    # ---------------------------------------------------------------------------------------------- jumps

    def start(self) -> int:
        return 0

    def end(self) -> int:
        return self.n

    def next_step(self, k: int, seat: int | None, *, show_all: bool = False) -> int:
        """The next step ``seat`` may see after k (k itself at the end)."""
        return next((x for x in self.visible_steps(seat, show_all=show_all) if x > k), k)

    def prev_step(self, k: int, seat: int | None, *, show_all: bool = False) -> int:
        return next((x for x in reversed(self.visible_steps(seat, show_all=show_all)) if x < k), k)

    def next_decision(self, k: int, seat: int) -> int | None:
        """The seat's first decision after step k (None: no more)."""
        return next((x for x in self.decisions(seat) if x > k), None)

    def prev_decision(self, k: int, seat: int) -> int | None:
        return next((x for x in reversed(self.decisions(seat)) if x < k), None)


def hand_count(variant: str, seed: int | str, settings: Mapping[str, Any] | None,
               actions: Sequence[Action | Mapping[str, Any]], players: Sequence[str] = ("AI",) * 4) -> int:
    """How many hands of the stored game have ended (the ones that can be replayed)."""
    t = Table.replay(variant, seed, settings, actions, players)
    return t.hand_no


def _parsed(actions: Sequence[Action | Mapping[str, Any]]) -> tuple[list[Action], list[bool]]:
    """The actions (Action objects or their JSON, as stored) and, for each, whether it is stored as the AI's move for
    a player's seat (``"ai": true``)."""
    return ([a if isinstance(a, Action) else Action.from_json(a) for a in actions],
            [isinstance(a, Mapping) and a.get("ai") is True for a in actions])


def _play(t: Table, a: Action, number: int, by_ai: bool = False) -> Step:
    """Apply ``a`` to ``t`` and describe it as step ``number`` (a timeout shows as what it played)."""
    legal = t.legal_actions(a.seat)
    window = t.phase in ("claim", "rob")
    ev = t.apply(a)
    eff = a
    if a.type == "timeout":
        eff = next((Action.from_json(e.data["as"]) for e in ev if e.type == "timeout"), a)
    return Step(number, a.seat, eff, a.type == "timeout", window, len(legal) > 1, tuple(ev), by_ai)
