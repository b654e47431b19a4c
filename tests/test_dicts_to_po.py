"""tools/dicts_to_po.py: merging key -> (English, Simplified[, Traditional]) dicts into the .po catalogues."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from babel.messages.pofile import read_po

from text.hant import to_hant

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("dicts_to_po", ROOT / "tools" / "dicts_to_po.py")
assert _spec and _spec.loader
tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(tool)


def read(tmp: Path, lang: str) -> dict[str, str]:
    with tool.po_path(lang, tmp).open("rb") as f:
        return {m.id: m.string for m in read_po(f) if m.id}


def test_merge_adds_keys_keeps_only_real_taiwan_overrides_and_updates_in_place(tmp_path: Path):
    counts = tool.merge({
        "a.plain": ("Server settings", "服务器设置"),  # no Traditional given: derived
        "a.same": ("Dealer", "庄", to_hant("庄")),  # what OpenCC gives anyway: no override
        "a.tw": ("Default", "默认", "預設"),  # Taiwan says it differently: an override
        "a.param": ("{n} hands", "{n} 局"),
    }, prefix="t.", locale_dir=tmp_path)
    assert counts == {"en": 4, "zh": 4, "zh-TW overrides": 1, "zh-TW dropped": 0}
    en, zh, tw = read(tmp_path, "en"), read(tmp_path, "zh"), read(tmp_path, "zh-TW")
    assert list(en) == ["t.a.plain", "t.a.same", "t.a.tw", "t.a.param"] and en["t.a.param"] == "{n} hands"
    assert zh["t.a.tw"] == "默认" and tw == {"t.a.tw": "預設"}
    # again, with one text changed, one override no longer needed and a new key: the order is kept
    counts = tool.merge({"a.plain": ("Settings", "服务器设置"), "a.tw": ("Default", "默认", to_hant("默认")),
                         "b.new": ("New", "新")}, prefix="t.", locale_dir=tmp_path)
    assert counts == {"en": 2, "zh": 1, "zh-TW overrides": 0, "zh-TW dropped": 1}
    en, tw = read(tmp_path, "en"), read(tmp_path, "zh-TW")
    assert list(en) == ["t.a.plain", "t.a.same", "t.a.tw", "t.a.param", "t.b.new"] and en["t.a.plain"] == "Settings"
    assert tw == {}
    # the files carry no fuzzy header and parse as the catalogue reads them
    with tool.po_path("zh", tmp_path).open("rb") as f:
        cat = read_po(f)
    assert not cat.fuzzy and not [m for m in cat if m.fuzzy]


def test_the_shipped_catalogues_are_what_the_tool_writes(tmp_path: Path):
    """Reading and writing a shipped file changes nothing: hand edits keep the tool's layout (no churn in diffs)."""
    for lang in tool.FOLDERS:
        original = tool.po_path(lang).read_bytes()
        cat = tool.load(lang)
        tool.save(cat, lang, tmp_path)
        assert tool.po_path(lang, tmp_path).read_bytes() == original, lang
