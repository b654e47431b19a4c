"""芜湖麻将 Wuhu: who may win, scoring (315 and 525), 交, 报警 and 包.

Everything here follows the rulings W1-W13 of ``docs/rules/wuhu.md`` (``#w1`` ...), which also explains the choices
made where they are silent.

>>> from engine.tiles import parse_hand
>>> r = VARIANT.score(parse_hand("23456799m345p67s+8s"), Situation(winner=1, discarder=2), {"mode": 315})
>>> r.per_payer  # 平胡 1 + 支番 round(8 x 2 / 10) = 2 -> 3; the dealer (E) adds one more 底番
{0: 4, 2: 3, 3: 3}
>>> r.payments
(-4, 10, -3, -3)
>>> alarms(parse_hand("11m[111p:W][444p:W][777p:N]+1m").melds)
('alarm_three_pure',)

Over 600 lines on purpose: one rule set (its scoring, 交, alarms, 包 and the stack settlement) read together.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..analysis import SEQ, TRIPLET, Decomposition, decompositions, is_complete, winning_kinds
from ..errors import HandError
from ..tiles import HONOR, NUM_KINDS, RED, SEAT_ZH, SEATS, Hand, Meld, MeldKind, rank_of, suit_of
from .base import (
    AiProfile,
    HouseRule,
    Item,
    Ledger,
    LedgerView,
    Paid,
    ScoreResult,
    Settlement,
    Situation,
    Variant,
    settle,
)

MODES = (315, 525)
SUIT_ZH = "万筒条"
SUIT_EN = ("Characters", "Dots", "Bamboo")

ALARM_NAMES: dict[str, tuple[str, str]] = {
    "alarm_three_pure": ("清一色三对报警", "3 pungs of one suit (清一色 alarm)"),
    "alarm_three_mixed": ("混一色三对报警", "3 pungs of one suit + Red Dragon (红中; 混一色 alarm)"),
    "alarm_double_eight": ("双八支报警", "2 kongs of one suit (双八支 alarm)"),
    "alarm_double_sihe": ("双四核报警", "2 pungs of one suit, 1-2 ranks apart (双四核 alarm)"),
}

# 嘴子 and direct 交: code -> (zh, en)
NAMES: dict[str, tuple[str, str]] = {
    "hun_yi_se": ("混一色", "half flush (one suit + 红中)"),
    "tong_tian": ("通天", "straight 1-9"),
    "si_he": ("四核", "four of a kind as pung + run (四核)"),
    "dui_dui_hu": ("对对胡", "all pungs"),
    "gang_kai": ("杠后开花", "win on a kong replacement"),
    "qing_yi_se": ("清一色", "full flush"),
    "shuang_ba_zhi": ("双八支", "two kongs of one suit + eight of another suit (双八支)"),
    "shuang_si_he": ("双四核", "two fours of a kind as pung + run (双四核)"),
    "tian_hu": ("天胡", "heavenly hand"),
    "di_hu": ("地胡", "earthly hand"),
    "gang_kai_ya_dang": ("杠后压档", "kong replacement win on a middle-tile wait (杠后压档)"),
}
ZUIZI_ORDER = ("hun_yi_se", "tong_tian", "si_he", "dui_dui_hu", "gang_kai")

#: item / note code -> the ruling it comes from (docs/rules/wuhu.md#w1 ...; shown beside the item: "压档 (W5)")
RULE_OF: dict[str, str] = {
    "zhi": "W4",
    "base_ping": "W9",
    "base_zimo": "W9",
    "base_ya_dang": "W5",
    "base_zimo_ya_dang": "W5",
    "ya_dang_rank": "W5",
    "zhi_fan": "W9",
    "ming_gang": "W9",
    "an_gang": "W9",
    "dealer": "W9",
    "dealer_pays": "W9",
    **{code: "W6" for code in ZUIZI_ORDER},
    "qing_yi_se": "W7",
    "shuang_ba_zhi": "W7",
    "shuang_si_he": "W7",
    "tian_hu": "W7",
    "di_hu": "W7",
    "gang_kai_ya_dang": "W7",
    "jiao_count": "W8",
    "jiao_two_zuizi": "W8",
    "jiao_zimo": "W8",
    **{code: "W12" for code in ALARM_NAMES},
    "bao": "W12",
    "dianpao_bao_san": "W10",
}

_BASE = {  # (self_drawn, ya_dang) -> (code, zh, en, 315, 525)
    (False, False): ("base_ping", "平胡", "plain win", 1, 2),
    (False, True): ("base_ya_dang", "压档", "middle-tile win (压档)", 2, 4),
    (True, False): ("base_zimo", "自摸", "self-drawn", 3, 6),
    (True, True): ("base_zimo_ya_dang", "自摸压档", "self-drawn middle-tile win (自摸压档)", 4, 8),
}


# ---------------------------------------------------------------------------------------------------------------
# small helpers


def _mode(rules: Mapping[str, Any]) -> int:
    try:
        mode = int(rules.get("mode", 315))
    except (TypeError, ValueError):
        mode = 0
    if mode not in MODES:
        raise HandError("bad_rule_value", key="mode", value=rules.get("mode"), expected="315/525")
    return mode


def _round_half_up(num: int, den: int) -> int:
    """round(num / den) with halves going up, in integers.

    >>> _round_half_up(16, 10), _round_half_up(15, 10), _round_half_up(9, 2), _round_half_up(14, 10)
    (2, 2, 5, 1)
    """
    return (2 * num + den) // (2 * den)


def zhi_fan(mode: int, self_drawn: bool, n: int) -> int:
    """支番 for n = 支数 (+ the 压档 rank).

    >>> zhi_fan(315, False, 13), zhi_fan(315, True, 19), zhi_fan(525, False, 9), zhi_fan(525, True, 9)
    (3, 8, 5, 9)
    """
    if mode == 315:
        return _round_half_up(n * (4 if self_drawn else 2), 10)
    return n if self_drawn else _round_half_up(n, 2)


def suit_counts(counts: Sequence[int]) -> tuple[int, int, int]:
    """Tiles of 万, 筒, 条 in a 34-count array."""
    return (sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27]))


def _seat_zh(seat: int) -> str:
    return SEAT_ZH[seat] + "家"


# ---------------------------------------------------------------------------------------------------------------
# alarms (报警)


def _claimed_triplets(melds: Sequence[Meld]) -> list[Meld]:
    """Pungs and kongs made from a discard (对下来), in the order made. Concealed kongs are not 对."""
    return [m for m in melds if m.kind in (MeldKind.PUNG, MeldKind.KONG)]


def _three_alarm(melds: Sequence[Meld]) -> tuple[str, tuple[Meld, ...], int] | None:
    """The 3对 alarm: (code, the three melds that raised it, how many claimed pungs/kongs existed then)."""
    claimed = _claimed_triplets(melds)
    for n in range(3, len(claimed) + 1):
        prefix = claimed[:n]
        for s in range(3):
            of_suit = [m for m in prefix if suit_of(m.tile) == s]
            if len(of_suit) >= 3:
                return "alarm_three_pure", tuple(of_suit[:3]), n
        reds = [m for m in prefix if m.tile == RED]
        if reds:
            for s in range(3):
                of_suit = [m for m in prefix if suit_of(m.tile) == s]
                if len(of_suit) >= 2:
                    trio = sorted(of_suit[:2] + reds[:1], key=prefix.index)
                    return "alarm_three_mixed", tuple(trio), n
    return None


def _double_eight_suits(melds: Sequence[Meld]) -> list[int]:
    """Suits with two or more kongs, exposed or concealed (双八支报警, W12: the rules text's 任意两杠).

    >>> from engine.tiles import parse_hand
    >>> _double_eight_suits(parse_hand("1z(1111m)[9999m]+1z").melds), _double_eight_suits(parse_hand("1z(1111m)+1z").melds)
    ([0], [])
    """
    kongs = [suit_of(m.tile) for m in melds if m.is_kong and m.tile < HONOR]
    return [s for s in range(3) if kongs.count(s) >= 2]


def _double_sihe_kinds(melds: Sequence[Meld]) -> set[int]:
    """Kinds of the exposed pungs that form a 双四核 alarm (same suit, ranks one or two apart)."""
    pungs = [m.tile for m in melds if m.kind is MeldKind.PUNG and m.tile < HONOR]
    out: set[int] = set()
    for i, a in enumerate(pungs):
        for b in pungs[i + 1 :]:
            if suit_of(a) == suit_of(b) and 1 <= abs(a - b) <= 2:
                out |= {a, b}
    return out


def alarms(melds: Sequence[Meld]) -> tuple[str, ...]:
    """Alarm codes (see :data:`ALARM_NAMES`) raised by a player's declared melds, to announce at the table.

    >>> from engine.tiles import parse_hand
    >>> alarms(parse_hand("11m23s[111p][555p][777z]+1m").melds)
    ('alarm_three_mixed',)
    >>> alarms(parse_hand("11m[1111p][5555p][444s][666s]+1m").melds)
    ('alarm_double_eight', 'alarm_double_sihe')
    """
    out: list[str] = []
    three = _three_alarm(melds)
    if three:
        out.append(three[0])
    if _double_eight_suits(melds):
        out.append("alarm_double_eight")
    if _double_sihe_kinds(melds):
        out.append("alarm_double_sihe")
    return tuple(out)


# ---------------------------------------------------------------------------------------------------------------
# legality


KEPT_CACHE = 4096
"""How many hands' shape (:func:`_check_shape`), readings' 嘴子 and direct 交 (:func:`_kept_traits`) and 13 tiles'
single wait (:func:`_single_wait`) one process keeps (least recently used first out). They read the hand only, never
the situation or the rules: the strong AI scores each winning tile of a ready hand three times (self-drawn, on two
seats' discards), and the single-wait test goes over the 13 tiles' winning kinds, the same for every winning tile."""


@lru_cache(maxsize=KEPT_CACHE)
def _check_shape(hand: Hand) -> tuple[tuple[Decomposition, ...], int, tuple[int, int, int]]:
    """The hand's readings, its 支 and its suits' tiles (:class:`HandError` when it may not win so); kept per hand
    (:data:`KEPT_CACHE`: a refused hand is checked again each time)."""
    counts = hand.closed_counts
    decomps = decompositions(counts)
    if not decomps:
        if len(hand.melds) == 0 and all(n % 2 == 0 for n in counts) and sum(counts) == 14:
            raise HandError("no_seven_pairs")
        raise HandError("not_complete", extra="")
    suits = suit_counts(hand.all_counts)
    zhi = max(suits)
    if zhi < 8:
        raise HandError("no_bazhi", n=zhi)
    return tuple(decomps), zhi, suits


@lru_cache(maxsize=KEPT_CACHE)
def _kept_traits(hand: Hand) -> tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]:
    """The :func:`_traits` of each of the hand's readings (:func:`_check_shape`), kept per hand like it."""
    decomps, _zhi, suits = _check_shape(hand)
    all_counts = hand.all_counts
    return tuple(_traits(hand, d, suits, all_counts) for d in decomps)


def can_win(hand: Hand, situation: Situation | None = None, rules: Mapping[str, Any] | None = None) -> bool:
    """Fast legality for the table and the AI: pair + four sets, 八支, no chi, only 红中 as honour.

    >>> from engine.tiles import parse_hand
    >>> can_win(parse_hand("23456799m345p67s+8s")), can_win(parse_hand("123456m456p78s11s+9s"))
    (True, False)
    """
    melds = hand.melds
    if hand.win_tile is None or len(hand.concealed) + 3 * len(melds) != 13:
        return False
    if situation is not None and situation.last_tiles and situation.discarder is not None:
        return False
    closed = hand.closed_counts
    if any(closed[HONOR:RED]):
        return False
    suits = [sum(closed[0:9]), sum(closed[9:18]), sum(closed[18:27])]
    for m in melds:
        if m.kind is MeldKind.CHI:
            return False
        t = m.tile
        if t < HONOR:
            suits[t // 9] += 4 if m.kind is not MeldKind.PUNG else 3
        elif t != RED:
            return False
    if max(suits) < 8:
        return False
    return is_complete(closed)


def _single_wait(hand: Hand) -> bool:
    """Whether the hand before its winning tile had exactly one winning kind (Wuhu-legal wins, 八支 included): the
    same for every winning tile of those 13 tiles, kept per 13 tiles and melds (:data:`KEPT_CACHE`)."""
    assert hand.win_tile is not None
    return _kept_single_wait(hand.concealed, hand.melds)


@lru_cache(maxsize=KEPT_CACHE)
def _kept_single_wait(concealed: tuple[int, ...], melds: tuple[Meld, ...]) -> bool:
    before = Hand(concealed, melds)  # the 13 tiles: the winning tile left out
    closed = before.closed_counts
    held = before.all_counts
    kinds = []
    for k in winning_kinds(closed, held=held):
        if HONOR <= k < RED:
            continue
        closed[k] += 1
        held[k] += 1
        if max(suit_counts(held)) >= 8:
            kinds.append(k)
        closed[k] -= 1
        held[k] -= 1
        if len(kinds) > 1:
            return False
    return len(kinds) == 1


# ---------------------------------------------------------------------------------------------------------------
# scoring one reading


@dataclass(frozen=True)
class _Reading:
    """One decomposition with one placement of the winning tile, fully valued."""

    jiao: int
    direct: tuple[str, ...]
    zuizi: tuple[str, ...]  # 嘴子 counted (not consumed by a direct 交)
    ya_dang: int  # rank, 0 = not 压档
    per_payer: dict[int, int]
    items: tuple[Item, ...]

    @property
    def total(self) -> int:
        return sum(self.per_payer.values())


def _sihe_kinds(hand: Hand, d: Decomposition, all_counts: Sequence[int]) -> list[int]:
    trip = {b.tile for b in d.sets if b.kind == TRIPLET} | {m.tile for m in hand.melds if m.kind is MeldKind.PUNG}
    seq_tiles = {t for b in d.sets if b.kind == SEQ for t in b.tiles}
    return sorted(k for k in trip if all_counts[k] == 4 and k in seq_tiles)


def _ya_dang_rank(win: int, block_kind: str, block_tile: int) -> int:
    """The 压档 rank of the winning tile placed in a sequence starting at ``block_tile``, else 0."""
    if block_kind != SEQ:
        return 0
    pos = win - block_tile
    r0 = rank_of(block_tile)
    if pos == 1 or (pos == 2 and r0 == 1) or (pos == 0 and r0 == 7):
        return rank_of(win)
    return 0


def _traits(hand: Hand, d: Decomposition, suits: tuple[int, int, int], all_counts: Sequence[int]
            ) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """What a reading shows whatever the situation: its 嘴子 and its direct 交 so far, each in the card's order
    (:func:`_evaluate` adds those of the situation after them)."""
    # 嘴子
    n_suits = sum(1 for n in suits if n)
    reds = all_counts[RED]
    sihe = _sihe_kinds(hand, d, all_counts)
    zuizi: list[str] = []
    if n_suits == 1 and reds:
        zuizi.append("hun_yi_se")
    runs = {b.tile for b in d.sets if b.kind == SEQ}  # the first kinds of its runs
    for base in (0, 9, 18):
        if base in runs and base + 3 in runs and base + 6 in runs:
            zuizi.append("tong_tian")
            break
    if len(sihe) % 2 == 1:  # one 四核 (or a third beside a 双四核)
        zuizi.append("si_he")
    if all(b.kind != SEQ for b in d.sets):
        zuizi.append("dui_dui_hu")

    # direct 交
    direct: list[str] = []
    if n_suits == 1 and not reds:
        direct.append("qing_yi_se")
    kong_suits = [suit_of(m.tile) for m in hand.melds if m.is_kong and m.tile < HONOR]
    if any(kong_suits.count(s) >= 2 and any(suits[o] >= 8 for o in range(3) if o != s) for s in range(3)):
        direct.append("shuang_ba_zhi")
    if len(sihe) >= 2:
        direct.append("shuang_si_he")
    return tuple(zuizi), tuple(direct)


def _evaluate(
    hand: Hand,
    situation: Situation,
    mode: int,
    d: Decomposition,
    ya: int,
    zhi: int,
    traits: tuple[tuple[str, ...], tuple[str, ...]],
    detail: bool = True,
) -> _Reading:
    """One reading valued (``traits``: its :func:`_traits`); without ``detail`` its items are left empty (the
    amounts are the same)."""
    big = mode == 525
    self_drawn = situation.self_drawn
    winner = situation.winner
    payers = [s for s in range(4) if s != winner]

    zuizi = list(traits[0])
    if situation.kong_draw:
        zuizi.append("gang_kai")
    direct = list(traits[1])
    if situation.heavenly:
        direct.append("tian_hu")
    if situation.earthly:
        direct.append("di_hu")
    if situation.kong_draw and ya:
        direct.append("gang_kai_ya_dang")
        zuizi.remove("gang_kai")

    items: list[Item] = [Item("zhi", "支数", "eight-of-a-suit count (支数)", zhi, "info")] if detail else []
    if direct or len(zuizi) >= 2:
        unit, extra_unit = (50, 20) if big else (30, 10)
        extras = list(zuizi)
        if not direct:
            pair = extras[:2]
            extras = extras[2:]
        jiao = max(1, len(direct))
        amount = jiao * unit + len(extras) * extra_unit + (extra_unit if self_drawn else 0)
        if detail:
            for code in direct:
                zh, en = NAMES[code]
                items.append(Item(code, zh, en, unit))
            if not direct:
                zh = "两嘴成交（" + "、".join(NAMES[c][0] for c in pair) + "）"
                en = "two zuizi (嘴子) make one jiao (交): " + ", ".join(NAMES[c][1] for c in pair)
                items.append(Item("jiao_two_zuizi", zh, en, unit))
            for code in extras:
                zh, en = NAMES[code]
                items.append(Item(code, zh + "（加嘴）", en + " (extra 嘴子)", extra_unit))
            if self_drawn:
                items.append(Item("jiao_zimo", "自摸", "self-drawn", extra_unit))
            items.insert(1, Item("jiao_count", "交数", "jiao (交) count", jiao, "info"))
        return _Reading(jiao, tuple(direct), tuple(zuizi), ya, {s: amount for s in payers}, tuple(items))

    # a plain (non-交) hand: 底番 + 支番 + 嘴子番 + 杠番 + dealer extra
    code, zh, en, b315, b525 = _BASE[(self_drawn, bool(ya))]
    base = b525 if big else b315
    zf = zhi_fan(mode, self_drawn, zhi + ya)
    if detail:
        items.append(Item(code, zh, en, base))
        if ya:
            items.append(Item("ya_dang_rank", "压档点数", "middle-tile (压档) rank", ya, "info"))
        items.append(Item("zhi_fan", "支番", "zhi (支) points", zf))
    amount = base + zf
    for c in zuizi:
        v = (5 if big else 2) * (2 if self_drawn and c != "gang_kai" else 1)
        if detail:
            zh, en = NAMES[c]
            items.append(Item(c, zh, en, v))
        amount += v
    ming = sum(1 for m in hand.melds if m.kind is MeldKind.KONG)
    an = sum(1 for m in hand.melds if m.kind is MeldKind.CONCEALED_KONG)
    if ming:
        v = ming * (2 if big else 1)
        if detail:
            items.append(Item("ming_gang", f"明杠 x{ming}", f"exposed kong x{ming}", v))
        amount += v
    if an:
        v = an * (4 if big else 2)
        if detail:
            items.append(Item("an_gang", f"暗杠 x{an}", f"concealed kong x{an}", v))
        amount += v
    per_payer = {s: amount for s in payers}
    if winner == 0:
        if detail:
            items.append(Item("dealer", "庄家加底", "dealer: one more base fan (底番)", base))
        per_payer = {s: amount + base for s in payers}
    else:
        if detail:
            items.append(Item("dealer_pays", "庄家多付一个底番", "the dealer (E) pays one more base fan (底番)", base,
                              "info"))
        per_payer[0] = amount + base
    return _Reading(0, (), tuple(zuizi), ya, per_payer, tuple(items))


# ---------------------------------------------------------------------------------------------------------------
# 包 and settlement


def _bao(hand: Hand, situation: Situation, reading: _Reading, detail: bool = True) -> tuple[int | None, list[Item]]:
    """Who pays for all (None: nobody) and the notes: alarms present and the 包 explanation (without ``detail``:
    no notes)."""
    notes: list[Item] = []
    melds = hand.melds
    if detail:
        for code in alarms(melds):
            zh, en = ALARM_NAMES[code]
            notes.append(Item(code, zh, en, 0, "info"))
    if not reading.jiao:
        return None, notes
    d = situation.discarder
    winner = situation.winner

    total = reading.total

    def bao(seat: int, zh_why: str, en_why: str) -> tuple[int, list[Item]]:
        if not detail:
            return seat, notes
        zh = f"包牌：{_seat_zh(seat)}一人付三家（{zh_why}）"
        en = f"contract (包): {SEATS[seat]} pays for all three ({en_why})"
        return seat, notes + [Item("bao", zh, en, total, "info")]

    three = _three_alarm(melds)
    if three:
        _code, trio, n_at = three
        claimed = _claimed_triplets(melds)
        if n_at == 3 and len(claimed) >= 4 and claimed[3].fed_by is not None and claimed[3].fed_by != winner:
            y = claimed[3].fed_by
            return bao(y, f"四对转包：三对报警后{_seat_zh(y)}打出第四对", f"四对转包: {SEATS[y]} fed the 4th pung")
        feeders = {m.fed_by for m in trio}
        if len(feeders) == 1 and None not in feeders:
            x = feeders.pop()
            if x is not None and x != winner:
                return bao(x, f"三对都由{_seat_zh(x)}打出", f"{SEATS[x]} fed all three pungs of the 3对 alarm")
        if d is not None:
            return bao(d, "三对报警后点炮", "dealt into a 3对 alarm")
    if d is not None:
        for s in _double_eight_suits(melds):
            if any(m.tile < HONOR and suit_of(m.tile) != s for m in _claimed_triplets(melds)):
                return bao(d, "双八支报警且已对下别的花色，点炮", "dealt into a 双八支 alarm showing another suit")
        kinds = _double_sihe_kinds(melds)
        if hand.win_tile in kinds:
            return bao(d, "双四核报警，点炮的牌顶嘴子", "dealt the tile of a 双四核 alarm")
    return None, notes


def _settle(hand: Hand, situation: Situation, rules: Mapping[str, Any], detail: bool
            ) -> tuple[_Reading, tuple[int, int, int, int], list[Item], int, int]:
    """The best reading, the payments, the notes (without ``detail``: none, and the reading's items empty), the
    mode and 支, for :func:`score` and :func:`payments` alike. Raises :class:`HandError` when the hand may not win."""
    mode = _mode(rules)
    for m in hand.melds:
        if m.kind is MeldKind.CHI:
            raise HandError("no_chi_in_variant", variant=VARIANT.name_msg(), tiles=m.notation()[1:-1])
    if hand.win_tile is None:
        raise HandError("no_winning_tile")
    if situation.earthly and situation.discarder != 0:
        raise HandError("earthly_from_dealer")
    if situation.heavenly and situation.discarder is not None:
        raise HandError("heavenly_self_drawn")
    if situation.last_tiles and situation.discarder is not None:  # W3: only self-draw in the last four tiles
        raise HandError("wuhu_last_tiles_discard")
    # a meld fed by the winner, a kong replacement without a kong: refused for every variant (Variant.score)
    decomps, zhi, suits = _check_shape(hand)
    win = hand.win_tile
    single = _single_wait(hand)
    best: _Reading | None = None
    for d, traits in zip(decomps, _kept_traits(hand), strict=True):
        placements = {0}
        if single:
            placements = {_ya_dang_rank(win, b.kind, b.tile) for b in d.blocks if win in b.tiles}
        for ya in sorted(placements, reverse=True):
            r = _evaluate(hand, situation, mode, d, ya, zhi, traits, detail)
            if best is None or r.total > best.total:
                best = r
    assert best is not None

    bao_seat, notes = _bao(hand, situation, best, detail)
    winner = situation.winner
    owed = dict(best.per_payer)
    if bao_seat is None and rules.get("dianpao_bao_san") and situation.discarder is not None:
        bao_seat = situation.discarder
        if detail:
            notes.append(
                Item(
                    "dianpao_bao_san",
                    f"点炮包三家：{_seat_zh(bao_seat)}一人付三家",
                    f"discarder pays for all (点炮包三家): {SEATS[bao_seat]} pays all three shares",
                    best.total,
                    "info",
                )
            )
    if bao_seat is not None:
        owed = {bao_seat: sum(owed.values())}
    return best, settle(winner, owed), notes, mode, zhi


def payments(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> tuple[int, int, int, int]:
    """The ``payments_fn`` of :data:`VARIANT`: :func:`score`'s payments, without the breakdown."""
    return _settle(hand, situation, rules, False)[1]


def score(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> ScoreResult:
    """Score a Wuhu win (the variant's ``score_fn``). Raises :class:`HandError` when the hand may not win."""
    best, pay, notes, mode, zhi = _settle(hand, situation, rules, True)
    winner = situation.winner
    zero = (0, 0, 0, 0)
    return ScoreResult(
        variant="wuhu",
        items=best.items,
        payments=pay,
        winner=winner,
        per_payer=dict(best.per_payer),
        stack_payments=zero if best.jiao else pay,
        jiao_payments=pay if best.jiao else zero,
        notes=tuple(notes),
        extra={"mode": mode, "jiao": best.jiao, "zhi": zhi, "ya_dang": best.ya_dang},
    )


# ---------------------------------------------------------------------------------------------------------------
# the table's settlement: stacks (W11)


class StackSettlement(Settlement):
    """W11: each player starts a 底 with a stack of 30 子 (315) or 50 (525). Non-交 amounts come out of the stacks,
    each payer paying at most what it holds, the winner receiving what is actually paid; 交 amounts go to a separate,
    uncapped 交 tally. When a stack reaches 0 the 底 ends and the stacks are refilled; a match is ``di_per_match`` 底.
    A player's result = stack change summed over the 底 + 交 tally.

    >>> st = StackSettlement()
    >>> led = st.new_ledger({"mode": 315})
    >>> led.stacks[0] = 2
    >>> st.settle(led, (-4, 10, -3, -3), (-4, 10, -3, -3), (0, 0, 0, 0)).settled  # E holds only 2
    [-2, 8, -3, -3]
    >>> st.end_hand(led, {"di_per_match": 1})
    ([('di_end', {'di': 1, 'stacks': [0, 38, 27, 27]})], True)
    >>> st.totals(led, True)
    [-30, 8, -3, -3]
    """

    def new_ledger(self, rules: Mapping[str, Any]) -> Ledger:
        base = 30 if int(rules.get("mode", 315)) == 315 else 50
        return Ledger(stacks=[base] * 4, stack_base=base)

    def settle(self, ledger: Ledger, payments: Sequence[int], stack_payments: Sequence[int],
               jiao_payments: Sequence[int]) -> Paid:
        sp = list(stack_payments)
        jp = list(jiao_payments)
        if not any(sp) and not any(jp):
            sp = list(payments)
        actual = [0, 0, 0, 0]
        for c in range(4):
            if sp[c] < 0:
                actual[c] -= min(-sp[c], max(ledger.stacks[c] + actual[c], 0))
        gained = -sum(actual)
        receivers = [c for c in range(4) if sp[c] > 0]
        if receivers:
            actual[receivers[0]] += gained
        for c in range(4):
            ledger.stacks[c] += actual[c]
            ledger.jiao[c] += jp[c]
        return Paid([actual[c] + jp[c] for c in range(4)], jp)

    def end_hand(self, ledger: Ledger, rules: Mapping[str, Any]) -> tuple[list[tuple[str, dict[str, Any]]], bool]:
        if not any(x <= 0 for x in ledger.stacks):
            return [], False
        for c in range(4):
            ledger.di_results[c] += ledger.stacks[c] - ledger.stack_base
        ledger.di_no += 1
        events: list[tuple[str, dict[str, Any]]] = [("di_end", {"di": ledger.di_no, "stacks": list(ledger.stacks)})]
        ledger.stacks = [ledger.stack_base] * 4
        return events, ledger.di_no >= int(rules.get("di_per_match", 1))

    def totals(self, ledger: Ledger, over: bool) -> list[int]:
        cur = [0, 0, 0, 0] if over else [s - ledger.stack_base for s in ledger.stacks]
        return [ledger.di_results[c] + cur[c] + ledger.jiao[c] for c in range(4)]

    def view(self, ledger: Ledger) -> LedgerView:
        return LedgerView(list(ledger.stacks), list(ledger.jiao), ledger.di_no + 1, None)


def _can_win_fn(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> bool:
    return can_win(hand, situation, rules)


_COUNTS = tuple(4 if k < HONOR or k == RED else 0 for k in range(NUM_KINDS))


def tile_counts(rules: Mapping[str, Any] | None = None) -> tuple[int, ...]:
    """Copies of each kind in the 112-tile wall: 1-9 万 筒 条 x4 and 红中 x4."""
    return _COUNTS


VARIANT = Variant(
    rule_of=RULE_OF,
    key="wuhu",
    zh="芜湖麻将",
    en="Wuhu",
    tile_counts=tile_counts,
    score_fn=score,
    payments_fn=payments,
    can_win_fn=_can_win_fn,
    house_rules=(
        HouseRule(
            "mode", 315, MODES, "玩法", "scoring", "315：一底 30 子；525：一底 50 子", "315: 30 chips a stack (底); 525: 50"
        ),
        HouseRule(
            "dianpao_bao_san",
            False,
            (False, True),
            "点炮包三家",
            "discarder pays all",
            "点炮的人付三家的钱",
            "on a discard win the discarder pays all three shares",
        ),
        HouseRule("di_per_match", 1, tuple(range(1, 9)), "每场底数", "stacks (底) per match", "一场打几底", "how many stacks (底) a match lasts"),
    ),
    allows_chi=False,
    seven_pairs=False,
    multiple_winners=False,
    rob_kong=False,
    modes=MODES,
    alarms=alarms,
    alarm_names=ALARM_NAMES,
    reserve=4,  # W3: the last four tiles are draw-only, self-draw wins only
    scores_heavenly=True,  # W7: 天胡, 地胡
    final_discard=frozenset(),  # W3: nothing at all on the discard that leaves four
    settlement=StackSettlement(),
    ai=AiProfile(bazhi=True),
    example="23456799m345p67s+8s",
    code="w",
    splits_jiao=True,
)
