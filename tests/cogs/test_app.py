"""Configuration, the invite link, intents, command sync and shutdown of the real bot object."""

from __future__ import annotations

import gc
import re
from pathlib import Path

import discord
import pytest

from bot.app import SCOPES, create_bot, intents, invite_permissions, invite_url, run
from bot.config import Config, ConfigError
from tests.harness import APPLICATION_ID, Harness


def test_config_reads_dotenv_and_environment_wins(tmp_path: Path, monkeypatch):
    env_file = tmp_path / ".env"
    env_file.write_text("DISCORD_TOKEN=from-file-secret\nMJBOT_DEV_GUILD=123\nMJBOT_DB=~/mj.db\n"
                        "MJBOT_LOG_LEVEL=debug\n")
    for var in ("DISCORD_TOKEN", "MJBOT_DEV_GUILD", "MJBOT_DB", "MJBOT_LOG_LEVEL"):
        monkeypatch.setenv(var, "")  # remembered, so that what load_dotenv sets is undone after the test
        monkeypatch.delenv(var)
    monkeypatch.setenv("MJBOT_DEV_GUILD", "456")
    c = Config.from_env(dotenv=env_file)
    assert c.token == "from-file-secret"
    assert c.dev_guild == 456, "the environment wins over .env"
    assert c.db_path == Path("~/mj.db").expanduser()
    assert c.log_level == "DEBUG"
    assert "from-file-secret" not in repr(c) and "from-file-secret" not in str(c)


def test_config_defaults_and_refusals(tmp_path: Path):
    c = Config.from_env({}, dotenv=False)
    assert c.token is None and c.dev_guild is None and c.log_level == "INFO"
    assert c.db_path.name.endswith(".sqlite3")
    with pytest.raises(ConfigError, match="MJBOT_DEV_GUILD"):
        Config.from_env({"MJBOT_DEV_GUILD": "my server"}, dotenv=False)
    with pytest.raises(ConfigError, match="MJBOT_LOG_LEVEL"):
        Config.from_env({"MJBOT_LOG_LEVEL": "loud"}, dotenv=False)


def test_invite_link_has_exact_scopes_and_permissions():
    url = invite_url(APPLICATION_ID)
    assert f"client_id={APPLICATION_ID}" in url
    assert re.search(r"scope=bot\+applications\.commands(&|$)", url)
    perms = invite_permissions()
    assert f"permissions={perms.value}" in url
    granted = {name for name, on in perms if on}
    assert granted == {"read_messages", "send_messages", "send_messages_in_threads", "embed_links", "attach_files",
                       "read_message_history"}
    assert SCOPES == ("bot", "applications.commands")


def test_no_privileged_intents_and_no_message_content():
    i = intents()
    assert not i.message_content and not i.members and not i.presences
    assert i.guilds
    bot = create_bot(Config(token=None, db_path=Path("unused.db")))
    assert bot.intents.value == i.value


def test_run_without_token_exits_2(tmp_path: Path, capsys):
    assert run(Config(token=None, db_path=tmp_path / "x.db")) == 2
    assert "DISCORD_TOKEN" in capsys.readouterr().err


async def test_close_closes_the_database(tmp_path: Path):
    h = await Harness.boot(tmp_path / "bot.db")
    store = h.bot.store
    await h.close()
    assert store.closed and h.bot.store is None


async def test_the_start_up_is_frozen_out_of_the_garbage_collector(tmp_path: Path):
    """What the start-up made (modules, cogs, the bot, resumed tables) is moved out of the collector's generations,
    so that a full collection, which holds the event loop and every click with it, does not walk it again (the
    same ``setup_hook`` as the product's start)."""
    gc.unfreeze()  # (an earlier boot in this process froze its own start-up)
    assert gc.get_freeze_count() == 0
    h = await Harness.boot(tmp_path / "bot.db")
    try:
        frozen = gc.get_freeze_count()
        # the generations a collection walks (the frozen objects are not among them)
        walked = any(o is h.bot or o is h.bot.tables for o in gc.get_objects())
    finally:
        await h.close()
    assert frozen > 10_000
    assert not walked


async def test_dev_guild_sync_goes_to_that_server_only(tmp_path: Path):
    h = await Harness.boot(tmp_path / "bot.db", config=Config(token=None, db_path=tmp_path / "bot.db", dev_guild=99))
    try:
        synced = await h.bot.sync_commands()
        [put] = [r for r in h.fake.requests if r.method == "PUT"]
        assert put.path == f"/applications/{APPLICATION_ID}/guilds/99/commands"
        assert {c.name for c in synced} >= {"score", "rules", "settings"}
    finally:
        await h.close()


async def test_global_sync_by_default(harness: Harness):
    await harness.bot.sync_commands()
    [put] = [r for r in harness.fake.requests if r.method == "PUT"]
    assert put.path == f"/applications/{APPLICATION_ID}/commands"


async def test_setup_hook_syncs_and_prints_the_invite_only_when_connecting(tmp_path: Path, capsys):
    # the harness boot never syncs (see test_harness); a real connection (login) does
    h = await Harness.boot(tmp_path / "a.db")
    await h.close()
    assert not [r for r in h.fake.requests if r.method == "PUT"]

    from tests.harness.fake import FakeDiscord, user_payload

    bot = create_bot(Config(token=None, db_path=tmp_path / "b.db"))
    fake = FakeDiscord(APPLICATION_ID, user_payload(APPLICATION_ID, "mjbot", bot=True))
    bot.http._HTTPClient__session = fake.session_for(bot.http)
    bot.http.token = "t"
    await bot._async_setup_hook()
    import asyncio

    bot.http._global_over = asyncio.Event()
    bot.http._global_over.set()
    bot._connection.application_id = APPLICATION_ID
    bot.connecting_for_real = True  # what MjBot.login sets before discord.py calls setup_hook
    try:
        await bot.setup_hook()
        assert [r.path for r in fake.requests if r.method == "PUT"] == [f"/applications/{APPLICATION_ID}/commands"]
        assert invite_url(APPLICATION_ID) in capsys.readouterr().out
    finally:
        await bot.close()
    assert isinstance(bot.intents, discord.Intents)


SIGNAL_SCRIPT = """
import asyncio, sys
from pathlib import Path
from bot import app
from bot.config import Config

async def start_without_discord(self, token, *, reconnect=True):
    # stands in for the gateway connection only: the real setup hook opens the database and loads the cogs
    await self._async_setup_hook()
    await self.setup_hook()
    print("READY", flush=True)
    await asyncio.sleep(3600)

app.MjBot.start = start_without_discord
sys.exit(app.run(Config(token="not-a-real-token", db_path=Path(sys.argv[1]), log_level="INFO")))
"""


@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT"])
def test_run_shuts_down_cleanly_on_a_signal(tmp_path: Path, sig):
    import signal
    import subprocess
    import sys

    db = tmp_path / "bot.db"
    proc = subprocess.Popen([sys.executable, "-c", SIGNAL_SCRIPT, str(db)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=Path(__file__).resolve().parents[2])
    try:
        assert proc.stdout.readline().strip() == "READY"
        proc.send_signal(getattr(signal, sig))
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert "database closed" in err and "Traceback" not in err
    assert "not-a-real-token" not in err + out
    assert db.exists()
