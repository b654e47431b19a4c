"""A tile's short name as the players read it, in every text: the live table's messages and buttons, the replays'
captions and the review cards. One source, so a tile is called the same everywhere: 五万 / 5m, and an honour in
English by its name (East ... Red), never "1z".."7z", the notation of ``/score``.

>>> [tile_label(k, "en") for k in (4, 27, 31, 32, 33)]
['5m', 'East', 'White', 'Green', 'Red']
>>> tile_label(4, "zh"), tile_label(33, "zh"), tile_label(32, "zh-TW"), tile_label(4, "zh-TW")
('五万', '中', '發', '五萬')
"""

from __future__ import annotations

from engine.tiles import is_honor, tile_en, tile_name, tile_zh

from .hant import to_hant


def tile_label(k: int, lang: str) -> str:
    """A tile's short name in ``lang`` (``zh``, ``zh-TW`` or ``en``): 五万 / 5m, 中 / Red."""
    if lang == "en":
        return tile_en(k) if is_honor(k) else tile_name(k)
    return tile_zh(k) if lang == "zh" else to_hant(tile_zh(k))
