"""The one catalogue of player-facing strings: gettext ``.po`` files, one per language, read with Babel.

``data/locale/<locale>/LC_MESSAGES/mjbot.po`` (installed as ``mjbot_data``, read with ``importlib.resources``):

- ``en``: the source language. ``msgid`` is the message key (``score.title``, ``engine.five_copies`` ...), ``msgstr``
  the English text. Keys stay stable when a wording changes.
- ``zh_CN``: Simplified Chinese, every key.
- ``zh_TW``: Traditional Chinese as written in Taiwan **overrides only**. Every other key is the Simplified text
  converted by OpenCC ``s2tw`` (:func:`text.hant.to_hant`) when it is first asked for; a key appears here only
  where Taiwan says it differently (放槍 for 点炮, 預設 for 默认, 伺服器 for 服务器 ...).

Placeholders are ``{name}`` (Python ``str.format``). The catalogue is read once per process (cached). A key missing
in one language falls back to English and is logged once; a key missing everywhere shows the key itself (logged
once). Nothing here raises on a missing string. This module also registers the engine's translator
(:func:`engine.errors.set_translator`): the engine returns codes and parameters, and the text comes from here.

>>> text("common.seat.E", "zh"), text("common.seat.E", "zh-TW"), text("common.seat.E", "en")
('东', '東', 'East')
>>> text("error.cooldown", "zh-TW", seconds=3)
'太快了：請 3 秒後再試。'
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.pofile import read_po

from engine.errors import set_translator

from .hant import to_hant
from .lang import LANGS as LANGS
from .lang import Lang, resolve

log = logging.getLogger(__name__)

DOMAIN = "mjbot"
#: our language codes -> the catalogue's locale folder under ``data/locale``
LOCALES: Mapping[Lang, str] = {"en": "en", "zh": "zh_CN", "zh-TW": "zh_TW"}
DATA = "mjbot_data"  # the package of the data/ folder (see render.assets)


def read_catalog(locale: str) -> Catalog:
    """The parsed ``.po`` file of ``locale`` (a folder name: ``en``, ``zh_CN``, ``zh_TW``)."""
    with resources.files(DATA).joinpath("locale", locale, "LC_MESSAGES", f"{DOMAIN}.po").open("rb") as f:
        return read_po(f, locale=locale, domain=DOMAIN)


def _strings(catalog: Catalog) -> dict[str, str]:
    return {str(m.id): str(m.string) for m in catalog if m.id and m.string}


@cache
def strings(lang: str) -> Mapping[str, str]:
    """Every key -> text of ``lang`` as written in its file (for ``zh-TW``: the overrides only). Read once."""
    return _strings(read_catalog(LOCALES[resolve(lang)]))


@cache
def all_keys() -> frozenset[str]:
    """Every message key (the English catalogue is the source: it has them all)."""
    return frozenset(strings("en"))


@cache
def _warn_once(what: str, key: str, lang: str) -> None:
    log.warning("%s message key %r (language %s)", what, key, lang)


@cache
def template(key: str, lang: Lang) -> str:
    """The text of ``key`` in ``lang`` (resolved: :func:`text.lang.resolve`) before its placeholders are filled:
    zh-TW is the override or the Simplified text converted; a key missing in ``lang`` is the English text (logged
    once), missing everywhere the key."""
    if lang == "zh-TW":
        override = strings("zh-TW").get(key)
        if override is not None:
            return override
        zh = strings("zh").get(key)
        if zh is not None:
            return to_hant(zh)
    else:
        found = strings(lang).get(key)
        if found is not None:
            return found
    en = strings("en").get(key)
    if en is None:
        _warn_once("missing", key, "any")
        return key
    _warn_once("untranslated", key, lang)
    return en


class _Params(dict[str, Any]):
    """Parameters; one a caller left out reads as ``missing`` rather than failing."""

    def __init__(self, params: Mapping[str, Any], missing: str) -> None:
        super().__init__(params)
        self.missing = missing

    def __missing__(self, key: str) -> str:
        return self.missing


def text(key: str, lang: str | None, /, _missing: str | None = None, **params: Any) -> str:
    """The message ``key`` in ``lang`` (``en``, ``zh``, ``zh-TW`` or a Discord locale; None or an unknown one:
    :data:`text.lang.DEFAULT`) with ``params`` filled in.

    ``_missing``: what a placeholder no parameter fills reads as (default: such a text is shown unfilled, as are
    texts given no parameters at all). Never raises: a template that cannot be filled is shown as written.
    """
    tpl = template(key, resolve(lang))
    if not params and _missing is None:
        return tpl
    try:
        return tpl.format_map(_Params(params, "" if _missing is None else _missing))
    except (KeyError, IndexError, ValueError, AttributeError, TypeError):
        _warn_once("unformattable", key, str(lang))
        return tpl


def has(key: str) -> bool:
    """Whether ``key`` is in the catalogue."""
    return key in all_keys()


def _engine_text(key: str, lang: str | None, params: Mapping[str, object]) -> str:
    return text(key, lang, _missing="", **params)


set_translator(_engine_text)
