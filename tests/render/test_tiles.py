"""Tile faces: every kind has its own face, readable colours, and sprites of the sizes asked for."""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import pytest
from PIL import Image

from render.tiles import BACK, IVORY, tile_size, tile_sprite

sys.path.insert(0, str(Path(__file__).parent))
from imgutil import fraction_over, pixels  # noqa: E402

KINDS = [*range(34), BACK]
BG = (49, 51, 56, 255)


def flat(kind: int, width: int, sideways: bool = False) -> Image.Image:
    s = tile_sprite(kind, width, sideways)
    return Image.alpha_composite(Image.new("RGBA", s.size, BG), s).convert("RGB")


@pytest.mark.parametrize("width", [24, 40, 56])
def test_every_tile_kind_has_a_distinct_face(width):
    faces = {k: flat(k, width) for k in KINDS}
    worst = min(
        (fraction_over(faces[a], faces[b], 60), a, b) for a, b in itertools.combinations(KINDS, 2)
    )
    # at least 2% of the sprite's pixels differ strongly between any two kinds, even at phone size (24 px)
    assert worst[0] > 0.02, worst


def test_sprites_have_the_size_asked_for_and_are_cached():
    for k in KINDS:
        assert tile_sprite(k, 40).size == tile_size(40)
        assert tile_sprite(k, 40, True).size == tile_size(40, sideways=True)
    assert tile_size(40, sideways=True)[0] > tile_size(40)[0]
    assert tile_sprite(5, 40) is tile_sprite(5, 40)


def _ink(kind: int) -> tuple[float, float, float]:
    """Mean colour of the face's ink: pixels of the face that are far from ivory."""
    img = flat(kind, 96)
    w, h = img.size
    face = img.crop((int(w * 0.15), int(h * 0.12), int(w * 0.85), int(h * 0.75)))
    px = [p for p in pixels(face) if sum(abs(a - b) for a, b in zip(p, IVORY, strict=True)) > 150]
    assert px, kind
    return tuple(sum(c[i] for c in px) / len(px) for i in range(3))  # type: ignore[return-value]


def test_red_dragon_is_red_green_dragon_is_green_winds_are_dark():
    r, g, b = _ink(33)  # 中
    assert r > g + 80 and r > b + 80
    r, g, b = _ink(32)  # 发
    assert g > r + 40 and g > b
    for wind in range(27, 31):
        assert max(_ink(wind)) < 90  # black ink


def test_characters_show_red_wan_under_a_dark_numeral():
    img = flat(4, 96)  # 五万
    w, h = img.size
    top = img.crop((int(w * 0.2), int(h * 0.1), int(w * 0.8), int(h * 0.4)))
    bottom = img.crop((int(w * 0.2), int(h * 0.5), int(w * 0.8), int(h * 0.85)))

    def reddest(part):
        return max(r - (g + b) / 2 for r, g, b in pixels(part))

    assert reddest(bottom) > 100  # 萬 in red
    assert reddest(top) < 60  # the numeral in ink


def test_back_has_no_face():
    back = flat(BACK, 40)
    # the back is mostly green, never ivory
    px = pixels(back)
    ivory = sum(1 for p in px if sum(abs(a - b) for a, b in zip(p, IVORY, strict=True)) < 30)
    assert ivory / len(px) < 0.05


def test_unknown_kind_is_refused():
    with pytest.raises(ValueError):
        tile_sprite(34, 40)
