"""Themes, text drawing and PNG encoding shared by the images."""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from functools import lru_cache

from PIL import Image, ImageDraw

from text.catalog import text as txt
from text.hant import named as named  # (render's callers name it here)
from text.hant import to_hant
from text.lang import Lang, resolve

from . import fonts

RGB = tuple[int, int, int]


@dataclass(frozen=True)
class Theme:
    key: str
    bg: RGB
    panel: RGB
    panel_hi: RGB
    text: RGB
    subtext: RGB
    accent: RGB  # highlights, the turn marker, the last discard
    plus: RGB
    minus: RGB
    felt: RGB
    felt_line: RGB
    grid: RGB
    lines: tuple[RGB, RGB, RGB, RGB]  # one colour per seat (chart)


THEMES = {
    "dark": Theme(
        key="dark",
        bg=(49, 51, 56),
        panel=(43, 45, 49),
        panel_hi=(64, 66, 73),
        text=(230, 232, 235),
        subtext=(176, 181, 190),
        accent=(240, 178, 50),
        plus=(87, 200, 120),
        minus=(255, 145, 145),
        felt=(24, 82, 62),
        felt_line=(40, 110, 84),
        grid=(74, 77, 85),
        lines=((240, 178, 50), (88, 166, 255), (237, 104, 134), (110, 210, 160)),
    ),
    "light": Theme(
        key="light",
        bg=(242, 243, 245),
        panel=(255, 255, 255),
        panel_hi=(227, 229, 232),
        text=(32, 34, 37),
        subtext=(92, 94, 102),
        accent=(152, 82, 0),
        plus=(16, 112, 52),
        minus=(185, 30, 42),
        felt=(28, 98, 72),
        felt_line=(54, 130, 100),
        grid=(210, 212, 216),
        lines=((214, 135, 0), (30, 110, 220), (205, 50, 95), (20, 150, 100)),
    ),
}


def luminance(c: RGB) -> float:
    """The relative luminance of an sRGB colour (WCAG 2)."""

    def channel(v: int) -> float:
        x = v / 255
        return x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4

    r, g, b = c[:3]
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: RGB, b: RGB) -> float:
    """The WCAG contrast ratio of two colours, 1 to 21. Every text colour of both themes is at least 4.5 on what it
    is drawn on (tests/render/test_contrast.py measures it on the drawn images).

    >>> round(contrast((255, 255, 255), (0, 0, 0)), 1)
    21.0
    """
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


INK_DARK, INK_LIGHT = (28, 32, 48), (255, 255, 255)


def ink_on(bg: RGB) -> RGB:
    """The text colour for a label on a filled ``bg`` (a badge, the dealer's disc): dark ink or white, whichever
    reads better."""
    return INK_DARK if contrast(INK_DARK, bg) >= contrast(INK_LIGHT, bg) else INK_LIGHT


SHADE_ALPHA = 60  # the stats chart's green (gain) and red (loss) shading over the panel


def shades(th: Theme) -> tuple[RGB, RGB]:
    """The gain and loss shading of the stats chart as they come out on the panel (kept in the theme's palette,
    so the PNG keeps them green and red instead of the nearest grey)."""
    return _mix(th.panel, th.plus, SHADE_ALPHA / 255), _mix(th.panel, th.minus, SHADE_ALPHA / 255)


def theme_of(theme: str | Theme) -> Theme:
    """``"dark"`` (default) or ``"light"``; unknown names fall back to dark."""
    if isinstance(theme, Theme):
        return theme
    return THEMES.get(str(theme).lower(), THEMES["dark"])


def lang_of(lang: str | None) -> Lang:
    """``zh``, ``zh-TW`` or ``en`` (Discord locales accepted; :func:`text.lang.resolve`)."""
    return resolve(lang)


def given(caption: str, lang: str) -> str:
    """A caption the caller wrote (a scene's title, alarm names): in zh-TW any Simplified character in it is
    converted; other languages show it as given."""
    return to_hant(caption) if lang == "zh-TW" else caption


def wind_name(seat: int, lang: str) -> str:
    """The wind of a seat, short: E S W N / 东 南 西 北."""
    return txt(f"render.wind.{'ESWN'[seat]}", lang)


def seat_label(seat: int, lang: str) -> str:
    """The wind of a seat as a name: East ... / 东家 ..."""
    return txt(f"render.seat_name.{'ESWN'[seat]}", lang)


def seat_name(name: str, wind: int, lang: str) -> str:
    """A player's name as an image shows it: the seat's wind spelled out (South / 南家) when nothing of the name would
    show (spaces or invisible characters only, a script the fonts lack), so the seat is never blank or "???".

    >>> seat_name("Bob", 1, "en"), seat_name("\u3164", 1, "en"), seat_name("", 2, "zh")
    ('Bob', 'South', '西家')
    """
    return name if fonts.drawable(name) else seat_label(wind, lang)


def join_list(items, lang: str) -> str:
    """Items in a list the way the language separates them (``, `` / ``、``)."""
    return txt("render.list_sep", lang).join(items)


@lru_cache(maxsize=4096)
def text_mask(text: str, size: int, bold: bool = True) -> Image.Image:
    """An "L" mask of ``text`` (already cleaned) on its line box (ascender to descender); cached."""
    f = fonts.text_font(text, size, bold)
    ascent, descent = f.getmetrics()
    w = max(1, math.ceil(f.getlength(text)) + 2)
    mask = Image.new("L", (w, ascent + descent), 0)
    ImageDraw.Draw(mask).text((1, 0), text, font=f, fill=255)
    return mask


def draw_text(
    img: Image.Image,
    xy: tuple[float, float],
    text: str,
    size: int,
    fill,
    *,
    bold: bool = True,
    anchor: str = "la",
    max_width: int | None = None,
    middle: bool = False,
    min_size: int | None = None,
) -> int:
    """Draw ``text`` on ``img`` (cleaned; shrunk or shortened to fit ``max_width``); returns its width in px.

    ``anchor``: two letters, horizontal ``l``/``m``/``r`` and vertical ``a`` (top of the line) / ``m`` / ``d``
    (bottom of the line). ``min_size``: the smallest it shrinks to before it is shortened (default 70%, at least
    9 px); ``middle``: a text too long even shrunk is shortened in its middle, not at its end. Rendered text is
    cached, so repeated labels cost a paste."""
    if max_width is not None:
        smallest = min_size if min_size is not None else max(9, int(size * 0.7))
        text, f = fonts.fit(text, size, max_width, bold_=bold, min_size=smallest, middle=middle)
        size = int(f.size)
        bold = f.path == str(fonts.BOLD)
    else:
        text = fonts.clean(text)
    if not text:
        return 0
    mask = text_mask(text, size, bold)
    x, y = xy
    w, h = mask.size
    x -= {"l": 1, "m": w / 2, "r": w - 1}[anchor[0]]
    y -= {"a": 0, "m": h / 2, "d": h}.get(anchor[1], 0)
    img.paste(fill, (int(round(x)), int(round(y)), int(round(x)) + w, int(round(y)) + h), mask)
    return w - 2


def fit_names(build, names, size: int, width: int, *, min_size: int, bold: bool = True) -> tuple[str, int]:
    """``build(names)`` (a line that names players) at the largest size from ``size`` down to ``min_size`` at which
    it fits ``width`` px; past that, at ``min_size``, the longest names (only they) shortened with "…" until the line
    fits: a name gives way, never the words around it (who won, how, the action). Returns the line and its size.

    >>> line, size = fit_names(lambda ns: f"{ns[0]} wins · on {ns[1]}'s discard", ["Bob", "C" * 40], 24, 300,
    ...                        min_size=18)
    >>> size, line.endswith("…'s discard"), line.startswith("Bob wins · on CCC")
    (18, True, True)
    """
    names = [fonts.clean(n) for n in names]
    text = fonts.clean(build(names))
    for s in range(size, min_size - 1, -1):
        if fonts.text_font(text, s, bold).getlength(text) <= width:
            return text, s
    for n in range(max((len(x) for x in names), default=0) - 1, 0, -1):
        text = fonts.clean(build([x if len(x) <= n else x[:n].rstrip() + "…" for x in names]))
        if fonts.text_font(text, min_size, bold).getlength(text) <= width:
            return text, min_size
    return text, min_size  # (the words alone are wider than the line: draw_text shrinks or shortens them)


def paste(canvas: Image.Image, sprite: Image.Image, xy: tuple[float, float]) -> None:
    canvas.paste(sprite, (int(xy[0]), int(xy[1])), sprite)


def _mix(a, b, t: float) -> RGB:
    return tuple(int(round(x + (y - x) * t)) for x, y in zip(a, b, strict=True))  # type: ignore[return-value]  # RGB in, RGB out


PALETTE_SIZE = 160
"""Colours in a theme's PNG palette. Fewer colours make smaller files (fewer distinct values along every antialiased
edge); 160 keeps text edges and the tile faces as they were (see :func:`palette_for`) for 15-17% fewer bytes than
256."""

ON_FELT = ((255, 255, 255), (150, 240, 170), (255, 190, 182))  # names, gains and payments drawn on the table's felt
MARKS_ON_FELT = ((240, 178, 50), (110, 180, 255))
"""The frames drawn on the table's felt, the same in both themes (the felt is green in both): the last discard's
(gold) and the tiles laid aside in the last tiles' (blue). The light theme's accent and blue are made for its light
panels and read at 1.2-1.5:1 on the felt; these stay at least 3:1 on it (tests/render/test_contrast.py)."""


def _ramp_pairs(th: Theme) -> list[tuple[RGB, RGB]]:
    """The (background, text colour) pairs that text and lines are drawn with, whose antialiasing gets a ramp."""
    pairs = [(th.felt, fg) for fg in (*ON_FELT, *MARKS_ON_FELT, th.accent)]
    for fg in (th.text, th.subtext, th.accent, th.plus, th.minus, *th.lines):
        pairs += [(bg, fg) for bg in (th.bg, th.panel)]
    pairs += [(th.panel_hi, fg) for fg in (th.text, th.subtext)]
    return pairs


@lru_cache(maxsize=4)
def palette_for(theme_key: str) -> Image.Image:
    """A fixed :data:`PALETTE_SIZE`-colour palette for a theme, built once: the theme's colours, the tile colours,
    antialiasing ramps between each text colour and the backgrounds it is drawn on, and the rest for the tile
    sprites, chosen by maximum coverage over an atlas of every face and back on each background (claimed discards
    under the table's veil too), so the few colours that cover most of a face are kept exactly and the rare
    antialiasing shades fall onto them. Mapping each image onto it costs well under a millisecond, against ~10 ms
    for an adaptive quantisation."""
    from .tiles import BACK, BACK_DARK, BACK_GREEN, BLUE, GREEN, INK, IVORY, IVORY_EDGE, RED, tile_sprite

    th = THEMES[theme_key]
    colors: list[RGB] = []

    def add(c):
        if c not in colors and len(colors) < PALETTE_SIZE:
            colors.append(c)

    for c in [th.bg, th.panel, th.panel_hi, th.felt, th.text, th.subtext, th.accent, th.plus, th.minus, *th.lines,
              *ON_FELT, *MARKS_ON_FELT, *shades(th), th.felt_line, th.grid, (0, 0, 0), RED, GREEN, BLUE, INK, IVORY, IVORY_EDGE, BACK_GREEN,
              BACK_DARK]:
        add(c)
    for bg, fg in _ramp_pairs(th):
        for t in (0.33, 0.67):
            add(_mix(bg, fg, t))
    # the tiles on each background, and dimmed under the felt veil of a claimed discard
    kinds = [*range(34), BACK]
    atlas = Image.new("RGB", (len(kinds) * 50, 4 * 70), th.bg)
    for row, bg in enumerate((th.bg, th.felt, th.panel, th.felt)):
        atlas.paste(bg, (0, row * 70, atlas.width, row * 70 + 70))
        for i, k in enumerate(kinds):
            s = tile_sprite(k, 44 if row < 3 else 24)
            atlas.paste(s, (i * 50 + 2, row * 70 + 2), s)
            if row == 3:
                atlas.paste(bg, (i * 50 + 2, row * 70 + 2, i * 50 + 26, row * 70 + s.height - 2),
                            Image.new("L", (24, s.height - 4), 150))
    room = PALETTE_SIZE - len(colors)
    q = atlas.quantize(colors=room, method=Image.Quantize.MAXCOVERAGE, dither=Image.Dither.NONE)
    flat = (q.getpalette() or [])[: 3 * room]
    for i in range(0, len(flat), 3):
        add(tuple(flat[i : i + 3]))
    pal = Image.new("P", (1, 1))
    pal.putpalette([v for c in colors for v in c])  # only these: the PNG's PLTE chunk lists no unused entries
    return pal


COMPRESS_LEVEL = 6
"""zlib level of the PNGs: 6 makes them 10-12% smaller than 3 for 1-3 ms more per image (9 saves 4% more for 5-10
times the time). Every image the bot posts is uploaded, and the table's is uploaded after almost every move."""


def encode(img: Image.Image, theme: str | Theme = "dark") -> bytes:
    """PNG bytes of ``img`` mapped onto the theme's fixed palette (no dithering): small and fast."""
    key = theme_of(theme).key
    q = img.quantize(palette=palette_for(key), dither=Image.Dither.NONE)
    buf = io.BytesIO()
    q.save(buf, format="PNG", compress_level=COMPRESS_LEVEL)
    return buf.getvalue()


def dice_face(draw: ImageDraw.ImageDraw, x: float, y: float, size: float, value: int) -> None:
    """A die showing ``value`` (1-6): ivory with dark pips, the 1 and 4 pips red as on Chinese dice."""
    draw.rounded_rectangle((x, y, x + size, y + size), radius=size * 0.18, fill=(244, 244, 246), outline=(150, 150, 160))
    pos = {
        1: [(0.5, 0.5)],
        2: [(0.28, 0.28), (0.72, 0.72)],
        3: [(0.25, 0.25), (0.5, 0.5), (0.75, 0.75)],
        4: [(0.28, 0.28), (0.72, 0.28), (0.28, 0.72), (0.72, 0.72)],
        5: [(0.25, 0.25), (0.75, 0.25), (0.5, 0.5), (0.25, 0.75), (0.75, 0.75)],
        6: [(0.28, 0.22), (0.72, 0.22), (0.28, 0.5), (0.72, 0.5), (0.28, 0.78), (0.72, 0.78)],
    }.get(value, [])
    red = value in (1, 4)
    r = size * (0.15 if value == 1 else 0.09)
    for px, py in pos:
        cx, cy = x + px * size, y + py * size
        draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(200, 30, 40) if red else (30, 30, 40))
