"""What an installed copy is made of: every shipped folder is a package in ``pyproject.toml``, assets come through
``importlib.resources`` (never a path relative to the source tree), the licences ship, the Python versions are true.

The installed wheel itself is exercised by ``.ci/run`` (``tools/check_installed.py`` from outside the checkout).
"""

from __future__ import annotations

import doctest
import re
import sys
import tomllib
from pathlib import Path

from render import assets, fonts

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
RUNTIME = ("engine", "text", "bot", "cogs", "render")


def _shipped_folders() -> dict[str, Path]:
    """package name -> folder, for every folder of the runtime packages and of data/ that holds a file."""
    out: dict[str, Path] = {}
    roots = {name: ROOT / name for name in RUNTIME} | {"mjbot_data": ROOT / "data"}
    for name, root in roots.items():
        for folder in [root, *sorted(p for p in root.rglob("*") if p.is_dir())]:
            if "__pycache__" in folder.parts or not any(f.is_file() for f in folder.iterdir()):
                continue
            out[".".join([name, *folder.relative_to(root).parts])] = folder
    return out


def test_every_folder_that_ships_files_is_a_package_of_the_distribution():
    listed = set(SETUPTOOLS["packages"])
    missing = {name: str(folder.relative_to(ROOT)) for name, folder in _shipped_folders().items() if name not in listed}
    assert not missing, (
        f"add {sorted(missing)} to [tool.setuptools] packages in pyproject.toml, or the wheel will lack "
        f"the folders {sorted(missing.values())}"
    )
    assert SETUPTOOLS["package-dir"] == {"mjbot_data": "data"}


def test_data_is_shipped_whole_as_package_data():
    assert "**/*" in SETUPTOOLS["package-data"]["mjbot_data"]
    assert "*.sql" in SETUPTOOLS["package-data"]["bot.migrations"]


def test_the_assets_helper_works_as_documented():
    failures, tried = doctest.testmod(assets)
    assert tried >= 3 and failures == 0


def test_fonts_are_found_through_the_package_not_the_source_tree():
    root = Path(str(assets.files()))
    for face in (fonts.REGULAR, fonts.BOLD, fonts.TILES):
        assert face.parent == root / "fonts" and face.is_file()
    assert fonts.charset() and fonts.bold_charset() <= fonts.charset() | set(" ")


def test_no_runtime_module_finds_files_relative_to_its_source():
    offenders = []
    for pkg in RUNTIME:
        for path in (ROOT / pkg).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            if re.search(r"__file__|Path\(\s*['\"](data|bot|render)/", text):
                offenders.append(str(path.relative_to(ROOT)))
    assert not offenders, f"use importlib.resources (render.assets / importlib.resources.files) in {offenders}"


def test_licences_ship_with_the_distribution():
    files = PYPROJECT["project"]["license-files"]
    assert PYPROJECT["project"]["license"] == "MIT"
    for name in files:
        assert (ROOT / name).is_file(), name
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in assets.read_text("fonts", "LICENSE-OFL.txt")


def test_python_versions_declared_are_the_ones_we_run_on():
    classifiers = PYPROJECT["project"]["classifiers"]
    versions = sorted(c.rsplit(":: ", 1)[1] for c in classifiers if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert versions == ["3.11", "3.12", "3.13"]
    assert PYPROJECT["project"]["requires-python"] == ">=3.11"
    assert f"{sys.version_info.major}.{sys.version_info.minor}" in versions
