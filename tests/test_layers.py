"""The packages are layers and imports point one way: ``cogs -> bot -> render -> text -> engine`` (docs/architecture.md).

Every ``import`` of every module is read from its source, those inside functions and ``TYPE_CHECKING`` blocks too
(an import deferred into a function is still a dependency: deferring it only hides a cycle). The test fails on an
import from a higher layer, and on any cycle between modules. ``tests/engine/test_purity.py`` checks further that the
engine imports nothing outside itself and the standard library.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: lowest first: a module may import its own layer and the ones below
LAYERS = ("engine", "text", "render", "bot", "cogs")
#: third-party packages a layer must not use (the words need neither Discord nor Pillow; the images no Discord)
FORBIDDEN = {"engine": {"discord", "PIL", "opencc", "babel"}, "text": {"discord", "PIL"}, "render": {"discord"}}


def modules(root: Path = ROOT) -> dict[str, tuple[Path, bool]]:
    """Every module of the layers: dotted name -> (file, is a package's ``__init__``)."""
    out: dict[str, tuple[Path, bool]] = {}
    for package in LAYERS:
        for f in sorted((root / package).rglob("*.py")):
            parts = list(f.relative_to(root).with_suffix("").parts)
            is_package = parts[-1] == "__init__"
            out[".".join(parts[:-1] if is_package else parts)] = (f, is_package)
    return out


def imported(name: str, file: Path, is_package: bool, known: Mapping[str, object]) -> set[str]:
    """The names of the modules ``name`` imports anywhere in its source (absolute names; third-party ones too)."""
    package = name if is_package else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            for a in node.names:  # ``from pkg import sub`` imports the module ``pkg.sub``
                sub = f"{module}.{a.name}"
                out.add(sub if sub in known else module)
    out.discard(name)
    return out


def graph(root: Path = ROOT) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """(module -> the modules of the layers it imports, module -> every top-level package it imports)."""
    mods = modules(root)
    edges, tops = {}, {}
    for name, (file, is_package) in mods.items():
        names = imported(name, file, is_package, mods)
        edges[name] = {m for m in names if m in mods}
        tops[name] = {m.split(".")[0] for m in names}
    return edges, tops


def cycles(edges: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def upward(edges: Mapping[str, set[str]]) -> list[str]:
    rank = {p: i for i, p in enumerate(LAYERS)}
    return sorted(f"{m} -> {e}" for m, es in edges.items() for e in es
                  if rank[e.split(".")[0]] > rank[m.split(".")[0]])


def test_no_module_imports_a_higher_layer():
    edges, _ = graph()
    assert len(edges) > 80
    assert not upward(edges), "imports must point down (cogs -> bot -> render -> text -> engine)"


def test_no_import_cycle_between_modules():
    edges, _ = graph()
    assert not cycles(edges), "break the cycle: move what both need into a module of its own"


def test_the_lower_layers_use_no_discord_nor_pillow():
    _, tops = graph()
    bad = {m: sorted(t & FORBIDDEN[m.split(".")[0]]) for m, t in tops.items()
           if t & FORBIDDEN.get(m.split(".")[0], set())}
    assert not bad


def test_no_layer_imports_the_benchmarks_nor_the_tools():
    """``benchmarks/`` holds measuring tools that read what a seat may not see (``analyse_departures --oracle`` reads
    the other hands to bound perfect defence): nothing the bot runs may reach them."""
    _, tops = graph()
    assert not {m: sorted(t & {"benchmarks", "tools", "tests"}) for m, t in tops.items() if t & {"benchmarks", "tools",
                                                                                                  "tests"}}


def test_the_walker_sees_imports_inside_functions_and_finds_cycles_and_upward_imports(tmp_path):
    for package in LAYERS:
        (tmp_path / package).mkdir()
        (tmp_path / package / "__init__.py").write_text("")
    (tmp_path / "cogs" / "a.py").write_text("def f():\n    from cogs import b\n")
    (tmp_path / "cogs" / "b.py").write_text("from . import a\n")
    (tmp_path / "render" / "up.py").write_text("def g():\n    import bot.x\n")
    (tmp_path / "bot" / "x.py").write_text("from text.lang import resolve\n")
    (tmp_path / "text" / "lang.py").write_text("")
    edges, _ = graph(tmp_path)
    assert edges["cogs.a"] == {"cogs.b"} and edges["bot.x"] == {"text.lang"}
    assert cycles(edges) == [["cogs.a", "cogs.b"]]
    assert upward(edges) == ["render.up -> bot.x"]


def test_no_module_is_over_600_lines_without_its_reason():
    """A module of the product over 600 lines says why in its docstring ("Over 600 lines on purpose: ...")."""
    import ast

    long = {}
    for pkg in ("engine", "text", "render", "bot", "cogs"):
        for path in sorted((ROOT / pkg).rglob("*.py")):
            source = path.read_text(encoding="utf-8")
            if source.count("\n") > 600:
                doc = ast.get_docstring(ast.parse(source)) or ""
                if "Over 600 lines on purpose:" not in doc:
                    long[str(path.relative_to(ROOT))] = source.count("\n")
    assert long == {}
