"""The leaderboard image and the stats card: golden images within a pixel tolerance, and what a player notices
(one row per player, the reader's row marked, long names kept out of the numbers, gains green and losses red).

Regenerate the golden images after an intended change of look with::

    MJBOT_REGEN_GOLDEN=1 .venv/bin/python -m pytest tests/render/test_board.py

and look at them (tests/render/golden/board-*.png, stats-*.png) before committing.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest
from PIL import Image

import render.board
from render.board import (
    BOARD_WIDTH,
    FIGURE_H,
    FIGURES_TOP,
    LABELS,
    NET_RIGHT,
    STATS_HEIGHT,
    STATS_WIDTH,
    BoardLine,
    BoardScene,
    StatsScene,
    draw_board,
    draw_stats,
    label,
    render_board,
    render_stats,
)
from render.common import THEMES

sys.path.insert(0, str(Path(__file__).parent))
from imgutil import check_golden, fit_texts, max_channel_diff, open_png, pixels, spy_texts  # noqa: E402

LINES = (
    BoardLine(1, "小明", 135, 40, 12),
    BoardLine(2, "Alice Wonderland", 60, 38, 10),
    BoardLine(3, "阿强", 12, 20, 5, highlight=True),
    BoardLine(4, "Bob", 0, 10, 2),
    BoardLine(5, "張三豐", -40, 33, 6),
    BoardLine(6, "Zoë", -167, 41, 4),
)
BOARD = BoardScene("芜湖排行榜", "本周（11月23日起，北京时间）", LINES)
BOARD_EN = BoardScene("Wuhu leaderboard", "this week (from Nov 23, UTC+8)",
                      (*LINES[:2], replace(LINES[2], highlight=False),
                       BoardLine(14, "Me, far down", -200, 50, 3, highlight=True)))
SERIES = (6, 2, -2, -2, 10, 26, 20, 16, 16, 48, 40, 36, 30, 30, 14, 10, 22, 22, 18, 35)
STATS = StatsScene("小明", "芜湖 · 全部时间", hands=20, wins=6, self_draws=2, deal_ins=4, draws=3, biggest_hand=32,
                   net=35, series=SERIES)

#: a season with a long name, this week's hands played in person: the period and the source on a second line, the
#: season's name shortened, its dates whole
SEASON_ZH = dict(subtitle="第 3 赛季 · 芜湖麻将俱乐部春季联赛（2026年12月4日 – 2027年2月3日）",
                 detail="本周（11月30日起，北京时间） · 线下记账的", shorten="芜湖麻将俱乐部春季联赛")
SEASON_EN = dict(subtitle="Wuhu · Season 3 · Spring League of the Wuhu Mahjong Club (Dec 4, 2026 – Feb 3, 2027)",
                 detail="this week (from Nov 30, UTC+8) · played in person",
                 shorten="Spring League of the Wuhu Mahjong Club")

CASES = {
    "board-dark-zh": lambda: render_board(BOARD),
    "board-light-en": lambda: render_board(BOARD_EN, "light", "en"),
    "stats-dark-zh": lambda: render_stats(STATS),
    "stats-light-en": lambda: render_stats(replace(STATS, subtitle="Wuhu · all time"), "light", "en"),
    "stats-dark-tw": lambda: render_stats(replace(STATS, subtitle="蕪湖 · 全部時間"), "dark", "zh-TW"),
    "board-season-dark-zh": lambda: render_board(replace(BOARD, **SEASON_ZH)),
    "stats-season-light-en": lambda: render_stats(replace(STATS, **SEASON_EN), "light", "en"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_golden_image(name):
    check_golden(name, CASES[name]())


def test_one_row_per_player_and_a_gap_before_a_jump_in_rank():
    one = draw_board(replace(BOARD, lines=LINES[:1]))
    six = draw_board(BOARD)
    assert one.width == six.width == BOARD_WIDTH == 480
    row = (six.height - one.height) / 5
    assert row >= 40  # a readable row per player
    jump = draw_board(replace(BOARD, lines=(*LINES[:5], replace(LINES[5], rank=14))))
    assert jump.height > six.height  # the "…" gap between the top and the reader's own line


def test_the_readers_row_is_marked_and_only_that_row_changes():
    plain = draw_board(replace(BOARD, lines=tuple(replace(x, highlight=False) for x in LINES)))
    marked = draw_board(BOARD)
    box = max_channel_diff(plain, marked).getbbox()
    assert box is not None
    two, three = (draw_board(replace(BOARD, lines=LINES[:n])).height for n in (2, 3))
    assert two - 30 <= box[1] and box[3] <= three  # within the third row (the bottom margin is under 30 px)


def test_a_long_name_never_reaches_the_numbers(monkeypatch):
    name = "Bartholomew " * 8 + "名字很长很长"
    boxes = _boxes(monkeypatch, lambda: draw_board(replace(BOARD, lines=(BoardLine(4, name, 0, 10, 2),))))
    assert boxes[name][2] + 8 <= boxes["0 子"][0]  # shortened before the net


def test_gains_are_green_and_losses_red():
    th = THEMES["dark"]

    def count(img: Image.Image, colour) -> int:
        return sum(1 for p in pixels(img) if max(abs(a - b) for a, b in zip(p, colour, strict=True)) < 20)

    win = draw_board(replace(BOARD, lines=(BoardLine(1, "A", 50, 4, 2),)))
    loss = draw_board(replace(BOARD, lines=(BoardLine(1, "A", -50, 4, 0),)))
    assert count(win, th.plus) > 50 and count(win, th.minus) == 0
    assert count(loss, th.minus) > 50 and count(loss, th.plus) == 0
    up = draw_stats(replace(STATS, net=30, series=(5, 10, 20, 30)))
    down = draw_stats(replace(STATS, net=-30, series=(-5, -10, -20, -30)))
    assert count(up, th.plus) > count(up, th.minus)
    assert count(down, th.minus) > count(down, th.plus)


def test_the_chart_follows_the_series():
    a = draw_stats(STATS)
    b = draw_stats(replace(STATS, series=(*SERIES[:-1], -60)))
    box = max_channel_diff(a, b).getbbox()
    assert box is not None and box[1] > FIGURES_TOP + 2 * FIGURE_H  # only the chart changed, not the figures above
    assert max_channel_diff(a, draw_stats(STATS)).getbbox() is None  # the same data draws the same picture


def test_no_hands_draws_a_plain_card():
    empty = open_png(render_stats(replace(STATS, hands=0, wins=0, self_draws=0, deal_ins=0, draws=0,
                                          biggest_hand=0, net=0, series=())))
    assert empty.size == (STATS_WIDTH, STATS_HEIGHT) == (480, 600)
    board = open_png(render_board(replace(BOARD, lines=())))
    assert board.width == BOARD_WIDTH


def test_many_hands_still_draw_quickly_enough_and_small():
    long = replace(STATS, hands=2000, series=tuple((i * 7919) % 97 - 48 for i in range(2000)))
    data = render_stats(long)
    assert open_png(data).size == (STATS_WIDTH, STATS_HEIGHT) and len(data) < 200_000


@pytest.mark.parametrize("lang", ["zh", "zh-TW", "en"])
def test_every_label_has_each_language(lang):
    for key in LABELS:
        assert label(key, lang)
    assert label("deal_ins", lang) == {"zh": "点炮", "zh-TW": "放槍", "en": "Deal-ins"}[lang]


def test_docstring_examples():
    import doctest

    import render.board

    result = doctest.testmod(render.board)
    assert result.attempted >= 5 and result.failed == 0


def _boxes(monkeypatch, draw) -> dict[str, tuple[int, int, int, int]]:
    """The inked box of each text ``draw()`` draws (the last one drawn of a text)."""
    import render.board
    import render.match

    texts = spy_texts(monkeypatch, (render.board, render.match))
    draw()
    return {text: box for text, _, _, box, _ in texts}


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_five_digit_net_stays_clear_of_the_name(monkeypatch, lang):
    name = "我自己 Me myself and my long name"
    nets = (-23456, 12345, 1234567)
    lines = tuple(BoardLine(i + 1, f"{name} {i}", net, 400, 100) for i, net in enumerate(nets))
    boxes = _boxes(monkeypatch, lambda: draw_board(replace(BOARD, lines=lines), "dark", lang))
    for i, net in enumerate(nets):
        name_box = boxes[f"{name} {i}"]
        net_box = next(b for t, b in boxes.items() if t.startswith(f"{net:+d}"))
        assert name_box[2] + 8 <= net_box[0], (net, name_box, net_box)  # a gap between the name and the net
        assert net_box[2] <= NET_RIGHT + 1  # the net keeps its column


@pytest.mark.parametrize("series", [(-15000, -10000, 4000), (12345, 99999, -54321)])
def test_the_y_axis_labels_of_the_stats_chart_stay_on_the_card(monkeypatch, series):
    scene = replace(STATS, hands=len(series), net=series[-1], series=series)
    boxes = _boxes(monkeypatch, lambda: draw_stats(scene, "dark", "en"))
    ticks = [t for t in boxes if t.lstrip("-").isdigit() and boxes[t][1] > FIGURES_TOP + 2 * FIGURE_H + 40
             and boxes[t][0] < 120]
    assert any(t.startswith("-") for t in ticks) and len(ticks) >= 3
    for t in ticks:
        assert boxes[t][0] >= 16, (t, boxes[t])  # inside the card, the minus sign included


def test_the_y_axis_labels_of_the_match_chart_stay_on_the_card(monkeypatch):
    from render.match import draw_match
    from render.scene import MatchScene

    scene = MatchScene.from_deltas(("A", "B", "C", "D"), [(-15000, 5000, 5000, 5000), (-4000, 2000, 1000, 1000)])
    boxes = _boxes(monkeypatch, lambda: draw_match(scene, "dark", "en"))
    ticks = [t for t in boxes if t.lstrip("-").isdigit() and t != "0"]
    assert any(t.startswith("-") and len(t) >= 6 for t in ticks)  # "-15000" or longer
    for t in ticks:
        assert boxes[t][0] >= 16, (t, boxes[t])  # inside the card, the minus sign included


@pytest.mark.parametrize("series", [(30, 60, 13), (-30, -60, -13), (5, 2, 9), (0, 40, 39)])
def test_the_final_value_is_clear_of_the_line(monkeypatch, series):
    th = THEMES["dark"]
    scene = replace(STATS, hands=len(series), net=series[-1], series=series)
    texts = spy_texts(monkeypatch, (render.board,))
    img = draw_stats(scene)
    final = f"{series[-1]:+d}"
    box = [b for t, _, _, b, _ in texts if t == final][-1]  # the last one drawn: the chart's (the figure says 子)
    near = [p for p in pixels(img.crop(box)) if max(abs(a - b) for a, b in zip(p, th.accent, strict=True)) < 40]
    assert not near, f"the line runs through the final value {final}"
    assert box[2] <= STATS_WIDTH - 16  # and the value stays on the card


def test_the_chart_has_a_point_per_hand_and_names_adjustments(monkeypatch):
    """19 hands (a void removed one) and an adjustment of +5 before the first hand: the x axis ends at 19, the line
    starts at +5, and the heading says the net includes the adjustment."""
    series = tuple(5 + i for i in range(1, 20))
    scene = replace(STATS, hands=19, net=series[-1], series=series, start=5, adjusted=5)
    texts = spy_texts(monkeypatch, (render.board,))
    draw_stats(scene, "dark", "en")
    drawn = [t for t, *_ in texts]
    x_axis = [int(t) for t, _, _, b, _ in texts if t.isdigit() and b[1] > STATS_HEIGHT - 70]
    assert max(x_axis) == 19
    assert "incl. adjustments +5 子" in drawn
    plain = spy_texts(monkeypatch, (render.board,))
    draw_stats(replace(scene, adjusted=0), "dark", "en")
    assert not any("adjust" in t for t, *_ in plain)


def test_tied_players_share_the_medal_and_no_gap_is_drawn():
    silver = (190, 198, 208)
    tied = (BoardLine(1, "A", 30, 10, 2), BoardLine(2, "B", 10, 10, 1), BoardLine(2, "C", 10, 10, 1),
            BoardLine(4, "D", 10, 10, 0))
    img = draw_board(replace(BOARD, lines=tied))
    plain = draw_board(replace(BOARD, lines=tuple(replace(x, rank=i + 1) for i, x in enumerate(tied))))
    assert img.height == plain.height  # no "…" gap between 2, 2 and 4
    top = img.height - 24 - 4 * 46  # the rows' top (the bottom margin is 24 px)
    for row in (1, 2):  # both second places have the silver medal
        cy = top + row * 46 + 23
        assert img.getpixel((36, cy - 10)) == silver
    assert img.getpixel((36, top + 3 * 46 + 13)) != silver  # fourth: no medal


@pytest.mark.parametrize("lang", ["zh", "en"])
def test_a_long_season_name_gives_way_to_the_seasons_dates(monkeypatch, lang):
    from render import fonts

    shown: list[str] = []
    real = fonts.fit

    def spy(*args, **kw):
        out = real(*args, **kw)
        shown.append(out[0])
        return out

    monkeypatch.setattr(fonts, "fit", spy)
    name = "Spring League of the Wuhu Mahjong Club 芜湖麻将俱乐部春季联赛"
    span = {"zh": "（3月1日 – 5月31日）", "en": " (Mar 1 – May 31)"}[lang]
    draw_board(replace(BOARD, subtitle=f"Season 12 · {name}{span}"), "dark", lang)
    [sub] = [t for t in shown if t.startswith("Season 12")]
    assert sub.endswith(span.strip()) and "…" in sub  # the name is shortened, the dates are whole


@pytest.mark.parametrize(("lang", "season"), [("zh", SEASON_ZH), ("en", SEASON_EN)])
def test_the_period_and_the_source_take_a_second_line_and_the_seasons_name_gives_way(monkeypatch, lang, season):
    """The season's dates, the period and the source each whole on the image, at 14 px at least; the board and the
    card one line taller than with the season alone."""
    name = season["shorten"]
    before, after = season["subtitle"].split(name)
    for draw, scene, one_line in ((draw_board, replace(BOARD, **season), replace(BOARD, subtitle=season["subtitle"])),
                                  (draw_stats, replace(STATS, **season), replace(STATS, subtitle=season["subtitle"]))):
        shown = fit_texts(monkeypatch)
        img = draw(scene, "dark", lang)
        first = next((text, size) for text, size in shown if text.startswith(before))
        second = next((text, size) for text, size in shown if text == season["detail"])
        assert first[0].endswith(after) and "…" in first[0] and name not in first[0]  # the name gave way, only it
        assert first[1] == second[1] >= 14
        assert img.height == draw(one_line, "dark", lang).height + render.board.SUB_LINE


def test_a_subtitle_that_fits_stays_on_one_line():
    scene = replace(BOARD, subtitle="第 1 赛季 · 春季（3月1日 – 5月31日）", detail="线下记账的")
    assert render.board.subtitle_lines(scene.subtitle, scene.detail) == [
        ("第 1 赛季 · 春季（3月1日 – 5月31日） · 线下记账的", 16)]
    assert draw_board(scene).height == draw_board(replace(scene, detail="")).height
    assert draw_stats(replace(STATS, detail="本周（11月30日起，北京时间）")).size == (STATS_WIDTH, STATS_HEIGHT)
