"""The weekly report (战报) as a phone shows it: 480 px wide like the leaderboard (83% on a ~400 px screen), its
smallest text 15 px (12.5 px on the phone), a long record kept on one line at its size, a big net clear of the name.
Golden images within a pixel tolerance (regenerate with MJBOT_REGEN_GOLDEN=1 and look at them)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

import render.report
from render.board import BOARD_WIDTH
from render.report import ReportLine, ReportScene, draw_report, render_report

sys.path.insert(0, str(Path(__file__).parent))
from imgutil import check_golden, open_png, spy_texts  # noqa: E402

LONG = "Christopher Johnson · 130 子 · Wuhu"
SCENE = ReportScene(
    "本周战报", "11月23日 – 11月29日", "共 312 局", "本周排名",
    (ReportLine(1, "Christopher Johnson", 1234, 40, 12), ReportLine(2, "小明", 560, 38, 10),
     ReportLine(3, "王大锤", -20, 20, 5), ReportLine(4, "Bob the Builder", -300, 33, 6),
     ReportLine(5, "张三", -1474, 41, 4)),
    (("最大一手", LONG), ("交最多", "Alice · +12"), ("和牌番数/子最多", "王大锤 · 64")),
    empty="本周没有对局", wins_label="和 / 局")


@pytest.mark.parametrize(("name", "theme"), [("report-dark-zh", "dark"), ("report-light-en", "light")])
def test_golden_image(name, theme):
    check_golden(name, render_report(SCENE, theme))


def test_as_wide_as_the_leaderboard_with_text_a_phone_reads(monkeypatch):
    png = open_png(render_report(SCENE))
    texts = spy_texts(monkeypatch, (render.report,))
    img = draw_report(SCENE)
    assert img.width == BOARD_WIDTH == 480 and png.size == img.size
    assert min(size for _, size, *_ in texts) >= 15  # 12.5 px on a 400 px screen
    for text, _, _, box, _ in texts:
        assert box[0] > 6 and box[2] < img.width - 6, text  # on the card
    # the long record is on one line at (nearly) its full size: its ink is as tall as a 20 px line's
    [box] = [b for t, _, _, b, _ in texts if t == LONG]
    assert box[3] - box[1] >= 17 and box[2] - box[0] > 300


def test_a_big_net_stays_clear_of_a_long_name(monkeypatch):
    name = "我自己 Me myself and my very long display name"
    scene = replace(SCENE, lines=(ReportLine(1, name, -123456, 400, 100),))
    texts = spy_texts(monkeypatch, (render.report,))
    draw_report(scene)
    boxes = {t: b for t, _, _, b, _ in texts}
    assert boxes[name][2] + 8 <= boxes["-123456 子"][0] and boxes["-123456 子"][2] + 8 <= boxes["100/400"][0]


def test_no_games_draws_the_empty_line():
    empty = draw_report(replace(SCENE, lines=(), records=()))
    assert empty.width == 480 and empty.height < draw_report(SCENE).height
