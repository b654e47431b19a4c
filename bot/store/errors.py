"""The store's errors: a stable code plus parameters. An error carries its catalogue key (``store.<code>``,
``data/locale``) and parameters, never text: the words are looked up (:mod:`text.catalog`) when the error is shown,
in the reader's language."""

from __future__ import annotations

from typing import Any

from text.catalog import text


class StoreError(Exception):
    """A refused store operation. Nothing was written when this is raised.

    >>> e = StoreError("unknown_record", record_id="R1")
    >>> e.key, e.params
    ('store.unknown_record', {'record_id': 'R1'})
    """

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.key = f"store.{code}"
        self.params = params
        self.end = ""  # mjbot db copy: "source" or "destination", the end it concerns (bot.store.copy._at)
        super().__init__(self.key)

    def message(self, lang: str | None = "en") -> str:
        """The message in ``en``, ``zh`` or ``zh-TW`` (any Discord locale is accepted); a parameter that was not
        given reads as "?" (e.g. the path, when a caller does not know it)."""
        return text(self.key, lang, _missing="?", **self.params)

    def __str__(self) -> str:
        return self.message("en")
