"""The store's shape (issue 22): one front door, topics of a readable size, no reaching into each other."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
STORE = ROOT / "bot" / "store"
CALLERS = [p for d in ("bot", "cogs", "tests", "benchmarks", "tools") for p in (ROOT / d).rglob("*.py")
           if ".venv" not in p.parts]


def test_no_store_module_is_over_600_lines():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in STORE.glob("*.py")}
    assert {n: s for n, s in sizes.items() if s > 600} == {}


def test_no_module_imports_another_modules_underscore_names():
    found = []
    for path in CALLERS:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and "store" in node.module or (
                    isinstance(node, ast.ImportFrom) and node.level > 0 and path.parent == STORE):
                found += [f"{path.relative_to(ROOT)}: {a.name}" for a in node.names
                          if a.name.startswith("_") and a.name != "__future__"]
    assert found == []


def test_nothing_outside_the_front_door_touches_the_stores_private_parts():
    private = re.compile(r"\bstore\._[a-z]\w*|\bstore\.backend\.raw\b")
    found = [f"{p.relative_to(ROOT)}:{n}" for p in CALLERS for n, line in
             enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if private.search(line)]
    assert found == []


def test_the_period_filter_is_built_in_one_place():
    """``(? IS NULL OR ...)`` was the optional-bound filter written five times; :class:`bot.store.sql.Where` builds
    every one now (only the bounds there are)."""
    found = [p.name for p in STORE.glob("*.py") if "? IS NULL OR" in p.read_text(encoding="utf-8")]
    assert found == []
