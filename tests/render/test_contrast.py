"""Every text an image draws reads in daylight: its colour against what it is drawn on has a WCAG contrast of at
least 4.5:1 (3:1 from 24 px), in both themes. The check draws the real images (every kind, gains and losses, a
replay with its review) and measures each text against the colour under it just before it was drawn, so a new text
colour or a new background is measured too.

The stats chart keeps its meaning in both themes: gains shaded green, losses red (not mapped to the palette's grey).
"""

from __future__ import annotations

import random
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from render import board, card, hand, match, match_review, replay, report, samples, table
from render.board import draw_stats, render_stats
from render.common import THEMES, contrast, shades

sys.path.insert(0, str(Path(__file__).parent))
from imgutil import open_png, pixels, spy_texts  # noqa: E402

SMALL, LARGE = 4.5, 3.0  # WCAG AA
LARGE_PX = 24


def _drawn_pairs(monkeypatch, draw) -> list[tuple[float, int, tuple, tuple, str]]:
    """(contrast, size, text colour, background, text) of every text ``draw()`` draws."""
    texts = spy_texts(monkeypatch, (board, card, hand, match, match_review, replay, report, table))
    draw()
    return [(contrast(fg, bg), size, fg, bg, text) for text, size, fg, _, bg in texts]


def _replay():
    from engine.replay import HandReplay
    from engine.review import review_hand
    from engine.selfplay import play_match
    from engine.table import Table

    t = Table.new("wuhu", "img")
    acts: list = []
    play_match(t, ["easy", "normal", "normal", "normal"], random.Random("img"), max_hands=1, record=acts)
    r = HandReplay.build("wuhu", "img", {}, acts, 0)
    return r, review_hand(r, 0)


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_every_text_has_enough_contrast(monkeypatch, theme):
    names = ("小明", "Alice", "王大锤", "Bob the Builder")
    r, rv = _replay()
    lines = (report.ReportLine(1, "A", 5, 3, 1), report.ReportLine(2, "B", -5, 3, 1), report.ReportLine(4, "C", 0, 3, 0))

    def draw():
        for lang in ("zh", "en"):
            board.draw_board(samples.board_scene(), theme, lang)
            board.draw_stats(samples.stats_scene(), theme, lang)
            board.draw_stats(replace(samples.stats_scene(), net=-5, series=(3, -5)), theme, lang)
            card.draw_score(samples.score_scene(), theme, lang)
            match.draw_match(samples.match_scene(), theme, lang)
            table.draw_table(samples.table_scene(), theme, lang)
            hand.draw_hand(samples.hand_scene(), theme, lang)
            report.draw_report(report.ReportScene("T", "w", "c", "top", lines, (("a", "b"),), wins_label="w/h"), theme)
        for step in (0, r.n // 2, r.n):
            replay.render_replay_step(r, step, 0, theme=theme, lang="en", names=names, review=rv)
        replay.render_review(rv, r, theme, "en", names=names)

    pairs = _drawn_pairs(monkeypatch, draw)
    assert len(pairs) > 200
    assert {fg for _, _, fg, _, _ in pairs} >= {THEMES[theme].accent, THEMES[theme].plus, THEMES[theme].minus}
    low = sorted({(round(c, 2), size, fg, bg, text) for c, size, fg, bg, text in pairs
                  if c < (LARGE if size >= LARGE_PX else SMALL)})
    assert not low, f"text too faint in the {theme} theme (contrast, px, colour, background, text): {low[:10]}"


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_stats_chart_is_green_over_gains_and_red_under_losses(theme):
    gain, loss = shades(THEMES[theme])
    scene = replace(samples.stats_scene(), series=(20, 40, 10, -30, -50))
    img = open_png(render_stats(scene, theme, "en"))
    seen = pixels(img)
    assert seen.count(gain) > 500 and seen.count(loss) > 500  # both shadings survive the PNG's palette
    assert draw_stats(scene, theme, "en").size == img.size


@pytest.mark.parametrize("theme", ["dark", "light"])
def test_the_frames_on_the_felt_stand_out_from_it(theme):
    """The last discard's frame and the frames round tiles laid aside in the last tiles were drawn in the theme's
    accent and blue, which in the light theme (made for its light panels) read at 1.2 and 1.5:1 on the green felt: the
    last discard and the tiles no one may claim were hard to tell on a phone. On the posted PNG (after its palette)
    each frame has at least WCAG's 3:1 for graphics against the felt around it, in both themes."""
    th = THEMES[theme]
    sc = samples.table_scene()
    seats = list(sc.seats)
    seats[0] = replace(seats[0], laid_aside=frozenset({len(seats[0].river) - 1}))
    sc = replace(sc, seats=tuple(seats), last_tiles=True)
    img = open_png(table.render_table(sc, theme, "en")).convert("RGB")
    lay = table.table_layout(sc, "en")
    tiles = {(band.seat, t.index): t for band in lay.bands for t in band.river}
    aside = tiles[(0, len(seats[0].river) - 1)]
    last = tiles[sc.last_discard]
    for t in (aside, last):
        frame = img.getpixel((t.x - 2, t.y + 10))
        felt = img.getpixel((table.WIDTH - table.MARGIN - 10, t.y + 10))  # the river's row, right of its last tile
        assert felt == th.felt
        assert contrast(frame, felt) >= LARGE, (theme, frame, felt)
    assert img.getpixel((aside.x - 2, aside.y + 10)) != img.getpixel((last.x - 2, last.y + 10))  # told apart
