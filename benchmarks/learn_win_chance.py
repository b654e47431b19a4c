"""Learn the chance to win of a hand not ready from self-play (run by hand, niced; minutes).

``python -m benchmarks.learn_win_chance --variant V [--deals 3000] [--test 1000] [--seed val] [--cache F]
[--write]``: four normal AIs (the duel's opponents) play one-hand deals ``Table.new(V, "duel:S:N")`` (not the duel's
own ``duel:0:N``). At every discard a seat makes that leaves its hand not ready (the normal AI's distance, as the
strong AI reads it), the hand it leaves is one afterstate, labelled by whether that seat went on to win the hand.
Its features are read from the seat's view only (``engine.strong.learned``: the hand's partial sets, isolated
tiles, honours, blocks, 八支 slack, melds; the dealer, the other seats' melds and alarms; the table's chance
``Know.far_chance`` as a logit). A logistic regression over them (``benchmarks/logistic.py``) is fitted on the first
``--deals`` deals and compared on the next ``--test`` with the table's chance: the log-likelihood per afterstate,
the chances against the wins by bands and by distance, and, within one decision (every discard of the seat priced,
the test deals only), how often the two models' dearest discard differ, and when they do, which one the normal AI
took and how that hand ended. ``--write`` rewrites the variant's entry of ``engine/strong/calibration_value.py`` (the
module there was written with the defaults, ``--variant hefei`` and ``--variant wuhu``).

``--rollouts N --rollout-test M``: at a quarter of the decisions (``--share``) of N deals and of M held-out deals,
every option is played out to the end of the hand from the table as it is (the real wall and hands serve only as
the label) by four normal AIs, the same random numbers for every option; a model is fitted on those options too
(``--with-natural``: and on the discards made), and every model is compared on the held-out decisions: the pairs of
options that ended differently ranked the right way, and how often the option each prices dearest won (about ten
minutes for 2,000 and 600 Hefei deals). ``--strong M``: at every discard of M held-out deals, the strong AI's choice
with and without the learned chance; where they differ, both are played out ``--outs`` times, the same way.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import random
import time
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from benchmarks.logistic import Row, cached, fit_rows, log_likelihood, wrap
from engine.ai import choose
from engine.analysis import shanten
from engine.strong.calibration_value import VALUE_WEIGHTS
from engine.strong.evaluator import Know
from engine.strong.learned import hand_features, logit, seat_features
from engine.table import Action, Table
from engine.tiles import MeldKind

Raw = tuple[Any, ...]
"""One afterstate as the fit reads it: (the hand's features, the seat's features, the table's chance, its distance)."""


def afterstate(kn: Know, c: list[int]) -> Raw | None:
    """The afterstate ``c`` (a 3n+1 hand of the seat ``kn`` reads for) as the evaluator prices it, or None when it
    is ready (the scorer prices those)."""
    me = kn.me
    n = me.n_melds
    sp = me.seven_pairs and n == 0
    sh = shanten(c, n, seven_pairs=sp)
    key = me.key_sh(c, sh, me.meld_suits, me.meld_hua, me.upg)
    if key[0] == 0 and sh == 0:
        return None
    d, u, typ, p0 = kn.far_chance(c, n, sh, key, kn.turns)
    concealed = all(m.kind is MeldKind.CONCEALED_KONG for m in kn.own_melds)
    hf = hand_features(c, n, me.meld_suits, concealed, sh, d, kn.turns, u, typ, me.ai.bazhi, sp)
    return tuple(hf), tuple(seat_features(kn.view, kn.seat)), p0, d


def options(kn: Know, c: list[int], la: Sequence[Action], known: Mapping[int, Raw] | None = None
            ) -> list[tuple[int, Raw]]:
    """(tile, afterstate) of every discard among ``la`` from the 3n+2 hand ``c`` (left as it was), by tile; [] when
    one of them leaves the hand ready. ``known``: afterstates already read, by tile."""
    out: list[tuple[int, Raw]] = []
    for k in sorted({x.tile for x in la if x.type == "discard" and x.tile is not None}):
        o = (known or {}).get(k)
        if o is None:
            c[k] -= 1
            o = afterstate(kn, c)
            c[k] += 1
        if o is None:
            return []
        out.append((k, o))
    return out


def collect(variant: str, first: int, deals: int, seed: str, decisions: bool
            ) -> tuple[list[tuple[Raw, int]], list[tuple[list[tuple[int, Raw]], int, int]]]:
    """(every afterstate of a discard made, with its label; with ``decisions``, every discard decision whose options
    all leave the hand not ready: (tile, afterstate) per kind held, the tile taken, the label)."""
    rows: list[tuple[Raw, int]] = []
    decs: list[tuple[list[tuple[int, Raw]], int, int]] = []
    for deal in range(first, first + deals):
        t = Table.new(variant, f"duel:{seed}:{deal}")
        made: list[tuple[int, Raw]] = []
        seen: list[tuple[int, list[tuple[int, Raw]], int]] = []
        for _step, s, la, a in normal_turns(t, random.Random(deal)):
            if a.type == "discard" and a.tile is not None:
                kn = Know(t.view(s), s)
                c = list(kn.me.counts)
                c[a.tile] -= 1
                got = afterstate(kn, c)
                c[a.tile] += 1
                if got is not None:
                    made.append((s, got))
                    if decisions:
                        opts = options(kn, c, la, {a.tile: got})
                        if len(opts) >= 2:
                            seen.append((s, opts, a.tile))
        result = t.match.last_result or {}
        winners = {w["seat"] for w in result.get("winners", [])}
        rows += [(r, int(s in winners)) for s, r in made]
        decs += [(opts, tile, int(s in winners)) for s, opts, tile in seen]
    return rows, decs


def normal_turns(t: Table, rng: random.Random) -> Iterator[tuple[int, int, list[Action], Action]]:
    """The hand of ``t`` played to its end by four normal AIs: each turn (its number from 1, the seat, its legal
    actions, the action chosen), given before the action is applied to ``t``."""
    step = 0
    while t.hand.phase in ("play", "claim", "rob"):
        s = t.awaited()[0]
        la = t.legal_actions(s)
        a = la[0] if len(la) == 1 else choose(t, s, la, "normal", rng)
        step += 1
        yield step, s, la, a
        t.apply(a)


def _play_out(t: Table, rng: random.Random) -> set[int]:
    """Play the hand of ``t`` to its end with four normal AIs: the winners' seats."""
    for _ in normal_turns(t, rng):
        pass
    result = t.match.last_result or {}
    return {w["seat"] for w in result.get("winners", [])}


def rollouts(variant: str, first: int, deals: int, seed: str, share: float
             ) -> list[tuple[list[tuple[int, Raw]], int, list[int]]]:
    """Counterfactual labels: at a ``share`` of the discard decisions whose options all leave the hand not ready
    (drawn by the deal's own random numbers), every option is played out from the table as it is (the real wall and
    hands, which serve only as the label) with four normal AIs, the same random numbers for every option: (the
    options, the tile the normal AI took, per option whether the seat won)."""
    out: list[tuple[list[tuple[int, Raw]], int, list[int]]] = []
    for deal in range(first, first + deals):
        t = Table.new(variant, f"duel:{seed}:{deal}")
        pick = random.Random(f"pick:{deal}")
        for step, s, la, a in normal_turns(t, random.Random(deal)):
            if a.type == "discard" and a.tile is not None and pick.random() < share:
                kn = Know(t.view(s), s)
                opts = options(kn, list(kn.me.counts), la)
                if len(opts) >= 2:
                    won = []
                    for k, _ in opts:
                        u = copy.deepcopy(t)
                        u.apply(next(x for x in la if x.type == "discard" and x.tile == k))
                        won.append(int(s in _play_out(u, random.Random(f"out:{deal}:{step}"))))
                    out.append((opts, a.tile, won))
    return out


def strong_departures(variant: str, first: int, deals: int, seed: str, outs: int) -> list[tuple[float, float, int]]:
    """The strong AI's discards with and without the learned chance (``VALUE_LEARNED``), at every discard decision of
    four normal AIs' deals: where the two differ, each is played out ``outs`` times from the table as it is by four
    normal AIs (the same random numbers for both): (the seat's mean 子 after the learned chance's discard less after
    the table's, the same for its wins, the hand's distance after the table's discard)."""
    from engine.strong import evaluate
    from engine.strong.learned import VALUE_LEARNED

    out: list[tuple[float, float, int]] = []
    for deal in range(first, first + deals):
        t = Table.new(variant, f"duel:{seed}:{deal}")
        for step, s, la, a in normal_turns(t, random.Random(deal)):
            if a.type == "discard" and len(la) > 1:
                v = t.view(s)
                was = VALUE_LEARNED[variant]
                try:
                    VALUE_LEARNED[variant] = False
                    off = evaluate(v, s).best
                    VALUE_LEARNED[variant] = True
                    on = evaluate(v, s).best.action
                finally:
                    VALUE_LEARNED[variant] = was
                if off.action != on and off.action.type == "discard" and on.type == "discard":
                    zi = [0.0, 0.0]
                    won = [0.0, 0.0]
                    for i, act in enumerate((off.action, on)):
                        for r in range(outs):
                            u = copy.deepcopy(t)
                            u.apply(act)
                            w = _play_out(u, random.Random(f"out:{deal}:{step}:{r}"))
                            zi[i] += (u.match.last_result or {}).get("payments", [0] * 4)[s] / outs
                            won[i] += (s in w) / outs
                    out.append((zi[1] - zi[0], won[1] - won[0], off.distance))
    return out


class Model:
    """The features' numbers (0: the bias, 1: the table's logit) and the fitted weights."""

    def __init__(self) -> None:
        self.names: dict[tuple[str, str], int] = {("bias", ""): 0, ("logp", ""): 1}
        self.w: list[float] = []
        self.level: dict[str, float] = {}

    def p_rank(self, raw: Raw) -> float:
        """:meth:`p` at the table's level (``engine.strong.learned.RANK``)."""
        return self.p(raw) * self.level.get(dict(raw[0])["dt"], 1.0)

    def set_level(self, data: list[tuple[Raw, int]]) -> None:
        """Per distance and own draws left (the ``dt`` feature): the table's mean chance over the learned one's."""
        sums: dict[str, list[float]] = {}
        for raw, _ in data:
            dt = dict(raw[0])["dt"]
            cell = sums.setdefault(dt, [0.0, 0.0])
            cell[0] += raw[2]
            cell[1] += self.p(raw)
        self.level = {dt: round(a / b, 4) for dt, (a, b) in sorted(sums.items()) if b > 0}

    def row(self, raw: Raw, grow: bool = True) -> tuple[tuple[int, float], ...]:
        hf, sf, p0, _ = raw
        out = [(0, 1.0), (1, round(logit(p0), 3))]
        for f in hf + sf:
            i = self.names.get(f)
            if i is None:
                if not grow:
                    continue
                i = self.names[f] = len(self.names)
            out.append((i, 1.0))
        return tuple(sorted(out))

    def p(self, raw: Raw) -> float:
        z = sum(self.w[i] * x for i, x in self.row(raw, grow=False) if i < len(self.w))
        return 1 / (1 + math.exp(-max(-30.0, min(30.0, z))))


def rows_of(model: Model, data: list[tuple[Raw, int]]) -> list[Row]:
    cells: dict[tuple[tuple[int, float], ...], list[int]] = {}
    for raw, y in data:
        cell = cells.setdefault(model.row(raw), [0, 0])
        cell[0] += 1
        cell[1] += y
    return [(k, n, p) for k, (n, p) in cells.items()]


BANDS = (0.0, 0.02, 0.05, 0.1, 0.2, 0.35, 1.01)


def _fit(model: Model, data: list[tuple[Raw, int]], ridge: float) -> list[float]:
    rows = rows_of(model, data)
    start = [0.0] * len(model.names)
    start[1] = 1.0  # from the table's chance
    print(f"{len(rows)} distinct rows, {len(model.names)} features", flush=True)
    return fit_rows(rows, len(model.names), ridge, start=start, quiet=True)


def report(model: Model, test: list[tuple[Raw, int]], decs: list[tuple[list[tuple[int, Raw]], int, int]]
           ) -> dict[str, Any]:
    out: dict[str, Any] = {}
    pairs = [(raw[2], model.p(raw), y, raw[3]) for raw, y in test]
    for name, j in (("table", 0), ("learned", 1)):
        ll, n, pos = log_likelihood((x[j], 1, x[2]) for x in pairs)
        out[name] = ll / n
        print(f"{name:>8}: log-likelihood per afterstate {ll / n:.5f}, predicted {sum(x[j] for x in pairs):.0f} wins "
              f"for {pos} ({n} afterstates)")
    base = sum(x[2] for x in pairs) / len(pairs)
    out["base"] = base * math.log(base) + (1 - base) * math.log(1 - base)
    print(f"    rate: log-likelihood per afterstate {out['base']:.5f} (one chance for all)")
    print("calibration by bands (predicted chance: afterstates, mean predicted, won)")
    for name, j in (("table", 0), ("learned", 1)):
        cells = []
        for lo, hi in zip(BANDS, BANDS[1:], strict=False):
            xs = [x for x in pairs if lo <= x[j] < hi]
            if xs:
                cells.append(f"{lo:.2f}-{min(hi, 1):.2f}: {len(xs)} {sum(x[j] for x in xs) / len(xs):.3f} "
                             f"{sum(x[2] for x in xs) / len(xs):.3f}")
        print(f"  {name:>8}: " + "; ".join(cells))
    print("by distance (afterstates, won, table, learned; log-likelihood table / learned)")
    for d in sorted({x[3] for x in pairs}):
        xs = [x for x in pairs if x[3] == d]
        llt = log_likelihood((x[0], 1, x[2]) for x in xs)[0] / len(xs)
        lll = log_likelihood((x[1], 1, x[2]) for x in xs)[0] / len(xs)
        print(f"  d={d}: {len(xs)} {sum(x[2] for x in xs) / len(xs):.3f} {sum(x[0] for x in xs) / len(xs):.3f} "
              f"{sum(x[1] for x in xs) / len(xs):.3f}; {llt:.5f} / {lll:.5f}")
    # within one decision: the dearest discard by each model
    n = differ = took_t = took_l = took_n = 0
    won_t = won_l = won_n = 0
    same_pairs = all_pairs = 0
    near = 0
    for opts, tile, y in decs:
        pt = {k: raw[2] for k, raw in opts}
        pl = {k: model.p(raw) for k, raw in opts}
        bt = max(pt, key=lambda k: pt[k])
        bl = max(pl, key=lambda k: pl[k])
        n += 1
        ks = list(pt)
        for i in range(len(ks)):
            for j in range(i + 1, len(ks)):
                a, b = ks[i], ks[j]
                if abs(pt[a] - pt[b]) > 1e-12:
                    all_pairs += 1
                    same_pairs += (pt[a] > pt[b]) == (pl[a] > pl[b])
        if abs(pt[bt] - pt[bl]) < 1e-12:
            continue
        differ += 1
        near += pt[bl] >= 0.9 * pt[bt]
        if tile == bt:
            took_t += 1
            won_t += y
        elif tile == bl:
            took_l += 1
            won_l += y
        else:
            took_n += 1
            won_n += y
    out["decisions"] = n
    out["differ"] = differ
    print(f"within a decision ({n} discard decisions, every option not ready): the dearest discard differs in {differ} "
          f"({differ / max(1, n):.1%}; the learned pick within 10% of the table's best by the table in {near}); "
          f"the pairs of options the table tells apart ranked the same way in {same_pairs / max(1, all_pairs):.1%}")
    for name, took, won in (("the table's", took_t, won_t), ("the learned", took_l, won_l), ("neither", took_n, won_n)):
        print(f"  the normal AI took {name} pick in {took} of them, and that seat won {won} ({won / max(1, took):.1%})")
    out.update(took_t=took_t, won_t=won_t, took_l=took_l, won_l=won_l)
    return out


def report_rollouts(models: dict[str, Any], decs: list[tuple[list[tuple[int, Raw]], int, list[int]]]
                    ) -> dict[str, dict[str, float]]:
    """Each model (name -> chance of an afterstate) over the played-out options of held-out decisions: the
    log-likelihood per option, the pairs of options of one decision that ended differently ranked the right way
    (ties count half), and the share of the decisions whose dearest option by the model won when played out (the
    normal AI's own pick beside them)."""
    out: dict[str, dict[str, float]] = {}
    n_opts = sum(len(o) for o, _, _ in decs)
    won_all = sum(sum(w) for _, _, w in decs)
    took = sum(w[[k for k, _ in o].index(t)] for o, t, w in decs)
    print(f"played out: {len(decs)} decisions, {n_opts} options, {won_all} won ({won_all / max(1, n_opts):.1%}); the "
          f"normal AI's pick won in {took / max(1, len(decs)):.2%} of the decisions")
    for name, f in models.items():
        ll = 0.0
        right = pairs = 0.0
        best_won = 0
        for opts, _, won in decs:
            ps = [f(raw) for _, raw in opts]
            ll += log_likelihood((p, 1, y) for p, y in zip(ps, won, strict=True))[0]
            for i in range(len(ps)):
                for j in range(len(ps)):
                    if won[i] > won[j]:
                        pairs += 1
                        right += 1.0 if ps[i] > ps[j] + 1e-12 else (0.5 if abs(ps[i] - ps[j]) <= 1e-12 else 0.0)
            best_won += won[max(range(len(ps)), key=lambda i: ps[i])]
        out[name] = {"ll": ll / n_opts, "pairs": right / max(1, pairs), "best": best_won / max(1, len(decs))}
        print(f"{name:>10}: log-likelihood per option {ll / n_opts:.5f}, pairs ranked right {right / max(1, pairs):.1%}"
              f" of {pairs:.0f}, its dearest option won in {best_won / max(1, len(decs)):.2%} of the decisions")
    return out


def write(variant: str, model: Model, info: str, path: str = "") -> None:
    """The model's weights as the variant's entry of ``engine/strong/calibration_value.py`` (the other variants' kept
    as they are), or with ``path`` as a JSON file of the entry (to play it without changing the module: ``pdeal``'s
    ``engine.strong.learned.VALUE_WEIGHTS[V]=...``)."""
    groups: dict[str, dict[str, float]] = {}
    for (g, v), i in sorted(model.names.items()):
        groups.setdefault(g, {})[v] = round(model.w[i], 4)
    groups["level"] = model.level
    if path:
        with open(path, "w", encoding="utf-8") as f:
            json.dump(groups, f)
        return
    weights = dict(VALUE_WEIGHTS)
    weights[variant] = groups
    lines = ['"""The learned chance to win of a hand not ready (generated by ``python -m benchmarks.learn_win_chance '
             '--write``; do', "not edit by hand).", ""]
    for v in sorted(weights):
        lines += wrap(f"{v}: " + (info if v == variant else _INFO.get(v, "the table's own chance."))) + [""]
    lines[-1:] = ['"""', "", "from __future__ import annotations", "",
                  "VALUE_WEIGHTS: dict[str, dict[str, dict[str, float]]] = {"]
    for v in sorted(weights):
        lines.append(f"    {v!r}: {{")
        for g, vals in weights[v].items():
            lines.append(f"        {g!r}: {vals!r},")
        lines.append("    },")
    lines += ["}", '"""variant -> feature group -> value -> weight on the logit (``engine.strong.learned``; ``bias`` and '
              '``logp`` under', 'the value ""; a value not listed weighs 0)."""', ""]
    with open(os.path.join(os.path.dirname(__file__), "..", "engine", "strong", "calibration_value.py"), "w",
              encoding="utf-8") as f:
        f.write("\n".join(x for x in lines))


_INFO: dict[str, str] = {}


def _read_info() -> None:
    """The other variants' lines of the module's docstring, kept as they are."""
    import engine.strong.calibration_value as cv

    doc = cv.__doc__ or ""
    for part in doc.split("\n\n")[1:]:
        head, _, rest = part.partition(": ")
        if head in VALUE_WEIGHTS:
            _INFO[head] = " ".join(rest.split())


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", required=True, choices=("hefei", "wuhu"))
    ap.add_argument("--deals", type=int, default=3000)
    ap.add_argument("--test", type=int, default=1000)
    ap.add_argument("--seed", default="val")
    ap.add_argument("--ridge", type=float, default=2.0)
    ap.add_argument("--cache", default="", help="a pickle file to keep the collected afterstates in between runs")
    ap.add_argument("--rollouts", type=int, default=0,
                    help="deals whose decisions are played out option by option (counterfactual labels)")
    ap.add_argument("--rollout-test", type=int, default=0, help="held-out deals played out so (after --deals)")
    ap.add_argument("--share", type=float, default=0.25, help="the share of the decisions played out")
    ap.add_argument("--rcache", default="", help="a pickle file to keep the played-out decisions in")
    ap.add_argument("--with-natural", action="store_true", help="fit the played-out model on the discards made too")
    ap.add_argument("--fit", choices=("natural", "played"), default="natural", help="the model reported and written")
    ap.add_argument("--strong", type=int, default=0,
                    help="held-out deals whose strong AI discards with and without the learned chance are played out")
    ap.add_argument("--outs", type=int, default=4, help="how many times each of those discards is played out")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--json", default="", help="with --write: write the weights to this JSON file instead")
    args = ap.parse_args()
    t0 = time.time()

    def played() -> tuple[Any, ...]:
        train, _ = collect(args.variant, 0, args.deals, args.seed, False)
        print(f"training: {len(train)} afterstates, {sum(y for _, y in train)} won, {time.time() - t0:.0f} s",
              flush=True)
        test, decs = collect(args.variant, args.deals, args.test, args.seed, True)
        print(f"held out: {len(test)} afterstates, {len(decs)} decisions, {time.time() - t0:.0f} s", flush=True)
        return train, test, decs

    def played_out() -> tuple[Any, ...]:
        rtrain = rollouts(args.variant, 0, args.rollouts, args.seed, args.share)
        print(f"played out: {len(rtrain)} decisions, {time.time() - t0:.0f} s", flush=True)
        rtest = rollouts(args.variant, args.deals, args.rollout_test, args.seed, args.share)
        print(f"played out, held out: {len(rtest)} decisions, {time.time() - t0:.0f} s", flush=True)
        return rtrain, rtest

    train, test, decs = cached(args.cache, played)
    rtrain: list[tuple[list[tuple[int, Raw]], int, list[int]]] = []
    rtest: list[tuple[list[tuple[int, Raw]], int, list[int]]] = []
    if args.rollouts:
        rtrain, rtest = cached(args.rcache, played_out)
    if args.strong:
        got = strong_departures(args.variant, args.deals, args.strong, args.seed, args.outs)
        n = len(got)
        for name, j in (("子", 0), ("wins", 1)):
            xs = [x[j] for x in got]
            m = sum(xs) / max(1, n)
            sd = math.sqrt(sum((x - m) ** 2 for x in xs) / max(1, n - 1))
            print(f"the strong AI's discard with the learned chance against without it, {n} decisions of {args.strong} "
                  f"deals where they differ, played out {args.outs} times each: {name} {m:+.4f} +- "
                  f"{1.96 * sd / math.sqrt(max(1, n)):.4f} a decision")
        for d in sorted({x[2] for x in got}):
            xs = [x[0] for x in got if x[2] == d]
            print(f"  the table's discard leaving distance {d}: {len(xs)} decisions, 子 {sum(xs) / len(xs):+.3f}")
        return
    natural = Model()
    natural.w = _fit(natural, train, args.ridge)
    natural.set_level(train)
    models: dict[str, Any] = {"table": lambda raw: raw[2], "learned": natural.p, "learned at level": natural.p_rank}
    model = natural
    if rtrain:
        played = Model()
        data = [(raw, y) for opts, _, won in rtrain for (_, raw), y in zip(opts, won, strict=True)]
        played.w = _fit(played, data + (train if args.with_natural else []), args.ridge)
        played.set_level(train)
        models["played"] = played.p
        models["played at level"] = played.p_rank
        if args.fit == "played":
            model = played
    print(f"fitted, {time.time() - t0:.0f} s")
    res = report(model, test, decs)
    if rtest:
        report_rollouts(models, rtest)
    if args.write:
        _read_info()
        info = (f"fitted on {args.deals} one-hand deals of four normal AIs (``duel:{args.seed}:0`` ..), "
                f"{len(train)} afterstates of discards made while not ready, ridge {args.ridge}; on the {args.test} "
                f"deals after them ({len(test)} afterstates) the log-likelihood per afterstate is "
                f"{res['learned']:.5f} against {res['table']:.5f} for the table's chance ({res['base']:.5f} for one "
                f"chance for all); the dearest discard of {res['differ']} of {res['decisions']} decisions differs.")
        write(args.variant, model, info, args.json)


if __name__ == "__main__":
    main()
