"""Leaderboard image and a player's stats card (with a chart of their running net 子).

Both are pure functions of plain data (:class:`BoardScene`, :class:`StatsScene`) to PNG bytes, safe to call in a
thread. Titles and subtitles come already written in the reader's language (the cog has the words); the column
and figure labels are chosen here from ``lang`` (``zh``, ``zh-TW``, ``en``; Discord locales accepted).

>>> scene = BoardScene("芜湖 · 排行榜", "全部", (BoardLine(1, "小明", 35, 12, 4),))
>>> render_board(scene)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
>>> card = StatsScene("小明", "芜湖 · 全部", hands=3, wins=1, self_draws=0, deal_ins=1, draws=0, biggest_hand=8,
...                   net=2, series=(8, 4, 2))
>>> render_stats(card, "light", "en")[:4] == b"\\x89PNG"
True
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from text.catalog import text

from . import fonts
from .common import SHADE_ALPHA, Theme, draw_text, encode, lang_of, theme_of
from .match import axis_left, nice_ticks

BOARD_WIDTH = 480  # a phone shows images about 400 px wide: 20 px names read as 17 px
STATS_WIDTH, STATS_HEIGHT = 480, 600
FIGURES_TOP, FIGURE_H = 84, 66  # the two rows of figures; the chart is below them

#: the labels (catalogue keys ``render.board.<label>``)
LABELS = ("rank", "player", "net", "hands", "wins", "rate", "self_draws", "deal_ins", "draws", "biggest",
          "chart", "hand_axis", "empty", "unit", "adjusted")


def label(key: str, lang: str) -> str:
    """A column or figure label in ``lang``.

    >>> label("deal_ins", "zh"), label("deal_ins", "zh-TW"), label("deal_ins", "en-US")
    ('点炮', '放槍', 'Deal-ins')
    """
    return text(f"render.board.{key}", lang_of(lang))


def signed(n: int) -> str:
    """``+35``, ``-20``, ``0``."""
    return f"{n:+d}" if n else "0"


def rate(wins: int, hands: int) -> str:
    """The win rate as a whole percentage (``—`` without hands).

    >>> rate(1, 3), rate(0, 0)
    ('33%', '—')
    """
    return f"{round(100 * wins / hands)}%" if hands else "—"


# ---------------------------------------------------------------------------------------------------------------
# leaderboard


@dataclass(frozen=True)
class BoardLine:
    """One player's line: ``rank`` (1 = best), name, net 子, hands played, wins; ``highlight`` marks the reader."""

    rank: int
    name: str
    net: int
    hands: int
    wins: int
    highlight: bool = False


@dataclass(frozen=True)
class BoardScene:
    """A leaderboard: ``lines`` in rank order; tied players share a rank and its medal (1, 2, 2, 4). A line after
    lines left out (the reader's own line under the top ten: :func:`gaps_before`) is drawn after a gap.
    ``subtitle``, ``detail`` and ``shorten``: what the figures are of, drawn as :func:`subtitle_lines` says (the
    season, then the period and the source, the season's name given way first)."""

    title: str
    subtitle: str
    lines: tuple[BoardLine, ...]
    detail: str = ""
    shorten: str = ""


SUB_SIZE, SUB_MIN = 16, 14  # a subtitle's size, and the smallest it shrinks to (11.6 px on a phone) before it is cut
SUB_LINE = 22  # the height a second subtitle line adds


def subtitle_lines(subtitle: str, detail: str = "", shorten: str = "", width: int = BOARD_WIDTH - 40
                   ) -> list[tuple[str, int]]:
    """The lines of an image's subtitle, each with its size, in this order of giving way: ``subtitle`` and ``detail``
    (the period, the source) share one line when they fit it at :data:`SUB_MIN` px or more; else ``detail`` goes to
    a second line. A line still too wide shortens ``shorten`` (a season's name) in its middle, so that what is
    around it (the season's number and dates) stays whole; a line still too wide after that (or without a
    ``shorten`` in it) is shortened in its middle when drawn, so that both its ends stay.

    >>> subtitle_lines("Season 2 · Spring (Mar 1 – May 31)", "this week (from Nov 23, UTC+8)")
    [('Season 2 · Spring (Mar 1 – May 31)', 16), ('this week (from Nov 23, UTC+8)', 16)]
    >>> subtitle_lines("Season 2 · Spring (Mar 1 – May 31)", "played in person")
    [('Season 2 · Spring (Mar 1 – May 31) · played in person', 16)]
    >>> subtitle_lines("Season 2 · " + "Spring League " * 4 + "(Mar 1 – May 31)", "this month (from Nov 1, UTC+8)",
    ...                "Spring League " * 4)
    [('Season 2 · Spring League Spri…ue Spring League (Mar 1 – May 31)', 14), ('this month (from Nov 1, UTC+8)', 14)]
    """
    both = f"{subtitle} · {detail}" if subtitle and detail else subtitle or detail
    if _fitting_size(both, width) is not None or not (subtitle and detail):
        return [_fit_line(both, shorten, width)]
    lines = [_fit_line(subtitle, shorten, width), _fit_line(detail, shorten, width)]
    size = min(size for _, size in lines)  # both lines in one size
    return [(line, size) for line, _ in lines]


def _fitting_size(text: str, width: int) -> int | None:
    """The largest subtitle size at which ``text`` fits ``width`` px; None when it does not at :data:`SUB_MIN`."""
    for size in range(SUB_SIZE, SUB_MIN - 1, -1):
        if fonts.text_width(text, fonts.text_font(text, size, False)) <= width:
            return size
    return None


def _fit_line(text: str, shorten: str, width: int) -> tuple[str, int]:
    """One subtitle line at the largest size it fits; too wide at :data:`SUB_MIN`, ``shorten`` in it is shortened in
    its middle until the line fits (or is down to one character and "…")."""
    text, shorten = fonts.clean(text), fonts.clean(shorten)
    size = _fitting_size(text, width)
    if size is not None:
        return text, size
    at = text.find(shorten) if shorten else -1
    if at >= 0:
        head, tail = text[:at], text[at + len(shorten):]
        for n in range(len(shorten) - 1, 0, -1):
            short = shorten[: n - n // 2].rstrip() + "…" + shorten[len(shorten) - n // 2:].lstrip()
            if _fitting_size(head + short + tail, width) is not None:
                return head + short + tail, SUB_MIN
        text = head + shorten[:1] + "…" + tail
    return text, SUB_MIN  # still too wide (no name to shorten): draw_text shortens it in its middle


def _draw_subtitle(img: Image.Image, y: int, lines: list[tuple[str, int]], colour, width: int) -> None:
    for i, (line, size) in enumerate(lines):
        draw_text(img, (20, y + i * SUB_LINE), line, size, colour, bold=False, max_width=width, min_size=size,
                  middle=True)


def gaps_before(ranks: Sequence[int]) -> list[bool]:
    """Which lines of a board come after a gap (lines left out between them and the line before): ranks are shared
    by ties (1, 2, 2, 4), so a line follows on when its rank is the previous line's, or that rank plus the lines
    shown with it.

    >>> gaps_before([1, 2, 2, 4, 5]), gaps_before([1, 2, 3, 14]), gaps_before([1, 1, 1, 4])
    ([False, False, False, False, False], [False, False, False, True], [False, False, False, False])
    """
    out: list[bool] = []
    prev, run = 0, 1
    for rank in ranks:
        out.append(rank > prev + run if rank != prev else False)
        run = run + 1 if rank == prev else 1
        prev = rank
    return out


NET_RIGHT = 298  # the right edge of the net column
NET_MAX = 130  # the widest a net is drawn ("+1234567 子" shrinks to it)
NAME_GAP = 12  # at least this between a name and its net
_MEDALS = ((236, 190, 60), (190, 198, 208), (205, 133, 80))  # gold, silver, bronze
ROW_H = 46
_HEAD_H = 84
_COLS_H = 28


def _net_colour(th: Theme, v: int):
    return th.plus if v > 0 else th.minus if v < 0 else th.subtext


def draw_board(scene: BoardScene, theme: str | Theme = "dark", lang: str = "zh") -> Image.Image:
    th = theme_of(theme)
    lang = lang_of(lang)
    lines = scene.lines
    gap = gaps_before([line.rank for line in lines])
    gaps = sum(gap)
    body = max(1, len(lines)) * ROW_H + gaps * 22
    w = BOARD_WIDTH
    # the season, the period and the source: on a second line when they do not fit one, a long season name shortened
    # before anything else is, so that the season's dates stay (subtitle_lines)
    sub = subtitle_lines(scene.subtitle, scene.detail, scene.shorten, w - 40)
    head_h = _HEAD_H + (len(sub) - 1) * SUB_LINE
    height = head_h + _COLS_H + body + 24
    img = Image.new("RGB", (w, height), th.bg)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((6, 6, w - 7, height - 7), radius=16, fill=th.panel)
    draw_text(img, (20, 16), scene.title, 24, th.text, max_width=w - 40)
    _draw_subtitle(img, 52, sub, th.subtext, w - 40)
    # columns: rank | name | net | hands | wins | rate (right edges of the number columns)
    x_rank, x_name = 36, 62
    x_net, x_hands, x_wins, x_rate = NET_RIGHT, 352, 405, w - 22
    y = head_h
    for key, x, anchor in (("rank", x_rank, "ma"), ("player", x_name, "la"), ("net", x_net, "ra"),
                           ("hands", x_hands, "ra"), ("wins", x_wins, "ra"), ("rate", x_rate, "ra")):
        draw_text(img, (x, y + 4), label(key, lang), 15, th.subtext, anchor=anchor, bold=False)
    d.line((14, y + _COLS_H - 2, w - 14, y + _COLS_H - 2), fill=th.grid, width=1)
    y += _COLS_H
    if not lines:
        draw_text(img, (w / 2, y + ROW_H / 2), label("empty", lang), 20, th.subtext, anchor="mm")
        return img
    bold = fonts.bold_for(line.name for line in lines)  # one face for the whole name column
    for i, line in enumerate(lines):
        if gap[i]:
            for k in range(3):  # a vertical ellipsis between the top and the reader's own line
                cx = x_rank + (k - 1) * 10
                d.ellipse((cx - 2, y + 9, cx + 2, y + 13), fill=th.subtext)
            y += 22
        if line.highlight:
            d.rounded_rectangle((12, y + 3, w - 12, y + ROW_H - 3), radius=10, fill=th.panel_hi, outline=th.accent,
                                width=2)
        elif i % 2 == 1:
            d.rounded_rectangle((12, y + 3, w - 12, y + ROW_H - 3), radius=10, fill=th.panel_hi)
        cy = y + ROW_H / 2
        if line.rank <= 3:
            r = 14
            d.ellipse((x_rank - r, cy - r, x_rank + r, cy + r), fill=_MEDALS[line.rank - 1])
            draw_text(img, (x_rank, cy), str(line.rank), 17, (40, 32, 20), anchor="mm")
        else:
            draw_text(img, (x_rank, cy), str(line.rank), 18, th.subtext, anchor="mm")
        # the net first: the name takes what it leaves (a net of 5 digits is wider than a short one)
        net_w = draw_text(img, (x_net, cy), f"{signed(line.net)} {label('unit', lang)}", 20, _net_colour(th, line.net),
                          anchor="rm", max_width=NET_MAX)
        draw_text(img, (x_name, cy), line.name, 19, th.text, anchor="lm", max_width=x_net - net_w - NAME_GAP - x_name,
                  bold=bold)
        draw_text(img, (x_hands, cy), str(line.hands), 18, th.text, anchor="rm", bold=False)
        draw_text(img, (x_wins, cy), str(line.wins), 18, th.text, anchor="rm", bold=False)
        draw_text(img, (x_rate, cy), rate(line.wins, line.hands), 18, th.subtext, anchor="rm", bold=False)
        y += ROW_H
    return img


def render_board(scene: BoardScene, theme: str | Theme = "dark", lang: str = "zh") -> bytes:
    """PNG bytes of a leaderboard (see :class:`BoardScene`)."""
    return encode(draw_board(scene, theme, lang), theme)


# ---------------------------------------------------------------------------------------------------------------
# stats card


@dataclass(frozen=True)
class StatsScene:
    """A player's figures and ``series``, their running net 子 after each hand (oldest first: one point per hand
    of ``hands``, ending at ``net``). ``start``: the net before the first hand (adjustments posted before it).
    ``adjusted``: the 子 that adjustments added to the net (named beside the chart's heading when not 0: they move
    the net without being a hand). A subtitle on two lines (:func:`subtitle_lines`) makes the card
    :data:`SUB_LINE` px taller, the figures and the chart moved down."""

    name: str
    subtitle: str
    hands: int
    wins: int
    self_draws: int
    deal_ins: int
    draws: int
    biggest_hand: int
    net: int
    series: tuple[int, ...]
    start: int = 0
    adjusted: int = 0
    detail: str = ""  # the period and the source: after the subtitle, or on a second line (subtitle_lines)
    shorten: str = ""  # the part of the subtitle that gives way first (a season's name)


def _figures(scene: StatsScene, lang: str) -> list[tuple[str, str, str | None]]:
    unit = label("unit", lang)
    return [
        (label("hands", lang), str(scene.hands), None),
        (label("wins", lang), f"{scene.wins} · {rate(scene.wins, scene.hands)}", None),
        (label("self_draws", lang), str(scene.self_draws), None),
        (label("deal_ins", lang), str(scene.deal_ins), None),
        (label("draws", lang), str(scene.draws), None),
        (label("biggest", lang), f"{scene.biggest_hand} {unit}", None),
        (label("net", lang), f"{signed(scene.net)} {unit}", "net"),
    ]


def draw_stats(scene: StatsScene, theme: str | Theme = "dark", lang: str = "zh") -> Image.Image:
    th = theme_of(theme)
    lang = lang_of(lang)
    sub = subtitle_lines(scene.subtitle, scene.detail, scene.shorten, STATS_WIDTH - 40)
    extra = (len(sub) - 1) * SUB_LINE
    w, h = STATS_WIDTH, STATS_HEIGHT + extra
    img = Image.new("RGB", (w, h), th.bg)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((6, 6, w - 7, h - 7), radius=16, fill=th.panel)
    draw_text(img, (20, 16), scene.name, 26, th.text, max_width=w - 40)
    _draw_subtitle(img, 54, sub, th.subtext, w - 40)
    # the figures, one box each, in two rows (four, then three) so a phone shows them large enough to read
    figs = _figures(scene, lang)
    gap, x0, top, box_h = 8, 16, FIGURES_TOP + extra, FIGURE_H
    rows = (figs[:4], figs[4:])
    for r, row in enumerate(rows):
        box_w = (w - 2 * x0 - gap * (len(row) - 1)) / len(row)
        by = top + r * (box_h + gap)
        for i, (name, value, kind) in enumerate(row):
            bx = x0 + i * (box_w + gap)
            d.rounded_rectangle((bx, by, bx + box_w, by + box_h), radius=10, fill=th.panel_hi)
            draw_text(img, (bx + box_w / 2, by + 8), name, 15, th.subtext, anchor="ma", bold=False,
                      max_width=int(box_w) - 8)
            colour = _net_colour(th, scene.net) if kind == "net" else th.text
            draw_text(img, (bx + box_w / 2, by + 32), value, 22, colour, anchor="ma", max_width=int(box_w) - 8)
    # the chart of the running net
    chart_top = top + 2 * box_h + gap + 14
    heading_w = draw_text(img, (20, chart_top), label("chart", lang), 16, th.subtext, bold=False)
    if scene.adjusted:
        note = text("render.board.adjusted", lang, amount=f"{signed(scene.adjusted)} {label('unit', lang)}")
        draw_text(img, (w - 22, chart_top), note, 15, th.subtext, anchor="ra", bold=False,
                  max_width=w - 22 - 20 - heading_w - 16)
    _chart(img, (scene.start, *scene.series), (20, chart_top + 40, w - 22, h - 58), th, lang)
    return img


FINAL_SIZE = 18  # the final value, right of the line's last point


def _chart(img: Image.Image, values: tuple[int, ...], box: tuple[int, int, int, int], th: Theme, lang: str) -> None:
    """The running total as a line from ``values[0]`` (before the first hand) through every hand, gains shaded
    green above the zero line and losses red below it. ``box``: the area for the chart with its axis labels; the
    plot inside it leaves room for the widest y label on the left and the final value on the right."""
    x0, py0, x1, py1 = box
    d = ImageDraw.Draw(img)
    n = len(values) - 1
    if n == 0:
        draw_text(img, ((x0 + x1) / 2, (py0 + py1) / 2), label("empty", lang), 20, th.subtext, anchor="mm")
        return
    ticks = nice_ticks(min(0, *values), max(0, *values), 4)
    lo, hi = ticks[0], ticks[-1]
    last = values[-1]
    px0 = max(58, axis_left(ticks, x0))
    px1 = x1 - math.ceil(fonts.text_font(signed(last), FINAL_SIZE).getlength(signed(last))) - 10

    def X(i: float) -> float:
        return px0 + (px1 - px0) * (i / n)

    def Y(v: float) -> float:
        return py1 - (py1 - py0) * ((v - lo) / max(1, hi - lo))

    for t in ticks:
        d.line((px0, Y(t), px1, Y(t)), fill=th.subtext if t == 0 else th.grid, width=2 if t == 0 else 1)
        draw_text(img, (px0 - 8, Y(t)), str(t), 16, th.subtext, anchor="rm", bold=False)
    xt = [x for x in nice_ticks(0, n, 5) if 0 <= x <= n]
    if xt[-1] != n:  # the axis ends at the last hand, labelled with the number of hands (the Hands figure)
        if X(n) - X(xt[-1]) < 28:
            xt.pop()
        xt.append(n)
    for x in xt:
        draw_text(img, (X(x), py1 + 8), str(x), 16, th.subtext, anchor="ma", bold=False)
    draw_text(img, ((px0 + px1) / 2, py1 + 30), label("hand_axis", lang), 15, th.subtext, anchor="ma", bold=False)
    # drawn at twice the size and scaled down (antialiased), as the match chart
    ox, oy = px0 - 8, py0 - 8
    ow, oh = px1 - px0 + 16, py1 - py0 + 16
    layer = Image.new("RGBA", (ow * 2, oh * 2), (0, 0, 0, 0))
    ld = ImageDraw.Draw(layer)
    pts = [((X(i) - ox) * 2, (Y(v) - oy) * 2) for i, v in enumerate(values)]
    zero = (Y(0) - oy) * 2
    for i in range(n):  # shade each segment towards the zero line, green above, red below
        (xa, ya), (xb, yb) = pts[i], pts[i + 1]
        va, vb = values[i], values[i + 1]
        if (va >= 0) == (vb >= 0) or va == 0 or vb == 0:
            colour = th.plus if va + vb > 0 else th.minus
            ld.polygon([(xa, zero), (xa, ya), (xb, yb), (xb, zero)], fill=(*colour, SHADE_ALPHA))
        else:  # crosses zero: split where it does
            f = va / (va - vb)
            xm = xa + (xb - xa) * f
            ld.polygon([(xa, zero), (xa, ya), (xm, zero)], fill=(*(th.plus if va > 0 else th.minus), SHADE_ALPHA))
            ld.polygon([(xm, zero), (xb, yb), (xb, zero)], fill=(*(th.plus if vb > 0 else th.minus), SHADE_ALPHA))
    ld.line(pts, fill=th.accent, width=6, joint="curve")
    r = 8 if n <= 30 else 6 if n <= 80 else 0
    for px, py in pts[1:] if r else pts[-1:]:
        rr = r or 8
        ld.ellipse((px - rr, py - rr, px + rr, py + rr), fill=th.accent)
    layer = layer.resize((ow, oh), Image.Resampling.BOX)
    img.paste(layer.convert("RGB"), (ox, oy), layer)
    # the final value right of the last point, clear of the line (which is all left of it)
    draw_text(img, (X(n) + 9, Y(last)), signed(last), FINAL_SIZE, _net_colour(th, last), anchor="lm")


def render_stats(scene: StatsScene, theme: str | Theme = "dark", lang: str = "zh") -> bytes:
    """PNG bytes of a player's stats card (see :class:`StatsScene`)."""
    return encode(draw_stats(scene, theme, lang), theme)
