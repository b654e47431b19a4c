"""``mjbot check``: the pre-flight check a server owner runs before going live.

One line per check, ``✓`` or ``✗``, in this order: the token is configured (never printed, not even in part), the
database opens, migrates and is writable, the fonts load and an image renders, the shards this process runs
(a subset needs PostgreSQL), which slash commands will be synced
and where, and the invite link with its exact permissions. The exit status is 0 only when every check passed.

Nothing here talks to Discord: the command list comes from the real command tree of :func:`bot.app.create_bot`
booted through the public boot path (against a throw-away database, so that tables in play in the real one are not
resumed by the check), and the invite link from :func:`bot.app.invite_url`. The application id in the link is
``--application-id``, or else the bot's public id, which Discord writes (base64) before the first dot of every bot
token.
"""

from __future__ import annotations

import asyncio
import io
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .config import Config, application_id_from_token

PASS, FAIL = "✓", "✗"

# discord.py's flag names -> the names Discord's permission screens show
PERMISSION_NAMES = {
    "read_messages": "View Channels",
    "view_channel": "View Channels",
    "send_messages": "Send Messages",
    "send_messages_in_threads": "Send Messages in Threads",
    "embed_links": "Embed Links",
    "attach_files": "Attach Files",
    "read_message_history": "Read Message History",
}


NO_TOKEN = """\
mjbot needs a Discord bot token to connect, and none was found (DISCORD_TOKEN in the environment or in .env).
To get one: open https://discord.com/developers/applications, press "New Application", open its "Bot" page, press
"Reset Token" and copy it (leave every privileged intent off); then put the line DISCORD_TOKEN=<the token> in a
file named .env in the folder you start mjbot from, or in the environment (for the systemd service: its
EnvironmentFile). `mjbot check` then checks the whole set-up and prints the link that invites the bot to your
server. Without a token you can still play against three AI players in this terminal with
`mjbot local --variant wuhu`, or score a hand with `mjbot score 23456799m345p67s+8s --variant wuhu --from W`."""


def no_token() -> str:
    """What ``mjbot run`` says without a token, its commands written as this shell runs them (:func:`invoked_as`)."""
    return NO_TOKEN.replace("`mjbot ", f"`{invoked_as()} ")


def invoked_as() -> str:
    """How to type ``mjbot`` again in this shell: ``mjbot`` when the shell finds this one on its PATH, else the
    path it was started by (``.venv/bin/mjbot`` after the README's install, which does not activate the venv)."""
    import shutil

    argv0 = sys.argv[0] if sys.argv and sys.argv[0] else ""
    if Path(argv0).name != "mjbot":  # python -m bot, or a test
        return "mjbot"
    found = shutil.which("mjbot")
    if found and Path(found).resolve() == Path(argv0).resolve():
        return "mjbot"
    return argv0


@dataclass(frozen=True, slots=True)
class Outcome:
    ok: bool
    name: str
    text: str

    def line(self) -> str:
        return f"{PASS if self.ok else FAIL} {self.name}: {self.text}"


def check_token(config: Config) -> Outcome:
    if not config.token:
        return Outcome(False, "token", "DISCORD_TOKEN is not set (put DISCORD_TOKEN=<token> in the environment, in "
                                       "a .env file in this folder, or in the service's EnvironmentFile)")
    if application_id_from_token(config.token) is None:
        return Outcome(False, "token", "DISCORD_TOKEN is set but is not shaped like a bot token (three parts "
                                       "separated by dots): copy it again from the Bot page of your application")
    return Outcome(True, "token", "DISCORD_TOKEN is set and shaped like a bot token (not shown)")


async def check_database(config: Config) -> Outcome:
    """Open (creating the folder and file, or connecting to PostgreSQL), migrate, then write and roll back a probe
    table. ``MJBOT_DB`` of an unknown kind (``mysql://...``) is refused in one line."""
    from .store import Store, StoreError
    from .store.migrate import load_migrations
    from .store.paths import shown

    target = config.db_path
    where = shown(target)
    try:
        known = len(load_migrations())
        store = await Store.open(target, pool=config.db_pool, timeout=config.db_timeout)
        try:
            version = store.schema_version
            assert store.backend is not None
            await store.backend.probe_write()
        finally:
            await store.close()
    except StoreError as e:  # its message names the database already, or says it lacked the name
        text = str(e)
        return Outcome(False, "database", text if where in text else f"{where}: {text}")
    except Exception as e:  # sqlite3.Error, asyncpg's errors, OSError (a folder that cannot be made), ...
        return Outcome(False, "database", f"{where}: {type(e).__name__}: {e}")
    if version != known:
        return Outcome(False, "database", f"{where}: schema at version {version}, this mjbot knows {known}")
    return Outcome(True, "database", f"{where} opens, is migrated (schema version {version}) and is writable")


def check_images() -> Outcome:
    """Load every shipped face and render a sample hand to a PNG the way a DM gets it."""
    try:
        from PIL import Image

        from render import fonts
        from render.hand import render_hand
        from render.samples import hand_scene

        missing = [str(face) for face in (fonts.REGULAR, fonts.BOLD, fonts.TILES) if not face.is_file()]
        if missing:
            return Outcome(False, "images", f"font files missing: {', '.join(missing)} (reinstall mjbot)")
        faces = (fonts.regular(20), fonts.bold(20), fonts.tile_face(20))
        png = render_hand(hand_scene())
        with Image.open(io.BytesIO(png)) as img:
            img.load()
            size = img.size
    except Exception as e:
        return Outcome(False, "images", f"{type(e).__name__}: {e}")
    return Outcome(True, "images", f"{len(faces)} fonts loaded from {fonts.FONT_DIR}; a hand rendered "
                                   f"({size[0]}×{size[1]} PNG, {len(png) // 1024} KB)")


def _describe(command: object) -> str:
    from discord import app_commands

    if isinstance(command, app_commands.Group):
        subs = ", ".join(c.name for c in command.commands)
        return f"/{command.name} ({subs})"
    if isinstance(command, app_commands.ContextMenu):
        return f"{command.type.name} menu “{command.name}”"
    return f"/{getattr(command, 'name', command)}"


def name_clashes(payloads: list[dict[str, Any]]) -> list[str]:
    """Where two commands of one type, or two options of one command, share a name in some language (the default
    name or a ``name_localizations`` entry): Discord refuses such a sync, and a client in that language would show
    two entries it cannot tell apart.

    >>> a = {"name": "stats", "name_localizations": {"zh-CN": "战绩"}}
    >>> b = {"name": "history", "name_localizations": {"zh-CN": "战绩", "zh-TW": "歷史"}}
    >>> name_clashes([a, b])
    ["'战绩' (zh-CN): /stats, /history"]
    >>> name_clashes([a, {**b, "name_localizations": {"zh-CN": "历史"}}])
    []
    """
    found: list[str] = []

    def visit(entries: list[dict[str, Any]], path: str) -> None:
        named = [e for e in entries if "value" not in e]  # choices: their names need not differ
        locales = {"default"}.union(*((e.get("name_localizations") or {}).keys() for e in named))
        seen: dict[tuple[int, str, str], str] = {}
        for e in named:
            own = f"{path}{e['name']}"
            shown = e.get("name_localizations") or {}
            for locale in sorted(locales):
                name = shown.get(locale) or e["name"]  # a client in a language without its own name shows the default
                key = (int(e.get("type", 1)) if not path else 0, locale, name)
                if key in seen:
                    found.append(f"{name!r} ({locale}): /{seen[key]}, /{own}")
                else:
                    seen[key] = own
            visit(e.get("options") or [], own + " ")

    visit(payloads, "")
    return found


async def command_plan(config: Config) -> tuple[str, list[str]]:
    """Where the commands sync to and what they are, from the command tree of a bot booted as the product boots
    (``create_bot`` + setup hooks, a throw-away database), with the payloads built as ``tree.sync`` builds them."""
    import discord

    from .app import create_bot

    with tempfile.TemporaryDirectory(prefix="mjbot-check-") as tmp:
        probe = Config(token=None, db_path=Path(tmp) / "check.sqlite3", dev_guild=config.dev_guild,
                       log_level=config.log_level)
        bot = create_bot(probe)
        try:
            await bot._async_setup_hook()
            await bot.setup_hook()
            guild = discord.Object(id=config.dev_guild) if config.dev_guild else None
            if guild is not None:
                bot.tree.copy_global_to(guild=guild)  # what MjBot.sync_commands does before syncing
            commands = bot.tree.get_commands(guild=guild)
            translator = bot.tree.translator
            payloads = []
            for command in commands:  # raises as sync would on a bad name, description or translation
                if translator is not None:
                    payloads.append(await command.get_translated_payload(bot.tree, translator))
                else:
                    payloads.append(command.to_dict(bot.tree))
            clashes = name_clashes(payloads)
            if clashes:  # Discord refuses the whole sync: no command would show anywhere
                raise ValueError("; ".join(clashes))
        finally:
            await bot.close()
    where = (f"to server {config.dev_guild} only (MJBOT_DEV_GUILD; they show at once)" if config.dev_guild
             else "globally (every server; Discord can take up to an hour to show changes)")
    return where, [_describe(c) for c in commands]


async def check_commands(config: Config) -> Outcome:
    try:
        where, commands = await command_plan(config)
    except Exception as e:
        return Outcome(False, "commands", f"the bot did not boot: {type(e).__name__}: {e}")
    if not commands:
        return Outcome(False, "commands", "no slash command would be synced")
    return Outcome(True, "commands", f"{len(commands)} slash commands, synced {where} when the bot starts: "
                                     + ", ".join(commands))


def check_shards(config: Config) -> Outcome:
    """The shards this process runs, and whether the database can hold several processes (a subset of the shards
    needs PostgreSQL)."""
    from .shards import shard_problem

    plan = config.shard_plan
    problem = shard_problem(config)
    if problem is not None:
        return Outcome(False, "shards", problem)
    if plan.everything:
        return Outcome(True, "shards", f"{plan.describe()}: this process plays every table")
    return Outcome(True, "shards", f"{plan.describe()} in this process: it plays the tables of those shards' "
                                   f"servers; the other shards need their own processes on the same database")


def check_invite(config: Config, application_id: int | None) -> Outcome:
    from .app import invite_permissions, invite_url

    app_id = application_id or application_id_from_token(config.token)
    if app_id is None:
        return Outcome(False, "invite", "no application id: set a valid DISCORD_TOKEN or pass --application-id "
                                        "(General Information page of your application)")
    perms = invite_permissions()
    names = ", ".join(PERMISSION_NAMES.get(name, name.replace("_", " ").title()) for name, granted in perms if granted)
    return Outcome(True, "invite", f"{invite_url(app_id)} (scopes bot + applications.commands; permissions "
                                   f"{perms.value} = {names})")


async def run_checks(config: Config, application_id: int | None = None,
                     emit: Callable[[str], None] = print) -> bool:
    """Run every check, emitting each line as it is known; True when all passed."""
    outcomes = []

    def report(outcome: Outcome) -> None:
        outcomes.append(outcome)
        emit(outcome.line())

    report(check_token(config))
    report(await check_database(config))
    report(await asyncio.to_thread(check_images))
    report(check_shards(config))
    report(await check_commands(config))
    report(check_invite(config, application_id))
    failed = [o.name for o in outcomes if not o.ok]
    emit(f"all {len(outcomes)} checks passed" if not failed
         else f"{len(failed)} of {len(outcomes)} checks failed: {', '.join(failed)}")
    return not failed
