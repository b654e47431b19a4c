"""The public table: one band per seat (a line with the wind, name, 子 total, dealer and turn tags and the hidden tiles as
backs with their count; alarms; melds; the river in order with the last discard marked), under a header with the
title, the dice, the wall count and whose turn. Laid out for a phone: 400 px wide (a phone shows it at its own size),
the rivers over the full width.

Nothing concealed is ever drawn face up: the scene has no concealed tiles, only their count.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from PIL import Image, ImageDraw

from text.width import colon

from .common import (
    MARKS_ON_FELT,
    ON_FELT,
    Theme,
    dice_face,
    draw_text,
    encode,
    given,
    ink_on,
    lang_of,
    paste,
    theme_of,
    txt,
    wind_name,
)
from .hand import PHONE_WIDTH, MeldBox, meld_layout, shown_px
from .scene import SeatScene, TableScene
from .tiles import BACK, tile_size, tile_sprite

WIDTH = 400
"""The table image's width: what a phone shows, so it shows the image at its own size and river tiles
(:data:`RIVER_W`) 24 px wide, and no pixel is uploaded that the phone would scale away (at 480 px wide, shown at
83%, the image was a third larger for the same look)."""
MARGIN = 6
PAD = 6  # inside a seat's band
RIVER_W = 24  # tile width in rivers and melds
RIVER_PER_ROW = 15
BACK_W = 15
BACK_STEP = 4  # the fan of hidden tiles
INFO_H = 29  # the seat's line: wind, name, 子, tags, hidden tiles
ALARM_H = 24  # the first line of the alarm banner
ALARM_LINE = 22  # each further line (alarms wrap: every alarm's whole name is shown)
ALARM_SIZE = 13
HEADER_H = 56
BAND_GAP = 5
MELD_GAP = 8
FELT_PLUS, FELT_MINUS = ON_FELT[1], ON_FELT[2]
LAST_DISCARD_FRAME, LAID_ASIDE_FRAME = MARKS_ON_FELT


def seat_order(scene: TableScene) -> list[int]:
    """Seats top to bottom: the viewer last (nearest the hand image posted under it), else E S W N.

    >>> from render.scene import SeatScene, TableScene
    >>> seats = tuple(SeatScene(n) for n in "ABCD")
    >>> seat_order(TableScene(seats)), seat_order(TableScene(seats, viewer=1))
    ([0, 1, 2, 3], [2, 3, 0, 1])
    """
    if scene.viewer is None:
        return [0, 1, 2, 3]
    return [(scene.viewer + i) % 4 for i in (1, 2, 3, 4)]


def _wind(scene: TableScene, s: int) -> int:
    w = scene.seats[s].wind
    return s if w is None else w


@dataclass(frozen=True)
class RiverTile:
    index: int  # in the seat's river
    kind: int
    x: int
    y: int  # top of the sprite


@dataclass(frozen=True)
class Band:
    """One seat's band: its box (``y``, ``height``), where its info line, melds and river tiles go."""

    seat: int
    y: int
    height: int
    info_y: int
    alarm_y: int | None
    melds: tuple[MeldBox, ...]
    river: tuple[RiverTile, ...]
    alarms: tuple[str, ...] = ()  # the alarm banner's lines, as drawn


@dataclass(frozen=True)
class TableLayout:
    """The geometry of the table image: its size, the river/meld tile width and each seat's band, top to bottom."""

    width: int
    height: int
    river_w: int
    bands: tuple[Band, ...]

    def shown_river_tile(self, display_width: int = PHONE_WIDTH) -> float:
        """A river (and meld) tile's width as a phone shows it (the image scaled to ``display_width``)."""
        return shown_px(self.river_w, self.width, display_width)


def alarm_lines(alarms: Sequence[str], lang: str = "zh", width: int = WIDTH - 2 * MARGIN - 2 * PAD) -> list[str]:
    """The alarm banner's lines: "Alarm: " and the alarms joined the language's way (", " / "、"), wrapped between
    alarms so that every alarm's whole name shows (one alone too wide for a line is shrunk to 11 px, and only then
    shortened).

    >>> alarm_lines(["3 pungs of one suit (清一色 alarm)", "2 kongs of one suit (双八支 alarm)"], "en")
    ['Alarm: 3 pungs of one suit (清一色 alarm),', '2 kongs of one suit (双八支 alarm)']
    >>> alarm_lines(["清一色", "双八支"], "zh")
    ['报警：清一色、双八支']
    """
    from . import fonts

    room = width - 10  # the badge's padding
    sep = txt("render.list_sep", lang)
    glue, space = sep.rstrip(), sep[len(sep.rstrip()):]  # ", ": the comma ends a line, the space starts none
    names = [fonts.clean(given(a, lang)) for a in alarms]
    lines: list[str] = []
    cur, bare = txt("render.table.alarm", lang) + colon(lang), True  # (bare: the label alone so far)
    for i, name in enumerate(names):
        piece = name + (glue if i < len(names) - 1 else "")
        cand = cur + piece if bare else cur + space + piece
        if bare or fonts.text_font(cand, ALARM_SIZE).getlength(cand) <= room:
            cur, bare = cand, False
        else:
            lines.append(cur)
            cur = piece
    lines.append(cur)
    return lines


def table_layout(scene: TableScene, lang: str = "zh") -> TableLayout:
    """Where each seat's band, melds and river tiles go. Rivers run in rows of :data:`RIVER_PER_ROW` under the
    seat's melds (which wrap when four kongs do not fit one line), over the whole width of the image.

    >>> from render.samples import table_scene
    >>> lay = table_layout(table_scene())
    >>> lay.width, round(lay.shown_river_tile(), 1)
    (400, 24)
    """
    rw = RIVER_W
    _, rth = tile_size(rw)
    pitch_x, pitch_y = rw + 1, rth + 4
    inner = WIDTH - 2 * MARGIN - 2 * PAD
    x0 = MARGIN + PAD
    bands = []
    y = MARGIN + HEADER_H
    for s in seat_order(scene):
        seat = scene.seats[s]
        yy = y + PAD
        info_y = yy
        yy += INFO_H
        alarm_y = None
        alarms: tuple[str, ...] = ()
        if seat.alarms:
            alarm_y = yy
            alarms = tuple(alarm_lines(seat.alarms, lang, inner))
            yy += ALARM_H + ALARM_LINE * (len(alarms) - 1)
        # melds, wrapping
        melds: list[MeldBox] = []
        rows: list[list] = []
        for m in seat.melds:
            placed, w = meld_layout(m, s, rw, 0)
            part = (m, tuple(placed), w)
            if rows and sum(p[2] for p in rows[-1]) + MELD_GAP * len(rows[-1]) + w <= inner:
                rows[-1].append(part)
            else:
                rows.append([part])
        for row in rows:
            base = yy + max(-min(p.y for p in placed) for _, placed, _ in row)
            x = x0
            for m, placed, w in row:
                melds.append(MeldBox(m, x, base, w, placed))
                x += w + MELD_GAP
            yy = base + 5
        # the river (at least one row, so a band keeps its height from the first discard on)
        river = tuple(RiverTile(i, k, x0 + (i % RIVER_PER_ROW) * pitch_x, yy + 2 + (i // RIVER_PER_ROW) * pitch_y)
                      for i, k in enumerate(seat.river))
        yy += 2 + max(1, -(-len(seat.river) // RIVER_PER_ROW)) * pitch_y
        h = yy - y + PAD - 4
        bands.append(Band(s, y, h, info_y, alarm_y, tuple(melds), river, alarms))
        y += h + BAND_GAP
    return TableLayout(WIDTH, y - BAND_GAP + MARGIN, rw, tuple(bands))


def _badge(img: Image.Image, d: ImageDraw.ImageDraw, x: float, y: float, text: str, size: int, bg, fg) -> int:
    """A rounded tag; returns its width."""
    from . import fonts

    f = fonts.text_font(text, size)
    w = int(f.getlength(fonts.clean(text))) + size
    h = int(size * 1.45)
    d.rounded_rectangle((x, y, x + w, y + h), radius=h // 3, fill=bg)
    draw_text(img, (x + w / 2, y + h / 2), text, size, fg, anchor="mm")
    return w


def draw_table(scene: TableScene, theme: str | Theme = "dark", lang: str = "zh") -> Image.Image:
    th = theme_of(theme)
    lang = lang_of(lang)
    lay = table_layout(scene, lang)
    W = lay.width
    img = Image.new("RGB", (W, lay.height), th.bg)
    d = ImageDraw.Draw(img)

    # header: title and the dice and wall on the first line, whose turn on the second
    d.rounded_rectangle((MARGIN, MARGIN, W - MARGIN, MARGIN + HEADER_H - BAND_GAP), radius=9, fill=th.panel)
    cy = MARGIN + 16
    rx = W - MARGIN - 10
    wall = txt("render.table.wall", lang, n=scene.wall)
    rx -= draw_text(img, (rx, cy), wall, 16, th.text, anchor="rm") + 5
    back = tile_sprite(BACK, BACK_W)
    paste(img, back, (rx - back.width, cy - back.height / 2))
    rx -= back.width + 10
    ds = 20
    for v in reversed(scene.dice):
        rx -= ds
        dice_face(d, rx, cy - ds / 2, ds, v)
        rx -= 5
    x = MARGIN + 10
    if scene.title:
        draw_text(img, (x, cy), given(scene.title, lang), 16, th.text, anchor="lm",
                  max_width=rx - x - 8)
    right = W - MARGIN - 10
    if scene.last_tiles:  # the last tiles: no claims, tiles drawn are laid aside (framed in blue, as the tag)
        right -= _tag(img, d, right, cy + 20, txt("render.table.last_tiles", lang), last_tiles_colour(th), th.panel) + 8
    if scene.turn is not None:
        from .common import seat_name

        tw = wind_name(_wind(scene, scene.turn), lang)
        who = seat_name(scene.seats[scene.turn].name, _wind(scene, scene.turn), lang)
        draw_text(img, (x, cy + 20), txt("render.table.turn", lang, wind=tw, who=who), 14, th.accent, anchor="lm",
                  max_width=right - x)
    elif scene.claims:
        draw_text(img, (x, cy + 20), txt(f"render.table.{scene.claims}", lang), 14, th.accent, anchor="lm",
                  max_width=right - x)

    rw = lay.river_w
    sw, sth = tile_size(rw)
    for band in lay.bands:
        s = band.seat
        seat = scene.seats[s]
        turn = scene.turn == s
        d.rounded_rectangle((MARGIN, band.y, W - MARGIN, band.y + band.height), radius=10, fill=th.felt,
                            outline=th.accent if turn else th.felt_line, width=3 if turn else 1)
        _draw_info(img, d, th, lang, scene, s, seat, MARGIN + PAD, band.info_y, W - 2 * MARGIN - 2 * PAD)
        if band.alarm_y is not None:
            for i, label in enumerate(band.alarms):
                _alarm(img, d, MARGIN + PAD, band.alarm_y + i * ALARM_LINE, label, W - 2 * MARGIN - 2 * PAD)
        for mb in band.melds:
            for p in mb.placed:
                paste(img, tile_sprite(p.kind, rw, p.sideways), (mb.x + p.x, mb.base + p.y))
        last = scene.last_discard
        for t in band.river:
            paste(img, tile_sprite(t.kind, rw), (t.x, t.y))
            if t.index in seat.taken:
                veil = Image.new("RGB", (rw, sth - 4), th.felt)
                img.paste(veil, (t.x, t.y), Image.new("L", veil.size, 150))
            if t.index in seat.laid_aside:  # drawn in the last tiles and laid aside: framed in blue, as the tag
                d.rounded_rectangle((t.x - 2, t.y - 2, t.x + sw, t.y + sth - 2), radius=4, outline=LAID_ASIDE_FRAME,
                                    width=2)
            if last is not None and last == (s, t.index):
                d.rounded_rectangle((t.x - 2, t.y - 2, t.x + sw, t.y + sth), radius=4, outline=LAST_DISCARD_FRAME,
                                    width=2)
    return img


def _draw_info(img, d, th: Theme, lang: str, scene: TableScene, s: int, seat: SeatScene, x: int, y: int, w: int):
    """The seat's line: wind disc, name, 子 total, 庄 / 出牌 tags on the left; the hidden tiles on the right."""
    cy = y + INFO_H / 2 - 2
    r = 12
    dealer = scene.dealer == s
    d.ellipse((x, cy - r, x + 2 * r, cy + r), fill=th.accent if dealer else (236, 240, 238))
    disc = th.accent if dealer else (236, 240, 238)
    draw_text(img, (x + r, cy), wind_name(_wind(scene, s), lang), 14, ink_on(disc), anchor="mm")
    # hidden tiles on the right: a fan of backs and the count
    n = seat.concealed_count
    count = f"×{n}"
    right = x + w
    right -= draw_text(img, (right, cy), count, 15, (255, 255, 255), anchor="rm") + 3
    back = tile_sprite(BACK, BACK_W)
    shown = min(n, 14)
    if shown:
        fan_w = (shown - 1) * BACK_STEP + back.width
        for i in range(shown):
            paste(img, back, (right - fan_w + i * BACK_STEP, cy - back.height / 2))
        right -= fan_w
    # tags, then the score, then the name in what is left
    nx = x + 2 * r + 6
    tags = []
    if dealer:
        tags.append((txt("render.table.dealer", lang), (196, 30, 42), (255, 255, 255)))
    if scene.turn == s:
        tags.append((txt("render.table.to_play", lang), th.accent, ink_on(th.accent)))
    score = f"{seat.score:+d}" if seat.score else "0"
    colour = FELT_PLUS if seat.score > 0 else FELT_MINUS if seat.score < 0 else (255, 255, 255)
    from . import fonts
    from .common import fit_names, seat_name

    unit = txt("render.unit.zi", lang)
    score_w = int(fonts.text_font(score, 17).getlength(score)) + 3 + int(fonts.text_font(unit, 13, False).getlength(
        unit)) + 8
    tags_w = sum(int(fonts.text_font(t, 13).getlength(t)) + 13 + 4 for t, _, _ in tags)
    bold = fonts.bold_for(seat_name(o.name, _wind(scene, i), lang) for i, o in enumerate(scene.seats))  # all seats
    # a long name gives way to the AI mark, which always shows
    name, size = fit_names(lambda ns: ns[0] + (" · AI" if seat.bot else ""), [seat_name(seat.name, _wind(scene, s),
                           lang)], 15, max(34, right - nx - score_w - tags_w - 8), min_size=11, bold=bold)
    name_w = draw_text(img, (nx, cy), name, size, (255, 255, 255), anchor="lm", bold=bold,
                       max_width=max(34, right - nx - score_w - tags_w - 8))
    tx = nx + name_w + 8
    tx += draw_text(img, (tx, cy), score, 17, colour, anchor="lm") + 3
    tx += draw_text(img, (tx, cy + 2), unit, 13, (210, 225, 215), anchor="lm", bold=False) + 6
    for text, bg, fg in tags:
        tx += _badge(img, d, tx, cy - 9, text, 13, bg, fg) + 4


def last_tiles_colour(th: Theme):
    """The colour of the last tiles' tag in the header (the theme's blue; the tiles laid aside are framed on the felt
    in :data:`LAID_ASIDE_FRAME`, the same blue lighter, as the light theme's reads poorly on the felt)."""
    return th.lines[1]


def _tag(img, d, right: float, cy: float, text: str, colour, bg) -> int:
    """An outlined tag ending at ``right``, its text in ``colour``; returns its width."""
    h = 19
    tw = draw_text(img, (right - 7, cy), text, 13, colour, anchor="rm", max_width=200)
    d.rounded_rectangle((right - tw - 14, cy - h / 2, right, cy + h / 2), radius=5, outline=colour, width=1)
    return tw + 14


def _alarm(img, d, x, y, text, w):
    from . import fonts

    text, f = fonts.fit(text, ALARM_SIZE, w - 10, min_size=11)
    tw = int(f.getlength(text))
    d.rounded_rectangle((x, y, x + tw + 10, y + 19), radius=5, fill=(196, 30, 42))
    draw_text(img, (x + 5, y + 9.5), text, int(f.size), (255, 255, 255), anchor="lm")


def render_table(scene: TableScene, theme: str | Theme = "dark", lang: str = "zh") -> bytes:
    """PNG bytes of the public table (see :class:`render.scene.TableScene`)."""
    return encode(draw_table(scene, theme, lang), theme)
