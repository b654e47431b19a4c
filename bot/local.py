"""``mjbot local``: play a whole match in a plain terminal against three AI players.

Your hand, the rivers, the melds, the scores and your legal actions as numbered choices; no colour needed.
EOF (Ctrl-D) or ``q`` quits cleanly (exit 0).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.ai import choose
from engine.errors import EngineError
from engine.table import Action, Event, Table
from engine.tiles import SEAT_ZH, SEATS, tile_name, tile_zh
from engine.variants import get_variant

HUMAN = 0
_ACT = {"discard": "discard", "win": "WIN", "pung": "pung", "kong": "kong", "chi": "chi", "pass": "pass",
        "next_hand": "next hand"}
_ACT_ZH = {"discard": "打", "win": "和", "pung": "碰", "kong": "杠", "chi": "吃", "pass": "过", "next_hand": "下一局"}


def _t(k: int | str | None) -> str:
    if k is None:
        return ""
    if isinstance(k, str):
        return k
    return f"{tile_name(k)}"


def _tiles(ks: list[int]) -> str:
    return " ".join(tile_name(k) for k in ks)


def _who(t: Table, seat: int) -> str:
    w = t.wind(seat)
    return f"{t.players[seat]}({SEATS[w]}{SEAT_ZH[w]})"


def _meld(m: dict[str, Any], t: Table) -> str:
    body = _tiles(m["tiles"])
    if m["kind"] == "concealed_kong":
        return f"({body})"
    src = f" <-{SEATS[t.wind(m['fed_by'])]}" if m.get("fed_by") is not None else ""
    return f"[{body}{src}]"


def _describe(a: Action, t: Table) -> str:
    name = f"{_ACT.get(a.type, a.type)} / {_ACT_ZH.get(a.type, '')}"
    if a.type == "chi" and a.tile is not None:
        return f"{name} {_tiles([a.tile, a.tile + 1, a.tile + 2])}"
    if a.type == "win" and t.phase == "play":
        return "WIN (self-drawn) / 自摸"
    if a.type == "pass" and t.phase == "play":
        return "draw on (lay the tile aside) / 过"
    if a.tile is not None:
        return f"{name} {tile_name(a.tile)} ({tile_zh(a.tile)})"
    return name


def render_state(t: Table, seat: int = HUMAN) -> str:
    v = t.view(seat)
    V = get_variant(t.variant)
    lines = []
    mode = f" {v['rules'].get('mode')}" if t.variant == "wuhu" else ""
    where = f"底 {v['di']}" if t.variant == "wuhu" else f"圈 {v['quan']}"
    lines.append(f"== {V.zh} {V.en}{mode} · hand {v['hand_no'] + 1} · {where} · dealer {_who(t, v['dealer'])}"
                 f" x{v['dealer_streak']} · wall {v['wall_count']} ==")
    if t.variant == "wuhu":
        lines.append("stacks 子: " + "  ".join(f"{_who(t, s)} {v['stacks'][s]} (交 {v['jiao'][s]:+d})" for s in range(4)))
    lines.append("totals: " + "  ".join(f"{_who(t, s)} {v['totals'][s]:+d}" for s in range(4)))
    if v["last_four"]:
        lines.append("last tiles: draw only, win by self-draw only")
    for s in range(4):
        river = " ".join(tile_name(e["tile"]) + ("*" if e["status"] == "claimed" else "")
                         + ("!" if e["status"] == "won" else "") for e in v["rivers"][s])
        melds = " ".join(_meld(m, t) for m in v["melds"][s])
        alarm = f"  ALARM {','.join(v['alarms'][s])}" if v["alarms"][s] else ""
        lines.append(f"  {_who(t, s):14} river: {river or '-'}")
        if melds or alarm:
            lines.append(f"  {'':14} melds: {melds}{alarm}")
    hand = list(v["hand"])
    drawn = v["drawn"]
    if drawn is not None and drawn in hand:
        hand.remove(drawn)
    lines.append(f"Your hand: {_tiles(hand)}" + (f"  + drew {tile_name(drawn)}" if drawn is not None else ""))
    if v["last_discard"] and v["claim"]:
        ld = v["last_discard"]
        lines.append(f"{_who(t, ld['seat'])} discarded {tile_name(ld['tile'])} ({tile_zh(ld['tile'])})")
    return "\n".join(lines)


def render_event(e: Event, t: Table) -> str | None:
    d = e.data
    who = _who(t, e.seat) if e.seat is not None else ""
    if e.type == "hand_start":
        dice = " + ".join(f"{a}+{b}" for a, b in d["dice"])
        return f"-- hand {d['hand_no'] + 1}: dice {dice}, commitment {d['commitment'][:16]}..."
    if e.type == "discard" and e.seat != HUMAN:
        return f"{who} discards {d['tile']}"
    if e.type in ("pung", "chi"):
        return f"{who} {e.type}s {d['tile']}"
    if e.type == "kong":
        return f"{who} kong {d['tile']} ({d['kind']})"
    if e.type == "add_kong":
        return f"{who} adds a kong {d['tile']}"
    if e.type == "alarm":
        return f"!! {who} ALARM 报警: {d['zh']} / {d['en']}"
    if e.type == "last_four":
        return "-- last tiles: draw only / 最后四张，只摸不打"
    if e.type == "win":
        how = "self-drawn 自摸" if d["self_drawn"] else ("robbing the kong 抢杠" if d["rob_kong"] else
                                                         f"on {_who(t, d['from'])}'s discard 点炮")
        items = ", ".join(f"{i['zh']} {i['value']}" for i in d["items"])
        return (f"** {who} WINS 和 with {d['tile']} {how}\n   hand: {' '.join(d['hand'])} "
                + " ".join(f"[{' '.join(m['tiles'])}]" for m in d["melds"]) + f"\n   {items}")
    if e.type == "hand_end":
        pays = "  ".join(f"{_who(t, s)} {d['payments'][s]:+d}" for s in range(4))
        head = "drawn hand 流局" if d["draw"] else "settlement"
        return f"-- {head}: {pays}\n   wall reveal salt {d['reveal']['salt'][:12]}... (verify_commitment)"
    if e.type == "di_end":
        return f"-- 底 {d['di']} over (a stack is empty)"
    if e.type == "match_end":
        return "== match over: " + "  ".join(f"{_who(t, s)} {d['totals'][s]:+d}" for s in range(4))
    return None


def run_local(
    variant: str,
    seed: int | None = None,
    *,
    input_fn: Callable[[str], str] = input,
    print_fn: Callable[..., Any] = print,
    mode: int | None = None,
) -> int:
    """Play a whole match in the terminal; returns the exit code (0, also on quit or EOF; 2 on a bad variant)."""
    if seed is None:
        seed = random.SystemRandom().randrange(10**9)
    settings = {"mode": mode} if (mode is not None and variant == "wuhu") else {}
    try:
        t = Table.new(variant, seed, settings, players=("You", "AI-1", "AI-2", "AI-3"))
    except EngineError as e:
        print_fn(e.message("en"))
        return 2
    rng = random.Random(f"local|{seed}")
    print_fn(f"mjbot local: {variant}, seed {seed}. Type the number of an action; q quits.")
    for e in t.start_events:
        line = render_event(e.for_seat(HUMAN), t)
        if line:
            print_fn(line)
    while t.phase != "over":
        waiting = t.awaited()
        if HUMAN in waiting:
            acts = t.legal_actions(HUMAN)
            if t.phase != "ended":
                print_fn(render_state(t))
            for i, a in enumerate(acts, 1):
                print_fn(f"  {i}) {_describe(a, t)}")
            try:
                raw = input_fn("> ")
            except (EOFError, KeyboardInterrupt):
                print_fn("bye")
                return 0
            raw = raw.strip().lower()
            if raw in ("q", "quit", "exit"):
                print_fn("bye")
                return 0
            if raw == "" and len(acts) == 1:
                raw = "1"
            if not raw.isdigit() or not 1 <= int(raw) <= len(acts):
                print_fn(f"type a number from 1 to {len(acts)}, or q to quit")
                continue
            a = acts[int(raw) - 1]
        else:
            s = waiting[0]
            la = t.legal_actions(s)
            a = la[0] if len(la) == 1 else choose(t.view(s), s, la, "normal", rng)
        for e in t.apply(a):
            line = render_event(e.for_seat(HUMAN), t)
            if line:
                print_fn(line)
    return 0
