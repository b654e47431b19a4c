"""The application side of playing tables: lobbies, live matches, persistence, AI seats, timers and the images.

One :class:`TableManager` per bot (``bot.tables``). It keeps at most one table per channel or thread and seats a
player at one table at a time. Every action on a table goes through :meth:`TableManager.act` under the table's
``asyncio.Lock``: the engine applies it (pure, in memory), the store records it (and settles the ledger at a hand's
end) and only then does anything reach Discord. A store failure rolls the table back and changes nothing.

Discord itself is reached through ``manager.ui`` (set by ``cogs.tables``), which builds the messages' controls; the
manager posts and edits messages through discord.py's partial messageables, so it needs no gateway cache.

Controls carry the table id (the store's match id) and a sequence number: ``since[seat]``, the engine's action
count when that seat's current choice began (see :meth:`LiveTable.update_since`). It is a pure function of the
recorded actions, so it is the same after a restart and old buttons keep working while they are current.

API (raising :class:`Refusal` with a message key when a player may not do something; nothing changes then)::

    mgr = TableManager(bot)                       # cogs.tables sets bot.tables and mgr.ui
    lt = mgr.open_lobby(guild, channel, host_id, host_name, host_lang, variant, rules, guild_settings)
    mgr.join(lt, user_id, name, lang); mgr.leave(lt, user_id); mgr.add_ai(lt, "normal" | "easy")
    mgr.may_manage(lt, user_id, manage_guild); mgr.close_lobby(lt)
    await mgr.start(lt)                           # record the match, deal, post, DM, let the AI play
    await mgr.act(table_id, user_id, seat, seq, op, arg)   # a control: d/w/p/k/c/x (+ tile) or "next"
    await mgr.back(table_id, user_id); await mgr.end(lt, by_name); await mgr.repost(lt)
    text, png, view = await mgr.hand_message(lt, seat, lang)   # a seat's private hand with its controls
    await mgr.resume_all(); await mgr.close()
    mgr.timers = Timers(turn=..., claim=..., next_hand=...)      # injectable delays (None: server settings)
    mgr.render_images = False; mgr.scene_log = []; mgr.private_log = []   # benchmarks / tests
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import random
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import discord

import render
from bot.i18n import MESSAGES, hant, t
from engine.ai import choose
from engine.analysis import shanten, winning_kinds
from engine.errors import EngineError
from engine.table import Action, Event, IllegalAction, Table
from engine.tiles import NUM_KINDS, Hand, Meld, MeldKind, tile_name, tile_zh
from engine.variants import get_variant
from engine.variants.base import Item, Situation
from render.scene import MatchScene, ScoreScene
from render.views import hand_scene_from_view, table_scene_from_view

log = logging.getLogger(__name__)

MAX_TABLE_EDITS = 40  # edits of one table message before it is re-posted at the bottom of the channel
MAX_POSTS_BELOW = 6  # our own messages posted under the table message before it is re-posted
MAX_MESSAGE_AGE = 45 * 60  # seconds: Discord rate-limits edits of messages older than an hour harder
TIMER_TASK_NAME = "mjbot-table-timer"
AFK_AFTER = 2  # timeouts in a row before the seat is played by the AI

# ------------------------------------------------------------------------------------------------ messages
# key -> (English, Simplified Chinese); Traditional Chinese is derived. Registered into bot.i18n.MESSAGES.
_TEXT: dict[str, tuple[str, str]] = {
    "tables.lobby_title": ("{variant} table: waiting for players", "{variant}牌桌：等人入座"),
    "tables.lobby_rules": ("Rules: {rules}", "规则：{rules}"),
    "tables.lobby_host": ("Host: {host}. Join with the buttons or /table join; the host starts.",
                          "房主：{host}。用按钮或 /table join 入座，房主开始。"),
    "tables.seat_empty": ("(empty)", "（空）"),
    "tables.ai_name": ("AI {n}", "电脑{n}"),
    "tables.btn_join": ("Join", "入座"),
    "tables.btn_leave": ("Leave", "离座"),
    "tables.btn_addbot": ("Add AI", "加电脑"),
    "tables.btn_start": ("Start", "开始"),
    "tables.btn_my_hand": ("My hand", "我的牌"),
    "tables.btn_back": ("I'm back", "我回来了"),
    "tables.btn_next": ("Next hand", "下一局"),
    "tables.btn_pass": ("Pass", "过"),
    "tables.btn_win": ("Win 胡", "胡"),
    "tables.btn_pung": ("Pung 碰 {tile}", "碰 {tile}"),
    "tables.btn_kong": ("Kong 杠 {tile}", "杠 {tile}"),
    "tables.btn_chi": ("Chi 吃 {tiles}", "吃 {tiles}"),
    "tables.btn_lay": ("Lay aside", "弃牌（不和）"),
    "tables.busy_channel": ("There is already a table in this channel: use /table show.",
                            "这个频道已经有一桌了：用 /table show 查看。"),
    "tables.no_table": ("There is no table in this channel. Open one with /table new.",
                        "这个频道没有牌桌。用 /table new 开一桌。"),
    "tables.seated_elsewhere": ("You already sit at a table (in <#{channel}>). Leave it first.",
                                "你已经在一桌了（<#{channel}>）。请先离座。"),
    "tables.already_seated": ("You already sit at this table.", "你已经在这一桌了。"),
    "tables.full": ("The table is full.", "这一桌已经满了。"),
    "tables.not_seated": ("You do not sit at this table.", "你不在这一桌。"),
    "tables.not_lobby": ("The game has started; seats can no longer change.", "牌局已经开始，座位不能再变了。"),
    "tables.host_only": ("Only the host ({host}) or a server manager can do that.",
                         "只有房主（{host}）或服务器管理员可以这样做。"),
    "tables.need_four": ("Four seats are needed to start: add AI players to fill the empty ones.",
                         "需要四个人才能开始：可以加电脑补满空位。"),
    "tables.need_human": ("At least one player must sit at the table.", "至少要有一个真人入座。"),
    "tables.lobby_gone": ("This lobby is closed. Open a new table with /table new.",
                          "这个房间已经关闭。用 /table new 重新开一桌。"),
    "tables.table_gone": ("That table is over.", "那一桌已经结束了。"),
    "tables.stale": ("That button is out of date; nothing was changed. Use your latest hand message.",
                     "这个按钮已经过期，什么都没有改动。请用最新的手牌消息。"),
    "tables.not_your_seat": ("Those controls belong to another player.", "这不是你的操作按钮。"),
    "tables.not_now": ("You cannot do that now; nothing was changed.", "现在不能这样做，什么都没有改动。"),
    "tables.done": ("Done: {what}.", "已操作：{what}。"),
    "tables.joined": ("{name} sits down.", "{name} 入座。"),
    "tables.left": ("{name} leaves.", "{name} 离座。"),
    "tables.started": ("The game starts! Hands come by DM; the table is below.", "开始！手牌会私信发给各位，牌桌在下面。"),
    "tables.ended_by": ("The table was closed by {name}.", "{name} 结束了这一桌。"),
    "tables.not_started_end": ("The lobby was closed.", "房间已关闭。"),
    "tables.turn": ("Turn: {name} ({wind})", "轮到：{name}（{wind}）"),
    "tables.claims": ("Waiting for claims on {tile} ({n} s)", "等待吃碰杠胡：{tile}（{n} 秒）"),
    "tables.rob": ("{name} adds a kong: waiting for 抢杠", "{name} 加杠：等待抢杠"),
    "tables.header": ("{variant} · hand {hand} · wall {wall}", "{variant} · 第 {hand} 局 · 牌墙余 {wall} 张"),
    "tables.hand_over": ("Hand over. Press Next hand (starts by itself in {n} s).",
                         "本局结束。按“下一局”继续（{n} 秒后自动开始）。"),
    "tables.match_over": ("The match is over.", "本场结束。"),
    "tables.afk_list": ("Played by the AI while away: {names}", "暂离、由电脑代打：{names}"),
    "tables.dm_list": ("Hand by the My hand button (DMs closed): {names}", "私信关闭、用“我的牌”按钮看牌：{names}"),
    "tables.dm_closed": ("{mention}, I cannot DM you (your DMs are closed): press **My hand** on the table to see "
                         "your tiles and play.",
                         "{mention}，无法私信你（你关闭了私信）：请按牌桌上的 **我的牌** 查看手牌并出牌。"),
    "tables.afk": ("{name} timed out twice: the AI plays for them until they press I'm back.",
                   "{name} 连续两次超时：由电脑代打，直到按下“我回来了”。"),
    "tables.back": ("{name} is back.", "{name} 回来了。"),
    "tables.not_afk": ("You are not away.", "你没有暂离。"),
    "tables.your_hand": ("Your hand · {variant} · hand {hand} · you are {wind}",
                         "你的手牌 · {variant} · 第 {hand} 局 · 你是{wind}家"),
    "tables.your_turn": ("**Your turn**: discard a tile.", "**轮到你**：请出牌。"),
    "tables.your_turn_last": ("**Your turn** (last tiles): win or lay the tile aside.",
                              "**轮到你**（最后几张）：和牌或弃掉这张。"),
    "tables.claim_offer": ("**{name} discarded {tile}**: claim it or pass.", "**{name} 打出 {tile}**：要吗？"),
    "tables.rob_offer": ("**{name} adds a kong with {tile}**: rob it?", "**{name} 用 {tile} 加杠**：抢杠吗？"),
    "tables.waiting": ("Waiting for the others.", "等待其他人。"),
    "tables.hint_title": ("Hint: discards that keep you ready", "提示：打这些牌可以听牌"),
    "tables.hint_line": ("{tile} → waits {waits}", "打 {tile} → 听 {waits}"),
    "tables.hint_left": ("{tile}×{n}", "{tile}×{n}"),
    "tables.hint_ready": ("Ready: waiting on {waits}", "听牌：{waits}"),
    "tables.ann_pung": ("{name} 碰 {tile}", "{name} 碰 {tile}"),
    "tables.ann_kong": ("{name} 杠 {tile}", "{name} 杠 {tile}"),
    "tables.ann_ckong": ("{name} 暗杠", "{name} 暗杠"),
    "tables.ann_chi": ("{name} 吃 {tiles}", "{name} 吃 {tiles}"),
    "tables.ann_alarm": ("{name} 报警: {alarm}", "{name} 报警：{alarm}"),
    "tables.ann_win": ("{name} wins (胡) {how}", "{name} 胡了 {how}"),
    "tables.ann_self": ("by self-draw", "（自摸）"),
    "tables.ann_from": ("on {name}'s discard", "（{name} 点炮）"),
    "tables.ann_rob": ("robbing {name}'s kong", "（抢 {name} 的杠）"),
    "tables.ann_draw": ("Hand {hand} is drawn (流局).", "第 {hand} 局流局。"),
    "tables.ann_timeout": ("{name} ran out of time: {what}.", "{name} 超时：{what}。"),
    "tables.commit": ("Hand {hand}: wall commitment `{commitment}` (sha256 of the shuffled wall and a salt, "
                      "revealed at the end).",
                      "第 {hand} 局：牌墙承诺 `{commitment}`（洗好的牌墙加盐的 sha256，本局结束时公开）。"),
    "tables.reveal": ("Hand {hand} wall reveal: salt `{salt}`, wall `{wall}` · commitment {ok}",
                      "第 {hand} 局牌墙公开：盐 `{salt}`，牌墙 `{wall}` · 承诺{ok}"),
    "tables.reveal_ok": ("verified ✓", "核对无误 ✓"),
    "tables.reveal_bad": ("DOES NOT MATCH ✗", "不符 ✗"),
    "tables.result": ("Hand {hand}: {lines}", "第 {hand} 局：{lines}"),
    "tables.summary": ("Final 子: {lines}", "最终子数：{lines}"),
    "tables.resumed": ("The bot restarted; this table continues.", "机器人重启了，牌局继续。"),
    "tables.unrestorable": ("The bot restarted but this table could not be restored; it is closed. "
                            "Hands already settled stay in the ledger.",
                            "机器人重启后无法恢复这一桌，已关闭。已经结算的局仍记在账上。"),
    "tables.ephemeral_only": ("Only you can see this.", "只有你能看到。"),
    "tables.spectator": ("You do not play at this table.", "你不在这一桌打牌。"),
    "tables.unit": ("子", "子"),
}
MESSAGES.update({k: (en, zh, hant(zh)) for k, (en, zh) in _TEXT.items()})


def tile_label(k: int, lang: str) -> str:
    """A tile's short name for buttons and texts: 五万 / 5m."""
    return tile_name(k) if lang == "en" else (tile_zh(k) if lang == "zh" else hant(tile_zh(k)))


def wind_label(w: int, lang: str) -> str:
    return t(f"common.seat.{'ESWN'[w]}", lang)


# ------------------------------------------------------------------------------------------------ state


@dataclass
class Seat:
    """Who sits in a chair: a Discord user or an AI (``ai`` = difficulty)."""

    user_id: int | None
    name: str
    ai: str | None = None
    lang: str = "zh"
    afk: bool = False
    timeouts: int = 0
    dm_failed: bool = False
    dm_told: bool = False
    dm_key: Any = None
    dm_controls: tuple[int, int] | None = None  # (channel, message) of the last DM that carries controls
    dm_last: tuple[int, int] | None = None  # (channel, message) of the latest hand message

    @property
    def human(self) -> bool:
        return self.user_id is not None

    @property
    def automatic(self) -> bool:
        """Played by the AI now (an AI seat, or a human away)."""
        return self.ai is not None or self.afk


@dataclass
class LiveTable:
    """One channel's table: a lobby (``table`` None) or a match in play."""

    guild_id: int
    channel_id: int
    host_id: int
    variant: str
    rules: dict[str, Any]
    lang: str = "zh"
    turn_seconds: float = 60
    claim_seconds: float = 15
    hints: bool = True
    seats: list[Seat | None] = field(default_factory=lambda: [None] * 4)
    table: Table | None = None
    match_id: int | None = None
    hand_id: int | None = None
    seed: str = ""
    actions: list[dict[str, Any]] = field(default_factory=list)
    since: list[int] = field(default_factory=lambda: [-1] * 4)
    _marks: list[Any] = field(default_factory=lambda: [None] * 4)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    message_id: int | None = None
    message_at: float = 0.0  # event-loop time when the table message was posted
    edits: int = 0
    posts_below: int = 0
    timer: asyncio.Task[Any] | None = None
    deltas: list[list[int]] = field(default_factory=list)
    unsettled: list[Event] | None = None  # a hand_end whose ledger is not written yet (store failure)
    closed: bool = False
    told_dm: set[int] = field(default_factory=set)
    rng: random.Random = field(default_factory=random.Random)

    @property
    def id(self) -> int:
        return self.match_id or 0

    def state_hash(self) -> str:
        """The engine table's hash (what the store's resume check compares)."""
        assert self.table is not None
        return self.table.state_hash()

    @property
    def started(self) -> bool:
        return self.table is not None

    def seat_of(self, user_id: int) -> int | None:
        for i, s in enumerate(self.seats):
            if s is not None and s.user_id == user_id:
                return i
        return None

    def names(self) -> list[str]:
        return [s.name if s else t("tables.seat_empty", self.lang) for s in self.seats]

    def humans(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s is not None and s.human]

    def update_since(self) -> None:
        """Each seat's current decision point: the action count when its (legal actions, hand) last changed while
        the table waited for it. A pure function of the action list (recomputed the same way after a restart)."""
        tb = self.table
        if tb is None:
            return
        waiting = set(tb.awaited()) if tb.phase in ("play", "claim", "rob") else set()
        for s in range(4):
            if s not in waiting:
                self._marks[s] = None
                continue
            mark = (tuple((a.type, a.tile) for a in tb.legal_actions(s)), tuple(tb.counts[s]), tb.hand_no)
            if mark != self._marks[s]:
                self._marks[s] = mark
                self.since[s] = tb.seq


def hand_seed(seed: str, hand_no: int) -> str:
    return f"{seed}#{hand_no}"


# ------------------------------------------------------------------------------------------------ scenes


def _meld(m: dict[str, Any]) -> Meld:
    claimed = m.get("claimed")
    return Meld(MeldKind(m["kind"]), _kind(m["tile"]), m.get("fed_by"),
                None if claimed is None else _kind(claimed), bool(m.get("added")))


def _kind(x: Any) -> int:
    if isinstance(x, int):
        return x
    from engine.table.actions import parse_tile

    return parse_tile(x)


def shown_hand(view: dict[str, Any]) -> int:
    """The hand number players see (1-based): the one in play, or the one just finished."""
    return view["hand_no"] + (1 if view["phase"] in ("play", "claim", "rob") else 0)


def table_scene(lt: LiveTable, view: dict[str, Any]):
    """The public table image's scene from the PUBLIC view (``table.view(None)``): never a concealed tile."""
    from dataclasses import replace

    title = t("tables.header", lt.lang, variant=t(f"variant.{lt.variant}", lt.lang), hand=shown_hand(view),
              wall=view["wall_count"])
    scene = table_scene_from_view(view, title=title, lang=lt.lang)
    seats = tuple(replace(sc, bot=bool(lt.seats[c] and lt.seats[c].automatic)) for c, sc in enumerate(scene.seats))
    return replace(scene, seats=seats)


def hand_scene(lt: LiveTable, view: dict[str, Any], highlight: frozenset[int] = frozenset()):
    """A seat's own hand from ITS view."""
    return hand_scene_from_view(view, highlight=sorted(highlight))


def score_scenes(lt: LiveTable, result: dict[str, Any]):
    """One score card per winner, seats in wind order (E first) as the card labels them."""
    dealer = result["dealer"]
    names = lt.names()
    by_wind = [(dealer + w) % 4 for w in range(4)]
    out = []
    for w in result["winners"]:
        melds = []
        for m in w["melds"]:
            mm = _meld(m)
            fed = None if mm.fed_by is None else (mm.fed_by - dealer) % 4
            melds.append(Meld(mm.kind, mm.tile, fed, mm.claimed, mm.added))
        hand = Hand(tuple(_kind(x) for x in w["hand"]), tuple(melds), _kind(w["tile"]))
        items = tuple(Item(i["code"], i["zh"], i["en"], i["value"], i.get("kind", "add")) for i in w["items"])
        notes = tuple(Item(i["code"], i["zh"], i["en"], i["value"], i.get("kind", "add")) for i in w["notes"])
        settled = w["settled"]
        out.append(ScoreScene(
            hand=hand, items=items, payments=tuple(settled[c] for c in by_wind),  # type: ignore[arg-type]
            names=tuple(names[c] for c in by_wind),  # type: ignore[arg-type]
            winner=(w["seat"] - dealer) % 4,
            discarder=None if w["from"] is None else (w["from"] - dealer) % 4, notes=notes,
            title=t(f"variant.{lt.variant}", lt.lang),
        ))
    return out


def hint(lt: LiveTable, view: dict[str, Any]) -> list[tuple[int | None, list[tuple[int, int]]]]:
    """The discards that keep the hand ready, each with the tiles it would wait on and how many of each are still
    unseen from this seat (its own tiles, every meld and river). ``[(None, waits)]`` for a 13-tile ready hand."""
    V = get_variant(lt.variant)
    seat = view["seat"]
    counts = [0] * NUM_KINDS
    for k in view["hand"]:
        counts[k] += 1
    n_melds = len(view["melds"][seat])
    sp = bool(V.seven_pairs and n_melds == 0)
    totals = V.tile_counts(view["rules"])
    seen = view["seen"]

    def unseen(k: int) -> int:
        return max(0, totals[k] - seen[k] - counts[k])

    winds = view.get("winds") or [0, 1, 2, 3]
    dealer = winds.index(0) if 0 in winds else 0
    by_wind = None
    if "melds" in view and len(view["melds"]) == 4:
        def wind_meld(m: dict[str, Any]) -> Meld:
            mm = _meld(m)
            return Meld(mm.kind, mm.tile, None if mm.fed_by is None else winds[mm.fed_by], mm.claimed, mm.added)

        by_wind = tuple(tuple(wind_meld(m) for m in view["melds"][(dealer + w) % 4]) for w in range(4))

    def legal_win(c: list[int], k: int) -> bool:
        """Would ``k`` (self-drawn) be a win the variant allows (八支, 花 ...), not just a complete shape?"""
        if by_wind is None:
            return True
        try:
            w = winds[seat]
            hand = Hand(tuple(x for x in range(NUM_KINDS) for _ in range(c[x])), by_wind[w], k)
            sit = Situation(winner=w, discarder=None, dealer_streak=view.get("dealer_streak") or 1,
                            melds_by_seat=by_wind)
            return V.can_win(hand, sit, view["rules"])
        except Exception:  # an unexpected refusal must not hide the hint
            return True

    def waits(c: list[int]) -> list[tuple[int, int]]:
        if shanten(c, n_melds, seven_pairs=sp) != 0:
            return []
        return [(k, unseen(k)) for k in winning_kinds(c, seven_pairs=sp) if legal_win(c, k)]

    out: list[tuple[int | None, list[tuple[int, int]]]] = []
    if sum(counts) % 3 == 2:
        for k in range(NUM_KINDS):
            if counts[k]:
                counts[k] -= 1
                w = waits(counts)
                counts[k] += 1
                if w:
                    out.append((k, w))
    else:
        w = waits(counts)
        if w:
            out.append((None, w))
    return out


def hint_text(lt: LiveTable, items: list[tuple[int | None, list[tuple[int, int]]]], lang: str) -> str:
    if not items:
        return ""
    lines = []
    for k, ws in items:
        wt = " ".join(t("tables.hint_left", lang, tile=tile_label(w, lang), n=n) for w, n in ws)
        if k is None:
            lines.append(t("tables.hint_ready", lang, waits=wt))
        else:
            lines.append(t("tables.hint_line", lang, tile=tile_label(k, lang), waits=wt))
    head = "" if items[0][0] is None else t("tables.hint_title", lang) + "\n"
    return head + "\n".join(lines)


def ledger_rows(tb: Table, events: Sequence[Event]) -> list[Any]:
    """The store's ledger rows for the hand that ``events`` ended (amounts in 子, chair = store seat)."""
    from bot.store import LedgerRow

    end = next(e for e in events if e.type == "hand_end")
    pay = list(end.data["payments"])
    res = tb.last_result or {}
    jiao = list(res.get("jiao") or [0, 0, 0, 0])
    winners = {w["seat"]: w for w in res.get("winners", [])}
    feeders = {w["from"] for w in winners.values() if w["from"] is not None}
    draw = bool(end.data["draw"])
    rows = []
    for c in range(4):
        w = winners.get(c)
        stack = pay[c] - jiao[c] if tb.variant == "wuhu" else 0
        rows.append(LedgerRow(
            seat=c, amount=pay[c], stack_amount=stack, jiao_amount=jiao[c] if tb.variant == "wuhu" else 0,
            won=w is not None, self_draw=bool(w and w["self_drawn"]), deal_in=c in feeders, drawn=draw,
            hand_value=max(0, pay[c]) if w else 0,
        ))
    return rows


# ------------------------------------------------------------------------------------------------ manager


class Refusal(Exception):
    """A click or command refused with a player message (``key`` in bot.i18n.MESSAGES); nothing changed."""

    def __init__(self, key: str, **params: Any) -> None:
        super().__init__(key)
        self.key = key
        self.params = params


@dataclass
class Timers:
    """Injectable delays (seconds). ``None`` fields mean: the table's server settings."""

    turn: float | None = None
    claim: float | None = None
    next_hand: float | None = 30.0
    scale: float = 1.0


PNG_STUB = (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x00\x00\x00\x00:~\x9bU"
            b"\x00\x00\x00\nIDATx\x9cc`\x00\x00\x00\x02\x00\x01H\xaf\xa4q\x00\x00\x00\x00IEND\xaeB`\x82")


class TableManager:
    """Every live table of one bot. ``ui`` (set by cogs.tables) builds the controls of each kind of message."""

    def __init__(self, bot: Any) -> None:
        self.bot = bot
        self.by_channel: dict[int, LiveTable] = {}
        self.by_id: dict[int, LiveTable] = {}
        self.by_player: dict[int, int] = {}  # user id -> channel id
        self.ui: Any = None
        self.timers = Timers()
        self.render_images = True  # benchmarks may switch PNG drawing off (a 1x1 stub is sent instead)
        # when lists (tests): (kind, scene, table seq) of every PUBLIC image; (user id, scene, seq) of private ones
        self.scene_log: list[tuple[str, Any, int]] | None = None
        self.private_log: list[tuple[int, Any, int]] | None = None
        self.closing = False
        self._tasks: set[asyncio.Task[Any]] = set()

    @property
    def store(self) -> Any:
        return self.bot.store

    # ---------------------------------------------------------------------------------------------- lobby

    def table_in(self, channel_id: int) -> LiveTable:
        lt = self.by_channel.get(channel_id)
        if lt is None or lt.closed:
            raise Refusal("tables.no_table")
        return lt

    def _check_free(self, user_id: int, lt: LiveTable | None = None) -> None:
        ch = self.by_player.get(user_id)
        if ch is not None:
            if lt is not None and ch == lt.channel_id:
                raise Refusal("tables.already_seated")
            raise Refusal("tables.seated_elsewhere", channel=ch)

    def open_lobby(self, guild_id: int, channel_id: int, host_id: int, host_name: str, host_lang: str,
                   variant: str, rules: dict[str, Any], settings: Any) -> LiveTable:
        if channel_id in self.by_channel and not self.by_channel[channel_id].closed:
            raise Refusal("tables.busy_channel")
        self._check_free(host_id)
        lt = LiveTable(guild_id=guild_id, channel_id=channel_id, host_id=host_id, variant=variant, rules=rules,
                       lang=settings.language, turn_seconds=settings.turn_seconds,
                       claim_seconds=settings.claim_seconds, hints=settings.hints)
        lt.seats[0] = Seat(host_id, host_name, lang=host_lang)
        self.by_channel[channel_id] = lt
        self.by_player[host_id] = channel_id
        return lt

    def join(self, lt: LiveTable, user_id: int, name: str, lang: str) -> None:
        if lt.started:
            raise Refusal("tables.not_lobby")
        self._check_free(user_id, lt)
        free = [i for i, s in enumerate(lt.seats) if s is None]
        if not free:
            raise Refusal("tables.full")
        lt.seats[free[0]] = Seat(user_id, name, lang=lang)
        self.by_player[user_id] = lt.channel_id

    def leave(self, lt: LiveTable, user_id: int) -> str:
        if lt.started:
            raise Refusal("tables.not_lobby")
        i = lt.seat_of(user_id)
        if i is None:
            raise Refusal("tables.not_seated")
        name = lt.seats[i].name  # type: ignore[union-attr]
        lt.seats[i] = None
        self.by_player.pop(user_id, None)
        if not lt.humans():
            self._forget(lt)
        elif user_id == lt.host_id:
            lt.host_id = lt.seats[lt.humans()[0]].user_id  # type: ignore[union-attr,assignment]
        return name

    def add_ai(self, lt: LiveTable, difficulty: str) -> None:
        if lt.started:
            raise Refusal("tables.not_lobby")
        free = [i for i, s in enumerate(lt.seats) if s is None]
        if not free:
            raise Refusal("tables.full")
        n = sum(1 for s in lt.seats if s is not None and s.ai) + 1
        lt.seats[free[0]] = Seat(None, t("tables.ai_name", lt.lang, n=n), ai=difficulty, lang=lt.lang)

    def may_manage(self, lt: LiveTable, user_id: int, manage_guild: bool) -> None:
        if user_id != lt.host_id and not manage_guild:
            host = next((s.name for s in lt.seats if s and s.user_id == lt.host_id), str(lt.host_id))
            raise Refusal("tables.host_only", host=host)

    def close_lobby(self, lt: LiveTable) -> None:
        """Close a lobby that has not started (its players are free again)."""
        if lt.started:
            raise Refusal("tables.not_lobby")
        self._forget(lt)

    async def repost(self, lt: LiveTable) -> None:
        """Post the table message again at the bottom of its channel (``/table show``)."""
        async with lt.lock:
            await self._update_table_message(lt, fresh=True)

    def _forget(self, lt: LiveTable) -> None:
        lt.closed = True
        if self.by_channel.get(lt.channel_id) is lt:
            del self.by_channel[lt.channel_id]
        if lt.match_id is not None:
            self.by_id.pop(lt.match_id, None)
        for s in lt.seats:
            if s is not None and s.user_id is not None and self.by_player.get(s.user_id) == lt.channel_id:
                del self.by_player[s.user_id]
        if lt.timer is not None:
            lt.timer.cancel()
            lt.timer = None

    # ---------------------------------------------------------------------------------------------- start

    async def start(self, lt: LiveTable) -> None:
        """Deal the first hand: record the match, post the table, DM the hands, let the AI seats play."""
        from bot.store import SeatSpec

        if lt.started:
            raise Refusal("tables.not_lobby")
        if any(s is None for s in lt.seats):
            raise Refusal("tables.need_four")
        if not lt.humans():
            raise Refusal("tables.need_human")
        async with lt.lock:
            if lt.started or lt.closed:  # a second Start pressed while the first was dealing
                raise Refusal("tables.not_lobby")
            lt.seed = secrets.token_hex(8)
            names = [s.name for s in lt.seats]  # type: ignore[union-attr]
            tb = Table.new(lt.variant, lt.seed, lt.rules, names)
            specs = [SeatSpec.human(s.user_id, s.name) if s.human else SeatSpec.bot(s.ai or "normal")  # type: ignore
                     for s in lt.seats]
            settings = {"rules": lt.rules, "bot": self._meta(lt)}
            lt.match_id = await self.store.start_match(lt.guild_id, lt.channel_id, lt.variant, settings, lt.seed,
                                                       specs, state_hash=tb.state_hash())
            lt.hand_id = await self.store.start_hand(lt.match_id, 0, hand_seed(lt.seed, 0), tb.commitment)
            lt.table = tb
            lt.rng = random.Random(lt.seed)
            self.by_id[lt.match_id] = lt
            lt.update_since()
            events = list(tb.start_events)
            events += await self._run_automatic(lt)
            await self._publish(lt, events, fresh=True)

    def _meta(self, lt: LiveTable) -> dict[str, Any]:
        return {
            "host": lt.host_id, "lang": lt.lang, "turn": lt.turn_seconds, "claim": lt.claim_seconds,
            "hints": lt.hints,
            "seats": [{"user": s.user_id, "name": s.name, "ai": s.ai, "lang": s.lang} for s in lt.seats if s],
        }

    # ---------------------------------------------------------------------------------------------- acting

    async def _apply(self, lt: LiveTable, action: Action) -> list[Event]:
        """Apply one action, record it (and settle a finished hand) in the store; roll back on a store failure."""
        tb = lt.table
        assert tb is not None and lt.match_id is not None
        if lt.unsettled is not None:  # a settlement that failed earlier is written first
            await self._settle(lt, lt.unsettled)
        events = tb.apply(action)  # IllegalAction: nothing changed
        lt.actions.append(action.to_json())
        try:
            if any(e.type == "hand_start" for e in events):
                lt.hand_id = await self.store.start_hand(lt.match_id, tb.hand_no, hand_seed(lt.seed, tb.hand_no),
                                                         tb.commitment)
            await self.store.record_action(lt.match_id, tb.seq - 1, action.to_json(), hand_id=lt.hand_id,
                                           state_hash=tb.state_hash())
        except Exception:  # nothing of this action is in the store: forget it
            lt.actions.pop()
            lt.table = Table.replay(lt.variant, lt.seed, lt.rules, lt.actions, tb.players)
            lt.update_since()
            raise
        lt.update_since()
        if any(e.type == "hand_end" for e in events):
            end = next(e for e in events if e.type == "hand_end")
            lt.deltas.append(list(end.data["payments"]))
            lt.unsettled = [e for e in events if e.type == "hand_end"]
        if lt.unsettled is not None or tb.phase == "over":
            try:
                await self._settle(lt, lt.unsettled or [])
            except Exception:  # the action itself is recorded: show it; the settlement is retried first next time
                log.exception("table %s: settling hand failed; will retry", lt.id)
        return events

    async def _settle(self, lt: LiveTable, end_events: list[Event]) -> None:
        """Write a finished hand's ledger (and the match's end). Both are idempotent in the store."""
        tb = lt.table
        assert tb is not None
        h = tb.state_hash()
        if end_events:
            await self.store.finish_hand(lt.hand_id, ledger_rows(tb, end_events), state_hash=h)
        lt.unsettled = None
        if tb.phase == "over":
            await self.store.finish_match(lt.match_id, state_hash=h)

    def _auto_action(self, lt: LiveTable, seat: int) -> Action:
        tb = lt.table
        assert tb is not None
        legal = tb.legal_actions(seat)
        s = lt.seats[seat]
        diff = (s.ai if s and s.ai else "normal")
        return legal[0] if len(legal) == 1 else choose(tb.view(seat), seat, legal, diff, lt.rng)

    async def _run_automatic(self, lt: LiveTable) -> list[Event]:
        """Let AI (and away) seats act until a present human must decide or the hand ends."""
        tb = lt.table
        assert tb is not None
        out: list[Event] = []
        for _ in range(1000):
            if tb.phase not in ("play", "claim", "rob"):
                break
            auto = [s for s in tb.awaited() if lt.seats[s] is not None and lt.seats[s].automatic]  # type: ignore
            if not auto:
                break
            out += await self._apply(lt, self._auto_action(lt, auto[0]))
            tb = lt.table
        return out

    async def act(self, table_id: int, user_id: int, for_seat: int, seq: int, op: str, arg: str | None) -> str:
        """A player's control: check it is theirs and current, apply it, let the AI seats answer, publish.
        Returns a short description for the ephemeral acknowledgement. Raises :class:`Refusal`."""
        lt = self.by_id.get(table_id)
        if lt is None or lt.closed or lt.table is None:
            raise Refusal("tables.table_gone")
        async with lt.lock:
            tb = lt.table
            seat = lt.seat_of(user_id)
            if seat is None or (for_seat != 9 and for_seat != seat):
                raise Refusal("tables.not_your_seat")
            if op == "next":
                if tb.phase != "ended" or seq != tb.seq:
                    raise Refusal("tables.stale")
                action = Action("next_hand", seat)
            else:
                if tb.phase not in ("play", "claim", "rob") or seat not in tb.awaited() or seq != lt.since[seat]:
                    raise Refusal("tables.stale")
                if lt.seats[seat].afk:  # type: ignore[union-attr]
                    raise Refusal("tables.not_now")
                action = _action_of(seat, op, arg)
                if action is None or action not in tb.legal_actions(seat):
                    raise Refusal("tables.not_now")
            try:
                events = await self._apply(lt, action)
            except IllegalAction as e:
                raise Refusal("tables.not_now") from e
            lt.seats[seat].timeouts = 0  # type: ignore[union-attr]
            events += await self._run_automatic(lt)
            await self._publish(lt, events)
            return action.describe(lt.seats[seat].lang)  # type: ignore[union-attr]

    async def back(self, table_id: int, user_id: int) -> None:
        lt = self.by_id.get(table_id)
        if lt is None or lt.closed:
            raise Refusal("tables.table_gone")
        async with lt.lock:
            seat = lt.seat_of(user_id)
            if seat is None:
                raise Refusal("tables.not_seated")
            s = lt.seats[seat]
            assert s is not None
            if not s.afk:
                raise Refusal("tables.not_afk")
            s.afk = False
            s.timeouts = 0
            s.dm_key = None
            await self._post(lt, t("tables.back", lt.lang, name=s.name))
            await self._publish(lt, [])

    async def end(self, lt: LiveTable, by_name: str) -> None:
        async with lt.lock:
            if lt.closed:
                return
            if lt.match_id is not None and lt.table is not None and lt.table.phase != "over":
                with contextlib.suppress(Exception):
                    await self.store.abort_match(lt.match_id, f"ended by {by_name}")
            self._forget(lt)
            await self._post(lt, t("tables.ended_by", lt.lang, name=by_name))
            if lt.table is not None:
                await self._post_summary(lt)
            await self._strip_table_message(lt)

    # ---------------------------------------------------------------------------------------------- timers

    def _delays(self, lt: LiveTable) -> tuple[float, float, float]:
        tm = self.timers
        turn = tm.turn if tm.turn is not None else lt.turn_seconds
        claim = tm.claim if tm.claim is not None else lt.claim_seconds
        nxt = tm.next_hand if tm.next_hand is not None else lt.turn_seconds
        return turn * tm.scale, claim * tm.scale, nxt * tm.scale

    def _arm_timer(self, lt: LiveTable) -> None:
        if lt.timer is not None:
            lt.timer.cancel()
            lt.timer = None
        tb = lt.table
        if tb is None or lt.closed or self.closing or tb.phase == "over":
            return
        turn, claim, nxt = self._delays(lt)
        if tb.phase == "ended":
            if all(lt.seats[c].afk for c in lt.humans()):  # type: ignore[union-attr]
                return  # nobody is here: the next hand waits for Next hand or I'm back
            delay = nxt
        else:
            waiting = [s for s in tb.awaited() if lt.seats[s] is not None and not lt.seats[s].automatic]  # type: ignore
            if not waiting:
                return
            delay = claim if tb.phase in ("claim", "rob") else turn
        lt.timer = asyncio.get_running_loop().create_task(self._timer(lt, tb.seq, delay), name=TIMER_TASK_NAME)

    async def _timer(self, lt: LiveTable, seq: int, delay: float) -> None:
        await asyncio.sleep(delay)
        # the work runs in its own task so that whoever waits for the bot's work (tests) sees it
        task = asyncio.get_running_loop().create_task(self._timed_out(lt, seq))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _timed_out(self, lt: LiveTable, seq: int) -> None:
        try:
            async with lt.lock:
                tb = lt.table
                if lt.closed or tb is None or tb.seq != seq:
                    return
                events: list[Event] = []
                if tb.phase == "ended":
                    events += await self._apply(lt, Action("timeout", 0))
                else:
                    for s in list(tb.awaited()):
                        seat = lt.seats[s]
                        if seat is None or seat.automatic or s not in lt.table.awaited():
                            continue
                        events += await self._apply(lt, Action("timeout", s))
                        seat.timeouts += 1
                        if seat.timeouts >= AFK_AFTER:
                            seat.afk = True
                            events.append(Event("afk", s, {}))
                events += await self._run_automatic(lt)
                await self._publish(lt, events)
        except Exception:
            log.exception("timer of table %s failed", lt.id)

    # ---------------------------------------------------------------------------------------------- output

    async def _render(self, kind: str, scene: Any, lang: str, public: bool, lt: LiveTable | None = None,
                      user: int | None = None) -> bytes:
        seq = lt.table.seq if lt is not None and lt.table is not None else -1
        if public and self.scene_log is not None:
            self.scene_log.append((kind, scene, seq))
        if not public and self.private_log is not None and user is not None:
            self.private_log.append((user, scene, seq))
        if not self.render_images:
            return PNG_STUB
        fn = {"table": render.render_table, "hand": render.render_hand, "score": render.render_score,
              "match": render.render_match}[kind]
        return await asyncio.to_thread(fn, scene, "dark", lang)

    def _channel(self, channel_id: int) -> discord.PartialMessageable:
        return self.bot.get_partial_messageable(channel_id)

    async def _post(self, lt: LiveTable, content: str, **kw: Any) -> discord.Message | None:
        try:
            msg = await self._channel(lt.channel_id).send(content, allowed_mentions=discord.AllowedMentions(
                users=True, everyone=False, roles=False), **kw)
        except discord.HTTPException as e:
            log.warning("table %s: cannot post in channel %s: %s", lt.id, lt.channel_id, e)
            return None
        lt.posts_below += 1
        return msg

    def _status_text(self, lt: LiveTable) -> str:
        tb = lt.table
        assert tb is not None
        lang = lt.lang
        v = tb.view(None)
        lines = [t("tables.header", lang, variant=t(f"variant.{lt.variant}", lang), hand=shown_hand(v),
                   wall=v["wall_count"])]
        names = lt.names()
        if tb.phase == "play":
            lines.append(t("tables.turn", lang, name=names[tb.turn], wind=wind_label(tb.wind(tb.turn), lang)))
        elif tb.phase == "claim" and v["last_discard"]:
            lines.append(t("tables.claims", lang, tile=tile_label(v["last_discard"]["tile"], lang),
                           n=int(self._delays(lt)[1])))
        elif tb.phase == "rob" and v["robbing"]:
            lines.append(t("tables.rob", lang, name=names[v["robbing"]["seat"]]))
        elif tb.phase == "ended":
            lines.append(t("tables.hand_over", lang, n=int(self._delays(lt)[2])))
        else:
            lines.append(t("tables.match_over", lang))
        afk = [names[i] for i, s in enumerate(lt.seats) if s and s.afk]
        if afk:
            lines.append(t("tables.afk_list", lang, names=", ".join(afk)))
        dmf = [names[i] for i, s in enumerate(lt.seats) if s and s.dm_failed]
        if dmf:
            lines.append(t("tables.dm_list", lang, names=", ".join(dmf)))
        return "\n".join(lines)

    async def _publish(self, lt: LiveTable, events: list[Event], *, fresh: bool = False) -> None:
        """Everything players must see after a batch of events: announcements, the table message, private hands,
        score cards and the match summary; then the timer for whoever must act next."""
        tb = lt.table
        assert tb is not None
        await self._announce(lt, events)
        # a new hand or a finished one (score cards above): the table goes to the bottom of the channel again
        fresh = fresh or any(e.type in ("hand_start", "hand_end") for e in events)
        await self._update_table_message(lt, fresh=fresh)
        await self._send_hands(lt)
        self._arm_timer(lt)
        if tb.phase == "over" and not lt.closed:
            await self._post_summary(lt)
            self._forget(lt)
            await self._strip_table_message(lt)

    async def _announce(self, lt: LiveTable, events: list[Event]) -> None:
        lang = lt.lang
        names = lt.names()
        lines: list[str] = []
        files: list[discord.File] = []
        tb = lt.table
        assert tb is not None
        for e in events:
            ty, d = e.type, e.data
            if ty == "hand_start":
                lines.append(t("tables.commit", lang, hand=d["hand_no"] + 1, commitment=d["commitment"]))
            elif ty == "pung":
                lines.append(t("tables.ann_pung", lang, name=names[e.seat], tile=tile_label(_kind(d["tile"]), lang)))
            elif ty == "kong":
                if d.get("kind") == "concealed":
                    lines.append(t("tables.ann_ckong", lang, name=names[e.seat]))
                else:
                    lines.append(t("tables.ann_kong", lang, name=names[e.seat],
                                   tile=tile_label(_kind(d["tile"]), lang)))
            elif ty == "chi":
                lines.append(t("tables.ann_chi", lang, name=names[e.seat],
                               tiles="".join(tile_label(_kind(x), lang) for x in d["tiles"])))
            elif ty == "alarm":
                lines.append(t("tables.ann_alarm", lang, name=names[e.seat],
                               alarm=d["en"] if lang == "en" else (d["zh"] if lang == "zh" else hant(d["zh"]))))
            elif ty == "timeout":
                what = Action.from_json(d["as"]).describe(lang)
                lines.append(t("tables.ann_timeout", lang, name=names[e.seat], what=what))
            elif ty == "afk":
                lines.append(t("tables.afk", lang, name=names[e.seat]))
            elif ty == "win":
                if d["self_drawn"]:
                    how = t("tables.ann_self", lang)
                elif d["rob_kong"]:
                    how = t("tables.ann_rob", lang, name=names[d["from"]])
                else:
                    how = t("tables.ann_from", lang, name=names[d["from"]])
                lines.append(t("tables.ann_win", lang, name=names[e.seat], how=how))
            elif ty == "hand_end":
                if d["draw"]:
                    lines.append(t("tables.ann_draw", lang, hand=d["hand_no"] + 1))
                from engine.table import verify_commitment

                ok = verify_commitment(d["commitment"], d["reveal"])
                lines.append(t("tables.reveal", lang, hand=d["hand_no"] + 1, salt=d["reveal"]["salt"],
                               wall="".join(d["reveal"]["wall"]),
                               ok=t("tables.reveal_ok" if ok else "tables.reveal_bad", lang)))
                unit = t("tables.unit", lang)
                res = " · ".join(f"{names[c]} {d['payments'][c]:+d} {unit}" for c in range(4))
                lines.append(t("tables.result", lang, hand=d["hand_no"] + 1, lines=res))
                if tb.last_result and tb.last_result.get("hand_no") == d["hand_no"]:
                    for i, sc in enumerate(score_scenes(lt, tb.last_result)):
                        png = await self._render("score", sc, lang, True, lt)
                        files.append(discord.File(io.BytesIO(png), filename=f"score-{d['hand_no'] + 1}-{i}.png"))
        if not lines and not files:
            return
        text = "\n".join(lines)
        # long reveals can pass Discord's 2000 characters: split by lines
        chunks: list[str] = []
        cur = ""
        for ln in text.split("\n"):
            if len(cur) + len(ln) + 1 > 1900:
                chunks.append(cur)
                cur = ""
            cur = f"{cur}\n{ln}" if cur else ln
        chunks.append(cur)
        for i, chunk in enumerate(chunks):
            last = i == len(chunks) - 1
            await self._post(lt, chunk, **({"files": files} if last and files else {}))

    async def _update_table_message(self, lt: LiveTable, *, fresh: bool = False) -> None:
        tb = lt.table
        assert tb is not None
        scene = table_scene(lt, tb.view(None))
        png = await self._render("table", scene, lt.lang, True, lt)
        content = self._status_text(lt)
        view = self.ui.table_view(lt) if self.ui else None
        file = discord.File(io.BytesIO(png), filename=f"table-{lt.id}.png")
        age = asyncio.get_running_loop().time() - lt.message_at
        repost = (fresh or lt.message_id is None or lt.edits >= MAX_TABLE_EDITS or lt.posts_below >= MAX_POSTS_BELOW
                  or age > MAX_MESSAGE_AGE)
        if not repost:
            try:
                msg = self._channel(lt.channel_id).get_partial_message(lt.message_id)  # type: ignore[arg-type]
                await msg.edit(content=content, attachments=[file], view=view)
                lt.edits += 1
                return
            except discord.NotFound:
                pass
            except discord.HTTPException as e:
                log.warning("table %s: edit failed (%s); re-posting", lt.id, e)
        old = lt.message_id
        file = discord.File(io.BytesIO(png), filename=f"table-{lt.id}.png")
        msg = await self._post(lt, content, file=file, **({"view": view} if view else {}))
        if msg is not None:
            lt.message_id = msg.id
            lt.message_at = asyncio.get_running_loop().time()
            lt.edits = 0
            lt.posts_below = 0
            if old is not None and old != msg.id:
                with contextlib.suppress(discord.HTTPException):
                    await self._channel(lt.channel_id).get_partial_message(old).delete()

    async def _strip_table_message(self, lt: LiveTable) -> None:
        if lt.message_id is None:
            return
        with contextlib.suppress(discord.HTTPException):
            await self._channel(lt.channel_id).get_partial_message(lt.message_id).edit(view=None)

    async def _post_summary(self, lt: LiveTable) -> None:
        tb = lt.table
        if tb is None:
            return
        names = lt.names()
        totals = tb.totals()
        unit = t("tables.unit", lt.lang)
        text = t("tables.summary", lt.lang, lines=" · ".join(f"{names[c]} {totals[c]:+d} {unit}" for c in range(4)))
        kw: dict[str, Any] = {}
        if lt.deltas:
            scene = MatchScene.from_deltas(names, lt.deltas, title=t(f"variant.{lt.variant}", lt.lang))
            png = await self._render("match", scene, lt.lang, True, lt)
            kw["file"] = discord.File(io.BytesIO(png), filename=f"match-{lt.id}.png")
        await self._post(lt, text, **kw)

    def private_text(self, lt: LiveTable, seat: int, lang: str) -> tuple[str, frozenset[int]]:
        """The text over a seat's hand image (what to do, the hint) and the tiles the hint marks."""
        tb = lt.table
        assert tb is not None
        v = tb.view(seat)
        names = lt.names()
        lines = [t("tables.your_hand", lang, variant=t(f"variant.{lt.variant}", lang), hand=v["hand_no"] + 1,
                   wind=wind_label(v["winds"][seat], lang))]
        legal = {a["type"] for a in v["legal"]}
        waiting = seat in tb.awaited() and tb.phase in ("play", "claim", "rob")
        if waiting and tb.phase == "play":
            lines.append(t("tables.your_turn_last" if v["last_four"] else "tables.your_turn", lang))
        elif waiting and tb.phase == "claim" and v["last_discard"]:
            ld = v["last_discard"]
            lines.append(t("tables.claim_offer", lang, name=names[ld["seat"]], tile=tile_label(ld["tile"], lang)))
        elif waiting and tb.phase == "rob" and v["robbing"]:
            rb = v["robbing"]
            lines.append(t("tables.rob_offer", lang, name=names[rb["seat"]], tile=tile_label(rb["tile"], lang)))
        else:
            lines.append(t("tables.waiting", lang))
        marks: frozenset[int] = frozenset()
        if lt.hints and tb.phase in ("play", "claim", "rob"):
            items = hint(lt, v)
            if "discard" in legal or not waiting or tb.phase != "play":
                ht = hint_text(lt, items, lang)
                if ht:
                    lines.append(ht)
                marks = frozenset(k for k, _ in items if k is not None)
        return "\n".join(lines), marks

    async def hand_message(self, lt: LiveTable, seat: int, lang: str) -> tuple[str, bytes, Any]:
        """(text, PNG, controls) of a seat's private hand."""
        tb = lt.table
        assert tb is not None
        text, marks = self.private_text(lt, seat, lang)
        scene = hand_scene(lt, tb.view(seat), marks)
        png = await self._render("hand", scene, lang, False, lt, lt.seats[seat].user_id)  # type: ignore[union-attr]
        view = self.ui.hand_view(lt, seat, lang, marks) if self.ui else None
        return text, png, view

    def _dm_key(self, lt: LiveTable, seat: int) -> Any:
        tb = lt.table
        assert tb is not None
        waiting = seat in tb.awaited() and tb.phase in ("play", "claim", "rob")
        return (tb.hand_no, tuple(tb.counts[seat]), len(tb.melds[seat]), lt.since[seat] if waiting else None)

    async def _send_hands(self, lt: LiveTable) -> None:
        tb = lt.table
        assert tb is not None
        if tb.phase not in ("play", "claim", "rob"):
            return
        for c in lt.humans():
            s = lt.seats[c]
            assert s is not None and s.user_id is not None
            if s.afk or s.dm_failed:
                continue
            key = self._dm_key(lt, c)
            if key == s.dm_key:
                continue
            if s.dm_key is not None and s.dm_key[0] != key[0]:
                s.dm_last = None  # a new hand starts in a new message
            s.dm_key = key
            text, png, view = await self.hand_message(lt, c, s.lang)
            file = discord.File(io.BytesIO(png), filename="hand.png")
            try:
                if view is None and s.dm_last is not None:
                    # nothing to decide: the last hand message shows the new hand (no new notification)
                    try:
                        await self._channel(s.dm_last[0]).get_partial_message(s.dm_last[1]).edit(
                            content=text, attachments=[file], view=None)
                        s.dm_controls = None
                        continue
                    except discord.NotFound:
                        file = discord.File(io.BytesIO(png), filename="hand.png")
                # a decision to make (or no message yet): a new message, so that the player is notified
                dm = await self.bot.create_dm(discord.Object(s.user_id))
                msg = await dm.send(text, file=file, **({"view": view} if view else {}))
                old, s.dm_controls = s.dm_controls, ((dm.id, msg.id) if view else None)
                s.dm_last = (dm.id, msg.id)
                if old is not None:  # the superseded controls go away (a click there would be refused anyway)
                    with contextlib.suppress(discord.HTTPException):
                        await self._channel(old[0]).get_partial_message(old[1]).edit(view=None)
            except discord.Forbidden as e:
                s.dm_failed = True
                log.info("table %s: DMs closed for %s (%s)", lt.id, s.user_id, getattr(e, "code", "?"))
                if s.user_id not in lt.told_dm:
                    lt.told_dm.add(s.user_id)
                    await self._post(lt, t("tables.dm_closed", lt.lang, mention=f"<@{s.user_id}>"))
                # the table message now needs its My hand button and the DM list
                await self._update_table_message(lt)
            except discord.HTTPException as e:
                log.warning("table %s: DM to %s failed: %s", lt.id, s.user_id, e)

    # ---------------------------------------------------------------------------------------------- restart

    async def resume_all(self) -> None:
        """Rebuild every unfinished match from the store; close the ones that cannot be rebuilt, with a message."""
        from bot.store import resume_all

        def rebuild(game: Any) -> LiveTable:
            return self._rebuild(game)

        report = await resume_all(self.store, rebuild)
        for r in report.resumed:
            lt: LiveTable = r.table
            try:
                await self._resumed(lt, r.game)
            except Exception:
                log.exception("table %s: could not resume", lt.id)
                with contextlib.suppress(Exception):
                    await self.store.abort_match(lt.match_id, "resume failed")
                self._forget(lt)
                await self._post(lt, t("tables.unrestorable", lt.lang))
        for a in report.aborted:
            log.warning("match %s aborted on resume: %s", a.game.match_id, a.reason)
            lang = (a.game.settings.get("bot") or {}).get("lang", "zh") if isinstance(a.game.settings, dict) else "zh"
            with contextlib.suppress(discord.HTTPException):
                await self._channel(a.game.match.channel_id).send(t("tables.unrestorable", lang))

    def _rebuild(self, game: Any) -> LiveTable:
        import json

        m = game.match
        meta = game.settings.get("bot") or {}
        rules = game.settings.get("rules") or {}
        lt = LiveTable(guild_id=m.guild_id, channel_id=m.channel_id, host_id=meta.get("host", 0), variant=m.variant,
                       rules=rules, lang=meta.get("lang", "zh"), turn_seconds=meta.get("turn", 60),
                       claim_seconds=meta.get("claim", 15), hints=meta.get("hints", True))
        seats = meta.get("seats") or []
        for i, st in enumerate(m.seats):
            sm = seats[i] if i < len(seats) else {}
            lt.seats[i] = Seat(st.player_id, sm.get("name") or st.display_name or f"AI {i}", ai=st.ai,
                               lang=sm.get("lang", lt.lang))
        lt.seed = m.seed
        lt.match_id = m.match_id
        tb = Table.new(lt.variant, lt.seed, rules, [s.name for s in lt.seats])  # type: ignore[union-attr]
        lt.table = tb
        lt.update_since()
        deltas: list[list[int]] = []
        for ra in game.actions:
            a = json.loads(ra.action)
            ev = tb.apply(a)
            lt.actions.append(a)
            lt.update_since()
            for e in ev:
                if e.type == "hand_end":
                    deltas.append(list(e.data["payments"]))
        lt.deltas = deltas
        lt.rng = random.Random(f"{lt.seed}:{tb.seq}")
        return lt

    async def _resumed(self, lt: LiveTable, game: Any) -> None:
        tb = lt.table
        assert tb is not None
        hands = game.hands
        lt.hand_id = hands[-1].hand_id if hands else None
        # a crash between recording the last action and settling the hand: settle it now
        if hands and hands[-1].status == "active" and tb.phase in ("ended", "over") and tb.last_result \
                and tb.last_result.get("hand_no") == hands[-1].number:
            from engine.table.actions import Event as Ev

            end = Ev("hand_end", None, {"payments": tb.last_result["payments"], "draw": tb.last_result["draw"]})
            await self.store.finish_hand(lt.hand_id, ledger_rows(tb, [end]), state_hash=tb.state_hash())
        if tb.phase == "over":
            await self.store.finish_match(lt.match_id, state_hash=tb.state_hash())
            return
        for s in lt.seats:
            if s is not None and s.user_id is not None:
                if s.user_id in self.by_player:
                    continue
                self.by_player[s.user_id] = lt.channel_id
        self.by_channel[lt.channel_id] = lt
        self.by_id[lt.match_id] = lt  # type: ignore[index]
        async with lt.lock:
            await self._post(lt, t("tables.resumed", lt.lang))
            events = await self._run_automatic(lt)
            await self._publish(lt, events, fresh=True)

    async def close(self) -> None:
        self.closing = True
        for lt in list(self.by_channel.values()):
            if lt.timer is not None:
                lt.timer.cancel()
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def _action_of(seat: int, op: str, arg: str | None) -> Action | None:
    """The engine action of a control: ``d`` discard, ``w`` win, ``p`` pung, ``k`` kong, ``c`` chi, ``x`` pass."""
    types = {"d": "discard", "w": "win", "p": "pung", "k": "kong", "c": "chi", "x": "pass"}
    if op not in types:
        return None
    tile = None
    if arg:
        try:
            tile = _kind(arg)
        except EngineError:
            return None
    return Action(types[op], seat, tile)


__all__ = [
    "LiveTable",
    "Refusal",
    "Seat",
    "TableManager",
    "Timers",
    "hand_scene",
    "hint",
    "ledger_rows",
    "table_scene",
]
