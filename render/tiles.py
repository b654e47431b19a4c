"""Tile sprites, drawn by our own code (no art files): faces for kinds 0-33 and the back.

Each face is drawn once on a large master (``MASTER_W`` wide) and downsampled with Lanczos for antialiasing; sprites
are cached per (kind, width, orientation). A sprite is RGBA: a soft shadow, the green back layer and ivory body
showing under the face (the tile's thickness), and the face.

>>> s = tile_sprite(0, 40)
>>> s.mode, s.size == tile_size(40)
('RGBA', True)
"""

from __future__ import annotations

import math
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter

from engine.tiles import NUM_KINDS, is_honor, rank_of, suit_of

from . import fonts

BACK = -1  # the kind used for a tile seen from behind
MASTER_W = 240
MASTER_H = 320

INK = (28, 32, 48)
RED = (196, 30, 42)
GREEN = (18, 118, 72)
BLUE = (28, 66, 150)
IVORY = (250, 246, 234)
IVORY_EDGE = (226, 218, 196)
BACK_GREEN = (24, 112, 82)
BACK_DARK = (14, 78, 56)

_NUMERALS = "一二三四五六七八九"
_HONOR_GLYPHS = "東南西北白發中"


# ---------------------------------------------------------------------------------------------------------------
# geometry


def tile_size(width: int, sideways: bool = False) -> tuple[int, int]:
    """Size of a sprite for a tile ``width`` px wide (face, thickness and shadow included)."""
    w, h = width, round(width * MASTER_H / MASTER_W)
    depth, pad = _depth(width), _pad(width)
    if sideways:
        w, h = h, w
    return w + pad, h + depth + pad


def face_height(width: int) -> int:
    return round(width * MASTER_H / MASTER_W)


def _depth(width: int) -> int:
    return max(2, round(width * 0.09))


def _pad(width: int) -> int:
    return max(1, round(width * 0.05))


# ---------------------------------------------------------------------------------------------------------------
# face masters (transparent background, MASTER_W x MASTER_H)


def _glyph(draw: ImageDraw.ImageDraw, char: str, cx: float, cy: float, size: int, fill, stroke: int = 0) -> None:
    """Draw ``char`` centred on its ink box at (cx, cy)."""
    f = fonts.tile_face(size)
    x0, y0, x1, y1 = f.getbbox(char)
    draw.text((cx - (x0 + x1) / 2, cy - (y0 + y1) / 2), char, font=f, fill=fill, stroke_width=stroke, stroke_fill=fill)


def _circle(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float, color, bold: bool = False) -> None:
    """A 筒 coin: coloured ring, ivory gap, coloured disc, ivory dot and a dark centre. ``bold``: for small tiles,
    a solid coin with one thin ivory ring and a dot, which stays a coloured coin at 20 px instead of a pale blur."""
    def disc(rr, fill):
        draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=fill)

    disc(r, color)
    if bold:
        disc(r * 0.70, IVORY)
        disc(r * 0.56, color)
        disc(r * 0.2, IVORY)
        return
    disc(r * 0.80, IVORY)
    disc(r * 0.66, color)
    # petals: eight small ivory notches in the inner disc
    for i in range(8):
        a = i * math.pi / 4
        px, py = cx + math.cos(a) * r * 0.45, cy + math.sin(a) * r * 0.45
        rr = r * 0.09
        draw.ellipse((px - rr, py - rr, px + rr, py + rr), fill=IVORY)
    disc(r * 0.26, IVORY)
    disc(r * 0.14, color)


def _big_circle(draw: ImageDraw.ImageDraw, cx: float, cy: float, r: float) -> None:
    """The ornate 1筒."""
    def disc(rr, fill):
        draw.ellipse((cx - rr, cy - rr, cx + rr, cy + rr), fill=fill)

    disc(r, GREEN)
    disc(r * 0.90, IVORY)
    for i in range(16):  # a ring of small dots
        a = i * math.pi / 8
        px, py = cx + math.cos(a) * r * 0.78, cy + math.sin(a) * r * 0.78
        rr = r * 0.075
        draw.ellipse((px - rr, py - rr, px + rr, py + rr), fill=BLUE)
    disc(r * 0.64, RED)
    disc(r * 0.54, IVORY)
    disc(r * 0.46, BLUE)
    for i in range(8):
        a = i * math.pi / 4 + math.pi / 8
        px, py = cx + math.cos(a) * r * 0.31, cy + math.sin(a) * r * 0.31
        rr = r * 0.07
        draw.ellipse((px - rr, py - rr, px + rr, py + rr), fill=IVORY)
    disc(r * 0.18, RED)
    disc(r * 0.08, IVORY)


_PIN_LAYOUTS: dict[int, list[tuple[float, float, tuple[int, int, int]]]] = {
    2: [(0.5, 0.27, GREEN), (0.5, 0.73, BLUE)],
    3: [(0.24, 0.2, BLUE), (0.5, 0.5, RED), (0.76, 0.8, GREEN)],
    4: [(0.27, 0.28, BLUE), (0.73, 0.28, GREEN), (0.27, 0.72, GREEN), (0.73, 0.72, BLUE)],
    5: [(0.24, 0.2, BLUE), (0.76, 0.2, GREEN), (0.5, 0.5, RED), (0.24, 0.8, GREEN), (0.76, 0.8, BLUE)],
    6: [(0.27, 0.17, GREEN), (0.73, 0.17, GREEN)] + [(x, y, RED) for y in (0.55, 0.84) for x in (0.27, 0.73)],
    7: [(0.2, 0.12, GREEN), (0.5, 0.22, GREEN), (0.8, 0.32, GREEN)]
    + [(x, y, RED) for y in (0.6, 0.87) for x in (0.27, 0.73)],
    8: [(x, y, BLUE) for y in (0.12, 0.37, 0.63, 0.88) for x in (0.27, 0.73)],
    9: [(x, y, c) for y, c in ((0.17, BLUE), (0.5, RED), (0.83, GREEN)) for x in (0.18, 0.5, 0.82)],
}
_PIN_RADIUS = {2: 0.21, 3: 0.17, 4: 0.2, 5: 0.17, 6: 0.15, 7: 0.125, 8: 0.12, 9: 0.145}


def _stick(img: Image.Image, x0: float, y0: float, x1: float, y1: float, w: float, color, bold: bool = False) -> None:
    """A bamboo stick from (x0, y0) to (x1, y1): rounded body, a node band in the middle, ends and a highlight
    (``bold``: no highlight, so the stick stays a solid stroke on a small tile)."""
    length = math.hypot(x1 - x0, y1 - y0)
    s = Image.new("RGBA", (int(w + 4), int(length + 4)), (0, 0, 0, 0))
    d = ImageDraw.Draw(s)
    dark = tuple(max(0, int(c * 0.6)) for c in color)
    L = length
    d.rounded_rectangle((2, 2, w + 2, L + 2), radius=w * 0.45, fill=dark)
    d.rounded_rectangle((2 + w * 0.16, 2 + w * 0.1, w + 2 - w * 0.16, L + 2 - w * 0.1), radius=w * 0.35, fill=color)
    for yy in (2 + L * 0.5, 2 + w * 0.35, L + 2 - w * 0.35):  # nodes
        d.rectangle((2, yy - w * 0.12, w + 2, yy + w * 0.12), fill=dark)
    if not bold:
        d.line((2 + w * 0.5, 2 + w * 0.6, 2 + w * 0.5, 2 + L * 0.5 - w * 0.3), fill=IVORY, width=max(1, int(w * 0.14)))
        d.line((2 + w * 0.5, 2 + L * 0.5 + w * 0.3, 2 + w * 0.5, L + 2 - w * 0.6), fill=IVORY,
               width=max(1, int(w * 0.14)))
    angle = math.degrees(math.atan2(x1 - x0, y1 - y0))
    if abs(angle) > 0.01:
        s = s.rotate(-angle, resample=Image.Resampling.BICUBIC, expand=True)
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    img.alpha_composite(s, (int(cx - s.width / 2), int(cy - s.height / 2)))


def _sticks(img: Image.Image, rank: int, box: tuple[float, float, float, float], bold: bool = False) -> None:
    bx0, by0, bx1, by1 = box
    W, H = bx1 - bx0, by1 - by0
    thick = 1.2 if bold else 1.0

    def v(xf, yf0, yf1, color=GREEN, wf=0.13):
        _stick(img, bx0 + xf * W, by0 + yf0 * H, bx0 + xf * W, by0 + yf1 * H, min(wf * 1.55 * thick, 0.28) * W, color,
               bold)

    if rank == 2:
        v(0.5, 0.03, 0.47, GREEN, 0.16)
        v(0.5, 0.53, 0.97, BLUE, 0.16)
    elif rank == 3:
        v(0.5, 0.03, 0.47, GREEN, 0.15)
        for x in (0.28, 0.72):
            v(x, 0.53, 0.97, BLUE, 0.15)
    elif rank == 4:
        for x, c in ((0.28, GREEN), (0.72, BLUE)):
            v(x, 0.03, 0.47, c, 0.15)
        for x, c in ((0.28, BLUE), (0.72, GREEN)):
            v(x, 0.53, 0.97, c, 0.15)
    elif rank == 5:
        for x, c in ((0.2, GREEN), (0.8, BLUE)):
            v(x, 0.03, 0.47, c, 0.14)
            v(x, 0.53, 0.97, BLUE if c == GREEN else GREEN, 0.14)
        v(0.5, 0.27, 0.73, RED, 0.14)
    elif rank == 6:
        for y0, y1, c in ((0.03, 0.47, GREEN), (0.53, 0.97, BLUE)):
            for x in (0.18, 0.5, 0.82):
                v(x, y0, y1, c, 0.13)
    elif rank == 7:
        v(0.5, 0.02, 0.3, RED, 0.12)
        for y0, y1, c in ((0.35, 0.64, GREEN), (0.69, 0.98, BLUE)):
            for x in (0.18, 0.5, 0.82):
                v(x, y0, y1, c, 0.12)
    elif rank == 8:
        # upper half: \/ \/ ; lower half: /\ /\ (the classic M over W)
        for half, (ya, yb), c in ((0, (0.03, 0.47), GREEN), (1, (0.53, 0.97), BLUE)):
            for xa, xb in ((0.12, 0.34), (0.42, 0.2), (0.58, 0.8), (0.88, 0.66)):
                if half == 1:
                    xa, xb = xb, xa
                _stick(img, bx0 + xa * W, by0 + ya * H, bx0 + xb * W, by0 + yb * H, 0.17 * W * thick, c, bold)
    elif rank == 9:
        for y0, y1 in ((0.02, 0.31), (0.355, 0.645), (0.69, 0.98)):
            for x, c in ((0.18, GREEN), (0.5, RED), (0.82, BLUE)):
                v(x, y0, y1, c, 0.12)


def _bird(img: Image.Image, box: tuple[float, float, float, float]) -> None:
    """1条: a peacock-like bird standing on a bamboo stalk."""
    bx0, by0, bx1, by1 = box
    W, H = bx1 - bx0, by1 - by0
    d = ImageDraw.Draw(img)

    def P(xf, yf):
        return (bx0 + xf * W, by0 + yf * H)

    def ell(xf0, yf0, xf1, yf1, fill):
        d.ellipse((*P(xf0, yf0), *P(xf1, yf1)), fill=fill)

    # the tail: long feathers fanning out to the left behind the body, each with an eye
    px, py = P(0.42, 0.6)
    L = 0.5 * W
    for ang, c in ((150, GREEN), (175, BLUE), (200, GREEN), (225, BLUE), (250, GREEN)):
        feather = Image.new("RGBA", (int(L), int(L * 0.34)), (0, 0, 0, 0))
        fd = ImageDraw.Draw(feather)
        fw, fh = feather.size
        fd.ellipse((0, 0, fw - 1, fh - 1), fill=c)
        fd.ellipse((fw * 0.06, fh * 0.22, fw * 0.4, fh * 0.78), fill=IVORY)
        fd.ellipse((fw * 0.1, fh * 0.3, fw * 0.34, fh * 0.7), fill=RED)
        fd.ellipse((fw * 0.16, fh * 0.4, fw * 0.27, fh * 0.6), fill=BLUE)
        a = math.radians(ang)
        rot = feather.rotate(ang - 180, resample=Image.Resampling.BICUBIC, expand=True)
        cx, cy = px + math.cos(a) * L * 0.45, py - math.sin(a) * L * 0.45
        img.alpha_composite(rot, (int(cx - rot.width / 2), int(cy - rot.height / 2)))
    # legs and perch
    d.line((*P(0.5, 0.7), *P(0.46, 0.86)), fill=RED, width=int(W * 0.035))
    d.line((*P(0.58, 0.7), *P(0.6, 0.86)), fill=RED, width=int(W * 0.035))
    _stick(img, bx0 + 0.08 * W, by0 + 0.9 * H, bx0 + 0.92 * W, by0 + 0.9 * H, 0.1 * W, GREEN)
    # body, wing, neck, head
    ell(0.3, 0.36, 0.78, 0.76, GREEN)
    ell(0.38, 0.44, 0.7, 0.68, BLUE)
    d.polygon([P(0.6, 0.42), P(0.74, 0.2), P(0.82, 0.24), P(0.74, 0.5)], fill=GREEN)
    ell(0.66, 0.08, 0.9, 0.28, RED)
    d.polygon([P(0.88, 0.15), P(0.99, 0.2), P(0.88, 0.23)], fill=(230, 150, 30))  # beak
    ell(0.76, 0.13, 0.82, 0.19, IVORY)
    ell(0.78, 0.145, 0.81, 0.175, INK)
    for i, xf in enumerate((0.7, 0.76, 0.82)):  # crest
        d.line((*P(0.76, 0.1), *P(xf, 0.0 + 0.02 * i)), fill=BLUE, width=int(W * 0.02))
        ell(xf - 0.025, -0.01 + 0.02 * i, xf + 0.025, 0.03 + 0.02 * i, BLUE)


BOLD_BELOW = 40
"""Tiles narrower than this (px) use the bold faces: solid 筒 coins and 条 sticks, which keep their colour and count
on a phone's river (20-25 px) instead of blurring into pale dots."""


@lru_cache(maxsize=96)
def face_master(kind: int, bold: bool = False) -> Image.Image:
    """The picture of a tile's face, transparent background, MASTER_W x MASTER_H (face area only); ``bold``: the
    version for small tiles (see :data:`BOLD_BELOW`)."""
    img = Image.new("RGBA", (MASTER_W, MASTER_H), (0, 0, 0, 0))
    d = ImageDraw.Draw(img)
    W, H = MASTER_W, MASTER_H
    m = 24
    box = (m, m, W - m, H - m)
    if kind == BACK:
        return img
    suit, rank = suit_of(kind), rank_of(kind)
    if is_honor(kind):
        ch = _HONOR_GLYPHS[rank - 1]
        if ch == "白":
            # a double blue frame
            d.rounded_rectangle((m + 6, m + 10, W - m - 6, H - m - 10), radius=12, outline=BLUE, width=12)
            d.rounded_rectangle((m + 28, m + 32, W - m - 28, H - m - 32), radius=6, outline=BLUE, width=5)
        else:
            color = {"中": RED, "發": GREEN}.get(ch, INK)
            _glyph(d, ch, W / 2, H / 2, 188, color)
    elif suit == 0:
        _glyph(d, _NUMERALS[rank - 1], W / 2, H * 0.27, 140, INK, stroke=2)
        _glyph(d, "萬", W / 2, H * 0.7, 150, RED)
    elif suit == 1:
        if rank == 1:
            _big_circle(d, W / 2, H / 2, W * 0.4)
        else:
            bx0, by0, bx1, by1 = box
            bw, bh = bx1 - bx0, by1 - by0
            r = _PIN_RADIUS[rank] * W * 1.08
            for xf, yf, c in _PIN_LAYOUTS[rank]:
                _circle(d, bx0 + xf * bw, by0 + yf * bh, r, c, bold)
    else:
        if rank == 1:
            _bird(img, box)
        else:
            _sticks(img, rank, box, bold)
    return img


# ---------------------------------------------------------------------------------------------------------------
# sprites


def _body(width: int, height: int, depth: int, pad: int, back: bool, scale: int) -> Image.Image:
    """A tile body at ``scale`` times the target size: shadow, back layer, ivory thickness and face."""
    S = scale
    W, H, D, P = width * S, height * S, depth * S, pad * S
    img = Image.new("RGBA", (W + P, H + D + P), (0, 0, 0, 0))
    r = max(2, int(min(W, H) * 0.1))
    shadow = Image.new("RGBA", img.size, (0, 0, 0, 0))
    ImageDraw.Draw(shadow).rounded_rectangle((P * 0.6, D + P * 0.6, W + P * 0.6, H + D + P * 0.6), radius=r, fill=(0, 0, 0, 110))
    shadow = shadow.filter(ImageFilter.GaussianBlur(max(1, P * 0.5)))
    img.alpha_composite(shadow)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((0, D * 0.35, W - 1, H + D - 1), radius=r, fill=BACK_DARK if not back else IVORY_EDGE)
    d.rounded_rectangle((0, D * 0.2, W - 1, H + D * 0.55), radius=r, fill=BACK_GREEN if not back else IVORY)
    if back:
        d.rounded_rectangle((0, 0, W - 1, H - 1), radius=r, fill=BACK_GREEN, outline=BACK_DARK, width=max(1, S))
        inset = W * 0.12
        d.rounded_rectangle((inset, inset, W - inset, H - inset), radius=r * 0.6, outline=(60, 150, 112), width=max(1, S))
    else:
        d.rounded_rectangle((0, 0, W - 1, H - 1), radius=r, fill=IVORY_EDGE)
        d.rounded_rectangle((S * 0.6, S * 0.3, W - 1 - S * 0.6, H - 1 - S * 1.2), radius=r, fill=IVORY)
    return img


@lru_cache(maxsize=512)
def tile_sprite(kind: int, width: int, sideways: bool = False) -> Image.Image:
    """An RGBA sprite of tile ``kind`` (or ``BACK``) ``width`` px wide when upright; ``sideways`` turns it 90°
    (a claimed tile in a meld). Cached: build once per size."""
    if not (kind == BACK or 0 <= kind < NUM_KINDS):
        raise ValueError(f"no tile kind {kind}")
    height = face_height(width)
    depth, pad = _depth(width), _pad(width)
    bw, bh = (height, width) if sideways else (width, height)
    S = 3 if width < 120 else 2
    body = _body(bw, bh, depth, pad, kind == BACK, S)
    if kind != BACK:
        face = face_master(kind, width < BOLD_BELOW)
        if sideways:
            face = face.rotate(90, expand=True)
        fw, fh = int(bw * S * 0.9), int(bh * S * 0.9)
        face = face.resize((fw, fh), Image.Resampling.LANCZOS)
        body.alpha_composite(face, (int((bw * S - fw) / 2), int((bh * S - fh) / 2 - S * 0.4)))
    out = body.resize((bw + pad, bh + depth + pad), Image.Resampling.LANCZOS)
    return out


def contact_sheet(width: int = 72, background=(49, 51, 56)) -> Image.Image:
    """All 34 faces and the back in rows of nine (万, 筒, 条, honours + back)."""
    tw, th = tile_size(width)
    gap = max(4, width // 8)
    rows = [list(range(0, 9)), list(range(9, 18)), list(range(18, 27)), list(range(27, 34)) + [BACK]]
    img = Image.new("RGB", (gap + 9 * (tw + gap), gap + 4 * (th + gap)), background)
    for r, kinds in enumerate(rows):
        for c, k in enumerate(kinds):
            s = tile_sprite(k, width)
            img.paste(s, (gap + c * (tw + gap), gap + r * (th + gap)), s)
    return img
