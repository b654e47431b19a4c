"""The bot's configuration: environment variables, optionally from a ``.env`` file.

========================  ==============================================================
``DISCORD_TOKEN``         the bot token (never logged or printed)
``MJBOT_DB``              the database: a SQLite file (default: under the user's data folder), ``sqlite:///path``
                          or ``postgresql://user:password@host/dbname``
``MJBOT_DEV_GUILD``       a server id: commands sync to that server only, instantly
``MJBOT_LOG_LEVEL``       DEBUG, INFO (default), WARNING, ERROR
``MJBOT_SHARD_IDS``       the Discord shards this process runs: ``0-3`` or ``0,2,5`` (needs ``MJBOT_SHARD_COUNT``;
                          default: every shard)
``MJBOT_SHARD_COUNT``     how many shards the bot has in all (default: Discord's recommended count)
``MJBOT_DB_POOL``         PostgreSQL only: the most connections this process opens (default 10)
``MJBOT_DB_TIMEOUT``      PostgreSQL only: the longest one database statement may run, in seconds (default 15); a
                          move past it is refused as "the database is not answering" and tried again
``MJBOT_GLOBAL_RATE``     this process's share of Discord's global limit, requests per second (default: 50, or
                          50 x its shards / the shard count when the bot runs in several processes)
========================  ==============================================================

>>> c = Config.from_env({"DISCORD_TOKEN": "abc", "MJBOT_DB": "/tmp/x.db", "MJBOT_DEV_GUILD": "42"}, dotenv=False)
>>> c.dev_guild, str(c.db_path), c.log_level
(42, '/tmp/x.db', 'INFO')
>>> "abc" in repr(c)
False
"""

from __future__ import annotations

import base64
import binascii
import io
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .shards import ShardPlan

log = logging.getLogger(__name__)

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")


def _default_db_path() -> Path | str:
    """The store's default (``bot.store.default_db_path``: under the user's data folder)."""
    from bot.store import default_db_path

    return default_db_path()


def _data_dir_db_path() -> Path:
    """The default ignoring ``os.environ`` (for an explicit ``environ`` mapping)."""
    from platformdirs import user_data_dir

    from bot.store.paths import APP_NAME

    return Path(user_data_dir(APP_NAME, appauthor=False)) / "mjbot.sqlite3"


def _db_target(text: str) -> Path | str:
    from bot.store.paths import db_target

    return db_target(text)


def _positive(env: Mapping[str, str], name: str, kind: type[int] | type[float], most: float,
              least: float = 0.0) -> Any:
    """``env[name]`` as a number above 0 (and at least ``least``) and at most ``most``, or None when unset;
    :class:`ConfigError` otherwise."""
    text = (env.get(name) or "").strip()
    if not text:
        return None
    try:
        value = kind(text)
    except ValueError:
        value = None
    if value is None or not 0 < value <= most or value != value or value < least:
        what = "a whole number" if kind is int else "a number"
        low = f"at least {least:g}" if least else "above 0"
        raise ConfigError(f"{name} must be {what} {low} and at most {most:g}, not {text!r}")
    return value


class ConfigError(ValueError):
    """A setting has a value the bot cannot use; the message says which and why."""


SETTINGS = ("DISCORD_TOKEN", "MJBOT_DB", "MJBOT_DEV_GUILD", "MJBOT_LOG_LEVEL", "MJBOT_SHARD_IDS", "MJBOT_SHARD_COUNT",
            "MJBOT_DB_POOL", "MJBOT_DB_TIMEOUT", "MJBOT_GLOBAL_RATE")
"""The variables the bot reads (the table above)."""


def application_id_from_token(token: str | None) -> int | None:
    """The bot's (public) user id that a bot token starts with, or None when ``token`` is not shaped like one.

    >>> application_id_from_token(base64.b64encode(b"123456789012345678").decode().rstrip("=") + ".Gabcde.xyz")
    123456789012345678
    >>> application_id_from_token("not a token") is None
    True
    """
    if not token:
        return None
    parts = token.split(".")
    if len(parts) != 3 or not all(parts):
        return None
    head = parts[0] + "=" * (-len(parts[0]) % 4)
    try:
        text = base64.b64decode(head, altchars=b"-_", validate=True).decode("ascii")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return int(text) if text.isdigit() and 15 <= len(text) <= 21 else None


def load_env_file(path: Path) -> None:
    """Set the variables of the ``.env`` file at ``path`` (when it exists) that the environment does not set, or
    sets empty (a stray ``export DISCORD_TOKEN=`` does not hide the file's token). Only that file is read: not one
    in a parent folder. A file that cannot be read, is not UTF-8 or has a line that is not ``NAME=value`` is a
    :class:`ConfigError` naming the file (and the line), not a traceback or a warning the bot then runs past.

    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as d:
    ...     _ = (Path(d) / ".env").write_text('DISCORD_TOKEN="abc.def\\n')
    ...     load_env_file(Path(d) / ".env")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bot.config.ConfigError: .env line 1 cannot be read: write it NAME=value (is a quote left open?) ...
    """
    from dotenv.parser import parse_stream

    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return
    except IsADirectoryError:
        raise ConfigError(f".env ({path}) is a folder, not a file") from None
    except OSError as e:
        raise ConfigError(f".env ({path}) cannot be read: {e.strerror or e}") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ConfigError(f".env ({path}) is not UTF-8 text: save it as UTF-8 (an editor's 'Save as' offers it)"
                          ) from None
    values: dict[str, str] = {}
    for b in parse_stream(io.StringIO(text)):
        if b.error:
            raise ConfigError(f".env line {b.original.line} cannot be read: write it NAME=value (is a quote left "
                              f"open?) ({path})")
        if b.key is not None and b.value is not None:
            values[b.key] = b.value
    for key, value in values.items():
        if not (os.environ.get(key) or "").strip():
            os.environ[key] = value


@dataclass
class Config:
    token: str | None = field(default=None, repr=False)
    db_path: Path | str = field(default_factory=_default_db_path)  # a file, or a URL (bot.store.paths)
    dev_guild: int | None = None
    log_level: str = "INFO"
    shards: ShardPlan | None = None  # None: every shard in this process (bot.shards)

    @property
    def shard_plan(self) -> ShardPlan:
        from .shards import ShardPlan

        return self.shards or ShardPlan()
    db_pool: int | None = None  # None: bot.store.postgres.DEFAULT_POOL
    db_timeout: float | None = None  # None: bot.store.postgres.Limits.statement
    global_rate: float | None = None  # None: bot.ratelimit.share(...) of Discord's 50 requests/s

    def __repr__(self) -> str:  # the token never appears in logs or tracebacks
        token = "set" if self.token else "missing"
        from bot.store.paths import shown

        return f"Config(token={token}, db_path={shown(self.db_path)!r}, dev_guild={self.dev_guild}, log_level={self.log_level!r}, shards={self.shard_plan.describe()!r})"

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None, *, dotenv: bool | str | Path = True) -> Config:
        """Read the settings from ``environ`` (default ``os.environ``), after loading ``.env`` when ``dotenv``.

        ``.env`` never overrides a variable that is already set. ``dotenv`` may be the path of the file.
        """
        if dotenv:
            load_env_file(Path(dotenv) if not isinstance(dotenv, bool) else Path.cwd() / ".env")
        env = os.environ if environ is None else environ
        for name in SETTINGS:  # a token pasted on another line: no message may repeat it
            if name != "DISCORD_TOKEN" and application_id_from_token((env.get(name) or "").strip()) is not None:
                raise ConfigError(f"{name} holds what looks like a bot token (not shown): the token belongs on the "
                                  "DISCORD_TOKEN line")
        token = (env.get("DISCORD_TOKEN") or "").strip() or None
        if token and token[:4].lower() == "bot ":  # pasted as it goes in an HTTP header: the token is what follows
            token = token[4:].strip() or None
        db = (env.get("MJBOT_DB") or "").strip()
        guild_text = (env.get("MJBOT_DEV_GUILD") or "").strip()
        dev_guild = None
        if guild_text:
            # a Discord id: 1 .. 2^64 - 1, ASCII digits only (``²`` passes ``isdigit`` and ``int()`` refuses it)
            if not (guild_text.isascii() and guild_text.isdigit()) or not 0 < int(guild_text) < 2**64:
                raise ConfigError(f"MJBOT_DEV_GUILD must be a server id (digits), not {guild_text!r}")
            dev_guild = int(guild_text)
        level_text = (env.get("MJBOT_LOG_LEVEL") or "INFO").strip()
        level = level_text.upper()
        if level not in LOG_LEVELS:
            raise ConfigError(f"MJBOT_LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}, not {level_text!r}")
        from .shards import COUNT_ENV, IDS_ENV, ShardError, parse_shards

        try:
            shards = parse_shards(env.get(IDS_ENV), env.get(COUNT_ENV), ids_name=IDS_ENV, count_name=COUNT_ENV)
        except ShardError as e:
            raise ConfigError(str(e)) from None
        db_pool = _positive(env, "MJBOT_DB_POOL", int, 1000)
        db_timeout = _positive(env, "MJBOT_DB_TIMEOUT", float, 3600.0, least=1.0)
        global_rate = _positive(env, "MJBOT_GLOBAL_RATE", float, 50.0, least=0.1)  # 0.1: a request every 10 s
        return cls(
            token=token,
            db_path=_db_target(db) if db else (_default_db_path() if environ is None else _data_dir_db_path()),
            dev_guild=dev_guild,
            log_level=level,
            shards=shards,
            db_pool=db_pool,
            db_timeout=db_timeout,
            global_rate=global_rate,
        )
