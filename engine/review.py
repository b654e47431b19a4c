"""The AI's review of one seat's decisions in a replayed hand.

For each decision of the seat (:meth:`engine.replay.HandReplay.decisions`): what the player did, what the normal AI
(:func:`engine.ai.choose`) would have done in the same spot, and for both choices the **shanten** (向听: tiles away
from ready; 0 = ready, -1 = won) and the **进张** (useful tiles: how many tiles still unseen from the seat's point of
view would lower that shanten) the choice left.

Only what the player could see: every number is computed from the seat's view at that moment
(``Table.view(seat)``: its own tiles, the melds and rivers, the rules) and the AI is given that same view, never the
table. The normal AI has no randomness (its ``rng`` is only used by the easy AI), so a view gives one answer.

What a choice leaves:

- a discard (or laying the drawn tile aside in the last four): the 13-tile (3n+1) hand after it;
- a pass: the hand as it is (3n+1);
- a pung or a chi: the hand after the meld still has to discard: its shanten is that of its best discard, its 进张
  that of the best such discard (3n+2);
- a kong: the 3n+1 hand with one more meld, before the replacement tile;
- a win: shanten -1, 进张 0.

Unseen = the variant's copies of the kind - the copies in every river and meld - the seat's own copies.

The difference (:attr:`Decision.loss`) is ``(shanten worse by, 进张 fewer by)`` of the player's choice against the
AI's, compared shanten first: one step of shanten outweighs any number of tiles. It can be negative: the AI also
weighs what these two numbers do not (八支 in Wuhu and Hefei, the 花 gate in Chizhou, the main suit), so it sometimes
gives up 进张 on purpose. "The biggest" disagreement is the one with the largest loss, the earliest on a tie.

>>> from engine.table import Table
>>> from engine.replay import HandReplay
>>> from engine.selfplay import play_match
>>> import random
>>> t, acts = Table.new("hefei", "doc"), []
>>> _ = play_match(t, ["normal"] * 4, random.Random(1), max_hands=1, record=acts)
>>> r = review_hand(HandReplay.build("hefei", "doc", {}, acts, 0), 0)
>>> len(r.decisions) > 0, r.disagreements  # the AI played seat 0: it agrees with itself
(True, 0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .ai import choose
from .analysis import shanten
from .table import Action
from .tiles import HONOR, NUM_KINDS, tile_name
from .variants import get_variant

if TYPE_CHECKING:
    from .replay import HandReplay


@dataclass(frozen=True, slots=True)
class Choice:
    """An action and what it left: ``shanten`` (-1 won, 0 ready) and ``useful`` (进张, unseen useful tiles)."""

    action: Action
    shanten: int
    useful: int


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision: the step it was made at (1..n), what the player did and what the AI would have done."""

    step: int
    seat: int
    played: Choice
    ai: Choice
    timeout: bool = False

    @property
    def agrees(self) -> bool:
        return self.played.action == self.ai.action

    @property
    def loss(self) -> tuple[int, int]:
        """(shanten worse by, 进张 fewer by) of the played choice against the AI's; (0, 0) when they agree."""
        if self.agrees:
            return (0, 0)
        return (self.played.shanten - self.ai.shanten, self.ai.useful - self.played.useful)


@dataclass(frozen=True, slots=True)
class Review:
    seat: int
    decisions: tuple[Decision, ...]
    n_steps: int = 0

    @property
    def disagreements(self) -> int:
        return sum(1 for d in self.decisions if not d.agrees)

    @property
    def biggest(self) -> Decision | None:
        """The disagreement with the largest loss (shanten first), the earliest on a tie; None when they all agree."""
        best: Decision | None = None
        for d in self.decisions:
            if not d.agrees and (best is None or d.loss > best.loss):
                best = d
        return best

    def at(self, step: int) -> Decision | None:
        """The decision made at ``step``, if it was one of this seat's."""
        return next((d for d in self.decisions if d.step == step), None)


# ------------------------------------------------------------------------------------------------ measuring


class _Hand:
    """The seat's tiles and what it knows, read from its view only."""

    def __init__(self, view: Mapping[str, Any]) -> None:
        seat = view["seat"]
        if seat is None:
            raise ValueError("a review needs a seat's own view, not the public one")
        self.seat = int(seat)
        V = get_variant(view["variant"])
        self.counts = [0] * NUM_KINDS
        for k in view["hand"]:
            self.counts[k] += 1
        self.n_melds = len(view["melds"][self.seat])
        self.seven_pairs = bool(V.seven_pairs)
        totals = V.tile_counts(view["rules"])
        seen = view["seen"]
        self.unseen = [max(0, totals[k] - seen[k] - self.counts[k]) for k in range(NUM_KINDS)]
        self.drawn = view.get("drawn")
        ld = view.get("last_discard")
        rob = view.get("robbing")
        self.offered = rob["tile"] if rob else (ld["tile"] if ld else None)

    def sh(self, c: Sequence[int], melds: int) -> int:
        return shanten(c, melds, seven_pairs=self.seven_pairs and melds == 0)

    def useful13(self, c: list[int], melds: int, sh: int) -> int:
        """进张 of a 3n+1 hand: unseen copies of the kinds that lower its shanten."""
        out = 0
        for k in range(NUM_KINDS):
            if not self.unseen[k] or c[k] >= 4:
                continue
            if k >= HONOR:
                if not c[k]:
                    continue  # a lone tile never lowers shanten
            else:
                base = k - k % 9
                if not any(c[max(base, k - 2) : min(base + 9, k + 3)]):
                    continue
            c[k] += 1
            if self.sh(c, melds) < sh:
                out += self.unseen[k]
            c[k] -= 1
        return out

    def after13(self, c: list[int], melds: int) -> tuple[int, int]:
        s = self.sh(c, melds)
        return s, (self.useful13(c, melds, s) if s >= 0 else 0)

    def after14(self, c: list[int], melds: int) -> tuple[int, int]:
        """A hand that still has to discard: its best discard's shanten and the best 进张 among those discards."""
        best: tuple[int, int] | None = None
        for k in range(NUM_KINDS):
            if not c[k]:
                continue
            c[k] -= 1
            s = self.sh(c, melds)
            if best is None or s <= best[0]:
                u = self.useful13(c, melds, s) if s >= 0 else 0
                if best is None or (s, -u) < (best[0], -best[1]):
                    best = (s, u)
            c[k] += 1
        return best if best is not None else (self.sh(c, melds), 0)

    def measure(self, a: Action) -> Choice:
        c = list(self.counts)
        m = self.n_melds
        if a.type == "win":
            return Choice(a, -1, 0)
        if a.type == "discard" and a.tile is not None:
            c[a.tile] -= 1
            return Choice(a, *self.after13(c, m))
        if a.type == "pass":
            if sum(c) % 3 == 2 and self.drawn is not None:  # the last four: the drawn tile is laid aside
                c[self.drawn] -= 1
            return Choice(a, *self.after13(c, m))
        if a.type == "pung" and a.tile is not None:
            c[a.tile] -= 2
            return Choice(a, *self.after14(c, m + 1))
        if a.type == "chi" and a.tile is not None:
            for x in (a.tile, a.tile + 1, a.tile + 2):
                if x != self.offered:
                    c[x] -= 1
            return Choice(a, *self.after14(c, m + 1))
        if a.type == "kong" and a.tile is not None:
            n = c[a.tile]
            if n == 4:  # concealed
                c[a.tile] = 0
                return Choice(a, *self.after13(c, m + 1))
            if n == 3 and sum(c) % 3 == 1:  # claimed on a discard
                c[a.tile] = 0
                return Choice(a, *self.after13(c, m + 1))
            c[a.tile] -= 1  # added to a shown pung
            return Choice(a, *self.after13(c, m))
        return Choice(a, *self.after13(c, m) if sum(c) % 3 == 1 else self.after14(c, m))


def review_decision(view: Mapping[str, Any], played: Action, step: int = 0, timeout: bool = False) -> Decision:
    """One decision, from the deciding seat's view at that moment (``Table.view(seat)`` before acting) and the action
    it took. The AI is asked with the same view and the legal actions listed in it."""
    me = _Hand(view)
    legal = [Action.from_json(a) for a in view["legal"]]
    ai = choose(view, me.seat, legal, "normal")
    return Decision(step, me.seat, me.measure(played), me.measure(ai), timeout)


def review_hand(replay: HandReplay, seat: int) -> Review:
    """Every decision of ``seat`` in the hand (see the module docstring). Each is reviewed from ``seat``'s view just
    before it acted: nothing hidden from the seat is read."""
    out = []
    before = {k - 1 for k in replay.decisions(seat)}
    for k, table in replay.walk():
        if k in before:
            s = replay.steps[k]
            out.append(review_decision(table.view(seat), s.action, k + 1, s.timeout))
    return Review(seat, tuple(out), replay.n)


__all__ = ["Choice", "Decision", "Review", "review_decision", "review_hand", "tile_name"]
