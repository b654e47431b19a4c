"""Which language a text is written in: the one place a language code, a Discord locale or nothing becomes one of
``zh`` (Simplified Chinese), ``zh-TW`` (Traditional Chinese as written in Taiwan) or ``en``.

There is one default, :data:`DEFAULT` (English), for a missing or unknown language, wherever it is asked for: the
catalogue (:func:`text.catalog.text`), the engine's messages (``EngineError.message``), the store's, the images'.
A reply's language is worked out once per interaction with :func:`lang_for` (by ``bot.interactions``, which keeps
it on the interaction) and then handed down as a :data:`Lang`;
:func:`resolve` on a value that already is one returns it at once.

>>> resolve("zh-CN"), resolve("zh-TW"), resolve("en-US"), resolve(None), resolve("fr")
('zh', 'zh-TW', 'en', 'en', 'en')
>>> lang_of_locale("zh-CN"), lang_of_locale("zh-TW"), lang_of_locale("en-GB"), lang_of_locale("fr")
('zh', 'zh-TW', 'en', None)
"""

from __future__ import annotations

from typing import Any, Final, Literal

#: one of the languages we speak
Lang = Literal["zh", "zh-TW", "en"]
LANGS: Final[tuple[Lang, ...]] = ("zh", "zh-TW", "en")
#: the language of a text asked for in no language, or in one we do not speak
DEFAULT: Final[Lang] = "en"

_TRADITIONAL = frozenset(("zh-tw", "zh-hk", "zh-hant", "zh-mo"))


def lang_of_locale(locale: object) -> Lang | None:
    """The language we speak for a language code or a Discord locale (``discord.Locale`` or its value), or None
    when we do not speak it."""
    if locale is None:
        return None
    code = str(getattr(locale, "value", locale)).lower().replace("_", "-")
    if code in _TRADITIONAL:
        return "zh-TW"
    if code.startswith("zh"):
        return "zh"
    if code.startswith("en"):
        return "en"
    return None


def resolve(lang: object) -> Lang:
    """``zh``, ``zh-TW`` or ``en`` for any language code or locale; a missing or unknown one is :data:`DEFAULT`."""
    if lang in LANGS:
        return lang
    return lang_of_locale(lang) or DEFAULT


def lang_for(interaction: Any, server_lang: str | None = None) -> Lang:
    """The language of a reply to ``interaction`` (a ``discord.Interaction`` or None): the player's Discord locale
    when we speak it, else the server's choice, else the server's Discord locale when we speak it, else
    :data:`DEFAULT`."""
    if interaction is not None:
        lang = lang_of_locale(getattr(interaction, "locale", None))
        if lang:
            return lang
    if server_lang:
        lang = lang_of_locale(server_lang)
        if lang:
            return lang
    if interaction is not None:
        lang = lang_of_locale(getattr(interaction, "guild_locale", None))
        if lang:
            return lang
    return DEFAULT
