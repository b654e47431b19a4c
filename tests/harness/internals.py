"""Every private attribute of discord.py and aiohttp that the test harness touches, in one place.

The harness drives the real discord.py dispatch and transports; to do that without a network it has to reach a few
names that are not public API. They live here, each behind a small function, so that a discord.py or aiohttp
release that renames one breaks here first, and ``tests/test_discord_internals.py`` says which name moved (the
constraints file pins the versions the suite last passed with).

=============================================  =====================================================================
``HTTPClient._HTTPClient__session``           the aiohttp session ``HTTPClient.request`` *and* the interaction /
                                              webhook transport (``Interaction._session``, ``Webhook`` helpers)
                                              send through: the fake Discord sits there
``HTTPClient._global_over``                   the global rate-limit gate, made in ``static_login`` (which the
                                              harness does not run): opened once so requests are not held
``View.__timeout_task_impl``                  the coroutine of a view's timeout task (a long sleeper the harness
(``_View__timeout_task``)                     never waits for)
``aiohttp.FormData._fields``                  the parts of a multipart body (files and ``payload_json``)
=============================================  =====================================================================

The public boot path of ``docs/interfaces.md`` (``bot._async_setup_hook()``, ``bot._connection``,
``parse_interaction_create``) is checked by the same test.
"""

from __future__ import annotations

import asyncio
from typing import Any

import aiohttp
import discord

SESSION_ATTR = "_HTTPClient__session"
GLOBAL_GATE_ATTR = "_global_over"
FORM_FIELDS_ATTR = "_fields"
#: substrings of the qualified names of view timeout tasks (discord.py's ``View.__timeout_task_impl``)
VIEW_TIMEOUT_TASK_MARKERS = ("timeout_task_impl", "_View__timeout_task")


def install_session(http: discord.http.HTTPClient, session: Any) -> None:
    """Make ``session`` the one both discord.py transports send every request through."""
    setattr(http, SESSION_ATTR, session)


def open_global_gate(http: discord.http.HTTPClient) -> None:
    """Create the global rate-limit event ``static_login`` would have created, already set (no global limit)."""
    gate = asyncio.Event()
    gate.set()
    setattr(http, GLOBAL_GATE_ATTR, gate)


def form_fields(form: aiohttp.FormData) -> list[tuple[dict[str, str], Any, Any]]:
    """The ``(type_options, headers, value)`` parts of a multipart body."""
    return getattr(form, FORM_FIELDS_ATTR)
