"""The `mjbot` command line as shared/interfaces.md states it."""

import json
import os
import subprocess
import sys

import pytest

from bot.cli import main
from engine.tiles import parse_hand
from engine.variants import Situation, get_variant


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def last_json(out):
    return json.loads(out.strip().splitlines()[-1])


def test_score_json_contract(capsys):
    code, out, _ = run(capsys, "score", "23456799m345p67s+8s", "--variant", "wuhu", "--from", "W", "--json")
    assert code == 0
    d = last_json(out)
    assert d["ok"] is True and d["variant"] == "wuhu"
    assert set(d["payments"]) == {"E", "S", "W", "N"} and sum(d["payments"].values()) == 0
    # 8支 平胡 on a discard (315): 底番 1 + 支番 round(8*2/10) = 2 -> 3 a payer, the dealer 4 (seed table: 8支 3-4)
    assert d["payments"] == {"E": -4, "S": 10, "W": -3, "N": -3}
    for item in d["items"]:
        assert set(item) >= {"code", "zh", "en", "value"}


@pytest.mark.parametrize(
    ("argv", "variant", "situation", "rules"),
    [
        (["1112345678999m+5m", "--variant", "wuhu", "--mode", "525"], "wuhu", Situation(), {"mode": 525}),
        (["123456789m1p789s+1p", "--variant", "hefei", "--from", "W", "--winner", "E", "--dealer-streak", "3"],
         "hefei", Situation(winner=0, discarder=2, dealer_streak=3), {}),
        (["111m222p333s5z[777z:W]+5z", "--variant", "chizhou", "--from", "N",
          "--rule", "big_hands_skip_hua=on"], "chizhou", Situation(discarder=3), {"big_hands_skip_hua": True}),
        (["1112223334m[5555p]+4m", "--variant", "hefei", "--kong-draw", "--winner", "N"],
         "hefei", Situation(winner=3, kong_draw=True), {}),
    ],
)
def test_score_json_equals_the_engine(capsys, argv, variant, situation, rules):
    code, out, _ = run(capsys, "score", *argv, "--json")
    assert code == 0, out
    v = get_variant(variant)
    r = v.rules(rules)
    if v.modes:
        r.setdefault("mode", 315)
    expected = v.score(parse_hand(argv[0]), situation, r)
    d = last_json(out)
    assert d["payments"] == {s: expected.payments[i] for i, s in enumerate("ESWN")}
    assert [i["code"] for i in d["items"]] == [i.code for i in expected.items]


@pytest.mark.parametrize(
    ("hand", "variant", "code"),
    [
        ("1234x", "wuhu", "unknown_suit"),
        ("55555m123p", "hefei", "five_copies"),
        ("123456789m11p13s+5s", "hefei", "not_complete"),
        ("123m456p789s11z22z+2z", "wuhu", "tile_not_in_variant"),
        ("123456m456p789s1p+1p", "wuhu", "no_bazhi"),
        ("1234567m1234p+5p", "wuhu", "wrong_size"),
        ("123456789m11p78s", "hefei", "no_winning_tile"),
    ],
)
def test_refused_hands_exit_1_with_a_message(capsys, hand, variant, code):
    rc, out, _ = run(capsys, "score", hand, "--variant", variant, "--json", "--lang", "en")
    assert rc == 1
    d = last_json(out)
    assert d == {"ok": False, "code": code, "error": d["error"]} and len(d["error"]) > 10
    rc, _, err = run(capsys, "score", hand, "--variant", variant)
    assert rc == 1 and "错误" in err and "Traceback" not in err


@pytest.mark.parametrize("variant", ["wuhu", "hefei", "chizhou"])
def test_a_dealer_streak_below_one_is_refused_not_rounded(capsys, variant):
    rc, out, _ = run(capsys, "score", "123456789m1p789s+1p", "--variant", variant, "--dealer-streak", "0", "--json")
    assert rc == 1 and last_json(out)["code"] == "bad_dealer_streak"



def test_readable_breakdown_in_both_languages(capsys):
    rc, zh, _ = run(capsys, "score", "23456799m345p67s+8s", "--variant", "wuhu", "--from", "W")
    assert rc == 0 and "支番" in zh and "东 -4" in zh and "南 +10" in zh
    rc, en, _ = run(capsys, "score", "23456799m345p67s+8s", "--variant", "wuhu", "--from", "W", "--lang", "en")
    assert rc == 0 and "Payments: E -4  S +10  W -3  N -3" in en


@pytest.mark.parametrize(
    "argv",
    [
        ["score", "123m", "--variant", "foo"],
        ["score", "123m", "--variant", "wuhu", "--from", "X"],
        ["score", "123m", "--variant", "wuhu", "--mode", "400"],
        ["score", "--variant", "wuhu"],
        ["sim", "--variant", "wuhu"],
    ],
)
def test_wrong_options_exit_2(capsys, argv):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2


def test_mode_from_a_rule_or_the_option(capsys):
    hand = ["score", "23456799m345p67s+8s", "--variant", "wuhu", "--from", "W", "--json"]
    # 525, 8支 on a discard: 底番 2 + 支番 round(8/2) = 4 -> 6 a payer, the dealer 8 (seed table: 8支 6-8)
    for extra in (["--mode", "525"], ["--rule", "mode=525"]):
        rc, out, _ = run(capsys, *hand, *extra)
        assert rc == 0 and last_json(out)["payments"] == {"E": -8, "S": 20, "W": -6, "N": -6}
    rc, out, _ = run(capsys, *hand)
    assert last_json(out)["payments"] == {"E": -4, "S": 10, "W": -3, "N": -3}


def test_bad_house_rule_is_a_clear_error(capsys):
    rc, out, _ = run(capsys, "score", "23456799m345p67s+8s", "--variant", "wuhu", "--rule", "nope=1", "--json")
    assert rc == 1 and last_json(out)["code"] == "bad_rule"
    rc, out, _ = run(capsys, "score", "23456799m345p67s+8s", "--variant", "wuhu", "--rule", "dianpao_bao_san=maybe",
                     "--json")
    assert rc == 1 and last_json(out)["code"] == "bad_rule_value"


def test_sim_json_contract_and_same_seed_same_games(capsys):
    rc, out, _ = run(capsys, "sim", "--variant", "hefei", "--hands", "6", "--seed", "3", "--json")
    assert rc == 0
    a = last_json(out)
    assert a["hands"] == 6 and a["zero_sum"] is True and a["tiles_conserved"] is True
    assert a["wins"] + a["draws"] >= 6 - 0 and a["self_draws"] <= a["wins"]
    _, out, _ = run(capsys, "sim", "--variant", "hefei", "--hands", "6", "--seed", "3", "--json")
    b = last_json(out)
    timing = {"seconds", "cpu_seconds", "hands_per_s", "wall_hands_per_s"}
    assert {k: v for k, v in a.items() if k not in timing} == {k: v for k, v in b.items() if k not in timing}


def test_run_without_a_token_explains_and_exits_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    # run from an empty folder so that no .env is found
    p = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2
    assert "DISCORD_TOKEN" in p.stderr and "mjbot local" in p.stderr and "Traceback" not in p.stderr


def test_bad_config_is_a_clear_error_not_a_traceback(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"} | {"MJBOT_DEV_GUILD": "abc"}
    p = subprocess.run([sys.executable, "-m", "bot", "run"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and "MJBOT_DEV_GUILD" in p.stderr and "Traceback" not in p.stderr
