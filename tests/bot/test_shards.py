"""``mjbot run --shard-ids A-B|A,B,... --shard-count N`` (and ``MJBOT_SHARD_IDS`` / ``MJBOT_SHARD_COUNT``): which
shards one process runs. Bad values exit 2 with one line; a subset of the shards on SQLite is refused; ``mjbot
check`` reports the set-up; the bot runs the shards it was given with ``AutoShardedBot``."""

from __future__ import annotations

import subprocess
import sys

import discord
import pytest
from discord.ext import commands

from bot.app import create_bot
from bot.cli import main
from bot.config import Config, ConfigError
from bot.shards import ShardPlan, parse_shards, shard_of
from tests.bot.test_cli import check, fake_token, owner_env  # noqa: F401  # owner_env: a fixture


@pytest.fixture
def started(monkeypatch):
    """`mjbot run` up to the point where it would connect: the configuration it would run with."""
    got: list[Config] = []

    def fake_run(config: Config) -> int:
        got.append(config)
        return 0

    monkeypatch.setattr("bot.app.run", fake_run)
    return got


def run(capsys, *argv: str) -> tuple[int, str]:
    code = main(["run", *argv])
    out, err = capsys.readouterr()
    return code, out + err


@pytest.mark.parametrize(("ids", "count", "want"), [
    ("0-3", "8", ((0, 1, 2, 3), 8)),
    ("0,2,5", "6", ((0, 2, 5), 6)),
    ("3, 0-1", "4", ((0, 1, 3), 4)),
    (None, "4", (None, 4)),
    (None, None, (None, None)),
    ("", "", (None, None)),
])
def test_shard_values_are_read_as_written(ids, count, want):
    plan = parse_shards(ids, count)
    assert (plan.ids, plan.count) == want


def test_a_servers_shard_is_discords():
    # Discord's formula: (guild_id >> 22) % shard_count
    assert shard_of(1_200_000_000_000_000_100, 4) == (1_200_000_000_000_000_100 >> 22) % 4
    plan = ShardPlan((1,), 4)
    assert plan.owns_guild(1 << 22) and not plan.owns_guild(2 << 22) and plan.owns_guild(5 << 22)
    assert ShardPlan().owns_guild(12345) and ShardPlan(None, 3).everything and ShardPlan((0, 1, 2), 3).everything


@pytest.mark.parametrize(("argv", "says"), [
    (["--shard-ids", "0-4", "--shard-count", "4"], "shard 4 does not exist with --shard-count 4"),
    (["--shard-ids", "0", "--shard-count", "0"], "--shard-count must be a whole number"),
    (["--shard-count", "-1"], "--shard-count must be a whole number"),
    (["--shard-count", "two"], "--shard-count must be a whole number"),
    (["--shard-count", "²"], "--shard-count must be a whole number"),
    # a count whose leases' keys would not fit PostgreSQL's 32-bit lock key: every take would fail, for ever a standby
    (["--shard-ids", "32767", "--shard-count", "32768"], "--shard-count must be a whole number from 1 to 32767"),
    (["--shard-ids", "a-b", "--shard-count", "4"], "--shard-ids must be shard numbers"),
    (["--shard-ids", "3-1", "--shard-count", "4"], "backwards"),
    (["--shard-ids", "0-1"], "--shard-ids needs --shard-count"),
    (["--shard-ids", " ", "--shard-count", "4"], "--shard-ids is empty"),
])
def test_bad_shard_flags_exit_2_with_one_clear_line(capsys, owner_env, started, argv, says):  # noqa: F811
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    code, out = run(capsys, *argv)
    assert code == 2 and says in out and "Traceback" not in out
    assert len(out.strip().splitlines()) == 1 and not started


@pytest.mark.parametrize(("env", "says"), [
    ({"MJBOT_SHARD_IDS": "0-1"}, "MJBOT_SHARD_IDS needs MJBOT_SHARD_COUNT"),
    ({"MJBOT_SHARD_IDS": "7", "MJBOT_SHARD_COUNT": "4"}, "MJBOT_SHARD_IDS: shard 7 does not exist"),
    ({"MJBOT_SHARD_COUNT": "0"}, "MJBOT_SHARD_COUNT must be a whole number"),
])
def test_bad_shard_variables_exit_2_for_run_and_check(capsys, owner_env, started, env, says):  # noqa: F811
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    for k, v in env.items():
        owner_env.setenv(k, v)
    code, out = run(capsys, )
    assert code == 2 and says in out and "Traceback" not in out and not started
    code, _, out = check(capsys)
    assert code == 2 and says in out


def test_bad_shard_variables_are_a_config_error():
    with pytest.raises(ConfigError, match="MJBOT_SHARD_COUNT"):
        Config.from_env({"MJBOT_SHARD_COUNT": "x"}, dotenv=False)
    c = Config.from_env({"MJBOT_SHARD_IDS": "1-2", "MJBOT_SHARD_COUNT": "4"}, dotenv=False)
    assert c.shard_plan == ShardPlan((1, 2), 4) and "shards 1, 2 of 4" in repr(c)


def test_a_subset_of_the_shards_on_sqlite_is_refused(capsys, owner_env, started):  # noqa: F811
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    code, out = run(capsys, "--shard-ids", "0-1", "--shard-count", "4")
    assert code == 2 and "PostgreSQL" in out and "SQLite is one file for one process" in out and not started
    assert len(out.strip().splitlines()) == 1
    code, lines, out = check(capsys, "--shard-ids", "0-1", "--shard-count", "4")
    assert code == 2 and lines["shards"].startswith("✗") and "PostgreSQL" in lines["shards"]


def test_every_shard_in_one_process_runs_on_sqlite(capsys, owner_env, started):  # noqa: F811
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    code, out = run(capsys, "--shard-ids", "0-3", "--shard-count", "4")
    assert code == 0, out
    assert started[-1].shard_plan == ShardPlan((0, 1, 2, 3), 4)
    owner_env.setenv("MJBOT_SHARD_COUNT", "2")
    code, out = run(capsys)
    assert code == 0 and started[-1].shard_plan == ShardPlan(None, 2)
    # a flag wins over its variable; the other setting still comes from the environment
    owner_env.setenv("MJBOT_SHARD_COUNT", "6")
    code, out = run(capsys, "--shard-ids", "0-5")
    assert code == 0 and started[-1].shard_plan == ShardPlan(tuple(range(6)), 6)


def test_check_reports_the_shard_setup(capsys, owner_env):  # noqa: F811
    owner_env.setenv("DISCORD_TOKEN", fake_token())
    code, lines, out = check(capsys)
    assert code == 0, out
    assert lines["shards"].startswith("✓") and "every shard in this process" in lines["shards"]
    code, lines, out = check(capsys, "--shard-count", "4")
    assert code == 0 and "all 4 shards in this process" in lines["shards"]


def test_the_bot_runs_the_shards_it_is_given(tmp_path):
    default = create_bot(Config(token=None, db_path=tmp_path / "a.db"))
    assert isinstance(default, commands.AutoShardedBot) and isinstance(default, discord.AutoShardedClient)
    assert default.shard_count is None and default.shard_ids is None  # Discord's recommended count, every shard
    some = create_bot(Config(token=None, db_path=tmp_path / "b.db", shards=ShardPlan((2, 3), 8)))
    assert some.shard_count == 8 and some.shard_ids == [2, 3]


def test_a_process_keeps_to_its_shards_share_of_the_global_limit(tmp_path):
    """Discord's 50 requests/s is the whole bot's: a process with 2 of 8 shards keeps to 12.5, the configured share wins."""
    assert create_bot(Config(token=None, db_path=tmp_path / "a.db")).limiter.rate == 50
    some = create_bot(Config(token=None, db_path=tmp_path / "b.db", shards=ShardPlan((2, 3), 8)))
    assert some.limiter.rate == 12.5
    told = create_bot(Config(token=None, db_path=tmp_path / "c.db", shards=ShardPlan((2, 3), 8), global_rate=20.0))
    assert told.limiter.rate == 20


def test_mjbot_run_help_lists_the_shard_flags():
    p = subprocess.run([sys.executable, "-m", "bot", "run", "--help"], capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "--shard-ids" in p.stdout and "--shard-count" in p.stdout


def test_the_discord_internals_routing_relies_on_are_there(tmp_path):
    """bot.cluster feeds a routed click to discord.py as an already acknowledged interaction and reads the raw
    payload of the click it routes: the private names it uses are checked here, so that a discord.py release that
    moves them fails this test by name (pinned in constraints.txt)."""
    import inspect

    bot = create_bot(Config(token=None, db_path=tmp_path / "a.db"))
    state = bot._connection
    assert state.parsers["INTERACTION_CREATE"] is state.parse_interaction_create  # wrapped in both places
    assert hasattr(state, "_view_store") and callable(state._view_store.dispatch_view)
    assert "_response_type" in inspect.getsource(discord.InteractionResponse.__init__)
    assert "self._response_type is not None" in inspect.getsource(discord.InteractionResponse.is_done)


def test_every_lease_key_fits_postgresqls_lock_key():
    """The largest count the bot takes gives keys PostgreSQL's ``pg_try_advisory_lock(int4, int4)`` accepts."""
    from bot.cluster_lease import lease_key
    from bot.shards import MAX_COUNT

    plan = parse_shards(f"{MAX_COUNT - 1}", str(MAX_COUNT))
    assert plan.count == MAX_COUNT and lease_key(MAX_COUNT, MAX_COUNT - 1) < 2**31
