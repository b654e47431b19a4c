"""The weekly report (战报) image: the week's top players and its records (biggest hand, most 交, most 番 / 子).

A pure function of :class:`ReportScene` (texts already in the reader's language: the cog has the words) to PNG
bytes, safe to call in a thread. 480 px wide like the leaderboard, so a phone (~400 px) shows it at 83% and its
smallest text (15 px) reads as 12.5 px; the records are one per line, so a long one keeps its size.

>>> scene = ReportScene("本周战报", "11月23日 – 11月29日", "共 12 局", "本周排名",
...                     (ReportLine(1, "小明", 35, 12, 4),), (("最大一手", "小明 · 30 子"),))
>>> render_report(scene)[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from .board import signed
from .common import Theme, draw_text, encode, theme_of

WIDTH = 480  # a phone shows images about 400 px wide: 20 px names read as 17 px
TOP = 5  # players shown
_ROW = 46
_HEAD = 92  # the felt band with the title and the week
_REC = 72  # a record's box, one per line
_MEDALS = ((236, 190, 60), (190, 198, 208), (205, 133, 80))
X_RANK, X_NAME = 36, 62  # as the leaderboard's columns
NET_MAX = 130  # the widest a net is drawn; the name takes what it leaves
NAME_GAP = 12


@dataclass(frozen=True)
class ReportLine:
    rank: int
    name: str
    net: int
    hands: int
    wins: int


@dataclass(frozen=True)
class ReportScene:
    """``title`` and ``week`` head the card, ``count`` (e.g. "12 hands") beside the week; ``top_label`` heads the
    ranking ``lines`` (the first :data:`TOP` are drawn); ``records`` are (label, value) pairs drawn as tiles."""

    title: str
    week: str
    count: str
    top_label: str
    lines: tuple[ReportLine, ...]
    records: tuple[tuple[str, str], ...]
    empty: str = ""
    wins_label: str = ""  # heads the wins/hands column, e.g. "和/局"


def draw_report(scene: ReportScene, theme: str | Theme = "dark") -> Image.Image:
    th = theme_of(theme)
    lines = scene.lines[:TOP]
    records = scene.records
    height = _HEAD + 14 + 34 + max(1, len(lines)) * _ROW + 16 + len(records) * (_REC + 8) + 16
    w = WIDTH
    img = Image.new("RGB", (w, height), th.bg)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((6, 6, w - 7, height - 7), radius=16, fill=th.panel)
    d.rounded_rectangle((6, 6, w - 7, _HEAD), radius=16, fill=th.felt)
    draw_text(img, (20, 16), scene.title, 26, (255, 255, 255), max_width=w - 40)
    draw_text(img, (20, 56), f"{scene.week} · {scene.count}", 17, (225, 235, 228), bold=False, max_width=w - 40)
    y = _HEAD + 14
    x_wins = w - 22  # the wins/hands column's right edge
    wins_w = 0
    if lines and scene.wins_label:
        wins_w = draw_text(img, (x_wins, y + 3), scene.wins_label, 15, th.subtext, anchor="ra", bold=False,
                           max_width=90)
    draw_text(img, (20, y), scene.top_label, 19, th.accent, max_width=w - 40 - wins_w - 12)
    y += 34
    if not lines:
        draw_text(img, (w / 2, y + _ROW / 2), scene.empty, 20, th.subtext, anchor="mm", max_width=w - 40)
        y += _ROW
    counts = [f"{line.wins}/{line.hands}" for line in lines]
    from . import fonts

    col_w = max([wins_w, *(fonts.text_font(c, 18, False).getlength(c) for c in counts)])
    x_net = x_wins - int(col_w) - 16  # the net column's right edge
    for i, (line, count) in enumerate(zip(lines, counts, strict=True)):
        cy = y + _ROW / 2
        if i % 2 == 1:
            d.rounded_rectangle((12, y + 3, w - 12, y + _ROW - 3), radius=10, fill=th.panel_hi)
        if line.rank <= 3:
            d.ellipse((X_RANK - 14, cy - 14, X_RANK + 14, cy + 14), fill=_MEDALS[line.rank - 1])
            draw_text(img, (X_RANK, cy), str(line.rank), 17, (40, 32, 20), anchor="mm")
        else:
            draw_text(img, (X_RANK, cy), str(line.rank), 18, th.subtext, anchor="mm")
        colour = th.plus if line.net > 0 else th.minus if line.net < 0 else th.subtext
        net_w = draw_text(img, (x_net, cy), f"{signed(line.net)} 子", 20, colour, anchor="rm", max_width=NET_MAX)
        draw_text(img, (X_NAME, cy), line.name, 19, th.text, anchor="lm", max_width=x_net - net_w - NAME_GAP - X_NAME)
        draw_text(img, (x_wins, cy), count, 18, th.subtext, anchor="rm", bold=False)
        y += _ROW
    y += 16
    for name, value in records:
        d.rounded_rectangle((16, y, w - 16, y + _REC), radius=12, fill=th.panel_hi, outline=th.grid)
        draw_text(img, (30, y + 9), name, 16, th.subtext, bold=False, max_width=w - 60)
        draw_text(img, (30, y + 35), value, 20, th.text, max_width=w - 60)
        y += _REC + 8
    return img


def render_report(scene: ReportScene, theme: str | Theme = "dark") -> bytes:
    """PNG bytes of the weekly report (see :class:`ReportScene`)."""
    return encode(draw_report(scene, theme), theme)
