"""The table: one match of one variant as a pure state machine (see the package docstring for the API)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from importlib import import_module
from typing import Any

from ..analysis import is_complete, is_seven_pairs
from ..errors import EngineError
from ..tiles import HONOR, NUM_KINDS, SEATS, Hand, Meld, MeldKind, from_counts, tile_name
from ..variants import VARIANT_KEYS, Situation, get_variant
from .actions import Action, Event, IllegalAction, parse_tile
from .wall import break_wall, commitment, deal_order, hand_rng, hand_salt, roll

# Variant flow constants (DECISIONS): reserve = tiles that end normal play (Wuhu W3, Hefei H7: the last four).
_LAST_FOUR = {"wuhu": 4, "hefei": 4, "chizhou": 0}
_DEFAULT_QUAN = {"hefei": 1, "chizhou": 1}

PHASES = ("play", "claim", "rob", "ended", "over")


def _wind_meld(m: Meld, dealer: int) -> Meld:
    if m.fed_by is None:
        return m
    return Meld(m.kind, m.tile, (m.fed_by - dealer) % 4, m.claimed, m.added)


def _meld_json(m: Meld) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": str(m.kind), "tile": tile_name(m.tile), "tiles": [tile_name(t) for t in m.tiles]}
    if m.fed_by is not None:
        out["fed_by"] = m.fed_by
    if m.claimed is not None:
        out["claimed"] = tile_name(m.claimed)
    if m.added:
        out["added"] = True
    return out


class Table:
    """One match at one table. Build with :meth:`new` or :meth:`replay`; drive with :meth:`apply`.

    ``seat`` everywhere in this API is the player's chair 0-3 (``players[seat]``), fixed for the match; the chair's
    wind in the current hand is ``(seat - dealer) % 4`` (E = the dealer).
    """

    # ------------------------------------------------------------------------------------------------ building

    @classmethod
    def new(
        cls,
        variant: str,
        seed: int | str,
        settings: Mapping[str, Any] | None = None,
        players: Sequence[str] = ("AI",) * 4,
        *,
        wall: Sequence[int | str] | None = None,
        dealer: int | None = None,
    ) -> Table:
        """A new match; its first hand is dealt at once.

        ``settings``: the variant's house rules (``VARIANT.rules`` keys: Wuhu ``mode`` 315/525, ``di_per_match``,
        Hefei/Chizhou ``quan_per_match`` ...). ``wall`` (tests, puzzles): the first hand's draw order instead of the
        seeded shuffle (see :func:`engine.table.wall.arrange`); ``dealer``: the first dealer's chair instead of the
        dice.
        """
        if variant not in VARIANT_KEYS:
            raise EngineError("bad_rule_value", key="variant", value=variant, expected="/".join(VARIANT_KEYS))
        if len(players) != 4:
            raise IllegalAction("bad_players", n=len(players))
        t = cls()
        t.variant = variant
        t.V = get_variant(variant)
        t.mod = import_module(f"engine.variants.{variant}")
        t.seed = seed
        t.settings = dict(settings or {})
        t.rules = t.V.rules(t.settings)
        t.players = tuple(str(p) for p in players)
        t.total_tiles = sum(t.V.tile_counts(t.rules))
        t.reserve = _LAST_FOUR[variant]
        t.seq = 0
        t.hand_no = 0
        t.passes = 0
        t.streak = 1
        t.scores = [0, 0, 0, 0]
        t.jiao = [0, 0, 0, 0]
        t.di_no = 0
        t.di_results = [0, 0, 0, 0]
        if variant == "wuhu":
            t.stack_base = 30 if int(t.rules.get("mode", 315)) == 315 else 50
        else:
            t.stack_base = 0
        t.stacks = [t.stack_base] * 4
        t.last_result: dict[str, Any] | None = None
        t.next_events: list[Event] = []
        if wall is not None:
            wl = [parse_tile(x) for x in wall]
            counts = [0] * NUM_KINDS
            for k in wl:
                counts[k] += 1
            if tuple(counts) != tuple(t.V.tile_counts(t.rules)):
                raise IllegalAction("bad_wall", why=f"{len(wl)} tiles, {t.total_tiles} expected with these counts")
            t._fixed_wall: list[int] | None = wl
        else:
            t._fixed_wall = None
        rng = hand_rng(variant, seed, -1)
        t.first_dice = roll(rng)
        t.dealer = dealer % 4 if dealer is not None else (sum(t.first_dice) - 1) % 4
        t.start_events = [Event("match_start", None, {"variant": variant, "players": list(t.players),
                                                      "dice": list(t.first_dice), "dealer": t.dealer})]
        t.start_events += t._start_hand()
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
        """Picklable (the store may cache tables; the size figure uses it): the variant module is looked up again."""
        d = dict(self.__dict__)
        d.pop("V", None)
        d.pop("mod", None)
        return d

    def __setstate__(self, d: dict[str, Any]) -> None:
        self.__dict__.update(d)
        self.V = get_variant(self.variant)
        self.mod = import_module(f"engine.variants.{self.variant}")

    @property
    def live(self) -> int:
        """Tiles left in the wall."""
        return self.tail - self.head

    def wind(self, seat: int) -> int:
        return (seat - self.dealer) % 4

    def _start_hand(self) -> list[Event]:
        rng = hand_rng(self.variant, self.seed, self.hand_no)
        if self.hand_no == 0 and self._fixed_wall is not None:
            order = list(self._fixed_wall)
            dice = [roll(rng)] + ([roll(rng)] if self.variant == "chizhou" else [])
            brk = {"side": (sum(dice[0]) - 1) % 4, "stacks": sum(sum(d) for d in dice), "start": 0}
        else:
            physical = [k for k, n in enumerate(self.V.tile_counts(self.rules)) for _ in range(n)]
            rng.shuffle(physical)
            dice = [roll(rng)] + ([roll(rng)] if self.variant == "chizhou" else [])
            order, brk = break_wall(physical, dice)
        self.wall = order
        self.salt = hand_salt(self.variant, self.seed, self.hand_no)
        self.commitment = commitment(order, self.salt)
        self.dice = [list(d) for d in dice]
        self.wall_break = brk
        self.head = 0
        self.tail = len(order)
        self.counts = [[0] * NUM_KINDS for _ in range(4)]
        self.drawn: list[int | None] = [None] * 4
        self.melds: list[list[Meld]] = [[], [], [], []]
        self.rivers: list[list[list[Any]]] = [[], [], [], []]  # [tile, status]: "", "claimed", "won", "dead"
        self.alarms: list[tuple[str, ...]] = [(), (), (), ()]
        self.furiten = [False] * 4
        self.pung_lock: list[set[int]] = [set(), set(), set(), set()]
        self.turn = self.dealer
        self.phase = "play"
        self.after_claim = False
        self.kong_draw = False
        self.last_four = -1
        self.window: dict[int, list[Action]] = {}
        self.responses: dict[int, Action] = {}
        self.last_discard: tuple[int, int] | None = None
        self.rob: tuple[int, int] | None = None
        self.discards_made = 0
        self.any_meld = False
        self.seen = [0] * NUM_KINDS  # public: every river tile and every meld tile
        events = [
            Event("hand_start", None, {
                "hand_no": self.hand_no, "dealer": self.dealer, "dealer_streak": self.streak, "dice": self.dice,
                "wall_break": dict(brk), "commitment": self.commitment, "wall_count": len(order),
            })
        ]
        dealt: list[list[int]] = [[], [], [], []]
        for pos, (p, _i) in enumerate(deal_order()):
            seat = (self.dealer + p) % 4
            k = order[pos]
            dealt[seat].append(k)
            self.counts[seat][k] += 1
        self.head = 53
        self.drawn[self.dealer] = dealt[self.dealer][-1]
        for s in range(4):
            events.append(Event("deal", s, {"tiles": [tile_name(k) for k in sorted(dealt[s])]}, to=s))
        return events

    # ------------------------------------------------------------------------------------------------ helpers

    def _wind_melds(self) -> tuple[tuple[Meld, ...], ...]:
        """Every seat's melds in wind order (E first), fed_by as winds: what the scorers expect."""
        return tuple(tuple(_wind_meld(m, self.dealer) for m in self.melds[(self.dealer + w) % 4]) for w in range(4))

    def _shape_ok(self, seat: int, counts: Sequence[int]) -> bool:
        if is_complete(counts):
            return True
        return bool(self.V.seven_pairs and not self.melds[seat] and is_seven_pairs(counts))

    def _hand_situation(self, seat: int, tile: int, discarder: int | None, rob: bool = False) -> tuple[Hand, Situation]:
        c = list(self.counts[seat])
        if discarder is None:
            c[tile] -= 1
        concealed = tuple(k for k in range(NUM_KINDS) for _ in range(c[k]))
        wm = self._wind_melds()
        w = self.wind(seat)
        hand = Hand(concealed, wm[w], tile)
        heavenly = (discarder is None and seat == self.dealer and self.discards_made == 0 and not self.any_meld)
        # 地胡 (W7): on the dealer's first discard, before any claim. Nothing can be claimed before that discard, so
        # the only meld possible then is a concealed kong of the dealer, which is not a claim and does not prevent it.
        earthly = discarder == self.dealer and not rob and self.discards_made == 1
        sit = Situation(
            winner=w,
            discarder=None if discarder is None else self.wind(discarder),
            kong_draw=self.kong_draw and discarder is None,
            rob_kong=rob,
            last_tiles=self.last_four >= 0,
            heavenly=heavenly,
            earthly=earthly,
            dealer_streak=self.streak,
            melds_by_seat=wm,
            concealed_by_seat=tuple(
                tuple(from_counts(self.counts[(self.dealer + v) % 4])) for v in range(4)
            ),
        )
        return hand, sit

    def _can_win(self, seat: int, tile: int, discarder: int | None, rob: bool = False) -> bool:
        c = self.counts[seat]
        if discarder is not None:
            c = list(c)
            c[tile] += 1
        if not self._shape_ok(seat, c):
            return False
        hand, sit = self._hand_situation(seat, tile, discarder, rob)
        return self.V.can_win(hand, sit, self.rules)

    def _kong_room(self) -> bool:
        return self.live > self.reserve

    def _may_pung(self, seat: int, tile: int, kind: str) -> bool:
        if self.variant == "hefei":
            return self.mod.may_claim(self.melds[seat], self.rules)
        if self.variant == "chizhou":
            if tile in self.pung_lock[seat]:
                return False
            return self.mod.claim_allowed(self.melds[seat], kind, [tile] * (3 if kind == "pung" else 4))
        return True

    def _furiten_exempt(self, seat: int, tile: int) -> bool:
        """Chizhou's 大吊车 exception to 漏胡 (C3): one concealed tile, waiting on the kind the seat last discarded."""
        if self.variant != "chizhou":
            return False
        river = self.rivers[seat]
        return sum(self.counts[seat]) == 1 and self.counts[seat][tile] == 1 and bool(river) and river[-1][0] == tile

    def _claim_options(self, seat: int, d: int, tile: int) -> list[Action]:
        opts: list[Action] = []
        if (not self.furiten[seat] or self._furiten_exempt(seat, tile)) and self._can_win(seat, tile, d):
            opts.append(Action("win", seat))
        n = self.counts[seat][tile]
        if n >= 2 and self._may_pung(seat, tile, "pung"):
            opts.append(Action("pung", seat, tile))
        if n >= 3 and self._kong_room() and self._may_pung(seat, tile, "kong"):
            opts.append(Action("kong", seat, tile))
        if self.V.allows_chi and seat == (d + 1) % 4 and tile < HONOR:
            c = self.counts[seat]
            r = tile % 9
            for low in (tile - 2, tile - 1, tile):
                lr = low - (tile - r)
                if lr < 0 or lr > 6:
                    continue
                run = (low, low + 1, low + 2)
                if all(c[x] >= 1 for x in run if x != tile) and (
                    self.variant != "chizhou" or self.mod.claim_allowed(self.melds[seat], "chi", list(run))
                ):
                    opts.append(Action("chi", seat, low))
        return opts

    def awaited(self) -> list[int]:
        """Seats whose action the table is waiting for (any seat may send next_hand when a hand has ended)."""
        if self.phase == "play":
            return [self.turn]
        if self.phase in ("claim", "rob"):
            return [s for s in sorted(self.window) if s not in self.responses]
        if self.phase == "ended":
            return [0, 1, 2, 3]
        return []

    # ------------------------------------------------------------------------------------------------ legality

    def legal_actions(self, seat: int) -> list[Action]:
        """What ``seat`` may do now (a ``timeout`` is also accepted from any awaited seat; it is not listed)."""
        if self.phase == "over" or seat not in (0, 1, 2, 3):
            return []
        if self.phase == "ended":
            return [Action("next_hand", seat)]
        if self.phase in ("claim", "rob"):
            if seat in self.window and seat not in self.responses:
                return self.window[seat] + [Action("pass", seat)]
            return []
        if seat != self.turn:
            return []
        c = self.counts[seat]
        out: list[Action] = []
        drawn = self.drawn[seat]
        if self.last_four >= 0:
            if drawn is not None and self._can_win(seat, drawn, None):
                out.append(Action("win", seat))
            out.append(Action("pass", seat))
            return out
        if not self.after_claim:
            if drawn is not None and self._can_win(seat, drawn, None):
                out.append(Action("win", seat))
            if self._kong_room():
                if 4 in c and (self.variant != "hefei" or self.mod.may_concealed_kong(self.melds[seat], self.rules)):
                    out += [Action("kong", seat, k) for k in range(NUM_KINDS) if c[k] == 4]
                for m in self.melds[seat]:
                    if m.kind is MeldKind.PUNG and c[m.tile]:
                        out.append(Action("kong", seat, m.tile))
        out += [Action("discard", seat, k) for k in range(NUM_KINDS) if c[k]]
        return out

    def _timeout_action(self, seat: int) -> Action:
        if self.phase == "ended":
            return Action("next_hand", seat)
        if self.phase in ("claim", "rob"):
            return Action("pass", seat)
        if self.last_four >= 0:
            return Action("pass", seat)
        k = self.drawn[seat]
        if k is None or self.after_claim:
            k = max(i for i in range(NUM_KINDS) if self.counts[seat][i])
        return Action("discard", seat, k)

    # ------------------------------------------------------------------------------------------------ apply

    def apply(self, action: Action | Mapping[str, Any]) -> list[Event]:
        """Apply one action and return what happened. Raises :class:`IllegalAction` and changes nothing when the
        action is illegal, out of turn, or the match is over."""
        if not isinstance(action, Action):
            action = Action.from_json(action)
        seat = action.seat
        if self.phase == "over":
            raise IllegalAction("match_over")
        if seat not in (0, 1, 2, 3):
            raise IllegalAction("bad_seat_number", seat=seat)
        who = f"{SEATS[self.wind(seat)]} ({self.players[seat]})"
        if seat not in self.awaited():
            raise IllegalAction("not_your_turn", seat=who)
        eff = self._timeout_action(seat) if action.type == "timeout" else action
        fast = (eff.type == "discard" and self.phase == "play" and self.last_four < 0 and eff.tile is not None
                and 0 <= eff.tile < NUM_KINDS and self.counts[seat][eff.tile] > 0)
        if not fast and eff not in self.legal_actions(seat):
            raise IllegalAction("illegal_action", seat=who, what=eff.describe("en"), what_zh=eff.describe("zh"))
        self.seq += 1
        ev: list[Event] = []
        if eff.type != action.type:
            ev.append(Event("timeout", seat, {"as": eff.to_json()}))
        if self.phase == "ended":
            ev += self._start_hand()
        elif self.phase in ("claim", "rob"):
            self.responses[seat] = eff
            if not self.awaited():
                ev += self._resolve()
        else:
            ev += self._play(eff)
        return ev

    def _play(self, a: Action) -> list[Event]:
        s = a.seat
        if a.type == "win":
            return self._finish([(s, self.drawn[s], None, False)])
        if a.type == "pass":  # last-four phase: the drawn tile is laid aside face up
            k = self.drawn[s]
            assert k is not None
            self.counts[s][k] -= 1
            self.drawn[s] = None
            self.rivers[s].append([k, "dead"])
            self.seen[k] += 1
            return [Event("lay_aside", s, {"tile": tile_name(k)})] + self._draw_next((s + 1) % 4)
        if a.type == "kong":
            k = a.tile
            assert k is not None
            if self.counts[s][k] == 4:
                self.counts[s][k] = 0
                self.seen[k] += 4
                self.melds[s].append(Meld(MeldKind.CONCEALED_KONG, k))
                self.any_meld = True
                ev = [Event("kong", s, {"tile": tile_name(k), "kind": "concealed"})]
                return ev + self._after_meld(s) + self._draw(s, replacement=True)
            # added kong: others may rob it where allowed
            ev = [Event("add_kong", s, {"tile": tile_name(k)})]
            if self.V.rob_kong:
                window = {}
                for o in range(4):
                    if o != s and not self.furiten[o] and self._can_win(o, k, s, rob=True):
                        window[o] = [Action("win", o)]
                if window:
                    self.phase = "rob"
                    self.rob = (s, k)
                    self.window = window
                    self.responses = {}
                    return ev + [Event("rob_window", s, {"tile": tile_name(k)})]
            return ev + self._complete_added_kong(s, k)
        # discard
        k = a.tile
        assert k is not None
        self.counts[s][k] -= 1
        self.drawn[s] = None
        self.after_claim = False
        self.kong_draw = False
        self.rivers[s].append([k, ""])
        self.seen[k] += 1
        self.last_discard = (s, k)
        self.discards_made += 1
        ev = [Event("discard", s, {"tile": tile_name(k)})]
        window = {}
        # The discard made as the wall reaches the last four (W3, H7): Wuhu allows nothing on it; Hefei no claims
        # (H7 forbids claims and discards once 4 remain) but a win on it, which is not a 海捞 win.
        final = bool(self.reserve) and self.live <= self.reserve
        for o in range(4):
            if o != s:
                opts = self._claim_options(o, s, k)
                if final:
                    opts = [x for x in opts if x.type == "win" and self.variant == "hefei"]
                if opts:
                    window[o] = opts
        if not window:
            return ev + self._draw_next((s + 1) % 4)
        self.phase = "claim"
        self.window = window
        self.responses = {}
        return ev + [Event("claim_window", s, {"tile": tile_name(k)})]

    def _complete_added_kong(self, s: int, k: int) -> list[Event]:
        self.phase = "play"
        self.rob = None
        self.window, self.responses = {}, {}
        for i, m in enumerate(self.melds[s]):
            if m.kind is MeldKind.PUNG and m.tile == k:
                self.melds[s][i] = Meld(MeldKind.KONG, k, m.fed_by, None, True)
                break
        self.counts[s][k] -= 1
        self.seen[k] += 1
        self.any_meld = True
        ev = [Event("kong", s, {"tile": tile_name(k), "kind": "added"})]
        return ev + self._after_meld(s) + self._draw(s, replacement=True)

    def _after_meld(self, s: int) -> list[Event]:
        if self.variant != "wuhu":
            return []
        now = self.mod.alarms([_wind_meld(m, self.dealer) for m in self.melds[s]])
        new = [c for c in now if c not in self.alarms[s]]
        self.alarms[s] = tuple(now)
        names = getattr(self.mod, "ALARM_NAMES", {})
        return [Event("alarm", s, {"code": c, "zh": names.get(c, (c, c))[0], "en": names.get(c, (c, c))[1]})
                for c in new]

    def _resolve(self) -> list[Event]:
        """Every seat in the window has answered: wins first, then pung/kong, then chi."""
        robbing = self.phase == "rob"
        d, tile = self.rob if robbing else self.last_discard  # type: ignore[misc]
        order = sorted(self.responses, key=lambda o: (o - d) % 4)
        wins = [o for o in order if self.responses[o].type == "win"]
        ev: list[Event] = []
        for o in order:  # 漏胡 and (Chizhou) passed-peng locks
            offered = {x.type for x in self.window[o]}
            got = self.responses[o].type
            if "win" in offered and got != "win":
                self.furiten[o] = True
            if self.variant == "chizhou" and "pung" in offered and got not in ("pung", "kong", "win"):
                self.pung_lock[o].add(tile)
        if wins:
            if not self.V.multiple_winners:
                wins = wins[:1]
            if not robbing:
                self.rivers[d][-1][1] = "won"
            return ev + self._finish([(o, tile, d, robbing) for o in wins])
        if robbing:
            return ev + self._complete_added_kong(d, tile)
        claim = next((self.responses[o] for o in order if self.responses[o].type in ("pung", "kong")), None)
        if claim is None:
            claim = next((self.responses[o] for o in order if self.responses[o].type == "chi"), None)
        self.window, self.responses = {}, {}
        self.phase = "play"
        if claim is None:
            return ev + self._draw_next((d + 1) % 4)
        s = claim.seat
        self.rivers[d][-1][1] = "claimed"
        self.any_meld = True
        self.turn = s
        self.kong_draw = False
        if claim.type == "chi":
            low = claim.tile
            assert low is not None
            for x in (low, low + 1, low + 2):
                if x != tile:
                    self.counts[s][x] -= 1
                    self.seen[x] += 1
            self.melds[s].append(Meld(MeldKind.CHI, low, d, tile))
            self.after_claim = True
            return ev + [Event("chi", s, {"tile": tile_name(tile), "tiles": [tile_name(low + i) for i in range(3)],
                                          "from": d})] + self._after_meld(s)
        if claim.type == "pung":
            self.counts[s][tile] -= 2
            self.seen[tile] += 2
            self.melds[s].append(Meld(MeldKind.PUNG, tile, d))
            self.after_claim = True
            return ev + [Event("pung", s, {"tile": tile_name(tile), "from": d})] + self._after_meld(s)
        self.counts[s][tile] -= 3
        self.seen[tile] += 3
        self.melds[s].append(Meld(MeldKind.KONG, tile, d))
        self.after_claim = False
        ev += [Event("kong", s, {"tile": tile_name(tile), "kind": "claimed", "from": d})] + self._after_meld(s)
        return ev + self._draw(s, replacement=True)

    def _draw_next(self, s: int) -> list[Event]:
        self.phase = "play"
        self.turn = s
        self.after_claim = False
        self.kong_draw = False
        self.window, self.responses = {}, {}
        ev: list[Event] = []
        if self.reserve:
            if self.last_four < 0 and self.live <= self.reserve:
                self.last_four = 0
                ev.append(Event("last_four", None, {"wall_count": self.live}))
            if self.last_four >= 0:
                if self.last_four >= self.reserve or self.live == 0:
                    return ev + self._finish([])
                self.last_four += 1
        if self.live == 0:
            return ev + self._finish([])
        return ev + self._draw(s)

    def _draw(self, s: int, replacement: bool = False) -> list[Event]:
        if replacement:
            self.tail -= 1
            k = self.wall[self.tail]
        else:
            k = self.wall[self.head]
            self.head += 1
        self.counts[s][k] += 1
        self.drawn[s] = k
        self.turn = s
        self.phase = "play"
        self.kong_draw = replacement
        self.after_claim = False
        self.furiten[s] = False
        self.pung_lock[s].clear()
        return [Event("draw", s, {"tile": tile_name(k), "replacement": replacement, "wall_count": self.live}, to=s)]

    # ------------------------------------------------------------------------------------------------ settlement

    def _finish(self, wins: list[tuple[int, int | None, int | None, bool]]) -> list[Event]:
        """End the hand: score and settle every (winner, tile, discarder, robbed) or a drawn hand."""
        ev: list[Event] = []
        pay = [0, 0, 0, 0]
        jiao = [0, 0, 0, 0]
        result: dict[str, Any] = {"hand_no": self.hand_no, "dealer": self.dealer, "winners": [], "draw": not wins}
        for seat, tile, d, robbed in wins:
            assert tile is not None
            hand, sit = self._hand_situation(seat, tile, d, robbed)
            r = self.V.score(hand, sit, self.rules)
            to_chair = [r.payments[(c - self.dealer) % 4] for c in range(4)]
            sp = [r.stack_payments[(c - self.dealer) % 4] for c in range(4)]
            jp = [r.jiao_payments[(c - self.dealer) % 4] for c in range(4)]
            if self.variant == "wuhu":
                if not any(sp) and not any(jp):
                    sp = to_chair
                actual = [0, 0, 0, 0]
                for c in range(4):
                    if sp[c] < 0:
                        paid = min(-sp[c], max(self.stacks[c] + actual[c], 0))
                        actual[c] -= paid
                gained = -sum(actual)
                receivers = [c for c in range(4) if sp[c] > 0]
                if receivers:
                    actual[receivers[0]] += gained
                for c in range(4):
                    self.stacks[c] += actual[c]
                    self.jiao[c] += jp[c]
                    pay[c] += actual[c] + jp[c]
                    jiao[c] += jp[c]
                settled = [actual[c] + jp[c] for c in range(4)]
            else:
                for c in range(4):
                    self.scores[c] += to_chair[c]
                    pay[c] += to_chair[c]
                settled = to_chair
            w = {
                "seat": seat, "tile": tile_name(tile), "from": d, "rob_kong": robbed, "self_drawn": d is None,
                "kong_draw": sit.kong_draw, "hand": [tile_name(k) for k in hand.concealed],
                "melds": [_meld_json(m) for m in self.melds[seat]], "items": [i.as_json() for i in r.items],
                "notes": [i.as_json() for i in r.notes], "payments": to_chair, "settled": settled,
            }
            result["winners"].append(w)
            ev.append(Event("win", seat, {k: v for k, v in w.items() if k != "seat"}))
        result["payments"] = pay
        result["jiao"] = jiao
        self.last_result = result
        # dealer rotation (W13, H8, C10)
        dealer_won = any(s == self.dealer for s, *_ in wins)
        old_dealer = self.dealer
        if not wins or dealer_won:
            self.streak += 1
        else:
            self.dealer = (self.dealer + 1) % 4
            self.streak = 1
            self.passes += 1
        ev.append(Event("hand_end", None, {
            "hand_no": self.hand_no, "draw": not wins, "payments": pay, "dealer": old_dealer,
            "next_dealer": self.dealer, "reveal": {"salt": self.salt, "wall": [tile_name(k) for k in self.wall]},
            "commitment": self.commitment,
            "hands": [[tile_name(k) for k in range(NUM_KINDS) for _ in range(self.counts[s][k])] for s in range(4)],
        }))
        self.hand_no += 1
        self.phase = "ended"
        self.window, self.responses = {}, {}
        over = False
        if self.variant == "wuhu":
            if any(x <= 0 for x in self.stacks):
                for c in range(4):
                    self.di_results[c] += self.stacks[c] - self.stack_base
                self.di_no += 1
                ev.append(Event("di_end", None, {"di": self.di_no, "stacks": list(self.stacks)}))
                self.stacks = [self.stack_base] * 4
                over = self.di_no >= int(self.rules.get("di_per_match", 1))
        else:
            quan = int(self.rules.get("quan_per_match", _DEFAULT_QUAN[self.variant]))
            over = self.passes >= 4 * quan
        if over:
            self.phase = "over"
            ev.append(Event("match_end", None, {"totals": self.totals()}))
        return ev

    def totals(self) -> list[int]:
        """Each seat's result so far: Wuhu stack change over the 底 + 交 tally; others the summed scores."""
        if self.variant == "wuhu":
            cur = [0, 0, 0, 0] if self.phase == "over" else [s - self.stack_base for s in self.stacks]
            return [self.di_results[c] + cur[c] + self.jiao[c] for c in range(4)]
        return list(self.scores)

    # ------------------------------------------------------------------------------------------------ checks

    def tiles_accounted(self) -> bool:
        """Every tile of the wall is in exactly one place: a hand, a meld, a river (not claimed) or the wall."""
        n = self.live + sum(sum(c) for c in self.counts)
        n += sum(len(m.tiles) for ms in self.melds for m in ms)
        n += sum(1 for r in self.rivers for _t, st in r if st != "claimed")
        return n == self.total_tiles

    def _state(self) -> dict[str, Any]:
        return {
            "v": self.variant, "seed": str(self.seed), "rules": {k: self.rules[k] for k in sorted(self.rules)},
            "players": self.players, "seq": self.seq, "hand_no": self.hand_no, "dealer": self.dealer,
            "streak": self.streak, "passes": self.passes, "scores": self.scores, "jiao": self.jiao,
            "di": [self.di_no, self.di_results, self.stacks], "phase": self.phase, "wall": self.wall,
            "hp": [self.head, self.tail], "counts": self.counts, "drawn": self.drawn,
            "melds": [[_meld_json(m) for m in ms] for ms in self.melds], "rivers": self.rivers,
            "alarms": self.alarms, "furiten": self.furiten, "locks": [sorted(x) for x in self.pung_lock],
            "turn": self.turn, "flags": [self.after_claim, self.kong_draw, self.last_four, self.discards_made,
                                         self.any_meld],
            "window": {str(k): [a.to_json() for a in v] for k, v in sorted(self.window.items())},
            "responses": {str(k): v.to_json() for k, v in sorted(self.responses.items())},
            "last": self.last_discard, "rob": self.rob, "dice": self.dice, "commit": self.commitment,
        }

    def state_hash(self) -> str:
        """sha256 of a canonical serialisation of the whole state (wall included)."""
        return hashlib.sha256(json.dumps(self._state(), sort_keys=True, default=str).encode()).hexdigest()

    def view(self, seat: int | None = None) -> dict[str, Any]:
        from .views import build_view

        return build_view(self, seat)
