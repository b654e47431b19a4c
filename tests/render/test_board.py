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
from imgutil import check_golden, max_channel_diff, open_png, pixels  # noqa: E402

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

CASES = {
    "board-dark-zh": lambda: render_board(BOARD),
    "board-light-en": lambda: render_board(BOARD_EN, "light", "en"),
    "stats-dark-zh": lambda: render_stats(STATS),
    "stats-light-en": lambda: render_stats(replace(STATS, subtitle="Wuhu · all time"), "light", "en"),
    "stats-dark-tw": lambda: render_stats(replace(STATS, subtitle="蕪湖 · 全部時間"), "dark", "zh-TW"),
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


def test_a_long_name_never_reaches_the_numbers():
    short = draw_board(replace(BOARD, lines=(BoardLine(4, "Bob", 0, 10, 2),)))
    long = draw_board(replace(BOARD, lines=(BoardLine(4, "Bartholomew " * 8 + "名字很长很长", 0, 10, 2),)))
    box = max_channel_diff(short, long).getbbox()
    assert box is not None and box[2] < NET_RIGHT - 60  # the net column's right edge


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
