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
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from ..ai_common import SeatReader, near_kinds
from ..analysis import combine_groups, group_of, seven_pairs_shanten, shanten_groups
from ..errors import EngineError
from ..tiles import NUM_KINDS, Hand, Meld
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
        self._pay: dict[tuple[tuple[int, ...], int], float | None] = {}

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
        t = (tuple(c), k)
        if t in self._pay:
            return self._pay[t]
        kn = self.kn
        concealed = tuple(x for x in range(NUM_KINDS) for _ in range(c[x]))
        try:
            res = kn.V.score(Hand(concealed, self.melds, k),
                             Situation(winner=kn.wind, discarder=None, melds_by_seat=kn.wind_melds), kn.rules)
            got: float | None = float(res.payments[kn.wind])
        except EngineError:
            got = None
        self._pay[t] = got
        return got

    def useful(self, c: list[int], key: tuple[int, ...]) -> list[int]:
        """The unseen kinds whose draw shortens the distance of the 3n+1 hand c (a ready hand: its winning kinds)."""
        me = self.kn.me
        unseen = self.kn.unseen
        groups = shanten_groups(c)
        sp = me.seven_pairs and self.n == 0
        out = []
        for k in near_kinds(c):
            if not unseen[k]:
                continue
            c[k] += 1
            gs = list(groups)
            gs[k // 9] = group_of(k, c)
            sh = combine_groups(gs, self.n)
            if sp:
                sh = min(sh, seven_pairs_shanten(c))
            if (sh < key[1] or key[0] > key[1]) and me.key_sh(c, sh, self.ms, self.mh, self.upg) < key:
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
                c[k] += 1
                groups = shanten_groups(c)
                for d2 in range(NUM_KINDS):
                    if not c[d2] or d2 == k:
                        continue
                    c[d2] -= 1
                    gs = list(groups)
                    gs[d2 // 9] = group_of(d2, c)
                    sh = combine_groups(gs, self.n)
                    if sp:
                        sh = min(sh, seven_pairs_shanten(c))
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
