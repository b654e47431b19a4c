"""Pixel comparisons for the render tests (Pillow only)."""

from __future__ import annotations

import io

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
