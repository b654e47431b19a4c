"""constraints.txt pins every dependency the project names (runtime and test extra), so CI and deployments that
install with ``-c constraints.txt`` get the versions the suite last passed with, not whatever is newest."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _pinned() -> dict[str, str]:
    out = {}
    for line in (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, version = line.partition("==")
            assert version, f"constraints.txt: {line!r} is not pinned with =="
            out[_norm(name)] = version
    return out


def test_every_named_dependency_is_pinned() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    named = list(project["dependencies"])
    for extra in project.get("optional-dependencies", {}).values():
        named += extra
    pinned = _pinned()
    missing = sorted({_norm(re.split(r"[<>=!~;\[ ]", d, maxsplit=1)[0]) for d in named} - set(pinned))
    assert not missing, f"not pinned in constraints.txt (run tools/refresh_constraints.sh): {missing}"


def test_tzdata_and_mypy_are_pinned() -> None:
    pinned = _pinned()
    assert "tzdata" in pinned and "mypy" in pinned
