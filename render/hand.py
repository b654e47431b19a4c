"""A player's hand: sorted concealed tiles, the drawn tile set apart, melds with the claimed tile turned sideways."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.tiles import Hand, Meld, MeldKind, is_honor, suit_of

from . import fonts
from .common import Theme, draw_text, encode, lang_of, paste, theme_of, txt, wind_name
from .scene import HandScene, discard_numbers, hand_slots
from .tiles import BACK, face_height, tile_size, tile_sprite


@dataclass(frozen=True)
class Placed:
    kind: int
    x: int
    y: int  # top of the sprite
    sideways: bool = False


def feeder_position(meld: Meld, seat: int | None) -> int | None:
    """Where the claimed tile lies in a meld of 3/4: 0 left (上家), 1 middle (对家), last (下家).

    >>> from engine.tiles import Meld, MeldKind
    >>> feeder_position(Meld(MeldKind.PUNG, 5, fed_by=0), 1), feeder_position(Meld(MeldKind.PUNG, 5, fed_by=2), 1)
    (0, 2)
    """
    if not meld.is_claimed or meld.fed_by is None:
        return None if meld.kind is MeldKind.CONCEALED_KONG else 0
    n = 3 if meld.kind is not MeldKind.KONG or meld.added else 4
    if seat is None:
        return 0
    rel = (meld.fed_by - seat) % 4  # 3 = 上家 (previous), 2 = 对家, 1 = 下家
    return {3: 0, 2: 1, 1: n - 1}.get(rel, 0)


def meld_layout(meld: Meld, seat: int | None, width: int, base_y: int) -> tuple[list[Placed], int]:
    """Sprites of one meld with their offsets from x = 0, bottoms on ``base_y``; returns them and the meld width."""
    up_w, up_h = tile_size(width)
    sw, sh = tile_size(width, sideways=True)
    pitch = width + 1
    out: list[Placed] = []
    x = 0
    if meld.kind is MeldKind.CONCEALED_KONG:
        for i in range(4):
            out.append(Placed(BACK if i in (0, 3) else meld.tile, x, base_y - up_h))
            x += pitch
        return out, x - pitch + up_w
    tiles = list(meld.tiles)
    claimed = meld.claimed if meld.claimed is not None else meld.tile
    if meld.kind is MeldKind.CHI and claimed in tiles:
        tiles.remove(claimed)
    else:
        tiles.pop()
    pos = feeder_position(meld, seat) or 0
    stacked = meld.kind is MeldKind.KONG and meld.added
    if stacked:
        tiles = tiles[:2]
    pos = min(pos, len(tiles))
    order: list[tuple[int, bool]] = [(k, False) for k in tiles]
    order.insert(pos, (claimed, True))
    for k, side in order:
        if side:
            out.append(Placed(k, x, base_y - sh, True))
            if stacked:
                out.append(Placed(k, x, base_y - 2 * sh + _depth_of(width), True))
            x += sw + 1
        else:
            out.append(Placed(k, x, base_y - up_h))
            x += pitch
    return out, x


def _depth_of(width: int) -> int:
    return tile_size(width)[1] - face_height(width) - max(1, round(width * 0.05))


PHONE_WIDTH = 400
"""The width (px) at which Discord shows an image on a phone: the chat's width. Layouts are checked at this width."""

TILE_W = 45
"""The hand image's tile width (px): the image is then 399 px wide, so a phone shows it at its own size, tiles 45
px wide, and uploads no pixels the phone would scale away (at 56 px tiles it was 497 px wide, shown at 80%)."""

HAND_PER_ROW = 8
"""Most concealed tiles in one row of the hand (the drawn tile, set apart, counts as one): a 14-tile hand takes two
rows, so a tile is about 45 px wide on a 400 px phone screen (one row of 14 would make it 21 px)."""


def shown_px(px: float, image_width: int, display_width: int = PHONE_WIDTH) -> float:
    """How wide ``px`` image pixels look when the image is shown ``display_width`` px wide (scaled to fit; an image
    narrower than the display is shown at its own size).

    >>> shown_px(56, 500), shown_px(30, 300)
    (44.8, 30)
    """
    return px * display_width / image_width if image_width > display_width else px


def split_rows(slots: list[int], n_concealed: int, per_row: int = HAND_PER_ROW) -> list[int]:
    """How many of ``slots`` (sorted concealed tiles, then the drawn tile) go in each row: as few rows as fit
    ``per_row``, as even as can be, and for two rows a break between suits when one is near the middle. The drawn
    tile stays in the last row.

    >>> split_rows(list(range(13)), 13)
    [7, 6]
    >>> split_rows([0, 1, 2, 3, 4, 9, 10, 11, 18, 19, 20, 27, 27, 5], 13)  # 12345m 123p | 123s 東東 + 6m
    [8, 6]
    >>> split_rows([0, 1, 2], 2)
    [3]
    """
    n = len(slots)
    if n <= per_row:
        return [n]
    rows = -(-n // per_row)
    sizes = [n // rows + (1 if r < n % rows else 0) for r in range(rows)]
    if rows == 2:
        lo, hi = max(n - per_row, 1), min(per_row, n_concealed)
        breaks = [k for k in range(lo, hi + 1) if k < n_concealed and _suit(slots[k - 1]) != _suit(slots[k])]
        if breaks:
            k = min(breaks, key=lambda k: (abs(2 * k - n), -k))
            sizes = [k, n - k]
    return sizes


def _suit(kind: int) -> int:
    return 3 if is_honor(kind) else suit_of(kind)


def _feeder_label(meld: Meld, scene: HandScene, lang: str) -> str:
    if meld.fed_by is None or not meld.is_claimed:
        return ""
    wind = wind_name(scene.winds[meld.fed_by] if scene.winds else meld.fed_by, lang)
    if scene.names and 0 <= meld.fed_by < len(scene.names) and fonts.drawable(scene.names[meld.fed_by]):
        return f"{wind} {scene.names[meld.fed_by]}"
    return txt("render.fed_by", lang, wind=wind)


@dataclass(frozen=True)
class SlotBox:
    """A concealed tile: ``slot`` is its index in :func:`hand_slots` (its number is ``slot + 1``); ``y`` the top of
    its sprite (lifted when highlighted), ``base`` the bottom of its row."""

    slot: int
    kind: int
    x: int
    y: int
    base: int
    highlight: bool = False


@dataclass(frozen=True)
class NumberBox:
    """A discard number: ``number`` (the one on its button, :func:`~render.scene.discard_numbers`) centred at
    (``x``, ``y``) under the run of identical tiles ``slots`` (indices in :func:`hand_slots`); the drawn tile, set
    apart, has its own."""

    number: int
    kind: int
    slots: tuple[int, ...]
    x: float
    y: int
    highlight: bool = False


@dataclass(frozen=True)
class MeldBox:
    """A meld at (``x``, ``base``): its sprites (offsets from there), its width, the feeder's name under it."""

    meld: Meld
    x: int
    base: int
    width: int
    placed: tuple[Placed, ...]
    label: str = ""


@dataclass(frozen=True)
class HandLayout:
    """Where everything of a hand image goes: the image size, the concealed tiles (``tile_w`` px wide) in rows,
    the melds (``meld_w`` px wide) in rows under them, and the text sizes."""

    width: int
    height: int
    tile_w: int
    meld_w: int
    slots: tuple[SlotBox, ...]
    melds: tuple[MeldBox, ...]
    label_size: int
    label_dy: int  # from a row's base to the middle of its numbers / feeder names
    feeder_size: int
    numbers: tuple[NumberBox, ...] = ()

    def shown_tile(self, display_width: int = PHONE_WIDTH) -> float:
        """A concealed tile's width as a phone shows it (the image scaled to ``display_width``)."""
        return shown_px(self.tile_w, self.width, display_width)

    def shown_meld_tile(self, display_width: int = PHONE_WIDTH) -> float:
        """A meld tile's width as a phone shows it."""
        return shown_px(self.meld_w, self.width, display_width)


def hand_layout(scene: HandScene | Hand, lang: str = "zh", width: int = TILE_W) -> HandLayout:
    """The geometry of a hand image with tiles ``width`` px wide, laid out for a phone first: the concealed tiles
    in rows of at most :data:`HAND_PER_ROW` (the drawn tile set apart at the end of the last row), the melds in rows
    under them. The image is as wide as a full row whatever the hand, so tiles keep their size from turn to turn.

    >>> lay = hand_layout(HandScene(concealed=tuple(range(13)), drawn=13))
    >>> [len([s for s in lay.slots if s.base == b]) for b in sorted({s.base for s in lay.slots})], lay.width
    ([7, 7], 399)
    >>> round(lay.shown_tile(), 1)
    45
    """
    if isinstance(scene, Hand):
        scene = HandScene.from_hand(scene)
    lang = lang_of(lang)
    tw, tht = tile_size(width)
    mw = max(24, round(width * 0.86))
    margin = max(5, width // 8)
    lift = max(4, width // 7)
    pitch = width + 1
    gap_drawn = round(width * 0.45)
    under = max(3, width // 14)  # the hint's underline below a row
    label_size = max(14, round(width * 0.36))  # 16 px at 45, as a phone shows it
    feeder_size = max(13, round(mw * 0.36))
    row_gap = max(4, round(width * 0.12))
    slots = hand_slots(scene)
    n_conc = len(scene.concealed)
    W = 2 * margin + (HAND_PER_ROW - 1) * pitch + tw + gap_drawn
    label_h = round(label_size * 1.5) if scene.labels else under + 2
    out_slots: list[SlotBox] = []
    y = margin
    i = 0
    for n in split_rows(slots, n_conc) if slots else []:
        base = y + lift + tht
        x = margin
        for _ in range(n):
            k = slots[i]
            if i == n_conc and scene.drawn is not None:
                x += gap_drawn
            hi = k in scene.highlight
            out_slots.append(SlotBox(i, k, x, base - tht - (lift if hi else 0), base, hi))
            x += pitch
            i += 1
        y = base + label_h + row_gap
    # melds: in rows as wide as the image allows, each meld's feeder named under it
    meld_gap = round(mw * 0.3)
    feeder_h = round(feeder_size * 1.5) if any(_feeder_label(m, scene, lang) for m in scene.melds) else 0
    parts = []
    for m in scene.melds:
        placed, w = meld_layout(m, scene.seat, mw, 0)
        parts.append((m, tuple(placed), w))
    rows: list[list] = []
    for part in parts:
        if rows and sum(p[2] for p in rows[-1]) + meld_gap * len(rows[-1]) + part[2] <= W - 2 * margin:
            rows[-1].append(part)
        else:
            rows.append([part])
    if rows and out_slots:
        y += round(width * 0.12)
    out_melds: list[MeldBox] = []
    for row in rows:
        base = y + max(-min(p.y for p in placed) for _, placed, _ in row)
        x = margin
        for m, placed, w in row:
            out_melds.append(MeldBox(m, x, base, w, placed, _feeder_label(m, scene, lang)))
            x += w + meld_gap
        W = max(W, x - meld_gap + margin)
        y = base + feeder_h + row_gap
    H = max(y - row_gap + margin, 2 * margin + tht)
    label_dy = round(label_h * 0.55) if scene.labels else 0
    return HandLayout(W, H, width, mw, tuple(out_slots), tuple(out_melds), label_size, label_dy, feeder_size,
                      _numbers(scene, out_slots, n_conc, width, label_dy) if scene.labels else ())


def _numbers(scene: HandScene, slots: list[SlotBox], n_conc: int, width: int, dy: int) -> tuple[NumberBox, ...]:
    """One number under each run of identical tiles in a row (the drawn tile alone), centred under the run."""
    nums = discard_numbers(scene)
    runs: list[list[SlotBox]] = []
    for s in slots:
        if runs and runs[-1][-1].kind == s.kind and runs[-1][-1].base == s.base and s.slot != n_conc:
            runs[-1].append(s)
        else:
            runs.append([s])
    return tuple(NumberBox(nums[r[0].kind], r[0].kind, tuple(s.slot for s in r), (r[0].x + r[-1].x + width) / 2,
                           r[0].base + dy, r[0].highlight) for r in runs)


def draw_hand(
    scene: HandScene | Hand, theme: str | Theme = "dark", lang: str = "zh", width: int = TILE_W, *, bg=None
) -> Image.Image:
    """The hand as an RGB image (see :func:`render_hand` and :func:`hand_layout`)."""
    if isinstance(scene, Hand):
        scene = HandScene.from_hand(scene)
    th = theme_of(theme)
    lang = lang_of(lang)
    lay = hand_layout(scene, lang, width)
    img = Image.new("RGB", (lay.width, lay.height), bg or th.bg)
    d = ImageDraw.Draw(img)
    under = max(3, width // 14)
    for s in lay.slots:
        if s.highlight:
            d.rounded_rectangle((s.x - 1, s.base - 2, s.x + width + 1, s.base + under), radius=2, fill=th.accent)
        paste(img, tile_sprite(s.kind, width), (s.x, s.y))
    for nb in lay.numbers:
        draw_text(img, (nb.x, nb.y), str(nb.number), lay.label_size, th.accent if nb.highlight else th.text,
                  anchor="mm")
    mw = lay.meld_w
    for mb in lay.melds:
        for p in mb.placed:
            paste(img, tile_sprite(p.kind, mw, p.sideways), (mb.x + p.x, mb.base + p.y))
        if mb.label:
            draw_text(img, (mb.x + mb.width / 2, mb.base + round(lay.feeder_size * 0.8)), mb.label,
                      lay.feeder_size, th.subtext, anchor="mm", bold=False, max_width=mb.width + round(mw * 0.3) - 4)
    return img


def render_hand(scene: HandScene | Hand, theme: str | Theme = "dark", lang: str = "zh", width: int = TILE_W) -> bytes:
    """PNG bytes of a player's hand. ``scene``: a :class:`HandScene` or an ``engine.tiles.Hand`` (its winning tile
    set apart). ``width``: tile width in px; at :data:`TILE_W` (45) the image is 399 px wide, so phones and desktops
    show it at its own size, tiles 45 px wide."""
    return encode(draw_hand(scene, theme, lang, width), theme)


__all__ = ["HAND_PER_ROW", "PHONE_WIDTH", "HandLayout", "NumberBox", "draw_hand", "feeder_position", "hand_layout", "render_hand",
           "shown_px", "split_rows"]
