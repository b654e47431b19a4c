"""The README's install and upgrade lines, run as written (``/opt/mjbot`` is a temporary folder): a wheel built from
a git checkout, installed; a change committed; the upgrade lines: the change is what runs, and ``mjbot --version``
names a newer version. Slow-ish (two wheel builds and one install with its dependencies, about a minute); it needs
git and the package index, as CI's own install does."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.test_packaging import ROOT

README = (ROOT / "README.md").read_text(encoding="utf-8")


def _block_after(heading: str, marker: str) -> list[str]:
    """The lines of the first ``sh`` code block after ``heading`` that contains ``marker``."""
    text = README.split(heading, 1)[1]
    for block in re.findall(r"```sh\n(.*?)```", text, flags=re.S):
        if marker in block:
            return [ln.split("  #", 1)[0].strip() for ln in block.splitlines() if ln.strip()]
    raise AssertionError(f"no sh block with {marker!r} after {heading!r} in the README")


def _run(lines: list[str], cwd: Path, opt: Path) -> None:
    script = "set -euo pipefail\n" + "\n".join(ln.replace("/opt/mjbot", str(opt)) for ln in lines)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DISCORD_", "MJBOT_", "VIRTUAL_ENV"))}
    real_home = Path.home()
    env["HOME"] = str(cwd.parent)  # nothing written to the real user's folders, but pip's configuration and cache,
    # as a server owner running these lines has them (the package index CI's own install used, the wheels it fetched)
    env.setdefault("XDG_CONFIG_HOME", str(real_home / ".config"))
    env.setdefault("XDG_CACHE_HOME", str(real_home / ".cache"))
    env["PATH"] = f"{Path(sys.executable).parent}:{env.get('PATH', '')}"  # python3 = the Python the suite runs on
    p = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, f"{script}\n--- stdout\n{p.stdout[-3000:]}\n--- stderr\n{p.stderr[-3000:]}"


def _git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def _checkout(dest: Path) -> None:
    """A git checkout of the source as it is now (changes not committed included): the files git knows of, copied
    into a new repository with one commit."""
    files = _git(ROOT, "ls-files", "--cached", "--others", "--exclude-standard", "-z").split("\0")
    for name in filter(None, files):
        if (ROOT / name).is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, dest / name)
    _git(dest, "init", "--quiet")
    _git(dest, "config", "user.email", "test@example.invalid")
    _git(dest, "config", "user.name", "test")
    _git(dest, "add", "-A")
    _git(dest, "commit", "--quiet", "-m", "the source as it is")


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
@pytest.mark.timeout(1500)  # two runs of pip of at most 600 s each (the package index may be slow)
def test_the_readme_upgrade_lines_install_the_newer_code(tmp_path):
    src, opt = tmp_path / "mjbot", tmp_path / "opt"
    src.mkdir()
    _checkout(src)
    install = [ln.replace(" && /opt/mjbot/bin/mjbot check", "")  # (a check needs a token: not the point here)
               for ln in _block_after("## Installing it the ordinary way", "pip wheel")]
    upgrade = [ln for ln in _block_after("To upgrade", "pip wheel") if not ln.startswith(("git pull", "systemctl"))]
    upgrade = [ln.replace(" && systemctl restart mjbot", "") for ln in upgrade]
    _run(install, src, opt)
    mjbot = [str(opt / "bin" / "mjbot"), "--version"]
    first = subprocess.run(mjbot, capture_output=True, text=True, check=True).stdout.strip()

    engine = src / "engine" / "__init__.py"
    engine.write_text(engine.read_text(encoding="utf-8") + "\nUPGRADE_MARK = 'the newer code'\n", encoding="utf-8")
    _git(src, "commit", "--quiet", "-am", "a change")
    _run(upgrade, src, opt)
    second = subprocess.run(mjbot, capture_output=True, text=True, check=True).stdout.strip()
    mark = subprocess.run([str(opt / "bin" / "python"), "-c", "import engine; print(engine.UPGRADE_MARK)"],
                          capture_output=True, text=True, cwd=tmp_path)
    assert mark.stdout.strip() == "the newer code", mark.stderr
    assert first != second and second.startswith("mjbot ") and _git(src, "rev-parse", "--short", "HEAD")[:7] in second
