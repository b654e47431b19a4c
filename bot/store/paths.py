"""Where the database lives: ``MJBOT_DB`` is a file path (SQLite), ``sqlite:///path`` or ``postgresql://...``.

>>> parse_target("postgresql://mjbot@localhost/mjbot")
('postgresql', 'postgresql://mjbot@localhost/mjbot')
>>> parse_target("sqlite:///state/mj.sqlite3"), parse_target("sqlite:////var/lib/mj.sqlite3")
(('sqlite', PosixPath('state/mj.sqlite3')), ('sqlite', PosixPath('/var/lib/mj.sqlite3')))
>>> try:
...     parse_target("mysql://root@localhost/mj")
... except Exception as e:
...     print(e.code, e.params["scheme"])
db_bad_url mysql
>>> shown("postgresql://mjbot:s3cret@db.example/mjbot")
'postgresql://mjbot:***@db.example/mjbot'
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import platformdirs

from .errors import StoreError

APP_NAME = "mjbot"
ENV_VAR = "MJBOT_DB"

#: ``scheme://`` at the start of ``MJBOT_DB``: a URL, not a file name
_URL = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*)://")
POSTGRES_SCHEMES = ("postgresql", "postgres")


def is_url(text: str) -> bool:
    return bool(_URL.match(text))


def db_target(text: str) -> Path | str:
    """``MJBOT_DB`` as the store takes it: a URL stays text (checked when the store opens it), anything else is a
    file path (``~`` expanded)."""
    text = text.strip()
    return text if is_url(text) else Path(text).expanduser()


def parse_target(target: str | os.PathLike[str]) -> tuple[str, Path | str]:
    """``("sqlite", path)`` or ``("postgresql", url)``; an unknown scheme raises ``StoreError('db_bad_url')``.

    ``sqlite:///x.db`` is the file ``x.db`` (relative), ``sqlite:////var/x.db`` the absolute ``/var/x.db``, as in
    SQLAlchemy's URLs."""
    if not isinstance(target, str):
        return "sqlite", Path(target).expanduser()
    m = _URL.match(target)
    if m is None:
        return "sqlite", Path(target).expanduser()
    scheme = m.group(1).lower()
    if scheme in POSTGRES_SCHEMES:
        return "postgresql", target
    if scheme == "sqlite" and target.startswith(m.group(0) + "/") and len(target) > len(m.group(0)) + 1:
        return "sqlite", Path(target[len(m.group(0)) + 1:]).expanduser()
    raise StoreError("db_bad_url", url=shown(target), scheme=scheme)


def shown(target: str | os.PathLike[str]) -> str:
    """The database as it may be printed: a URL's password replaced by ``***``."""
    return re.sub(r"^([A-Za-z][A-Za-z0-9+.-]*://[^:/@]*):[^@/]*@", r"\1:***@", str(target))


def default_db_path() -> Path | str:
    """``$MJBOT_DB`` if set (a path, or a URL kept as text), else ``mjbot.sqlite3`` in the user's data directory
    (e.g. ``~/.local/share/mjbot``).

    The folder is not created here; :meth:`bot.store.Store.open` creates it.
    """
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return db_target(env)
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "mjbot.sqlite3"
