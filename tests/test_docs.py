"""The documents stand on their own: every Markdown link, every anchor and every repository path they name exists.

Read: the README, CONTRIBUTING.md and every Markdown file under ``docs/`` (links are relative to the file; paths in
the text, such as ``engine/variants/wuhu.py`` or ``docs/rules/wuhu.md#w3``, are relative to the repository's root),
plus the string catalogues and the source code for the citations into ``docs/`` they carry (``(rule W3,
docs/rules/wuhu.md#w3)``). Anchors are the explicit ``<a id="...">`` ones and GitHub's heading anchors.
"""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted([ROOT / "README.md", ROOT / "CONTRIBUTING.md", *(ROOT / "docs").rglob("*.md")])
CATALOGUES = sorted((ROOT / "data" / "locale").rglob("*.po"))
CODE = sorted(p for d in ("engine", "bot", "cogs", "render", "benchmarks", "tools", "tests")
              for p in (ROOT / d).rglob("*.py"))

#: the repository's top level: a path in the text is one that starts with one of these
TOP = ("engine", "bot", "cogs", "render", "data", "tests", "benchmarks", "docs", "tools", "deploy", ".ci")
TOP_FILES = ("README.md", "CONTRIBUTING.md", "constraints.txt", "pyproject.toml", "LICENSE", "MANIFEST.in",
             ".env.example")
PATH = re.compile(r"(?<![\w./~$%{-])((?:" + "|".join(re.escape(t) for t in TOP) + r")/[\w./*@-]*(?:#[\w-]+)?)")
DOC_PATH = re.compile(r"(?<![\w./~$%{-])(docs/[\w./*-]*(?:#[\w-]+)?)")
LINK = re.compile(r"!?\[(?:[^\]\[]|\[[^\]]*\])*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
PLACEHOLDER = re.compile(r"<|>|NNNN|…|\.\.\.|\{|XX")
#: citations of files that are not in the repository (the rules texts and notes kept outside it)
FOREIGN = ("DECISIONS.md", "rules/seeds", "seeds/", "shared/interfaces", "/work/")


def _rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped (letters of any script, digits, ``_`` and
    ``-`` kept), spaces to hyphens.

    >>> slug("When Discord or the disk misbehaves"), slug("## W3 The last four tiles".lstrip("# "))
    ('when-discord-or-the-disk-misbehaves', 'w3-the-last-four-tiles')
    """
    text = re.sub(r"<[^>]+>", "", heading).strip().lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@cache
def anchors(path: Path) -> frozenset[str]:
    text = path.read_text(encoding="utf-8")
    text_no_code = re.sub(r"(?ms)^```.*?^```", "", text)
    out = set(re.findall(r"""<a\s+(?:id|name)=["']([^"']+)["']""", text))
    seen: dict[str, int] = {}
    for h in re.findall(r"(?m)^#{1,6}\s+(.+?)\s*#*\s*$", text_no_code):
        s = slug(h)
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return frozenset(out)


def _exists(target: Path, fragment: str) -> str | None:
    """None when ``target`` (and its ``#fragment``) exists, else what is missing."""
    if any(c in str(target) for c in "*?"):
        if not list(ROOT.glob(_rel(target))):
            return "no file matches"
        return None
    if not target.exists():
        return "no such file"
    if fragment:
        if target.is_dir() or target.suffix != ".md":
            return "an anchor into a file that is not Markdown"
        if fragment not in anchors(target):
            return f"no anchor #{fragment}"
    return None


def _strip(text: str) -> str:
    return text.rstrip(".,:;)'`\"")


def _missing_paths(pattern: re.Pattern[str], text: str) -> list[tuple[str, str]]:
    """Each repository path ``pattern`` finds in ``text`` (placeholders such as ``<version>`` left out) that does not
    exist, with what is wrong: ``(token, problem)``."""
    out = []
    for m in pattern.finditer(text):
        token = _strip(m.group(1))
        if PLACEHOLDER.search(text[m.start(): m.end() + 2]):
            continue
        target, _, fragment = token.partition("#")
        missing = _exists(ROOT / target, fragment)
        if missing:
            out.append((token, missing))
    return out


def problems_in(doc: Path) -> list[str]:
    text = doc.read_text(encoding="utf-8")
    out = []
    for link in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", link) or link.startswith("//"):
            continue  # https:, mailto: ...: outside the repository
        target, _, fragment = link.partition("#")
        path = (doc.parent / target).resolve() if target else doc
        if ROOT not in path.parents and path != ROOT:
            out.append(f"{_rel(doc)}: link {link!r} leaves the repository")
            continue
        missing = _exists(path, fragment)
        if missing:
            out.append(f"{_rel(doc)}: link {link!r}: {missing}")
    prose = LINK.sub(" ", text)
    out += [f"{_rel(doc)}: path {token!r}: {missing}" for token, missing in _missing_paths(PATH, prose)]
    for name in TOP_FILES:
        if f"`{name}`" in prose and not (ROOT / name).exists():
            out.append(f"{_rel(doc)}: file {name!r}: no such file")
    return out


@pytest.mark.parametrize("doc", DOCS, ids=_rel)
def test_every_link_anchor_and_path_in_the_docs_exists(doc: Path) -> None:
    assert problems_in(doc) == []


@pytest.mark.parametrize("source", CATALOGUES + CODE, ids=_rel)
def test_every_citation_into_docs_from_strings_and_code_exists(source: Path) -> None:
    text = source.read_text(encoding="utf-8")
    assert [f"{token!r}: {missing}" for token, missing in _missing_paths(DOC_PATH, text)] == []


@pytest.mark.parametrize("source", DOCS + CATALOGUES + [p for p in CODE if "tests" not in p.parts],
                         ids=_rel)
def test_nothing_cites_files_outside_the_repository(source: Path) -> None:
    text = source.read_text(encoding="utf-8")
    assert [f for f in FOREIGN if f in text] == []


def test_the_checker_finds_what_is_missing() -> None:
    """A broken link, anchor and path are each reported (so a green run means something)."""
    doc = ROOT / "docs" / "_probe_for_test_docs.md"
    doc.write_text("[a](rules/wuhu.md#w99) [b](nowhere.md) `engine/variants/nope.py` `docs/" "rules/hefei.md#h9`\n"
                   "[ok](rules/wuhu.md#w3) `engine/variants/wuhu.py` `bot/migrations/NNNN_name.sql`\n",
                   encoding="utf-8")
    try:
        found = problems_in(doc)
    finally:
        doc.unlink()
    assert len(found) == 4, found
    assert any("#w99" in f for f in found) and any("nowhere.md" in f for f in found)
    assert any("nope.py" in f for f in found) and any("#h9" in f for f in found)


def test_discord_md_uses_the_readmes_service_set_up() -> None:
    text = (ROOT / "docs" / "discord.md").read_text(encoding="utf-8")
    assert "mjbot check" in text and "deploy/mjbot.service" in text
    assert not re.search(r"(?<!Dynamic)User=", text) and "pip install -e" not in text


def test_the_architecture_names_every_package_and_the_stores_backends() -> None:
    """docs/architecture.md describes the code as it is: every package of the project (a folder with an
    ``__init__.py``) is named by its path, and so are the store's front door, its seam and both backends."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    packages = sorted(str(p.parent.relative_to(ROOT)) + "/" for top in ("engine", "text", "render", "bot", "cogs")
                      for p in (ROOT / top).rglob("__init__.py") if "migrations" not in p.parts)
    store = ["bot/store/database.py", "bot/store/backend.py", "bot/store/sqlite.py", "bot/store/postgres.py"]
    missing = [name for name in [*packages, *store, "bot/interactions.py", "tests/harness/"] if f"`{name}" not in text]
    assert not missing, f"docs/architecture.md does not name: {missing}"
