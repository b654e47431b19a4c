"""合肥麻将 Hefei: legality (shape + 八支), the base score of H4, the multipliers of H5 and the settlement of H6.

Rules: the rulings H1-H8 of ``docs/rules/hefei.md`` (``#h1`` ...), which also lists our readings where they are
silent.

How a hand is scored, per paying seat ``p``::

    base      = 胡 5 + 门清 10 + 支 + 缺门 + 同 + 坎 + 杠 + 活 + 卡 + 七对       (the decomposition paying most)
    share(p)  = (base + 庄分(p)) x 2 [杠开] x 3 [清一色] + 10 [海捞]

Ron: the discarder pays its share. Self-draw: each of the three pays its share. 抢杠: scored as a self-draw, the
robbed seat pays all three shares.

>>> from engine.tiles import parse_hand
>>> r = VARIANT.score(parse_hand("11134567899m56p+7p"), Situation(winner=1, discarder=2))
>>> [(i.code, i.value) for i in r.items]
[('hu', 5), ('menqing', 10), ('zhi', 3), ('quemen', 1), ('kan', 1), ('base', 20)]
>>> r.payments
(0, 20, -20, 0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache
from typing import Any

from ..analysis import SEQ, TRIPLET, Decomposition, decompositions, is_complete, is_seven_pairs, winning_kinds
from ..errors import HandError
from ..tiles import HONOR, NUM_KINDS, Hand, Meld, MeldKind
from .base import AiProfile, HouseRule, Item, ScoreResult, Settlement, Situation, Variant, settle

__all__ = [
    "HAILAO_TILES",
    "MAX_CLAIMED_MELDS",
    "VARIANT",
    "can_win",
    "claims_used",
    "may_claim",
    "may_concealed_kong",
    "payments",
    "score",
    "score_reading",
    "waits",
]

MAX_CLAIMED_MELDS = 1
"""H2: a player claims at most one meld per hand: one peng or one claimed kong. Adding the fourth tile to that pung
(加杠) is allowed and does not use a second claim. With the house rule ``concealed_kongs_unlimited`` off, a concealed
kong also uses this one meld (see :func:`claims_used`)."""

HAILAO_TILES = 4
"""H7: once this many tiles remain in the wall, 海捞 begins: no discards, claims or kongs; starting after the last
discarder each player draws one tile and may only win by self-draw (``Situation(last_tiles=True)``, +10 per payer).
If nobody wins the hand is drawn and the dealer keeps the deal."""

SUIT_BASES = (0, 9, 18)
_FULL = tuple(4 if k < HONOR else 0 for k in range(NUM_KINDS))
_SHORT = tuple(4 if k < HONOR and 1 <= k % 9 <= 7 else 0 for k in range(NUM_KINDS))


def tile_counts(rules: Mapping[str, Any]) -> tuple[int, ...]:
    """H1: 108 tiles (1-9 of 万 筒 条, four each, no honours); ``short_deck``: ranks 2-8 only, 84 tiles.

    >>> sum(tile_counts({})), sum(tile_counts({"short_deck": True}))
    (108, 84)
    """
    return _SHORT if rules.get("short_deck") else _FULL


# ---------------------------------------------------------------------------------------------------------------
# flow helpers for the table


def claims_used(melds: Sequence[Any], rules: Mapping[str, Any]) -> int:
    """How many of the one-meld allowance (:data:`MAX_CLAIMED_MELDS`) these melds use.

    A peng or a kong (claimed, or added to the player's own pung) uses one; a concealed kong uses one only when the
    house rule ``concealed_kongs_unlimited`` is off.
    """
    ck = not rules.get("concealed_kongs_unlimited", True)
    return sum(1 for m in melds if m.kind is not MeldKind.CONCEALED_KONG or ck)


def may_claim(melds: Sequence[Any], rules: Mapping[str, Any]) -> bool:
    """Whether a player with these melds may still peng or claim a kong on a discard."""
    return claims_used(melds, rules) < MAX_CLAIMED_MELDS


def may_concealed_kong(melds: Sequence[Any], rules: Mapping[str, Any]) -> bool:
    """Whether a player with these melds may still declare a concealed kong (always, unless the house rule
    ``concealed_kongs_unlimited`` is off and the one meld is used). Adding to one's own pung is always allowed."""
    return bool(rules.get("concealed_kongs_unlimited", True)) or claims_used(melds, rules) < MAX_CLAIMED_MELDS


def _claim_allowed(melds: Sequence[Meld], kind: str, tiles: Sequence[int], rules: Mapping[str, Any]) -> bool:
    """The table's claim check: a peng or a claimed kong while the one meld is unused (there is no chi)."""
    return kind != "chi" and may_claim(melds, rules)


# ---------------------------------------------------------------------------------------------------------------
# legality


def _suit_totals(counts: Sequence[int]) -> tuple[int, int, int]:
    return (sum(counts[0:9]), sum(counts[9:18]), sum(counts[18:27]))


def can_win(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> bool:
    """Fast legality for the table and the AI: 14 tiles, no chi, at most the allowed melds, 八支, and pair + 4 sets or
    (fully concealed) seven pairs. No scoring. Never raises.

    >>> from engine.tiles import parse_hand
    >>> can_win(parse_hand("11134567899m56p+7p"), Situation(), {})
    True
    >>> can_win(parse_hand("123456m123456p1s+1s"), Situation(), {})  # 6 万, 6 筒, 2 条: no 八支
    False
    """
    win = hand.win_tile
    if win is None or hand.size != 14:
        return False
    if situation.last_tiles and (situation.discarder is not None or situation.kong_draw):
        return False
    if hand.melds:
        if any(m.kind is MeldKind.CHI for m in hand.melds):
            return False
        if claims_used(hand.melds, rules) > MAX_CLAIMED_MELDS:
            return False
    closed = hand.closed_counts
    allc = list(closed)
    for m in hand.melds:
        allc[m.tile] += 4 if m.is_kong else 3
    if max(_suit_totals(allc)) < 8:
        return False
    if max(allc) > 4 or any(allc[HONOR:]):
        return False
    if rules.get("short_deck") and any(allc[b] or allc[b + 8] for b in SUIT_BASES):
        return False
    return is_complete(closed) or (not hand.melds and is_seven_pairs(closed))


def waits(hand: Hand, rules: Mapping[str, Any] | None = None) -> list[int]:
    """Kinds that would make this 13-tile hand (concealed + melds; ``win_tile`` ignored) a legal Hefei win: pair + 4
    sets, seven pairs when there are no melds, and 八支. Kinds the hand already holds four of, or that the deck does
    not have (``short_deck``), are left out. One kind exactly = 卡.

    >>> from engine.tiles import parse_hand, tile_name
    >>> [tile_name(k) for k in waits(parse_hand("123456789m1235p"))]
    ['5p']
    >>> [tile_name(k) for k in waits(parse_hand("12345678m55p678p"))]
    ['3m', '6m', '9m']
    >>> [tile_name(k) for k in waits(parse_hand("1234567m55p6789p"))]  # 6p and 9p complete it, but no 八支
    []
    """
    have = tile_counts(rules or {})
    open_hand = hand.with_win(None)
    held = open_hand.all_counts
    totals = _suit_totals(held)
    return [
        k
        for k in winning_kinds(open_hand.closed_counts, seven_pairs=not hand.melds, held=held)
        if held[k] < have[k] and (totals[k // 9] + 1 >= 8 or max(totals) >= 8)
    ]


def _check(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> None:
    """Refusals beyond the common ones of ``Variant.score``."""
    if situation.last_tiles and (situation.kong_draw or situation.rob_kong):
        raise HandError("hefei_hailao_kong")
    if situation.last_tiles and situation.discarder is not None:
        raise HandError("hefei_hailao_discard")
    used = claims_used(hand.melds, rules)
    if used > MAX_CLAIMED_MELDS:
        ck = not rules.get("concealed_kongs_unlimited", True) and any(
            m.kind is MeldKind.CONCEALED_KONG for m in hand.melds
        )
        raise HandError("hefei_too_many_melds_ck" if ck else "hefei_too_many_melds", n=used)


# ---------------------------------------------------------------------------------------------------------------
# scoring

_NAMES: dict[str, tuple[str, str]] = {
    "hu": ("胡", "win"),
    "menqing": ("门清", "concealed hand (门清)"),
    "zhi": ("支", "zhi (支): tiles of the long suit beyond 8"),
    "quemen": ("缺门", "missing suit (缺门)"),
    "tong": ("同", "same rank beyond 4 (同)"),
    "kan": ("坎", "concealed triplet (坎)"),
    "minggang": ("明杠", "exposed kong"),
    "angang": ("暗杠", "concealed kong"),
    "minghuo": ("明活", "exposed huo (明活: pung + 4th in a run)"),
    "anhuo": ("暗活", "concealed huo (暗活: triplet + 4th in a run)"),
    "ka": ("卡", "single wait (卡)"),
    "qidui": ("七对", "seven pairs"),
    "base": ("基础分", "base score"),
    "zhuang": ("庄分", "dealer points (庄分)"),
    "zhuang_dealer": ("庄分（仅庄家付）", "dealer points, dealer's payment only (庄分)"),
    "gangkai": ("杠开", "win on a kong replacement (杠开)"),
    "qingyise": ("清一色", "pure one suit (清一色)"),
    "hailao": ("海捞", "win in the last four tiles (海捞)"),
    "qianggang_bao": ("抢杠：被抢者包三家", "robbed kong: the robbed player pays all three shares"),
}

#: item / note code -> the ruling it comes from (docs/rules/hefei.md#h1 ...; shown beside the item: "卡 (H4)")
RULE_OF: dict[str, str] = {
    **{code: "H4" for code in ("hu", "menqing", "zhi", "quemen", "tong", "kan", "minggang", "angang", "minghuo",
                               "anhuo", "ka", "qidui", "base", "zhuang", "zhuang_dealer")},
    "gangkai": "H5",
    "qingyise": "H5",
    "hailao": "H5",
    "qianggang_bao": "H6",
}


def _item(code: str, value: int, kind: str = "add") -> Item:
    zh, en = _NAMES[code]
    return Item(code, zh, en, value, kind)


FIXED_ITEMS_CACHE = 4096
"""How many hands' :func:`_fixed_items` one process keeps (least recently used first out). They read the hand and
the deck only, never the situation: the strong AI scores each winning tile of a ready hand three times (self-drawn,
on two seats' discards), and the 卡 test (:func:`waits`) goes over every kind each time."""


def _fixed_items(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> list[Item]:
    """Items that do not depend on the decomposition: 胡 门清 支 缺门 同 杠 卡 (nor on the situation: kept per hand
    and deck, :data:`FIXED_ITEMS_CACHE`)."""
    return list(_kept_fixed_items(hand, bool(rules.get("short_deck"))))


def _deck_rules(short_deck: bool) -> dict[str, Any]:
    """The one rule the kept items read: which deck (:func:`tile_counts`)."""
    return {"short_deck": True} if short_deck else {}


@lru_cache(maxsize=FIXED_ITEMS_CACHE)
def _kept_fixed_items(hand: Hand, short_deck: bool) -> tuple[Item, ...]:
    return tuple(_hand_items(hand, _deck_rules(short_deck)))


def _hand_items(hand: Hand, rules: Mapping[str, Any]) -> list[Item]:
    """:func:`_fixed_items` computed (``rules``: only the deck, :func:`tile_counts`, is read)."""
    counts = hand.all_counts
    totals = _suit_totals(counts)
    items = [_item("hu", 5)]
    if not any(m.kind in (MeldKind.PUNG, MeldKind.KONG) for m in hand.melds):
        items.append(_item("menqing", 10))
    zhi = max(totals) - 8
    if zhi > 0:
        items.append(_item("zhi", zhi))
    quemen = sum(1 for t in totals if t == 0)
    if quemen:
        items.append(_item("quemen", quemen))
    tong = sum(max(0, counts[r] + counts[9 + r] + counts[18 + r] - 4) for r in range(9))  # the three suits' rank r
    if tong:
        items.append(_item("tong", tong))
    ming = sum(1 for m in hand.melds if m.kind is MeldKind.KONG)
    an = sum(1 for m in hand.melds if m.kind is MeldKind.CONCEALED_KONG)
    if ming:
        items.append(_item("minggang", ming))
    if an:
        items.append(_item("angang", 2 * an))
    if _one_wait(hand.concealed, hand.melds, bool(rules.get("short_deck"))):
        items.append(_item("ka", 1))
    return items


@lru_cache(maxsize=FIXED_ITEMS_CACHE)
def _one_wait(concealed: tuple[int, ...], melds: tuple[Meld, ...], short_deck: bool) -> bool:
    """卡: the 13 tiles (the winning tile left out) wait on one kind only; the same for every winning tile of a
    ready hand, kept like :func:`_kept_fixed_items`."""
    return len(waits(Hand(concealed, melds), _deck_rules(short_deck))) == 1


def _reading_items(hand: Hand, d: Decomposition) -> list[Item]:
    """Items that depend on the decomposition: 坎, 明活, 暗活, 七对."""
    if d.seven_pairs:
        return [_item("qidui", 5)]
    in_runs = {k for b in d.sets if b.kind == SEQ for k in b.tiles}
    kan = anhuo = minghuo = 0
    for b in d.sets:
        if b.kind == TRIPLET:
            if b.tile in in_runs:
                anhuo += 1
            else:
                kan += 1
    for m in hand.melds:
        if m.kind is MeldKind.PUNG and m.tile in in_runs:
            minghuo += 1
    out = []
    if kan:
        out.append(_item("kan", kan))
    if minghuo:
        out.append(_item("minghuo", 2 * minghuo))
    if anhuo:
        out.append(_item("anhuo", 4 * anhuo))
    return out


_ORDER = {c: i for i, c in enumerate(_NAMES)}


def _shares(hand: Hand, situation: Situation, base: int) -> tuple[int, dict[int, int], int, bool, int, dict[int, int],
                                                                     dict[int, int]]:
    """H5, H6: a reading's base to what each seat pays, for :func:`score_reading` and :func:`payments` alike:
    (庄分, 庄分 per sharing seat, the multiplier, 清一色, 海捞, each sharing seat's share, what each paying seat owes)."""
    winner = situation.winner
    self_drawn = situation.self_drawn or situation.rob_kong
    zhuang = (2 if self_drawn else 1) * situation.dealer_streak
    sharers = [s for s in range(4) if s != winner] if self_drawn or situation.discarder is None \
        else [situation.discarder]
    zhuang_of = {p: zhuang if (winner == 0 or p == 0) else 0 for p in sharers}
    mult = 2 if situation.kong_draw else 1
    totals = _suit_totals(hand.all_counts)
    flush = max(totals) == sum(totals)
    if flush:
        mult *= 3
    bonus = 10 if situation.last_tiles else 0
    per_payer = {p: (base + zhuang_of[p]) * mult + bonus for p in sharers}
    robbed = situation.discarder if situation.rob_kong else None
    owed = {robbed: sum(per_payer.values())} if robbed is not None else per_payer
    return zhuang, zhuang_of, mult, flush, bonus, per_payer, owed


def score_reading(
    hand: Hand, situation: Situation, rules: Mapping[str, Any], reading: Decomposition
) -> ScoreResult:
    """Score ``hand`` on one given decomposition of its closed part (no legality checks: see :func:`score`)."""
    kept, base = _kept_reading_items(hand, bool(rules.get("short_deck")), reading)
    items = list(kept)
    items.append(_item("base", base, "info"))

    winner = situation.winner
    zhuang, zhuang_of, mult, flush, bonus, per_payer, owed = _shares(hand, situation, base)
    if any(zhuang_of.values()):
        everyone = all(zhuang_of.values())
        items.append(_item("zhuang" if everyone else "zhuang_dealer", zhuang, "add" if everyone else "info"))
    if situation.kong_draw:
        items.append(_item("gangkai", 2, "mul"))
    if flush:
        items.append(_item("qingyise", 3, "mul"))
    if bonus:
        items.append(_item("hailao", bonus))

    robbed = situation.discarder if situation.rob_kong else None
    notes = (_item("qianggang_bao", owed[robbed], "info"),) if robbed is not None else ()
    return ScoreResult(
        variant="hefei",
        items=tuple(items),
        payments=settle(winner, owed),
        winner=winner,
        per_payer=per_payer,
        notes=notes,
        extra={"base": base, "multiplier": mult, "dealer_streak": situation.dealer_streak},
    )


@lru_cache(maxsize=FIXED_ITEMS_CACHE)
def _kept_reading_items(hand: Hand, short_deck: bool, reading: Decomposition) -> tuple[tuple[Item, ...], int]:
    """The items of one reading that do not depend on the situation (:func:`_fixed_items` and
    :func:`_reading_items`), in the card's order, and their sum (the base), kept per hand, deck and reading."""
    items = list(_kept_fixed_items(hand, short_deck)) + _reading_items(hand, reading)
    items.sort(key=lambda i: _ORDER[i.code])
    return tuple(items), sum(i.value for i in items)


def readings(hand: Hand) -> list[Decomposition]:
    """Every decomposition of the closed part that the variant allows (seven pairs only without melds)."""
    return decompositions(hand.closed_counts, seven_pairs=not hand.melds)


@lru_cache(maxsize=FIXED_ITEMS_CACHE)
def _kept_readings(hand: Hand) -> tuple[Decomposition, ...]:
    """:func:`readings`, kept per hand like :func:`_kept_fixed_items` (the same hand is scored in several
    situations)."""
    return tuple(readings(hand))


def score(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> ScoreResult:
    """The ``score_fn`` of :data:`VARIANT`: refuse hands that may not win, else score the best-paying reading.

    The common checks (14 tiles, tiles of the deck, no chi) are done by ``Variant.score`` before this is called.
    """
    _check(hand, situation, rules)
    return score_reading(hand, situation, rules, _best_reading(hand, bool(rules.get("short_deck"))))


def payments(hand: Hand, situation: Situation, rules: Mapping[str, Any]) -> tuple[int, int, int, int]:
    """The ``payments_fn`` of :data:`VARIANT`: :func:`score`'s payments, without the breakdown."""
    _check(hand, situation, rules)
    short = bool(rules.get("short_deck"))
    base = _kept_reading_items(hand, short, _best_reading(hand, short))[1]
    return settle(situation.winner, _shares(hand, situation, base)[6])


@lru_cache(maxsize=FIXED_ITEMS_CACHE)
def _best_reading(hand: Hand, short_deck: bool) -> Decomposition:
    """The reading :func:`score` scores: the first of the highest base. A share is (base + 庄分) x the multipliers +
    海捞, with the multipliers, 庄分 and 海捞 the same for every reading, so in every situation the winner is paid most
    on that reading, the first of them as the scorer compared the readings one by one. Kept per hand and deck
    (:class:`HandError` when the hand may not win: a refused hand is checked again each time)."""
    options = _kept_readings(hand)
    if not options:
        raise HandError("not_complete", extra="")
    totals = _suit_totals(hand.all_counts)
    if max(totals) < 8:
        raise HandError("no_bazhi", n=max(totals))
    best: tuple[int, Decomposition] | None = None
    for d in options:
        base = _kept_reading_items(hand, short_deck, d)[1]
        if best is None or base > best[0]:
            best = (base, d)
    assert best is not None
    return best[1]


VARIANT = Variant(
    rule_of=RULE_OF,
    key="hefei",
    zh="合肥麻将",
    en="Hefei",
    tile_counts=tile_counts,
    score_fn=score,
    payments_fn=payments,
    can_win_fn=can_win,
    house_rules=(
        HouseRule(
            "short_deck",
            False,
            (False, True),
            "短牌（只用 2-8）",
            "Short deck (ranks 2-8)",
            "只用 2 到 8 的万、筒、条，共 84 张",
            "play with ranks 2-8 of each suit (万 筒 条) only: 84 tiles",
        ),
        HouseRule(
            "concealed_kongs_unlimited",
            True,
            (True, False),
            "暗杠不限次数",
            "Concealed kongs unlimited",
            "开：暗杠不占每盘一次的碰/杠机会；关：暗杠也算这一次",
            "on: concealed kongs do not use the one meld per hand; off: a concealed kong uses it",
        ),
        HouseRule(
            "quan_per_match",
            4,
            (1, 4),
            "每局圈数",
            "Rounds (圈) per match",
            "四个庄坐完为一圈；一局打 1 圈或 4 圈",
            "a round (圈) is four dealerships; a match is 1 or 4 rounds",
        ),
    ),
    allows_chi=False,
    seven_pairs=True,
    multiple_winners=True,
    rob_kong=True,
    claim_allowed=_claim_allowed,
    concealed_kong_allowed=may_concealed_kong,
    reserve=HAILAO_TILES,
    final_discard=frozenset({"win"}),  # H7: no claims once 4 remain; a win on that discard is not forbidden
    settlement=Settlement(default_quan=4),
    ai=AiProfile(bazhi=True, claim_max_distance=2),  # one claim per hand: only one that brings it near
    example="1234678922m345s+5m",
    code="h",
    scored_streak=True,
)
