"""The AI's review of one seat's decisions in a replayed hand, priced in 子.

For each decision of the seat (:meth:`engine.replay.HandReplay.decisions`): what the player did and what the strong
AI would have done in the same spot, each with its **expected 子** from the strong AI's own evaluator
(:func:`engine.strong.evaluate`: the chance and value of winning the hand it leaves, less the risk and cost of
dealing in), the **cost** of the player's choice (the best option's expected 子 less the player's, each to 0.1 子 as the card shows
them) and the **reason** in a word, the largest part of the difference (:func:`_parts`) the card can show figures
for: ``win`` (a win let pass), ``faster`` (a better chance to win), ``bigger`` (a bigger hand: the scorer's item aimed
at, :data:`engine.strong.evaluator.PLAN_ITEMS`, or the items the AI's wins score more of, :attr:`Decision.gains`),
``safer`` (less risk of dealing in, against ``threat``, with what shows it: :attr:`Decision.threat_why`), in Chizhou
``feed`` (an honour a pair holder pungs for 花) and ``let_go`` (the tile the AI lets go of when 2 花 is out of
reach), or ``shape`` (the rest: a better shape by the normal AI's sense of it). The review and the strong AI cannot
disagree about a number: they are the same function of the same view.

Beside the price, each choice keeps the plain measures a player can check by hand: the **shanten** (向听: tiles away
from ready; 0 = ready, -1 = won) and the **进张** (useful tiles: how many tiles still unseen from the seat's point of
view would lower that shanten) the choice left.

Only what the player could see: every number is computed from the seat's view at that moment
(``Table.view(seat)``: its own tiles, the melds and rivers, the alarms, the rules) and the evaluator is given that same
view, never the table. The strong AI has no randomness, so a view gives one answer.

What a choice leaves:

- a discard (or laying the drawn tile aside in the last four): the 13-tile (3n+1) hand after it;
- a pass: the hand as it is (3n+1);
- a pung or a chi: the hand after the meld still has to discard: its shanten is that of its best discard, its 进张
  that of the best such discard (3n+2);
- a kong: the 3n+1 hand with one more meld, before the replacement tile;
- a win: shanten -1, 进张 0.

Unseen = the variant's copies of the kind - the copies in every river and meld - the seat's own copies - while a
kong may be robbed, the tile being added to it: the evaluator's own count, read from its evaluation
(:func:`engine.strong.evaluator.still_to_come`), so the 进张 and the prices cannot count different tiles.

:attr:`Decision.cost` is the 子 the player's choice gave up against the best (never negative): the difference of the
two prices, without the margin the AI's own choice keeps when it decides
(:attr:`engine.strong.evaluator.Option.margin`, which also carries what only ranks: a kong's tie-break premium,
Chizhou's credit for letting a tile go), so a play the AI would not make but prices as high (to 0.1 子) costs
nothing and is no loss (:attr:`Decision.costly`). That holds for a win too: the AI takes every win, but Chizhou's
evaluator may price passing a 1 子 win for the all-pungs plan as high (:attr:`Decision.item` names the plan), and the
card says so rather than charging it; "the biggest" disagreement is the one that cost most, the earliest
on a tie; :attr:`Review.cost` sums a hand's, the risky choices against one seat adding up to at most what one deal-in
to it costs (a hand ends at the first deal-in: :func:`one_deal_in`).

>>> from engine.table import Table
>>> from engine.replay import HandReplay
>>> from engine.selfplay import play_match
>>> import random
>>> t, acts = Table.new("hefei", "doc"), []
>>> _ = play_match(t, ["strong"] * 4, random.Random(1), max_hands=1, record=acts)
>>> r = review_hand(HandReplay.build("hefei", "doc", {}, acts, 0), 0)
>>> len(r.decisions) > 0, r.disagreements, r.cost  # the strong AI played seat 0: it agrees with itself
(True, 0, 0.0)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .ai_common import SeatReader
from .analysis import shanten
from .replay import counted
from .review_items import bigger_items, hand_after
from .rivers import wind_meld
from .strong import evaluate
from .strong.chizhou import FEED_COST
from .strong.evaluator import READY_PUNG_ONLY, Option, danger_by_seat, flush_line, plan_item, still_to_come
from .table import Action
from .tiles import HONOR, NUM_KINDS, Meld, tile_name
from .variants import get_variant
from .variants.base import Item

if TYPE_CHECKING:
    from .replay import HandReplay


@dataclass(frozen=True, slots=True)
class Choice:
    """An action and what it left: ``shanten`` (-1 won, 0 ready) and ``useful`` (进张, unseen useful tiles); and
    its price by the strong AI's evaluator: ``ev`` (expected 子), ``win`` (the chance to win the hand it leaves),
    ``value`` (子 when won), ``deal_in`` (the chance this discard deals in now), ``danger`` (its expected cost, 子),
    ``plan`` ("" or "flush") and ``threat`` (the seat the tile is most dangerous against: the evaluator's, or for a
    player's discard riskier than the AI's where it named none, the seat that makes most of the danger:
    :func:`_most_danger`). ``rob``: the win robs a kong (抢杠: the tile being added to another seat's pung)."""

    action: Action
    shanten: int
    useful: int
    ev: float = 0.0
    win: float = 0.0
    value: float = 0.0
    deal_in: float = 0.0
    danger: float = 0.0
    plan: str = ""
    threat: int | None = None
    rob: bool = False
    distance: int = 0  # the evaluator's steps to a legal win (the shanten, or more when 八支 or 花 are short)


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision: the step it was made at (1..n), what the player did and what the AI would have done."""

    step: int
    seat: int
    played: Choice
    ai: Choice
    timeout: bool = False
    reason: str = ""  # "win", "faster", "bigger", "safer", "feed", "let_go", "shape": why the AI's (""= agree)
    item: str = ""  # "bigger": the scorer's item the AI's hand aims at (e.g. qing_yi_se) or keeps ("menqing");
    # "win": the item the player's choice aims at instead (a win let pass for 对对胡 and priced as high: no loss)
    threat_why: str = ""  # "safer": what shows the threat is near a win: "alarm" (报警), "flush" (a one-suit line)
    feed: int = 0  # "feed": the copies of the player's honour still unseen (a pair holder pungs it: 1 花)
    gains: tuple[Item, ...] = ()  # "bigger", no plan: the scorer's items the AI's reachable wins score more of (_gains)
    # "faster": the player's hand is nearer ready by its shape than the AI's, but short of what the variant's win
    # needs: "bazhi" (eight of a suit, 八支: Wuhu, Hefei) or "hua" (Chizhou's 花); "" otherwise
    gate: str = ""
    # "safer": what this decision adds to the hand's total when the risky choices against its seat in the hand cost
    # more than one deal-in to it (:func:`one_deal_in`); None: its cost
    capped: float | None = None
    variant: str = ""  # the hand's variant: an item's words are the variant's own (Chizhou's 清一色 is a 蜡子, Hefei's x3)

    @property
    def agrees(self) -> bool:
        return self.played.action == self.ai.action

    @property
    def cost(self) -> float:
        """Expected 子 the player's choice gave up against the AI's (0.0 when they agree), to 0.1: the difference of
        the two prices as the card shows them (each to 0.1 子), so the card's loss is its two figures' difference."""
        if self.agrees:
            return 0.0
        return round(max(0.0, round(self.ai.ev, 1) - round(self.played.ev, 1)), 1)

    @property
    def costly(self) -> bool:
        """A disagreement that cost 子 (to 0.1). A choice the AI would not make but prices as high is no loss: the
        card lists it apart, as worth as much."""
        return not self.agrees and self.cost > 0

    @property
    def counted(self) -> float:
        """What this decision adds to the hand's total (:attr:`Review.cost`): its :attr:`cost`, or less when the
        risky choices against its seat in the hand add up to more than one deal-in to it (:attr:`capped`)."""
        return self.cost if self.capped is None else self.capped

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
    by_ai: int = 0  # the seat's decisions the AI made for the player (away, 托管, replaced): not reviewed

    @property
    def disagreements(self) -> int:
        return sum(1 for d in self.decisions if not d.agrees)

    @property
    def costly(self) -> int:
        """The disagreements that cost 子 (:attr:`Decision.costly`)."""
        return sum(1 for d in self.decisions if d.costly)

    @property
    def cost(self) -> float:
        """The 子 the player's decisions gave up in the hand, summed (to 0.1), the risky choices against one seat
        adding up to at most one deal-in to it (:func:`one_deal_in`)."""
        return round(sum(d.counted for d in self.decisions), 1)

    def capped(self) -> list[tuple[list[Decision], float, float]]:
        """The risky choices against one seat that cost more than one deal-in to it, in step order: (the decisions,
        their losses summed, what they count: that deal-in's cost) (:func:`one_deal_in`)."""
        groups: dict[int | None, list[Decision]] = {}
        for d in self.decisions:
            if d.capped is not None:
                groups.setdefault(d.played.threat, []).append(d)
        return [(ds, round(sum(d.cost for d in ds), 1), round(sum(d.counted for d in ds), 1))
                for ds in groups.values()]

    @property
    def biggest(self) -> Decision | None:
        """The disagreement that cost most, the earliest on a tie; None when none cost 子."""
        best: Decision | None = None
        for d in self.decisions:
            if d.costly and (best is None or d.cost > best.cost):
                best = d
        return best

    def at(self, step: int) -> Decision | None:
        """The decision made at ``step``, if it was one of this seat's."""
        return next((d for d in self.decisions if d.step == step), None)


# ------------------------------------------------------------------------------------------------ measuring


def _seat_of(view: Mapping[str, Any]) -> int:
    seat = view["seat"]
    if seat is None:
        raise ValueError("a review needs a seat's own view, not the public one")
    return int(seat)


class _Hand:
    """The seat's tiles and what it knows, read from its view only."""

    def __init__(self, view: Mapping[str, Any], unseen: Sequence[int] | None = None) -> None:
        self.seat = _seat_of(view)
        V = get_variant(view["variant"])
        self.counts = [0] * NUM_KINDS
        for k in view["hand"]:
            self.counts[k] += 1
        self.melds: tuple[Meld, ...] = tuple(wind_meld(m, view["dealer"]) for m in view["melds"][self.seat])
        self.seven_pairs = bool(V.seven_pairs)
        # what the seat has not seen, as the evaluator counts it (the tile being robbed is not one still to come):
        # its evaluation's, else the same function of the view
        self.unseen = list(unseen) if unseen is not None else still_to_come(view, SeatReader(view, self.seat).remaining)
        self.drawn = view.get("drawn")
        ld = view.get("last_discard")
        rob = view.get("robbing")
        self.offered = rob["tile"] if rob else (ld["tile"] if ld else None)
        self.offerer: int | None = ld["seat"] if ld and not rob else None  # whose discard a claim takes
        self.robbing = bool(rob)

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
        if a.type == "win":
            return Choice(a, -1, 0, rob=self.robbing)
        after = hand_after(self, self.melds, a)
        c, m = (list(self.counts), len(self.melds)) if after is None else (after[0], len(after[1]))
        return Choice(a, *self.after13(c, m) if sum(c) % 3 == 1 else self.after14(c, m))


def _priced(c: Choice, o: Option | None) -> Choice:
    if o is None:
        return c
    return Choice(c.action, c.shanten, c.useful, o.ev, o.win, o.value, o.deal_in, o.deal_in * o.cost, o.plan,
                  o.threat, c.rob, o.distance)


def _parts(played: Choice, ai: Choice) -> dict[str, float]:
    """The AI's price less the player's, split the way the evaluator builds a price (``ev = (1 - deal_in) x (win x
    value + shape) - danger``): ``safer`` (the danger and the win a deal-in gives up), ``faster`` (the chance to win),
    ``bigger`` (the value when won) and ``shape`` (what is left: the shape the chance model misses, Chizhou's 花 fed or
    let go, the look at the next draw)."""
    gain = ai.ev - played.ev
    safer = (played.danger + played.deal_in * played.win * played.value) - (ai.danger + ai.deal_in * ai.win * ai.value)
    # chance x value: each difference weighed at the mean of the other (neither counted first)
    kept = 1 - ai.deal_in
    faster = (ai.win - played.win) * (ai.value + played.value) / 2 * kept
    bigger = (ai.value - played.value) * (ai.win + played.win) / 2 * kept
    return {"safer": safer, "faster": faster, "bigger": bigger, "shape": gain - safer - faster - bigger}


SAFER_GAP = 0.10
"""A tile this much likelier to deal in than the AI's (10 points: 21% against 4%) is named as the reason even where
the shape makes more of the loss: the danger is what the player can see and learn from, and risky tiles against one
seat are counted as one deal-in at most (:func:`one_deal_in`)."""


def _reason(variant: str, played: Choice, ai: Choice) -> tuple[str, str]:
    """Why the AI's choice is worth more, in a word (and the item a bigger hand aims at): the largest part of the
    difference (:func:`_parts`) whose figures the card can show (a faster hand shows two different chances to win,
    a safer tile two different chances to deal in, a bigger hand two different values or the item aimed at); the
    shape when it is the largest part, or the largest the card can name (a card said "faster: 3% to win against 2%"
    for a 1.3 子 loss of which the chances made 0.3), unless the player's tile is much likelier to deal in
    (:data:`SAFER_GAP`).

    >>> from engine.table import Action
    >>> you = Choice(Action("discard", 0, 4), 2, 4, ev=0.6, win=0.02, value=26.8)
    >>> ai = Choice(Action("discard", 0, 13), 2, 9, ev=1.9, win=0.03, value=26.8)
    >>> _reason("hefei", you, ai), _reason("hefei", you, replace(ai, ev=0.9))
    (('shape', ''), ('faster', ''))
    """
    parts = _parts(played, ai)
    if played.threat is None:
        parts["safer"] = 0.0
    risky = parts["safer"] > 0 and played.deal_in - ai.deal_in >= SAFER_GAP
    for kind in sorted(parts, key=lambda k: -parts[k]):  # ties: safer, faster, bigger, shape
        if parts[kind] <= 0:
            break
        if kind == "shape":  # the largest part left that the card can name (a bigger hand worth 26.7 子 against
            if not risky:  # 26.5 was named for a 0.3 子 loss the value made none of)
                return "shape", ""
            continue
        if kind == "safer" and round(100 * played.deal_in) > round(100 * ai.deal_in):
            return "safer", ""
        if kind == "faster" and round(100 * ai.win) > round(100 * played.win):
            return "faster", ""
        if kind == "bigger":
            if ai.plan and ai.plan != played.plan:
                return "bigger", plan_item(variant, ai.plan)
            if round(ai.value, 1) > round(played.value, 1):
                return "bigger", ""
    return "shape", ""


def _most_danger(view: Mapping[str, Any], seat: int, tile: int, c: Choice) -> int | None:
    """The seat a risky discard is most dangerous against where the evaluator named none (it names a seat only when
    a deal-in's expected payment to it passes 0.05 子, while the review's danger also counts the win a deal-in ends,
    :func:`_parts`: in Wuhu, most of it): the seat that makes most of that danger, by the evaluator's own chances
    and payments (:func:`engine.strong.evaluator.danger_by_seat`); None when none does."""
    by_seat = danger_by_seat(view, seat, tile, c.win * c.value)
    o = max(range(4), key=lambda s: by_seat[s])
    return o if by_seat[o] > 0 else None


def _threat_why(view: Mapping[str, Any], seat: int | None) -> str:
    """What the seat shows that makes it a threat, as the strong AI reads it: an alarm (报警), else a line of melds
    of one suit (two or more, the evaluator's "flush line"), else ""."""
    if seat is None:
        return ""
    if view["alarms"][seat]:
        return "alarm"
    return "flush" if flush_line(view["melds"][seat]) else ""


def _fed(variant: str, me: _Hand, a: Action) -> float:
    """Chizhou: the 子 the strong AI charges a discarded honour a pair holder may pung (1 花), as its evaluator does
    (:data:`engine.strong.chizhou.FEED_COST` per unseen copy beyond the first, halved); 0 elsewhere."""
    if variant != "chizhou" or a.type != "discard" or a.tile is None or a.tile < HONOR or me.unseen[a.tile] < 2:
        return 0.0
    return float(FEED_COST * (me.unseen[a.tile] - 1) / 2)


def review_decision(view: Mapping[str, Any], played: Action, step: int = 0, timeout: bool = False) -> Decision:
    """One decision, from the deciding seat's view at that moment (``Table.view(seat)`` before acting) and the action
    it took. The strong AI's evaluator prices the legal actions listed in that view."""
    ev = evaluate(view, _seat_of(view))
    me = _Hand(view, ev.unseen)
    best = ev.best
    po = ev.of(played)
    p = _priced(me.measure(played), po)
    a = _priced(me.measure(best.action), best)

    def decision(reason: str = "", item: str = "", **kw: Any) -> Decision:
        return Decision(step, me.seat, p, a, timeout, reason, item, variant=ev.variant, **kw)

    if p.action == a.action:
        return decision()
    if best.action.type == "win":  # a win the player let pass: the AI always takes it
        # the item the player's choice aims at, for a pass priced as high as the win (Chizhou's all pungs: no loss)
        return decision("win", plan_item(ev.variant, po.plan) if po is not None else "")
    if p.threat is None and played.type == "discard" and played.tile is not None and round(100 * p.deal_in) > round(
            100 * a.deal_in):
        p = replace(p, threat=_most_danger(view, me.seat, played.tile, p))
    reason, item = _reason(ev.variant, p, a)
    if (ev.variant in READY_PUNG_ONLY and played.type == "pung" and best.action.type == "pass" and po is not None
            and po.distance > 0 and not item):
        reason, item = "bigger", "menqing"  # Hefei: a pung short of ready spends the one claim and 门清 (10)
    if reason == "shape" and ev.let_go is not None and ev.let_go == best.action:
        # Chizhou: a hand too far from 2 花 for the wall left; the AI lets go of what gives the others 花 (the
        # evaluator credits that discard, by its own thresholds: engine.strong.chizhou.LET_GO), so that someone can
        # win the hand
        return decision("let_go")
    fed = _fed(ev.variant, me, played) - _fed(ev.variant, me, best.action)
    if reason == "shape" and fed > 0 and fed >= 0.5 * _parts(p, a)["shape"]:
        # Chizhou: the player's honour may still be punged (1 花 to whoever holds its pair); the AI's tile may not
        return decision("feed", feed=me.unseen[played.tile or 0])
    why = _threat_why(view, p.threat) if reason == "safer" else ""
    gains: tuple[Item, ...] = ()
    if reason == "bigger" and not item:
        gains = bigger_items(view, me, played, best.action)
    gate = ""
    if reason == "faster" and not p.plan and 0 <= p.shanten < min(p.distance, a.shanten) and p.distance >= a.distance:
        # the player's shape looks nearer than the AI's, but the normal AI's distance, which the evaluator prices,
        # counts what a legal win needs beyond the shape, and by it the player's hand is no nearer (when it is, the
        # AI's is as short of 八支 or 花 and further: its useful tiles make it faster, and the card says so)
        gate = "hua" if get_variant(ev.variant).ai.hua_gate else "bazhi"
    return decision(reason, item, threat_why=why, gains=gains, gate=gate)


def review_hand(replay: HandReplay, seat: int) -> Review:
    """Every decision of ``seat`` in the hand (see the module docstring). Each is reviewed from ``seat``'s view just
    before it acted: nothing hidden from the seat is read. The moves the AI made for the player (stored as the AI's:
    away, 托管, replaced) are counted in ``by_ai``, not reviewed."""
    out = []
    before = {k - 1 for k in replay.decisions(seat)}
    by_ai = 0
    for k, table in replay.walk():
        if k in before:
            s = replay.steps[k]
            if s.by_ai:  # the AI's move for the player (away, 托管): not theirs to be judged on
                by_ai += 1
                continue
            out.append(review_decision(table.view(seat), s.action, k + 1, s.timeout))
    return Review(seat, one_deal_in(out), replay.n, by_ai)


def deal_in_cost(c: Choice) -> float:
    """What a deal-in on the choice's discard would take from the player, to 0.1 子: what it costs (its expected
    cost over its chance: what it pays beyond what the player would lose anyway, the card's "a deal-in would cost
    you about ... more than you would lose anyway") and the hand it ends (the chance and value of
    winning it, which a deal-in gives up: the evaluator's price counts both, :func:`_parts`)."""
    return round(c.danger / c.deal_in + c.win * c.value, 1) if c.deal_in > 0 else 0.0


def one_deal_in(decisions: Sequence[Decision]) -> tuple[Decision, ...]:
    """The hand's risky choices against one seat (``safer`` against the same :attr:`Choice.threat`) add up to at
    most what one deal-in to it takes (:func:`deal_in_cost`, the largest among them: the payment and the hand it
    ends): each such loss charges a greater chance to deal in at that price, but a hand ends at the first deal-in,
    so the player could have paid it once at most, and seven choices at 40% against 3% would add up to 2.6
    deal-ins. Below that price the losses add up as they are (small risks taken several times do add up); above it,
    they count in step order until the price is reached (:attr:`Decision.capped`), so the hand's total never
    charges one seat more than a deal-in."""
    groups: dict[int, list[Decision]] = {}
    for d in decisions:
        if d.costly and d.reason == "safer" and d.played.threat is not None:
            groups.setdefault(d.played.threat, []).append(d)
    capped: dict[int, float] = {}
    for ds in groups.values():
        price = max(deal_in_cost(d.played) for d in ds)
        if round(sum(d.cost for d in ds), 1) <= price:
            continue
        left = price
        for d in ds:
            capped[d.step] = round(min(d.cost, left), 1)
            left = round(left - capped[d.step], 1)
    return tuple(replace(d, capped=capped[d.step]) if d.step in capped else d for d in decisions)


# ------------------------------------------------------------------------------------------------ the match

KINDS = ("safer", "faster", "bigger", "shape", "win", "let_go")
"""The kinds of loss a match review sums, in the words of :attr:`Decision.reason`: pushing into danger (the AI's
choice was safer; in Chizhou also an honour that feeds another seat's 花, ``feed``), a slower hand, missed value (a
bigger hand), a weaker shape, a win let pass, and in Chizhou a tile not let go when the hand could no longer reach
2 花 (``let_go``: the strong AI's evaluator credits letting it go, see :data:`engine.strong.chizhou.LET_GO`; the
credit ranks, it is not charged: such a decision costs only what the two hands' prices differ by)."""
_KIND_OF = {"feed": "safer"}


@dataclass(frozen=True, slots=True)
class HandReview:
    """One hand of a match review: its number (0-based), the seat's winds in it (0 = E = the dealer), the
    review of the seat's decisions in it, and the steps the seat may see in the hand's replay when not every hand is
    shown (:meth:`engine.replay.HandReplay.visible_steps`; empty when not known: steps are then numbered raw)."""

    hand_no: int
    winds: tuple[int, ...]
    review: Review
    visible: tuple[int, ...] = ()

    def number(self, k: int, *, show_all: bool = False) -> int:
        """Step ``k`` as the hand's replay numbers it for the seat (:meth:`engine.replay.HandReplay.number`): the raw
        step when every hand is shown, else counted over the steps the seat may see."""
        if show_all or not self.visible:
            return k
        return counted(self.visible, k)


@dataclass(frozen=True, slots=True)
class MatchReview:
    """The review of one seat over the ended hands of a match: each hand's review, and the sums a player reads at
    the end of a match (what their decisions cost in all, the costliest ones, what kind of loss it was)."""

    seat: int
    hands: tuple[HandReview, ...]

    @property
    def decisions(self) -> int:
        return sum(len(h.review.decisions) for h in self.hands)

    @property
    def disagreements(self) -> int:
        return sum(h.review.disagreements for h in self.hands)

    @property
    def by_ai(self) -> int:
        """The moves the AI made for the player over the match (away, 托管), not reviewed."""
        return sum(h.review.by_ai for h in self.hands)

    @property
    def cost(self) -> float:
        """The 子 the player's decisions gave up over the match: the sum of every hand's (:attr:`Review.cost`, the
        risky choices against one seat in a hand adding up to at most one deal-in to it), to 0.1."""
        return round(sum(d.counted for h in self.hands for d in h.review.decisions), 1)

    @property
    def capped_off(self) -> float:
        """The 子 the match's total does not charge because risky choices against one seat in a hand added up to
        more than one deal-in to it (:func:`one_deal_in`)."""
        return round(sum(d.cost - d.counted for h in self.hands for d in h.review.decisions), 1)

    def costliest(self, n: int = 5) -> list[tuple[HandReview, Decision]]:
        """The ``n`` decisions that cost most (the earliest on a tie), costliest first; only those that cost 子
        (a disagreement worth the same to 0.1 子 is no loss)."""
        differ = [(h, d) for h in self.hands for d in h.review.decisions if d.costly]
        return sorted(differ, key=lambda hd: (-hd[1].cost, hd[0].hand_no, hd[1].step))[:n]

    @property
    def costly(self) -> int:
        """The disagreements that cost 子 (:attr:`Decision.costly`)."""
        return sum(h.review.costly for h in self.hands)

    def kinds(self) -> list[tuple[str, int, float]]:
        """(kind, disagreements that cost 子, 子 lost) for each kind of :data:`KINDS` the player's choices fell short
        by, the costliest first; the kinds' 子 (as :attr:`Decision.counted`) add up to :attr:`cost` (up to
        rounding)."""
        out = []
        for kind in KINDS:
            ds = [d for h in self.hands for d in h.review.decisions
                  if d.costly and _KIND_OF.get(d.reason, d.reason) == kind]
            if ds:
                out.append((kind, len(ds), round(sum(d.counted for d in ds), 1)))
        return sorted(out, key=lambda k: (-k[2], KINDS.index(k[0])))


def review_match(replays: Iterable[HandReplay], seat: int) -> MatchReview:
    """The seat's review over the given hands of a match (:meth:`engine.replay.HandReplay.each`): each hand
    reviewed exactly as :func:`review_hand` does, from the seat's own view at each decision."""
    return MatchReview(seat, tuple(HandReview(r.hand_no, tuple(r.winds), review_hand(r, seat),
                                              tuple(r.visible_steps(seat))) for r in replays))


__all__ = ["KINDS", "Choice", "Decision", "HandReview", "MatchReview", "Review", "deal_in_cost", "one_deal_in",
           "review_decision", "review_hand", "review_match", "tile_name"]
