"""池州麻将 Chizhou: 花 gate, 番 capped at 3 (蜡子), 抢杠 and the 承包 / 反包 contracts.

Rules: the rulings C1-C10 of ``docs/rules/chizhou.md`` (``#c1`` ...), which also lists the choices made where they
are silent.

>>> from engine.tiles import parse_hand
>>> r = VARIANT.score(parse_hand("123m456p1z[555z][666z]+1z"), Situation(winner=1))
>>> r.extra["hua"], r.extra["fan"], r.payments
(2, 1, (-1, 3, -1, -1))
>>> shown_hua(parse_hand("11m[555z](2222p)").melds)
3
>>> claim_allowed(parse_hand("[123m]").melds, "chi", (13, 14, 15))
False
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..analysis import TRIPLET, Decomposition, decompositions, is_complete
from ..errors import HandError, Msg
from ..tiles import HONOR, NUM_KINDS, SEATS, Hand, Meld, MeldKind, suit_of
from .base import AiProfile, HouseRule, Item, ScoreResult, Settlement, Situation, Variant, settle

CAP = 3  # 封顶 3 番: 蜡子
_SUIT_ZH = "万筒条"
_SUIT_EN = ("Characters", "Dots", "Bamboo")
_SEAT_ZH = "东南西北"

# 花 sources: code -> (zh, en, value)
_HUA = {
    "hua_honour_pung": ("字碰", "honour pung", 1),
    "hua_honour_concealed": ("字暗刻", "concealed honour triplet", 1),
    "hua_kong": ("明杠", "exposed kong (suited)", 1),
    "hua_concealed_kong": ("暗杠", "concealed kong (suited)", 2),
    "hua_honour_kong": ("字明杠", "exposed honour kong", 2),
    "hua_honour_concealed_kong": ("字暗杠", "concealed honour kong", 3),
}

# 番 items: code -> (zh, en, value)
_FAN = {
    "duiduihu": ("对对胡", "all pungs", 3),
    "qingyise": ("清一色", "one suit", 3),
    "hunyise": ("混一色", "one suit with honours", 3),
    "ziyise": ("字一色", "all honours", 3),
    "dadiaoche": ("大吊车", "big single wait (four melds)", 2),
    "gangkai": ("杠开", "win on a kong replacement", 2),
}
#: item / note code -> the ruling it comes from (docs/rules/chizhou.md#c1 ...; shown beside the item: "杠开 (C7)")
RULE_OF: dict[str, str] = {
    **{code: "C5" for code in _HUA},
    "hua": "C5",
    **{code: "C7" for code in _FAN},
    "xiaohu": "C7",
    "cap": "C7",
    "fan": "C7",
    "qianggang": "C8",
    "contract_feeder": "C9",
    "contract_reverse": "C9",
}
_BIG = ("duiduihu", "qingyise", "hunyise", "ziyise")


# ---------------------------------------------------------------------------------------------------------------
# 花


def _meld_hua(m: Meld) -> tuple[str, int] | None:
    honour = m.tile >= HONOR
    if m.kind is MeldKind.CHI:
        return None
    if m.kind is MeldKind.PUNG:
        return ("hua_honour_pung", 1) if honour else None
    if m.kind is MeldKind.KONG:
        return ("hua_honour_kong", 2) if honour else ("hua_kong", 1)
    return ("hua_honour_concealed_kong", 3) if honour else ("hua_concealed_kong", 2)


def shown_hua(melds: Sequence[Meld]) -> int:
    """花 of declared melds (shown melds and concealed kongs): what the chi limit (C6) and 反包 look at.

    >>> from engine.tiles import parse_hand
    >>> shown_hua(parse_hand("[777z][5555m](1111z)[123p]").melds)  # 1 + 1 + 3 + 0
    5
    """
    total = 0
    for m in melds:
        h = _meld_hua(m)
        if h is not None:
            total += h[1]
    return total


def honour_triplets(closed: Sequence[int]) -> list[int]:
    """The honour kinds held three or more times in the closed part of a hand (counts by kind): 1 花 each (C5), a
    triplet or, completed by a discard, a pung; a closed honour is a triplet or the pair, whatever the reading.

    >>> from engine.tiles import parse_hand
    >>> honour_triplets(parse_hand("111z5556z").closed_counts), honour_triplets(parse_hand("77z").closed_counts)
    ([27, 31], [])
    """
    return [k for k in range(HONOR, NUM_KINDS) if closed[k] >= 3]


def _hua_sources(hand: Hand, by_discard: bool) -> list[tuple[str, int]]:
    """Every 花 of the finished hand. Honours in the closed part can only be triplets or the pair, so the count does
    not depend on the decomposition; a closed honour triplet completed by a discard is a pung (字碰), same value."""
    out = [h for h in map(_meld_hua, hand.melds) if h is not None]
    for k in honour_triplets(hand.closed_counts):
        out.append(("hua_honour_pung", 1) if by_discard and hand.win_tile == k else ("hua_honour_concealed", 1))
    return out


# ---------------------------------------------------------------------------------------------------------------
# chi limit (C6)


def claim_allowed(melds: Sequence[Meld], kind: str, tiles: Sequence[int]) -> bool:
    """Whether a player holding ``melds`` may claim a discard as ``kind`` ("chi", "pung"/"peng" or "kong": a
    claimed kong is judged like a peng) making a meld of ``tiles`` (the meld's tiles, or just the claimed tile).

    While the player has < 2 花 (:func:`shown_hua`, before this claim) all their chis are of one suit, and after a chi
    in suit X they may not chi or peng a suited tile of another suit. Honour pengs and kongs are always allowed.

    >>> from engine.tiles import parse_hand
    >>> m = parse_hand("[234m]").melds
    >>> claim_allowed(m, "pung", [13]), claim_allowed(m, "pung", [33]), claim_allowed(m, "chi", [5, 6, 7])
    (False, True, True)
    >>> claim_allowed(parse_hand("[234m](1111z)").melds, "pung", [13])  # 3 花: no limit
    True
    """
    k = str(kind).lower()
    if k == "peng":
        k = "pung"
    if k not in ("chi", "pung", "kong"):
        raise ValueError(f"unknown claim kind {kind!r}")
    if not tiles:
        raise ValueError("a claim needs its tiles")
    suits = {suit_of(t) for t in tiles}
    if k == "chi" and (3 in suits or len(suits) != 1):
        return False  # honours cannot be chowed
    if 3 in suits:
        return True
    if shown_hua(melds) >= 2:
        return True
    suit = suits.pop()
    return all(suit_of(m.tile) == suit for m in melds if m.kind is MeldKind.CHI)


def _table_claim_allowed(melds: Sequence[Meld], kind: str, tiles: Sequence[int], rules: Mapping[str, Any]) -> bool:
    return claim_allowed(melds, kind, tiles)


def dadiaoche_exempt(concealed: Sequence[int], last_own_discard: int | None, tile: int) -> bool:
    """C3: the 大吊车 exception to 漏胡. A player whose concealed hand is the one tile ``tile`` (大吊车) and whose last
    discard was that kind may win on another player's discard of it even under 漏胡.

    >>> c = [0] * 34
    >>> c[6] = 1
    >>> dadiaoche_exempt(c, 6, 6), dadiaoche_exempt(c, 5, 6)
    (True, False)
    """
    return last_own_discard == tile and concealed[tile] == 1 and sum(concealed) == 1


# ---------------------------------------------------------------------------------------------------------------
# 番


def _fan_codes(hand: Hand, d: Decomposition, situation: Situation) -> list[str]:
    counts = hand.all_counts
    suited = {s for s in range(3) if any(counts[s * 9 : s * 9 + 9])}
    honours = any(counts[HONOR:])
    codes = []
    if all(m.kind is not MeldKind.CHI for m in hand.melds) and all(b.kind == TRIPLET for b in d.sets):
        codes.append("duiduihu")
    if len(suited) == 1 and not honours:
        codes.append("qingyise")
    if len(suited) == 1 and honours:
        codes.append("hunyise")
    if not suited:
        codes.append("ziyise")
    if len(hand.melds) == 4:
        codes.append("dadiaoche")  # four melds: the closed part is the pair, won on its single-tile wait
    if situation.kong_draw:
        codes.append("gangkai")
    return codes


def _fan(codes: Sequence[str]) -> int:
    return min(CAP, sum(_FAN[c][2] for c in codes)) if codes else 1


def _gate(situation: Situation) -> tuple[int, Msg]:
    """The 花 needed to win (C5) and how the win was made (a message: ``engine.how.*``)."""
    if situation.rob_kong:
        return 2, Msg("engine.how.rob_kong")
    if situation.discarder is not None:
        return 3, Msg("engine.how.discard")
    return 2, Msg("engine.how.self")


def _can_be_duiduihu(hand: Hand) -> bool:
    if any(m.kind is MeldKind.CHI for m in hand.melds):
        return False
    closed = hand.closed_counts
    return all(n in (0, 2, 3) for n in closed) and sum(1 for n in closed if n == 2) == 1


def _is_big_possible(hand: Hand) -> bool:
    counts = hand.all_counts
    suited = sum(1 for s in range(3) if any(counts[s * 9 : s * 9 + 9]))
    return suited <= 1 or _can_be_duiduihu(hand)


def can_win(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> bool:
    """Fast legality for the table and the AI: pair + 4 sets and the 花 gate (C4, C5). Never raises."""
    if hand.win_tile is None or hand.size != 14:
        return False
    if not is_complete(hand.closed_counts):
        return False
    need = _gate(situation)[0]
    have = sum(v for _, v in _hua_sources(hand, situation.discarder is not None))
    if have >= need:
        return True
    return bool(rules.get("big_hands_skip_hua", False)) and _is_big_possible(hand)


# ---------------------------------------------------------------------------------------------------------------
# 承包 / 反包 (C9)


def _kou(melds: Sequence[Meld], feeder: int) -> tuple[int, int, int]:
    """口 fed by ``feeder``: (total, most of one suit (万/筒/条; honours are no suit), that suit)."""
    total = 0
    per = [0, 0, 0]
    for m in melds:
        if m.is_claimed and m.fed_by == feeder:
            total += 1
            s = suit_of(m.tile)
            if s < 3:
                per[s] += 1
    best = max(range(3), key=lambda s: per[s])
    return total, per[best], best


def _big_shape(melds: Sequence[Meld], concealed: Sequence[int] = ()) -> bool:
    """B's own tiles in a big-hand shape: all one suit with or without honours (melds and, when the table gives
    them, concealed tiles), or all B's melds pungs/kongs."""
    suits = {suit_of(m.tile) for m in melds} | {suit_of(k) for k in concealed}
    return len(suits - {3}) <= 1 or all(m.is_triplet for m in melds)


def _seat(s: int) -> tuple[str, str]:
    return _SEAT_ZH[s] + "家", SEATS[s]


def _pays(zh: str, en: str, owe: int, add: int, rob_kong: bool) -> tuple[str, str]:
    if rob_kong:  # the robbed player pays the plain shares; the contract's extra stays with its seat
        return (
            f"{zh}另付 {add}（抢杠：被抢杠者付三家的份）",
            f"{en} pays {add} on top (the robbed player pays the plain shares)",
        )
    if add == owe:
        return f"{zh}付 {owe}", f"{en} pays {owe}"
    return f"{zh}共付 {owe}（多付 {add}）", f"{en} pays {owe} in all ({add} more)"


def _contracts(hand: Hand, situation: Situation, f: int) -> tuple[dict[int, int], list[Item]]:
    """Extra amounts owed to the winner under 承包 and 反包, on top of the plain settlement, and their notes."""
    w = situation.winner
    d = situation.discarder
    self_like = d is None or situation.rob_kong  # 抢杠 is settled as a self-draw
    rob = (
        ("抢杠（按自摸结算）", "won by robbing a kong (settled as a self-draw)")
        if situation.rob_kong
        else None
    )
    extra: dict[int, int] = {}
    notes: list[Item] = []

    # Feeder pays: the winner holds >= 3 口 of one suit from A and wins with 蜡子.
    for a in range(4):
        if a == w:
            continue
        _, n_suit, suit = _kou(hand.melds, a)
        if n_suit < 3 or f < CAP:
            continue
        if self_like:
            owe, (route_zh, route_en) = 3 * f, rob or ("自摸", "self-drawn")
        elif d == a:
            owe, route_zh, route_en = 3 * f, "供口者放冲", "the feeder dealt in"
        else:
            owe, route_zh, route_en = f, "他人放冲", "another player dealt in"
        add = owe - (f if (self_like or d == a) else 0)
        extra[a] = extra.get(a, 0) + add
        azh, aen = _seat(a)
        pay_zh, pay_en = _pays(azh, aen, owe, add, situation.rob_kong)
        notes.append(
            Item(
                "contract_feeder",
                f"承包：{azh}供和牌者{n_suit}口{_SUIT_ZH[suit]}，和出蜡子，{route_zh}：{pay_zh}",
                f"Contract: {aen} fed the winner {n_suit} melds of {_SUIT_EN[suit]}, the win is capped (蜡子) and "
                f"{route_en}: {pay_en}",
                add,
                "info",
            )
        )

    # 反包: another player B holds >= 3 口 of one suit (or >= 4 口) fed by the winner.
    by_seat = situation.melds_by_seat
    if by_seat is not None and len(by_seat) == 4:
        for b in range(4):
            if b == w:
                continue
            melds_b = by_seat[b]
            total, n_suit, suit = _kou(melds_b, w)
            if total >= 4:
                mult, why_zh, why_en = 2, f"{total}口", f"{total} melds"
            elif n_suit >= 3:
                hua_b = shown_hua(melds_b)
                if hua_b == 0:
                    why_zh, why_en = (
                        f"{n_suit}口{_SUIT_ZH[suit]}且无花",
                        f"{n_suit} melds of {_SUIT_EN[suit]}, no 花",
                    )
                elif _big_shape(melds_b, situation.concealed_by_seat[b] if situation.concealed_by_seat else ()):
                    why_zh = f"{n_suit}口{_SUIT_ZH[suit]}，有花但成大牌形"
                    why_en = f"{n_suit} melds of {_SUIT_EN[suit]}, 花 but a big-hand shape"
                else:
                    continue
                mult = 1
            else:
                continue
            if self_like:
                owe, base = 3 * mult * f, f
                route_zh, route_en = rob or ("和牌者自摸", "the winner self-drew")
            elif d == b:
                owe, base = 2 * mult * f, f
                route_zh, route_en = "自己放冲", "they dealt in"
            else:
                owe, base = mult * f, 0
                route_zh, route_en = "他人放冲", "another player dealt in"
            add = owe - base
            extra[b] = extra.get(b, 0) + add
            bzh, ben = _seat(b)
            pay_zh, pay_en = _pays(bzh, ben, owe, add, situation.rob_kong)
            notes.append(
                Item(
                    "contract_reverse",
                    f"反包：和牌者供{bzh}{why_zh}，{route_zh}：{pay_zh}",
                    f"Reverse contract: the winner fed {ben} {why_en}; {route_en}: {pay_en}",
                    add,
                    "info",
                )
            )
    return extra, notes


# ---------------------------------------------------------------------------------------------------------------
# scoring


def _check_feeders(hand: Hand, winner: int) -> None:
    previous = (winner + 3) % 4
    for m in hand.melds:
        if m.fed_by is None or not m.is_claimed:
            continue
        text = m.notation()[1:-1].split(":")[0]
        if m.kind is MeldKind.CHI and m.fed_by != previous:
            raise HandError(
                "chi_not_from_previous",
                meld=text,
                winner=SEATS[winner],
                previous=SEATS[previous],
                seat=SEATS[m.fed_by],
            )


# (sort key, f, 番 codes, plain shares, contract extras, contract notes)
_Reading = tuple[tuple[int, int, int], int, list[str], dict[int, int], dict[int, int], list[Item]]


def score(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> ScoreResult:
    """Score a Chizhou hand (already validated by :meth:`Variant.score`)."""
    _check_feeders(hand, situation.winner)
    decomps = decompositions(hand.closed_counts)
    if not decomps:
        raise HandError("not_complete", extra="")
    by_discard = situation.discarder is not None
    sources = _hua_sources(hand, by_discard)
    hua = sum(v for _, v in sources)
    need, how = _gate(situation)
    skip_big = bool(rules.get("big_hands_skip_hua", False))
    contracts_on = bool(rules.get("contracts", True))
    w = situation.winner

    best: _Reading | None = None
    for d in decomps:
        codes = _fan_codes(hand, d, situation)
        if hua < need and not (skip_big and any(c in _BIG for c in codes)):
            continue
        f = _fan(codes)
        dis = situation.discarder
        base: dict[int, int]
        if dis is not None and situation.rob_kong:
            base = {dis: 3 * f}
        elif dis is not None:
            base = {dis: f}
        else:
            base = {s: f for s in range(4) if s != w}
        extra, notes = _contracts(hand, situation, f) if contracts_on else ({}, [])
        total = sum(base.values()) + sum(extra.values())
        key = (total, f, sum(_FAN[c][2] for c in codes))  # ties: show the reading with the most 番 items
        if best is None or key > best[0]:
            best = (key, f, codes, base, extra, notes)
    if best is None:
        raise HandError("hua_gate", need=need, have=hua, how=how)
    _, f, codes, base, extra, notes = best

    items: list[Item] = []
    for code, (zh, en, _) in _HUA.items():
        v = sum(val for c, val in sources if c == code)
        if v:
            items.append(Item(code, zh, en, v, "info"))
    items.append(Item("hua", "花", "flowers (花): needed to win, not paid", hua, "info"))
    if codes:
        for c in codes:
            zh, en, v = _FAN[c]
            items.append(Item(c, zh, en, v))
        raw = sum(_FAN[c][2] for c in codes)
        if raw > CAP:
            items.append(Item("cap", "封顶", "capped at 3 fan (番)", CAP, "info"))
    else:
        items.append(Item("xiaohu", "小胡", "small hand", 1))
    items.append(
        Item("fan", "蜡子" if f == CAP else "番", "fan (番), capped (蜡子)" if f == CAP else "fan (番)", f, "info")
    )
    if situation.rob_kong:
        items.append(
            Item(
                "qianggang",
                "抢杠（被抢者付三家）",
                "robbing a kong: the robbed player pays all three",
                3,
                "mul",
            )
        )

    owed = dict(base)
    for s, v in extra.items():
        owed[s] = owed.get(s, 0) + v
    return ScoreResult(
        variant="chizhou",
        items=tuple(items),
        payments=settle(w, owed),
        winner=w,
        per_payer=dict(base),
        notes=tuple(notes),
        extra={"fan": f, "hua": hua, "lazi": f == CAP, "big_hand": any(c in _BIG for c in codes)},
    )


VARIANT = Variant(
    rule_of=RULE_OF,
    key="chizhou",
    zh="池州麻将",
    en="Chizhou",
    tile_counts=lambda rules: (4,) * NUM_KINDS,
    score_fn=score,
    can_win_fn=can_win,
    house_rules=(
        HouseRule(
            "big_hands_skip_hua",
            False,
            (False, True),
            "大胡不看花",
            "big hands skip the flower (花) gate",
            "开启后，对对胡、清一色、混一色、字一色不够花也能和",
            "When on, all pungs, one suit, one suit with honours and all honours may win without enough flowers (花)",
        ),
        HouseRule(
            "contracts",
            True,
            (True, False),
            "承包",
            "contracts (承包 / 反包)",
            "供一家同一花色三口（或四口）的人承包或反包",
            "A player who fed another three melds of one suit (or four melds) pays extra, or is paid extra",
        ),
        HouseRule(
            "quan_per_match",
            1,
            (1, 4),
            "每场圈数",
            "rounds per match",
            "一场打 1 圈或 4 圈",
            "A match is 1 or 4 rounds of four dealers",
        ),
    ),
    allows_chi=True,
    seven_pairs=False,
    multiple_winners=True,
    rob_kong=True,
    claim_allowed=_table_claim_allowed,
    dice_rolls=2,  # C2
    pass_locks_pung=True,  # C3: a passed peng may not be claimed on that kind until the next draw
    furiten_exempt=dadiaoche_exempt,
    settlement=Settlement(default_quan=1),
    ai=AiProfile(hua_gate=True, honour_waste=(0.5, -3.0), suit_focus_from=9),
    example="123m456p789s5z(7777z)+5z",
    code="c",
)
