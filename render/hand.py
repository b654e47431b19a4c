"""A player's hand: sorted concealed tiles, the drawn tile set apart, melds with the claimed tile turned sideways."""

from __future__ import annotations

from dataclasses import dataclass

from PIL import Image, ImageDraw

from engine.tiles import Hand, Meld, MeldKind

from .common import Theme, draw_text, encode, lang_of, paste, theme_of, tr, wind_name
from .scene import HandScene, hand_slots
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


def _feeder_label(meld: Meld, scene: HandScene, lang: str) -> str:
    if meld.fed_by is None or not meld.is_claimed:
        return ""
    wind = wind_name(scene.winds[meld.fed_by] if scene.winds else meld.fed_by, lang)
    if scene.names and 0 <= meld.fed_by < len(scene.names) and scene.names[meld.fed_by]:
        return f"{wind} {scene.names[meld.fed_by]}"
    return tr(lang, f"{wind}家", f"from {wind}")


def draw_hand(
    scene: HandScene | Hand, theme: str | Theme = "dark", lang: str = "zh", width: int = 56, *, bg=None
) -> Image.Image:
    """The hand as an RGB image (see :func:`render_hand`)."""
    if isinstance(scene, Hand):
        scene = HandScene.from_hand(scene)
    th = theme_of(theme)
    lang = lang_of(lang)
    tw, tht = tile_size(width)
    mw = max(24, round(width * 0.86))
    margin = max(8, width // 5)
    lift = max(4, width // 7)
    pitch = width + 1
    slots = hand_slots(scene)
    n_conc = len(scene.concealed)
    gap_drawn = round(width * 0.45) if scene.drawn is not None else 0
    gap_melds = round(width * 0.55) if scene.melds else 0
    # lay melds out first to know their widths and whether an added kong needs headroom
    meld_parts = []
    headroom = lift
    for m in scene.melds:
        placed, w = meld_layout(m, scene.seat, mw, 0)
        top = min(p.y for p in placed)
        headroom = max(headroom, -top - tht + lift)
        meld_parts.append((m, placed, w))
    melds_w = sum(w for _, _, w in meld_parts) + max(0, len(meld_parts) - 1) * round(mw * 0.3)
    label_size = max(11, round(width * 0.3))
    feeder_size = max(13, round(mw * 0.3))
    want_labels = scene.labels or any(_feeder_label(m, scene, lang) for m in scene.melds)
    label_h = round(max(label_size, feeder_size) * 1.6) if want_labels else 0
    conc_w = (len(slots) - 1) * pitch + tw + gap_drawn if slots else 0
    W = margin * 2 + conc_w + gap_melds + melds_w
    base = margin + headroom + tht
    H = base + label_h + margin
    img = Image.new("RGB", (max(W, 2 * margin + tw), H), bg or th.bg)
    d = ImageDraw.Draw(img)
    x = margin
    for i, k in enumerate(slots):
        if i == n_conc and scene.drawn is not None:
            x += gap_drawn
        hi = k in scene.highlight
        y = base - tht - (lift if hi else 0)
        if hi:
            d.rounded_rectangle((x - 1, base - 2, x + width + 1, base + max(3, width // 14)), radius=2, fill=th.accent)
        paste(img, tile_sprite(k, width), (x, y))
        if scene.labels:
            draw_text(img, (x + width / 2, base + label_h * 0.55), str(i + 1), label_size,
                      th.accent if hi else th.subtext, anchor="mm")
        x += pitch
    x = x - pitch + tw + gap_melds if slots else margin
    for m, placed, w in meld_parts:
        for p in placed:
            paste(img, tile_sprite(p.kind, mw, p.sideways), (x + p.x, base + p.y))
        label = _feeder_label(m, scene, lang)
        if label:
            draw_text(img, (x + w / 2, base + label_h * 0.55), label, feeder_size, th.subtext, anchor="mm",
                      bold=False, max_width=max(w, mw * 2))
        x += w + round(mw * 0.3)
    return img


def render_hand(scene: HandScene | Hand, theme: str | Theme = "dark", lang: str = "zh", width: int = 56) -> bytes:
    """PNG bytes of a player's hand. ``scene``: a :class:`HandScene` or an ``engine.tiles.Hand`` (its winning tile
    set apart). ``width``: tile width in px (56 reads well on Discord desktop and phone)."""
    return encode(draw_hand(scene, theme, lang, width), theme)


__all__ = ["draw_hand", "render_hand", "feeder_position"]
