"""Every line a scorer can put in a breakdown names the ruling it comes from, and that ruling is written out in
docs/rules/ under its anchor (``/score``, the score card and ``mjbot score`` show "压档 (W5)"; a player looks W5 up).

The codes a scorer can emit are read from its source (the string codes given to ``Item`` / ``_item`` and the keys of
its name tables) and, as a cross-check, collected from self-played matches with every house rule that adds lines."""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

import pytest

from engine.selfplay import play_match
from engine.table import Table
from engine.variants import VARIANT_KEYS, get_variant
from engine.variants.base import RULE_PAGES, rule_doc

ROOT = Path(__file__).resolve().parents[2]
NAME_TABLES = ("NAMES", "_NAMES", "ALARM_NAMES", "_HUA", "_FAN")


def emitted_codes(key: str) -> set[str]:
    """Codes in the variant module's source: literal first arguments of Item(...) / _item(...), the keys of its
    name tables, and the codes in the rows of Wuhu's base table."""
    tree = ast.parse((ROOT / "engine" / "variants" / f"{key}.py").read_text(encoding="utf-8"))
    codes: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("Item", "_item"):
            arg = node.args[0] if node.args else None
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                codes.add(arg.value)
            if isinstance(arg, ast.IfExp):  # "zhuang" if everyone else "zhuang_dealer"
                codes |= {a.value for a in (arg.body, arg.orelse) if isinstance(a, ast.Constant)}
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(target, ast.Name) and isinstance(node.value, ast.Dict):  # type: ignore[union-attr]
            d = node.value  # type: ignore[union-attr]
            if target.id in NAME_TABLES:
                codes |= {k.value for k in d.keys if isinstance(k, ast.Constant)}
            if target.id == "_BASE":
                codes |= {v.elts[0].value for v in d.values if isinstance(v, ast.Tuple)}  # type: ignore[attr-defined]
    return codes


def anchors(page: str) -> set[str]:
    return set(re.findall(r'<a id="([^"]+)"></a>', (ROOT / "docs" / "rules" / f"{page}.md").read_text(encoding="utf-8")))


@pytest.mark.parametrize("key", VARIANT_KEYS)
def test_every_code_a_scorer_emits_names_a_ruling(key: str) -> None:
    v = get_variant(key)
    codes = emitted_codes(key)
    assert len(codes) >= 15, codes  # the scan found the scorer's lines
    assert sorted(codes - set(v.rule_of)) == [], f"{key}: lines without a ruling (add them to RULE_OF)"
    assert sorted(set(v.rule_of) - codes) == [], f"{key}: RULE_OF names codes the scorer never emits"


@pytest.mark.parametrize("key", VARIANT_KEYS)
def test_every_ruling_named_has_its_anchor_in_docs_rules(key: str) -> None:
    for code, rule in get_variant(key).rule_of.items():
        assert re.fullmatch(r"[GWHC]\d{1,2}", rule), (code, rule)
        page, anchor = rule_doc(rule).removeprefix("docs/rules/").split(".md#")
        assert anchor in anchors(page), f"{code} -> {rule}: no anchor #{anchor} in docs/rules/{page}.md"
        if rule[0] != "G":
            assert RULE_PAGES[rule[0]] == key, (code, rule)  # a variant's lines cite its own rulings


def test_every_ruling_has_an_anchor() -> None:
    """W1-W13, H1-H8, C1-C10, G1-G9 and the notation: each has its fixed anchor."""
    expected = {"wuhu": 13, "hefei": 8, "chizhou": 10, "common": 9}
    for page, n in expected.items():
        letter = next(k for k, p in RULE_PAGES.items() if p == page).lower()
        assert {f"{letter}{i}" for i in range(1, n + 1)} <= anchors(page), page
    assert "notation" in anchors("common")


@pytest.mark.parametrize("key,rules", [
    ("wuhu", {"mode": 315}), ("wuhu", {"mode": 525, "dianpao_bao_san": True}),
    ("hefei", {}), ("hefei", {"short_deck": True}),
    ("chizhou", {}), ("chizhou", {"big_hands_skip_hua": True}),
])
def test_self_played_breakdowns_carry_known_codes(key: str, rules: dict) -> None:
    """A cross-check of the source scan on real wins: every line of every win names a ruling."""
    v = get_variant(key)
    seen: set[str] = set()

    def on_end(table: Table, events: list) -> None:
        for e in events:
            if e.type == "win":
                seen.update(i["code"] for i in e.data["items"] + e.data["notes"])

    for seed in range(4):
        play_match(Table.new(key, f"rule-ids-{seed}", rules), ["normal"] * 4, random.Random(seed), max_hands=10,
                   on_hand_end=on_end)
    assert seen, "no wins were played"
    assert sorted(seen - set(v.rule_of)) == []
