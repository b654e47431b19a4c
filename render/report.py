"""The weekly report (战报) image: the week's top players and its records (biggest hand, most 交, most 番 / 子).

A pure function of :class:`ReportScene` (texts already in the reader's language: the cog has the words) to PNG
bytes, safe to call in a thread. Width 760 px like the leaderboard, so it reads on a phone (~400 px) at the same
scale.

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

WIDTH = 760
TOP = 5  # players shown
_ROW = 46
_MEDALS = ((236, 190, 60), (190, 198, 208), (205, 133, 80))


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
    rec_rows = (len(records) + 1) // 2
    height = 110 + 40 + max(1, len(lines)) * _ROW + 20 + rec_rows * 86 + 24
    img = Image.new("RGB", (WIDTH, height), th.bg)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((6, 6, WIDTH - 7, height - 7), radius=16, fill=th.panel)
    d.rounded_rectangle((6, 6, WIDTH - 7, 96), radius=16, fill=th.felt)
    draw_text(img, (28, 18), scene.title, 30, (255, 255, 255), max_width=WIDTH - 56)
    draw_text(img, (28, 60), f"{scene.week} · {scene.count}", 18, (225, 235, 228), bold=False,
              max_width=WIDTH - 56)
    y = 110
    draw_text(img, (28, y), scene.top_label, 19, th.accent)
    if lines and scene.wins_label:
        draw_text(img, (WIDTH - 34, y + 3), scene.wins_label, 15, th.subtext, anchor="ra", bold=False)
    y += 40
    if not lines:
        draw_text(img, (WIDTH / 2, y + _ROW / 2), scene.empty, 20, th.subtext, anchor="mm", max_width=WIDTH - 60)
        y += _ROW
    for i, line in enumerate(lines):
        cy = y + _ROW / 2
        if i % 2 == 1:
            d.rounded_rectangle((18, y + 3, WIDTH - 18, y + _ROW - 3), radius=10, fill=th.panel_hi)
        if line.rank <= 3:
            d.ellipse((52 - 14, cy - 14, 52 + 14, cy + 14), fill=_MEDALS[line.rank - 1])
            draw_text(img, (52, cy), str(line.rank), 16, (40, 32, 20), anchor="mm")
        else:
            draw_text(img, (52, cy), str(line.rank), 17, th.subtext, anchor="mm")
        draw_text(img, (88, cy), line.name, 20, th.text, anchor="lm", max_width=330)
        colour = th.plus if line.net > 0 else th.minus if line.net < 0 else th.subtext
        draw_text(img, (560, cy), f"{signed(line.net)} 子", 21, colour, anchor="rm")
        draw_text(img, (WIDTH - 34, cy), f"{line.wins}/{line.hands}", 17, th.subtext, anchor="rm", bold=False)
        y += _ROW
    y += 20
    box_w = (WIDTH - 28 * 2 - 16) // 2
    for k, (name, value) in enumerate(records):
        x = 28 + (k % 2) * (box_w + 16)
        top = y + (k // 2) * 86
        d.rounded_rectangle((x, top, x + box_w, top + 74), radius=12, fill=th.panel_hi, outline=th.grid)
        draw_text(img, (x + 16, top + 10), name, 15, th.subtext, bold=False, max_width=box_w - 32)
        draw_text(img, (x + 16, top + 36), value, 21, th.text, max_width=box_w - 32)
    return img


def render_report(scene: ReportScene, theme: str | Theme = "dark") -> bytes:
    """PNG bytes of the weekly report (see :class:`ReportScene`)."""
    return encode(draw_report(scene, theme), theme)
