"""Every test sees the engine's messages in words, as the bot and the CLI do: the string catalogue's module registers
the engine's translator on import (the engine itself holds no text).

The database fixtures: ``db_target`` (a fresh database for the test) and ``new_db_target`` (a factory of them) are
SQLite files, or in a module marked ``pytestmark = pytest.mark.both_backends`` each test runs twice, on SQLite and on
PostgreSQL (one throw-away server per session and xdist worker, ``tests/harness/pg.py``; a database per test copied
from a migrated template). Without a server the PostgreSQL half is skipped, except under CI (``CI`` set), where it
fails.

Also here: the temporary files in RAM, how many xdist workers run, and which tests run first (see
docs/architecture.md, "How the suite runs")."""

import asyncio
import faulthandler
import gc
import io
import logging
import os
import shutil
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import pytest

from text import catalog as catalog  # noqa: F401


def _temporary_files_in_memory() -> None:
    """Every temporary file of the session (``tmp_path``, the test databases, the PostgreSQL server's folder, the
    subprocesses' scratch files) in RAM when the machine has a RAM file system: a SQLite database is made durable
    with several fsyncs, which cost tens of milliseconds on a disk and nothing in RAM, and there are thousands of
    databases in a session. A ``TMPDIR`` set by whoever runs the tests is kept."""
    shm = Path("/dev/shm")
    if "TMPDIR" not in os.environ and shm.is_dir() and os.access(shm, os.W_OK | os.X_OK):
        os.environ["TMPDIR"] = str(shm)  # subprocesses too
        tempfile.tempdir = None  # looked up again from TMPDIR


_temporary_files_in_memory()

# ---------------------------------------------------------------------------------------------------------------
# how many processes run the tests (``-n auto`` in pyproject.toml: pytest-xdist)


@pytest.hookimpl(optionalhook=True)  # (pytest-xdist's hook)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """One worker per core (xdist's own choice: None) for the whole suite or a folder, except for a run that
    starting workers (a second or so each) would only slow down or get in the way of: files or single tests named
    (``file.py``, ``file.py::test``), output not captured (``-s``) or a debugger (``--pdb``, ``--trace``); those run
    in this process (0). ``-n 2`` spreads a file's tests all the same."""
    args = [a.split("::")[0] for a in config.args if not a.startswith("-")]
    if args and not any(Path(a).is_dir() for a in args):
        return 0
    if config.getoption("capture") == "no" or config.getoption("usepdb") or config.getoption("trace"):
        return 0
    return None


#: Tests that take seconds each (wheels built, a bot SIGKILLed hundreds of times, AI games, a 5 s database lock),
#: run first: with several workers, none is left running one of them alone at the end. Node id prefixes.
RUN_FIRST = (
    "tests/test_upgrade.py",
    "tests/bot/test_store_crash.py",
    "tests/engine/test_strong.py::test_strong_decisions_are_legal_in_fuzzed_hands",
    "tests/engine/test_table_invariants.py",
    "tests/engine/test_ai.py::test_four_ais_of_any_difficulty_win_hands_in_every_variant",
    "tests/bot/test_startup_db.py",
    "tests/engine/test_review.py",
    "tests/cogs/test_table_requests.py",
    "tests/test_suite_hangs.py",
)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The slowest tests (:data:`RUN_FIRST`) first, the rest in their usual order (the sort is stable; every worker
    sorts alike, as xdist requires)."""
    def rank(item: pytest.Item) -> int:
        return next((i for i, prefix in enumerate(RUN_FIRST) if item.nodeid.startswith(prefix)), len(RUN_FIRST))

    items.sort(key=rank)


# ---------------------------------------------------------------------------------------------------------------
# a hang says where it hangs: pytest-timeout (``timeout`` in pyproject.toml) prints every thread's stack and ends the
# worker; for a test on an event loop that is only the loop's ``select``, so the tasks' own stacks are printed first


#: where a worker about to time out writes what it was doing (the controller prints it at the end: an xdist worker's
#: own stderr reaches no one)
HANG_DIR = "MJBOT_TEST_HANG_DIR"


def _write_hang_report(nodeid: str) -> None:
    """Every thread's stack and every unfinished task of every open event loop of this process, with its stack, to
    a file of :data:`HANG_DIR`."""
    out = io.StringIO()
    gc.unfreeze()  # a bot's start-up froze its objects (bot.app.freeze_startup): the loop among them, out of sight
    loops = [o for o in gc.get_objects() if isinstance(o, asyncio.AbstractEventLoop) and not o.is_closed()]
    print(f"+++ {nodeid} is about to time out in process {os.getpid()}: "
          f"the asyncio tasks of its {len(loops)} open event loop(s) +++", file=out)
    for loop in loops:
        tasks: list[asyncio.Task[object]] = []
        for _ in range(10):  # the loop's thread may change the set of tasks meanwhile
            try:
                tasks = list(asyncio.all_tasks(loop))
                break
            except RuntimeError:
                continue
        for task in tasks:
            task.print_stack(limit=25, file=out)
    print("+++ every thread +++", file=out)
    folder = Path(os.environ.get(HANG_DIR) or tempfile.gettempdir())
    path = folder / f"hang-{os.getpid()}-{threading.get_ident()}.txt"
    with open(path, "w", encoding="utf-8") as f:
        f.write(out.getvalue())
        f.flush()
        faulthandler.dump_traceback(file=f, all_threads=True)
    # (run without workers, this process ends before its summary: the tasks go to the terminal too; pytest-timeout
    # prints the threads)
    sys.__stderr__.write(out.getvalue() + f"(also in {path})\n")
    sys.__stderr__.flush()


def pytest_sessionstart(session: pytest.Session) -> None:
    if not hasattr(session.config, "workerinput") and not os.environ.get(HANG_DIR):  # the controller, before workers
        os.environ[HANG_DIR] = tempfile.mkdtemp(prefix="mjbot-test-hangs-")
        session.config.add_cleanup(lambda: shutil.rmtree(os.environ.pop(HANG_DIR), ignore_errors=True))


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    folder = os.environ.get(HANG_DIR)
    if hasattr(terminalreporter.config, "workerinput") or not folder or not Path(folder).is_dir():
        return
    for report in sorted(Path(folder).glob("hang-*.txt")):
        terminalreporter.section(f"a test that timed out: {report.name}")
        terminalreporter.write(report.read_text(encoding="utf-8", errors="replace"))


_HANG_TIMER = pytest.StashKey[threading.Timer]()


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_set_timer(item: pytest.Item, settings: Any) -> None:
    """pytest-timeout's hook, with the test's resolved limit (marker, ini or ``--timeout``): the hang report is
    written shortly before that limit; pytest-timeout's own timer is set after this (None: not handled here)."""
    timer = threading.Timer(max(settings.timeout - 10.0, settings.timeout * 0.9), _write_hang_report,
                            args=(item.nodeid,))
    timer.daemon = True
    timer.start()
    item.stash[_HANG_TIMER] = timer


@pytest.hookimpl(tryfirst=True)
def pytest_timeout_cancel_timer(item: pytest.Item) -> None:
    timer = item.stash.get(_HANG_TIMER, None)
    if timer is not None:
        timer.cancel()
        del item.stash[_HANG_TIMER]


# ---------------------------------------------------------------------------------------------------------------
# the database every test's store opens: SQLite, or PostgreSQL in the modules marked ``both_backends``

BACKENDS = ("sqlite", "postgresql")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "both_backends: run the module's tests that open a database (``db_target``, ``harness``) on "
                   "SQLite and on PostgreSQL (a throw-away server: tests/harness/pg.py)")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "db_backend" in metafunc.fixturenames and metafunc.definition.get_closest_marker("both_backends"):
        metafunc.parametrize("db_backend", BACKENDS, indirect=True)


@pytest.fixture
def db_backend(request: pytest.FixtureRequest) -> str:
    """``sqlite`` (every test), or each of :data:`BACKENDS` in a module marked ``both_backends``."""
    return getattr(request, "param", "sqlite")


@pytest.fixture(scope="session")
def pg_server():
    """One PostgreSQL server for the whole session, or a skip (locally) / a failure (under CI: ``CI`` set) when none
    can be started here."""
    from tests.harness.pg import PgServer, PgUnavailable

    try:
        server = PgServer.start()
    except PgUnavailable as e:
        if os.environ.get("CI"):
            pytest.fail(f"the PostgreSQL tests must run under CI, and no server could be started: {e}")
        pytest.skip(f"no PostgreSQL server here: {e}")
    try:
        server.make_template()
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_database(pg_server):
    """A factory of throw-away PostgreSQL databases: ``pg_database()`` -> the URL of a new migrated one,
    ``pg_database(empty=True)`` -> a new empty one (no schema); each is dropped after the test."""
    made: list[str] = []

    def make(*, empty: bool = False) -> str:
        url = pg_server.create_database(empty=empty)
        made.append(url)
        return url

    yield make
    for url in made:
        pg_server.drop_database(url)


@pytest.fixture
def pg_url(pg_database) -> str:
    """The URL of a new migrated PostgreSQL database, dropped after the test."""
    return pg_database()


@pytest.fixture
def new_db_target(db_backend: str, tmp_path: Path, request: pytest.FixtureRequest):
    """A factory of fresh, empty-of-data databases: ``new_db_target(name)`` -> a SQLite file path under
    ``tmp_path/name`` or the URL of a new PostgreSQL database (migrated; dropped after the test)."""
    made: list[str] = []
    server = request.getfixturevalue("pg_server") if db_backend == "postgresql" else None

    def make(name: str = "db") -> Path | str:
        if server is None:
            folder = tmp_path / name
            folder.mkdir(parents=True, exist_ok=True)
            return folder / "bot.db"
        url = server.create_database()
        made.append(url)
        return url

    yield make
    for url in made:
        assert server is not None
        server.drop_database(url)


@pytest.fixture
def db_target(new_db_target) -> Path | str:
    """The test's database: ``tmp_path/db/bot.db`` (SQLite) or a fresh PostgreSQL database."""
    return new_db_target()


@pytest.fixture(autouse=True)
def _root_logging_restored():
    """A test that starts the bot the way ``mjbot run`` does installs discord.py's log handler on the root logger,
    bound to that test's captured stderr; removed afterwards, so that a later test's log lines never go to a closed
    stream (a "--- Logging error ---" traceback in that test's output)."""
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    for handler in root.handlers[:]:
        if handler not in handlers:
            root.removeHandler(handler)
    root.setLevel(level)
