"""Ctrl-C while the ``mjbot`` command's modules load (the first import takes seconds on a cold start): it printed a
KeyboardInterrupt traceback, from the console script's own ``from ... import main``, before any code of ours could
catch it. Now the command ends as one interrupted later: "interrupted" and the exit status 130.

A real process gets a real SIGINT at a known point of the load: a ``sitecustomize`` module this test puts on the
path holds the import of one module (``MJBOT_TEST_HOLD_IMPORT``) until the signal comes, after saying so on stdout.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

HOLD = '''
import os
import sys

HELD = os.environ.get("MJBOT_TEST_HOLD_IMPORT")


class _Hold:
    """Holds the import of HELD: says "loading", then waits on stdin, which the test's SIGINT interrupts (a signal
    that came just before the read is taken at the next line, once the test closes stdin)."""

    def find_spec(self, name, path=None, target=None):
        if name == HELD:
            sys.meta_path.remove(self)
            os.write(1, b"loading\\n")
            sys.stdin.buffer.read()
            os.write(1, b"not interrupted\\n")
        return None


if HELD:
    sys.meta_path.insert(0, _Hold())
'''


def console_script() -> list[str]:
    """What the installed ``mjbot`` runs: the wrapper pip writes for ``[project.scripts]``, from pyproject.toml."""
    entry = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["scripts"]["mjbot"]
    module, func = entry.split(":")
    return [sys.executable, "-c", f"import sys\nfrom {module} import {func}\nsys.exit({func}())"]


@pytest.mark.parametrize("command", ["mjbot", "python -m bot"])
@pytest.mark.parametrize("held", ["text", "engine.ai", "bot.cli"])
def test_ctrl_c_while_the_command_loads_ends_quietly_with_130(tmp_path: Path, command: str, held: str):
    (tmp_path / "sitecustomize.py").write_text(HOLD, encoding="utf-8")
    path = os.pathsep.join(p for p in (str(tmp_path), str(ROOT), os.environ.get("PYTHONPATH", "")) if p)
    env = {**os.environ, "PYTHONPATH": path, "MJBOT_TEST_HOLD_IMPORT": held, "PYTHONDONTWRITEBYTECODE": "1"}
    argv = console_script() if command == "mjbot" else [sys.executable, "-m", "bot"]
    with subprocess.Popen([*argv, "--version"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, env=env, cwd=tmp_path) as proc:
        assert proc.stdout is not None and proc.stdin is not None
        first = proc.stdout.readline()
        assert first == b"loading\n", (first, proc.stderr.read() if proc.stderr else b"")
        proc.send_signal(signal.SIGINT)
        # stdin closed (the read returns if the signal came just before it: the next line takes it); the timeout is
        # a guard against a hang only: the process ends at once
        out, err = proc.communicate(timeout=300)
    assert (proc.returncode, out, err.decode()) == (130, b"", "interrupted\n")
