"""The store's errors: a stable code plus parameters; the message of code ``c`` is the catalogue key ``store.c``
(``data/locale``, :mod:`render.catalog`)."""

from __future__ import annotations

from typing import Any

from render.catalog import text


class StoreError(Exception):
    """A refused store operation. Nothing was written when this is raised."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(self.message("en"))

    def message(self, lang: str | None = "en") -> str:
        """The message in ``en``, ``zh`` or ``zh-TW`` (any Discord locale is accepted); a parameter that was not
        given reads as "?" (e.g. the path, when a caller does not know it)."""
        return text(f"store.{self.code}", lang, _missing="?", **self.params)
