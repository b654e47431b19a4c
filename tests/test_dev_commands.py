"""What a developer types from the docs does what the docs say, and nothing more."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_strong_ais_table_is_rewritten_only_when_asked():
    """Every script that rewrites an engine table needs --write: ``calibrate_strong`` rewrote
    engine/strong/calibration.py on any run (a three-hand trial replaced the tables every strong decision reads)."""
    out = subprocess.run([sys.executable, "-m", "benchmarks.calibrate_strong", "--help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=120).stdout
    assert "--write" in out and "printed only" in out


@pytest.mark.parametrize("module", ["render.samples", "render.replay"])
def test_asking_the_picture_scripts_for_help_writes_nothing(tmp_path: Path, module: str):
    """``python -m render.samples --help`` took ``--help`` for the folder and wrote a dozen pictures into ./--help."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run([sys.executable, "-m", module, "--help"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=300, env=env)
    assert done.returncode == 0 and "folder" in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_a_table_takes_its_rules_by_the_name_the_interfaces_give():
    """docs/interfaces.md: ``engine.table.Table.new(variant, seed, rules)``; the parameter was named ``settings``."""
    from engine.table import Table

    assert Table.new("hefei", 1, rules={"short_deck": True}).match.rules["short_deck"] is True
    assert Table.new("hefei", 1, {"short_deck": True}).match.rules["short_deck"] is True


def test_the_readme_and_the_contributors_guide_give_the_suite_the_same_time():
    found = [re.search(r"about (\d+) minutes on 2 cores", (ROOT / name).read_text(encoding="utf-8"))
             for name in ("README.md", "CONTRIBUTING.md")]
    assert all(found) and len({m.group(1) for m in found if m}) == 1
