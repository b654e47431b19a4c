"""The table: one match of one variant as a pure state machine (see the package docstring for the API).

The state is declared in :mod:`engine.table.state`: ``table.match`` (:class:`MatchState`, the whole match, its money in
``table.match.ledger``) and ``table.hand`` (:class:`HandState`, reset by every new hand). The older flat attribute
names (``table.counts``, ``table.dealer``, ``table.stacks`` ...) still read and write those fields.

Everything a variant decides comes from its :class:`~engine.variants.base.Variant`: the table never branches on the
variant's name.

Over 600 lines on purpose: the turn cycle (draw, discard, claim window, kongs, the last-tiles phase, hand end) is one
state machine whose steps call each other; split across modules it would be read back and forth.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from operator import attrgetter
from typing import Any

from ..analysis import is_complete, is_seven_pairs
from ..tiles import HONOR, NUM_KINDS, SEATS, Hand, Meld, MeldKind, from_counts, tile_name
from ..variants import Situation, get_variant
from ..variants.base import Ledger, Variant
from .actions import Action, Event, IllegalAction, parse_tile
from .state import (
    PHASES,
    DrawData,
    HandEndData,
    HandResult,
    HandStartData,
    HandState,
    MatchState,
    MeldJson,
    Phase,
    TileData,
    View,
    WinnerResult,
)
from .views import build_view
from .wall import break_wall, commitment, deal_order, hand_rng, hand_salt, roll

__all__ = ["PHASES", "Table"]

def _field(path: str) -> Any:
    """A flat attribute of :class:`Table` kept for the code that reads it by its old name: a property reading and
    writing ``path`` (e.g. ``"hand.counts"``). The getter is a C ``attrgetter``: as fast as a plain attribute."""
    head, _, name = path.rpartition(".")
    owner = attrgetter(head)

    def set_(obj: Table, value: Any) -> None:
        setattr(owner(obj), name, value)

    return property(attrgetter(path), set_, doc=f"``table.{path}``")


def _wind_meld(m: Meld, dealer: int) -> Meld:
    if m.fed_by is None:
        return m
    return Meld(m.kind, m.tile, (m.fed_by - dealer) % 4, m.claimed, m.added)


def _meld_json(m: Meld) -> MeldJson:
    out: MeldJson = {"kind": str(m.kind), "tile": tile_name(m.tile), "tiles": [tile_name(t) for t in m.tiles]}
    if m.fed_by is not None:
        out["fed_by"] = m.fed_by
    if m.claimed is not None:
        out["claimed"] = tile_name(m.claimed)
    if m.added:
        out["added"] = True
    return out


Win = tuple[int, int | None, int | None, bool]  # (winner chair, winning tile, discarder chair or None, robbed)


class Table:
    """One match at one table. Build with :meth:`new` or :meth:`replay`; drive with :meth:`apply`.

    ``seat`` everywhere in this API is the player's chair 0-3 (``players[seat]``), fixed for the match; the chair's
    wind in the current hand is ``(seat - dealer) % 4`` (E = the dealer).
    """

    match: MatchState
    hand: HandState
    V: Variant

    # the flat names (kept: bot, render, store and tests read them)
    variant: str = _field("match.variant")
    seed: int | str = _field("match.seed")
    settings: dict[str, Any] = _field("match.settings")
    rules: dict[str, Any] = _field("match.rules")
    players: tuple[str, ...] = _field("match.players")
    total_tiles: int = _field("match.total_tiles")
    dealer: int = _field("match.dealer")
    streak: int = _field("match.streak")
    seq: int = _field("match.seq")
    hand_no: int = _field("match.hand_no")
    first_dice: tuple[int, int] = _field("match.first_dice")
    last_result: HandResult | None = _field("match.last_result")
    start_events: list[Event] = _field("match.start_events")
    next_events: list[Event] = _field("match.next_events")
    scores: list[int] = _field("match.ledger.scores")
    jiao: list[int] = _field("match.ledger.jiao")
    stacks: list[int] = _field("match.ledger.stacks")
    stack_base: int = _field("match.ledger.stack_base")
    di_no: int = _field("match.ledger.di_no")
    di_results: list[int] = _field("match.ledger.di_results")
    passes: int = _field("match.ledger.passes")
    wall: list[int] = _field("hand.wall")
    salt: str = _field("hand.salt")
    commitment: str = _field("hand.commitment")
    dice: list[list[int]] = _field("hand.dice")
    wall_break: dict[str, int] = _field("hand.wall_break")
    head: int = _field("hand.head")
    tail: int = _field("hand.tail")
    counts: list[list[int]] = _field("hand.counts")
    drawn: list[int | None] = _field("hand.drawn")
    melds: list[list[Meld]] = _field("hand.melds")
    rivers: list[list[list[Any]]] = _field("hand.rivers")
    alarms: list[tuple[str, ...]] = _field("hand.alarms")
    furiten: list[bool] = _field("hand.furiten")
    pung_lock: list[set[int]] = _field("hand.pung_lock")
    turn: int = _field("hand.turn")
    phase: Phase = _field("hand.phase")
    after_claim: bool = _field("hand.after_claim")
    kong_draw: bool = _field("hand.kong_draw")
    last_four: int = _field("hand.last_four")
    window: dict[int, list[Action]] = _field("hand.window")
    responses: dict[int, Action] = _field("hand.responses")
    last_discard: tuple[int, int] | None = _field("hand.last_discard")
    rob: tuple[int, int] | None = _field("hand.rob")
    discards_made: int = _field("hand.discards_made")
    any_meld: bool = _field("hand.any_meld")
    seen: list[int] = _field("hand.seen")

    # ------------------------------------------------------------------------------------------------ building

    @classmethod
    def new(
        cls,
        variant: str,
        seed: int | str,
        rules: Mapping[str, Any] | None = None,
        players: Sequence[str] = ("AI",) * 4,
        *,
        wall: Sequence[int | str] | None = None,
        dealer: int | None = None,
    ) -> Table:
        """A new match; its first hand is dealt at once.

        ``rules``: the variant's house rules as set (``VARIANT.rules`` keys: Wuhu ``mode`` 315/525,
        ``di_per_match``, Hefei/Chizhou ``quan_per_match`` ...; the rest at their defaults). ``wall`` (tests,
        puzzles): the first hand's draw order instead of the seeded shuffle (see :func:`engine.table.wall.arrange`);
        ``dealer``: the first dealer's chair instead of the dice.

        >>> Table.new("wuhu", 7, rules={"mode": 525}).match.rules["mode"]
        525
        """
        settings = rules
        V = get_variant(variant)  # refuses a key not in VARIANT_KEYS
        if len(players) != 4:
            raise IllegalAction("bad_players", n=len(players))
        rules = V.rules(settings)
        counts = tuple(V.tile_counts(rules))
        fixed: list[int] | None = None
        if wall is not None:
            fixed = [parse_tile(x) for x in wall]
            got = [0] * NUM_KINDS
            for k in fixed:
                got[k] += 1
            if tuple(got) != counts:
                raise IllegalAction("bad_wall", why=f"{len(fixed)} tiles, {sum(counts)} expected with these counts")
        first_dice = roll(hand_rng(variant, seed, -1))
        t = cls()
        t.V = V
        t.match = MatchState(
            variant=variant, seed=seed, settings=dict(settings or {}), rules=rules,
            players=tuple(str(p) for p in players), total_tiles=sum(counts), ledger=V.settlement.new_ledger(rules),
            dealer=dealer % 4 if dealer is not None else (sum(first_dice) - 1) % 4, first_dice=first_dice,
            fixed_wall=fixed,
        )
        t.match.start_events = [Event("match_start", None, {"variant": variant, "players": list(t.match.players),
                                                            "dice": list(first_dice), "dealer": t.match.dealer})]
        t.match.start_events += t._start_hand()
        return t

    @classmethod
    def replay(
        cls,
        variant: str,
        seed: int | str,
        settings: Mapping[str, Any] | None,
        actions: Sequence[Action | Mapping[str, Any]],
        players: Sequence[str] = ("AI",) * 4,
        *,
        wall: Sequence[int | str] | None = None,
        dealer: int | None = None,
    ) -> Table:
        """The table after applying ``actions`` (Action objects or their JSON) to a new table."""
        t = cls.new(variant, seed, settings, players, wall=wall, dealer=dealer)
        for a in actions:
            t.apply(a if isinstance(a, Action) else Action.from_json(a))
        return t

    # ------------------------------------------------------------------------------------------------ hands

    def __getstate__(self) -> dict[str, Any]:
        """Picklable (the store may cache tables; the size figure uses it): the variant is looked up again."""
        return {"match": self.match, "hand": self.hand}

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.match = d["match"]
        self.hand = d["hand"]
        self.V = get_variant(self.match.variant)

    @property
    def ledger(self) -> Ledger:
        """The match's money (kept by the variant's settlement policy)."""
        return self.match.ledger

    @property
    def reserve(self) -> int:
        """Tiles that end normal play (the last-four phase), 0 = none."""
        return self.V.reserve

    @property
    def live(self) -> int:
        """Tiles left in the wall."""
        return self.hand.tail - self.hand.head

    def wind(self, seat: int) -> int:
        return (seat - self.match.dealer) % 4

    def _start_hand(self) -> list[Event]:
        m = self.match
        rng = hand_rng(m.variant, m.seed, m.hand_no)
        if m.hand_no == 0 and m.fixed_wall is not None:
            order = list(m.fixed_wall)
            dice = [roll(rng) for _ in range(self.V.dice_rolls)]
            brk = {"side": (sum(dice[0]) - 1) % 4, "stacks": sum(sum(d) for d in dice), "start": 0}
        else:
            physical = [k for k, n in enumerate(self.V.tile_counts(m.rules)) for _ in range(n)]
            rng.shuffle(physical)
            dice = [roll(rng) for _ in range(self.V.dice_rolls)]
            order, brk = break_wall(physical, dice)
        salt = hand_salt(m.variant, m.seed, m.hand_no)
        h = self.hand = HandState(wall=order, salt=salt, commitment=commitment(order, salt),
                                  dice=[list(d) for d in dice], wall_break=brk, turn=m.dealer, tail=len(order))
        start: HandStartData = {
            "hand_no": m.hand_no, "dealer": m.dealer, "dealer_streak": m.streak, "dice": h.dice,
            "wall_break": dict(brk), "commitment": h.commitment, "wall_count": len(order),
        }
        events = [Event("hand_start", None, start)]
        dealt: list[list[int]] = [[], [], [], []]
        for pos, (p, _i) in enumerate(deal_order()):
            seat = (m.dealer + p) % 4
            k = order[pos]
            dealt[seat].append(k)
            h.counts[seat][k] += 1
        h.head = 53
        h.drawn[m.dealer] = dealt[m.dealer][-1]
        for s in range(4):
            events.append(Event("deal", s, {"tiles": [tile_name(k) for k in sorted(dealt[s])]}, to=s))
        return events

    # ------------------------------------------------------------------------------------------------ helpers

    def _wind_melds(self) -> tuple[tuple[Meld, ...], ...]:
        """Every seat's melds in wind order (E first), fed_by as winds: what the scorers expect."""
        dealer = self.match.dealer
        return tuple(tuple(_wind_meld(m, dealer) for m in self.hand.melds[(dealer + w) % 4]) for w in range(4))

    def _shape_ok(self, seat: int, counts: Sequence[int]) -> bool:
        if is_complete(counts):
            return True
        return bool(self.V.seven_pairs and not self.hand.melds[seat] and is_seven_pairs(counts))

    def _hand_situation(self, seat: int, tile: int, discarder: int | None, rob: bool = False) -> tuple[Hand, Situation]:
        h, m = self.hand, self.match
        c = list(h.counts[seat])
        if discarder is None:
            c[tile] -= 1
        concealed = tuple(k for k in range(NUM_KINDS) for _ in range(c[k]))
        wm = self._wind_melds()
        w = self.wind(seat)
        hand = Hand(concealed, wm[w], tile)
        heavenly = discarder is None and seat == m.dealer and h.discards_made == 0 and not h.any_meld
        # 地胡 (W7): on the dealer's first discard, before any claim. Nothing can be claimed before that discard, so
        # the only meld possible then is a concealed kong of the dealer, which is not a claim and does not prevent it.
        earthly = discarder == m.dealer and not rob and h.discards_made == 1
        sit = Situation(
            winner=w,
            discarder=None if discarder is None else self.wind(discarder),
            kong_draw=h.kong_draw and discarder is None,
            rob_kong=rob,
            last_tiles=h.last_four >= 0,
            heavenly=heavenly,
            earthly=earthly,
            dealer_streak=m.streak,
            melds_by_seat=wm,
            concealed_by_seat=tuple(tuple(from_counts(h.counts[(m.dealer + v) % 4])) for v in range(4)),
        )
        return hand, sit

    def _can_win(self, seat: int, tile: int, discarder: int | None, rob: bool = False) -> bool:
        c = self.hand.counts[seat]
        if discarder is not None:
            c = list(c)
            c[tile] += 1
        if not self._shape_ok(seat, c):
            return False
        hand, sit = self._hand_situation(seat, tile, discarder, rob)
        return self.V.can_win(hand, sit, self.match.rules)

    def _kong_room(self) -> bool:
        return self.live > self.V.reserve

    def _may_claim(self, seat: int, tile: int, kind: str) -> bool:
        if kind != "chi" and tile in self.hand.pung_lock[seat]:
            return False
        tiles = [tile] * (3 if kind == "pung" else 4)
        return self.V.claim_allowed(self.hand.melds[seat], kind, tiles, self.match.rules)

    def _furiten_exempt(self, seat: int, tile: int) -> bool:
        """An exception to 漏胡 the variant grants (Chizhou's 大吊车, C3) for this seat and tile."""
        river = self.hand.rivers[seat]
        return self.V.furiten_exempt(self.hand.counts[seat], river[-1][0] if river else None, tile)

    def _claim_options(self, seat: int, d: int, tile: int) -> list[Action]:
        h = self.hand
        opts: list[Action] = []
        if (not h.furiten[seat] or self._furiten_exempt(seat, tile)) and self._can_win(seat, tile, d):
            opts.append(Action("win", seat))
        n = h.counts[seat][tile]
        if n >= 2 and self._may_claim(seat, tile, "pung"):
            opts.append(Action("pung", seat, tile))
        if n >= 3 and self._kong_room() and self._may_claim(seat, tile, "kong"):
            opts.append(Action("kong", seat, tile))
        if self.V.allows_chi and seat == (d + 1) % 4 and tile < HONOR:
            c = h.counts[seat]
            r = tile % 9
            for low in (tile - 2, tile - 1, tile):
                lr = low - (tile - r)
                if lr < 0 or lr > 6:
                    continue
                run = (low, low + 1, low + 2)
                if all(c[x] >= 1 for x in run if x != tile) and self.V.claim_allowed(
                    h.melds[seat], "chi", list(run), self.match.rules
                ):
                    opts.append(Action("chi", seat, low))
        return opts

    def awaited(self) -> list[int]:
        """Seats whose action the table is waiting for (any seat may send next_hand when a hand has ended)."""
        h = self.hand
        if h.phase == "play":
            return [h.turn]
        if h.phase in ("claim", "rob"):
            return [s for s in sorted(h.window) if s not in h.responses]
        if h.phase == "ended":
            return [0, 1, 2, 3]
        return []

    # ------------------------------------------------------------------------------------------------ legality

    def legal_actions(self, seat: int | None) -> list[Action]:
        """What ``seat`` may do now (a ``timeout`` is also accepted from any awaited seat; it is not listed)."""
        h = self.hand
        if h.phase == "over" or seat not in (0, 1, 2, 3):
            return []
        assert seat is not None
        if h.phase == "ended":
            return [Action("next_hand", seat)]
        if h.phase in ("claim", "rob"):
            if seat in h.window and seat not in h.responses:
                return h.window[seat] + [Action("pass", seat)]
            return []
        if seat != h.turn:
            return []
        c = h.counts[seat]
        out: list[Action] = []
        drawn = h.drawn[seat]
        if h.last_four >= 0:
            if drawn is not None and self._can_win(seat, drawn, None):
                out.append(Action("win", seat))
            out.append(Action("pass", seat))
            return out
        if not h.after_claim:
            if drawn is not None and self._can_win(seat, drawn, None):
                out.append(Action("win", seat))
            if self._kong_room():
                if 4 in c and self.V.concealed_kong_allowed(h.melds[seat], self.match.rules):
                    out += [Action("kong", seat, k) for k in range(NUM_KINDS) if c[k] == 4]
                for m in h.melds[seat]:
                    if m.kind is MeldKind.PUNG and c[m.tile]:
                        out.append(Action("kong", seat, m.tile))
        out += [Action("discard", seat, k) for k in range(NUM_KINDS) if c[k]]
        return out

    def _timeout_action(self, seat: int) -> Action:
        h = self.hand
        if h.phase == "ended":
            return Action("next_hand", seat)
        if h.phase in ("claim", "rob"):
            return Action("pass", seat)
        if h.last_four >= 0:
            return Action("pass", seat)
        k = h.drawn[seat]
        if k is None or h.after_claim:
            k = max(i for i in range(NUM_KINDS) if h.counts[seat][i])
        return Action("discard", seat, k)

    # ------------------------------------------------------------------------------------------------ apply

    def apply(self, action: Action | Mapping[str, Any]) -> list[Event]:
        """Apply one action and return what happened. Raises :class:`IllegalAction` and changes nothing when the
        action is illegal, out of turn, or the match is over."""
        if not isinstance(action, Action):
            action = Action.from_json(action)
        h = self.hand
        seat = action.seat
        if h.phase == "over":
            raise IllegalAction("match_over")
        if seat not in (0, 1, 2, 3):
            raise IllegalAction("bad_seat_number", seat=seat)
        who = f"{SEATS[self.wind(seat)]} ({self.match.players[seat]})"
        if seat not in self.awaited():
            raise IllegalAction("not_your_turn", seat=who)
        eff = self._timeout_action(seat) if action.type == "timeout" else action
        fast = (eff.type == "discard" and h.phase == "play" and h.last_four < 0 and eff.tile is not None
                and 0 <= eff.tile < NUM_KINDS and h.counts[seat][eff.tile] > 0)
        if not fast and eff not in self.legal_actions(seat):
            raise IllegalAction("illegal_action", seat=who, what=eff.message())
        self.match.seq += 1
        ev: list[Event] = []
        if eff.type != action.type:
            ev.append(Event("timeout", seat, {"as": eff.to_json()}))
        if h.phase == "ended":
            ev += self._start_hand()
        elif h.phase in ("claim", "rob"):
            h.responses[seat] = eff
            if not self.awaited():
                ev += self._resolve()
        else:
            ev += self._play(eff)
        return ev

    def _play(self, a: Action) -> list[Event]:
        h = self.hand
        s = a.seat
        if a.type == "win":
            return self._finish([(s, h.drawn[s], None, False)])
        if a.type == "pass":  # last-four phase: the drawn tile is laid aside face up
            k = h.drawn[s]
            assert k is not None
            h.counts[s][k] -= 1
            h.drawn[s] = None
            h.rivers[s].append([k, "dead"])
            h.seen[k] += 1
            return [Event("lay_aside", s, {"tile": tile_name(k)})] + self._draw_next((s + 1) % 4)
        if a.type == "kong":
            k = a.tile
            assert k is not None
            if h.counts[s][k] == 4:
                h.counts[s][k] = 0
                h.seen[k] += 4
                h.melds[s].append(Meld(MeldKind.CONCEALED_KONG, k))
                h.any_meld = True
                ev = [Event("kong", s, {"tile": tile_name(k), "kind": "concealed"})]
                return ev + self._after_meld(s) + self._draw(s, replacement=True)
            # added kong: others may rob it where allowed
            ev = [Event("add_kong", s, {"tile": tile_name(k)})]
            if self.V.rob_kong:
                window = {}
                for o in range(4):
                    if o != s and not h.furiten[o] and self._can_win(o, k, s, rob=True):
                        window[o] = [Action("win", o)]
                if window:
                    h.phase = "rob"
                    h.rob = (s, k)
                    h.window = window
                    h.responses = {}
                    return ev + [Event("rob_window", s, {"tile": tile_name(k)})]
            return ev + self._complete_added_kong(s, k)
        # discard
        k = a.tile
        assert k is not None
        h.counts[s][k] -= 1
        h.drawn[s] = None
        h.after_claim = False
        h.kong_draw = False
        h.rivers[s].append([k, ""])
        h.seen[k] += 1
        h.last_discard = (s, k)
        h.discards_made += 1
        discarded: TileData = {"tile": tile_name(k)}
        ev = [Event("discard", s, discarded)]
        window = {}
        # The discard made as the wall reaches the reserved last tiles (W3, H7): only what the variant allows on it
        # (Wuhu nothing; Hefei a win, no claim).
        final = bool(self.V.reserve) and self.live <= self.V.reserve
        for o in range(4):
            if o != s:
                opts = self._claim_options(o, s, k)
                if final:
                    opts = [x for x in opts if x.type in self.V.final_discard]
                if opts:
                    window[o] = opts
        if not window:
            return ev + self._draw_next((s + 1) % 4)
        h.phase = "claim"
        h.window = window
        h.responses = {}
        return ev + [Event("claim_window", s, {"tile": tile_name(k)})]

    def _complete_added_kong(self, s: int, k: int) -> list[Event]:
        h = self.hand
        h.phase = "play"
        h.rob = None
        h.window, h.responses = {}, {}
        for i, m in enumerate(h.melds[s]):
            if m.kind is MeldKind.PUNG and m.tile == k:
                h.melds[s][i] = Meld(MeldKind.KONG, k, m.fed_by, None, True)
                break
        h.counts[s][k] -= 1
        h.seen[k] += 1
        h.any_meld = True
        ev = [Event("kong", s, {"tile": tile_name(k), "kind": "added"})]
        return ev + self._after_meld(s) + self._draw(s, replacement=True)

    def _after_meld(self, s: int) -> list[Event]:
        """Recompute the seat's public alarms (Wuhu W12) and announce the new ones."""
        h = self.hand
        if not self.V.alarm_names:  # a variant without alarms
            return []
        now = self.V.alarms([_wind_meld(m, self.match.dealer) for m in h.melds[s]])
        if not now and not h.alarms[s]:
            return []
        new = [c for c in now if c not in h.alarms[s]]
        h.alarms[s] = tuple(now)
        names = self.V.alarm_names
        return [Event("alarm", s, {"code": c, "zh": names.get(c, (c, c))[0], "en": names.get(c, (c, c))[1]})
                for c in new]

    def _resolve(self) -> list[Event]:
        """Every seat in the window has answered: wins first, then pung/kong, then chi."""
        h = self.hand
        robbing = h.phase == "rob"
        src = h.rob if robbing else h.last_discard
        assert src is not None
        d, tile = src
        order = sorted(h.responses, key=lambda o: (o - d) % 4)
        wins = [o for o in order if h.responses[o].type == "win"]
        ev: list[Event] = []
        for o in order:  # 漏胡 and (Chizhou) passed-peng locks
            offered = {x.type for x in h.window[o]}
            got = h.responses[o].type
            if "win" in offered and got != "win":
                h.furiten[o] = True
            if self.V.pass_locks_pung and "pung" in offered and got not in ("pung", "kong", "win"):
                h.pung_lock[o].add(tile)
        if wins:
            if not self.V.multiple_winners:
                wins = wins[:1]
            if not robbing:
                h.rivers[d][-1][1] = "won"
            return ev + self._finish([(o, tile, d, robbing) for o in wins])
        if robbing:
            return ev + self._complete_added_kong(d, tile)
        claim = next((h.responses[o] for o in order if h.responses[o].type in ("pung", "kong")), None)
        if claim is None:
            claim = next((h.responses[o] for o in order if h.responses[o].type == "chi"), None)
        h.window, h.responses = {}, {}
        h.phase = "play"
        if claim is None:
            return ev + self._draw_next((d + 1) % 4)
        s = claim.seat
        h.rivers[d][-1][1] = "claimed"
        h.any_meld = True
        h.turn = s
        h.kong_draw = False
        if claim.type == "chi":
            low = claim.tile
            assert low is not None
            for x in (low, low + 1, low + 2):
                if x != tile:
                    h.counts[s][x] -= 1
                    h.seen[x] += 1
            h.melds[s].append(Meld(MeldKind.CHI, low, d, tile))
            h.after_claim = True
            return ev + [Event("chi", s, {"tile": tile_name(tile), "tiles": [tile_name(low + i) for i in range(3)],
                                          "from": d})] + self._after_meld(s)
        if claim.type == "pung":
            h.counts[s][tile] -= 2
            h.seen[tile] += 2
            h.melds[s].append(Meld(MeldKind.PUNG, tile, d))
            h.after_claim = True
            return ev + [Event("pung", s, {"tile": tile_name(tile), "from": d})] + self._after_meld(s)
        h.counts[s][tile] -= 3
        h.seen[tile] += 3
        h.melds[s].append(Meld(MeldKind.KONG, tile, d))
        h.after_claim = False
        ev += [Event("kong", s, {"tile": tile_name(tile), "kind": "claimed", "from": d})] + self._after_meld(s)
        return ev + self._draw(s, replacement=True)

    def _draw_next(self, s: int) -> list[Event]:
        h = self.hand
        h.phase = "play"
        h.turn = s
        h.after_claim = False
        h.kong_draw = False
        h.window, h.responses = {}, {}
        ev: list[Event] = []
        reserve = self.V.reserve
        if reserve:
            if h.last_four < 0 and self.live <= reserve:
                h.last_four = 0
                ev.append(Event("last_four", None, {"wall_count": self.live}))
            if h.last_four >= 0:
                if h.last_four >= reserve or self.live == 0:
                    return ev + self._finish([])
                h.last_four += 1
        if self.live == 0:
            return ev + self._finish([])
        return ev + self._draw(s)

    def _draw(self, s: int, replacement: bool = False) -> list[Event]:
        h = self.hand
        if replacement:
            h.tail -= 1
            k = h.wall[h.tail]
        else:
            k = h.wall[h.head]
            h.head += 1
        h.counts[s][k] += 1
        h.drawn[s] = k
        h.turn = s
        h.phase = "play"
        h.kong_draw = replacement
        h.after_claim = False
        h.furiten[s] = False
        h.pung_lock[s].clear()
        data: DrawData = {"tile": tile_name(k), "replacement": replacement, "wall_count": self.live}
        return [Event("draw", s, data, to=s)]

    # ------------------------------------------------------------------------------------------------ settlement

    def _finish(self, wins: list[Win]) -> list[Event]:
        """End the hand: score every (winner, tile, discarder, robbed) or a drawn hand; the variant's settlement
        policy moves the money and says whether the match is over."""
        h, m = self.hand, self.match
        policy = self.V.settlement
        ev: list[Event] = []
        pay = [0, 0, 0, 0]
        jiao = [0, 0, 0, 0]
        winners: list[WinnerResult] = []
        dealer = m.dealer
        for seat, tile, d, robbed in wins:
            assert tile is not None
            hand, sit = self._hand_situation(seat, tile, d, robbed)
            r = self.V.score(hand, sit, m.rules)
            to_chair = [r.payments[(c - dealer) % 4] for c in range(4)]
            sp = [r.stack_payments[(c - dealer) % 4] for c in range(4)]
            jp = [r.jiao_payments[(c - dealer) % 4] for c in range(4)]
            paid = policy.settle(m.ledger, to_chair, sp, jp)
            for c in range(4):
                pay[c] += paid.settled[c]
                jiao[c] += paid.jiao[c]
            w: WinnerResult = {
                "seat": seat, "tile": tile_name(tile), "from": d, "rob_kong": robbed, "self_drawn": d is None,
                "kong_draw": sit.kong_draw, "hand": [tile_name(k) for k in hand.concealed],
                "melds": [_meld_json(x) for x in h.melds[seat]],
                "items": [i.as_json() for i in r.items],
                "notes": [i.as_json() for i in r.notes], "payments": to_chair, "settled": paid.settled,
                "jiao": paid.jiao,
            }
            winners.append(w)
            ev.append(Event("win", seat, {k: v for k, v in w.items() if k != "seat"}))
        result: HandResult = {"hand_no": m.hand_no, "dealer": dealer, "winners": winners, "draw": not wins,
                              "payments": pay, "jiao": jiao}
        m.last_result = result
        # dealer rotation (W13, H8, C10)
        dealer_won = any(s == dealer for s, *_ in wins)
        m.dealer, m.streak, passed = self.V.next_dealer(dealer, m.streak, dealer_won, not wins)
        if passed:
            m.ledger.passes += 1
        end: HandEndData = {
            "hand_no": m.hand_no, "draw": not wins, "payments": pay, "dealer": dealer,
            "next_dealer": m.dealer, "reveal": {"salt": h.salt, "wall": [tile_name(k) for k in h.wall]},
            "commitment": h.commitment,
            "hands": [[tile_name(k) for k in range(NUM_KINDS) for _ in range(h.counts[s][k])] for s in range(4)],
        }
        ev.append(Event("hand_end", None, end))
        m.hand_no += 1
        h.phase = "ended"
        h.window, h.responses = {}, {}
        extra, over = policy.end_hand(m.ledger, m.rules)
        ev += [Event(typ, None, data) for typ, data in extra]
        if over:
            h.phase = "over"
            ev.append(Event("match_end", None, {"totals": self.totals()}))
        return ev

    def totals(self) -> list[int]:
        """Each seat's result so far (the variant's settlement: Wuhu stack change over the 底 + 交 tally; others the
        summed scores)."""
        return self.V.settlement.totals(self.match.ledger, self.hand.phase == "over")

    # ------------------------------------------------------------------------------------------------ checks

    def tiles_accounted(self) -> bool:
        """Every tile of the wall is in exactly one place: a hand, a meld, a river (not claimed) or the wall."""
        h = self.hand
        n = self.live + sum(sum(c) for c in h.counts)
        n += sum(len(m.tiles) for ms in h.melds for m in ms)
        n += sum(1 for r in h.rivers for _t, st in r if st != "claimed")
        return n == self.match.total_tiles

    def _state(self) -> dict[str, Any]:
        h, m, led = self.hand, self.match, self.match.ledger
        return {
            "v": m.variant, "seed": str(m.seed), "rules": {k: m.rules[k] for k in sorted(m.rules)},
            "players": m.players, "seq": m.seq, "hand_no": m.hand_no, "dealer": m.dealer,
            "streak": m.streak, "passes": led.passes, "scores": led.scores, "jiao": led.jiao,
            "di": [led.di_no, led.di_results, led.stacks], "phase": h.phase, "wall": h.wall,
            "hp": [h.head, h.tail], "counts": h.counts, "drawn": h.drawn,
            "melds": [[_meld_json(x) for x in ms] for ms in h.melds], "rivers": h.rivers,
            "alarms": h.alarms, "furiten": h.furiten, "locks": [sorted(x) for x in h.pung_lock],
            "turn": h.turn, "flags": [h.after_claim, h.kong_draw, h.last_four, h.discards_made, h.any_meld],
            "window": {str(k): [a.to_json() for a in v] for k, v in sorted(h.window.items())},
            "responses": {str(k): v.to_json() for k, v in sorted(h.responses.items())},
            "last": h.last_discard, "rob": h.rob, "dice": h.dice, "commit": h.commitment,
        }

    def state_hash(self) -> str:
        """sha256 of a canonical serialisation of the whole state (wall included)."""
        return hashlib.sha256(json.dumps(self._state(), sort_keys=True, default=str).encode()).hexdigest()

    def view(self, seat: int | None = None) -> View:
        """What ``seat`` may see (None: the public view); see :func:`engine.table.views.build_view`."""
        return build_view(self.match, self.hand, seat, legal=self.legal_actions(seat),
                          ledger=self.V.settlement.view(self.match.ledger), totals=self.totals())
