"""The match summary: every player's running total after each hand as a line chart, the final totals under it."""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

from . import fonts
from .common import Theme, draw_text, encode, given, lang_of, seat_name, theme_of, txt
from .scene import MatchScene

WIDTH, HEIGHT = 480, 600  # a phone shows it about 400 px wide: the axis labels read as 13 px
LEGEND_ROW_H = 62


def nice_ticks(lo: float, hi: float, n: int = 5) -> list[int]:
    """Round tick values covering [lo, hi].

    >>> nice_ticks(-30, 95)
    [-50, -25, 0, 25, 50, 75, 100]
    """
    if hi <= lo:
        hi = lo + 1
    raw = (hi - lo) / n
    mag = 10 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1, 2, 2.5, 5, 10) if m * mag >= raw)
    step = max(1, int(step))
    start = math.floor(lo / step) * step
    end = math.ceil(hi / step) * step
    return list(range(int(start), int(end) + 1, step))


AXIS_SIZE = 16  # the y axis labels


def axis_left(ticks: list[int], left: int) -> int:
    """The x of a chart's y axis whose labels (``ticks``, right-aligned 8 px left of the axis) start no further
    left than ``left``: long labels ("-15000") move the axis right instead of running off the card.

    >>> axis_left([0, 50], 20) < axis_left([-15000, 0], 20)
    True
    """
    widest = max(fonts.text_font(str(t), AXIS_SIZE, False).getlength(str(t)) for t in ticks)
    return left + math.ceil(widest) + 8


def draw_match(scene: MatchScene, theme: str | Theme = "dark", lang: str = "zh") -> Image.Image:
    th = theme_of(theme)
    lang = lang_of(lang)
    img = Image.new("RGB", (WIDTH, HEIGHT), th.bg)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((6, 6, WIDTH - 7, HEIGHT - 7), radius=16, fill=th.panel)
    title = given(scene.title, lang) if scene.title else txt("render.match.title", lang)
    draw_text(img, (20, 18), title, 24, th.text, max_width=WIDTH - 40)
    series = [list(scene.start)] + [list(t) for t in scene.totals]
    n = len(series) - 1
    vals = [v for row in series for v in row]
    ticks = nice_ticks(min(vals + [0]), max(vals + [0]), 4)
    # the standings under the chart: two by two, best first
    legend_h = 2 * LEGEND_ROW_H + 8
    px0, py0, px1, py1 = max(58, axis_left(ticks, 20)), 74, WIDTH - 26, HEIGHT - legend_h - 70
    lo, hi = ticks[0], ticks[-1]

    def X(i: int) -> float:
        return px0 + (px1 - px0) * (i / max(1, n))

    def Y(v: float) -> float:
        return py1 - (py1 - py0) * ((v - lo) / max(1, hi - lo))

    for t in ticks:
        d.line((px0, Y(t), px1, Y(t)), fill=th.subtext if t == 0 else th.grid, width=2 if t == 0 else 1)
        draw_text(img, (px0 - 8, Y(t)), str(t), AXIS_SIZE, th.subtext, anchor="rm", bold=False)
    step = max(1, math.ceil(n / 8))
    for i in range(0, n + 1, step):
        label = "0" if i == 0 else (scene.hand_labels[i - 1] if i - 1 < len(scene.hand_labels) else str(i))
        draw_text(img, (X(i), py1 + 8), label, 16, th.subtext, anchor="ma", bold=False)
    draw_text(img, ((px0 + px1) / 2, py1 + 30), txt("render.match.hand_axis", lang), 15, th.subtext, anchor="ma", bold=False)
    # the lines, drawn at twice the size over the plot area and scaled down (antialiased)
    ox, oy = px0 - 8, py0 - 8
    ow, oh = px1 - px0 + 16, py1 - py0 + 16
    layer = Image.new("RGBA", (ow * 2, oh * 2), (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    for s in range(4):
        pts = [((X(i) - ox) * 2, (Y(series[i][s]) - oy) * 2) for i in range(n + 1)]
        color = th.lines[s]
        if len(pts) > 1:
            ld.line(pts, fill=color, width=7, joint="curve")
        r = 8 if n <= 20 else 5
        for x, y in pts:
            ld.ellipse((x - r, y - r, x + r, y + r), fill=color)
    layer = layer.resize((ow, oh), Image.Resampling.BOX)
    img.paste(layer.convert("RGB"), (ox, oy), layer)
    # legend with final totals, best first
    final = series[-1]
    order = sorted(range(4), key=lambda s: -final[s])
    unit = txt("render.unit.zi", lang) if scene.unit == "子" else scene.unit
    gap, lx0 = 8, 16
    box_w = (WIDTH - 2 * lx0 - gap) / 2
    top = HEIGHT - 16 - legend_h
    bold = fonts.bold_for(seat_name(n, s, lang) for s, n in enumerate(scene.names))  # one face for the legend
    for rank, s in enumerate(order):
        lx = lx0 + (rank % 2) * (box_w + gap)
        y = top + (rank // 2) * (LEGEND_ROW_H + gap)
        d.rounded_rectangle((lx, y, lx + box_w, y + LEGEND_ROW_H), radius=10, fill=th.panel_hi)
        d.rounded_rectangle((lx + 8, y + 12, lx + 15, y + LEGEND_ROW_H - 12), radius=3, fill=th.lines[s])
        draw_text(img, (lx + 24, y + 7), f"{rank + 1}. {seat_name(scene.names[s], s, lang)}", 17, th.text,
                  max_width=int(box_w) - 30, bold=bold)
        v = final[s]
        col = th.plus if v > 0 else th.minus if v < 0 else th.subtext
        draw_text(img, (lx + 24, y + 32), f"{v:+d} {unit}" if v else f"0 {unit}", 21, col)
    return img


def render_match(scene: MatchScene, theme: str | Theme = "dark", lang: str = "zh") -> bytes:
    """PNG bytes of the match summary chart (see :class:`render.scene.MatchScene`)."""
    return encode(draw_match(scene, theme, lang), theme)
