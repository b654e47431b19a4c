"""The hand notation: what a player types, what they get back, and what they are told when it is wrong."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import text.hant  # noqa: F401  (the i18n layer's Traditional converter: the engine itself has none)
from engine.errors import EngineError, ParseError
from engine.tiles import Hand, Meld, MeldKind, format_hand, make_kind, parse_hand, tile_name, tile_zh


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("1234678922m345s+5m", "1222346789m345s+5m"),
        ("222m555m888m9m[777z]+9m", "2225558889m[777z]+9m"),
        ("23456799m345p67s+8s", "23456799m345p67s+8s"),
        ("  11 22 33m  ", "112233m"),
        ("一二三万四五六筒七八九条东东+东", "123m456p789s11z+1z"),
        ("一二三萬 四五六餅 七八九條 中中 +紅中", "123m456p789s77z+7z"),
        ("二三四五六七九九万三四五饼六七索+八索", "23456799m345p67s+8s"),  # 索: the other name of 条, as 饼 of 筒
        ("二三四五六七九九萬 三四五餅 六七索 +八條", "23456799m345p67s+8s"),
        ("11m[555p:W][345s:n](9999m)+1m", "11m[555p:W][345s:N](9999m)+1m"),
        ("11m[555p:西]+1m", "11m[555p:W]+1m"),
        ("１２３ｍ［５５５５ｐ：Ｅ］", "123m[5555p:E]"),  # full-width input from a phone keyboard
        ("11M22P33S+4S", "11m22p33s+4s"),
        # the honours' everyday names (红中 was read before them)
        ("123m456p789s东风(中中中中)+东风", "123m456p789s1z(7777z)+1z"),
        ("南风南风 西風西風西風 北风+北风", "223334z+4z"),
        ("123m456p789s发财(白板白板白板白板)+發財", "123m456p789s6z(5555z)+6z"),
        ("東風東風東風 红中 +紅中", "1117z+7z"),
        ("东东东风", "111z"),  # 东 东 东风: what 东东东 meant stays as it was
        # a sentence's full stop is ignored as its commas are
        ("23456799m345p67s+8s。", "23456799m345p67s+8s"),
        ("２３４５６７９９ｍ，３４５ｐ，６７ｓ＋８ｓ。", "23456799m345p67s+8s"),
    ],
)
def test_parse_and_print(text, canonical):
    assert format_hand(parse_hand(text)) == canonical


def test_meld_kinds_and_feeders():
    h = parse_hand("1m[555p:W][6666s:E](9999m)[345s:N]+1m")
    kinds = [m.kind for m in h.melds]
    assert kinds == [MeldKind.PUNG, MeldKind.KONG, MeldKind.CONCEALED_KONG, MeldKind.CHI]
    assert [m.fed_by for m in h.melds] == [2, 0, None, 3]
    assert h.melds[3].tiles == (make_kind(3, "s"), make_kind(4, "s"), make_kind(5, "s"))
    # a kong is four tiles of the hand but one set of its shape
    assert h.size == 14 and sum(h.all_counts) == 16


@pytest.mark.parametrize(
    ("text", "code", "en"),
    [
        ("", "empty", "the hand is empty"),
        ("123x", "unknown_suit", "unknown suit 'x' at character 4"),
        ("1234567m89", "digits_without_suit", "digits '89' at character 9 have no suit letter after them"),
        ("55555m", "five_copies", "five copies of 5m"),
        ("555m[55p][55m]", "meld_size", "a meld has 3 or 4 tiles, not 2"),
        ("11m[124s]", "bad_chi", "a chi must be three consecutive tiles of one suit, not 124s"),
        ("11m[123z]", "bad_chi", "a chi must be three consecutive tiles of one suit"),
        ("11m[89m1p]", "bad_chi", "a chi must be three consecutive tiles of one suit"),
        ("11m[5556p]", "bad_kong", "a kong must be four identical tiles"),
        ("11m(555p)", "concealed_not_kong", "only a concealed kong is written in ( )"),
        ("11m[555p", "unclosed_meld", "the meld opened at character 4 is never closed"),
        ("11m]", "stray_close", "']' at character 4 closes no meld"),
        ("11m[[555p]]", "nested_meld", "a meld cannot open inside another meld"),
        ("11m[555p)", "mismatched_brackets", "closed with ')'"),
        ("11m+2m+3m", "two_plus", "only one '+' is allowed"),
        ("11m+23m", "plus_not_one_tile", "after '+' comes exactly one tile"),
        ("11m+2m[555p]", "melds_after_plus", "melds go before '+'"),
        ("[555p]11m", "tiles_after_melds", "concealed tiles go before the melds"),
        ("8z", "honour_rank", "honour tiles are 1z-7z"),
        ("0m", "zero_rank", "'0' at character 1 is not a tile rank"),
        ("11m[555p:Q]", "bad_seat", "'Q' is not a seat"),
        # a meld names one feeder, last: two seats or tiles after the seat would silently change who pays (包, 承包)
        ("11m[555p:W:N]", "bad_seat", "'W:N' is not a seat"),
        ("11m[55p:N5p]", "bad_seat", "'N5p' is not a seat"),
        ("11m[555p:NE]", "bad_seat", "'NE' is not a seat"),
        ("11m[555p:]", "bad_seat", "'' is not a seat"),
        ("11m[555p:W", "unclosed_meld", "the meld opened at character 4 is never closed"),
        ("11m(5555z:E)", "concealed_with_feeder", "(5555z:E) cannot name a feeder"),
        ("11m:W", "seat_outside_meld", "can only follow a meld's tiles"),
        ("1m?", "unknown_char", "unknown character '?' at character 3"),
        # 风, 财, 板 are read only as the end of an honour's name
        ("123m风", "unknown_suit", "unknown suit '风' at character 5"),
        ("中风", "unknown_suit", "unknown suit '风' at character 2"),
        ("东 风", "unknown_suit", "unknown suit '风' at character 3"),
        ("白财", "unknown_suit", "unknown suit '财' at character 2"),
        ("1m.", "unknown_char", "unknown character '.' at character 3"),
    ],
)
def test_refused_with_a_message_that_says_what_and_where(text, code, en):
    with pytest.raises(ParseError) as info:
        parse_hand(text)
    assert info.value.code == code
    assert en in info.value.message("en")
    zh = info.value.message("zh")
    assert zh and zh != info.value.message("en")  # a Chinese message exists for every code
    assert info.value.message("zh-TW")


def test_traditional_chinese_message():
    with pytest.raises(ParseError) as info:
        parse_hand("11m[5556p]")
    assert "槓" in info.value.message("zh-TW") and "杠" in info.value.message("zh")


def test_tile_names():
    assert [tile_name(k) for k in (0, 8, 9, 26, 27, 33)] == ["1m", "9m", "1p", "9s", "1z", "7z"]
    assert [tile_zh(k) for k in (0, 17, 22, 31, 32, 33)] == ["一万", "九筒", "五条", "白", "发", "中"]


# --- properties -------------------------------------------------------------------------------------------------

kinds = st.integers(0, 33)


@st.composite
def hands(draw):
    """Random hands with melds and a winning tile, at most four copies of each kind."""
    counts = [0] * 34
    melds = []
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(list(MeldKind)))
        if kind is MeldKind.CHI:
            t = draw(st.integers(0, 26).filter(lambda k: k % 9 <= 6))
            tiles = (t, t + 1, t + 2)
        else:
            t = draw(kinds)
            tiles = (t,) * (3 if kind is MeldKind.PUNG else 4)
        if all(counts[k] + tiles.count(k) <= 4 for k in set(tiles)):
            for k in tiles:
                counts[k] += 1
            fed = None if kind is MeldKind.CONCEALED_KONG else draw(st.none() | st.integers(0, 3))
            melds.append(Meld(kind, t, fed_by=fed))
    concealed = []
    for k in draw(st.lists(kinds, max_size=13)):
        if counts[k] < 4:
            counts[k] += 1
            concealed.append(k)
    win = draw(st.none() | kinds)
    if win is not None and counts[win] >= 4:
        win = None
    if not concealed and not melds and win is None:
        concealed = [0]
    return Hand(tuple(concealed), tuple(melds), win)


@settings(max_examples=300, deadline=None)
@given(hands())
def test_print_then_parse_gives_the_same_hand(hand):
    assert parse_hand(format_hand(hand)) == hand


@settings(max_examples=500, deadline=None)
@given(st.text(alphabet=st.sampled_from("0123456789mpszMPSZ[]()+:ESWN 万筒条东南西北白发中红一九()【】x?,") | st.characters()))
def test_parser_raises_only_its_own_error(text):
    try:
        hand = parse_hand(text)
    except ParseError as e:
        assert e.message("en") and e.message("zh")
    else:
        assert all(n <= 4 for n in hand.all_counts)


def test_engine_error_is_the_only_base():
    assert issubclass(ParseError, EngineError) and issubclass(ParseError, ValueError)
