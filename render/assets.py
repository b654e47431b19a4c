"""The shipped assets: the repository's ``data/`` folder, installed as the package ``mjbot_data``.

``pyproject.toml`` maps the package ``mjbot_data`` onto ``data/`` and ships every file in it as package data, so a
wheel, a ``pip install .``, a pipx install and an editable install all find the same files, and nothing is read
relative to the source tree. Code asks for an asset by its path inside ``data/``:

>>> with open(path("fonts", "LICENSE-OFL.txt"), encoding="utf-8") as f:
...     "SIL OPEN FONT LICENSE" in f.read()
True
>>> read_text("fonts", "charset.txt")[:1] != ""
True
>>> files().joinpath("fonts").is_dir()
True

Adding an asset (a font, a string catalogue, a picture) is dropping the file in ``data/`` (any sub-folder): the
package-data globs in ``pyproject.toml`` take every file, and ``.ci/run`` checks that each file git tracks under
``data/`` is in the built wheel. Assets of another package (``bot/migrations/*.sql``) use :func:`resource_path`.
"""

from __future__ import annotations

import atexit
import contextlib
from functools import cache
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path

PACKAGE = "mjbot_data"  # the data/ folder, installed (editable or not) under this name

_extracted = contextlib.ExitStack()  # files copied out of a zipped install live until the process exits
atexit.register(_extracted.close)


def files(package: str = PACKAGE) -> Traversable:
    """The root of ``package``'s resources (``data/`` for the default)."""
    return resources.files(package)


@cache
def resource_path(package: str, *parts: str) -> Path:
    """A real file on disk for the resource ``parts`` of ``package``, for libraries that need a file name (fonts).

    An ordinary install hands back the installed file itself; an install from a zip extracts it once to a temporary
    file kept for the life of the process."""
    return Path(_extracted.enter_context(resources.as_file(files(package).joinpath(*parts))))


def path(*parts: str) -> Path:
    """A real file on disk for ``data/<parts...>``."""
    return resource_path(PACKAGE, *parts)


def read_text(*parts: str, encoding: str = "utf-8") -> str:
    """The text of ``data/<parts...>``."""
    return files().joinpath(*parts).read_text(encoding=encoding)


def read_bytes(*parts: str) -> bytes:
    return files().joinpath(*parts).read_bytes()
