"""Simplified to Traditional Chinese (Taiwan) for every text the project derives: OpenCC ``s2tw``.

Importing this module registers :func:`to_hant` with the engine (``engine.errors.set_hant``), which stays pure and
never imports OpenCC itself; ``render`` imports it on load, so the bot, the CLI and the images all share it.
In this project 喂 always means feeding a tile (餵).

>>> to_hant("杠后开花，庄家多付一个底番；这里谁喂的牌")
'槓後開花，莊家多付一個底番；這裡誰餵的牌'
"""

from __future__ import annotations

from functools import lru_cache

import opencc

from engine.errors import set_hant


@lru_cache(maxsize=1)
def _converter() -> opencc.OpenCC:
    return opencc.OpenCC("s2tw")


def to_hant(text: str) -> str:
    """``text`` in Traditional Chinese as written in Taiwan (characters, not vocabulary)."""
    return _converter().convert(text).replace("喂", "餵")


set_hant(to_hant)
