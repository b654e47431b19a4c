"""How dangerous is a discard against a seat that raised an alarm (报警), against what the strong AI predicts (run by
hand, niced; about a minute per 10,000 hands of normal AIs, ten per 1,000 hands of strong AIs).

``python -m benchmarks.calibrate_alarm_danger [--variant wuhu] [--hands N] [--ai normal|strong] [--seed alarm]
[--threat alarm|flush|plain|any] [--rows FILE [--load]] [--write]``

Four AIs of one kind play N one-hand deals (``Table.new(variant, "{seed}:{i}")``). At every discard, for each other
seat showing an alarm (``view["alarms"]``: only Wuhu has them, W12; ``--threat flush``: the seats showing a one-suit
line and no alarm instead; ``--threat plain``: every other seat, no alarm and no one-suit line), the discarder's own evaluator (:class:`engine.strong.evaluator.Know`, from the
discarder's view, as the strong AI and the review read it) gives

- the predicted chance that the tile deals in to that seat (:meth:`Know.deal_in_chance`), the model's product
  without an alarm's factor (:meth:`Know.rest_chance`) and the chance to deal in to anyone (:meth:`Know.danger`,
  the figure the review card shows);
- the predicted cost of dealing in to it (:meth:`Know._threat`) and the payment it reads for a deal-in
  (:meth:`Know.deal_in_pays`, before the part of a self-draw's it takes off);

and what happened: whether that seat won on the discard (and whether anyone did), then what the discarder paid (the
win's ``payments``), whether the win was a 交 and whether the discarder paid for everyone (包 or 点炮包三家).

Each exposure is filed by the predicted chance (bands 0-1%, 1-3%, 3-10%, 10-20%, 20-40%, 40%+), by the alarm
(3对 pure / mixed, 双八支, 双四核; a seat with several by the first of those: :func:`engine.strong.wuhu.alarm_kind`)
and by the tile's class against the alarm (:func:`engine.strong.wuhu.alarm_class`): ``suit`` (the suit of the
alarm's melds), ``other`` (another suit), ``red`` (红中). Per cell: the exposures, the predicted deal-ins (the sum
of the chances), the deal-ins that happened and their ratio; then chance and price together (on the deal-ins, the
payment read against the payment made) by band, by the seat's shown melds (0 / 1 / 2 / 3+) and by the wall left
(thirds). ``--write`` rewrites ``engine/strong/calibration_wuhu_alarm.py`` from normal AIs' rows: per alarm (or
one-suit line, ``--threat flush``) and class the factor that makes the model's product without an alarm's factor match
the deal-ins ((deal-ins + 2) / (predicted + 2), as ``calibrate_hefei_danger`` does for the ways; ``--threat plain``:
per shown melds 0-3 and third of the hand, :func:`engine.strong.wuhu.wall_third`), and per alarm (or line) the share
of its deal-ins that were a 交; the other threats' figures stay.

``--threat any`` watches every other seat (any variant) and prints, against what happened, the chance and the price a
deal-in is read at (the payment :meth:`Know.deal_in_pays` and the cost :meth:`Know._threat`, over the deal-ins that
happened, against what the discarder paid) by the chance's band, by the seat's shown melds (none, concealed kongs only,
one open meld, two or more) and the wall left in thirds (:func:`engine.strong.hefei.meld_cell`), and in Chizhou by the
花 the seat shows. ``--after`` also follows, after each discard that did not deal in to a seat ready to win on it,
what the discarder paid later in the hand (to that seat's self-draw, to any win of it, to anyone's win) against the
self-draw payment it reads: with ``--write`` it rewrites that variant's share in
``engine/strong/calibration_self_share.py`` (what a deal-in's cost takes off, :meth:`Know._threat`). With
``--variant hefei --write`` (without ``--after``) it rewrites ``engine/strong/calibration_hefei_melds.py``: per
cell of the seat's melds and the wall left, the factor that makes the model's chance match the deal-ins
((deal-ins + 2) / (predicted without the cell's factor + 2)); with ``--variant chizhou --write`` (without
``--after``) ``engine/strong/calibration_chizhou_hua.py``: the same factor per 花 the seat shows (1, 2, 3 or more).
The share is written only with ``--after`` (with ``--load``, rows collected with ``--after`` serve both).
"""

from __future__ import annotations

import argparse
import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

from engine.ai import choose
from engine.analysis import winning_kinds
from engine.strong.evaluator import Know, flush_line
from engine.strong.hefei import meld_cell
from engine.strong.wuhu import ALARM_KINDS as KIND_ORDER
from engine.strong.wuhu import alarm_class, alarm_kind, wall_third
from engine.table import Table
from engine.variants.chizhou import shown_hua

BANDS = (0.0, 0.01, 0.03, 0.10, 0.20, 0.40)
BAND_NAMES = ("0-1%", "1-3%", "3-10%", "10-20%", "20-40%", "40%+")
SHORT = {"flush_line": "one-suit line", "alarm_three_pure": "3对清", "alarm_three_mixed": "3对混", "alarm_double_eight": "双八支",
         "alarm_double_sihe": "双四核", "plain": "no alarm, no one-suit line"}


def band(p: float) -> int:
    return max(i for i, b in enumerate(BANDS) if p >= b)


def ready_on_discard(t: Table, o: int, s: int) -> bool:
    """Whether seat o's hidden hand could win now on some discard of seat s (what a deal-in needs; read from the
    whole table: a measurement, never the AI)."""
    c = t.hand.counts[o]
    sp = bool(t.V.seven_pairs and not t.hand.melds[o])
    return any(t._can_win(o, k, s) for k in winning_kinds(c, seven_pairs=sp))


def collect(variant: str, hands: int, ai: str, seed: str, first: int = 0, threat: str = "alarm",
            after: bool = False) -> list[dict[str, Any]]:
    """One row per exposure of a discard to a seat showing an alarm (see the module docstring); ``threat="flush"``:
    to a seat showing no alarm but a one-suit line (:func:`flush_line`) instead. ``after``: each row also says
    whether the seat was ready to win on the discarder's discard (``ready``), the payment a self-draw of it is read
    at (``pay_self_pred``) and what the discarder paid later in the hand: to that seat's self-draw (``later_self``),
    to any later win of it (``later_o``), to any later win of anyone (``later_all``)."""

    def watched(v: Mapping[str, Any], o: int) -> bool:
        if threat == "any":
            return True
        if threat == "alarm":
            return bool(v["alarms"][o])
        if threat == "plain":
            return not v["alarms"][o] and not flush_line(v["melds"][o])
        return not v["alarms"][o] and flush_line(v["melds"][o])

    # what a one-suit deal-in is: Wuhu's 交; Hefei's 清一色 (x3, its one-suit lines are priced as one, the share
    # of such deal-ins that were one: engine.strong.evaluator.HEFEI_FLUSH_JIAO)
    jiao_codes = ("jiao_count", "qingyise") if variant == "hefei" else ("jiao_count",)
    rows: list[dict[str, Any]] = []
    for i in range(first, first + hands):
        t = Table.new(variant, f"{seed}:{i}")
        rng = random.Random(i)
        pending: list[dict[str, Any]] = []
        done: list[dict[str, Any]] = []  # this hand's rows whose discard did not deal in (``after``)
        wall0: int | None = None
        while t.hand.phase in ("play", "claim", "rob"):
            s = t.awaited()[0]
            la = t.legal_actions(s)
            a = la[0] if len(la) == 1 else choose(t, s, la, ai, rng)
            if a.type == "discard" and a.tile is not None:
                rows += pending
                done += pending
                pending = []
                v = t.view(s)
                if wall0 is None:
                    wall0 = int(v["wall_count"])
                if any(watched(v, o) for o in range(4) if o != s):
                    kn = Know(v, s)
                    p_tot, _, _ = kn.danger(a.tile)
                    for o in range(4):
                        if o == s or not watched(v, o):
                            continue
                        p = kn.deal_in_chance(o, a.tile)
                        rest = kn.rest_chance(o, a.tile)[0]
                        om = v["melds"][o]
                        rows_p = {
                            "hand": i, "seat": s, "o": o, "tile": a.tile,
                            "kind": alarm_kind(v["alarms"][o]) or (
                                "flush_line" if threat == "flush" else "plain"), "alarms": list(v["alarms"][o]),
                            "cls": alarm_class(v["melds"][o], a.tile), "p": p, "p_rest": rest, "p_tot": p_tot,
                            "cost": kn._threat(o)[0], "pay_pred": kn.deal_in_pays(o)[0], "melds": len(v["melds"][o]),
                            "wall": int(v["wall_count"]), "wall0": wall0, "full": kn.full_wall,
                            "open": any(m["kind"] != "concealed_kong" for m in om), "flush_line": flush_line(om),
                            "hua": shown_hua(kn.wind_melds[(o - kn.dealer) % 4]) if kn.me.ai.hua_gate else 0,
                            "hit": False, "hit_any": False, "paid": 0, "jiao": False, "bao": False,
                        }
                        if after:
                            rows_p.update(ready=ready_on_discard(t, o, s), pay_self_pred=kn.deal_in_pays(o)[1],
                                          later_self=0, later_o=0, later_all=0)
                        pending.append(rows_p)
            for e in t.apply(a):
                if after and e.type == "win":  # what the discarders of the earlier rows paid for it
                    on_it = e.data["from"] is not None and not e.data.get("rob_kong")
                    for r_ in done + pending:
                        pay_l = -int(e.data["payments"][r_["seat"]])
                        if r_["seat"] == e.seat or (r_ in pending and on_it and e.data["from"] == r_["seat"]):
                            continue  # its own win, or a win on the watched discard itself
                        r_["later_all"] += pay_l
                        if r_["o"] == e.seat:
                            r_["later_o"] += pay_l
                            if e.data["from"] is None:
                                r_["later_self"] += pay_l
                if e.type == "win" and e.data["from"] is not None and e.data["from"] != e.seat:
                    for r_ in pending:
                        r_["hit_any"] = True  # the discard dealt in (to whoever won on it)
                        if r_["o"] == e.seat and r_["seat"] == e.data["from"]:
                            pay_s = int(e.data["payments"][r_["seat"]])
                            r_["hit"] = True
                            r_["paid"] = -pay_s
                            r_["bao"] = sum(1 for x in e.data["payments"] if x < 0) == 1
                            r_["jiao"] = any(it["code"] in jiao_codes for it in e.data["items"])
        rows += pending
    return rows


def _line(name: str, rs: Sequence[Mapping[str, Any]], key: str = "p") -> str:
    n = len(rs)
    pred = sum(r[key] for r in rs)
    hits = sum(1 for r in rs if r["hit_any" if key == "p_tot" else "hit"])
    ratio = f"{pred / hits:5.2f}x" if hits else "   - "
    mean_p = pred / n if n else 0.0
    return (f"| {name} | {n} | {100 * mean_p:.1f}% | {pred:.1f} | {hits} | {100 * hits / max(1, n):.1f}% | "
            f"{ratio} |")


def cells(rows: Sequence[Mapping[str, Any]]) -> str:
    """The chance and the price by band, by the seat's shown melds (0 / 1 / 2 / 3+) and by the wall left (thirds)."""
    out = ["by the chance to deal in to the seat (band): chance and price", PRICE_HEAD]
    for b, name in enumerate(BAND_NAMES):
        out.append(_price_line(name, [r for r in rows if band(r["p"]) == b]))
    out.append(_price_line("all", rows))
    out += ["", "by the seat's shown melds:", PRICE_HEAD]
    for m in range(4):
        out.append(_price_line(f"{m}{'+' if m == 3 else ''} melds", [r for r in rows if min(3, r["melds"]) == m]))
    out += ["", "by the wall left (thirds of the hand, engine.strong.wuhu.wall_third):", PRICE_HEAD]
    for t, name in enumerate(("first third", "second third", "last third")):
        out.append(_price_line(name, [r for r in rows if wall_third(r["wall"]) == t]))
    out += ["", "by melds and band (cells with a deal-in):", PRICE_HEAD]
    for m in range(4):
        for b, name in enumerate(BAND_NAMES):
            rs = [r for r in rows if min(3, r["melds"]) == m and band(r["p"]) == b]
            if any(r["hit"] for r in rs):
                out.append(_price_line(f"{m}{'+' if m == 3 else ''} melds, {name}", rs))
    return "\n".join(out)


HEAD = "| cell | exposures | mean predicted | predicted deal-ins | deal-ins | rate | predicted / happened |\n" \
       "|---|---|---|---|---|---|---|"


def report(rows: Sequence[Mapping[str, Any]], key: str = "p") -> str:
    what = ("the chance to deal in to anyone (p_tot, the card's figure) against a deal-in to anyone" if key == "p_tot"
            else "the chance to deal in to the seat (p) against a deal-in to it")
    out = [f"by {what}:", HEAD]
    for b, name in enumerate(BAND_NAMES):
        out.append(_line(name, [r for r in rows if band(r[key]) == b], key))
    out.append(_line("all", rows, key))
    out += ["", "by alarm:", HEAD]
    for k in (*KIND_ORDER, "flush_line", "plain"):
        out.append(_line(SHORT[k], [r for r in rows if r["kind"] == k], key))
    out += ["", "by the tile's class (the alarm's suit, another suit, 红中):", HEAD]
    for c in ("suit", "other", "red"):
        out.append(_line(c, [r for r in rows if r["cls"] == c], key))
    out += ["", "by alarm and class:", HEAD]
    for k in (*KIND_ORDER, "flush_line"):
        for c in ("suit", "other", "red"):
            rs = [r for r in rows if r["kind"] == k and r["cls"] == c]
            if rs:
                out.append(_line(f"{SHORT[k]} {c}", rs, key))
    hits = [r for r in rows if r["hit"]]
    out += ["", "the deal-ins: predicted cost against the payment",
            "| alarm | deal-ins | predicted cost (mean) | predicted payment (mean) | paid (mean) | 交 | paid for all |",
            "|---|---|---|---|---|---|---|"]
    for k in (*KIND_ORDER, "flush_line", "plain", ""):
        hs = [r for r in hits if not k or r["kind"] == k]
        if hs:
            n = len(hs)
            out.append(f"| {SHORT.get(k, 'all')} | {n} | {sum(r['cost'] for r in hs) / n:.1f} | "
                       f"{sum(r['pay_pred'] for r in hs) / n:.1f} | {sum(r['paid'] for r in hs) / n:.1f} | "
                       f"{sum(r['jiao'] for r in hs)} | {sum(r['bao'] for r in hs)} |")
    n = len(rows)
    if n:
        exp_cost = sum(r["p"] * r["cost"] for r in rows)
        real = sum(r["paid"] for r in rows if r["hit"])
        out.append(f"\ncharged in all (sum of chance x cost): {exp_cost:.1f} 子 over {n} exposures; paid on the "
                   f"deal-ins: {real:.0f} 子")
    return "\n".join(out)


def meld_class(r: Mapping[str, Any]) -> str:
    """The seat's shown melds as the price reads them: none, concealed kongs only, one open meld, two or more."""
    if not r["melds"]:
        return "no meld"
    if not r.get("open", True):
        return "concealed kongs"
    return "1 open meld" if r["melds"] == 1 else "2+ open melds"


def row_cell(r: Mapping[str, Any]) -> str:
    """The row's cell of :func:`engine.strong.hefei.meld_cell` (the seat's melds and the wall left), as the evaluator
    reads it."""
    kinds = ["concealed_kong" if not r.get("open", True) else "pung"] * int(r["melds"])
    return meld_cell([{"kind": k} for k in kinds], int(r["wall"]), int(r.get("full") or r["wall0"]))


def row_third(r: Mapping[str, Any]) -> str:
    """The wall left at the discard, in thirds of the wall at the first discard."""
    return row_cell(r).split(":")[1]


PRICE_HEAD = ("| cell | exposures | predicted deal-ins | deal-ins | chance pred / happened | price read (mean) | "
              "cost read (mean) | paid (mean) | price read / paid | charged (sum p x price) / paid |\n"
              "|---|---|---|---|---|---|---|---|---|---|")


def _price_line(name: str, rs: Sequence[Mapping[str, Any]]) -> str:
    n = len(rs)
    pred = sum(r["p"] for r in rs)
    hs = [r for r in rs if r["hit"]]
    h = len(hs)
    paid = sum(r["paid"] for r in hs)
    charged = sum(r["p"] * r["pay_pred"] for r in rs)
    if not h:
        return f"| {name} | {n} | {pred:.1f} | 0 | - | - | - | - | - | - |"
    pp = sum(r["pay_pred"] for r in hs) / h
    cc = sum(r["cost"] for r in hs) / h
    return (f"| {name} | {n} | {pred:.1f} | {h} | {pred / h:.2f}x | {pp:.1f} | {cc:.1f} | {paid / h:.1f} | "
            f"{pp / max(1e-9, paid / h):.2f}x | {charged / max(1e-9, paid):.2f}x |")


def report_any(rows: Sequence[Mapping[str, Any]], chizhou: bool = False) -> str:
    """Every other seat watched (``--threat any``): the chance and the price a deal-in is read at, against what
    happened, by the chance's band, by the seat's shown melds, by the wall left and (Chizhou) by the 花 it shows."""
    out = ["the chance (p, to the seat) and the price of a deal-in to it (price read: deal_in_pays, cost read: "
           "_threat, both over the deal-ins that happened) against what happened:", "", "by the chance's band:",
           PRICE_HEAD]
    for b, name in enumerate(BAND_NAMES):
        out.append(_price_line(name, [r for r in rows if band(r["p"]) == b]))
    out.append(_price_line("all", rows))
    mcs = ("no meld", "concealed kongs", "1 open meld", "2+ open melds")
    out += ["", "by the seat's shown melds:", PRICE_HEAD]
    for mc in mcs:
        out.append(_price_line(mc, [r for r in rows if meld_class(r) == mc]))
    out.append(_price_line("one-suit line", [r for r in rows if r.get("flush_line")]))
    out += ["", "by the seat's melds and the wall left (the cells of engine.strong.hefei.meld_cell):", PRICE_HEAD]
    for m in ("none", "concealed", "open1", "open2"):
        for w in ("early", "mid", "late"):
            rs = [r for r in rows if row_cell(r) == f"{m}:{w}"]
            if rs:
                out.append(_price_line(f"{m}:{w}", rs))
    out += ["", "by the wall left (thirds):", PRICE_HEAD]
    for wt in ("early", "mid", "late"):
        out.append(_price_line(wt, [r for r in rows if row_third(r) == wt]))
    out += ["", "by the seat's melds and the chance's band:", PRICE_HEAD]
    for mc in mcs:
        for b, name in enumerate(BAND_NAMES):
            rs = [r for r in rows if meld_class(r) == mc and band(r["p"]) == b]
            if rs:
                out.append(_price_line(f"{mc}, {name}", rs))
    if chizhou:
        out += ["", "by the 花 the seat shows:", PRICE_HEAD]
        for hu in range(4):
            out.append(_price_line(f"{hu}{'+' if hu == 3 else ''} 花",
                                   [r for r in rows if min(3, r.get("hua", 0)) == hu]))
        out += ["", "by the 花 the seat shows and the chance's band:", PRICE_HEAD]
        for hu in range(4):
            for b, name in enumerate(BAND_NAMES):
                rs = [r for r in rows if min(3, r.get("hua", 0)) == hu and band(r["p"]) == b]
                if rs:
                    out.append(_price_line(f"{hu}{'+' if hu == 3 else ''} 花, {name}", rs))
    return "\n".join(out)


def after_cells(rows: Sequence[Mapping[str, Any]]) -> dict[str, tuple[int, float, float, float, float, float]]:
    """Over the exposures to a seat ready to win on the discard that did not deal in (``collect(after=True)``), per
    third of the wall and all: (exposures, the share of them the seat went on to self-draw, what the discarder later
    paid to its self-draw, to any later win of it, to any later win of anyone, and the self-draw payment read: each a
    mean per exposure)."""
    out: dict[str, tuple[int, float, float, float, float, float]] = {}
    for wt in ("early", "mid", "late", "all"):
        rs = [r for r in rows if r.get("ready") and not r["hit_any"] and (wt == "all" or row_third(r) == wt)]
        n = max(1, len(rs))
        out[wt] = (len(rs), sum(1 for r in rs if r["later_self"] > 0) / n, sum(r["later_self"] for r in rs) / n,
                   sum(r["later_o"] for r in rs) / n, sum(r["later_all"] for r in rs) / n,
                   sum(r["pay_self_pred"] for r in rs) / n)
    return out


def report_after(rows: Sequence[Mapping[str, Any]]) -> str:
    """The part of a self-draw's payment a deal-in's cost takes off (:meth:`Know._threat`), against what happened:
    at the exposures to a seat ready to win on the discard that did not deal in, what the discarder went on to pay
    (to that seat's self-draw, to any win of it, to anyone's win) against the self-draw payment read."""
    out = ["after a discard that did not deal in to a seat ready to win on it: what the discarder paid later in the "
           "hand (means per exposure) against the self-draw payment read (share = paid / read)",
           "| wall left | exposures | seat self-drew | paid to its self-draw | to any win of it | to anyone's win | "
           "self-draw read | share (its self-draw) | share (anyone's win) |", "|---|---|---|---|---|---|---|---|---|"]
    for wt, (n, q, ls, lo, la, ps) in after_cells(rows).items():
        out.append(f"| {wt} | {n} | {100 * q:.1f}% | {ls:.2f} | {lo:.2f} | {la:.2f} | {ps:.2f} | "
                   f"{ls / max(1e-9, ps):.3f} | {la / max(1e-9, ps):.3f} |")
    return "\n".join(out)


def write_share(rows: Sequence[Mapping[str, Any]], variant: str, hands: int) -> str:
    """Rewrite ``engine/strong/calibration_self_share.py`` from four normal AIs' rows (``--threat any --after``): for
    this variant, the share of the self-draw payment read that the discarder went on to pay anyway (to anyone's win)
    after a discard that did not deal in to a seat ready to win on it; the other variants' figures stay."""
    import pathlib

    from engine.strong import calibration_self_share as old

    share = dict(old.SELF_SHARE)
    n, _, _, _, la, ps = after_cells(rows)["all"]
    share[variant] = round(la / max(1e-9, ps), 3)
    was = {**old.HANDS, variant: hands}
    path = pathlib.Path(__file__).resolve().parent.parent / "engine" / "strong" / "calibration_self_share.py"
    path.write_text(
        '"""What a deal-in\'s cost takes off, measured per variant (generated by ``python -m\n'
        'benchmarks.calibrate_alarm_danger --variant V --threat any --after --write``; do not edit by hand)."""\n\n'
        "from __future__ import annotations\n\n"
        f"HANDS: dict[str, int] = {was!r}\n"
        '"""Per variant: the one-hand deals of four normal AIs its figure comes from."""\n\n'
        f"SELF_SHARE: dict[str, float] = {share!r}\n"
        '"""Per variant: what the discarder went on to pay to anyone\'s win in the rest of the hand, after a discard that\n'
        'did not deal in to a seat ready to win on it, as a share of what it reads it would pay that seat\'s self-draw\n'
        '(:meth:`engine.strong.evaluator.Know.deal_in_pays`): a deal-in ends the hand and spares that."""\n',
        encoding="utf-8")
    return str(path)


def meld_residual(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Per cell of :func:`engine.strong.hefei.meld_cell`: (deal-ins + 2) / (the model's chances without the cell's
    factor + 2) (a thin cell stays near 1)."""
    from engine.strong.calibration_hefei_melds import MELD_FACTOR

    out: dict[str, float] = {}
    for m in ("none", "concealed", "open1", "open2"):
        for w in ("early", "mid", "late"):
            cell = f"{m}:{w}"
            rs = [r for r in rows if row_cell(r) == cell]
            pred = sum(r["p"] / MELD_FACTOR.get(cell, 1.0) for r in rs)
            hits = sum(1 for r in rs if r["hit"])
            out[cell] = round((hits + 2) / (pred + 2), 3)
    return out


def _write_factor_module(name: str, doc: str, hands: int, table: str) -> str:
    """Write ``engine/strong/NAME``: its docstring, ``HANDS`` and a factor table (the text after ``HANDS``)."""
    import pathlib

    path = pathlib.Path(__file__).resolve().parent.parent / "engine" / "strong" / name
    path.write_text(
        f'"""{doc}"""\n\n'
        "from __future__ import annotations\n\n"
        f"HANDS = {hands}\n"
        '"""One-hand deals of four normal AIs its figures come from."""\n\n'
        + table,
        encoding="utf-8")
    return str(path)


def write_melds(rows: Sequence[Mapping[str, Any]], hands: int) -> str:
    """Rewrite ``engine/strong/calibration_hefei_melds.py`` from four normal AIs' Hefei rows (``--threat any``)."""
    return _write_factor_module(
        "calibration_hefei_melds.py",
        "Hefei: a discard against another seat by its shown melds and the wall left, measured (generated by\n"
        "``python -m benchmarks.calibrate_alarm_danger --variant hefei --threat any --write``; do not edit by hand).",
        hands,
        f"MELD_FACTOR: dict[str, float] = {meld_residual(rows)!r}\n"
        '""""melds:wall" (:func:`engine.strong.hefei.meld_cell`) -> factor on the rest of the danger model."""\n')


def hua_residual(rows: Sequence[Mapping[str, Any]]) -> dict[int, float]:
    """Chizhou, per 花 the seat shows (1, 2, 3: 3 or more): (deal-ins + 2) / (the model's chances without the factor
    by 花 + 2) (a seat showing none is never read as a danger: its base is 0)."""
    from engine.strong.evaluator import CHIZHOU_HUA_FACTOR

    out: dict[int, float] = {}
    for hu in (1, 2, 3):
        rs = [r for r in rows if min(3, r.get("hua", 0)) == hu]
        pred = sum(r["p"] / CHIZHOU_HUA_FACTOR.get(hu, 1.0) for r in rs)
        hits = sum(1 for r in rs if r["hit"])
        out[hu] = round((hits + 2) / (pred + 2), 3)
    return out


def write_hua(rows: Sequence[Mapping[str, Any]], hands: int) -> str:
    """Rewrite ``engine/strong/calibration_chizhou_hua.py`` from four normal AIs' Chizhou rows (``--threat any``)."""
    return _write_factor_module(
        "calibration_chizhou_hua.py",
        "Chizhou: a discard against another seat by the 花 it shows, measured against the rest of the danger model "
        "(generated\nby ``python -m benchmarks.calibrate_alarm_danger --variant chizhou --threat any --write``; do not "
        "edit by hand).",
        hands,
        f"HUA_FACTOR: dict[int, float] = {hua_residual(rows)!r}\n"
        '"""The 花 the seat shows (1, 2, 3: 3 or more) -> the factor on the rest of the danger model\n'
        '(:data:`engine.strong.chizhou.DANGER_BY_HUA` and the tile\'s factors)."""\n')


def _kinds(rows: Sequence[Mapping[str, Any]]) -> tuple[str, ...]:
    """The threats the rows are of: the alarms (every one, a thin cell stays near 1), the one-suit lines or the other
    seats."""
    for k in ("flush_line", "plain"):
        if rows and all(r["kind"] == k for r in rows):
            return (k,)
    return KIND_ORDER


def residual(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Per "alarm:class" (or "flush_line:class", or for the other seats "plain:melds:third"): (wins + 2) / (the
    chances of the model without an alarm factor + 2) (a thin cell stays near 1)."""
    out: dict[str, float] = {}
    if _kinds(rows) == ("plain",):  # the other seats: by shown melds (0 / 1 / 2 / 3+) and the third of the hand
        for m in range(4):
            for t in range(3):
                rs = [r for r in rows if min(3, r["melds"]) == m and wall_third(r["wall"]) == t]
                pred = sum(min(0.35, r["p_rest"]) for r in rs)
                out[f"plain:{m}:{t}"] = round((sum(1 for r in rs if r["hit"]) + 2) / (pred + 2), 3)
        return out
    for k in _kinds(rows):
        for c in ("suit", "other", "red"):
            rs = [r for r in rows if r["kind"] == k and r["cls"] == c]
            pred = sum(min(0.35, r["p_rest"]) for r in rs)
            hits = sum(1 for r in rs if r["hit"])
            out[f"{k}:{c}"] = round((hits + 2) / (pred + 2), 3)
    return out


def jiao_share(rows: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """Per alarm (or one-suit line): the share of the deal-ins to it that were a 交 ((交 + 1) / (deal-ins + 2): a thin
    cell stays off 0)."""
    out: dict[str, float] = {}
    for k in _kinds(rows):
        if k == "plain":
            continue  # priced as a plain win (measured: see the report)
        hs = [r for r in rows if r["kind"] == k and r["hit"]]
        out[k] = round((sum(1 for r in hs if r["jiao"]) + 1) / (len(hs) + 2), 3)
    return out


def write(rows: Sequence[Mapping[str, Any]], hands: int, threat: str) -> str:
    """Rewrite ``engine/strong/calibration_wuhu_alarm.py`` from four normal AIs' rows against one kind of threat
    (``--threat``), keeping the other kinds' figures as they are."""
    import pathlib

    from engine.strong import calibration_wuhu_alarm as old

    fac, jiao = dict(old.ALARM_FACTOR), dict(old.ALARM_JIAO)
    fac.update(residual(rows))
    jiao.update(jiao_share(rows))
    was: Any = old.HANDS
    n = {**(was if isinstance(was, dict) else {"alarm": was}), threat: hands}
    path = pathlib.Path(__file__).resolve().parent.parent / "engine" / "strong" / "calibration_wuhu_alarm.py"
    path.write_text(
        '"""Wuhu: a discard against a seat showing an alarm (报警, W12) or a one-suit line, measured (generated by\n'
        '``python -m benchmarks.calibrate_alarm_danger --threat alarm|flush|plain --write``; do not edit by hand)."""\n\n'
        "from __future__ import annotations\n\n"
        f"HANDS: dict[str, int] = {n!r}\n"
        '"""Per threat (``--threat``): the one-hand deals of four normal AIs its figures come from."""\n\n'
        f"ALARM_FACTOR: dict[str, float] = {fac!r}\n"
        '""""alarm:class" (or "flush_line:class": a one-suit line and no alarm; "plain:melds:third": any other seat, by\n'
        'its shown melds 0-3 and the third of the hand, engine.strong.wuhu.wall_third) -> factor on the rest of the\n'
        'danger model (base and factors, without an alarm\'s)."""\n\n'
        f"ALARM_JIAO: dict[str, float] = {jiao!r}\n"
        '"""alarm (or "flush_line") -> the share of the deal-ins to a seat showing it that were a 交."""\n',
        encoding="utf-8")
    return str(path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--variant", default="wuhu")
    ap.add_argument("--hands", type=int, default=5000)
    ap.add_argument("--first", type=int, default=0)
    ap.add_argument("--ai", default="normal", choices=("normal", "strong"))
    ap.add_argument("--seed", default="alarm")
    ap.add_argument("--threat", default="alarm", choices=("alarm", "flush", "plain", "any"),
                    help="the seats watched: those with an alarm, those with a one-suit line and no alarm, every "
                         "other seat with neither (plain), or every other seat (any: the price table by the seat's "
                         "melds, the wall left and its 花)")
    ap.add_argument("--rows", help="write the rows here (JSON lines) / read them instead of playing with --load")
    ap.add_argument("--load", action="store_true")
    ap.add_argument("--after", action="store_true",
                    help="also what the discarder paid later in the hand (the self-draw share of a deal-in's cost)")
    ap.add_argument("--residual", action="store_true")
    ap.add_argument("--write", action="store_true", help="rewrite engine/strong/calibration_wuhu_alarm.py")
    args = ap.parse_args()
    if args.load:
        with open(args.rows, encoding="utf-8") as f:
            rows = [json.loads(x) for x in f]
    else:
        rows = collect(args.variant, args.hands, args.ai, args.seed, args.first, args.threat, args.after)
        if args.rows:
            with open(args.rows, "w", encoding="utf-8") as f:
                f.writelines(json.dumps(r) + "\n" for r in rows)
    if args.threat == "any":
        print(f"{args.variant}, four {args.ai} AIs, {args.hands} hands: {len(rows)} discards against another seat")
        print(report_any(rows, args.variant == "chizhou"))
        if rows and "ready" in rows[0]:
            print()
            print(report_after(rows))
        if args.residual or (args.write and not args.after):  # the factors the rows' own pricing leaves
            print(hua_residual(rows) if args.variant == "chizhou" else meld_residual(rows))
        if args.write and args.after and rows and "ready" in rows[0]:
            print("wrote", write_share(rows, args.variant, args.hands))
        elif args.write and args.variant == "hefei":
            print("wrote", write_melds(rows, args.hands))
        elif args.write and args.variant == "chizhou":
            print("wrote", write_hua(rows, args.hands))
        return
    print(f"{args.variant}, four {args.ai} AIs, {args.hands} hands: {len(rows)} discards against a seat with an alarm")
    print(report(rows))
    print()
    print(report(rows, "p_tot"))
    print()
    print(cells(rows))
    if args.residual or args.write:
        print(residual(rows), jiao_share(rows))
    if args.write:
        print("wrote", write(rows, args.hands, args.threat))


if __name__ == "__main__":
    main()
