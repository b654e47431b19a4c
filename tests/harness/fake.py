"""A model of Discord's REST API, sitting under discord.py's two HTTP transports.

:class:`FakeDiscord` replaces the aiohttp session that both ``discord.http.HTTPClient.request`` and
``discord.webhook.async_.AsyncWebhookAdapter.request`` (interaction callbacks and followups) send through. So every
request the bot makes is recorded here, and discord.py's own transport code runs unchanged on our answers:
its rate-limit handling sleeps and retries on our 429s, its ``Forbidden`` / ``NotFound`` come from our 403s / 404s.

The model keeps every channel's and DM's messages (content, embeds, components, attachments with their bytes),
ephemeral replies (visible to one user), interaction callbacks and followups, and answers as Discord does.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

import aiohttp
from multidict import CIMultiDict
from yarl import URL

from tests.harness import internals
from tests.harness.limits import problems

API_PREFIX = re.compile(r"^/api(?:/v\d+)?")
EPHEMERAL = 1 << 6
CH_TEXT, CH_DM, CH_PUBLIC_THREAD = 0, 1, 11

_snowflakes = itertools.count(1_300_000_000_000_000_000)


def snowflake() -> int:
    """A fresh id, increasing like Discord's."""
    return next(_snowflakes)


def now_iso() -> str:
    return datetime.now(UTC).isoformat()


def user_payload(user_id: int, name: str | None = None, *, bot: bool = False) -> dict[str, Any]:
    name = name or f"player{user_id}"
    return {
        "id": str(user_id),
        "username": name,
        "global_name": name,
        "discriminator": "0",
        "avatar": None,
        "bot": bot,
        "public_flags": 0,
    }


# ---------------------------------------------------------------------------------------------------------------
# the model


@dataclass
class Attachment:
    id: int
    filename: str
    data: bytes
    description: str | None = None

    @property
    def content_type(self) -> str:
        ext = self.filename.rsplit(".", 1)[-1].lower()
        return {"png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "gif": "image/gif"}.get(
            ext, "application/octet-stream"
        )

    @property
    def is_png(self) -> bool:
        return self.data[:8] == b"\x89PNG\r\n\x1a\n"

    def payload(self) -> dict[str, Any]:
        url = f"https://cdn.discordapp.com/attachments/0/{self.id}/{self.filename}"
        return {
            "id": str(self.id),
            "filename": self.filename,
            "size": len(self.data),
            "url": url,
            "proxy_url": url,
            "content_type": self.content_type,
            **({"description": self.description} if self.description else {}),
        }


@dataclass
class Message:
    """A message as Discord stores it. ``visible_to`` is the only user who sees an ephemeral message."""

    id: int
    channel_id: int
    guild_id: int | None
    author: dict[str, Any]
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    flags: int = 0
    type: int = 0
    visible_to: int | None = None
    interaction_id: int | None = None
    webhook_id: int | None = None
    deleted: bool = False
    edits: int = 0
    history: list[dict[str, Any]] = field(default_factory=list)  # earlier versions (content, embeds, files)
    loading: bool = False  # a deferred "thinking" response not yet edited
    nonce: str | None = None  # as sent with enforce_nonce: a second create with it returns this message
    nonce_kept: bool = True  # Discord still remembers the nonce (a few minutes: FakeDiscord.forget_nonces)
    pinged: frozenset[int] = frozenset()  # the users this message notified (see _pings)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def files(self) -> dict[str, bytes]:
        return {a.filename: a.data for a in self.attachments}

    @property
    def images(self) -> list[bytes]:
        return [a.data for a in self.attachments if a.is_png]

    @property
    def text(self) -> str:
        """Everything a player reads: content and the embeds' titles, descriptions, fields and footers."""
        parts = [self.content]
        for e in self.embeds:
            parts += [e.get("title") or "", e.get("description") or ""]
            for f in e.get("fields") or []:
                parts += [f.get("name") or "", f.get("value") or ""]
            parts.append((e.get("footer") or {}).get("text") or "")
            parts.append((e.get("author") or {}).get("name") or "")
        return "\n".join(p for p in parts if p)

    def all_components(self) -> list[dict[str, Any]]:
        """Every interactive component (buttons, selects), flattened out of their rows and containers."""
        out: list[dict[str, Any]] = []

        def walk(items: list[dict[str, Any]]) -> None:
            for c in items:
                if c.get("type") in (1, 17, 9) or "components" in c:  # action row, container, section
                    walk(c.get("components") or [])
                    if c.get("accessory"):
                        walk([c["accessory"]])
                else:
                    out.append(c)

        walk(self.components)
        return out

    def buttons(self) -> list[dict[str, Any]]:
        return [c for c in self.all_components() if c.get("type") == 2]

    def component(self, *, custom_id: str | None = None, label: str | None = None) -> dict[str, Any]:
        for c in self.all_components():
            if custom_id is not None and c.get("custom_id") == custom_id:
                return c
            if label is not None and c.get("label") == label:
                return c
        raise LookupError(f"message {self.id} has no component {custom_id or label!r}: {self.all_components()}")

    def payload(self) -> dict[str, Any]:
        p: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel_id),
            "author": self.author,
            "content": self.content,
            "timestamp": now_iso(),
            "edited_timestamp": now_iso() if self.edits else None,
            "tts": False,
            "mention_everyone": False,
            "mentions": [],
            "mention_roles": [],
            "attachments": [a.payload() for a in self.attachments],
            "embeds": self.embeds,
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
            "components": self.components,
        }
        if self.guild_id is not None:
            p["guild_id"] = str(self.guild_id)
        if self.webhook_id is not None:
            p["webhook_id"] = str(self.webhook_id)
            p["application_id"] = str(self.webhook_id)
        return p


@dataclass
class Channel:
    id: int
    type: int = CH_TEXT
    guild_id: int | None = None
    name: str = "mahjong"
    recipient: dict[str, Any] | None = None  # DMs
    parent_id: int | None = None  # threads
    messages: list[Message] = field(default_factory=list)
    # the bot's permissions here (a moderator's channel overrides; None: every permission): what interactions carry
    # as app_permissions, and what a post needs (refused 403 50001 / 50013 as Discord does)
    bot_permissions: int | None = None
    locked: bool = False  # a thread a moderator locked: only Manage Threads may post in it

    def payload(self) -> dict[str, Any]:
        p: dict[str, Any] = {"id": str(self.id), "type": self.type, "last_message_id": None}
        if self.type == CH_DM:
            p["recipients"] = [self.recipient]
        else:
            p.update(name=self.name, guild_id=str(self.guild_id), position=0, permission_overwrites=[], nsfw=False)
            if self.type == CH_PUBLIC_THREAD:
                p.update(parent_id=str(self.parent_id or 0), owner_id="0", message_count=len(self.messages),
                         member_count=1, thread_metadata={"archived": False, "locked": self.locked,
                                                                         "auto_archive_duration": 1440,
                                                                         "archive_timestamp": now_iso()})
        return p


def _may_post(ch: Channel, files: list[Attachment]) -> None:
    """Discord's checks of a post in a server channel where the bot's permissions are restricted."""
    if ch.bot_permissions is None:
        return
    def has(bit: int) -> bool:
        return bool(ch.bot_permissions and ch.bot_permissions >> bit & 1)

    if not has(10):  # View Channel
        raise HTTPError(403, 50001, "Missing Access")
    thread = ch.type in (10, 11, 12)
    send = has(38) if thread else has(11)  # Send Messages in Threads / Send Messages
    if not send or (files and not has(15)) or (thread and ch.locked and not has(34)):  # Attach Files, Manage Threads
        raise HTTPError(403, 50013, "Missing Permissions")


@dataclass
class InteractionRecord:
    """One interaction the harness sent, and everything the bot answered to it."""

    id: int
    token: str
    type: int
    channel_id: int
    guild_id: int | None
    user_id: int
    message_id: int | None = None  # component interactions: the message the component is on
    callbacks: list[dict[str, Any]] = field(default_factory=list)  # the callback payloads (type + data)
    original: Message | None = None  # the response message (types 4 and 5), or the updated message (6 / 7)
    followups: list[Message] = field(default_factory=list)
    modal: dict[str, Any] | None = None  # the modal the bot opened (type 9)

    @property
    def responded(self) -> bool:
        return bool(self.callbacks)

    @property
    def callback_type(self) -> int | None:
        return self.callbacks[0]["type"] if self.callbacks else None

    @property
    def messages(self) -> list[Message]:
        """The response and the followups, in order, as they are now."""
        out = [self.original] if self.original is not None and self.callback_type in (4, 5) else []
        return [m for m in out + self.followups if not m.deleted]

    @property
    def reply(self) -> Message:
        """The first message the bot answered with (the response, else the first followup)."""
        msgs = self.messages
        if not msgs:
            raise AssertionError(f"interaction {self.id} got no message reply (callbacks: {self.callbacks})")
        return msgs[0]


@dataclass
class Request:
    """One HTTP request the bot made, decoded, with the answer it got."""

    method: str
    path: str
    params: dict[str, Any]
    json: Any
    files: list[Attachment]
    status: int = 0
    response: Any = None
    transport: str = "http"  # "http" (bot token) or "webhook" (interaction token)

    def __repr__(self) -> str:
        return f"<{self.method} {self.path} -> {self.status}>"


@dataclass
class Fault:
    method: str | None
    pattern: re.Pattern[str]
    remaining: int
    status: int
    code: int
    message: str
    hits: int = 0


@dataclass
class RateLimit:
    method: str | None
    pattern: re.Pattern[str]
    remaining: int
    retry_after: float
    is_global: bool


class HTTPError(Exception):
    def __init__(self, status: int, code: int, message: str) -> None:
        super().__init__(message)
        self.status, self.code, self.message = status, code, message


# ---------------------------------------------------------------------------------------------------------------
# the aiohttp session double


class FakeResponse:
    def __init__(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        self.status = status
        self.reason = {200: "OK", 204: "No Content", 400: "Bad Request", 403: "Forbidden", 404: "Not Found",
                       429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
                       503: "Service Unavailable"}.get(status, "")
        self._text = "" if body is None else json.dumps(body)
        self.headers: dict[str, str] = {"content-type": "application/json"} if body is not None else {}
        self.headers.update(headers or {})

    async def text(self, encoding: str = "utf-8") -> str:
        return self._text

    async def json(self) -> Any:
        return json.loads(self._text) if self._text else None

    async def read(self) -> bytes:
        return self._text.encode()

    def release(self) -> None:
        pass


class _RequestContext:
    def __init__(self, session: FakeSession, method: str, url: str, kwargs: dict[str, Any]) -> None:
        self.session, self.method, self.url, self.kwargs = session, method, url, kwargs

    async def __aenter__(self) -> FakeResponse:
        # as aiohttp does just before a request goes out: the session's trace configs hear of it (the bot's share of
        # Discord's global limit waits there, bot.ratelimit)
        for trace in self.session.trace_configs:
            params = aiohttp.TraceRequestStartParams(self.method, URL(self.url),
                                                     CIMultiDict(self.kwargs.get("headers") or {}))
            await trace.on_request_start.send(self.session, trace.trace_config_ctx(), params)
        await asyncio.sleep(0)  # a network round trip yields to the loop
        return self.session.fake.handle(self.method, self.url, self.kwargs)

    async def __aexit__(self, *exc: object) -> None:
        return None


class FakeSession:
    """Stands in for ``aiohttp.ClientSession``: only ``request`` and ``close`` are used by the transports; its
    ``trace_configs`` (discord.py's ``http_trace``) hear of every request as it starts, as aiohttp's do."""

    def __init__(self, fake: FakeDiscord, trace_configs: Sequence[aiohttp.TraceConfig] = ()) -> None:
        self.fake = fake
        self.closed = False
        self.trace_configs = list(trace_configs)
        for trace in self.trace_configs:
            trace.freeze()  # as aiohttp.ClientSession does

    def request(self, method: str, url: str, **kwargs: Any) -> _RequestContext:
        return _RequestContext(self, method, str(url), kwargs)

    async def close(self) -> None:
        self.closed = True

    async def ws_connect(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("the test harness has no gateway: feed payloads to the connection state instead")


def _decode_body(data: Any) -> tuple[Any, list[Attachment]]:
    """The JSON payload and the files of a request body (a JSON string or an aiohttp FormData)."""
    if data is None:
        return None, []
    if isinstance(data, str | bytes):
        return (json.loads(data) if data else None), []
    if isinstance(data, aiohttp.FormData):
        payload: Any = None
        files: list[tuple[int, Attachment]] = []
        for type_options, _headers, value in internals.form_fields(data):
            name = type_options.get("name", "")
            if name == "payload_json":
                payload = json.loads(value)
                continue
            raw = value.read() if hasattr(value, "read") else value
            if isinstance(raw, str):
                raw = raw.encode()
            m = re.match(r"files\[(\d+)\]", name)
            index = int(m.group(1)) if m else len(files)
            files.append((index, Attachment(id=0, filename=type_options.get("filename", name), data=bytes(raw))))
        return payload, [a for _, a in sorted(files, key=lambda x: x[0])]
    raise TypeError(f"unexpected request body {type(data)}")


# ---------------------------------------------------------------------------------------------------------------
# Discord


class FakeDiscord:
    """Discord's side of the conversation for one bot application."""

    def __init__(self, application_id: int, bot_user: dict[str, Any]) -> None:
        self.application_id = application_id
        self.bot_user = bot_user
        self.requests: list[Request] = []
        self.channels: dict[int, Channel] = {}
        self._message_index: dict[int, Message] = {}  # message id -> message (messages are only ever appended)
        self.dm_by_user: dict[int, int] = {}
        self.users: dict[int, dict[str, Any]] = {}
        self.closed_dms: set[int] = set()
        self.departed: set[int] = set()  # users who left the server: options and user selects resolve no member
        self.timed_out: set[int] = set()  # servers where the bot's member is timed out: every post refused there
        self.rate_limits: list[RateLimit] = []
        self.faults: list[Fault] = []
        self.interactions: dict[str, InteractionRecord] = {}  # by token
        self.commands: dict[int | None, list[dict[str, Any]]] = {}  # synced commands by guild (None = global)
        self.unknown_routes: list[Request] = []
        self.expired_tokens: set[str] = set()
        self.on_request: list[Callable[[Request], None]] = []
        # what one message may carry in files: a server without boosts takes 10 MiB (sent to the bot in every
        # interaction as attachment_size_limit); a bigger upload is refused with 413 / 40005
        self.upload_limit = 10 * 1024 * 1024

    def session_for(self, http: Any) -> FakeSession:
        """A session for one bot's ``HTTPClient``, with its ``http_trace`` as aiohttp would have it."""
        trace = getattr(http, "http_trace", None)
        return FakeSession(self, [trace] if trace is not None else [])

    # ---- configuration -----------------------------------------------------------------------------------------

    def add_channel(self, channel_id: int, guild_id: int | None, *, name: str = "mahjong", type: int = CH_TEXT,
                    parent_id: int | None = None) -> Channel:
        ch = self.channels.get(channel_id)
        if ch is None:
            ch = self.channels[channel_id] = Channel(id=channel_id, type=type, guild_id=guild_id, name=name,
                                                     parent_id=parent_id)
        return ch

    def add_user(self, user_id: int, name: str | None = None) -> dict[str, Any]:
        if user_id not in self.users:
            self.users[user_id] = user_payload(user_id, name)
        return self.users[user_id]

    def leave(self, user_id: int) -> None:
        """This user left the server (they stay a Discord user): a command option or a user select naming them (a
        mention, a pasted id) comes with their user and no member data, as Discord sends it."""
        self.departed.add(user_id)

    def close_dms(self, user_id: int, closed: bool = True) -> None:
        """This user does not accept DMs from the bot: sending to their DM channel fails with 403 / 50007."""
        (self.closed_dms.add if closed else self.closed_dms.discard)(user_id)

    def expire(self, interaction: InteractionRecord) -> None:
        """The interaction's token has expired (Discord: 3 s to answer, 15 min for followups and edits): its
        callback then fails with 404 / 10062 and its webhook requests with 401 / 50027."""
        self.expired_tokens.add(interaction.token)

    def rate_limit(self, path: str, *, method: str | None = None, times: int = 1, retry_after: float = 0.01,
                   is_global: bool = False) -> None:
        """The next ``times`` requests whose path matches the regex ``path`` (and ``method``) get a 429."""
        self.rate_limits.append(RateLimit(method, re.compile(path), times, retry_after, is_global))

    def forget_nonces(self) -> None:
        """Minutes pass: Discord no longer knows the nonces of the messages made so far (``enforce_nonce`` checks
        "the past few minutes"), so a post made again with one of them is a second message."""
        for ch in self.channels.values():
            for m in ch.messages:
                m.nonce_kept = False

    def fail(self, path: str, *, status: int = 503, code: int = 0, method: str | None = None, times: int = 1,
             message: str = "Service Unavailable") -> Fault:
        """The next ``times`` requests whose path matches the regex ``path`` (and ``method``) fail with ``status``
        (e.g. 500/502/503 server errors, or 403 with ``code=50007`` for a closed DM). Returns the fault; its
        ``hits`` counts the requests it failed."""
        f = Fault(method, re.compile(path), times, status, code, message)
        self.faults.append(f)
        return f

    def dm_path(self, user_id: int) -> str:
        """A regex for the messages of a user's DM channel (opened now if needed)."""
        return f"^/channels/{self._open_dm(user_id).id}/messages"

    # ---- reading the model -------------------------------------------------------------------------------------

    def channel_messages(self, channel_id: int, *, viewer: int | None = None, ephemeral: bool = False) -> list[Message]:
        """The live messages of a channel in order. Public ones only, unless ``viewer`` (adds what that user sees)
        or ``ephemeral`` (adds every ephemeral one)."""
        ch = self.channels.get(channel_id)
        if ch is None:
            return []
        out = []
        for m in ch.messages:
            if m.deleted:
                continue
            if m.ephemeral and not (ephemeral or (viewer is not None and m.visible_to == viewer)):
                continue
            out.append(m)
        return out

    def dm_messages(self, user_id: int) -> list[Message]:
        cid = self.dm_by_user.get(user_id)
        return self.channel_messages(cid) if cid is not None else []

    def _put(self, ch: Channel, m: Message) -> None:
        """A new message at the end of its channel, and in the index :meth:`find_message` reads."""
        ch.messages.append(m)
        self._message_index[m.id] = m

    def find_message(self, message_id: int) -> Message:
        m = self._message_index.get(message_id)
        if m is not None:
            return m
        for ch in self.channels.values():  # a message put in a channel by other means than _put (tests do)
            for m in ch.messages:
                if m.id == message_id:
                    self._message_index[message_id] = m
                    return m
        raise LookupError(f"no message {message_id}")

    def adopt_dm(self, payload: dict[str, Any], user: int) -> Message:
        """The DM message ``payload`` (as another bot process's Discord shows it) in this Discord: found and brought
        up to date (another process may have edited it since), or put there with its channel."""
        cid, mid = int(payload["channel_id"]), int(payload["id"])
        ch = self.channels.get(cid)
        if ch is None:
            ch = self.channels[cid] = Channel(id=cid, type=CH_DM, recipient=self.add_user(user))
            self.dm_by_user[user] = cid
        for m in ch.messages:
            if m.id == mid:
                m.content, m.embeds = payload.get("content", ""), payload.get("embeds") or []
                m.components = payload.get("components") or []
                return m
        m = Message(id=mid, channel_id=cid, guild_id=None, author=payload["author"], content=payload.get("content", ""),
                    embeds=payload.get("embeds") or [], components=payload.get("components") or [],
                    flags=int(payload.get("flags") or 0))
        self._put(ch, m)
        return m

    def requests_to(self, pattern: str, method: str | None = None) -> list[Request]:
        rx = re.compile(pattern)
        return [r for r in self.requests if rx.search(r.path) and (method is None or r.method == method)]

    # ---- the transport ---------------------------------------------------------------------------------------

    def handle(self, method: str, url: str, kwargs: dict[str, Any]) -> FakeResponse:
        parts = urlsplit(url)
        path = API_PREFIX.sub("", parts.path)
        params = dict(kwargs.get("params") or {})
        headers = kwargs.get("headers") or {}
        payload, files = _decode_body(kwargs.get("data"))
        transport = "http" if "Authorization" in headers and "/interactions/" not in path else "webhook"
        req = Request(method, path, params, payload, files, transport=transport)
        self.requests.append(req)
        for listener in self.on_request:
            listener(req)
        for f in self.faults:
            if f.remaining > 0 and f.pattern.search(path) and f.method in (None, method):
                f.remaining -= 1
                f.hits += 1
                body = {"message": f.message, "code": f.code}
                req.status, req.response = f.status, body
                return FakeResponse(f.status, body)
        for rl in self.rate_limits:
            if rl.remaining > 0 and rl.pattern.search(path) and rl.method in (None, method):
                rl.remaining -= 1
                body = {"message": "You are being rate limited.", "retry_after": rl.retry_after, "global": rl.is_global}
                req.status, req.response = 429, body
                hdrs = {"Retry-After": str(rl.retry_after), "Via": "1.1 google", "X-RateLimit-Scope": "user"}
                if rl.is_global:
                    hdrs["X-RateLimit-Global"] = "true"
                return FakeResponse(429, body, hdrs)
        try:
            if sum(len(f.data) for f in files) > self.upload_limit:
                raise HTTPError(413, 40005, "Request entity too large")
            status, body = self._route(method, path, params, payload, files)
        except HTTPError as e:
            status, body = e.status, {"message": e.message, "code": e.code}
        req.status, req.response = status, body
        if status == 404 and body.get("code") == 0:
            self.unknown_routes.append(req)
        return FakeResponse(status, body)

    def _route(self, method: str, path: str, params: dict[str, Any], payload: Any,
               files: list[Attachment]) -> tuple[int, Any]:
        seg = path.strip("/").split("/")
        # /users/@me/channels : open a DM
        if method == "POST" and path == "/users/@me/channels":
            return 200, self._open_dm(int(payload["recipient_id"])).payload()
        # /channels/{id}[/messages[/{id}]]
        if seg[0] == "channels" and len(seg) >= 2:
            ch = self._channel(int(seg[1]))
            if len(seg) == 2 and method == "GET":
                return 200, ch.payload()
            if len(seg) >= 3 and seg[2] == "messages":
                if len(seg) == 3 and method == "POST":
                    if ch.type == CH_DM and ch.recipient and int(ch.recipient["id"]) in self.closed_dms:
                        raise HTTPError(403, 50007, "Cannot send messages to this user")
                    if ch.guild_id in self.timed_out:
                        raise HTTPError(403, 50013, "Missing Permissions")
                    _may_post(ch, files)
                    nonce = (payload or {}).get("nonce")
                    if nonce is not None and (payload or {}).get("enforce_nonce"):
                        # Discord: a message the same author created with this nonce (in the last few minutes: the
                        # harness forgets them when a test says time passed, forget_nonces) is returned, and no new
                        # one is created
                        seen = next((m for m in ch.messages if m.nonce == str(nonce) and not m.deleted and m.nonce_kept
                                     and m.author.get("id") == self.bot_user.get("id")), None)
                        if seen is not None:
                            return 200, seen.payload()
                    m = self._new_message(ch, payload, files, author=self.bot_user,
                                          nonce=None if nonce is None else str(nonce))
                    return 200, m.payload()
                if len(seg) == 3 and method == "GET":
                    return 200, [m.payload() for m in reversed(self.channel_messages(ch.id))]
                if len(seg) == 4:
                    m = self._message_in(ch, int(seg[3]))
                    if method == "GET":
                        return 200, m.payload()
                    if method == "PATCH":
                        self._edit(m, payload, files)
                        return 200, m.payload()
                    if method == "DELETE":
                        m.deleted = True
                        return 204, None
        # /interactions/{id}/{token}/callback
        if seg[0] == "interactions" and len(seg) == 4 and seg[3] == "callback" and method == "POST":
            return 200, self._callback(int(seg[1]), seg[2], payload, files)
        # /webhooks/{application_id}/{token}[/messages/{id|@original}]
        if seg[0] == "webhooks" and len(seg) >= 3:
            rec = self.interactions.get(seg[2])
            if rec is None or int(seg[1]) != self.application_id or seg[2] in self.expired_tokens:
                raise HTTPError(401 if rec is None else 404, 50027, "Invalid Webhook Token")
            if len(seg) == 3 and method == "POST":
                m = self._followup(rec, payload, files)
                return (200, m.payload()) if str(params.get("wait", "0")) in ("1", "True", "true") else (204, None)
            if len(seg) == 5 and seg[3] == "messages":
                m = self._webhook_message(rec, seg[4])
                if method == "GET":
                    return 200, m.payload()
                if method == "PATCH":
                    self._edit(m, payload, files)
                    return 200, m.payload()
                if method == "DELETE":
                    m.deleted = True
                    return 204, None
        # /applications/{id}[/guilds/{id}]/commands : command sync
        if seg[0] == "applications" and seg[-1] == "commands" and method in ("PUT", "GET"):
            guild = int(seg[3]) if len(seg) == 5 else None
            if method == "PUT":
                clash = _shared_name(payload)
                if clash:
                    raise HTTPError(400, 50035, f"Invalid Form Body: APPLICATION_COMMANDS_DUPLICATE_NAME {clash}")
                self.commands[guild] = [
                    {**c, "id": str(snowflake()), "application_id": str(self.application_id), "version": "1",
                     **({"guild_id": str(guild)} if guild else {})}
                    for c in payload
                ]
            return 200, self.commands.get(guild, [])
        if method == "GET" and path == "/oauth2/applications/@me":
            return 200, {"id": str(self.application_id), "name": "mjbot", "icon": None, "description": "",
                         "bot_public": True, "bot_require_code_grant": False, "verify_key": "0", "flags": 0,
                         "owner": self.bot_user}
        raise HTTPError(404, 0, f"404: Not Found (harness has no route for {method} {path})")

    # ---- helpers -----------------------------------------------------------------------------------------------

    def _channel(self, channel_id: int) -> Channel:
        ch = self.channels.get(channel_id)
        if ch is None:
            raise HTTPError(404, 10003, "Unknown Channel")
        return ch

    def _message_in(self, ch: Channel, message_id: int) -> Message:
        for m in ch.messages:
            if m.id == message_id and not m.deleted:
                return m
        raise HTTPError(404, 10008, "Unknown Message")

    def _open_dm(self, user_id: int) -> Channel:
        cid = self.dm_by_user.get(user_id)
        if cid is None:
            cid = snowflake()
            self.dm_by_user[user_id] = cid
            self.channels[cid] = Channel(id=cid, type=CH_DM, recipient=self.add_user(user_id))
        return self.channels[cid]

    def _new_message(self, ch: Channel, payload: dict[str, Any] | None, files: list[Attachment], *,
                     author: dict[str, Any], **extra: Any) -> Message:
        payload = payload or {}
        m = Message(id=snowflake(), channel_id=ch.id, guild_id=ch.guild_id, author=author, **extra)
        self._apply(m, payload, files, new=True)
        if not (m.content or m.embeds or m.attachments or m.components or m.loading or payload.get("poll")):
            raise HTTPError(400, 50006, "Cannot send an empty message")
        if not m.ephemeral:
            m.pinged = _pings(m.content, payload.get("allowed_mentions"))
        self._put(ch, m)
        return m

    def _apply(self, m: Message, payload: dict[str, Any], files: list[Attachment], *, new: bool) -> None:
        _within_limits(payload)  # before anything changes: a refused edit leaves the message as it was
        if "content" in payload:
            m.content = payload["content"] or ""
        if "embeds" in payload:
            m.embeds = payload["embeds"] or []
        if "components" in payload:
            m.components = payload["components"] or []
        if "flags" in payload and payload["flags"] is not None and new:
            m.flags = int(payload["flags"])
        # attachments: the payload lists what to keep (existing ids) and the new files by index
        if "attachments" in payload or files:
            listed = payload.get("attachments")
            keep: list[Attachment] = []
            if listed is None:
                keep = list(m.attachments) if not new else []
                keep += [self._store_file(f) for f in files]
            else:
                by_id = {a.id: a for a in m.attachments}
                for entry in listed:
                    aid = int(entry["id"])
                    if aid in by_id:
                        keep.append(by_id[aid])
                    elif 0 <= aid < len(files):
                        f = files[aid]
                        keep.append(self._store_file(f, description=entry.get("description")))
                # files sent but not listed are attached too (Discord does so)
                listed_ids = {int(e["id"]) for e in listed}
                keep += [self._store_file(f) for i, f in enumerate(files) if i not in listed_ids]
            m.attachments = keep

    def _store_file(self, f: Attachment, description: str | None = None) -> Attachment:
        return Attachment(id=snowflake(), filename=f.filename, data=f.data, description=description)

    def _edit(self, m: Message, payload: dict[str, Any] | None, files: list[Attachment]) -> None:
        m.history.append({"content": m.content, "embeds": m.embeds, "files": m.files})
        self._apply(m, payload or {}, files, new=False)
        m.edits += 1
        m.loading = False

    def _webhook_message(self, rec: InteractionRecord, which: str) -> Message:
        if which == "@original":
            if rec.original is None:
                raise HTTPError(404, 10008, "Unknown Message")
            return rec.original
        for m in rec.followups:
            if m.id == int(which) and not m.deleted:
                return m
        if rec.original is not None and rec.original.id == int(which):
            return rec.original
        raise HTTPError(404, 10008, "Unknown Message")

    def _callback(self, interaction_id: int, token: str, payload: dict[str, Any], files: list[Attachment]) -> Any:
        rec = self.interactions.get(token)
        if rec is None or rec.id != interaction_id or token in self.expired_tokens:
            raise HTTPError(404, 10062, "Unknown interaction")
        if rec.callbacks:
            raise HTTPError(400, 40060, "Interaction has already been acknowledged.")
        _within_limits(payload)  # a refused answer acknowledges nothing: the bot may still answer
        kind = payload["type"]
        data = payload.get("data") or {}
        ch = self._channel(rec.channel_id)
        webhook_author = {**self.bot_user}
        if kind in (6, 7) and rec.message_id is None:
            raise HTTPError(400, 50035, "Invalid Form Body: type: only component interactions can update a message")
        if kind == 9 and rec.type == 5:
            raise HTTPError(400, 50035, "Invalid Form Body: a modal cannot answer a modal submit")
        resource: dict[str, Any] = {"type": kind}
        info: dict[str, Any] = {"id": str(rec.id), "type": rec.type}
        if kind == 4:
            m = self._new_message(ch, data, files, author=webhook_author, type=20 if rec.type == 2 else 19,
                                  interaction_id=rec.id, webhook_id=self.application_id)
            m.visible_to = rec.user_id if m.ephemeral else None
            rec.original = m
            resource["message"] = m.payload()
            info.update(response_message_id=str(m.id), response_message_loading=False,
                        response_message_ephemeral=m.ephemeral)
        elif kind == 5:
            flags = int(data.get("flags") or 0)
            m = Message(id=snowflake(), channel_id=ch.id, guild_id=ch.guild_id, author=webhook_author, flags=flags,
                        type=20 if rec.type == 2 else 19, interaction_id=rec.id, webhook_id=self.application_id,
                        loading=True)
            m.visible_to = rec.user_id if m.ephemeral else None
            self._put(ch, m)
            rec.original = m
            resource["message"] = m.payload()
            info.update(response_message_id=str(m.id), response_message_loading=True,
                        response_message_ephemeral=m.ephemeral)
        elif kind in (6, 7):
            m = self.find_message(rec.message_id)  # type: ignore[arg-type]
            rec.original = m
            if kind == 7:
                self._edit(m, data, files)
            resource["message"] = m.payload()
            info.update(response_message_id=str(m.id), response_message_loading=False,
                        response_message_ephemeral=m.ephemeral)
        elif kind == 9:
            rec.modal = data
        elif kind == 1:
            pass
        else:
            raise HTTPError(400, 50035, f"Invalid Form Body: unsupported callback type {kind}")
        rec.callbacks.append(payload)  # only an answer Discord took acknowledges the interaction
        return {"interaction": info, "resource": resource}

    def _followup(self, rec: InteractionRecord, payload: dict[str, Any] | None, files: list[Attachment]) -> Message:
        if not rec.callbacks:
            raise HTTPError(404, 10015, "Unknown Webhook")  # Discord: followups need an acknowledged interaction
        if rec.original is not None and rec.original.loading and rec.callback_type == 5:
            # the first followup after a "thinking" deferral replaces the thinking message
            self._edit(rec.original, payload, files)
            return rec.original
        ch = self._channel(rec.channel_id)
        m = self._new_message(ch, payload, files, author={**self.bot_user}, type=19, interaction_id=rec.id,
                              webhook_id=self.application_id)
        m.visible_to = rec.user_id if m.ephemeral else None
        rec.followups.append(m)
        return m


def _within_limits(payload: dict[str, Any] | None) -> None:
    """Refuse, as Discord does, a message or an answer past one of Discord's limits (tests.harness.limits)."""
    found = problems(payload)
    if found:
        raise HTTPError(400, 50035, "Invalid Form Body: " + "; ".join(found))


def _pings(content: str, allowed: dict[str, Any] | None) -> frozenset[int]:
    """The users a new message notifies: those its content mentions that its ``allowed_mentions`` lets through (all
    of them without one). Only a message's creation notifies: an edit never does, nor the first follow-up that
    fills a deferred "thinking" answer, which Discord treats as an edit of it (discord/discord-api-docs#5497), nor
    an ephemeral message."""
    mentioned = {int(x) for x in re.findall(r"<@!?(\d+)>", content)}
    if allowed is None or "users" in (allowed.get("parse") or []):
        return frozenset(mentioned)
    return frozenset(mentioned & {int(u) for u in allowed.get("users") or []})


def _shared_name(entries: list[dict], where: str = "") -> str | None:
    """Discord's rule for a command sync: no two commands (of one type), and no two options of one command, may show
    the same name in any language (a name_localizations entry, or the default name where a command has none)."""
    subs = [e for e in entries if "value" not in e]
    langs = {None}.union(*((e.get("name_localizations") or {}).keys() for e in subs))
    for lang in langs:
        shown = [(e.get("type", 1) if not where else 0, (e.get("name_localizations") or {}).get(lang) or e["name"])
                 for e in subs]
        dup = {n for n in shown if shown.count(n) > 1}
        if dup:
            return f"{where}{sorted(dup)[0][1]} ({lang or 'default'})"
    for e in subs:
        inner = _shared_name(e.get("options") or [], f"{where}{e['name']} ")
        if inner:
            return inner
    return None
