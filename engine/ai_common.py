"""What the normal and the strong AI share (:mod:`engine.ai`, :mod:`engine.strong`): a seat's model of its own
hand and of the unseen tiles (:class:`SeatReader`: the effective distance to a legal win, 八支 and the 花 gate), and the
normal AI's choice of a discard (:func:`best_discard`), a kong and a claim (:func:`claim_choice`). A module of its own so
that ``engine.ai``, which hands the strong difficulty to ``engine.strong``, and ``engine.strong``, which builds on
these, do not import each other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from typing import Any

from .analysis import (
    combine_groups,
    group_of,
    is_complete,
    is_seven_pairs,
    seven_pairs_shanten,
    shanten,
    shanten_groups,
)
from .rivers import passed_since, wind_meld
from .table.actions import Action
from .tiles import HONOR, NUM_KINDS, MeldKind
from .variants import get_variant

CHIZHOU_RON_WEIGHT = 2
"""Chizhou, choosing among ready discards: a winning tile that may also be won on a discard (3 花) counts this much
more than one that may only be self-drawn (2 花): three other players discard it."""

CHIZHOU_FEED_WALL = (30, 10)
"""Chizhou: a hand still :data:`CHIZHOU_FEED_NEED` or more tiles short of 2 花 when the wall is down to ``base + step x
(tiles short - CHIZHOU_FEED_NEED)`` will not win this hand (:func:`feed_discard`)."""

CHIZHOU_FEED_NEED = 2

CHIZHOU_FEED_RON: tuple[int, int, int] | None = (30, 10, 2)
"""Chizhou, the normal AI: ``(base, step, need)``: a hand ``need`` or more tiles short of 2 花 when the wall is down to
``base + step x (tiles short - need)`` (at most ``base + 3 step``; the thresholds of letting go,
:data:`CHIZHOU_FEED_WALL`), while another seat shows 3 花 or more in its declared melds (who may win on a discard,
C5), throws the tile that seat most likely waits on (:func:`ron_feed_discard`): in Chizhou a hand that cannot win gains
nothing from a drawn one. None: off. Measured (four normal AIs, one-hand deals, paired by deal): drawn hands 38.75% ->
37.30% (seed 0, 2,000 deals) and 40.15% -> 38.25% (seed 1, 2,000 deals, not used to choose); the normal AI playing it
against three without it -0.006 +- 0.009 子 a hand (seed 0, 2,000 deals). A hand 1 tile short feeding too drew fewer
hands (36.55% / 37.10%) but its seat lost -0.016 +- 0.012 子 a hand (deal-ins 6.1% -> 7.5%): not kept."""

CHIZHOU_FEED_WEIGHT = (1.0, 2.0)
""":func:`ron_feed_discard`, per seat showing 3 花: the weight of an honour with a copy unseen, and of a suited tile
of a suit its suited melds show (any suit when they show none), against 1 for a suited tile of another suit; a
suited tile's weight times 1 for ranks 3-7, 0.7 for 2 / 8, 0.4 for 1 / 9. A tile in its river or let go by since its
own last discard (it did not win on it) weighs 0. Chosen on deals 0..599 of seed 0 (a hand 1 tile short feeding)
among (0, 2), (0.3, 1), (0.3, 2), (0.3, 4), (1, 2), (1, 4), (2, 2), (3, 2): drawn hands 37.3 / 37.2 / 36.7 / 36.5 /
35.8 / 36.2 / 35.8 / 35.7% against 39.7%; with the river alone as safe (not the tiles passed since), 37.7% at (0.3, 2)."""


def plain_actions(legal: Sequence[Action | Mapping[str, Any]]) -> list[Action]:
    """The legal actions as :class:`Action` objects, without the timeout an AI never chooses."""
    acts = [a if isinstance(a, Action) else Action.from_json(a) for a in legal]
    return [a for a in acts if a.type != "timeout"]


def forced(acts: Sequence[Action]) -> Action | None:
    """The action every difficulty takes without thinking: the only one, a win, or the next hand; else None."""
    if len(acts) == 1:
        return acts[0]
    return next((a for a in acts if a.type in ("win", "next_hand")), None)


def near_kinds(c: Sequence[int]) -> list[int]:
    """Kinds that could complete or improve a hand: held, or within two of a held suited tile."""
    out = []
    for k in range(NUM_KINDS):
        if c[k]:
            out.append(k)
        elif k < HONOR:
            base = k - k % 9
            lo, hi = max(base, k - 2), min(base + 9, k + 3)
            if any(c[lo:hi]):
                out.append(k)
    return out


def gate_distance(sh: int, hua: int) -> int:
    """Chizhou: steps to a legal win from the shanten and the tiles still needed for 2 花. Often one tile serves
    both (an honour pair's pung), so the larger counts; but a hand short of both is a step further than either.

    >>> gate_distance(0, 2), gate_distance(2, 0), gate_distance(1, 2)
    (2, 2, 3)
    """
    return max(sh, hua) + 1 if sh > 0 and hua > 0 else max(sh, hua)


@cache
def hua_tiles(honours: tuple[int, ...], firm: int, suited_triplets: int, upgrades: int = 0, pairs: int = 0) -> int:
    """Tiles needed to reach 2 花: an honour pair needs 1 (a pung: 1 花), a single honour 2, a suited concealed
    triplet 1 (a concealed kong: 2 花), a shown pung 1 (an added kong: +1 花), a suited pair 2 (pung, then kong:
    1 花); 3 per missing 花 beyond those.

    >>> hua_tiles((2, 0, 0, 0, 0, 0, 0), 0, 0)  # an honour pair: one tile to a pung, then 3 for a second 花
    4
    >>> hua_tiles((2, 0, 0, 0, 0, 0, 0), 0, 0, upgrades=1)  # and a shown pung one tile from a kong
    2
    """
    costs: list[tuple[int, int]] = [(1, 2)] * suited_triplets + [(1, 1)] * upgrades + [(2, 1)] * pairs
    for n in honours:
        if n >= 3:
            firm += 1
        elif n == 2:
            costs.append((1, 1))
        elif n == 1:
            costs.append((2, 1))
    need = 2 - firm
    tiles = 0
    for cost, gain in sorted(costs):
        if need <= 0:
            break
        tiles += cost
        need -= gain
    if need > 0:
        tiles += 3 * need
    return tiles


class SeatReader:
    """What the AI knows, all of it visible to its seat: own tiles and melds, public melds and rivers, the rules."""

    def __init__(self, view: Any, seat: int) -> None:
        self.source = view  # the view or the table, for what only a rare rule reads (shown_threats)
        self.seat = seat
        if isinstance(view, Mapping):
            self.variant = view["variant"]
            hand = view["hand"]
            own = [(m["tile"], len(m["tiles"]), m["kind"] == "concealed_kong") for m in view["melds"][seat]]
            pungs = [m["tile"] for m in view["melds"][seat] if m["kind"] == "pung"]
            seen = view["seen"]
            rules = view["rules"]
            self.counts = [0] * NUM_KINDS
            for k in hand:
                self.counts[k] += 1
            ld = view.get("last_discard")
            self.last_tile = ld["tile"] if ld else None
            self.wall = int(view["wall_count"])
        else:  # a Table: read only this seat's own tiles and public information (its declared state)
            h, m_state = view.hand, view.match
            self.variant = m_state.variant
            self.counts = list(h.counts[seat])
            melds = h.melds[seat]
            own = [(m.tile, len(m.tiles), m.kind is MeldKind.CONCEALED_KONG) for m in melds]
            pungs = [m.tile for m in melds if m.kind is MeldKind.PUNG]
            seen = h.seen
            rules = m_state.rules
            self.last_tile = h.last_discard[1] if h.last_discard else None
            self.wall = h.live
        V = get_variant(self.variant)
        self.ai = V.ai  # the variant's goals: 八支, the 花 gate, how honours and suits are weighed
        self.seven_pairs = V.seven_pairs
        self.n_melds = len(own)
        self.meld_suits = [0, 0, 0]
        self.meld_hua = 0
        for k, size, conc in own:
            if k < HONOR:
                self.meld_suits[k // 9] += size
            if k >= HONOR:
                self.meld_hua += (3 if conc else 2) if size == 4 else 1
            elif size == 4:
                self.meld_hua += 2 if conc else 1
        total = tile_totals(self.variant, rules)
        c = self.counts
        self.remaining = [max(0, total[k] - seen[k] - c[k]) for k in range(NUM_KINDS)]
        # shown pungs whose fourth tile is unseen or held: one tile from an added kong (+1 花)
        self.upg = sum(1 for k in pungs if self.remaining[k] or c[k])

    # effective distance to a legal win, lower is better
    def key(self, c: Sequence[int], n_melds: int, meld_suits: Sequence[int], meld_hua: int,
            upg: int | None = None) -> tuple[int, ...]:
        return self.key_sh(c, shanten(c, n_melds, seven_pairs=self.seven_pairs), meld_suits, meld_hua, upg)

    def key_sh(self, c: Sequence[int], sh: int, meld_suits: Sequence[int], meld_hua: int,
               upg: int | None = None) -> tuple[int, ...]:
        if self.ai.bazhi:
            best = max(sum(c[0:9]) + meld_suits[0], sum(c[9:18]) + meld_suits[1], sum(c[18:27]) + meld_suits[2])
            return max(sh, 7 - best), sh
        if not self.ai.hua_gate:
            return sh, sh
        # the 花 gate (2 花 to self-draw): tiles still needed to reach it
        u = self.upg if upg is None else upg
        need = self.hua_need(c, meld_hua, u)
        return gate_distance(sh, self.ready_need(c, meld_hua, need) if sh == 0 else need), sh

    def ready_need(self, c: Sequence[int], meld_hua: int, need: int) -> int:
        """Chizhou, a ready hand: 0 when some unseen tile wins it with 2 花 (an honour pair's third tile adds one),
        else at least 1: a ready shape no tile can make legal is still a step from a legal win."""
        hua = meld_hua + sum(1 for n in c[HONOR:NUM_KINDS] if n >= 3)
        if hua >= 2:
            return 0
        if hua == 1:  # only a self-drawn third tile of an honour pair adds the missing 花
            cc = list(c)
            for k in range(HONOR, NUM_KINDS):
                if cc[k] == 2 and self.remaining[k]:
                    cc[k] += 1
                    ok = is_complete(cc)
                    cc[k] -= 1
                    if ok:
                        return 0
        return max(need, 1)

    def legal_outs(self, c: Sequence[int], meld_hua: int) -> tuple[int, int]:
        """Chizhou, a ready (3n+1) hand: the unseen tiles that win it self-drawn (2 花) and on a discard (3 花)."""
        cc = list(c)
        hua = meld_hua + sum(1 for k in range(HONOR, NUM_KINDS) if cc[k] >= 3)
        own = own_ron = 0
        for k in near_kinds(cc):
            r = self.remaining[k]
            if not r:
                continue
            cc[k] += 1
            if is_complete(cc):
                h = hua + (1 if k >= HONOR and cc[k] == 3 else 0)
                if h >= 2:
                    own += r
                if h >= 3:
                    own_ron += r
            cc[k] -= 1
        return own, own_ron

    def hua_need(self, c: Sequence[int], meld_hua: int, upg: int) -> int:
        """Chizhou: tiles still needed for 2 花 (:func:`hua_tiles`), counting only the sources that can still grow:
        an honour pair with a copy unseen, an honour single with two, a suited triplet with its fourth unseen (a
        kong), a suited pair with two unseen. A pair whose other copies are all in sight is no step to a pung."""
        hon, trip, pairs = self.hua_parts(c)
        return hua_tiles(hon, meld_hua, min(trip, 2), upg, min(pairs, 2))

    def hua_parts(self, c: Sequence[int]) -> tuple[tuple[int, ...], int, int]:
        """The live 花 sources of :meth:`hua_need`: the honours (a dead pair or single as 0), the suited triplets and
        the suited pairs."""
        rem = self.remaining
        hon = tuple(n if n >= 3 or r >= 3 - n else 0 for n, r in zip(c[HONOR:NUM_KINDS], rem[HONOR:], strict=True))
        trip = pairs = 0
        for n, r in zip(c[:HONOR], rem[:HONOR], strict=True):
            if n >= 2:
                if n == 4 or (n == 3 and r):
                    trip += 1
                elif n == 2 and r >= 2:
                    pairs += 1
        return hon, trip, pairs

    def shown_threats(self) -> list[tuple[set[int], set[int]]]:
        """Chizhou: per other seat showing 3 花 or more in its declared melds (:func:`engine.variants.chizhou.
        shown_hua`): the suits of its suited melds and the kinds it may not win on a discard now (those in its river
        and those let go by since its own last discard, :func:`engine.rivers.passed_since`). Read from the
        public view only, and only when asked (:func:`ron_feed_discard`)."""
        from .variants.chizhou import shown_hua
        src = self.source
        # a Table: its seat's view is built only when some other seat shows 3 花 (rare)
        if not isinstance(src, Mapping) and all(o == self.seat or shown_hua(ms) < 3
                                                 for o, ms in enumerate(src.hand.melds)):
            return []
        v = src if isinstance(src, Mapping) else src.view(self.seat)
        out = []
        passed = None
        for o in range(4):
            ms = v["melds"][o]
            if o == self.seat or not ms or shown_hua([wind_meld(m, 0) for m in ms]) < 3:
                continue
            if passed is None:
                passed = passed_since(v) or [frozenset()] * 4
            safe = {int(x["tile"]) for x in v["rivers"][o]} | passed[o]
            out.append(({int(m["tile"]) // 9 for m in ms if int(m["tile"]) < HONOR}, safe))
        return out

    def main_suit(self, c: Sequence[int]) -> int:
        tot = [sum(c[s * 9 : s * 9 + 9]) + self.meld_suits[s] for s in range(3)]
        return max(range(3), key=lambda s: tot[s])

    def useful(self, c: list[int], key: tuple[int, int], n_melds: int) -> int:
        """Unseen tiles that would improve this (3n+1) hand's effective distance (a 3n+2 shanten is that of its
        best discard)."""
        out = 0
        groups = shanten_groups(c)
        sp = self.seven_pairs and n_melds == 0
        for k in range(NUM_KINDS):
            if not self.remaining[k]:
                continue
            if k < HONOR:
                base = k - k % 9
                if not any(c[j] for j in range(max(base, k - 2), min(base + 9, k + 3))):
                    continue
            elif not c[k]:
                continue
            s = k // 9
            c[k] += 1
            gs = list(groups)
            gs[s] = group_of(k, c)
            sh = combine_groups(gs, n_melds)
            if sp:
                sh = min(sh, seven_pairs_shanten(c))
            if (sh < key[1] or key[0] > key[1]) and self.key_sh(c, sh, self.meld_suits, self.meld_hua) < key:
                out += self.remaining[k]
            c[k] -= 1
        return out

    def waste(self, c: Sequence[int], k: int, main: int) -> float:
        """How little tile k does for the hand (higher = better to discard)."""
        n = c[k]
        if k >= HONOR:
            single, more = self.ai.honour_waste
            return single if n == 1 else more
        s, r = divmod(k, 9)
        near = sum(c[s * 9 + j] for j in range(max(0, r - 2), min(9, r + 3)) if j != r)
        w = 1.5 - 0.4 * near - (1.0 if n >= 2 else 0.0)
        w += 0.3 if r in (0, 8) else 0.0
        main_total = sum(c[main * 9 : main * 9 + 9]) + self.meld_suits[main]
        if main_total >= self.ai.suit_focus_from:
            w += 1.2 if s != main else -0.8
        if main_total >= 11 and s != main:  # close to one suit: 清一色 (a direct 交 in Wuhu, a big hand elsewhere)
            w += 1.5
        return w


_TOTALS: dict[tuple[Any, ...], tuple[int, ...]] = {}


def action_tile(a: Action) -> int:
    """The tile of a discard, kong or claim (always set for those)."""
    assert a.tile is not None
    return a.tile


def tile_totals(variant: str, rules: Mapping[str, Any]) -> tuple[int, ...]:
    key = (variant, tuple(rules.values()))  # rules come from VARIANT.rules: a fixed key order
    got = _TOTALS.get(key)
    if got is None:
        got = _TOTALS[key] = tuple(get_variant(variant).tile_counts(rules))
    return got


def normal_kong(me: SeatReader, acts: Sequence[Action], key: tuple[int, ...]) -> Action | None:
    """The kong the normal AI plays in its own turn rather than its best discard (which leaves ``key``): one that
    leaves the distance to a legal win no longer; with the 花 gate, one that adds 花 is worth a step of shape when the
    distance holds. None: no such kong."""
    for a in acts:
        if a.type == "kong":
            k2 = kong_key(me, a)
            if k2 <= key or (me.ai.hua_gate and k2[0] <= key[0]):
                return a
    return None


def kong_key(me: SeatReader, a: Action) -> tuple[int, ...]:
    """The key after a concealed or added kong in one's own turn."""
    c = list(me.counts)
    kt = action_tile(a)
    ms = list(me.meld_suits)
    if c[kt] == 4:
        c[kt] = 0
        if kt < HONOR:
            ms[kt // 9] += 4
        return me.key(c, me.n_melds + 1, ms, me.meld_hua + (3 if kt >= HONOR else 2))
    c[kt] -= 1
    if kt < HONOR:
        ms[kt // 9] += 1
    return me.key(c, me.n_melds, ms, me.meld_hua + 1, max(0, me.upg - 1))


def best_discard(me: SeatReader, counts: Sequence[int], n_melds: int, meld_suits: Sequence[int], meld_hua: int,
                  discards: Sequence[Action]) -> tuple[Action, tuple[int, int]]:
    main = me.main_suit(counts)
    scored = []
    groups = shanten_groups(counts)
    sp = me.seven_pairs and n_melds == 0
    c = list(counts)
    bazhi = me.ai.bazhi
    hua_gate = me.ai.hua_gate
    tot = [sum(counts[0:9]) + meld_suits[0], sum(counts[9:18]) + meld_suits[1], sum(counts[18:27]) + meld_suits[2]]
    upg = me.upg
    if hua_gate:
        rem = me.remaining
        hon0, tr0, pr0 = me.hua_parts(counts)
    for a in discards:
        t = a.tile
        assert t is not None
        s = t // 9
        c[t] -= 1
        gs = list(groups)
        gs[s] = group_of(t, c)
        sh = combine_groups(gs, n_melds)
        if sp:
            sh = min(sh, seven_pairs_shanten(c))
        # the same as me.key_sh(c, sh, meld_suits, meld_hua), from the totals of the whole hand
        if bazhi:
            t0, t1, t2 = tot
            if s == 0:
                t0 -= 1
            elif s == 1:
                t1 -= 1
            elif s == 2:
                t2 -= 1
            k = (max(sh, 7 - max(t0, t1, t2)), sh)
        elif not hua_gate:
            k = (sh, sh)
        else:
            # me.hua_need(c, meld_hua, upg), from the sources of the whole hand: only kind t changed
            n0 = counts[t]
            n1 = n0 - 1
            h, tr, pr = hon0, tr0, pr0
            if s == 3:
                hl = list(hon0)
                hl[t - HONOR] = n1 if n1 >= 3 or rem[t] >= 3 - n1 else 0
                h = tuple(hl)
            else:
                r = rem[t]
                tr += (n1 == 4 or (n1 == 3 and r > 0)) - (n0 == 4 or (n0 == 3 and r > 0))
                pr += (n1 == 2 and r >= 2) - (n0 == 2 and r >= 2)
            need = hua_tiles(h, meld_hua, min(tr, 2), upg, min(pr, 2))
            k = (gate_distance(sh, me.ready_need(c, meld_hua, need) if sh == 0 else need), sh)
        c[t] += 1
        scored.append((k, t, a))
    best_key = min(x[0] for x in scored)
    top = sorted(((k, -me.waste(counts, t, main), t, a) for k, t, a in scored if k == best_key),
                 key=lambda x: (x[1], x[2]))
    # Chizhou, ready: every ready discard is counted (few waits are legal: the counts decide), else the best two
    top = top if hua_gate and best_key[0] == 0 else top[:2]
    # ties: the count of unseen useful tiles decides when ready, or at one step from ready when the cheap
    # heuristic cannot separate the two best
    if len(top) > 1 and (best_key[0] == 0 or (best_key[0] == 1 and top[1][1] - top[0][1] < 0.5)):
        def ukeire(x: tuple[tuple[int, int], float, int, Action]) -> int:
            c = list(counts)
            c[x[2]] -= 1
            if best_key[0] == 0 and hua_gate:  # Chizhou: the tiles that win legally; with 3 花 a discard wins too
                own, ron = me.legal_outs(c, meld_hua)
                return own + CHIZHOU_RON_WEIGHT * ron
            if best_key[0] == 0:  # ready: count the unseen winning tiles
                n = 0
                for k in near_kinds(c):
                    if me.remaining[k]:
                        c[k] += 1
                        if is_complete(c) or (sp and is_seven_pairs(c)):
                            n += me.remaining[k]
                        c[k] -= 1
                return n
            return me.useful(c, best_key, n_melds)

        top.sort(key=lambda x: (-ukeire(x), x[1], x[2]))
    return top[0][3], best_key


def feed_discard(me: SeatReader, discards: Sequence[Action], wall: tuple[int, int] | None = None,
                 need: int | None = None) -> Action | None:
    """Chizhou, the normal AI: a hand too far from 2 花 for the wall that is left lets go of the tiles that give the
    others 花, or None. First, while another seat shows 3 花, the tile it most likely waits on
    (:func:`ron_feed_discard`, with the normal AI's thresholds only); else an honour with two or more copies unseen (a pair holder pungs it: 1 花), else a suited tile
    held alone with its three other copies unseen (a concealed triplet's 明杠: 1 花); most copies unseen first.
    Measured (four normal AIs, 2,000 one-hand deals, seeds 0 and 1): drawn hands 44.7% / 43.6% -> 38.8% / 40.2%;
    letting go of them earlier (the wall at 70 for a hand 4 tiles short) drew more hands (43%), and so did giving up
    honours with no regard to the wall (59%): an honour let go early is dead before anyone holds its pair.
    ``wall`` and ``need`` (the strong AI's own switches, :mod:`engine.strong.chizhou`): other thresholds than
    :data:`CHIZHOU_FEED_WALL` and :data:`CHIZHOU_FEED_NEED`; the easy and normal AIs pass none."""
    if not me.ai.hua_gate:
        return None
    if wall is None:
        fed = ron_feed_discard(me, discards)
        if fed is not None:
            return fed
    base, step = CHIZHOU_FEED_WALL if wall is None else wall
    least = CHIZHOU_FEED_NEED if need is None else need
    if me.wall > base + step * 3:
        return None
    short = me.hua_need(me.counts, me.meld_hua, me.upg)
    if short < least or me.wall > base + step * (short - least):
        return None
    rem, c = me.remaining, me.counts
    feeds = [a for a in discards if (t := action_tile(a)) >= HONOR and rem[t] >= 2]
    if not feeds:
        feeds = [a for a in discards if (t := action_tile(a)) < HONOR and rem[t] >= 3 and c[t] == 1]
    if not feeds:
        return None
    main = me.main_suit(c)
    # most copies unseen, then what the hand needs least
    return min(feeds, key=lambda a: (-rem[action_tile(a)], -me.waste(c, action_tile(a), main), action_tile(a)))


def ron_feed_discard(me: SeatReader, discards: Sequence[Action]) -> Action | None:
    """Chizhou, the normal AI (:data:`CHIZHOU_FEED_RON`): a hand too far from 2 花 for the wall that is left, while
    another seat shows 3 花, throws the discard most likely to win for it (:data:`CHIZHOU_FEED_WEIGHT`); else None."""
    if CHIZHOU_FEED_RON is None or not discards:
        return None
    base, step, least = CHIZHOU_FEED_RON
    if me.wall > base + step * 3:
        return None
    short = me.hua_need(me.counts, me.meld_hua, me.upg)
    if short < least or me.wall > base + step * (short - least):
        return None
    return ron_feed_pick(me, discards)


def ron_feed_pick(me: SeatReader, discards: Sequence[Action]) -> Action | None:
    """Chizhou: of ``discards``, the one most likely to win for a seat showing 3 花 (:data:`CHIZHOU_FEED_WEIGHT`), or
    None (no such seat, or no discard any of them may win on now); :func:`ron_feed_discard` without its thresholds."""
    threats = me.shown_threats()
    if not threats or not discards:
        return None
    w_honour, w_suit = CHIZHOU_FEED_WEIGHT

    def weight(t: int) -> float:
        w = 0.0
        for suits, safe in threats:
            if t in safe:
                continue
            if t >= HONOR:
                w += w_honour if me.remaining[t] else 0.0
            else:
                r = t % 9
                w += (1.0 if 2 <= r <= 6 else 0.7 if r in (1, 7) else 0.4) * (w_suit if t // 9 in suits or not suits
                                                                             else 1.0)
        return w

    best = max(discards, key=lambda a: (weight(action_tile(a)), -action_tile(a)))
    return best if weight(action_tile(best)) > 0 else None


def claim_key(me: SeatReader, a: Action) -> tuple[int, ...] | None:
    """The key after claiming with ``a`` (pung, kong or chi); None when the claim would leave no tile to discard."""
    at = action_tile(a)
    tile = me.last_tile if me.last_tile is not None else at
    c = list(me.counts)
    ms = list(me.meld_suits)
    hua = me.meld_hua
    if a.type == "chi":
        for x in (at, at + 1, at + 2):
            if x != tile:
                c[x] -= 1
        ms[at // 9] += 3
    else:
        n = 2 if a.type == "pung" else 3
        c[at] -= n
        if at < HONOR:
            ms[at // 9] += n + 1
            hua += 1 if a.type == "kong" else 0
        else:
            hua += 2 if a.type == "kong" else 1
    if a.type == "kong":
        return me.key(c, me.n_melds + 1, ms, hua)
    if not any(c):
        return None
    # a 3n+2 hand's shanten is that of its best discard: one evaluation instead of one per discard
    # Chizhou: a shown pung whose fourth tile is still unseen is one tile from an added kong (+1 花)
    upg = me.upg + (1 if a.type == "pung" and me.remaining[at] else 0)
    return me.key(c, me.n_melds + 1, ms, hua, upg)


def claim_choice(me: SeatReader, acts: Sequence[Action], pass_act: Action) -> Action:
    now = me.key(me.counts, me.n_melds, me.meld_suits, me.meld_hua)
    goals = me.ai
    best: tuple[tuple[int, ...], Action] | None = None
    for a in acts:
        if a.type not in ("pung", "kong", "chi"):
            continue
        after = claim_key(me, a)
        if after is None:
            continue
        at = action_tile(a)
        if a.type == "kong":
            ok = after <= now
            if ok and goals.hua_gate:
                # a kong's key is that of a 3n+1 hand still to draw its replacement tile, a pung's that of its
                # best discard: the kong (more 花, one more draw) is never worse than the pung of the same tile
                return a
        else:
            ok = after < now
            if goals.claim_max_distance is not None:
                ok = ok and after[0] <= goals.claim_max_distance
            if goals.hua_gate and at >= HONOR and after <= now:
                ok = True
            if a.type == "chi" and me.meld_hua < 2 and after[0] > 0:
                ok = False  # with < 2 花 a chi binds the hand to one suit (C6): only to get ready
        if ok and (best is None or after < best[0]):
            best = (after, a)
    return best[1] if best else pass_act
