"""Pixel comparisons for the render tests (Pillow only)."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from PIL import Image, ImageChops


def open_png(data: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(data))
    assert img.format == "PNG"
    img.load()
    return img.convert("RGB")


def max_channel_diff(a: Image.Image, b: Image.Image) -> Image.Image:
    """An "L" image: per pixel, the largest difference over R, G, B."""
    d = ImageChops.difference(a.convert("RGB"), b.convert("RGB"))
    r, g, bl = d.split()
    return ImageChops.lighter(ImageChops.lighter(r, g), bl)


def fraction_over(a: Image.Image, b: Image.Image, threshold: int) -> float:
    """Share of pixels whose colour differs by more than ``threshold`` in some channel."""
    hist = max_channel_diff(a, b).histogram()
    return sum(hist[threshold + 1 :]) / (a.width * a.height)


def pixels(img: Image.Image) -> list:
    """The pixels of ``img`` as a flat list of tuples."""
    get = getattr(img, "get_flattened_data", None) or img.getdata
    return list(get())


GOLDEN = Path(__file__).parent / "golden"
REGEN = os.environ.get("MJBOT_REGEN_GOLDEN") == "1"


def check_golden(name: str, data: bytes) -> None:
    """Compare PNG ``data`` with ``golden/<name>.png`` (rewrite it with MJBOT_REGEN_GOLDEN=1, then look at it)."""
    img = open_png(data)
    path = GOLDEN / f"{name}.png"
    if REGEN or not path.exists():
        if not REGEN:
            pytest.fail(f"no golden image {path}; run with MJBOT_REGEN_GOLDEN=1 and look at it")
        GOLDEN.mkdir(exist_ok=True)
        path.write_bytes(data)
    gold = Image.open(path).convert("RGB")
    assert img.size == gold.size
    # tolerance: font rasterisers and resamplers differ slightly between Pillow/FreeType builds
    assert fraction_over(img, gold, 48) < 0.005, f"{name}: more than 0.5% of pixels changed visibly"


def spy_texts(monkeypatch, modules) -> list[tuple[str, int, tuple, tuple, tuple]]:
    """Record every text the render ``modules`` draw from now on: (text as given, size, colour, the box its ink
    covers, the colour most of that box had before). Each draw is compared with the image before it, so the box is
    what a player sees of that text."""
    import render.common as common

    real = common.draw_text
    out: list[tuple[str, int, tuple, tuple, tuple]] = []

    def spy(img: Image.Image, xy, text, size, fill, **kw):
        before = img.convert("RGB")
        w = real(img, xy, text, size, fill, **kw)
        box = ImageChops.difference(before, img.convert("RGB")).getbbox()
        if box is not None:
            colours = before.crop(box).getcolors(1 << 20) or []
            out.append((text, size, tuple(fill[:3]), box, max(colours)[1]))
        return w

    for mod in modules:
        monkeypatch.setattr(mod, "draw_text", spy)
    return out


def fit_texts(monkeypatch) -> list[tuple[str, int]]:
    """Every text the images fit to a width from now on (``render.fonts.fit``), as drawn (after any shortening),
    with its size."""
    from render import fonts

    shown: list[tuple[str, int]] = []
    real = fonts.fit

    def spy(*args, **kw):
        out = real(*args, **kw)
        shown.append((out[0], int(out[1].size)))
        return out

    monkeypatch.setattr(fonts, "fit", spy)
    return shown
