"""Errors the engine raises for bad input: a stable code and the parameters of its message.

Every error carries a stable ``code`` (for programs and JSON) and the parameters of its message. The engine is pure:
it holds no text. The message of code ``c`` is the catalogue's key ``engine.c`` (``data/locale``), and the layer
above registers the function that looks it up with :func:`set_translator` (``text.catalog`` does on import, so
the bot, the CLI and the images all have it). The engine knows no languages either: it hands the language it is
given, as given, to the translator, which resolves it (``text.lang``: one default for a missing one). A parameter may itself be a message (:class:`Msg`), translated in the
same language. Without a translator a message reads as its code and parameters.

>>> e = EngineError("five_copies", tile="5m")
>>> e.code, e.params
('five_copies', {'tile': '5m'})
>>> translate("five_copies", "en", translator=lambda key, lang, p: f"{key} [{lang}] {p['tile']}", tile="5m")
'engine.five_copies [en] 5m'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

#: key, language (as the caller gave it: ``en``, ``zh``, ``zh-TW``, a locale or None), parameters -> the text
Translator = Callable[[str, str | None, Mapping[str, object]], str]
_translator: Translator | None = None

PREFIX = "engine."  # the catalogue keys of the engine's messages


@dataclass(frozen=True)
class Msg:
    """A message given as a parameter of another: ``key`` (a full catalogue key) and its own parameters.

    >>> str(Msg("engine.how.self"))
    'engine.how.self'
    """

    key: str
    params: Mapping[str, object] = field(default_factory=dict)
    fallback: str | None = None  # the text when the catalogue has no ``key`` (e.g. a variant registered later)

    def __str__(self) -> str:
        return self.key


def set_translator(translator: Translator | None) -> Translator | None:
    """Register the function that turns a key and parameters into text (None: none); returns the previous one."""
    global _translator
    previous, _translator = _translator, translator
    return previous


def render_message(key: str, lang: str | None = "en", translator: Translator | None = None,
                   params: Mapping[str, object] | None = None) -> str:
    """The text of the catalogue key ``key`` in ``lang``, :class:`Msg` parameters translated first."""
    use = translator if translator is not None else _translator
    values = dict(params or {})
    if use is None:
        shown = ", ".join(f"{k}={v}" for k, v in values.items())
        return f"{key} ({shown})" if shown else key
    for name, value in values.items():
        if isinstance(value, Msg):
            text = render_message(value.key, lang, use, value.params)
            values[name] = value.fallback if text == value.key and value.fallback is not None else text
    return use(key, lang, values)


def translate(code: str, lang: str | None = "en", translator: Translator | None = None, **params: object) -> str:
    """The message for the engine's ``code`` in ``lang`` with its parameters filled in."""
    return render_message(PREFIX + code, lang, translator, params)


class EngineError(ValueError):
    """Bad input to the engine: a stable ``code``, message parameters and a message in any supported language."""

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params = params
        super().__init__(code)

    def message(self, lang: str | None = "en") -> str:
        """The message in ``lang`` (``en``, ``zh``, ``zh-TW`` or a Discord locale)."""
        return render_message(PREFIX + self.code, lang, params=self.params)

    def __str__(self) -> str:
        return self.message("en")


class ParseError(EngineError):
    """The notation could not be read. A character it names that cannot be seen (a control character, a lone
    whitespace other than a space) is named by its code point, so the message never shows an empty ``''``.

    >>> ParseError("unknown_char", char="\x01", pos=13).params["char"], ParseError("unknown_char", char="x").params["char"]
    ('U+0001', 'x')
    """

    def __init__(self, code: str, **params: object) -> None:
        ch = params.get("char")
        if isinstance(ch, str) and len(ch) == 1 and not (ch.isprintable() and (ch == " " or not ch.isspace())):
            params["char"] = f"U+{ord(ch):04X}"
        super().__init__(code, **params)


class HandError(EngineError):
    """The hand was read but cannot be scored: not complete, not allowed to win, or impossible."""
