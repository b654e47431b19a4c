"""Where the database lives by default."""

from __future__ import annotations

import os
from pathlib import Path

import platformdirs

APP_NAME = "mjbot"
ENV_VAR = "MJBOT_DB"


def default_db_path() -> Path:
    """``$MJBOT_DB`` if set, else ``mjbot.sqlite3`` in the user's data directory (e.g. ``~/.local/share/mjbot``).

    The folder is not created here; :meth:`bot.store.Store.open` creates it.
    """
    env = os.environ.get(ENV_VAR, "").strip()
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)) / "mjbot.sqlite3"
