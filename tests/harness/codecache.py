"""Compile each source file once per test process.

``load_extension`` executes a cog's module afresh at every boot of the bot (discord.py reloads extensions from their
source), and the harness boots the bot hundreds of times in one session. With bytecode caching off
(``PYTHONDONTWRITEBYTECODE``, or a read-only checkout) every boot compiled the eleven cog modules again: about 60 ms,
most of a boot. :func:`install` keeps the code object of every source file the standard source loader compiles, keyed
by its path and its exact bytes, so a module whose source is unchanged is compiled once; an edited file is compiled
again. Nothing is written to the disk, and what a module does when executed is unchanged (a code object is immutable
and is executed afresh each time).

Installed by ``tests/harness`` on import, so the tests, the fork server of the crash test and its children share it.
"""

from __future__ import annotations

import importlib.machinery
from typing import Any

_ORIGINAL = importlib.machinery.SourceFileLoader.source_to_code
_CODE: dict[tuple[str, bytes], Any] = {}


def _source_to_code(self: Any, data: Any, path: Any, *args: Any, **kwargs: Any) -> Any:
    if args or kwargs or not isinstance(data, bytes) or not isinstance(path, str):
        return _ORIGINAL(self, data, path, *args, **kwargs)
    key = (path, data)
    code = _CODE.get(key)
    if code is None:
        code = _CODE[key] = _ORIGINAL(self, data, path)
    return code


def install() -> None:
    """Compile every source file once in this process (idempotent)."""
    importlib.machinery.SourceFileLoader.source_to_code = _source_to_code  # type: ignore[method-assign]


def installed() -> bool:
    return importlib.machinery.SourceFileLoader.source_to_code is _source_to_code  # type: ignore[comparison-overlap]
