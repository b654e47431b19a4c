"""Independent audit of Chizhou scoring: hands worked out by hand from the rules text and the rulings C1-C10 (docs/rules/chizhou.md).

Every expected value below was computed by hand (arithmetic in the comment) before running the code; none is
copied from the implementation's output. Seats E=0 S=1 W=2 N=3, E is the dealer; payments are (E, S, W, N).
花 (C5): 字碰 1, 字暗刻 1, suited 明杠 1, suited 暗杠 2, 字明杠 2, 字暗杠 3; gate: self-draw 2, discard 3, 抢杠 2.
番 (C7): 对对胡/清一色/混一色/字一色 3, 大吊车 2, 杠开 2; f = 1 with none, else min(3, sum).
Pay (C8): ron discarder f; self-draw f each; 抢杠 the robbed pays 3f.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine.errors import HandError
from engine.tiles import parse_hand, seat_index
from engine.variants import Situation, get_variant

CZ = get_variant("chizhou")
E, S, W, N = 0, 1, 2, 3


def score(hand, winner="S", frm=None, rob=False, kd=False, rules=None, table=None):
    w = seat_index(winner)
    h = parse_hand(hand)
    by_seat = None
    if table is not None:
        by_seat = tuple(
            h.melds if s == w else (parse_hand(table["ESWN"[s]]).melds if "ESWN"[s] in table else ())
            for s in range(4)
        )
    sit = Situation(
        winner=w,
        discarder=None if frm is None else seat_index(frm),
        rob_kong=rob,
        kong_draw=kd,
        melds_by_seat=by_seat,
    )
    return CZ.score(h, sit, rules)


# (hand, winner, from, rob_kong, kong_draw, rules, expected payments or error code)
CASES = [
    # 1 字暗杠 3 花, 小胡 f 1, ron from E: E pays 1
    ("123m456p78s11z(5555z)+9s", "S", "E", False, False, None, (-1, 1, 0, 0)),
    # 2 dealer E self-draws the same: no dealer extra (seed names none), 1 each
    ("123m456p78s11z(5555z)+9s", "E", None, False, False, None, (3, -1, -1, -1)),
    # 3 dealer as payer: N wins on E's discard, f 1, E pays 1
    ("123m456p78s11z(5555z)+9s", "N", "E", False, False, None, (-1, 0, 0, 1)),
    # 4 字明杠 = 2 花 < 3 needed on a discard (seed 4: 3花衝)
    ("123m456p78s11z[5555z]+9s", "S", "E", False, False, None, "hua_gate"),
    # 5 the same self-drawn: 2 花 is enough (2花自摸), 1 each
    ("123m456p78s11z[5555z]+9s", "S", None, False, False, None, (-1, 3, -1, -1)),
    # 6 字碰 1 + suited 明杠 1 = 2: self-draw ok, 1 each
    ("123m456p1z[555z][7777s]+1z", "S", None, False, False, None, (-1, 3, -1, -1)),
    # 7 the same on W's discard: 2 < 3
    ("123m456p1z[555z][7777s]+1z", "S", "W", False, False, None, "hua_gate"),
    # 8 555z finished by E's discard = 字碰 1, + suited 暗杠 2 = 3: ron ok, f 1, E pays 1
    ("123m456p1155z(7777s)+5z", "S", "E", False, False, None, (-1, 1, 0, 0)),
    # 9 self-drawn on the 1z: 111z 字暗刻 1 + 暗杠 2 = 3, f 1
    ("123m456p1155z(7777s)+1z", "S", None, False, False, None, (-1, 3, -1, -1)),
    # 10 shanpon on a discard with only the finished 字碰: 1 花 < 3
    ("123m456p789s1155z+5z", "S", "E", False, False, None, "hua_gate"),
    # 11 对对胡 3 (111m 555p 999s, 11z pair, 5z 暗杠 3 花), ron from N: N pays 3
    ("111m555p99s11z(5555z)+9s", "S", "N", False, False, None, (0, 3, 0, -3)),
    # 12 清一色 (and 对对胡 in the pung reading) capped 3, 暗杠 2 花, self-draw: 3 each
    ("111222333m4m(9999m)+4m", "S", None, False, False, None, (-3, 9, -3, -3)),
    # 13 the same on a discard: 2 花 < 3
    ("111222333m4m(9999m)+4m", "S", "E", False, False, None, "hua_gate"),
    # 14 ... unless 大胡 skip the gate (setting): E pays 3
    ("111222333m4m(9999m)+4m", "S", "E", False, False, {"big_hands_skip_hua": True}, (-3, 3, 0, 0)),
    # 15 111222333m: sequences (小胡 1) or pungs (对对胡 3): the pung reading pays more, ron W pays 3
    ("111222333m5p(7777z)+5p", "S", "W", False, False, None, (0, 3, -3, 0)),
    # 16 same tiles, won on the 3m instead of the pair: still 3 each self-drawn
    ("11122233m55p(7777z)+3m", "S", None, False, False, None, (-3, 9, -3, -3)),
    # 17 混一色 3, 字暗杠 3 花, winner N self-draws: 3 each
    ("12345678p11z(5555z)+9p", "N", None, False, False, None, (-3, -3, -3, 9)),
    # 18 混一色 with honours only in the pair (suited 暗杠 2 花), self-draw: 3 each
    ("23456788m11z(1111m)+8m", "S", None, False, False, None, (-3, 9, -3, -3)),
    # 19 字一色 + 对对胡 capped 3; four 字暗刻 = 4 花; ron from E on the pair: E pays 3
    ("1112223334445z+5z", "S", "E", False, False, None, (-3, 3, 0, 0)),
    # 20 555z by discard 字碰 1 + 666z 777z 字碰 2 = 3 花; 123m + honours = 混一色 3; N pays 3
    ("123m1155z[666z][777z]+5z", "S", "N", False, False, None, (0, 3, 0, -3)),
    # 21 three 字碰 = 3 花, 123m + 1p pair: two suits, 小胡 1, W pays 1
    ("123m1p[555z][666z][777z]+1p", "S", "W", False, False, None, (0, 1, -1, 0)),
    # 22 大吊车 2 (four melds, won on the pair), 字暗杠 3 花, self-draw: 2 each
    ("1z[123m:E][456p][789s](5555z)+1z", "S", None, False, False, None, (-2, 6, -2, -2)),
    # 23 大吊车 on W's discard: W pays 2
    ("1z[123m][456p][789s](5555z)+1z", "S", "W", False, False, None, (0, 2, -2, 0)),
    # 24 杠开 2 alone: 2 each
    ("123m456p78s11z(5555z)+9s", "S", None, False, True, None, (-2, 6, -2, -2)),
    # 25 大吊车 2 + 杠开 2 = 4 -> 3 (seed 22: 蜡子), 3 each
    ("1z[123m][456p][789s](5555z)+1z", "S", None, False, True, None, (-3, 9, -3, -3)),
    # 26 字一色 + 对对胡 + 大吊车 capped 3, 4 字碰 = 4 花, ron N pays 3
    ("1z[222z][333z][444z][555z]+1z", "S", "N", False, False, None, (0, 3, 0, -3)),
    # 27 杠开 with only 1 花 (a suited 明杠): self-draw needs 2
    ("123m456p78s11z[9999p]+9s", "S", None, False, True, None, "hua_gate"),
    # 28 抢杠 (seed 16 / C8), 小胡 f 1: the robbed N pays 3 x 1
    ("123m456p78s11z(5555z)+9s", "S", "N", True, False, None, (0, 3, 0, -3)),
    # 29 抢杠 needs only 2 花 (字明杠 2): W pays 3
    ("123m456p78s11z[5555z]+9s", "S", "W", True, False, None, (0, 3, -3, 0)),
    # 30 抢杠 with 1 花: refused (2花以上才能槍槓)
    ("123m456p78s11z[555z]+9s", "S", "W", True, False, None, "hua_gate"),
    # 31 抢杠 on a 混一色 (f 3): the robbed E pays 3 x 3 = 9
    ("12345678p11z(5555z)+9p", "S", "E", True, False, None, (-9, 9, 0, 0)),
    # --- 承包 feeder pays (C9, seed 19 二): the winner holds 3 口 of one suit from A and wins with 蜡子
    # 32 S: 3 万 chis from E, 混一色 + 大吊车 -> 3; W deals in: W 3, E 3 more
    ("1z[123m:E][456m:E][789m:E](5555z)+1z", "S", "W", False, False, None, (-3, 6, -3, 0)),
    # 33 dealer E wins, 3 条 pungs from N, 对对胡 + 大吊车 -> 3, 字暗杠 3 花; S deals in: S 3, N 3
    ("5p[111s:N][555s:N][999s:N](7777z)+5p", "E", "S", False, False, None, (6, -3, 0, -3)),
    # 34 the same, the feeder N deals in: N pays 3 x 3 = 9
    ("5p[111s:N][555s:N][999s:N](7777z)+5p", "E", "N", False, False, None, (9, 0, 0, -9)),
    # 35 the same self-drawn: N 9, S 3, W 3
    ("5p[111s:N][555s:N][999s:N](7777z)+5p", "E", None, False, False, None, (15, -3, -3, -9)),
    # 36 W wins with 3 筒 chis from S, 字明杠 2 花, 混一色 + 大吊车 -> 3, self-draw: S 9, E 3, N 3
    ("1z[123p:S][456p:S][789p:S][7777z:E]+1z", "W", None, False, False, None, (-3, -9, 15, -3)),
    # 37 the same on the feeder S's discard: 2 花 < 3
    ("1z[123p:S][456p:S][789p:S][7777z:E]+1z", "W", "S", False, False, None, "hua_gate"),
    # 38 robbing N's kong with 3 筒 melds from S (two 明杠: 2 花), 混一色 -> 3 (a robbed tile cannot be a pair's
    # second copy: the robbed pung held the other three): N pays the plain 3 x 3, S its self-draw extra 9 - 3 = 6
    # (docs decision 6)
    ("1z1z23p[1111p:S][5555p:S][999p:S]+4p", "W", "N", True, False, None, (0, -6, 15, -9)),
    # 39 4 口 from E (3 万 + 字明杠) and 蜡子 (混一色 + 大吊车): E 9, W 3, N 3
    ("1m[123m:E][456m:E][789m:E][5555z:E]+1m", "S", None, False, False, None, (-9, 15, -3, -3)),
    # 40 same 口 but a 筒 pair: f = 大吊车 2, no 蜡子, plain 2 each
    ("1p[123m:E][456m:E][789m:E][5555z:E]+1p", "S", None, False, False, None, (-2, 6, -2, -2)),
    # 41 3 万 chis from E, 大吊车 2 + 杠开 2 = 4 -> 3 is 蜡子 (seed 22), so E pays 3 x 3 = 9, W 3, N 3
    ("1p[123m:E][456m:E][789m:E](5555z)+1p", "S", None, False, True, None, (-9, 15, -3, -3)),
    # 42 the same without 杠开: 大吊车 2 only, no 蜡子, plain 2 each
    ("1p[123m:E][456m:E][789m:E](5555z)+1p", "S", None, False, False, None, (-2, 6, -2, -2)),
    # 43 contracts off: case 35 is a plain self-draw, 3 each
    ("5p[111s:N][555s:N][999s:N](7777z)+5p", "E", None, False, False, {"contracts": False}, (9, -3, -3, -3)),
]


@pytest.mark.parametrize("hand, winner, frm, rob, kd, rules, expected", CASES)
def test_hand_checked(hand, winner, frm, rob, kd, rules, expected):
    if isinstance(expected, str):
        with pytest.raises(HandError) as e:
            score(hand, winner, frm, rob, kd, rules)
        assert e.value.code == expected
        return
    assert score(hand, winner, frm, rob, kd, rules).payments == expected


# --- 反包 (C9, seed 19 一): the winner N fed E (N is E's previous seat) 3 口 of 筒. N's hand: 字暗杠 3 花, f 1.
N_SMALL = "123m456p78s11z(5555z)+9s"
N_LAZI = "12345678m11z(6666z)+9m"  # 混一色 f 3, 3 花
REVERSE = [
    # E has 0 花: S deals in: S 1, E 1 x 1
    (N_SMALL, "[123p:N][456p:N][789p:N]", "S", False, (-1, -1, 0, 2)),
    # E deals in: 2 x 1
    (N_SMALL, "[123p:N][456p:N][789p:N]", "E", False, (-2, 0, 0, 2)),
    # N self-draws: E 3 x 1, S 1, W 1
    (N_SMALL, "[123p:N][456p:N][789p:N]", None, False, (-3, -1, -1, 5)),
    # N robs W's kong: W the plain 3 x 1, E its extra 3 - 1 = 2 (docs decision 6)
    (N_SMALL, "[123p:N][456p:N][789p:N]", "W", True, (-2, 0, -3, 5)),
    # 蜡子 winner: 3 / 6 / 9 (seed: 本来是1，2，3，现在就是3，6，9)
    (N_LAZI, "[123p:N][456p:N][789p:N]", "S", False, (-3, -3, 0, 6)),
    (N_LAZI, "[123p:N][456p:N][789p:N]", "E", False, (-6, 0, 0, 6)),
    (N_LAZI, "[123p:N][456p:N][789p:N]", None, False, (-9, -3, -3, 15)),
    # E has 花 (字碰 from S) but one suit with honours: applies, self-draw E 3
    (N_SMALL, "[123p:N][456p:N][789p:N][777z:S]", None, False, (-3, -1, -1, 5)),
    # E has 1 花 (明杠 条 from S), two suits, chis: no 反包, plain
    (N_SMALL, "[123p:N][456p:N][789p:N][5555s:S]", None, False, (-1, -1, -1, 3)),
    # E has 花 and only pungs/kongs (对对胡 shape): applies; E deals in: 2 x 1
    (N_SMALL, "[111p:N][222p:N][999p:N][5555s:S]", "E", False, (-2, 0, 0, 2)),
    # only 2 口 of 筒 + 1 of 万 from N, 0 花: no 3 of one suit: plain
    (N_SMALL, "[123p:N][456p:N][789m:N]", None, False, (-1, -1, -1, 3)),
    # 4 口 from N, any suits (seed 19 一 (7)): 2 / 4 / 6 x f, here f 3: S 3 + E 6; E 12; E 18 + 3 + 3
    (N_LAZI, "[123p:N][456m:N][789s:N][555z:N]", "S", False, (-6, -3, 0, 9)),
    (N_LAZI, "[123p:N][456m:N][789s:N][555z:N]", "E", False, (-12, 0, 0, 12)),
    (N_LAZI, "[123p:N][456m:N][789s:N][555z:N]", None, False, (-18, -3, -3, 24)),
    # 4 口, f 1, N robs W's kong: W the plain 3 x 1, E its extra 6 x 1 - 1 = 5
    (N_SMALL, "[123p:N][456m:N][789s:N][555z:N]", "W", True, (-5, 0, -3, 8)),
]


def test_feeder_and_reverse_on_one_seat():
    # S self-draws 蜡子 holding 3 万 chis from E (feeder: E 3 x 3 = 9), and E holds 3 筒 pungs from S with 0 花
    # (反包: E 3 x 3 instead of 3, i.e. 6 more): E 3 + 6 + 6 = 15, W 3, N 3, S 21
    r = score("1z[123m:E][456m:E][789m:E](5555z)+1z", "S", table={"E": "[111p:S][555p:S][999p:S]"})
    assert r.payments == (-15, 21, -3, -3)


@pytest.mark.parametrize("hand, e_melds, frm, rob, expected", REVERSE)
def test_reverse_contract_checked(hand, e_melds, frm, rob, expected):
    assert score(hand, "N", frm, rob, table={"E": e_melds}).payments == expected


@pytest.mark.parametrize("case", [CASES[0], CASES[3], CASES[31], CASES[37]])
def test_cli_agrees(case):
    hand, winner, frm, rob, kd, rules, expected = case
    args = [sys.executable, "-m", "bot", "score", hand, "--variant", "chizhou", "--winner", winner, "--json"]
    if frm:
        args += ["--from", frm]
    if rob:
        args.append("--rob-kong")
    out = subprocess.run(args, capture_output=True, text=True, check=False)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    if isinstance(expected, str):
        assert out.returncode == 1 and data["code"] == expected
    else:
        assert tuple(data["payments"][s] for s in "ESWN") == expected


# --- an independent reference scorer, written from C5-C9 without reading the implementation's helpers, compared
# with the variant on random wins (random melds, feeders, tables, win types and house rules).

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from engine.analysis import TRIPLET, decompositions  # noqa: E402
from engine.tiles import Hand, Meld, MeldKind  # noqa: E402


def _hua(m):
    honour = m.tile >= 27
    return {
        MeldKind.CHI: 0,
        MeldKind.PUNG: 1 if honour else 0,
        MeldKind.KONG: 2 if honour else 1,
        MeldKind.CONCEALED_KONG: 3 if honour else 2,
    }[m.kind]


def _per_suit(melds, feeder):
    kou = [m for m in melds if m.kind is not MeldKind.CONCEALED_KONG and m.fed_by == feeder]
    per = [sum(1 for m in kou if m.tile < 27 and m.tile // 9 == s) for s in range(3)]
    return len(kou), max(per)


def reference(hand, sit, rules):
    w, d, rob = sit.winner, sit.discarder, sit.rob_kong
    self_like = d is None or rob
    closed = hand.closed_counts
    hua = sum(map(_hua, hand.melds)) + sum(1 for k in range(27, 34) if closed[k] == 3)  # C5
    need = 2 if self_like else 3
    counts = hand.all_counts
    suits = sum(1 for s in range(3) if any(counts[9 * s : 9 * s + 9]))
    best = None
    for dec in decompositions(closed):
        pungs = all(m.kind is not MeldKind.CHI for m in hand.melds) and all(b.kind == TRIPLET for b in dec.sets)
        big = pungs or suits <= 1  # 对对胡, 清一色/混一色, 字一色
        raw = 3 * pungs + 3 * (suits <= 1) + 2 * (len(hand.melds) == 4) + 2 * sit.kong_draw  # C7
        f = min(3, raw) or 1
        if hua < need and not (rules.get("big_hands_skip_hua") and big):
            continue
        pay = [0, 0, 0, 0]

        def owe(s, x, pay=pay):
            pay[s] -= x
            pay[w] += x

        if rob:
            owe(d, 3 * f)  # C8
        elif d is not None:
            owe(d, f)
        else:
            for s in range(4):
                if s != w:
                    owe(s, f)
        if rules.get("contracts", True):
            for a in range(4):  # C9 feeder pays
                if a != w and _per_suit(hand.melds, a)[1] >= 3 and f == 3:
                    owe(a, 2 * f if self_like or d == a else f)
            for b in range(4) if sit.melds_by_seat else ():  # C9 反包
                mb = sit.melds_by_seat[b]
                total, one_suit = _per_suit(mb, w) if b != w else (0, 0)
                shape = len({m.tile // 9 for m in mb if m.tile < 27}) <= 1 or all(m.is_triplet for m in mb)
                mult = 2 if total >= 4 else 1 if one_suit >= 3 and (sum(map(_hua, mb)) == 0 or shape) else 0
                if mult:
                    owe(b, 3 * mult * f - f if self_like else 2 * mult * f - f if d == b else mult * f)
        if best is None or pay[w] > best[w]:
            best = pay
    return "hua_gate" if best is None else tuple(best)


@st.composite
def wins(draw):
    pool = [4] * 34
    w = draw(st.integers(0, 3))
    others = [s for s in range(4) if s != w]
    suit = st.sampled_from([draw(st.integers(0, 2))] * 4 + [0, 1, 2])

    def take(tiles):
        if all(pool[t] >= tiles.count(t) for t in set(tiles)):
            for t in tiles:
                pool[t] -= 1
            return True
        return False

    def tile(seq=False):
        if not seq and draw(st.integers(0, 2)) == 0:
            return draw(st.integers(27, 33))
        return draw(suit) * 9 + draw(st.integers(0, 6 if seq else 8))

    feeder = draw(st.sampled_from(others))
    melds, closed = [], []
    while len(melds) + len(closed) // 3 < 4:
        if draw(st.booleans()):
            t = tile(seq=True)
            if take([t, t + 1, t + 2]):
                if draw(st.booleans()):
                    melds.append(Meld(MeldKind.CHI, t, fed_by=draw(st.sampled_from([(w + 3) % 4, None]))))
                else:
                    closed += [t, t + 1, t + 2]
            continue
        t = tile()
        how = draw(st.sampled_from(["closed", "pung", "pung", "kong", "ckong"]))
        if how in ("kong", "ckong") and take([t] * 4):
            by = draw(st.sampled_from([feeder, feeder, *others]))
            melds.append(Meld(MeldKind.KONG, t, fed_by=by) if how == "kong" else Meld(MeldKind.CONCEALED_KONG, t))
        elif how != "ckong" and take([t] * 3):
            if how == "closed":
                closed += [t] * 3
            else:
                melds.append(Meld(MeldKind.PUNG, t, fed_by=draw(st.sampled_from([feeder, feeder, *others]))))
    while not take([p := tile(), p]):
        pass
    closed += [p, p]
    win = draw(st.sampled_from(closed))
    closed.remove(win)
    hand = Hand(tuple(closed), tuple(melds), win)
    table = None
    if draw(st.booleans()):
        table = []
        for s in range(4):
            ms = []
            for _ in range(0 if s == w else draw(st.integers(0, 4))):
                by = draw(st.sampled_from([w, w, w] + [o for o in range(4) if o != s]))
                if by == (s + 3) % 4 and draw(st.booleans()):
                    ms.append(Meld(MeldKind.CHI, tile(seq=True), fed_by=by))
                else:
                    ms.append(Meld(draw(st.sampled_from([MeldKind.PUNG, MeldKind.KONG])), tile(), fed_by=by))
            table.append(hand.melds if s == w else tuple(ms))
        table = tuple(table)
    d = draw(st.sampled_from([None, *others]))
    rob = d is not None and draw(st.booleans())
    kd = d is None and any(m.is_kong for m in hand.melds) and draw(st.booleans())  # 杠开 follows a kong
    sit = Situation(winner=w, discarder=d, rob_kong=rob, kong_draw=kd,
                    melds_by_seat=table)  # fmt: skip
    rules = {"big_hands_skip_hua": draw(st.booleans()), "contracts": draw(st.integers(0, 3)) > 0}
    return hand, sit, rules


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(wins())
def test_reference_scorer_agrees(deal):
    hand, sit, rules = deal
    try:
        got = CZ.score(hand, sit, rules).payments
    except HandError as e:
        got = e.code
    assert got == reference(hand, sit, rules)
