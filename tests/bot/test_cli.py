"""The `mjbot` command line as docs/interfaces.md states it."""

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from bot.cli import main
from engine.ai import DIFFICULTIES
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


@pytest.mark.parametrize("streak", ["0", "-3", "100", "99999999999999999999", "2.5", "x"])
@pytest.mark.parametrize("lang, said", [("en", "a whole number from 1 to 99"), ("zh", "庄数是 1 到 99 的整数")])
def test_a_dealer_streak_out_of_range_is_refused_not_rounded(capsys, streak, lang, said):
    """``--dealer-streak`` takes what /score takes (1-99): 0 was refused as a hand is (exit 1) and a 20-digit
    streak was scored in 20-digit 子 (found by an independent review); a wrong option exits 2 with the range."""
    with pytest.raises(SystemExit) as e:
        run(capsys, "score", "123456789m1p789s+1p", "--variant", "hefei", "--dealer-streak", streak, "--json",
            "--lang", lang)
    assert e.value.code == 2 and said in capsys.readouterr().err
    rc, out, _ = run(capsys, "score", "123456789m1p789s+1p", "--variant", "hefei", "--dealer-streak", "99", "--json")
    assert rc == 0 and last_json(out)["ok"]


@pytest.mark.parametrize("argv, reason", [
    (["score", "123456789m1p789s+1p", "--variant", "wuhu", "--dealer-streak", "2", "--lang", "en"],
     "--dealer-streak is Hefei's dealer streak (庄数): Wuhu does not score one"),
    (["score", "123456789m1p789s+1p", "--variant", "chizhou", "--dealer-streak", "1"],
     "--dealer-streak 是合肥的庄数：池州麻将不计庄数"),  # in the player's language (zh by default)
    (["score", "123456789m1p789s+1p", "--variant", "hefei", "--mode", "525", "--lang", "en"], "Hefei has no modes"),
    (["score", "123456789m1p789s+1p", "--variant", "chizhou", "--mode", "315", "--lang", "zh-TW"],
     "--mode 是蕪湖的 315/525 計分：池州麻將沒有這個選項"),
    (["sim", "--variant", "hefei", "--hands", "1", "--mode", "525"], "Hefei has no modes"),  # sim speaks English
    (["local", "--variant", "chizhou", "--mode", "525", "--lang", "en"], "Chizhou has no modes"),
])
def test_an_option_the_variant_has_no_use_for_is_refused_with_the_reason(capsys, argv, reason):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2 and reason in capsys.readouterr().err


def test_one_language_option_with_the_same_choices_and_default_everywhere(capsys):
    from bot.cli import _build_parser

    subs = _build_parser()._subparsers._group_actions[0].choices
    langs = {name: next(a for a in sub._actions if a.dest == "lang") for name, sub in subs.items()
             if any(a.dest == "lang" for a in sub._actions)}
    assert set(langs) >= {"score", "local"}
    assert {(tuple(a.choices), a.default) for a in langs.values()} == {(("zh", "zh-TW", "en"), "zh")}
    rc, out, _ = run(capsys, "score", "23456799m345p67s+8s", "--variant", "wuhu", "--from", "W", "--lang", "zh-TW")
    assert rc == 0 and "支數" in out and "結算" in out and "東 -4" in out


def test_every_option_of_sim_and_local_is_explained(capsys):
    for cmd in ("sim", "local"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        out = capsys.readouterr().out
        from bot.cli import _build_parser

        sub = _build_parser()._subparsers._group_actions[0].choices[cmd]
        for a in sub._actions:
            assert a.help, f"{cmd} {a.option_strings} has no help"
            for opt in a.option_strings:
                assert opt in out


def test_sim_without_a_variant_plays_every_variant(capsys):
    rc, out, _ = run(capsys, "sim", "--hands", "3", "--seed", "2", "--json")
    assert rc == 0
    a = last_json(out)
    assert set(a["variants"]) == {"wuhu", "hefei", "chizhou"}
    assert all(v["hands"] == 3 and v["variant"] == k for k, v in a["variants"].items())
    assert a["hands"] == 9 and a["wins"] == sum(v["wins"] for v in a["variants"].values())
    assert a["draws"] == sum(v["draws"] for v in a["variants"].values())
    assert a["zero_sum"] is True and a["tiles_conserved"] is True and a["hands_per_s"] > 0
    rc, out, _ = run(capsys, "sim", "--hands", "3", "--seed", "2", "--json")
    b = last_json(out)
    timing = ("seconds", "cpu_seconds", "hands_per_s", "wall_hands_per_s")
    assert [{k: v for k, v in x.items() if k not in timing} for x in b["variants"].values()] == [
        {k: v for k, v in x.items() if k not in timing} for x in a["variants"].values()]
    rc, text, _ = run(capsys, "sim", "--hands", "2")  # readable: the totals, then a line per variant
    assert rc == 0 and "hands: 6" in text and "\nhefei: " in text



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
        ["sim", "--variant", "wuhu", "--hands", "1", "--difficulty", "expert"],
        ["duel", "--variant", "wuhu", "--test", "normal", "--deals", "2"],
        ["duel", "--variant", "wuhu", "--test", "expert", "--base", "easy", "--deals", "2"],
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
    rc, out, err = run(capsys, "score", "23456799m345p67s+8s", "--variant", "wuhu", "--rule", "noequals", "--lang", "en")
    assert rc == 1 and "'noequals'" in err and "KEY=VALUE" in err and "mode, dianpao_bao_san" in err
    # a known rule without "=VALUE": told how to write it and its values (it said "takes on/off, not ''")
    rc, out, err = run(capsys, "score", "23456799m345p67s+8s", "--variant", "wuhu", "--rule", "dianpao_bao_san",
                       "--lang", "en")
    assert rc == 1 and "needs a value: write dianpao_bao_san=VALUE, the values: on/off" in err and "''" not in err
    rc, out, _ = run(capsys, "score", "23456799m345p67s+8s", "--variant", "wuhu", "--rule", "mode", "--json")
    assert rc == 1 and last_json(out)["code"] == "rule_without_value" and "315/525" in last_json(out)["error"]


def test_a_house_rule_given_twice_must_agree(capsys):
    """``--rule mode=525 --rule mode=315`` scored 315, the last, without a word (an independent review)."""
    hand = ("score", "23456799m345p67s+8s", "--variant", "wuhu", "--json")
    rc, out, _ = run(capsys, *hand, "--rule", "mode=525", "--rule", "mode=315")
    assert rc == 1 and last_json(out)["code"] == "rule_twice" and "mode" in last_json(out)["error"]
    rc, out, _ = run(capsys, *hand, "--rule", "mode=525", "--rule", "mode = 525")
    assert rc == 0 and last_json(out)["ok"]


def test_the_mode_given_twice_must_agree(capsys):
    """``--mode`` and ``--rule mode=`` both set Wuhu's scoring; when they disagreed, --mode won silently (found by an
    independent review). Now the two must agree, or the command stops with the reason (exit 2) and scores nothing."""
    hand = ("score", "23456799m345p67s+8s", "--variant", "wuhu", "--json")
    with pytest.raises(SystemExit) as e:
        run(capsys, *hand, "--mode", "315", "--rule", "mode=525")
    assert e.value.code == 2 and "--mode 315 与 --rule mode=525 不一致" in capsys.readouterr().err
    rc, out, _ = run(capsys, *hand, "--mode", "525", "--rule", "mode=525")
    assert rc == 0 and {i["code"]: i["value"] for i in last_json(out)["items"]}["base_zimo"] == 6  # 525's 自摸 (315: 3)
    with pytest.raises(SystemExit) as e:
        run(capsys, "local", "--variant", "wuhu", "--mode", "525", "--rule", " mode = 315 ")
    assert e.value.code == 2 and "不一致" in capsys.readouterr().err  # zh, the default


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


def test_sim_takes_every_difficulty(capsys):
    for d in DIFFICULTIES:
        rc, out, _ = run(capsys, "sim", "--variant", "chizhou", "--hands", "1", "--difficulty", d, "--json")
        assert rc == 0 and last_json(out)["hands"] == 1


def test_duel_json_contract_and_same_seed_same_figures(capsys):
    argv = ["duel", "--variant", "wuhu", "--test", "normal", "--base", "easy", "--deals", "3", "--seed", "4"]
    rc, out, _ = run(capsys, *argv, "--json")
    assert rc == 0
    a = last_json(out)
    assert {"mean_per_hand", "ci95_low", "ci95_high", "deals", "draw_rate", "decision_ms_mean",
            "decision_ms_p99"} <= set(a)
    assert a["deals"] == 3 and a["hands"] == 12 and a["ci95_low"] <= a["mean_per_hand"] <= a["ci95_high"]
    assert a["decision_ms_mean"] > 0 and a["decision_ms_p99"] > 0  # timed by the cli
    timing = {"seconds", "decision_ms_mean", "decision_ms_p99", "decision_ms_max"}
    _, out, _ = run(capsys, *argv, "--json", "--jobs", "2")
    b = last_json(out)
    assert {k: v for k, v in a.items() if k not in timing} == {k: v for k, v in b.items() if k not in timing}
    rc, out, _ = run(capsys, *argv)
    assert rc == 0 and "normal vs 3 x easy" in out and "95%" in out
    with pytest.raises(SystemExit) as info:
        run(capsys, "duel", "--variant", "wuhu", "--test", "normal", "--base", "easy", "--deals", "0")
    assert info.value.code == 2 and "argument --deals" in capsys.readouterr().err


def test_duel_starts_no_more_worker_processes_than_deals(capsys, monkeypatch):
    """``--jobs 64`` for 2 deals starts 2 processes, not 64 idle ones (the figures are the same either way)."""
    import concurrent.futures

    started = []

    class Pool(concurrent.futures.ProcessPoolExecutor):
        def __init__(self, max_workers=None, *a, **kw):
            started.append(max_workers)
            super().__init__(max_workers, *a, **kw)

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Pool)
    rc, out, _ = run(capsys, "duel", "--variant", "chizhou", "--test", "normal", "--base", "easy", "--deals", "2",
                     "--jobs", "64", "--json")
    assert rc == 0 and last_json(out)["deals"] == 2 and started == [2]


def test_run_without_a_token_explains_and_exits_2(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    # run from an empty folder so that no .env is found
    p = subprocess.run([sys.executable, "-m", "bot"], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2
    assert "DISCORD_TOKEN" in p.stderr and "mjbot local" in p.stderr and "Traceback" not in p.stderr
    # it points only at what an installed copy has: no file of the source tree
    assert "mjbot check" in p.stderr
    for absent in ("docs/", "DECISIONS", ".env.example", "README"):
        assert absent not in p.stderr, absent


def test_without_a_token_the_commands_offered_are_typed_as_this_shell_runs_them(tmp_path):
    """The README installs into .venv without activating it, so a bare `mjbot local` said "command not found": the
    message writes the commands as mjbot was started (the installed script's path) when the shell would not find
    it, and plain `mjbot` when it would."""
    script = Path(sys.executable).parent / "mjbot"
    if not script.exists():
        pytest.skip("no installed mjbot script beside this Python")
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"}
    for path, shown in (("/usr/bin:/bin", str(script)), (f"{script.parent}:/usr/bin:/bin", "mjbot")):
        p = subprocess.run([str(script)], cwd=tmp_path, env=env | {"PATH": path}, capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 2
        assert f"`{shown} local --variant wuhu`" in p.stderr and f"`{shown} check`" in p.stderr, p.stderr


@pytest.mark.parametrize("guild", ["abc", "²", "0", "9" * 30])
@pytest.mark.parametrize("command", ["run", "check"])
def test_bad_config_is_a_clear_error_not_a_traceback(tmp_path, command, guild):
    """A server id that is not one (``²`` passed ``str.isdigit`` and made ``int()`` raise: a traceback and exit 1,
    so systemd restarted it; 0 and 30 digits were taken as ids) is a configuration error: exit 2, for both."""
    env = {k: v for k, v in os.environ.items() if k != "DISCORD_TOKEN"} | {"MJBOT_DEV_GUILD": guild}
    p = subprocess.run([sys.executable, "-m", "bot", command], cwd=tmp_path, env=env, capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 2 and "MJBOT_DEV_GUILD" in p.stderr + p.stdout and "Traceback" not in p.stderr


def test_score_help_explains_the_notation_without_pointing_into_the_source_tree(capsys):
    with pytest.raises(SystemExit) as e:
        main(["score", "--help"])
    out = capsys.readouterr().out
    assert e.value.code == 0
    assert "hand notation" in out and "[555p:W]" in out and "(5555p)" in out and "+5m" in out
    assert "DECISIONS" not in out and "docs/" not in out


def test_version_is_the_installed_distributions(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0
    assert capsys.readouterr().out.strip() == f"mjbot {version('mjbot')}"


# ---- mjbot check ---------------------------------------------------------------------------------------------

APP_ID = 1234567890123456789


def fake_token(app_id: int = APP_ID) -> str:
    import base64

    return base64.b64encode(str(app_id).encode()).decode().rstrip("=") + ".GhQ1xY.Zk9s3Ty_wQpLmN0bVcXz-8aRt5UeIoPj2kHg"


@pytest.fixture
def owner_env(tmp_path, monkeypatch):
    """A server owner's shell: an empty folder (no .env), the database in it, no token unless a test sets one."""
    monkeypatch.chdir(tmp_path)
    for var in ("DISCORD_TOKEN", "MJBOT_DEV_GUILD", "MJBOT_DB", "MJBOT_LOG_LEVEL", "MJBOT_SHARD_IDS", "MJBOT_SHARD_COUNT",
                "MJBOT_DB_POOL", "MJBOT_DB_TIMEOUT", "MJBOT_GLOBAL_RATE"):
        monkeypatch.setenv(var, "")  # recorded, so that what .env loads into os.environ is undone afterwards
        monkeypatch.delenv(var)
    monkeypatch.setenv("MJBOT_DB", str(tmp_path / "state" / "mjbot.sqlite3"))
    return monkeypatch


def check(capsys, *extra):
    code = main(["check", *extra])
    out, err = capsys.readouterr()
    lines = out.strip().splitlines()
    return code, {line.split(":", 1)[0][2:]: line for line in lines if line[:1] in "✓✗"}, out + err


async def _tree_commands():
    """The command tree the real bot has after booting (the harness boots it as the product does)."""
    import tempfile
    from pathlib import Path

    from tests.harness import Harness

    with tempfile.TemporaryDirectory() as tmp:
        h = await Harness.boot(Path(tmp) / "bot.db")
        try:
            return [c.name for c in h.bot.tree.get_commands()]
        finally:
            await h.close()


def test_check_passes_on_a_good_setup_and_never_prints_the_token(capsys, owner_env, tmp_path):
    import asyncio
    import sqlite3

    from bot.store.migrate import load_migrations

    token = fake_token()
    owner_env.setenv("DISCORD_TOKEN", token)
    code, lines, out = check(capsys)
    assert code == 0, out
    assert list(lines) == ["token", "database", "images", "shards", "commands", "invite"]
    assert all(line.startswith("✓") for line in lines.values())
    assert out.strip().splitlines()[-1] == "all 6 checks passed"
    for i in range(len(token) - 5):  # not even a piece of it
        assert token[i:i + 6] not in out
    # the database was created, migrated and left without the probe
    db = tmp_path / "state" / "mjbot.sqlite3"
    conn = sqlite3.connect(db)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == len(load_migrations())
    assert not conn.execute("SELECT name FROM sqlite_master WHERE name = 'mjbot_check_probe'").fetchall()
    conn.close()
    assert str(db) in lines["database"]
    # every command of the real tree, synced globally
    names = asyncio.run(_tree_commands())
    assert names and "globally" in lines["commands"] and f"{len(names)} slash commands" in lines["commands"]
    for name in names:
        assert f"/{name}" in lines["commands"]
    assert "/table (new, " in lines["commands"]
    # the invite link carries the bot's id and exactly the permissions the README lists
    assert f"client_id={APP_ID}" in lines["invite"] and "permissions=274878024704" in lines["invite"]
    assert "scope=bot+applications.commands" in lines["invite"]
    for perm in ("View Channels", "Send Messages", "Send Messages in Threads", "Embed Links", "Attach Files",
                 "Read Message History"):
        assert perm in lines["invite"]
    assert "fonts loaded" in lines["images"] and "PNG" in lines["images"]


def test_check_says_where_commands_go_with_a_dev_guild(capsys, owner_env):
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    owner_env.setenv("MJBOT_DEV_GUILD", "424242")
    code, lines, out = check(capsys)
    assert code == 0, out
    assert "to server 424242 only" in lines["commands"] and "globally" not in lines["commands"]


def test_check_fails_the_commands_when_two_share_a_name_in_one_language(capsys, owner_env, monkeypatch):
    """Discord refuses a sync in which two commands show one name in some language (then no command shows at all):
    the check says which, before the bot is run. Here /history named 战绩 in Chinese, like /stats."""
    from bot.i18n import Translator

    real = Translator.translate

    async def clashing(self, string, locale, context):
        if string.extras.get("key") == "history.name" and str(locale) == "zh-CN":
            return "战绩"
        return await real(self, string, locale, context)

    owner_env.setenv("DISCORD_TOKEN", fake_token())
    monkeypatch.setattr(Translator, "translate", clashing)
    code, lines, out = check(capsys)
    assert code != 0 and lines["commands"].startswith("✗"), out
    assert "'战绩' (zh-CN): /stats, /history" in lines["commands"]
    monkeypatch.setattr(Translator, "translate", real)
    code, lines, out = check(capsys)
    assert code == 0 and lines["commands"].startswith("✓"), out


def test_check_without_a_token_fails_the_token_and_the_invite_only(capsys, owner_env):
    code, lines, out = check(capsys)
    assert code == 2  # a setting to fix, as `mjbot run` says it
    assert lines["token"].startswith("✗") and "DISCORD_TOKEN is not set" in lines["token"]
    assert lines["invite"].startswith("✗") and "--application-id" in lines["invite"]
    assert all(lines[k].startswith("✓") for k in ("database", "images", "commands"))
    assert "2 of 6 checks failed: token, invite" in out
    # with the application id given, the link can be built even before the token is set
    code, lines, _ = check(capsys, "--application-id", "777777777777777777")
    assert code == 2 and "client_id=777777777777777777" in lines["invite"] and lines["invite"].startswith("✓")
    # a mistyped id (too short to be a Discord id) is refused, not given a ✓ and a broken link
    for bad in ("12", "7" * 25, "１２３４５６７８９０１２３４５６７"):
        with pytest.raises(SystemExit) as info:
            main(["check", "--application-id", bad])
        assert info.value.code == 2 and "an application id is 15 to 21 digits" in capsys.readouterr().err


def test_check_refuses_a_token_that_is_not_a_bot_token_without_echoing_it(capsys, owner_env):
    owner_env.setenv("DISCORD_TOKEN", "my-client-secret-pasted-by-mistake")
    code, lines, out = check(capsys)
    assert code == 2 and lines["token"].startswith("✗") and "not shaped like a bot token" in lines["token"]
    assert "client-secret" not in out and "pasted" not in out


def test_check_fails_when_the_database_cannot_be_created(capsys, owner_env, tmp_path):
    (tmp_path / "a-file").write_text("not a folder")
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    owner_env.setenv("MJBOT_DB", str(tmp_path / "a-file" / "mjbot.sqlite3"))
    code, lines, out = check(capsys)
    assert code == 2 and lines["database"].startswith("✗") and "a-file" in lines["database"]
    assert "Traceback" not in out
    assert all(lines[k].startswith("✓") for k in ("token", "images", "commands", "invite"))


def test_check_fails_on_a_database_from_a_newer_mjbot(capsys, owner_env, tmp_path):
    import sqlite3

    db = tmp_path / "newer.sqlite3"
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA user_version = 999")
    conn.close()
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    owner_env.setenv("MJBOT_DB", str(db))
    code, lines, _ = check(capsys)
    assert code == 2 and lines["database"].startswith("✗") and "999" in lines["database"]


def test_check_reads_the_token_from_dotenv_in_the_current_folder(capsys, owner_env, tmp_path):
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={fake_token(987654321098765432)}\n")
    code, lines, out = check(capsys)
    assert code == 0, out
    assert "client_id=987654321098765432" in lines["invite"]


def _never_connect(monkeypatch) -> None:
    import discord

    def never(*args, **kwargs):
        raise AssertionError("connected to Discord with a setting to fix")

    monkeypatch.setattr(discord.Client, "login", never)
    monkeypatch.setattr(discord.Client, "connect", never)


def test_run_refuses_a_malformed_token_as_check_does_with_exit_2(capsys, owner_env, tmp_path, monkeypatch):
    """One rule for both commands: the token `mjbot check` rejects, `mjbot run` never sends; exit 2 (a setting to
    fix, which the service does not restart on)."""
    _never_connect(monkeypatch)
    owner_env.setenv("DISCORD_TOKEN", "my-client-secret-pasted-by-mistake")
    owner_env.setenv("MJBOT_DB", str(tmp_path / "mj.sqlite3"))
    code = main(["run"])
    out, err = capsys.readouterr()
    assert code == 2 and "not shaped like a bot token" in err and "client-secret" not in out + err
    assert check(capsys)[0] == 2


@pytest.mark.parametrize("command", ["run", "check"])
@pytest.mark.parametrize("case", ["gbk", "open_quote", "folder"])
def test_a_dotenv_that_cannot_be_read_is_one_line_naming_it_with_exit_2(capsys, owner_env, tmp_path, monkeypatch,
                                                                       command, case):
    """A .env saved by a Chinese Windows editor (GBK, a Chinese comment), one with a quote left open, a folder named
    .env: each was a python-dotenv traceback (exit 1, so the service restarted) or a warning followed by "no token
    was found" although the file held one. Now one line naming the file (and the line), exit 2, nothing sent."""
    _never_connect(monkeypatch)
    env = tmp_path / ".env"
    if case == "gbk":
        env.write_bytes(f"# 机器人令牌\nDISCORD_TOKEN={fake_token()}\n".encode("gbk"))
    elif case == "open_quote":
        env.write_text(f'MJBOT_LOG_LEVEL=INFO\nDISCORD_TOKEN="{fake_token()}\n')
    else:
        env.mkdir()
    code = main([command])
    out, err = capsys.readouterr()
    said = {"gbk": "is not UTF-8 text", "open_quote": ".env line 2 cannot be read", "folder": "is a folder"}[case]
    said_all = out + err  # (check prints its lines on stdout, run on stderr)
    assert code == 2 and said in said_all and str(env) in said_all and "Traceback" not in said_all, said_all
    assert fake_token() not in said_all and "none was found" not in said_all


def test_dotenv_is_read_from_the_current_folder_only_and_fills_an_empty_variable(capsys, owner_env, tmp_path):
    """The docs say "a .env file in the folder you start mjbot from": a .env of a parent folder (a stray /var/lib/.env
    under the service) was read too. A variable set empty in the environment (a stray ``export DISCORD_TOKEN=``)
    hid the file's token."""
    (tmp_path / ".env").write_text("MJBOT_LOG_LEVEL=verbose\n")
    child = tmp_path / "child"
    child.mkdir()
    owner_env.chdir(child)
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    assert check(capsys)[0] == 0  # the parent's bad log level is not read
    owner_env.chdir(tmp_path)
    code, lines, out = check(capsys)
    assert code == 2 and "MJBOT_LOG_LEVEL" in out and "'verbose'" in out  # as written, not upper-cased
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN={fake_token(987654321098765432)}\n")
    owner_env.delenv("MJBOT_LOG_LEVEL")  # (what the first .env set in this process)
    owner_env.setenv("DISCORD_TOKEN", "")
    code, lines, out = check(capsys)
    assert code == 0 and "client_id=987654321098765432" in lines["invite"]


@pytest.mark.parametrize("name", ["MJBOT_DEV_GUILD", "MJBOT_DB", "MJBOT_LOG_LEVEL", "MJBOT_SHARD_COUNT",
                                  "MJBOT_DB_POOL", "MJBOT_DB_TIMEOUT", "MJBOT_GLOBAL_RATE"])
def test_a_token_pasted_on_another_settings_line_is_never_printed(capsys, owner_env, tmp_path, monkeypatch, name):
    """In .env.example the server-id line comes right under the token's. A token pasted there was printed back in
    full ("MJBOT_DEV_GUILD must be a server id (digits), not 'MTIz…'"), and as MJBOT_DB it named a database file
    after the token."""
    _never_connect(monkeypatch)
    owner_env.delenv("MJBOT_DB")
    (tmp_path / ".env").write_text(f"DISCORD_TOKEN=\n{name}={fake_token()}\n")
    for command in ("run", "check"):
        code = main([command])
        out, err = capsys.readouterr()
        assert code == 2 and name in out + err and "DISCORD_TOKEN line" in out + err
        assert fake_token() not in out + err and fake_token().split(".")[0] not in out + err
    assert [p.name for p in tmp_path.iterdir()] == [".env"]  # no database file named after it


def test_a_token_pasted_with_its_bot_prefix_is_taken(capsys, owner_env):
    """"Bot <token>" is how the token goes in an HTTP header and how some guides show it: it was refused as "not
    shaped like a bot token (three parts separated by dots)", which it is."""
    owner_env.setenv("DISCORD_TOKEN", f"Bot {fake_token()}")
    code, lines, out = check(capsys)
    assert code == 0 and lines["token"].startswith("✓"), out


def test_run_exits_2_when_discord_refuses_the_token(capsys, owner_env, tmp_path, monkeypatch, caplog):
    import discord

    async def refused(self, token):  # Discord's answer to a revoked token (401), as discord.py raises it
        raise discord.LoginFailure("Improper token has been passed.")

    monkeypatch.setattr(discord.http.HTTPClient, "static_login", refused)
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    owner_env.setenv("MJBOT_DB", str(tmp_path / "mj.sqlite3"))
    assert main(["run"]) == 2
    assert "Discord refused the token" in caplog.text and fake_token() not in caplog.text


def test_check_module_examples():
    import doctest

    import bot.check
    import bot.config

    results = [doctest.testmod(m) for m in (bot.check, bot.config)]  # (the token's shape is read in config)
    assert sum(r.attempted for r in results) >= 2 and not any(r.failed for r in results)


def test_every_example_in_the_score_help_scores(capsys):
    import shlex

    from bot.cli import NOTATION

    examples = [shlex.split(line)[1:] for line in NOTATION.splitlines() if line.strip().startswith("mjbot score")]
    assert len(examples) >= 3
    for argv in examples:
        code, out, err = run(capsys, *argv)
        assert code == 0, (argv, out, err)


def test_local_takes_every_difficulty_and_refuses_others(capsys, monkeypatch):
    """`mjbot local --difficulty strong` plays against the strong AI (here: quits at the first prompt); an unknown
    difficulty is a wrong option (exit 2)."""
    monkeypatch.setattr("sys.stdin", io.StringIO(""))  # the terminal closes at the first prompt
    assert "strong" in DIFFICULTIES
    for d in DIFFICULTIES:
        assert main(["local", "--variant", "wuhu", "--seed", "3", "--difficulty", d]) == 0
    capsys.readouterr()
    with pytest.raises(SystemExit) as e:
        main(["local", "--variant", "wuhu", "--difficulty", "grandmaster"])
    assert e.value.code == 2
    assert "grandmaster" in capsys.readouterr().err


def test_duel_of_one_deal_claims_no_confidence_interval(capsys):
    """One deal gives no spread between deals: the text said "95% +x .. +x" (a zero-width interval, as if the figure
    were certain); it now says the interval needs two deals or more (``--json`` keeps its keys, as documented)."""
    rc, out, _ = run(capsys, "duel", "--variant", "hefei", "--test", "normal", "--base", "easy", "--deals", "1")
    assert rc == 0
    line = next(x for x in out.splitlines() if "a hand" in x)
    assert "95%" in line and ".." not in line and "2 deals or more" in line
    assert "hefei: normal vs 3 x easy, 1 deal (4 hands)" in out
    rc, out, _ = run(capsys, "duel", "--variant", "hefei", "--test", "normal", "--base", "easy", "--deals", "1",
                     "--json")
    assert rc == 0 and {"ci95_low", "ci95_high"} <= set(last_json(out))


def test_duel_refuses_a_count_it_cannot_play_and_ctrl_c_stops_it_without_a_traceback(capsys, monkeypatch):
    """``--deals 10**20`` built the list of every deal first and ended in a MemoryError traceback; Ctrl-C printed a
    KeyboardInterrupt traceback (found by an independent review). Now: one line and exit 2; "interrupted" and 130."""
    base = ("duel", "--variant", "wuhu", "--test", "normal", "--base", "easy")
    for extra, said in ((("--deals", str(10**20)), "argument --deals: must be a whole number from 1 to 100,000"),
                        (("--deals", "100001"), "argument --deals: must be a whole number from 1 to 100,000"),
                        (("--deals", "5", "--jobs", "65"), "argument --jobs: must be a whole number from 1 to 64"),
                        (("--deals", "5", "--jobs", "0"), "argument --jobs: must be a whole number from 1 to 64")):
        # (argparse's refusal, naming the option at fault, under the usage line: it said "--deals must be 1 to
        # 100,000 and --jobs 1 to 64" whichever was wrong, without either)
        with pytest.raises(SystemExit) as info:
            main([*base, *extra])
        out, err = capsys.readouterr()
        assert info.value.code == 2 and err.startswith("usage: mjbot duel") and f"mjbot duel: error: {said}" in err
        assert not out
    import time

    calls, stop_at = [], [50]
    real = time.perf_counter

    def clock():  # Ctrl-C arrives at the clock's call stop_at (a duel times each decision; a simulation its whole)
        calls.append(1)
        if len(calls) == stop_at[0]:
            raise KeyboardInterrupt
        return real()

    monkeypatch.setattr(time, "perf_counter", clock)
    rc, out, err = run(capsys, *base, "--deals", "3")
    assert rc == 130 and err.strip() == "interrupted" and "Traceback" not in out + err and len(calls) == 50
    calls.clear()
    stop_at[0] = 2  # as the simulation of 5 hands ends
    rc, out, err = run(capsys, "sim", "--variant", "hefei", "--hands", "5")
    assert rc == 130 and err.strip() == "interrupted" and "Traceback" not in out + err and len(calls) == 2


def test_a_character_that_cannot_be_seen_is_named_by_its_code_point(capsys):
    """A control character in a typed hand was echoed raw ("第 13 个字符 '' 无法识别"): found by an independent
    review. It is named as U+0001; a visible character is still shown as it is."""
    rc, _, err = run(capsys, "score", "12345678m11p\x01[555p]+9m", "--variant", "wuhu", "--lang", "en")
    assert rc == 1 and "'U+0001'" in err and "\x01" not in err
    rc, _, err = run(capsys, "score", "12345678m11p?[555p]+9m", "--variant", "wuhu", "--lang", "en")
    assert rc == 1 and "'?'" in err


def test_output_and_input_the_terminal_cannot_encode_are_replaced_not_a_traceback():
    """A GBK console (Chinese Windows) cannot show ✓, and an ASCII one no Chinese; a line of bytes that is not UTF-8
    could not be read: each ended the command in a traceback (found by an independent review)."""
    import os
    import subprocess
    import sys

    def mjbot(args, data, encoding):
        env = {**os.environ, "PYTHONIOENCODING": encoding}
        return subprocess.run([sys.executable, "-m", "bot", *args], input=data, capture_output=True, env=env,
                              timeout=300)

    p = mjbot(["score", "12345678m11p[555p]+9m", "--variant", "wuhu"], b"", "ascii")
    assert p.returncode == 0 and b"Traceback" not in p.stderr and b"?" in p.stdout
    p = mjbot(["local", "--variant", "wuhu", "--seed", "1"], b"\xce\xe5\xcd\xf2\nq\n", "utf-8")
    assert p.returncode == 0 and b"Traceback" not in p.stderr and p.stdout.rstrip().endswith("再见".encode())
    p = mjbot(["local", "--variant", "wuhu", "--seed", "1"], b"1\n" * 3000, "gbk")
    assert p.returncode == 0 and b"Traceback" not in p.stderr and "再见".encode("gbk") in p.stdout


@pytest.mark.parametrize("lang", ["zh", "zh-TW", "en"])
def test_the_breakdowns_values_stand_in_one_column_on_a_terminal(capsys, lang):
    """Padding counted characters, so a Chinese name (two columns a character) pushed its value right (found by an
    independent review); and the header and payments take the language's colon."""
    from text.width import width

    rc, out, _ = run(capsys, "score", "23456799m345p67s+8s", "--variant", "wuhu", "--from", "W", "--lang", lang)
    rows = [x for x in out.splitlines() if x.startswith("  ")]
    assert rc == 0 and len(rows) >= 4
    ends = {width(x) - len(re.search(r"[+×]?\d+$", x).group(0)) for x in rows}
    assert len(ends) == 1, rows  # every value starts in the same column
    colon = ": " if lang == "en" else "："
    assert out.splitlines()[0].endswith(colon.strip()) and colon in out.splitlines()[-1]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_output_that_cannot_be_written_is_one_line_not_a_traceback():
    """``mjbot score ... > /dev/full`` (a full disk): an OSError traceback (found by an independent review)."""
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "bot", "score", "12345678m11p555p+9m", "--variant", "wuhu"],
                           stdout=full, stderr=subprocess.PIPE, timeout=300)
    assert p.returncode == 1 and p.stderr.decode().strip() == "mjbot: cannot write the output: No space left on device"


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["local", "--help"]])
def test_a_help_that_cannot_be_written_says_so(argv):
    """argparse swallowed the error: ``mjbot --help > /dev/full`` exited 0 having written nothing."""
    with open("/dev/full", "w") as full:
        p = subprocess.run([sys.executable, "-m", "bot", *argv], stdout=full, stderr=subprocess.PIPE, timeout=300)
    assert p.returncode == 1 and p.stderr.decode().strip() == "mjbot: cannot write the output: No space left on device"
    with open("/dev/full", "w") as full:  # an error that cannot be told still exits 2
        p = subprocess.run([sys.executable, "-m", "bot", "score"], stdout=subprocess.PIPE, stderr=full, timeout=300)
    assert p.returncode == 2


@pytest.mark.parametrize("argv, said", [
    (["score", "123m"], ["用法：mjbot score [-h] --variant", "mjbot score：错误：缺少必需的参数：--variant"]),
    (["score", "123m", "--variant", "wuhux", "--lang", "zh-TW"],
     ["用法：mjbot score", "mjbot score：錯誤：參數 --variant：無效的選擇：'wuhux'（可選：'wuhu', 'hefei', 'chizhou'）"]),
    (["score", "123m", "--variant", "wuhu", "--from", "X"], ["参数 --from：", "东"]),
    (["local", "--variant", "hefei", "--seed", "abc"], ["mjbot local：错误：参数 --seed：无效的值：'abc'"]),
    (["local", "--variant", "hefei", "--seed", "abc", "--lang=en"],
     ["usage: mjbot local", "mjbot local: error: argument --seed: invalid int value: 'abc'"]),
    (["score", "123m", "--variant", "hefei", "--bogus"], ["mjbot：错误：无法识别的参数：--bogus"]),
    (["sim", "--hands", "x"], ["usage: mjbot sim", "mjbot sim: error: argument --hands: invalid int value: 'x'"]),
    (["scroe"], ["usage: mjbot", "invalid choice: 'scroe'"]),  # no command, no language: English
])
def test_a_players_command_line_mistake_is_told_in_the_players_language(capsys, argv, said):
    """argparse's own refusals of ``mjbot score`` / ``local`` were English whatever ``--lang`` said (zh by
    default), beside the commands' own refusals in the player's language; the operator's commands stay English."""
    import argparse

    before = argparse._  # type: ignore[attr-defined]
    with pytest.raises(SystemExit) as info:
        main(argv)
    err = capsys.readouterr().err
    assert info.value.code == 2 and all(s in err for s in said), err
    assert argparse._ is before  # type: ignore[attr-defined]  # argparse speaks English again afterwards
    # Chinese that no --lang asked for ends with how to have it in English (the README and --help are English)
    chinese_by_default = "：" in err and not any(a.startswith("--lang") for a in argv)
    assert err.endswith("(--lang en: these messages in English)\n") == chinese_by_default, err


def test_the_help_stays_english_from_its_first_word(capsys):
    with pytest.raises(SystemExit) as info:
        main(["score", "--help"])
    assert info.value.code == 0 and capsys.readouterr().out.startswith("usage: mjbot score")


def test_every_argparse_message_we_translate_is_one_argparse_writes_with_its_placeholders():
    """A Python whose argparse words a message differently would silently leave it English: caught here."""
    import argparse
    import inspect
    import re

    from bot.cli_lang import MSGIDS
    from text.catalog import template

    source = inspect.getsource(argparse)
    for msgid, key in MSGIDS.items():
        assert repr(msgid)[1:-1] in source, msgid
        holders = set(re.findall(r"%(?:\(\w+\))?[sr]", msgid))
        for lang in ("zh", "zh-TW", "en"):  # a translation may leave one out (the type of "invalid int value")
            assert set(re.findall(r"%(?:\(\w+\))?[sr]", template(key, lang))) <= holders, (key, lang)
        assert template(key, "en") == msgid
