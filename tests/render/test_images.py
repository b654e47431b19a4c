"""The four images: valid PNGs of the expected size, golden images within a pixel tolerance, and the behaviour a
player sees (highlights, labels, the claimed tile turned, nothing concealed on the table).

Regenerate the golden images after an intended change of look with::

    MJBOT_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/render/test_images.py

and look at them (tests/render/golden/*.png) before committing.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

from engine.tiles import Meld, MeldKind, parse_hand
from engine.variants.base import Item
from render import (
    HandScene,
    MatchScene,
    ScoreScene,
    SeatScene,
    TableScene,
    discard_numbers,
    draw_hand,
    hand_slots,
    render_hand,
    render_match,
    render_score,
    render_table,
    samples,
)
from render.card import CARD_W
from render.hand import TILE_W, feeder_position, hand_layout
from render.match import HEIGHT as MATCH_H
from render.match import WIDTH as MATCH_W
from render.table import WIDTH as TABLE_W
from render.tiles import IVORY, tile_size

sys.path.insert(0, str(Path(__file__).parent))
from imgutil import check_golden, fraction_over, max_channel_diff, open_png, pixels  # noqa: E402


def fixed_score_scene() -> ScoreScene:
    """A score card independent of the variants' scoring (which is still changing)."""
    hand = parse_hand("123m456m789m1p[555s:E]+1p")
    items = (
        Item("zhi", "支数", "八支 count (支数)", 9, "info"),
        Item("ping_hu", "平胡", "plain win", 1),
        Item("zhi_fan", "支番", "支 points", 2),
        Item("tong_tian", "通天", "straight 1-9", 2),
        Item("qing", "清一色", "Pure one suit (清一色)", 3, "mul"),
    )
    notes = (Item("bao", "包牌：东 小明 放了第三口", "contract: E 小明 fed the third meld", 0, "info"),)
    return ScoreScene(hand, items, (-6, 16, -5, -5), samples.NAMES, 1, 0, notes=notes, title="芜湖麻将 · 315",
                      total=16, variant="wuhu")  # lines with a Wuhu code name their ruling (W4 ...), the others none


def short_stack_score_scene() -> ScoreScene:
    """A Wuhu card at a table where the dealer-in's stack (底) held 1 子 of the 5 its items came to (W11): the
    payments paid from the stacks, and the line saying what that seat paid."""
    hand = parse_hand("123m456m789m1p[555s:E]+1p")
    items = (Item("zhi", "支数", "八支 count (支数)", 9, "info"),
             Item("base_ya_dang", "压档", "middle-tile win (压档)", 2), Item("zhi_fan", "支番", "支 points", 3))
    return ScoreScene(hand, items, (-5, -5, 11, -1), samples.NAMES, 2, 3, title="芜湖麻将 · 315", variant="wuhu",
                      jiao=(0, 0, 0, 0), owed=(-5, -5, 15, -5))


def robbed_kong_score_scene() -> ScoreScene:
    """A Hefei win robbing the dealer's added kong (H6): the headline and the robbed seat's tag say so."""
    hand = parse_hand("1234678922m345s+5m")
    items = (Item("hu", "胡", "win", 5), Item("zhi", "支", "zhi (支)", 4))
    notes = (Item("rob_kong_pays", "抢杠：被抢者包三家", "robbed kong: the robbed player pays all three shares",
                  0, "info"),)
    return ScoreScene(hand, items, (-27, 27, 0, 0), samples.NAMES, 1, 0, notes=notes, title="合肥麻将",
                      robbed_kong=True)


CASES = {
    "hand-dark-zh": lambda: render_hand(samples.hand_scene()),
    "hand-light-en": lambda: render_hand(samples.hand_scene(), "light", "en"),
    "table-dark-zh": lambda: render_table(samples.table_scene()),
    "table-light-en": lambda: render_table(samples.table_scene(), "light", "en"),
    "hand-light-tw": lambda: render_hand(samples.hand_scene(), "light", "zh-TW"),
    "table-dark-tw": lambda: render_table(samples.table_scene(), "dark", "zh-TW"),
    "score-dark-zh": lambda: render_score(fixed_score_scene()),
    "score-light-tw": lambda: render_score(fixed_score_scene(), "light", "zh-TW"),
    "score-dark-en": lambda: render_score(fixed_score_scene(), "dark", "en"),
    "score-short-stack-en": lambda: render_score(short_stack_score_scene(), "dark", "en"),
    "score-short-stack-zh": lambda: render_score(short_stack_score_scene(), "light", "zh"),
    "score-robbed-kong-tw": lambda: render_score(robbed_kong_score_scene(), "dark", "zh-TW"),
    "match-dark-zh": lambda: render_match(samples.match_scene()),
    "match-light-en": lambda: render_match(samples.match_scene(), "light", "en"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_image(name):
    check_golden(name, CASES[name]())


def test_images_are_valid_pngs_of_the_expected_size():
    assert open_png(render_table(samples.table_scene())).width == TABLE_W == 400  # as a phone shows it
    assert open_png(render_match(samples.match_scene())).size == (MATCH_W, MATCH_H) == (480, 600)
    assert open_png(render_score(fixed_score_scene())).width == CARD_W == 480
    hand = open_png(render_hand(samples.hand_scene()))
    assert hand.size == (hand_layout(samples.hand_scene()).width, hand_layout(samples.hand_scene()).height)
    assert 350 < hand.width <= 400 and 150 < hand.height < 400  # a phone shows it at its own size


def test_hand_png_is_small():
    assert len(render_hand(samples.hand_scene())) < 60_000


def test_the_hand_keeps_its_width_and_wraps_after_eight_tiles():
    a = draw_hand(HandScene(concealed=(0, 1, 2, 3)))
    b = draw_hand(HandScene(concealed=tuple(range(8))))
    c = draw_hand(HandScene(concealed=tuple(range(9))))
    assert a.width == b.width == c.width  # tiles keep their size on a phone from turn to turn
    assert a.height == b.height < c.height  # a ninth tile starts a second row
    lay = hand_layout(HandScene(concealed=tuple(range(9))))
    assert [s.x for s in lay.slots[:2]] == [lay.slots[0].x, lay.slots[0].x + TILE_W + 1]  # tile + 1 px gap


def test_hand_accepts_an_engine_hand_and_sets_the_winning_tile_apart():
    hand = parse_hand("1112345678999m+5m")
    from_hand = draw_hand(hand)
    from_scene = draw_hand(HandScene(concealed=hand.concealed, drawn=4))
    assert max_channel_diff(from_hand, from_scene).getbbox() is None
    apart = hand_layout(hand).slots
    together = hand_layout(HandScene(concealed=(*hand.concealed, 4))).slots
    assert apart[-1].kind == 4 and apart[-1].x - apart[-2].x > TILE_W + 1 + 16  # the gap before the drawn tile
    assert together[-1].x - together[-2].x == TILE_W + 1
    assert hand_slots(hand) == [*hand.concealed, 4]


def test_highlight_only_changes_the_highlighted_tiles():
    scene = HandScene(concealed=tuple(parse_hand("123456789m1122p").concealed))
    plain = draw_hand(scene)
    marked = draw_hand(replace(scene, highlight=frozenset({9})))  # 1筒, slots 9 and 10
    box = max_channel_diff(plain, marked).getbbox()
    assert box is not None
    lay = hand_layout(scene)
    marked_slots = [s for s in lay.slots if s.kind == 9]
    assert [s.slot for s in marked_slots] == [9, 10]
    assert box[0] >= min(s.x for s in marked_slots) - 2 and box[2] <= max(s.x for s in marked_slots) + tile_size(56)[0] + 2
    assert box[1] >= min(s.y for s in marked_slots) - 9 and box[3] <= marked_slots[0].base + 6  # that row only
    assert all(s.highlight == (s.kind == 9) for s in hand_layout(replace(scene, highlight=frozenset({9}))).slots)


def test_labels_number_the_tiles_under_them():
    scene = samples.hand_scene()
    with_labels = draw_hand(scene)
    without = draw_hand(replace(scene, labels=False, melds=()))
    assert with_labels.height > without.height
    assert len(hand_slots(scene)) == len(scene.concealed) + 1
    assert hand_layout(replace(scene, labels=False)).numbers == ()


@pytest.mark.parametrize("hand", ["2345m66p3478s中中+5s", "1112345678999m+9m", "1112345678999m+1m", "1122m33p+4p",
                                  "19m19p19s1234567z+7z"])
def test_each_run_of_identical_tiles_has_its_discard_number_under_it(hand):
    h = parse_hand(hand)
    scene = HandScene(concealed=tuple(h.concealed), drawn=h.win_tile, labels=True)
    lay = hand_layout(scene)
    numbers = discard_numbers(scene)
    # one number per kind, 1..n in the order the kinds first show up, the drawn tile numbered as its kind
    assert sorted(numbers.values()) == list(range(1, len(set(hand_slots(scene))) + 1))
    assert [numbers[k] for k in dict.fromkeys(hand_slots(scene))] == sorted(numbers.values())
    # every tile is under exactly one number box, which shows its kind's number and sits under it, in its row
    under = [i for nb in lay.numbers for i in nb.slots]
    assert sorted(under) == list(range(len(lay.slots)))
    for nb in lay.numbers:
        tiles = [lay.slots[i] for i in nb.slots]
        assert {s.kind for s in tiles} == {nb.kind} and nb.number == numbers[nb.kind]
        assert tiles[0].x <= nb.x <= tiles[-1].x + lay.tile_w
        assert all(s.base < nb.y < s.base + lay.label_size * 1.5 for s in tiles)
        if scene.drawn is not None and len(lay.slots) - 1 in nb.slots:  # the drawn tile, apart, has its own number
            assert nb.slots == (len(lay.slots) - 1,)
    # the numbers are drawn: light text pixels where the first one is
    img = draw_hand(scene)
    nb = lay.numbers[0]
    box = img.crop((int(nb.x) - 12, nb.y - 8, int(nb.x) + 12, nb.y + 8)).convert("L")
    assert box.getextrema()[1] > 200


@pytest.mark.parametrize(
    ("owner", "feeder", "pos"),
    [(1, 0, 0), (1, 3, 1), (1, 2, 2), (0, 3, 0), (0, 2, 1), (0, 1, 2), (3, 2, 0), (3, 0, 2)],
)
def test_claimed_tile_lies_on_the_side_of_the_feeder(owner, feeder, pos):
    assert feeder_position(Meld(MeldKind.PUNG, 5, fed_by=feeder), owner) == pos


def test_claimed_tile_is_turned_sideways():
    up_w, up_h = tile_size(48)
    pung = draw_hand(HandScene(concealed=(), melds=(Meld(MeldKind.PUNG, 5, fed_by=0),), seat=1), width=56)
    ckong = draw_hand(HandScene(concealed=(), melds=(Meld(MeldKind.CONCEALED_KONG, 5),), seat=1), width=56)
    # a pung with one tile turned is wider than three upright tiles would be
    assert pung.width > 3 * 49 + 16 + (up_h - up_w)
    assert ckong.width >= 4 * 48


def _ivory_pixels(img: Image.Image) -> int:
    """Pixels of tile-face ivory (nothing else on the table is that colour)."""
    return sum(1 for p in pixels(img)
               if sum(abs(a - b) for a, b in zip(p, IVORY, strict=True)) < 24)


def test_table_never_shows_hidden_tiles_face_up():
    hidden = TableScene(seats=tuple(SeatScene(n, concealed_count=13) for n in "ABCD"))  # type: ignore[arg-type]
    one_discard = replace(hidden, seats=(SeatScene("A", river=(5,)), *hidden.seats[1:]))
    nothing = replace(hidden, seats=tuple(replace(seat, concealed_count=0) for seat in hidden.seats))
    ivory = {k: _ivory_pixels(open_png(render_table(v))) for k, v in
             (("hidden", hidden), ("one", one_discard), ("nothing", nothing))}
    # one face-up discard shows a face (a 24 px river tile: about 400 ivory pixels); a hidden tile's back shows
    # only an edge, under a twentieth of that
    assert ivory["one"] - ivory["hidden"] > 300
    assert (ivory["hidden"] - ivory["nothing"]) / 52 < (ivory["one"] - ivory["hidden"]) / 20


def test_last_discard_is_marked():
    scene = samples.table_scene()
    a = open_png(render_table(scene))
    b = open_png(render_table(replace(scene, last_discard=None)))
    box = max_channel_diff(a, b).getbbox()
    assert box is not None and box[2] - box[0] < 60  # one tile's mark


@pytest.mark.parametrize("lang", ["zh", "zh-TW", "en", "en-US", None])
@pytest.mark.parametrize("theme", ["dark", "light", "nonsense"])
def test_every_language_and_theme_renders(lang, theme):
    for data in (
        render_hand(samples.hand_scene(), theme, lang),
        render_score(fixed_score_scene(), theme, lang),
    ):
        open_png(data)


def test_languages_differ_and_themes_differ():
    zh = open_png(render_score(fixed_score_scene(), "dark", "zh"))
    en = open_png(render_score(fixed_score_scene(), "dark", "en"))
    light = open_png(render_score(fixed_score_scene(), "light", "zh"))
    assert zh.size != en.size or fraction_over(zh, en, 48) > 0.01
    assert fraction_over(zh, light, 48) > 0.3


def test_strange_names_are_drawn_not_crashed_on():
    names = ("😀😀😀", "", "A" * 200, "名字很长很长很长很长很长很长很长很长很长很长很长很长\n第二行\x00")
    scene = replace(samples.table_scene(), seats=tuple(replace(s, name=n) for s, n in
                                                       zip(samples.table_scene().seats, names, strict=True)))
    assert open_png(render_table(scene)).width == TABLE_W
    card = replace(fixed_score_scene(), names=names)
    assert open_png(render_score(card)).width == CARD_W
    assert open_png(render_match(replace(samples.match_scene(), names=names))).size == (MATCH_W, MATCH_H)


def test_match_chart_with_one_hand_and_with_many():
    one = MatchScene.from_deltas(samples.NAMES, [(3, -1, -1, -1)])
    many = MatchScene.from_deltas(samples.NAMES, [(i % 4 * 3 - 4, 1, 2, 1 - i % 4 * 3) for i in range(60)])
    for scene in (one, many, MatchScene(samples.NAMES, ())):
        assert open_png(render_match(scene)).size == (MATCH_W, MATCH_H)


def test_score_card_straight_from_the_engine():
    from engine.variants import get_variant
    from engine.variants.base import Situation
    from render import render_score_card

    hand = parse_hand("1112345678999m+5m")
    situation = Situation(winner=1, discarder=0)
    result = get_variant("hefei").score(hand, situation)
    zh = open_png(render_score_card(hand, result, situation, lang="zh"))
    en = open_png(render_score_card(hand, result, situation, lang="en", theme="light"))
    assert zh.width == en.width == CARD_W
    # one row per item: more items, taller card
    fewer = replace(result, items=result.items[:2])
    assert open_png(render_score_card(hand, fewer, situation)).height < zh.height


def test_warm_builds_the_caches_and_images_stay_the_same():
    import render

    before = render_hand(samples.hand_scene())
    render.warm(("dark",))
    assert render_hand(samples.hand_scene()) == before  # pure: same scene, same bytes
