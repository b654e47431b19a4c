"""Every line of a score breakdown names the ruling it comes from ("压档 (W5)"), in `mjbot score` (text and JSON),
in /score's reply and on the score card, so a player can look it up with /rules or in docs/rules/."""

from __future__ import annotations

import json

from bot.cli import main
from render.card import rule_of
from render.scene import ScoreScene

YA_DANG = ["score", "123456789m11p35s+4s", "--variant", "wuhu", "--from", "W"]  # 4s in the middle of 35s: 压档 4


def test_text_breakdown_names_each_lines_ruling(capsys):
    assert main(YA_DANG) == 0
    out = capsys.readouterr().out
    assert "压档 (W5)" in out and "支番 (W9)" in out and "通天 (W6)" in out and "支数 (W4)" in out
    assert main([*YA_DANG, "--lang", "en"]) == 0
    assert "middle-tile win (压档) (W5)" in capsys.readouterr().out


def test_json_adds_a_rule_to_each_item_and_keeps_its_keys(capsys):
    assert main([*YA_DANG, "--json"]) == 0
    d = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert all(set(i) == {"code", "zh", "en", "value", "kind", "rule"} for i in d["items"])
    assert {i["code"]: i["rule"] for i in d["items"]}["base_ya_dang"] == "W5"
    assert set(d) >= {"ok", "variant", "winner", "items", "notes", "per_payer", "payments", "stack_payments",
                      "jiao_payments"}


def test_json_notes_name_their_ruling(capsys):
    # 3对 alarm (W12) on three pungs of 万, 清一色 交: the alarm is a note
    assert main(["score", "55m99m[111m:W][222m:W][333m:W]+9m", "--variant", "wuhu", "--from", "N", "--json"]) == 0
    d = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert d["notes"] and all(n["rule"] == "W12" for n in d["notes"])


def test_a_card_scene_from_the_engine_knows_its_variant():
    from engine.tiles import parse_hand
    from engine.variants import Situation, get_variant

    hand = parse_hand("123456789m11p35s+4s")
    scene = ScoreScene.from_result(hand, get_variant("wuhu").score(hand, Situation(discarder=2)), ("",) * 4)
    assert scene.variant == "wuhu"
    assert [rule_of(scene)(i) for i in scene.items] == ["W4", "W5", "W5", "W9", "W6", "W9"]
