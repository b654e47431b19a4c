"""Check an installed (not editable) mjbot the way a server owner uses it: run from a folder outside the checkout.

    python -I tools/check_installed.py --source CHECKOUT       # with the python of the venv holding the wheel

``.ci/run`` builds the wheel, installs it into a fresh virtual environment and runs this with that environment's
python, from an empty temporary folder (``-I``: neither the script's folder nor the current one is on ``sys.path``).
It checks, and exits 1 naming what failed:

* every module of the bot and every asset comes from that environment's site-packages, none from the checkout, and
  every file git tracks in the runtime packages and in ``data/`` is installed;
* ``mjbot --version``, ``mjbot score … --json`` (``"ok": true``, zero-sum), ``mjbot sim --hands 20 --json``;
* every image kind (hand, table, score card, match, leaderboard, stats) renders in every language and both themes;
* the bot boots through the public boot path (``create_bot`` + ``_async_setup_hook`` + ``setup_hook``) against a
  fresh database, has its commands, and closes cleanly;
* ``mjbot check`` passes on a good set-up.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import io
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

PACKAGES = ("engine", "text", "bot", "cogs", "render", "mjbot_data")
LANGS = ("zh", "zh-TW", "en")
THEMES = ("dark", "light")

failures: list[str] = []


def step(name: str) -> Callable[[Callable[..., object]], Callable[..., object]]:
    """Run the decorated check now; print ✓/✗ with its time; remember failures (the run goes on to say them all)."""

    def run(fn: Callable[..., object]) -> Callable[..., object]:
        t = time.perf_counter()
        try:
            detail = fn()
        except Exception as e:  # noqa: BLE001 - every failure is reported, with its type
            failures.append(name)
            print(f"✗ {name}: {type(e).__name__}: {e}", flush=True)
        else:
            print(f"✓ {name} ({time.perf_counter() - t:.1f} s){': ' + str(detail) if detail else ''}", flush=True)
        return fn

    return run


def mjbot(*args: str, env: dict[str, str] | None = None, expect: int = 0) -> subprocess.CompletedProcess[str]:
    exe = Path(sys.executable).with_name("mjbot")
    p = subprocess.run([str(exe), *args], capture_output=True, text=True, timeout=300, env=env)
    if p.returncode != expect:
        raise AssertionError(f"mjbot {' '.join(args)} exited {p.returncode} (expected {expect}):\n"
                             f"{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    return p


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--source", type=Path, required=True, help="the checkout the wheel was built from")
    ap.add_argument("--sdist", type=Path, default=None, help="the source distribution built beside the wheel")
    args = ap.parse_args(argv)
    source = args.source.resolve()
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    os.environ.pop("DISCORD_TOKEN", None)
    os.environ.pop("MJBOT_DEV_GUILD", None)
    start = Path.cwd()
    work = Path(tempfile.mkdtemp(prefix="mjbot-installed-"))
    os.chdir(work)
    os.environ["MJBOT_DB"] = str(work / "state" / "mjbot.sqlite3")
    print(f"checking the mjbot installed in {sys.prefix}, from {work}", flush=True)
    if start.resolve().is_relative_to(source):
        raise SystemExit("run this from a folder outside the checkout")

    @step("imports come from site-packages, not the checkout")
    def _origins() -> str:
        import importlib

        from render import assets, fonts

        for name in PACKAGES:
            module = importlib.import_module(name)
            where = Path(module.__file__ or "").resolve()
            assert where.is_relative_to(site), f"{name} imported from {where}, not {site}"
            assert not where.is_relative_to(source), f"{name} imported from the checkout: {where}"
        for face in (fonts.REGULAR, fonts.BOLD, fonts.TILES):
            assert face.resolve().is_relative_to(site) and face.is_file(), f"font {face} is not in {site}"
        from bot.store.migrate import MIGRATIONS_DIR

        assert Path(str(MIGRATIONS_DIR)).resolve().is_relative_to(site), f"migrations read from {MIGRATIONS_DIR}"
        return f"fonts from {Path(str(assets.files())) / 'fonts'}"

    @step("every tracked runtime file and asset is installed")
    def _complete() -> str:
        from importlib.metadata import files

        installed = {str(f).replace(os.sep, "/") for f in files("mjbot") or []}
        tracked = subprocess.run(["git", "-C", str(source), "ls-files", "engine", "text", "bot", "cogs", "render", "data"],
                                 capture_output=True, text=True, check=True).stdout.split()
        wanted = {("mjbot_data/" + t[len("data/"):]) if t.startswith("data/") else t for t in tracked}
        missing = sorted(wanted - installed)
        assert not missing, f"tracked but not in the wheel: {missing}"
        absent = sorted(f for f in wanted if not (site / f).is_file())
        assert not absent, f"in the wheel's RECORD but not on disk: {absent}"
        licences = [f for f in installed if "/licenses/" in f]
        assert any(f.endswith("/LICENSE") for f in licences), "LICENSE is not in the wheel's metadata"
        assert any(f.endswith("LICENSE-OFL.txt") for f in licences), "the fonts' OFL is not in the wheel's metadata"
        return f"{len(wanted)} files, licences {sorted(Path(f).name for f in licences)}"

    if args.sdist is not None:

        @step("the source distribution carries the licences")
        def _sdist() -> str:
            import tarfile

            with tarfile.open(args.sdist) as tar:
                names = {n.split("/", 1)[1] for n in tar.getnames() if "/" in n}
            for needed in ("LICENSE", "data/fonts/LICENSE-OFL.txt", "pyproject.toml", "README.md"):
                assert needed in names, f"{needed} is not in {args.sdist.name}"
            return f"{len(names)} entries"

    @step("mjbot --version")
    def _version() -> str:
        from importlib.metadata import version

        out = mjbot("--version").stdout.strip()
        assert out == f"mjbot {version('mjbot')}", out
        return out

    @step("mjbot score 23456799m345p67s+8s --variant wuhu --from W --json")
    def _score() -> str:
        out = mjbot("score", "23456799m345p67s+8s", "--variant", "wuhu", "--from", "W", "--json").stdout
        d = json.loads(out.strip().splitlines()[-1])
        assert d["ok"] is True and d["variant"] == "wuhu", d
        assert sum(d["payments"].values()) == 0 and d["payments"]["S"] > 0, d["payments"]
        bad = mjbot("score", "1111m1m", "--variant", "wuhu", "--json", expect=1).stdout
        assert json.loads(bad.strip().splitlines()[-1])["ok"] is False
        return f"payments {d['payments']}"

    @step("mjbot sim --variant hefei --hands 20 --json")
    def _sim() -> str:
        d = json.loads(mjbot("sim", "--variant", "hefei", "--hands", "20", "--json").stdout.strip().splitlines()[-1])
        assert d["hands"] == 20 and d["zero_sum"] is True and d["tiles_conserved"] is True, d
        return f"{d['wins']} wins, {d['draws']} draws"

    @step(f"every image kind renders in {', '.join(LANGS)} x {', '.join(THEMES)}")
    def _images() -> str:
        from PIL import Image, ImageStat

        from render import samples
        from render.board import render_board, render_stats
        from render.card import render_score
        from render.hand import render_hand
        from render.match import render_match
        from render.table import render_table

        kinds: dict[str, tuple[Callable[[Any, str, str], bytes], object]] = {
            "hand": (render_hand, samples.hand_scene()),
            "table": (render_table, samples.table_scene()),
            "score card": (render_score, samples.score_scene()),
            "match": (render_match, samples.match_scene()),
            "leaderboard": (render_board, samples.board_scene()),
            "stats": (render_stats, samples.stats_scene()),
        }
        count = 0
        for kind, (render, scene) in kinds.items():
            seen: dict[tuple[str, str], bytes] = {}
            for lang in LANGS:
                for theme in THEMES:
                    png = render(scene, theme, lang)
                    with Image.open(io.BytesIO(png)) as img:
                        img.load()
                        assert img.format == "PNG" and img.width >= 200 and img.height >= 60, (kind, lang, img.size)
                        spread = max(hi - lo for lo, hi in ImageStat.Stat(img.convert("L")).extrema)
                        assert spread > 60, f"{kind} {lang} {theme} is nearly blank"
                    seen[(lang, theme)] = png
                    count += 1
            assert seen[("zh", "dark")] != seen[("zh", "light")], f"{kind}: the themes draw the same image"
        return f"{count} images"

    @step("the bot boots through the public boot path and closes cleanly")
    def _boot() -> str:
        from bot.app import create_bot
        from bot.config import Config
        from bot.store.migrate import load_migrations

        async def boot() -> str:
            db = work / "boot" / "fresh.sqlite3"
            bot = create_bot(Config(token=None, db_path=db))
            await bot._async_setup_hook()
            await bot.setup_hook()
            try:
                assert bot.store is not None and bot.store.schema_version == len(load_migrations())
                names = [c.name for c in bot.tree.get_commands()]
                assert {"table", "score"} <= set(names), names
                loaded = sorted(bot.extensions)
            finally:
                await bot.close()
            assert bot.store is None and db.is_file()
            return f"{len(loaded)} extensions, commands {names}"

        return asyncio.run(boot())

    @step("mjbot check passes on a good set-up")
    def _check() -> str:
        env = dict(os.environ)
        env["DISCORD_TOKEN"] = base64.b64encode(b"1234567890123456789").decode().rstrip("=") + ".GhQ1xY.Zk9s3Ty_wQ"
        p = mjbot("check", env=env)
        assert env["DISCORD_TOKEN"] not in p.stdout + p.stderr, "the token was printed"
        checks = [line for line in p.stdout.splitlines() if line.startswith(("✓", "✗"))]
        assert p.returncode == 0 and len(checks) >= 6 and all(c.startswith("✓") for c in checks), p.stdout
        return p.stdout.strip().splitlines()[-1]

    os.chdir(start)
    shutil.rmtree(work, ignore_errors=True)
    if failures:
        print(f"FAILED: {len(failures)} installed-copy checks: {', '.join(failures)}", flush=True)
        return 1
    print("the installed copy passed every check", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
