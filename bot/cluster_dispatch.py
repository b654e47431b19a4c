"""How bot.cluster meets discord.py's dispatch: the raw payload kept for routing, a standby leaving a shard's
interactions to the process that holds it, and a routed click fed to the owner's own dispatch (docs/sharding.md).

The leases and the queue of routed clicks are :mod:`bot.cluster`'s; this module is what touches discord.py's
connection state (its ``parse_interaction_create``, which ``tests/test_discord_internals.py`` checks, and its view
store).
"""

from __future__ import annotations

import logging
from contextvars import ContextVar
from typing import Any

import discord

from .store.fence import ROUTED_CLICK

log = logging.getLogger("bot.cluster")


#: the raw INTERACTION_CREATE payload being dispatched (the tasks discord.py starts for it see it): what a routed
#: click carries to its owner, exactly as Discord sent it
RAW_INTERACTION: ContextVar[dict[str, Any] | None] = ContextVar("mjbot_raw_interaction", default=None)


def keep_raw_interactions(state: Any) -> None:
    """Wrap the connection state's ``parse_interaction_create`` (the gateway's parser and the attribute the test
    harness calls alike) so that the work it starts can read its raw payload (:data:`RAW_INTERACTION`)."""
    original = state.parse_interaction_create

    def parse_interaction_create(data: Any) -> None:
        token = RAW_INTERACTION.set(data)
        try:
            original(data)
        finally:
            RAW_INTERACTION.reset(token)

    state.parse_interaction_create = parse_interaction_create
    state.parsers["INTERACTION_CREATE"] = parse_interaction_create


def leave_to_owners(state: Any, cluster: Any) -> None:
    """Wrap the connection state's ``parse_interaction_create`` (as :func:`keep_raw_interactions`) so that a
    server's interaction reaching a process that runs the server's shard but does not hold its lease (a standby:
    Discord delivers a shard's events to every connection running it) is left to the process that holds it, which
    gets the same event and answers it: an answer from here could win the race and leave the owner's unsent. The
    same for a DM's interaction (Discord delivers every DM event to shard 0): a standby of shard 0 leaves it to the
    holder of shard 0, which plays or routes it. Only while no process holds the shard is it handled here (the usual
    code answers "the table is moving"). While this process's own lease connection is down it cannot tell whether
    one does: it handles nothing, and tells the player the bot cannot reach its database unless the owner answered
    first (``cluster.answer_blind``). ``cluster``: the process's :class:`bot.cluster.Cluster` (typed loosely:
    that module imports this one)."""
    original = state.parse_interaction_create

    def parse_interaction_create(data: Any) -> None:
        guild = data.get("guild_id") if isinstance(data, dict) else None
        shard = 0 if guild is None else cluster.shard_of(int(guild))
        if shard in cluster.held or shard not in cluster.shards:
            original(data)
            return

        async def decide() -> None:
            alive = await cluster.knows_owner(shard)
            if alive:
                log.debug("interaction %s (server %s): left to the owner of shard %s", data.get("id"), guild, shard)
                return
            if alive is None:  # this process cannot reach its lease: it acts on nothing, a live owner answers first
                await cluster.answer_blind(discord.Interaction(data=data, state=state))
                return
            original(data)

        cluster._spawn(decide(), name="mjbot-standby-interaction")

    state.parse_interaction_create = parse_interaction_create
    state.parsers["INTERACTION_CREATE"] = parse_interaction_create


def dispatch_routed(bot: Any, data: dict[str, Any], shard: int) -> None:
    """Feed a routed click to this process's discord.py as Discord would, but already acknowledged (the routing
    process deferred it): the control's callback runs as usual and answers through the interaction's token.
    ``shard``: its table's shard (``interaction.extras["routed"]``)."""
    state = bot._connection
    interaction: discord.Interaction[Any] = discord.Interaction(data=data, state=state)  # type: ignore[arg-type]
    interaction.response._response_type = discord.InteractionResponseType.deferred_message_update
    interaction.extras["routed"] = shard
    inner = data["data"]
    token = ROUTED_CLICK.set(int(data["id"]))  # the callback's task keeps it: the move's write marks the click handled
    try:
        state._view_store.dispatch_view(inner["component_type"], inner["custom_id"], interaction)
    finally:
        ROUTED_CLICK.reset(token)
