"""The private discord.py / aiohttp surface of the test harness (tests/harness/internals.py) is still where the
harness expects it. When a release moves one of these, this file fails naming the attribute, instead of the harness
failing far away (requests reaching the network, a gate that never opens, a multipart body read as empty)."""

from __future__ import annotations

import asyncio
import inspect
import sys
from pathlib import Path

import aiohttp
import discord
import discord.interactions
import discord.webhook.async_
import pytest

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:  # `tests.harness` is imported from the repository root
    sys.path.insert(0, str(ROOT))

from tests.harness import internals  # noqa: E402

UPDATE = ("discord.py {version} / aiohttp {aiohttp}: {what}. Update tests/harness/internals.py for this release "
          "(or pin the version that passed: constraints.txt).")


def moved(what: str) -> str:
    return UPDATE.format(version=discord.__version__, aiohttp=aiohttp.__version__, what=what)


async def test_the_http_session_is_the_one_both_transports_send_through():
    client = discord.Client(intents=discord.Intents.none())
    http = client.http
    assert hasattr(http, internals.SESSION_ATTR), moved(f"HTTPClient.{internals.SESSION_ATTR} is gone")
    request_src = inspect.getsource(discord.http.HTTPClient.request)
    assert "self.__session.request" in request_src, moved(
        f"HTTPClient.request no longer sends through self.__session ({internals.SESSION_ATTR})")
    for module in (discord.interactions, discord.webhook.async_):
        assert internals.SESSION_ATTR in inspect.getsource(module), moved(
            f"{module.__name__} no longer takes its session from http.{internals.SESSION_ATTR}: interaction "
            "responses would bypass the fake Discord")
    session = aiohttp.ClientSession()
    internals.install_session(http, session)
    assert getattr(http, internals.SESSION_ATTR) is session
    await client.close()  # closes the installed session: it really is the client's
    assert session.closed


async def test_the_global_rate_limit_gate_is_the_event_the_request_path_waits_on():
    client = discord.Client(intents=discord.Intents.none())
    http = client.http
    assert hasattr(http, internals.GLOBAL_GATE_ATTR), moved(f"HTTPClient.{internals.GLOBAL_GATE_ATTR} is gone")
    assert f"self.{internals.GLOBAL_GATE_ATTR}" in inspect.getsource(discord.http.HTTPClient.request), moved(
        f"HTTPClient.request no longer waits on self.{internals.GLOBAL_GATE_ATTR}")
    internals.open_global_gate(http)
    gate = getattr(http, internals.GLOBAL_GATE_ATTR)
    assert isinstance(gate, asyncio.Event) and gate.is_set()
    await client.close()


async def test_view_timeout_tasks_are_still_recognisable_by_name():
    view = discord.ui.View(timeout=60)
    names = [n for n in dir(discord.ui.View) if "timeout_task" in n]
    assert any(m in n for n in names for m in internals.VIEW_TIMEOUT_TASK_MARKERS), moved(
        f"discord.ui.View has no attribute matching {internals.VIEW_TIMEOUT_TASK_MARKERS} (found {names}); the "
        "harness would wait for every view's timeout")
    view.stop()


def test_multipart_bodies_still_keep_their_parts_in_fields():
    form = aiohttp.FormData()
    form.add_field("payload_json", '{"content": "hi"}')
    form.add_field("files[0]", b"PNG", filename="hand.png")
    assert hasattr(form, internals.FORM_FIELDS_ATTR), moved(f"aiohttp.FormData.{internals.FORM_FIELDS_ATTR} is gone")
    parts = internals.form_fields(form)
    assert [p[0].get("name") for p in parts] == ["payload_json", "files[0]"], moved(
        f"aiohttp.FormData.{internals.FORM_FIELDS_ATTR} no longer holds (type_options, headers, value) parts")
    assert parts[1][0].get("filename") == "hand.png" and parts[1][2] == b"PNG"


@pytest.mark.parametrize(("owner", "attr"), [
    (discord.Client, "_async_setup_hook"),
    (discord.Client, "_connection"),
    (discord.state.ConnectionState, "parse_interaction_create"),
])
def test_the_boot_path_of_the_interfaces_still_exists(owner, attr):
    if attr == "_connection":
        client = discord.Client(intents=discord.Intents.none())
        assert hasattr(client, attr), moved(f"discord.Client.{attr} is gone (docs/interfaces.md boot path)")
        return
    assert callable(getattr(owner, attr, None)), moved(
        f"{owner.__module__}.{owner.__qualname__}.{attr} is gone (docs/interfaces.md boot path)")


async def test_the_gateway_events_the_harness_feeds_have_their_parsers():
    """``Harness.gateway`` / ``Harness.connect`` hand raw gateway payloads to the connection state's ``parsers``
    (as ``DiscordWebSocket.received_message`` does) and shorten ``guild_ready_timeout``."""
    client = discord.Client(intents=discord.Intents.none())
    state = client._connection
    for event in ("READY", "GUILD_CREATE", "GUILD_DELETE", "CHANNEL_DELETE", "THREAD_DELETE"):
        assert callable(state.parsers.get(event)), moved(f"the connection state has no parser for {event}")
    assert "_discord_parsers[event]" in inspect.getsource(discord.gateway.DiscordWebSocket.received_message), moved(
        "the gateway no longer hands events to the connection state's parsers")
    assert isinstance(state.guild_ready_timeout, float), moved("ConnectionState.guild_ready_timeout is gone")
    await client.close()
