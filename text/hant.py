"""Simplified to Traditional Chinese (Taiwan) for every text the project derives: OpenCC ``s2tw``.

The string catalogue (:mod:`text.catalog`) derives every zh-TW text it has no Taiwan override for with it, and
texts the engine names without a catalogue key (score items' names, house rules) go through it too. The engine never
imports OpenCC. In this project 喂 always means feeding a tile (餵), and dealing in is said as Taiwan says it,
放槍 (OpenCC keeps 點炮; a screen showed both); so is the account, 帳 (記帳 as the command /記帳, 帳本: OpenCC
writes 記賬, 賬本).

>>> to_hant("杠后开花，庄家多付一个底番；这里谁喂的牌")
'槓後開花，莊家多付一個底番；這裡誰餵的牌'
>>> to_hant("点炮和需 3 花")
'放槍和需 3 花'
>>> to_hant("这个赛季还没有记入账本的牌局；记账")
'這個賽季還沒有記入帳本的牌局；記帳'
"""

from __future__ import annotations

from functools import lru_cache

import opencc


@lru_cache(maxsize=1)
def _converter() -> opencc.OpenCC:
    return opencc.OpenCC("s2tw")


def named(zh: str, en: str, lang: str) -> str:
    """A name the engine defines in both languages with the thing it names (a score item, a variant, an alarm,
    a house rule: ``Item.zh`` / ``Item.en``, as the ``/score`` JSON gives them), not a catalogue string; zh-TW is
    derived from the Simplified name.

    >>> named("蜡子", "big hand", "zh-TW"), named("蜡子", "big hand", "en")
    ('蠟子', 'big hand')
    """
    if lang == "en":
        return en
    return to_hant(zh) if lang == "zh-TW" else zh


def to_hant(text: str) -> str:
    """``text`` in Traditional Chinese as written in Taiwan (characters, not vocabulary)."""
    return _converter().convert(text).replace("喂", "餵").replace("點炮", "放槍").replace("賬", "帳")

