"""`mjbot run` with a database it cannot use: one line naming the file and the problem, exit 1 within seconds, no
traceback, no thread left behind, and never a connection attempt to Discord.

The cases: random bytes, a truncated file, a directory, a read-only file, a read-only folder (with the file, and
without it: the file cannot be created), a schema newer than
this build, and a database another process holds locked. They run twice: in this process through
``bot.cli.main(["run"])`` (stderr, exit status, threads), and as a real ``python -m bot run`` process (exit
status, stderr, and that it ends at all: a connection thread left running would keep it alive until the timeout).

Read-only cases and root: root ignores file permissions, so the process is started without that privilege: as
root, the child enters a new user namespace (``unshare(CLONE_NEWUSER)``) before it runs Python; it keeps its uid
but loses the capabilities that bypass permissions, exactly like an ordinary user owning the files. Where the
kernel refuses a user namespace, those two cases are skipped (and say why). In-process, as root, they are skipped.
"""

from __future__ import annotations

import asyncio
import ctypes
import os
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path

import discord
import pytest

from bot.cli import database_problem, main
from bot.store import Store

# a token shaped like a bot token (the application id 123456789012345678, base64, before the first dot): what is
# under test is the database, not the token
WELL_SHAPED_TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhQ1xY.Zk9s3Ty_wQpLmN0bVcXz-8aRt5UeIoPj2kHg"
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
CLONE_NEWUSER = 0x10000000
READ_ONLY = ("read_only_file", "read_only_folder", "new_file_in_read_only_folder")

# kind -> words the one line must contain
PROBLEMS = {
    "random_bytes": "is not an SQLite database",
    "truncated": "is damaged",
    "directory": "is a folder, not a file",
    "read_only_file": "is read-only",
    "read_only_folder": "folder of the database",
    # no file yet: sqlite3 cannot create it, and aiosqlite's worker thread posted that to an event loop already
    # closed: two "RuntimeError: Event loop is closed" tracebacks around the line (a newcomer's review, 6 runs of 6)
    "new_file_in_read_only_folder": "folder of the database",
    "newer_schema": "newer than this program knows",
    "locked": "locked by another process",
    "unknown_scheme": "unknown kind of database",  # MJBOT_DB=mysql://...: refused, no folder named 'mysql:'
    "postgresql_unreachable": "Cannot use the PostgreSQL database",
}


def _drop_root_privilege() -> None:  # runs in the child between fork and exec
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.unshare(CLONE_NEWUSER) != 0:
        raise OSError(ctypes.get_errno(), "unshare(CLONE_NEWUSER)")


def _can_drop_root_privilege() -> bool:
    try:
        subprocess.run(["true"], preexec_fn=_drop_root_privilege, check=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return False
    return True


CAN_DROP = IS_ROOT and _can_drop_root_privilege()


async def _good_database(path: Path) -> None:
    store = await Store.open(path)
    for g in range(40):  # some rows, so that the file has pages beyond the schema
        await store.update_guild_settings(g + 1, 1, {"turn_seconds": 30 + g})
    await store.close()


def make_bad(kind: str, tmp_path: Path) -> tuple[Path | str, subprocess.Popen[str] | None]:
    """The database path (or URL) for ``kind`` (and the process holding it locked, for ``locked``)."""
    folder = tmp_path / "data"
    folder.mkdir()
    path = folder / "mjbot.sqlite3"
    if kind == "unknown_scheme":
        return "mysql://root@localhost/mjbot", None
    if kind == "postgresql_unreachable":  # a server's socket folder with no server in it
        return f"postgresql://mjbot@/mjbot?host={folder}", None
    if kind == "random_bytes":
        path.write_bytes(os.urandom(16 * 1024))
        return path, None
    if kind == "directory":
        path.mkdir()
        return path, None
    if kind == "new_file_in_read_only_folder":
        folder.chmod(0o555)
        return path, None
    asyncio.run(_good_database(path))
    if kind == "truncated":
        data = path.read_bytes()
        path.write_bytes(data[: len(data) // 2])
    elif kind == "read_only_file":
        path.chmod(0o444)
    elif kind == "read_only_folder":
        folder.chmod(0o555)
    elif kind == "newer_schema":
        db = sqlite3.connect(path)
        db.execute("PRAGMA user_version = 999")
        db.close()
    elif kind == "locked":
        holder = subprocess.Popen(
            [sys.executable, "-c", "import sqlite3, sys, time\n"
             f"db = sqlite3.connect({str(path)!r}, isolation_level=None)\n"
             "db.execute('BEGIN EXCLUSIVE')\nprint('held', flush=True)\ntime.sleep(120)\n"],
            stdout=subprocess.PIPE, text=True)
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        return path, holder
    return path, None


@pytest.fixture
def bad_db(request, tmp_path: Path):
    kind = request.param
    path, holder = make_bad(kind, tmp_path)
    try:
        yield kind, path
    finally:
        if holder is not None:
            holder.kill()
            holder.wait()
        (tmp_path / "data").chmod(0o755)


def _connection_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if "_connection_worker_thread" in t.name]


@pytest.mark.parametrize("bad_db", sorted(PROBLEMS), indirect=True)
def test_run_refuses_an_unusable_database_in_one_line(bad_db, monkeypatch, capsys, tmp_path):
    kind, path = bad_db
    if IS_ROOT and kind in READ_ONLY:
        pytest.skip("root writes read-only files: this case runs in the subprocess test, without that privilege")

    def never(*args, **kwargs):
        raise AssertionError("connected to Discord with a database it cannot use")

    monkeypatch.setattr(discord.Client, "login", never)
    monkeypatch.setattr(discord.Client, "connect", never)
    monkeypatch.setenv("DISCORD_TOKEN", WELL_SHAPED_TOKEN)
    monkeypatch.setenv("MJBOT_DB", str(path))
    monkeypatch.chdir(tmp_path)  # no .env from the project folder
    before = set(_connection_threads())
    code = main(["run"])
    out, err = capsys.readouterr()
    assert code == 2  # a setting to fix: the service does not restart on it
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert str(path) in lines[0] and PROBLEMS[kind] in lines[0], lines[0]
    assert "Traceback" not in err and WELL_SHAPED_TOKEN not in err
    for t in set(_connection_threads()) - before:  # closed: the worker thread ends right after close()
        t.join(timeout=2)
        assert not t.is_alive(), f"a database connection thread is still running after {kind}"


@pytest.mark.parametrize("bad_db", sorted(PROBLEMS), indirect=True)
def test_mjbot_run_process_exits_2_with_one_line(bad_db, tmp_path):
    kind, path = bad_db
    if IS_ROOT and not CAN_DROP and kind in READ_ONLY:
        pytest.skip("running as root and this kernel refuses a user namespace: root would write the file anyway")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "MJBOT_"))}
    env.update(DISCORD_TOKEN=WELL_SHAPED_TOKEN, MJBOT_DB=str(path), MJBOT_LOG_LEVEL="DEBUG")
    started = time.monotonic()
    p = subprocess.run([sys.executable, "-m", "bot", "run"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=60, preexec_fn=_drop_root_privilege if CAN_DROP else None)
    elapsed = time.monotonic() - started
    lines = p.stderr.strip().splitlines()
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert len(lines) == 1, p.stderr
    assert str(path) in lines[0] and PROBLEMS[kind] in lines[0], lines[0]
    assert "Traceback" not in p.stderr and "static token" not in p.stderr, "it never got as far as Discord"
    print(f"{kind}: exit {p.returncode} after {elapsed:.2f} s: {lines[0]}")


def test_a_usable_database_passes_the_start_up_check(tmp_path):
    path = tmp_path / "new" / "mjbot.sqlite3"
    assert database_problem(path) is None, "a new database (and its folder) is created"
    asyncio.run(_good_database(path))
    assert database_problem(path) is None
    for t in _connection_threads():
        t.join(timeout=2)
        assert not t.is_alive()

