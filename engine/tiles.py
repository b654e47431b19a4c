"""Tiles, melds, hands and the hand notation (``docs/rules/common.md#notation``).

Inside the engine a tile is a *kind*, an int 0-33, and a hand is a 34-count array:

====  =============================================
0-8   1-9 万 (m)
9-17  1-9 筒 (p)
18-26 1-9 条 (s)
27-33 东 南 西 北 白 发 中 (1z-7z)
====  =============================================

Strings exist only at the edges, through :func:`parse_hand`, :func:`format_hand` and the name helpers.

>>> h = parse_hand("222m555m888m9m[777z]+9m")
>>> h.melds[0].kind, tile_name(h.melds[0].tile)
(<MeldKind.PUNG: 'pung'>, '7z')
>>> format_hand(h)
'2225558889m[777z]+9m'
>>> format_hand(parse_hand("一二三万 东东东 中中 [5555p:W] (9999s) +中"))
'123m11177z[5555p:W](9999s)+7z'
>>> format_hand(parse_hand("二三四五六七九九萬 三四五饼 六七索 +八索"))
'23456799m345p67s+8s'
>>> format_hand(parse_hand("123m456p789s 东风 (发财发财发财发财) +东风。"))
'123m456p789s1z(6666z)+1z'
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from .errors import ParseError

MAN, PIN, SOU, HONOR = 0, 9, 18, 27
NUM_KINDS = 34
SUIT_LETTERS = "mpsz"
EAST, SOUTH, WEST, NORTH, WHITE, GREEN, RED = range(27, 34)
SEATS = "ESWN"
SEAT_ZH = "东南西北"

_HONOR_ZH = "东南西北白发中"
_HONOR_EN = ("East", "South", "West", "North", "White", "Green", "Red")
_SUIT_ZH = "万筒条"
_SUIT_EN = ("Characters", "Dots", "Bamboo")
_NUM_ZH = "一二三四五六七八九"


# ---------------------------------------------------------------------------------------------------------------
# kinds


def suit_of(kind: int) -> int:
    """0 万, 1 筒, 2 条, 3 honours.

    >>> suit_of(0), suit_of(13), suit_of(26), suit_of(33)
    (0, 1, 2, 3)
    """
    return kind // 9


def rank_of(kind: int) -> int:
    """1-9 for suited tiles, 1-7 for honours (东 1 ... 中 7)."""
    return kind % 9 + 1


def is_honor(kind: int) -> bool:
    return kind >= HONOR


def make_kind(rank: int, suit: str) -> int:
    """The kind of a rank and suit letter.

    >>> make_kind(5, "p"), make_kind(7, "z")
    (13, 33)
    """
    return SUIT_LETTERS.index(suit) * 9 + rank - 1


def tile_name(kind: int) -> str:
    """Notation name: ``5m``, ``7z``."""
    return f"{rank_of(kind)}{SUIT_LETTERS[suit_of(kind)]}"


def tile_zh(kind: int) -> str:
    """Chinese name: 五万, 三筒, 中.

    >>> tile_zh(4), tile_zh(9), tile_zh(33)
    ('五万', '一筒', '中')
    """
    if is_honor(kind):
        return _HONOR_ZH[kind - HONOR]
    return _NUM_ZH[kind % 9] + _SUIT_ZH[suit_of(kind)]


def tile_en(kind: int) -> str:
    """English name: 5 Characters, Red.

    >>> tile_en(4), tile_en(33)
    ('5 Characters', 'Red')
    """
    if is_honor(kind):
        return _HONOR_EN[kind - HONOR]
    return f"{rank_of(kind)} {_SUIT_EN[suit_of(kind)]}"


def format_tiles(kinds: Iterable[int]) -> str:
    """Compact notation of a run of tiles, suit letters grouped, in the order given.

    >>> format_tiles([0, 1, 2, 13, 13, 33])
    '123m55p7z'
    """
    out: list[str] = []
    run_suit = None
    for k in kinds:
        s = SUIT_LETTERS[suit_of(k)]
        if run_suit is not None and s != run_suit:
            out.append(run_suit)
        out.append(str(rank_of(k)))
        run_suit = s
    if run_suit is not None:
        out.append(run_suit)
    return "".join(out)


def to_counts(kinds: Iterable[int]) -> list[int]:
    """A 34-count array from tile kinds."""
    counts = [0] * NUM_KINDS
    for k in kinds:
        counts[k] += 1
    return counts


def from_counts(counts: Sequence[int]) -> list[int]:
    """Sorted tile kinds from a 34-count array."""
    return [k for k in range(NUM_KINDS) for _ in range(counts[k])]


def seat_index(seat: str) -> int:
    """E/S/W/N (or 东南西北, any case) to 0-3.

    >>> seat_index("w"), seat_index("北")
    (2, 3)
    """
    s = seat.strip().upper()
    if s in ("E", "S", "W", "N") and len(s) == 1:
        return SEATS.index(s)
    t = unicodedata.normalize("NFKC", seat.strip()).replace("東", "东")
    if len(t) == 1 and t in SEAT_ZH:
        return SEAT_ZH.index(t)
    raise ParseError("bad_seat", seat=seat)


# ---------------------------------------------------------------------------------------------------------------
# melds and hands


class MeldKind(StrEnum):
    CHI = "chi"
    PUNG = "pung"
    KONG = "kong"  # exposed: claimed from a discard (大明杠) or added to one's own pung (加杠)
    CONCEALED_KONG = "concealed_kong"


@dataclass(frozen=True, slots=True)
class Meld:
    """A declared set. ``tile`` is the kind of a pung/kong and the lowest kind of a chi.

    ``fed_by`` is the seat (0-3) whose discard was claimed, when known; ``claimed`` the claimed kind of a chi;
    ``added`` marks a kong made by adding the fourth tile to one's own pung.
    """

    kind: MeldKind
    tile: int
    fed_by: int | None = None
    claimed: int | None = None
    added: bool = False

    @property
    def tiles(self) -> tuple[int, ...]:
        if self.kind is MeldKind.CHI:
            return (self.tile, self.tile + 1, self.tile + 2)
        if self.kind is MeldKind.PUNG:
            return (self.tile,) * 3
        return (self.tile,) * 4

    @property
    def is_kong(self) -> bool:
        return self.kind in (MeldKind.KONG, MeldKind.CONCEALED_KONG)

    @property
    def is_triplet(self) -> bool:
        """Pung or any kong."""
        return self.kind is not MeldKind.CHI

    @property
    def is_exposed(self) -> bool:
        return self.kind is not MeldKind.CONCEALED_KONG

    @property
    def is_claimed(self) -> bool:
        """Made from another seat's discard (a 口): chi, pung or a claimed kong (an added kong's pung was claimed)."""
        return self.kind is not MeldKind.CONCEALED_KONG

    def notation(self) -> str:
        body = format_tiles(self.tiles)
        if self.kind is MeldKind.CONCEALED_KONG:
            return f"({body})"
        seat = f":{SEATS[self.fed_by]}" if self.fed_by is not None else ""
        return f"[{body}{seat}]"


@dataclass(frozen=True, slots=True)
class Hand:
    """A player's tiles: concealed kinds (sorted, without the winning tile), melds in order made, winning tile."""

    concealed: tuple[int, ...]
    melds: tuple[Meld, ...] = ()
    win_tile: int | None = None
    _counts: tuple[int, ...] = field(default=(), repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "concealed", tuple(sorted(self.concealed)))

    @property
    def closed_counts(self) -> list[int]:
        """Counts of concealed tiles plus the winning tile: what must form pair + sets."""
        counts = to_counts(self.concealed)
        if self.win_tile is not None:
            counts[self.win_tile] += 1
        return counts

    @property
    def all_counts(self) -> list[int]:
        """Counts of every tile of the hand: concealed, winning tile and melds (a kong is 4)."""
        counts = self.closed_counts
        for m in self.melds:
            for k in m.tiles:
                counts[k] += 1
        return counts

    @property
    def size(self) -> int:
        """Tiles in the shape: concealed + winning tile + 3 per meld (a kong counts as 3)."""
        return len(self.concealed) + (self.win_tile is not None) + 3 * len(self.melds)

    def with_win(self, kind: int | None) -> Hand:
        return Hand(self.concealed, self.melds, kind)


def format_hand(hand: Hand) -> str:
    """The notation of a hand, tiles sorted, melds in order, ``+`` and the winning tile last."""
    out = format_tiles(hand.concealed) + "".join(m.notation() for m in hand.melds)
    if hand.win_tile is not None:
        out += "+" + tile_name(hand.win_tile)
    return out


# ---------------------------------------------------------------------------------------------------------------
# parsing

_SUIT_CHARS = {
    "m": "m", "万": "m", "萬": "m",
    "p": "p", "筒": "p", "饼": "p", "餅": "p",
    "s": "s", "条": "s", "條": "s", "索": "s",  # 索: the other name of 条, as 饼 is of 筒
    "z": "z", "字": "z",
}  # fmt: skip
_HONOR_CHARS = {"东": 27, "東": 27, "南": 28, "西": 29, "北": 30, "白": 31, "发": 32, "發": 32, "中": 33}
_ZH_DIGITS = {c: str(i + 1) for i, c in enumerate(_NUM_ZH)} | {"壹": "1", "贰": "2", "两": "2", "叁": "3", "肆": "4",
                                                              "伍": "5", "陆": "6", "柒": "7", "捌": "8", "玖": "9"}
_OPEN = {"[": "]", "(": ")", "【": "】"}
_CLOSE = {"]", ")", "】"}
_IGNORED = set(" \t\r\n,，、;；。红紅")  # 红中 = 中
#: the honours' everyday names: the second character of 东风, 发财, 白板 ... is read as part of the honour before it
_HONOR_NAME_ENDS = {"风": "东東南西北", "風": "东東南西北", "财": "发發", "財": "发發", "板": "白"}


def _tiles_text(kinds: Sequence[int]) -> str:
    return format_tiles(kinds)


def parse_hand(text: str) -> Hand:
    """Read a hand in the hand notation (docs/rules/common.md#notation). Raises :class:`ParseError` (never anything else) on bad text.

    >>> parse_hand("1234678922m345s+5m").win_tile == make_kind(5, "m")
    True
    >>> parse_hand("23x")
    Traceback (most recent call last):
    ...
    engine.errors.ParseError: unknown suit 'x' at character 3
    >>> parse_hand("55555m")
    Traceback (most recent call last):
    ...
    engine.errors.ParseError: five copies of 5m: a set has only four
    >>> parse_hand("11m[124s]")
    Traceback (most recent call last):
    ...
    engine.errors.ParseError: a chi must be three consecutive tiles of one suit, not 124s
    """
    if not isinstance(text, str):
        raise ParseError("empty")
    text = unicodedata.normalize("NFKC", text)
    concealed: list[int] = []
    melds: list[Meld] = []
    win: list[int] = []
    digits: list[tuple[str, int]] = []  # pending digits and their 1-based positions
    section = "concealed"  # concealed -> melds -> win
    meld_open: tuple[str, int] | None = None
    meld_tiles: list[int] = []
    meld_seat: int | None = None
    seat_mode = False
    seat_text = ""

    def sink() -> list[int]:
        if meld_open is not None:
            return meld_tiles
        return win if section == "win" else concealed

    def flush_tiles(suit: str, pos: int) -> None:
        if not digits:
            raise ParseError("suit_without_digits", char=text[pos - 1], pos=pos)
        target = sink()
        if meld_open is None and section == "melds":
            raise ParseError("tiles_after_melds", tiles="".join(d for d, _ in digits) + suit)
        for d, dpos in digits:
            r = int(d)
            if r == 0:
                raise ParseError("zero_rank", pos=dpos)
            if suit == "z" and r > 7:
                raise ParseError("honour_rank", rank=r, pos=dpos)
            target.append(make_kind(r, suit))
        digits.clear()

    def add_honor(kind: int) -> None:
        if meld_open is None and section == "melds":
            raise ParseError("tiles_after_melds", tiles=tile_name(kind))
        sink().append(kind)

    for i, ch in enumerate(text):
        pos = i + 1
        if seat_mode:  # the seat runs to the closing bracket: one letter, nothing after it
            if ch in _IGNORED:
                continue
            if ch not in _CLOSE:
                seat_text += ch
                continue
            seat_mode = False
            meld_seat = seat_index(seat_text) if seat_text else None
            if meld_seat is None:
                raise ParseError("bad_seat", seat="")
        if ch in _IGNORED:
            continue
        if i and text[i - 1] in _HONOR_NAME_ENDS.get(ch, ""):  # 东风 = 东, 发财 = 发, 白板 = 白
            continue
        if ch.isdigit() and ch.isascii():
            digits.append((ch, pos))
            continue
        if ch in _ZH_DIGITS:
            digits.append((_ZH_DIGITS[ch], pos))
            continue
        low = ch.lower()
        if low in _SUIT_CHARS:
            flush_tiles(_SUIT_CHARS[low], pos)
            continue
        if ch in _HONOR_CHARS:
            if digits:
                raise ParseError("digits_without_suit", digits="".join(d for d, _ in digits), pos=digits[0][1])
            add_honor(_HONOR_CHARS[ch])
            continue
        if ch.isalpha():
            raise ParseError("unknown_suit", char=ch, pos=pos)
        if digits:
            raise ParseError("digits_without_suit", digits="".join(d for d, _ in digits), pos=digits[0][1])
        if ch in _OPEN:
            if meld_open is not None:
                raise ParseError("nested_meld", pos=pos)
            if section == "win":
                raise ParseError("melds_after_plus")
            meld_open, meld_tiles, meld_seat = (ch, pos), [], None
            continue
        if ch in _CLOSE:
            if meld_open is None:
                raise ParseError("stray_close", char=ch, pos=pos)
            if _OPEN[meld_open[0]] != ch:
                raise ParseError("mismatched_brackets", open=meld_open[0], char=ch, pos=pos)
            melds.append(_make_meld(meld_tiles, concealed=meld_open[0] == "(", fed_by=meld_seat, pos=pos))
            meld_open = None
            section = "melds"
            continue
        if ch == ":":
            if meld_open is None:
                raise ParseError("seat_outside_meld", seat=text[i + 1 : i + 2])
            seat_mode, seat_text = True, ""
            continue
        if ch == "+":
            if meld_open is not None:
                raise ParseError("unclosed_meld", pos=meld_open[1])
            if section == "win":
                raise ParseError("two_plus")
            section = "win"
            continue
        raise ParseError("unknown_char", char=ch, pos=pos)
    if seat_mode:
        if seat_text:
            seat_index(seat_text)  # a bad seat is told as such before the missing bracket
        raise ParseError("unclosed_meld", pos=meld_open[1] if meld_open else len(text))
    if digits:
        raise ParseError("digits_without_suit", digits="".join(d for d, _ in digits), pos=digits[0][1])
    if meld_open is not None:
        raise ParseError("unclosed_meld", pos=meld_open[1])
    if section == "win" and len(win) != 1:
        raise ParseError("plus_not_one_tile", n=len(win))
    if not concealed and not melds and not win:
        raise ParseError("empty")
    hand = Hand(tuple(concealed), tuple(melds), win[0] if win else None)
    counts = hand.all_counts
    for k in range(NUM_KINDS):
        if counts[k] > 4:
            raise ParseError("five_copies", tile=tile_name(k))
    return hand


def _make_meld(tiles: list[int], *, concealed: bool, fed_by: int | None, pos: int) -> Meld:
    tiles = sorted(tiles)
    n = len(tiles)
    if n not in (3, 4):
        raise ParseError("meld_size", n=n, pos=pos)
    same = len(set(tiles)) == 1
    if concealed:
        if n != 4 or not same:
            raise ParseError("concealed_not_kong", tiles=_tiles_text(tiles))
        if fed_by is not None:
            raise ParseError("concealed_with_feeder", tiles=_tiles_text(tiles), seat=SEATS[fed_by])
        return Meld(MeldKind.CONCEALED_KONG, tiles[0])
    if n == 4:
        if not same:
            raise ParseError("bad_kong", tiles=_tiles_text(tiles))
        return Meld(MeldKind.KONG, tiles[0], fed_by=fed_by)
    if same:
        return Meld(MeldKind.PUNG, tiles[0], fed_by=fed_by)
    a, b, c = tiles
    if is_honor(a) or is_honor(c) or suit_of(a) != suit_of(c) or b != a + 1 or c != a + 2:
        raise ParseError("bad_chi", tiles=_tiles_text(tiles))
    return Meld(MeldKind.CHI, a, fed_by=fed_by)
