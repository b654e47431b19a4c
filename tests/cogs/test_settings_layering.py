"""The settings layer: read by every cog from ``bot.settings``; ``cogs.errors`` imports no other cog (it used to
import ``cogs.settings``, which imports it); ``/rules`` cites only files that ship with the project."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from engine.variants import VARIANT_KEYS
from tests.harness import Harness

ROOT = Path(__file__).resolve().parents[2]


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
    return out


def test_cogs_errors_imports_no_cog_and_bot_settings_no_cog():
    assert not {m for m in imported_modules(ROOT / "cogs" / "errors.py") if m.startswith("cogs")}
    assert not {m for m in imported_modules(ROOT / "bot" / "settings.py") if m.startswith("cogs")}


def test_no_copy_of_rule_value_in_the_score_cog():
    tree = ast.parse((ROOT / "cogs" / "score.py").read_text(encoding="utf-8"))
    names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert "_rule_value" not in names


@pytest.mark.parametrize("variant", VARIANT_KEYS)
@pytest.mark.parametrize("locale", ["en-US", "zh-CN", "zh-TW"])
async def test_rules_footer_points_at_what_a_player_can_read(harness: Harness, variant, locale):
    """The footer named the repository's docs/rules/<variant>.md, a file a Discord player cannot open (found by an
    independent review): it says that the numbers /score puts after each item are the rulings' numbers of the
    sections above, and every section names the rulings it holds."""
    import re

    r = await harness.slash("rules", variant=variant, locale=locale)
    embed = r.reply.embeds[0]
    footer = embed["footer"]["text"]
    assert "DECISIONS" not in footer and "docs/" not in footer and ".md" not in footer
    letter = {"wuhu": "W", "hefei": "H", "chizhou": "C"}[variant]
    assert re.search(rf"{letter}\d", footer) and not re.search(r"[WHC]\d", footer.replace(letter, "")), footer
    titles = [f["name"] for f in embed["fields"]]
    assert any(re.search(rf"{letter}\d", x) for x in titles), titles
