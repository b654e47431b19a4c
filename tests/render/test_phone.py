"""What a phone user gets: Discord shows an image at the chat's width, about 400 px on a phone. At that width a
tile of the player's hand must be at least 36 px wide and a river tile at least 20 px, whatever the hand (14 tiles,
four kongs of every kind, every seat's feeder positions) and however long the river; the numbers under the hand's
tiles still read in the order of :func:`render.hand_slots`.

The checks read the layouts the images are drawn from (``hand_layout``, ``table_layout``) and check that the PNG
a player receives has the layout's size.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine.tiles import Meld, MeldKind, parse_hand
from render import (
    HandScene,
    SeatScene,
    TableScene,
    hand_slots,
    render_board,
    render_hand,
    render_match,
    render_score,
    render_stats,
    render_table,
    samples,
)
from render.card import CARD_W, HAND_TILE_W
from render.hand import HAND_PER_ROW, PHONE_WIDTH, hand_layout, shown_px
from render.table import table_layout
from render.tiles import tile_size

sys.path.insert(0, str(Path(__file__).parent))
from imgutil import open_png  # noqa: E402

HAND_MIN = 36  # px, a hand tile on a 400 px wide phone screen
RIVER_MIN = 20  # px, a river tile
LONGEST_RIVER = 26  # the longest river seen in 290 self-played Chizhou matches (Wuhu 19, Hefei 16)


def four_kongs(seat: int, kind: MeldKind, added: bool = False) -> tuple[Meld, ...]:
    """Four kongs of ``kind``, one fed by each other seat (so the turned tile lies left, middle and right)."""
    feeders = [s for s in range(4) if s != seat]
    return tuple(Meld(kind, k, fed_by=None if kind is MeldKind.CONCEALED_KONG else feeders[i % 3], added=added)
                 for i, k in enumerate((0, 10, 20, 30)))


def worst_hands() -> list[tuple[str, HandScene]]:
    full = tuple(parse_hand("1112345678999m").concealed)
    out = [
        ("14 tiles", HandScene(concealed=full, drawn=4, labels=True, highlight=frozenset({0, 8}))),
        ("14 tiles, three suits", HandScene(concealed=tuple(parse_hand("123m456p789s1234z").concealed), drawn=33,
                                            labels=True)),
        ("13 tiles, no draw", HandScene(concealed=full, labels=True)),
    ]
    for seat in range(4):
        names = ("小明", "Alice Wonderland the Second", "王大锤", "Bob the Builder")
        out += [
            (f"seat {seat}: four claimed kongs", HandScene(concealed=(33,), drawn=33, seat=seat, labels=True,
                                                           melds=four_kongs(seat, MeldKind.KONG), names=names)),
            (f"seat {seat}: four added kongs", HandScene(concealed=(33,), drawn=33, seat=seat, labels=True,
                                                         melds=four_kongs(seat, MeldKind.KONG, True), names=names)),
            (f"seat {seat}: four concealed kongs", HandScene(concealed=(33,), drawn=33, seat=seat, labels=True,
                                                             melds=four_kongs(seat, MeldKind.CONCEALED_KONG))),
            (f"seat {seat}: chi, pung and two kongs", HandScene(
                concealed=(5, 5), drawn=6, seat=seat, labels=True, names=names,
                melds=(Meld(MeldKind.CHI, 11, fed_by=(seat - 1) % 4, claimed=12),
                       Meld(MeldKind.PUNG, 27, fed_by=(seat + 2) % 4),
                       Meld(MeldKind.KONG, 20, fed_by=(seat + 1) % 4),
                       Meld(MeldKind.KONG, 30, fed_by=(seat + 2) % 4, added=True)))),
        ]
    return out


@pytest.mark.parametrize("lang", ["zh", "zh-TW", "en"])
@pytest.mark.parametrize(("name", "scene"), worst_hands(), ids=[n for n, _ in worst_hands()])
def test_a_hand_tile_is_at_least_36_px_on_a_phone(name, scene, lang):
    lay = hand_layout(scene, lang)
    assert lay.shown_tile() >= HAND_MIN, name
    assert lay.shown_meld_tile() >= HAND_MIN, name
    # the image the player gets is the one laid out
    assert open_png(render_hand(scene, "dark", lang)).size == (lay.width, lay.height)
    # everything lies inside the image
    tw, th = tile_size(lay.tile_w)
    for s in lay.slots:
        assert s.x >= 0 and s.x + tw <= lay.width and s.y >= 0 and s.base + lay.label_dy < lay.height
    for m in lay.melds:
        assert m.x + m.width <= lay.width and all(m.base + p.y >= 0 for p in m.placed)
        assert m.base < lay.height and (not m.label or m.base + round(lay.feeder_size * 1.3) <= lay.height)
    assert len(lay.melds) == len(scene.melds)
    # the discard numbers read at 14 px or more on the phone, inside the image, one under each run of tiles
    assert shown_px(lay.label_size, lay.width) >= 14
    assert all(0 < nb.x < lay.width and nb.y + lay.label_size / 2 <= lay.height for nb in lay.numbers)
    assert sum(len(nb.slots) for nb in lay.numbers) == len(lay.slots)


@pytest.mark.parametrize(("name", "scene"), worst_hands(), ids=[n for n, _ in worst_hands()])
def test_the_numbers_read_in_button_order_left_to_right_top_to_bottom(name, scene):
    lay = hand_layout(scene)
    rows: dict[int, list] = {}
    for s in lay.slots:
        rows.setdefault(s.base, []).append(s)
    reading = [s for base in sorted(rows) for s in sorted(rows[base], key=lambda s: s.x)]
    assert [s.slot for s in reading] == list(range(len(hand_slots(scene))))
    assert [s.kind for s in reading] == hand_slots(scene)
    assert all(len(r) <= HAND_PER_ROW for r in rows.values())
    if scene.drawn is not None:  # the drawn tile is last, in the last row, set apart
        last_row = rows[max(rows)]
        assert reading[-1].kind == scene.drawn and reading[-1] in last_row
        if len(last_row) > 1:
            assert reading[-1].x - reading[-2].x > lay.tile_w + 1 + lay.tile_w // 4


def test_a_hand_on_one_row_on_a_desktop_would_have_been_21_px_on_a_phone():
    """The old layout (one row, 986 px wide) against the new: the reason for the rows."""
    assert shown_px(56, 986) < 23
    assert hand_layout(samples.hand_scene()).shown_tile() > 44


def seat_with(seat: int, river_len: int, melds: tuple[Meld, ...]) -> SeatScene:
    river = tuple((seat * 7 + i * 5) % 34 for i in range(river_len))
    return SeatScene(f"Player {seat} with a rather long name", melds=melds, river=river, concealed_count=1,
                     score=-1234, alarms=("清一色", "对对胡"), taken=frozenset({0, 3}), bot=True)


@pytest.mark.parametrize("river_len", [1, 15, 16, LONGEST_RIVER, 40])
@pytest.mark.parametrize("kongs", [MeldKind.KONG, MeldKind.CONCEALED_KONG])
def test_a_river_tile_is_at_least_20_px_on_a_phone(river_len, kongs):
    scene = TableScene(seats=tuple(seat_with(s, river_len, four_kongs(s, kongs)) for s in range(4)),  # type: ignore
                       dealer=2, turn=1, last_discard=(1, river_len - 1), wall=0, dice=(6, 6), viewer=3,
                       title="池州 · 第 16 局")
    lay = table_layout(scene)
    assert lay.shown_river_tile() >= RIVER_MIN
    assert open_png(render_table(scene, "light", "en")).size == (lay.width, lay.height)
    rw, rth = tile_size(lay.river_w)
    bottom = 0
    for band in lay.bands:
        assert band.y >= bottom  # bands do not overlap
        bottom = band.y + band.height
        assert len(band.river) == river_len and len(band.melds) == 4
        for t in band.river:
            assert band.y < t.y and t.y + rth <= band.y + band.height and t.x > 0 and t.x + rw < lay.width
        for m in band.melds:
            assert m.x + m.width < lay.width and band.y < m.base + min(p.y for p in m.placed)
            assert m.base <= min(t.y for t in band.river)  # melds above the river
    assert bottom <= lay.height
    assert [b.seat for b in lay.bands] == [0, 1, 2, 3]  # the viewer (seat 3) last


def test_the_winning_hand_on_the_score_card_reads_as_the_hand_does():
    assert shown_px(HAND_TILE_W, CARD_W) >= HAND_MIN
    worst = samples.score_scene()
    from dataclasses import replace

    from engine.tiles import Hand

    kongs = Hand(concealed=(33,), melds=four_kongs(1, MeldKind.KONG), win_tile=33)
    assert open_png(render_score(replace(worst, hand=kongs))).width == CARD_W  # four kongs fit the card


def test_every_image_is_at_most_500_px_wide_so_a_phone_shows_it_at_80_percent_or_more():
    for data in (render_hand(samples.hand_scene()), render_table(samples.table_scene()),
                 render_score(samples.score_scene()), render_match(samples.match_scene()),
                 render_board(samples.board_scene()), render_stats(samples.stats_scene())):
        width = open_png(data).width
        assert width <= 500 and PHONE_WIDTH / width >= 0.8
