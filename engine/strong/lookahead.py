"""A one-ply look-ahead over the seat's own next draw (Hefei, Wuhu): two discards of the same distance told apart by how
well the hand they leave improves.

The evaluator prices a hand by the measured chance at its distance and draws left, scaled by its useful tiles against
a typical hand's: two discards that leave the same distance and about as many useful tiles get about the same price,
although one of them becomes a better ready hand (more waits, 卡, 门清 kept, 支 ...) than the other. The look-ahead
averages, over the next own draw (each unseen kind weighted by its unseen copies from the seat's view), the best
follow-up:

- a draw that wins the hand: the scorer's payment of that win, self-drawn;
- a draw that shortens the distance (a useful tile): the best discard after it, priced as the evaluator prices any
  discard (the hand it leaves with one draw fewer, its danger now), or the drawn tile let go again if nothing is
  better;
- any other draw: let go again, the hand as it is with one draw fewer;

plus, for a ready hand, the chance of winning on a discard before that draw. The look-ahead is only run for the
discards that leave the hand within :data:`MAX_D` steps of ready (a ready hand's winning tiles, a hand a step away's
ready hands are priced by the scorer, tile by tile): further away the chance model is all there is to see. Everything
is read from the seat's view (the evaluator's ``Know``, passed in: this module does not import the evaluator); no
randomness. Hefei and Wuhu (:data:`VARIANTS`).

Two things keep it cheap without changing a price: a ready hand's winning tiles, each priced by the scorer, are kept
per process (:func:`wait_payments`, bounded, keyed by exactly what the scorer reads: the same ready hands come back
decision after decision), and the shanten of a hand one tile away from another is counted by the changed group
against the other groups' sums (:func:`one_away`: the group's counts and the sums it meets come back far more often
than whole hands, and are kept per process) and the seven pairs by the pairs count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache
from typing import Any

from ..ai_common import SeatReader
from ..analysis import Group, completing_kinds, group_options, shanten
from ..errors import EngineError
from ..tiles import NUM_KINDS, Hand, Meld
from ..variants import get_variant
from ..variants.base import Situation

VARIANTS: frozenset[str] = frozenset({"hefei", "wuhu"})
"""The variants whose discards are priced with the look-ahead."""
MAX_D = 1
"""The look-ahead prices a discard that leaves the hand at most this many steps from ready."""
TOP: int | None = 3
"""Look ahead for this many discards only (the dearest by the price before) and the normal AI's choice; None: all."""
PRIOR: dict[str, float] = {"hefei": 0.15}
"""Per variant: the margin the normal AI's choice keeps (a share of its ev, in place of the evaluator's ``PRIOR``
0.3): with the look-ahead telling the discards near ready apart, the strong AI may depart from the normal AI more
often. Measured in Hefei on 300 deals (seed 0, paired): the look-ahead with 0.3 +0.14 子 a hand over the version
before it, with 0.15 +0.63 (0.1: +0.56, 0.05: +0.22); 0.15 without the look-ahead -0.34. Wuhu keeps 0.3 (300 deals:
+0.46 with 0.3, +0.39 with 0.15, and 交 fell from 1.2% of its wins to 0.3%)."""


SCORER_READS_SEATS: frozenset[str] = frozenset({"chizhou"})
"""The variants whose scorer reads the other seats' melds (``Situation.melds_by_seat``: Chizhou's 反包); the others'
payments depend only on the hand, the winner, the discarder, the kong draw and the rules."""
WAITS_CACHE = 4096
"""How many ready hands' priced winning tiles one process keeps (:func:`wait_payments`, least recently used first
out): the same ready hands come back decision after decision (the seat's own next draws, the discards near ready)."""
CACHE = True
"""Whether :func:`wait_payments` keeps its answers (off: every call scores, with the other seats' melds as the table
gives them; tests turn it off to check that the cache and its key change no price)."""


def _wait_payments(variant: str, rules_key: tuple[tuple[str, Any], ...], counts: tuple[int, ...],
                   melds: tuple[Meld, ...], wind: int, kong_draw: bool,
                   seats: tuple[tuple[Meld, ...], ...] | None) -> tuple[tuple[int, int | None, int | None,
                                                                                  int | None], ...]:
    V = get_variant(variant)
    rules = dict(rules_key)
    concealed = tuple(k for k in range(NUM_KINDS) for _ in range(counts[k]))
    sp = V.seven_pairs and not melds
    out = []
    situations = (Situation(winner=wind, discarder=None, melds_by_seat=seats, kong_draw=kong_draw),
                  Situation(winner=wind, discarder=(wind + 1) % 4, melds_by_seat=seats),
                  Situation(winner=wind, discarder=(wind + 2) % 4, melds_by_seat=seats))
    # a winning tile is held or next to a held one (in order, as every kind); the scorer's own look at these 13
    # tiles' winning kinds (Hefei's 卡, Wuhu's single wait) finds them kept
    for k in completing_kinds(counts, seven_pairs=sp):
        pays = [None if p is None else p[wind] for p in V.payments(Hand(concealed, melds, k), situations, rules)]
        out.append((k, pays[0], pays[1], pays[2]))
    return tuple(out)


_cached_wait_payments = lru_cache(maxsize=WAITS_CACHE)(_wait_payments)


def wait_payments(kn: Any, counts: Sequence[int], melds: tuple[Meld, ...], kong_draw: bool = False
                  ) -> tuple[tuple[int, int | None, int | None, int | None], ...]:
    """The winning kinds of the ready 3n+1 hand ``counts`` (with ``melds``) of the seat ``kn`` reads for, every
    kind whether or not a copy is unseen, each with the scorer's payment to the seat: (kind, self-drawn, on a
    discard of the next seat, on a discard of the seat across); None where the scorer refuses the win. The scorer
    is a pure function of the hand, the situation and the rules, so the answer is keyed by exactly what it is given
    (the other seats' melds only where the scorer reads them) and kept per process (:data:`WAITS_CACHE`)."""
    if not CACHE:
        return _wait_payments(kn.variant, kn.rules_key, tuple(counts), melds, kn.wind, kong_draw, kn.wind_melds)
    seats = kn.wind_melds if kn.variant in SCORER_READS_SEATS else None
    return _cached_wait_payments(kn.variant, kn.rules_key, tuple(counts), melds, kn.wind, kong_draw, seats)


RestSums = tuple[tuple[int, int, int], ...]
SHAPE_CACHE = 1 << 15
"""How many three groups' sums (:func:`_rest_id`), groups' one-tile-away shanten (:func:`_group_away`) and hands'
shanten (:func:`kept_shanten`) one process keeps, each (least recently used first out): a suit's counts and the
sums of the other groups come back far more often than whole hands do. About 30 MB a process when full."""


def _pruned(sums: set[tuple[int, int, int]]) -> RestSums:
    """The sums no other sum with the same head count beats in sets and partial sets alike, in one order: the
    shanten of :func:`combine_one` is the least over them of ``8 - 2m - t - h`` (sets capped at 4, partial sets at
    4 - sets), which more sets or more partial sets never raise, so the dropped ones never give the least."""
    keep = [x for x in sums if not any(y != x and y[2] == x[2] and y[0] >= x[0] and y[1] >= x[1] for y in sums)]
    return tuple(sorted(keep, reverse=True))


@lru_cache(maxsize=SHAPE_CACHE)
def _rest_of(a: Group, b: Group, c: Group) -> RestSums:
    """The (sets, partial sets, head) sums three groups' options can make (at most one head), :func:`_pruned`."""
    sums = {(0, 0, 0)}
    for g in (a, b, c):
        sums = {(m + x, t + y, h + e) for m, t, h in sums for x, y, e in g if h + e <= 1}
    return _pruned(sums)


def combine_one(g: Group, rest: Sequence[tuple[int, int, int]], melds: int) -> int:
    """``combine_groups`` of group options ``g`` with the (sets, partial sets, head) sums the other groups can make
    (:func:`_rest_of`), ``melds`` declared sets: the same shanten (it depends only on the sums)."""
    best = 8
    for m0, t0, h0 in g:
        for mr, tr, hr in rest:
            h = h0 + hr
            if h > 1:
                continue
            m = melds + m0 + mr
            if m > 4:
                m = 4
            t = t0 + tr
            if t > 4 - m:
                t = 4 - m
            sh = 8 - 2 * m - t - h
            if sh < best:
                best = sh
    return best


_RESTS: list[RestSums] = []
"""Every three groups' sums met (:func:`_rest_of`), by its number (:func:`_rest_id`): they are few (a few hundred),
and a number is a cheaper key."""
_REST_IDS: dict[RestSums, int] = {}


@lru_cache(maxsize=SHAPE_CACHE)
def _rest_id(a: bytes, b: bytes, c: bytes) -> int:
    """The number (:data:`_RESTS`) of the sums three groups make, from their counts (kept per process)."""
    r = _rest_of(group_options(tuple(a)), group_options(tuple(b)), group_options(tuple(c)))
    i = _REST_IDS.get(r)
    if i is None:
        i = _REST_IDS[r] = len(_RESTS)
        _RESTS.append(r)
    return i


_PAIRS = tuple(tuple((k, sh) for sh in range(-1, 9)) for k in range(NUM_KINDS))
"""(kind, shanten) pairs made once: the kept lists of :func:`_group_away` share them."""
_BY_OPTION: dict[tuple[int, int], dict[tuple[int, int, int], int]] = {}
"""Per sums' number and declared sets: the least shanten of one group option with those sums (:func:`combine_one`
of that option alone), as they are asked for."""


@lru_cache(maxsize=SHAPE_CACHE)
def _group_away(draw: bool, lo: int, seg: bytes, rid: int, melds: int) -> tuple[tuple[int, int], ...]:
    """(kind, regular shanten) for each kind of the group ``seg`` (whose first kind is ``lo``) that
    :func:`engine.ai_common.near_kinds` names (held, or a suited kind within two of a held one) with one more of it
    (``draw``), or for each kind it holds with one fewer, in order; the other groups make the sums numbered ``rid``,
    ``melds`` declared sets. Kept per process (:data:`SHAPE_CACHE`). The shanten is the least over the group's options
    of each option's with the sums, itself kept per option (the least of the least: :func:`combine_one`'s)."""
    rest = _RESTS[rid]
    tab = _BY_OPTION.get((rid, melds))
    if tab is None:
        tab = _BY_OPTION[(rid, melds)] = {}
    lst = list(seg)
    step = 1 if draw else -1
    honours = len(seg) == 7
    out = []
    for off in range(len(seg)):
        if draw:
            if not (seg[off] or (not honours and any(seg[max(0, off - 2) : off + 3]))):
                continue
        elif not seg[off]:
            continue
        lst[off] += step
        best = 8
        for o in group_options(tuple(lst)):
            v = tab.get(o)
            if v is None:
                v = tab[o] = combine_one((o,), rest, melds)
            if v < best:
                best = v
        lst[off] -= step
        out.append(_PAIRS[lo + off][best + 1])
    return tuple(out)


@lru_cache(maxsize=SHAPE_CACHE)
def _kept_shanten(c: bytes, melds: int, seven_pairs: bool) -> int:
    return shanten(c, melds, seven_pairs=seven_pairs)


def kept_shanten(c: Sequence[int], melds: int = 0, seven_pairs: bool = False) -> int:
    """``analysis.shanten`` of the counts ``c``, kept per process (:data:`SHAPE_CACHE`): the hands a decision prices
    (the discards', the look-ahead's, a plan's suit alone) come back within and across decisions."""
    return _kept_shanten(bytes(c), melds, seven_pairs)  # (counts as bytes: a smaller key)


def one_away(c: Sequence[int], melds: int, draw: bool) -> list[tuple[int, int]]:
    """(kind, regular shanten) of the hand ``c`` with one more tile of each near kind (``draw``) or one tile fewer of
    each held kind, the kinds in order (:func:`_group_away`); ``melds`` declared sets. The same shanten as the whole
    hand's (``analysis.shanten``), by each group against the other groups' sums, both kept per process."""
    a, b, d, h = bytes(c[0:9]), bytes(c[9:18]), bytes(c[18:27]), bytes(c[27:NUM_KINDS])  # (smaller keys)
    out: list[tuple[int, int]] = []
    if any(a):
        out.extend(_group_away(draw, 0, a, _rest_id(b, d, h), melds))
    if any(b):
        out.extend(_group_away(draw, 9, b, _rest_id(a, d, h), melds))
    if any(d):
        out.extend(_group_away(draw, 18, d, _rest_id(a, b, h), melds))
    if any(h):
        out.extend(_group_away(draw, 27, h, _rest_id(a, b, d), melds))
    return out


class LookAhead:
    """The look-ahead of one decision: its caches are shared by every discard priced (the hands after a draw and a
    discard repeat between them)."""

    def __init__(self, kn: Any, n_melds: int, meld_suits: Sequence[int], meld_hua: int, upg: int,
                 melds: tuple[Meld, ...]) -> None:
        self.kn = kn
        self.me: SeatReader = kn.me
        self.n = n_melds
        self.ms = meld_suits
        self.mh = meld_hua
        self.upg = upg
        self.melds = melds
        self._hv: dict[tuple[int, ...], tuple[float, float]] = {}
        self._danger: dict[int, tuple[float, float]] = {}

    def key(self, c: Sequence[int]) -> tuple[int, ...]:
        return self.me.key(c, self.n, self.ms, self.mh, self.upg)

    def hv(self, c: list[int]) -> tuple[float, float]:
        """The evaluator's (chance to win, ev) of a 3n+1 hand with one own draw fewer."""
        t = tuple(c)
        got = self._hv.get(t)
        if got is None:
            kn = self.kn
            kn.turns -= 1
            try:
                hv = kn.hand_value(c, self.n, self.ms, self.mh, self.upg, self.melds)
                got = (hv.win, hv.ev)
            finally:
                kn.turns += 1
            self._hv[t] = got
        return got

    def danger(self, k: int) -> tuple[float, float]:
        got = self._danger.get(k)
        if got is None:
            p, cost, _ = self.kn.danger(k)
            got = self._danger[k] = (p, cost)
        return got

    def self_drawn(self, c: list[int], k: int) -> float | None:
        """The scorer's payment to this seat of a self-drawn win on k (None: not a legal win)."""
        for w, pay, _, _ in wait_payments(self.kn, c, self.melds):
            if w == k:
                return None if pay is None else float(pay)
        kn = self.kn  # not a winning shape: the scorer decides (it refuses)
        concealed = tuple(x for x in range(NUM_KINDS) for _ in range(c[x]))
        try:
            res = kn.V.score(Hand(concealed, self.melds, k),
                             Situation(winner=kn.wind, discarder=None, melds_by_seat=kn.wind_melds), kn.rules)
        except EngineError:
            return None
        return float(res.payments[kn.wind])

    def useful(self, c: list[int], key: tuple[int, ...]) -> list[int]:
        """The unseen kinds whose draw shortens the distance of the 3n+1 hand c (a ready hand: its winning kinds)."""
        me = self.kn.me
        unseen = self.kn.unseen
        sp = me.seven_pairs and self.n == 0
        pairs = sum(x // 2 for x in c) if sp else 0  # seven pairs: a drawn copy of an odd count makes a pair
        out = []
        for k, sh in one_away(c, self.n, True):
            if not unseen[k]:
                continue
            if sp:
                sh = min(sh, 6 - min(pairs + (c[k] & 1), 7))
            if sh < key[1] or key[0] > key[1]:
                c[k] += 1
                if me.key_sh(c, sh, self.ms, self.mh, self.upg) < key:
                    out.append(k)
                c[k] -= 1
        return out

    def value(self, c: list[int]) -> tuple[float, float]:
        """(the chance to win, the ev) of the 3n+1 hand c over the next own draw, each draw followed by its best
        discard."""
        kn = self.kn
        U: int = kn.U
        me = kn.me
        sp = me.seven_pairs and self.n == 0
        key = self.key(c)
        stay = self.hv(c)
        total = total_win = 0.0
        used = 0
        ron = vr = 0.0
        if key[0] == 0:
            _, _, qr, vr = kn.tenpai(c, self.melds)
            if kn.ron_ok and qr > 0:
                ron = 1 - (1 - qr) ** 3
        for k in self.useful(c, key):
            w = kn.unseen[k]
            if key[0] == 0:
                pay = self.self_drawn(c, k)
                best = (1.0, pay) if pay is not None else stay
            else:
                best = stay
                pairs = (sum(x // 2 for x in c) + (c[k] & 1)) if sp else 0
                c[k] += 1
                for d2, sh in one_away(c, self.n, False):  # every held kind, in order
                    if d2 == k:
                        continue
                    even = 1 - (c[d2] & 1)  # a copy let go of an even count breaks a pair
                    c[d2] -= 1
                    if sp:
                        sh = min(sh, 6 - min(pairs - even, 7))
                    if me.key_sh(c, sh, self.ms, self.mh, self.upg) < key:
                        p, cost = self.danger(d2)
                        win, ev = self.hv(c)
                        v = (1 - p) * ev - p * cost
                        if v > best[1]:
                            best = ((1 - p) * win, v)
                    c[d2] += 1
                c[k] -= 1
            total_win += w * best[0]
            total += w * best[1]
            used += w
        draw_win = (total_win + (U - used) * stay[0]) / U
        draw = (total + (U - used) * stay[1]) / U
        return ron + (1 - ron) * draw_win, ron * vr + (1 - ron) * draw


def refine(kn: Any, options: list[Any], c: list[int], n_melds: int, meld_suits: Sequence[int], meld_hua: int,
           upg: int, melds: tuple[Meld, ...], keep: Any = None) -> list[Any]:
    """The discard options that leave the hand within :data:`MAX_D` steps of ready, priced with the look-ahead
    (their danger and shape as before): the :data:`TOP` dearest of them by the price before, and ``keep`` (the
    normal AI's choice, which keeps a margin); the other options as they are."""
    la: LookAhead | None = None
    got: dict[int, tuple[float, float]] = {}
    near = [i for i, o in enumerate(options)
            if o.action.type == "discard" and o.action.tile is not None and 0 <= o.distance <= MAX_D]
    if TOP is not None:
        near = sorted(near, key=lambda i: -options[i].ev)[:TOP] + [i for i in near if options[i].action == keep]
    for i in dict.fromkeys(near):
        t = options[i].action.tile
        assert t is not None
        if la is None:
            la = LookAhead(kn, n_melds, meld_suits, meld_hua, upg, melds)
        c[t] -= 1
        got[i] = la.value(c)
        c[t] += 1
    if not got:
        return options
    out = list(options)
    for i, (win, v) in got.items():
        o = options[i]
        t = o.action.tile
        assert t is not None
        # the price stays chance x value: the value is the looked-ahead ev over its chance
        value = v / win if win > 1e-12 else o.value
        p = o.deal_in
        out[i] = replace(o, ev=(1 - p) * (win * value + kn.shape(c, t)) - p * o.cost, win=win, value=value)
    return out
