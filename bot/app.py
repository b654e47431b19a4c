"""The Discord application: :class:`MjBot`, :func:`create_bot` and :func:`run`.

``create_bot(config)`` returns the configured bot without connecting (tests and outside checks boot it as
``docs/interfaces.md`` says). ``setup_hook`` opens the store, installs the translator and loads every cog; it
syncs the slash commands only when the bot really connects (never in the test harness).

Only application commands and components: no message-content intent, no privileged intent at all.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import importlib
import importlib.util
import logging
import pkgutil
import signal
import sys
from typing import Any, TypeVar, cast

import aiohttp
import discord
from discord.ext import commands

from .cluster import Cluster, ClusterError
from .cluster_dispatch import dispatch_routed, keep_raw_interactions, leave_to_owners
from .config import Config
from .i18n import Translator
from .observe import Observers
from .ratelimit import GlobalLimiter, share
from .store import Store
from .tables import TableManager

log = logging.getLogger(__name__)

CogT = TypeVar("CogT", bound=commands.Cog)

# Loaded first, in this order; then every other module of the ``cogs`` package that has a ``setup``.
CORE_EXTENSIONS = ("cogs.errors",)

SCOPES = ("bot", "applications.commands")


def invite_permissions() -> discord.Permissions:
    """Exactly what the bot needs in a channel where tables are played."""
    return discord.Permissions(
        view_channel=True,  # see the channel it is asked to post in
        send_messages=True,  # tables, announcements, score cards
        send_messages_in_threads=True,  # tables may live in threads
        embed_links=True,  # embeds (/settings, /rules, lobbies)
        attach_files=True,  # table, hand and score card images
        read_message_history=True,  # find and edit its table message again after a restart
    )


def invite_url(application_id: int) -> str:
    return discord.utils.oauth_url(application_id, permissions=invite_permissions(), scopes=SCOPES)


def intents() -> discord.Intents:
    """Guilds only (channel and thread objects for the tables); nothing privileged."""
    i = discord.Intents.none()
    i.guilds = True
    return i


def extension_names() -> list[str]:
    """The cogs to load: the core ones first, then every ``cogs.*`` module with a ``setup`` function.

    The bot names its extensions (discord.py loads them by name) and never imports a cog's code itself: the package
    is found with ``find_spec``, so ``bot`` stays below ``cogs`` (tests/test_layers.py)."""
    spec = importlib.util.find_spec("cogs")
    assert spec is not None and spec.submodule_search_locations is not None

    names = list(CORE_EXTENSIONS)
    for info in sorted(pkgutil.iter_modules(spec.submodule_search_locations), key=lambda m: m.name):
        name = f"cogs.{info.name}"
        if info.name.startswith("_") or name in names:
            continue
        module = importlib.import_module(name)
        if callable(getattr(module, "setup", None)):
            names.append(name)
    return names


#: What every message may ping unless it says otherwise: nobody. A message meant to ping someone (a record card's
#: payers, the player whose DMs are closed) lists them in its own ``allowed_mentions``; a name that reads like a
#: mention (a display name ``<@id> @everyone``) then pings nobody, wherever it is shown.
NO_PINGS = discord.AllowedMentions(everyone=False, roles=False, users=False, replied_user=False)


class MjBot(commands.AutoShardedBot):
    """The mahjong bot, running the shards of ``config.shards`` (every one by default: bot.shards). ``bot.store`` is the open store after ``setup_hook`` (None before and after); ``bot.tables``
    every live table (:class:`~bot.tables.TableManager`); ``bot.config`` its configuration."""

    def __init__(self, config: Config, **options: Any) -> None:
        # no voice: do not warn at every start that the voice libraries are missing
        discord.VoiceClient.warn_nacl = False
        discord.VoiceClient.warn_dave = False
        # Discord's global limit (bot.ratelimit): every request on the bot's token takes a slot as it is sent; the
        # rate (this process's share) is set below, once the shards are known
        self.limiter = GlobalLimiter(None)
        super().__init__(
            http_trace=self.limiter.trace_config(),
            command_prefix=commands.when_mentioned,  # no prefix commands are defined; slash commands only
            help_command=None,
            intents=intents(),
            allowed_mentions=NO_PINGS,  # a message pings only the members it names in its own allowed_mentions
            **config.shard_plan.discord_options(),
            **options,
        )
        self.config = config
        self.store: Store | None = None
        self.cluster: Cluster | None = None  # leases and routed clicks on PostgreSQL (bot.cluster)
        keep_raw_interactions(self._connection)
        self.observers = Observers()  # what tests and benchmarks watch (bot.observe)
        self.tables: TableManager = TableManager(self)
        self.tables.reread = self._reread_tables
        self.connecting_for_real = False
        # this process's share of Discord's global limit (bot.ratelimit): the configured one, else 50 x its shards /
        # the shard count (AutoShardedBot's shard_ids / shard_count), else the whole 50
        ids = getattr(self, "shard_ids", None)
        rate = config.global_rate if config.global_rate is not None else share(
            len(ids) if ids else None, self.shard_count if ids else None)
        self.limiter.rate = rate

    @property
    def open_store(self) -> Store:
        """The store, which is open while the bot runs (commands, clicks, tasks): ``RuntimeError`` when it is not
        (before ``setup_hook``, after ``close``). Code that may run without one reads :attr:`store` (None then)."""
        if self.store is None:
            raise RuntimeError("the store is not open")
        return self.store

    def cog(self, kind: type[CogT]) -> CogT:
        """The loaded cog of the class ``kind``, found by its name: ``load_extension`` executes an extension's module
        afresh, so the class a caller imported may be another copy of the loaded cog's class."""
        found = self.get_cog(kind.__cog_name__)
        if found is None:
            raise LookupError(f"the cog {kind.__cog_name__} is not loaded")
        return cast(CogT, found)

    async def login(self, token: str) -> None:
        self.connecting_for_real = True
        await super().login(token)

    async def setup_hook(self) -> None:
        from bot.store import Store

        # creates the folder; StoreError if unusable
        self.store = await Store.open(self.config.db_path, pool=self.config.db_pool, timeout=self.config.db_timeout)
        await self.open_cluster()
        await self.tree.set_translator(Translator())
        for name in extension_names():
            await self.load_extension(name)  # cogs.tables resumes the tables of the shards this process holds
        if self.cluster is not None:
            self.cluster.start()
        from bot import interactions, options

        options.install(self.tree)  # every option a raw payload sends is checked as Discord's client would
        interactions.install(self.tree)  # a command's language is worked out as it arrives, once (bot.interactions)
        log.info("loaded %d extensions", len(self.extensions))
        freeze_startup()
        if self.connecting_for_real:
            if self.application_id is not None:
                url = invite_url(self.application_id)
                print(f"Invite the bot to a server with: {url}", flush=True)
                log.info("invite URL: %s", url)
            await self.sync_commands()

    async def open_cluster(self) -> None:
        """On PostgreSQL: take the leases of this process's shards (bot.cluster) before any table is resumed; the
        tables follow the leases (taken later: resumed; lost: dropped), and clicks routed here are applied."""
        store = self.store
        if store is None or store.backend is None or store.backend.name != "postgresql":
            return
        url = getattr(store.backend, "url", None)
        assert isinstance(url, str)
        self.cluster = cluster = await Cluster.open(url, self.config.shard_plan)
        cluster.on_gain = self._shards_gained
        cluster.on_lose = self.tables.shards_lost
        cluster.deliver = lambda data, shard: dispatch_routed(self, data, shard)
        leave_to_owners(self._connection, cluster)
        store.fence = cluster  # every write of a table checks that its shard's lease is still this process's

    def tables_follow_leases(self) -> contextlib.AbstractAsyncContextManager[Any]:
        """Held while the start-up resumes the tables (cogs.tables): a lease lost meanwhile drops them once they are
        in, not before (they would stay, stale, in a process that no longer drives them). Nothing with one process."""
        return self.cluster.following() if self.cluster is not None else contextlib.nullcontext()

    async def _shards_gained(self, shards: set[int]) -> None:
        """This process took more shards' leases (their owner stopped): their tables resume here."""
        from .tables import resume_tables

        if not self.tables.closing:
            await resume_tables(self.tables)

    async def _reread_tables(self) -> None:
        """A table let go because the store held moves it had not seen (another process wrote them) is resumed from
        the store, with every other table of this process's servers that does not play here."""
        from .tables import resume_tables

        if not self.tables.closing:
            async with self.tables_follow_leases():
                await resume_tables(self.tables)

    async def sync_commands(self) -> list[discord.app_commands.AppCommand]:
        """Global sync by default (Discord may take a while to show changes); one server instantly with
        ``MJBOT_DEV_GUILD``."""
        if self.config.dev_guild:
            guild = discord.Object(id=self.config.dev_guild)
            self.tree.copy_global_to(guild=guild)
            synced = await self.tree.sync(guild=guild)
            log.info("synced %d commands to server %s", len(synced), self.config.dev_guild)
        else:
            synced = await self.tree.sync()
            log.info("synced %d global commands", len(synced))
        return synced

    async def on_ready(self) -> None:
        log.info("connected as %s (%s) in %d servers", self.user, getattr(self.user, "id", "?"), len(self.guilds))

    async def close(self) -> None:
        """Unload the cogs (they finish their pending work), disconnect, then close the database."""
        try:
            await super().close()
        finally:
            cluster, self.cluster = self.cluster, None
            if cluster is not None:
                await cluster.close()  # the leases go back: another process may take the shards at once
            store, self.store = self.store, None
            if store is not None:
                await store.close()
                log.info("database closed")


def freeze_startup() -> None:
    """The objects of the start-up (modules, the cogs, the resumed tables: most of what a process holds) stay for
    its whole life: collected once more, then moved out of the garbage collector's generations (``gc.freeze``), so
    that a full collection no longer walks them each time. A full collection holds the event loop (every click
    waits for it): at 200 tables in play it walks 46,000 objects instead of 113,000 and takes a third of the time
    (docs/benchmarks.md, "AI seats off the event loop"). What is frozen is still freed when nothing refers to it;
    only a reference cycle among frozen objects (say a resumed table that ends) is never collected: a bounded cost,
    paid once per start."""
    gc.collect()
    gc.freeze()


def create_bot(config: Config) -> MjBot:
    """The configured bot, not connected."""
    return MjBot(config)


def run(config: Config) -> int:
    """Run the bot until SIGTERM or Ctrl-C. Returns the process exit status."""
    if not config.token:
        print("DISCORD_TOKEN is not set; see docs/discord.md.", file=sys.stderr)
        return 2
    discord.utils.setup_logging(level=getattr(logging, config.log_level, logging.INFO))
    log.info("starting with %r", config)
    bot = create_bot(config)
    from bot.store import StoreError

    async def main() -> int:
        loop = asyncio.get_running_loop()
        stop = asyncio.Event()
        for sig in (signal.SIGINT, signal.SIGTERM):
            with contextlib.suppress(NotImplementedError):  # Windows
                loop.add_signal_handler(sig, stop.set)
        assert config.token  # checked above
        runner = asyncio.create_task(bot.start(config.token), name="mjbot")
        stopper = asyncio.create_task(stop.wait(), name="mjbot-stop")
        try:
            done, _ = await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if runner in done:
                runner.result()  # raises what stopped the bot
                return 0
            log.info("shutting down")
            return 0
        except StoreError as e:  # checked before start; this is a database that broke since
            log.error("%s", e.message("en"))
            return 1
        except discord.LoginFailure:  # a setting to fix: exit status 2, which the service does not restart on
            log.error("Discord refused the token (DISCORD_TOKEN): create a new one on the Bot page of your application")
            return 2
        except ClusterError as e:  # a setting to fix (another process runs another shard count)
            log.error("%s", e)
            return 2
        except discord.PrivilegedIntentsRequired:
            log.error("Discord asks for a privileged intent; this bot uses none: please report this")
            return 1
        except (aiohttp.ClientError, OSError, discord.GatewayNotFound, discord.DiscordServerError) as e:
            log.error("could not reach Discord: %s", e)
            return 1
        finally:
            stopper.cancel()
            await bot.close()
            if not runner.done():
                runner.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await runner

    try:
        return asyncio.run(main())
    except KeyboardInterrupt:  # a second Ctrl-C during shutdown
        return 130
