"""The public table: one band per seat (name, wind, dealer, 子 total, alarms, hidden tiles as backs with their count,
melds, river in order with the last discard marked), under a header with the wall count, the dice and whose turn.

Nothing concealed is ever drawn face up: the scene has no concealed tiles, only their count.
"""

from __future__ import annotations

import math

from PIL import Image, ImageDraw

from .common import Theme, dice_face, draw_text, encode, lang_of, paste, theme_of, tr, wind_name
from .hand import meld_layout
from .scene import SeatScene, TableScene
from .tiles import BACK, tile_size, tile_sprite

WIDTH = 760
INFO_W = 206
RIVER_W = 32  # tile width in rivers and melds
RIVER_PER_ROW = 16
BACK_W = 22
FELT_PLUS = (150, 240, 170)
FELT_MINUS = (255, 160, 150)


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


def _row_height(seat: SeatScene, seat_i: int) -> tuple[int, int]:
    """(height of the melds line incl. headroom, 0 without melds; number of river rows)."""
    _, th = tile_size(RIVER_W)
    head = 0
    for m in seat.melds:
        placed, _ = meld_layout(m, seat_i, RIVER_W, 0)
        head = max(head, -min(p.y for p in placed) - th)
    rows = max(1, math.ceil(len(seat.river) / RIVER_PER_ROW))
    return (th + head + 8 if seat.melds else 0), rows


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
    margin, pad = 12, 10
    _, rth = tile_size(RIVER_W)
    river_pitch_y = rth + 4
    header_h = 58
    rows = [(s, *_row_height(scene.seats[s], s)) for s in seat_order(scene)]
    band_hs = [pad + mh + nr * river_pitch_y + pad for _, mh, nr in rows]
    band_hs = [max(h, 170 if scene.seats[s].alarms else 140) for h, (s, _, _) in zip(band_hs, rows, strict=True)]
    H = margin + header_h + sum(band_hs) + 8 * 4 + margin
    img = Image.new("RGB", (WIDTH, H), th.bg)
    d = ImageDraw.Draw(img)

    # header: title, turn, dice, wall
    d.rounded_rectangle((margin, margin, WIDTH - margin, margin + header_h - 8), radius=10, fill=th.panel)
    cy = margin + (header_h - 8) / 2
    x = margin + 14
    if scene.title:
        x += draw_text(img, (x, cy), tr(lang, scene.title, scene.title), 22, th.text, anchor="lm", max_width=240) + 18
    if scene.turn is not None:
        who = scene.seats[scene.turn].name
        tw = wind_name(_wind(scene, scene.turn), lang)
        draw_text(img, (x, cy), tr(lang, f"轮到 {tw} {who}", f"Turn: {tw} {who}"),
                  18, th.accent, anchor="lm", max_width=190)
    rx = WIDTH - margin - 14
    wall = tr(lang, f"余牌 {scene.wall}", f"Wall {scene.wall}")
    w = draw_text(img, (rx, cy), wall, 20, th.text, anchor="rm")
    rx -= w + 12
    bw = BACK_W
    back = tile_sprite(BACK, bw)
    paste(img, back, (rx - back.width, cy - back.height / 2))
    rx -= back.width + 22
    ds = 30
    for v in reversed(scene.dice):
        rx -= ds
        dice_face(d, rx, cy - ds / 2, ds, v)
        rx -= 8

    y = margin + header_h
    for (s, mh, _), bh in zip(rows, band_hs, strict=True):
        seat = scene.seats[s]
        turn = scene.turn == s
        d.rounded_rectangle((margin, y, WIDTH - margin, y + bh), radius=12, fill=th.felt,
                            outline=th.accent if turn else th.felt_line, width=3 if turn else 1)
        _draw_info(img, d, th, lang, scene, s, seat, margin + 14, y + pad, INFO_W - 24)
        _draw_tiles(img, d, th, scene, s, seat, margin + INFO_W, y + pad, mh, river_pitch_y)
        y += bh + 8
    return img


def _draw_info(img, d, th: Theme, lang: str, scene: TableScene, s: int, seat: SeatScene, x: int, y: int, w: int):
    wind = _wind(scene, s)
    r = 18
    dealer = scene.dealer == s
    d.ellipse((x, y, x + 2 * r, y + 2 * r), fill=th.accent if dealer else (236, 240, 238))
    draw_text(img, (x + r, y + r), wind_name(wind, lang), 21, (28, 32, 48), anchor="mm")
    nx = x + 2 * r + 9
    name = seat.name + (" · AI" if seat.bot else "")
    draw_text(img, (nx, y + r), name, 20, (255, 255, 255), anchor="lm", max_width=w - (nx - x))
    # score and tags
    yy = y + 2 * r + 8
    score = f"{seat.score:+d}" if seat.score else "0"
    # on the felt, whatever the theme: light green / light red
    colour = FELT_PLUS if seat.score > 0 else FELT_MINUS if seat.score < 0 else (255, 255, 255)
    tx = x + draw_text(img, (x, yy), score, 24, colour)
    tx += draw_text(img, (tx + 5, yy + 7), tr(lang, "子", "zi"), 15, (210, 225, 215), bold=False) + 14
    ty = yy + 6
    if dealer:
        tx += _badge(img, d, tx, ty, tr(lang, "庄", "Dealer"), 14, (196, 30, 42), (255, 255, 255)) + 6
    if scene.turn == s:
        _badge(img, d, tx, ty, tr(lang, "出牌", "to play"), 14, th.accent, (28, 32, 48))
    # hidden tiles: a fanned row of backs and the count
    yy += 40
    back = tile_sprite(BACK, BACK_W)
    n = seat.concealed_count
    for i in range(min(n, 14)):
        paste(img, back, (x + i * 6, yy))
    bx = x + (min(n, 14) * 6 + back.width - 6 + 6 if n else 0)
    draw_text(img, (bx, yy + back.height / 2), f"×{n}", 18, (255, 255, 255), anchor="lm")
    yy += back.height + 8
    if seat.alarms:
        label = tr(lang, "报警", "Alarm") + ": " + "、".join(tr(lang, a, a) for a in seat.alarms)
        _alarm(img, d, x, yy, label, w)


def _alarm(img, d, x, y, text, w):
    from . import fonts

    text, f = fonts.fit(text, 15, w - 12, min_size=11)
    tw = int(f.getlength(text))
    d.rounded_rectangle((x, y, x + tw + 12, y + 24), radius=6, fill=(196, 30, 42))
    draw_text(img, (x + 6, y + 12), text, f.size, (255, 255, 255), anchor="lm")


def _draw_tiles(img, d, th: Theme, scene: TableScene, s: int, seat: SeatScene, x0: int, y0: int, mh: int,
                pitch_y: int):
    rw, rth = tile_size(RIVER_W)
    base = y0 + mh - 8
    x = x0
    for m in seat.melds:
        placed, w = meld_layout(m, s, RIVER_W, 0)
        for p in placed:
            paste(img, tile_sprite(p.kind, RIVER_W, p.sideways), (x + p.x, base + p.y))
        x += w + 12
    # river
    ry = y0 + mh
    last = scene.last_discard
    for i, k in enumerate(seat.river):
        col, row = i % RIVER_PER_ROW, i // RIVER_PER_ROW
        px, py = x0 + col * (RIVER_W + 1), ry + row * pitch_y
        paste(img, tile_sprite(k, RIVER_W), (px, py))
        if i in seat.taken:
            veil = Image.new("RGB", (RIVER_W, rth - 4), th.felt)
            img.paste(veil, (px, py), Image.new("L", veil.size, 150))
        if last is not None and last == (s, i):
            d.rounded_rectangle((px - 3, py - 3, px + rw + 1, py + rth + 1), radius=5, outline=th.accent, width=3)
            d.polygon([(px + RIVER_W / 2 - 6, py - 11), (px + RIVER_W / 2 + 6, py - 11), (px + RIVER_W / 2, py - 4)],
                      fill=th.accent)


def render_table(scene: TableScene, theme: str | Theme = "dark", lang: str = "zh") -> bytes:
    """PNG bytes of the public table (see :class:`render.scene.TableScene`)."""
    return encode(draw_table(scene, theme, lang), theme)
