"""The engine is pure: it imports only itself and the standard library, never OpenCC, a clock, I/O or discord."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ENGINE = Path(__file__).resolve().parents[2] / "engine"
FORBIDDEN = {"time", "datetime", "opencc", "discord", "os", "io", "pathlib", "socket", "sqlite3", "aiosqlite",
             "asyncio", "PIL", "render", "bot", "cogs", "subprocess", "shutil", "tempfile", "zoneinfo"}


def _imports(path: Path) -> set[str]:
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.add(node.module.split(".")[0])
    return out


def test_engine_imports_only_itself_and_the_standard_library():
    files = sorted(ENGINE.rglob("*.py"))
    assert len(files) > 10
    for f in files:
        names = _imports(f) - {"engine", "__future__"}
        assert not names & FORBIDDEN, (f, names & FORBIDDEN)
        assert names <= set(sys.stdlib_module_names), (f, names - set(sys.stdlib_module_names))


def test_the_purity_check_sees_a_clock():
    # the checker itself finds what it looks for
    src = ENGINE / "selfplay.py"
    assert "random" in _imports(src) and "time" not in _imports(src)
    assert _imports(Path(__file__)) >= {"ast", "sys", "pathlib"}
