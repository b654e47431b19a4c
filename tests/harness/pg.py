"""A throw-away PostgreSQL server for the tests: ``initdb`` in a temporary folder, listening on a Unix socket only,
stopped (and its folder removed) at the end of the session; a fresh database per test, copied from a migrated
template (``CREATE DATABASE ... TEMPLATE``: a few milliseconds).

    server = PgServer.start()                # PgUnavailable(reason) when there is no server to run
    url = server.create_database()           # postgresql://postgres@/t1?host=<socket folder>
    server.drop_database(url)
    server.stop()

As root the server runs as the ``postgres`` user (``runuser``), which owns the folder. The binaries are found on
``PATH``, in ``$MJBOT_PG_BIN`` or under ``/usr/lib/postgresql/<version>/bin`` (Debian's packages).
"""

from __future__ import annotations

import glob
import itertools
import os
import pwd
import shutil
import subprocess
import tempfile
from pathlib import Path


class PgUnavailable(Exception):
    """No PostgreSQL server can be started here (the reason says why)."""


def _bin_dir() -> Path:
    env = os.environ.get("MJBOT_PG_BIN")
    if env:
        return Path(env)
    found = shutil.which("pg_ctl")
    if found:
        return Path(found).resolve().parent
    versions = sorted(glob.glob("/usr/lib/postgresql/*/bin/pg_ctl"), key=lambda p: int(Path(p).parts[-3]))
    if versions:
        return Path(versions[-1]).parent
    raise PgUnavailable("no PostgreSQL server binaries (pg_ctl) found: install postgresql (Debian: postgresql-15)")


class PgServer:
    def __init__(self, root: Path, bindir: Path, as_user: list[str]) -> None:
        self.root = root
        self.data = root / "data"
        self.socket_dir = root / "sock"
        self.bindir = bindir
        self.as_user = as_user
        self._n = itertools.count(1)
        self.template = "mjbot_template"

    @classmethod
    def start(cls) -> PgServer:
        """A new server in a new folder of the system's temporary folder (one the ``postgres`` user can reach)."""
        bindir = _bin_dir()
        as_user: list[str] = []
        root = Path(tempfile.mkdtemp(prefix="mjbot-pg-"))
        if os.geteuid() == 0:  # the server refuses to run as root
            try:
                pw = pwd.getpwnam("postgres")
            except KeyError:
                raise PgUnavailable("running as root and there is no 'postgres' user to run the server") from None
            runuser = shutil.which("runuser")
            if runuser is None:
                raise PgUnavailable("running as root and runuser is missing")
            as_user = [runuser, "-u", "postgres", "--"]
            os.chown(root, pw.pw_uid, pw.pw_gid)
        server = cls(root, bindir, as_user)
        try:
            server._boot()
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        return server

    def _boot(self) -> None:
        server, bindir = self, self.bindir
        server._run([str(bindir / "initdb"), "-D", str(server.data), "-U", "postgres", "--auth=trust",
                     "-E", "UTF8", "--locale=C", "--no-sync"])
        server._run(["mkdir", "-p", str(server.socket_dir)])
        # a Unix socket only; nothing flushed to the disk and little WAL kept: a test server, thrown away at the end
        options = (f"-k {server.socket_dir} -c listen_addresses='' -c fsync=off -c full_page_writes=off "
                   "-c synchronous_commit=off -c wal_level=minimal -c max_wal_senders=0 -c max_wal_size=64MB "
                   "-c min_wal_size=32MB -c max_connections=200 -c shared_buffers=32MB")
        server._run([str(bindir / "pg_ctl"), "-D", str(server.data), "-o", options, "-l",
                     str(server.root / "server.log"), "-w", "-t", "60", "start"])

    def _run(self, cmd: list[str]) -> str:
        try:
            out = subprocess.run([*self.as_user, *cmd], capture_output=True, text=True, timeout=120, cwd=self.root)
        except (OSError, subprocess.TimeoutExpired) as e:
            raise PgUnavailable(f"{cmd[0]}: {e}") from None
        if out.returncode != 0:
            log = self.root / "server.log"
            tail = log.read_text(errors="replace")[-2000:] if log.exists() else ""
            raise PgUnavailable(f"{' '.join(cmd[:2])} failed: {out.stderr.strip() or out.stdout.strip()} {tail}")
        return out.stdout

    def url(self, database: str) -> str:
        return f"postgresql://postgres@/{database}?host={self.socket_dir}"

    def psql(self, sql: str, database: str = "postgres") -> str:
        return self._run([str(self.bindir / "psql"), "-h", str(self.socket_dir), "-U", "postgres", "-d", database,
                          "-v", "ON_ERROR_STOP=1", "-qAt", "-c", sql])

    def make_template(self) -> None:
        """The template every test's database is copied from: migrated by the store itself."""
        import asyncio

        from bot.store import Store

        self.psql(f"CREATE DATABASE {self.template}")

        async def migrate() -> None:
            await (await Store.open(self.url(self.template))).close()

        asyncio.run(migrate())

    def create_database(self, *, empty: bool = False) -> str:
        """A fresh database (migrated, or ``empty``); its URL."""
        name = f"t{os.getpid()}_{next(self._n)}"
        self.psql(f"CREATE DATABASE {name}" + ("" if empty else f" TEMPLATE {self.template}"))
        return self.url(name)

    def drop_database(self, url: str) -> None:
        name = url.split("/")[-1].split("?")[0]
        self.psql(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

    def stop(self) -> None:
        """Stop the server at once and remove its folder (in the background: a session's WAL can take seconds)."""
        try:
            self._run([str(self.bindir / "pg_ctl"), "-D", str(self.data), "-m", "immediate", "-w", "stop"])
        finally:
            subprocess.Popen(["rm", "-rf", str(self.root)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
