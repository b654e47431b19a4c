"""Replay images: the table at one step of a replayed hand as one viewer may see it, and the whole hand animated.

``replay_scene(replay, step, viewer, ...)`` builds a :class:`ReplayScene` from :class:`engine.replay.HandReplay` (the
adapter from the engine's per-seat views to the scene types lives here, so render never imports the bot):

- the public table (:func:`render.views.table_scene_from_view` of the viewer's view: other seats as counts only);
- the viewer's own hand from THEIR view - or, with ``show_all`` (the hand is over and the server allows it), every
  seat's hand;
- a caption: step k/n, counted over the steps the viewer may see (``HandReplay.number``), and who did what (another
  seat's answer in a claim window is never described: the viewer never saw it, see ``HandReplay.visible_steps``;
  at the window's last answer the caption names what the window came to alone: ``describe_outcome``);
- with a :class:`engine.review.Review` of the viewer, at their decisions: their choice and the AI's, each with
  its shanten and 进张, and the loss and why when they differ; on the last step the review's summary.

``render_replay_step`` gives PNG bytes. ``render_replay_animation`` gives an animated GIF of every step the viewer
may see. GIF, not APNG: the frames are already mapped onto the theme's fixed 256-colour palette (``encode``) so GIF
loses nothing - tiles stay exactly as crisp as in the PNG - and every Discord client plays a GIF attachment, while
APNG attachments are shown as a still image in some clients. Pillow stores each frame as the rectangle that changed
since the previous one, so a step costs a few kB in either format (see ``benchmarks/bench_replay.py``). The layout
is fixed for the whole hand (the table is as tall as at the end), so unchanged parts never move.

Pace (:func:`frame_ms`): 0.9 s a step, 1.6 s for a claim or a kong, 2.5 s for the viewer's reviewed decisions,
2 s on the deal and 5 s on the result.

Over 600 lines on purpose: the step image, the review card and the animated hand share one scene adapter and one
layout; they change together.

"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from engine.errors import EngineError
from engine.review import Choice, Decision, Review
from engine.table import Action
from engine.tiles import tile_name, tile_zh
from text.tiles import tile_label

from . import fonts
from .common import (
    Theme,
    draw_text,
    encode,
    given,
    join_list,
    lang_of,
    named,
    palette_for,
    seat_label,
    theme_of,
    txt,
    wind_name,
)
from .hand import draw_hand
from .scene import HandScene, TableScene
from .table import WIDTH, draw_table
from .views import hand_scene_from_view, table_scene_from_view

if TYPE_CHECKING:
    from engine.replay import HandReplay, Step
    from engine.table import Table

HAND_W = 42  # tile width of the viewer's hand: its row of eight fits the 400 px image unscaled
ALL_HANDS_W = 34  # tile width when every hand is shown
MAX_UPLOAD = 10 * 1024 * 1024  # Discord's upload limit for a bot without boosts


@dataclass(frozen=True)
class ReplayScene:
    """One replay image. ``hands``: (label, hand) pairs - the viewer's own hand, or every hand once shown.
    ``review``: (label, text, good) lines; ``good`` None = neutral, True = agrees with the AI, False = differs."""

    table: TableScene
    hands: tuple[tuple[str, HandScene], ...]
    title: str
    caption: str
    step: int
    n: int
    review: tuple[tuple[str, str, bool | None], ...] = ()
    caption_lines: tuple[str, ...] = ()
    """The caption as drawn (:func:`caption_layout`: names shortened, never the action); empty: from ``caption``."""
    caption_size: int = 22
    number: int = 0
    """The step as the viewer counts them (``HandReplay.number``): what the caption and the progress bar show."""
    total: int = 0


# ------------------------------------------------------------------------------------------------ captions


def _variant(key: str, lang: str) -> str:
    """The variant's name (the registered variant's own names; the key for an unknown one)."""
    from engine.variants import get_variant

    try:
        v = get_variant(key)
    except Exception:  # noqa: BLE001 - a caption shows the key rather than fail
        return key
    return named(v.zh, v.en, lang)


StepNumber = Callable[[int], int]
"""Writes a step of the hand as the replay numbers it for the viewer (:func:`review_numbers`); the review keeps the
raw step (``Decision.step``) and maps it only where a number is written. ``None``: the raw step."""


def review_numbers(replay: HandReplay, seat: int | None, *, show_all: bool = False) -> StepNumber:
    """The step numbers of ``seat``'s review as the hand's replay shows them to ``seat`` (:meth:`HandReplay.number`):
    with every hand shown the raw step, else counted over the steps the seat may see (its own decisions are always
    among them), so "the most at step 23" is the replay's "Step 23/70" and tells nothing the replay hides."""
    return lambda k: replay.number(k, seat, show_all=show_all)[0]


def _shown(number: StepNumber | None, k: int) -> int:
    return k if number is None else number(k)


def _steps(number: StepNumber | None, ks: Iterable[int], lang: str) -> str:
    return join_list((str(_shown(number, k)) for k in ks), lang)


def review_summary(review: Review, lang: str = "zh", number: StepNumber | None = None) -> str:
    """"N decisions, M where the AI disagrees, they cost about X 子, the most at step K (Y 子)" in the player's
    language; K written by ``number`` (:func:`review_numbers`).

    >>> from engine.table import Action
    >>> r = Review(0, (Decision(3, 0, Choice(Action("discard", 0, 1), 2, 20, ev=1.5),
    ...                          Choice(Action("discard", 0, 9), 1, 8, ev=2.75), reason="faster"),))
    >>> review_summary(r, "en")
    '1 decision, 1 where the AI disagrees; they cost about 1.3 子, the most at step 3 (1.3 子)'
    >>> review_summary(r, "zh"), review_summary(r, "zh-TW")
    ('共 1 次决策，AI 有 1 次选得不同，约损失 1.3 子，差别最大在第 3 步（1.3 子）', '共 1 次決策，AI 有 1 次選得不同，約損失 1.3 子，差別最大在第 3 步（1.3 子）')
    """
    lang = lang_of(lang)
    n, m, b = len(review.decisions), review.disagreements, review.biggest
    out = counts_line(n, m, review.costly, lang)
    if b is not None:
        out = txt("render.review.biggest", lang, summary=out, cost=_zi(review.cost), step=_shown(number, b.step),
                  loss=_zi(b.cost))
    if review.by_ai:  # the moves the AI made for the player (away, 托管), not reviewed
        out += "\n" + txt("render.review.by_ai", lang, n=review.by_ai)
    return out


def counts_line(n: int, m: int, k: int, lang: str = "zh") -> str:
    """"N decisions, M where the AI disagrees" and, when some of those cost nothing, how many did ("K of them at a
    loss").

    >>> counts_line(17, 8, 5, "en"), counts_line(17, 8, 8, "zh")
    ('17 decisions, 8 where the AI disagrees, 5 at a loss', '共 17 次决策，AI 有 8 次选得不同')
    """
    lang = lang_of(lang)
    out = txt("render.review.summary_one" if n == 1 else "render.review.summary", lang, n=n, m=m)
    return txt("render.review.summary_costly", lang, counts=out, k=k) if k < m else out


def _zi(x: float) -> str:
    """子 to one decimal (never "-0.0").

    >>> _zi(3.04), _zi(-0.25), _zi(12.0), _zi(-0.01)
    ('3.0', '-0.2', '12.0', '0.0')
    """
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


def _pct(x: float) -> str:
    return f"{round(100 * x)}"


def describe_priced(c: Choice, lang: str = "zh", timeout: bool = False) -> str:
    """A choice with its expected 子 (the strong AI's evaluator), for the review card; ``timeout``: the table acted
    for the player when their time ran out (said so).

    >>> from engine.table import Action
    >>> describe_priced(Choice(Action("discard", 0, 4), 1, 24, ev=3.21), "zh")
    '打五万 · 期望 3.2 子'
    >>> describe_priced(Choice(Action("pass", 0), 1, 24, ev=-0.5), "en")
    'pass · -0.5 子 expected'
    >>> describe_priced(Choice(Action("discard", 0, 4), 1, 24, ev=3.21), "zh", timeout=True)
    '打五万（超时） · 期望 3.2 子'
    """
    lang = lang_of(lang)
    what = _action_words(c.action, lang, c.rob)
    if timeout:
        what = txt("render.replay.timed_out", lang, text=what)
    return txt("render.review.priced", lang, what=what, ev=_zi(c.ev))


def threat_name(d: Decision, lang: str = "zh", names: Sequence[str] | None = None,
                winds: Sequence[int] | None = None) -> str:
    """The seat a risky choice deals in to, as the card names it: its wind (or seat), its player's name, what shows
    the danger (an alarm, a line of one suit)."""
    seat = d.played.threat or 0
    who = wind_name(winds[seat], lang) if winds is not None else seat_label(seat, lang)
    if names is not None:
        who = f"{who} {names[seat]}"
    if d.threat_why:
        who += txt(f"render.review.threat.{d.threat_why}", lang)
    return who


def describe_reason(d: Decision, lang: str = "zh", names: Sequence[str] | None = None,
                    winds: Sequence[int] | None = None, tile: Callable[[int], str] | None = None) -> str:
    """Why the AI's choice is worth more, in words: a faster hand (how far each is from ready when that differs, else
    the useful tiles when the AI's leaves more; the chances to win), a bigger hand (the item it aims at, the values
    when won), a safer tile (against whom and what shows the danger: an alarm, a line of one suit; the chances to
    deal in and what a deal-in costs beyond what the player would lose anyway, the evaluator's cost of it: what it
    pays, less what that seat's self-drawn win would take anyway; and the hand it ends when that is worth more) or,
    in Chizhou, an honour that would feed another seat's 花. "" when they
    agree. ``tile`` writes a tile kind where the reason names one (default: the card's words, 六万 / 6m).

    >>> from engine.table import Action
    >>> you = Choice(Action("discard", 0, 4), 1, 24, ev=1.0, win=0.2, deal_in=0.12, danger=2.0, threat=2)
    >>> ai = Choice(Action("discard", 0, 13), 1, 20, ev=2.5, win=0.25, deal_in=0.01, danger=0.1)
    >>> describe_reason(Decision(4, 0, you, ai, reason="safer", threat_why="alarm"), "en", ["A", "B", "C", "D"],
    ...                 [0, 1, 2, 3])
    'safer against W C (alarm, 报警): 12% to deal in against 1%; a deal-in would cost you about 16.7 子 more than you would lose anyway'
    >>> describe_reason(Decision(4, 0, you, ai, reason="faster"), "zh")
    '更快的牌：和牌机会 25% 对 20%'
    >>> ready = Choice(Action("discard", 0, 13), 0, 6, ev=2.5, win=0.25)
    >>> describe_reason(Decision(4, 0, you, ready, reason="faster"), "zh")
    '更快的牌：听牌 对 1 向听，和牌机会 25% 对 20%'
    """
    lang = lang_of(lang)
    p, a = d.played, d.ai
    if d.agrees or not d.reason:
        return ""
    if d.reason == "win" and not d.costly:
        # the player's choice priced as high as the win (Chizhou: 1 子 won on a discard against the all-pungs plan,
        # 对对胡): the AI takes every win all the same; said plainly, with the prices, and not charged
        item = txt(f"render.review.item.{_variant_of_item(d.item, d.variant)}", lang) if d.item else ""
        return txt("render.review.why_win_even" if item else "render.review.why_win_even_plain", lang, ai=_zi(a.ev),
                   you=_zi(p.ev), item=item, chance=_pct(p.win), value=_zi(p.value))
    if d.reason == "win":  # robbing a kong (抢杠) is said so
        return txt("render.review.why_rob" if a.rob else "render.review.why_win", lang, ai=_zi(a.value))
    if d.reason == "safer" and p.threat is not None:
        who = threat_name(d, lang, names, winds)
        cost = p.danger / p.deal_in if p.deal_in > 0 else 0.0
        ends = p.win * p.value
        # ``cost`` is not what a deal-in pays: it is what it pays beyond what the player would lose anyway
        if ends > cost:  # the hand a deal-in ends is most of its cost (in Wuhu, a plain deal-in costs little more)
            return txt("render.review.why_safer_ends", lang, who=who, you=_pct(p.deal_in), ai=_pct(a.deal_in),
                       cost=_zi(cost), ends=_zi(ends))
        return txt("render.review.why_safer", lang, who=who, you=_pct(p.deal_in), ai=_pct(a.deal_in), cost=_zi(cost))
    if d.reason == "let_go" and a.action.tile is not None:
        return txt("render.review.why_let_go", lang, tile=tile(a.action.tile) if tile else _tile(a.action.tile, lang))
    if d.reason == "feed" and p.action.tile is not None:
        return txt("render.review.why_feed", lang, tile=tile(p.action.tile) if tile else _tile(p.action.tile, lang),
                   n=d.feed)
    if d.reason == "bigger":
        if d.item == "menqing":  # Hefei: the pass keeps 门清, a pung short of ready gives it up
            if a.value > p.value:
                return txt("render.review.why_menqing", lang, ai=_zi(a.value), you=_zi(p.value))
            return txt("render.review.why_menqing_plain", lang)
        if d.item:
            item = txt(f"render.review.item.{_variant_of_item(d.item, d.variant)}", lang)
            return txt("render.review.why_bigger", lang, item=item, ai=_zi(a.value), you=_zi(p.value))
        if d.gains:  # two ready hands: what the AI's win scores that the player's does not
            items = join_list((named(i.zh, i.en, lang) for i in d.gains), lang)
            return txt("render.review.why_bigger", lang, item=items, ai=_zi(a.value), you=_zi(p.value))
        return txt("render.review.why_bigger_plain", lang, ai=_zi(a.value), you=_zi(p.value))
    if d.reason == "faster":
        if d.gate:  # the player's shape is nearer, but short of what a legal win needs (八支, 花)
            # "你的牌形 1 向听，": the shanten before a comma takes no space after it
            return txt(f"render.review.why_faster_{d.gate}", lang, you_sh=_shanten_mid(p.shanten, lang).rstrip(),
                       ai=_pct(a.win), you=_pct(p.win))
        if 0 <= a.shanten < p.shanten and _legal(a) and _legal(p):
            # (a shape ready or nearer that a legal win is as far from as the player's, short of 八支 or 花, is not
            # called nearer: the chances say how much faster it is)
            return txt("render.review.why_faster_shanten", lang, ai_sh=_shanten(a.shanten, lang),
                       you_sh=_shanten(p.shanten, lang), ai=_pct(a.win), you=_pct(p.win))
        if 0 <= p.shanten < a.shanten:  # the AI's hand is further from ready but has many more tiles to get there
            return txt("render.review.why_faster_wider", lang, ai_sh=_shanten(a.shanten, lang), ai_u=a.useful,
                       you_sh=_shanten_mid(p.shanten, lang), you_u=p.useful, ai=_pct(a.win), you=_pct(p.win))
        if a.shanten == p.shanten and a.useful > p.useful:
            return txt("render.review.why_faster_useful", lang, ai_u=a.useful, you_u=p.useful, ai=_pct(a.win),
                       you=_pct(p.win))
        return txt("render.review.why_faster", lang, ai=_pct(a.win), you=_pct(p.win))
    if a.useful > p.useful and a.shanten == p.shanten and a.distance == p.distance:
        # (useful tiles compared only between hands as far from ready: a hand a step further has more of them)
        return txt("render.review.why_shape", lang, ai=a.useful, you=p.useful)
    return txt("render.review.why_shape_plain", lang)


def _legal(c: Choice) -> bool:
    """Whether the choice's shanten is also its distance to a legal win (not short of 八支 or 花, no plan beside)."""
    return c.plan != "" or c.distance <= c.shanten


def _shanten(n: int, lang: str) -> str:
    return txt("render.review.ready", lang) if n == 0 else txt("render.review.shanten", lang, n=n)


def _shanten_mid(n: int, lang: str) -> str:
    """The shanten inside a Chinese sentence: a number set off by spaces ("你的牌形 1 向听，"), a word not ("你的牌形听牌，")."""
    w = _shanten(n, lang)
    return f" {w} " if lang != "en" and w[:1].isdigit() else w


def _variant_of_item(item: str, variant: str = "") -> str:
    """The catalogue's name of a plan's item (``render.review.item.<this>``): the decision's variant's own when it
    aims at that variant's plan (Hefei and Chizhou both score 清一色 as ``qingyise``: x3 in Hefei, a 蜡子 in
    Chizhou), else the first variant whose plan it is."""
    from engine.strong.evaluator import HUN_ITEMS, PLAN_ITEMS, PUNGS_ITEMS

    if item in HUN_ITEMS.values():  # Wuhu's one suit and 红中 (混一色): render.review.item.wuhu_hun
        return next(f"{v}_hun" for v, code in HUN_ITEMS.items() if code == item)
    if item in PUNGS_ITEMS.values():  # Chizhou's all pungs (对对胡): render.review.item.chizhou_pungs
        return next(f"{v}_pungs" for v, code in PUNGS_ITEMS.items() if code == item)
    if PLAN_ITEMS.get(variant) == item:
        return variant
    return next((v for v, code in PLAN_ITEMS.items() if code == item), "wuhu")


def _action_words(a: Action, lang: str, rob: bool = False) -> str:
    if a.type == "win" and rob:  # the win robs a kong: 抢杠
        return txt("render.review.rob", lang)
    if a.type == "chi" and a.tile is not None:
        tile = tile_name(a.tile) if lang == "en" else given(
            tile_zh(a.tile)[0] + tile_zh(a.tile + 1)[0] + tile_zh(a.tile + 2), lang)
    else:
        tile = _tile(a.tile, lang)
    key = f"render.review.{a.type}"
    return txt(key, lang, tile=tile) if key in _REVIEW_ACTIONS else a.describe(lang)


def describe_choice(c: Choice, lang: str = "zh", variant: str = "") -> str:
    """A choice for a caption: the action, its shanten and 进张 (useful tiles). A hand ready in shape that cannot
    win yet (short of 八支, or of 花 in Chizhou: the evaluator's distance is further) is not called ready.

    >>> from engine.table import Action
    >>> describe_choice(Choice(Action("discard", 0, 4), 1, 24), "zh")
    '打五万 · 1 向听 · 进张 24'
    >>> describe_choice(Choice(Action("pung", 0, 31), 0, 8), "en")
    'pung White · ready · 8 useful'
    >>> describe_choice(Choice(Action("pung", 0, 20), 0, 4, distance=1), "zh", "wuhu")
    '碰三条 · 听牌形（不够八支） · 进张 4'
    >>> describe_choice(Choice(Action("win", 0), -1, 0), "zh-TW")
    '和牌'
    """
    lang = lang_of(lang)
    what = _action_words(c.action, lang, c.rob)
    if c.shanten < 0:
        return what
    if c.shanten == 0 and not _legal(c) and variant:
        sh = txt(f"render.review.ready_shape_{_gate(variant)}", lang)
    else:
        sh = txt("render.review.ready", lang) if c.shanten == 0 else txt("render.review.shanten", lang, n=c.shanten)
    return txt("render.review.choice", lang, what=what, shanten=sh, useful=c.useful)


def _gate(variant: str) -> str:
    """What a legal win needs beyond its shape in ``variant``: ``hua`` (Chizhou's 花) or ``bazhi`` (八支)."""
    from engine.variants import get_variant

    return "hua" if get_variant(variant).ai.hua_gate else "bazhi"


_REVIEW_ACTIONS = frozenset(f"render.review.{t}" for t in ("discard", "pung", "kong", "chi", "pass", "win"))


def _tile(k: int | None, lang: str) -> str:
    """A tile as the live table names it (:func:`text.tiles.tile_label`: 五万 / 5m, 中 / Red).

    >>> _tile(33, "en"), _tile(27, "en"), _tile(4, "en"), _tile(33, "zh-TW")
    ('Red', 'East', '5m', '中')
    """
    if k is None:
        return ""
    return tile_label(k, lang)


def _who(names: Sequence[str], winds: Sequence[int], seat: int, lang: str) -> str:
    return f"{wind_name(winds[seat], lang)} {names[seat]}"


def describe_step(step: Step, names: Sequence[str], winds: Sequence[int], lang: str = "zh") -> str:
    """Who did what at ``step``, in the viewer's language (the caller leaves out what the viewer never saw); a move
    the AI made for an away player (托管, away after timeouts, replaced: ``Step.by_ai``) is marked "（托管）".

    >>> from engine.table import Action
    >>> from engine.replay import Step
    >>> s = Step(3, 1, Action("discard", 1, 4), False, False, True, ())
    >>> describe_step(s, ["A", "B", "C", "D"], [3, 0, 1, 2], "zh"), describe_step(s, "ABCD", [3, 0, 1, 2], "en")
    ('东 B 打出 五万', 'E B discards 5m')
    """
    lang = lang_of(lang)
    a = step.action
    who = _who(names, winds, step.seat, lang)
    ev = {e.type: e for e in step.events}
    t = _tile(a.tile, lang)
    # a claim answered in a window that has not taken effect (yet: the window's last answer settles it; or never: a
    # win or a stronger claim took the tile) is said as called, not as done
    called = step.window and not any(e.type == a.type and e.seat == step.seat for e in step.events)
    if a.type == "discard":
        out = txt("render.replay.discard", lang, who=who, tile=t)
    elif a.type in ("pung", "kong") and called:
        out = txt(f"render.replay.{a.type}_called", lang, who=who, tile=t)
    elif a.type == "chi" and called:
        assert a.tile is not None
        out = txt("render.replay.chi_called", lang, who=who, run=_run(a.tile, lang))
    elif a.type == "pung":
        out = txt("render.replay.pung", lang, who=who, tile=t)
    elif a.type == "chi":
        assert a.tile is not None
        out = txt("render.replay.chi", lang, who=who, run=_run(a.tile, lang))
    elif a.type == "kong":
        kind = ev["kong"].data.get("kind") if "kong" in ev else ("added" if "add_kong" in ev else "")
        if kind == "concealed":
            out = txt("render.replay.kong_concealed", lang, who=who, tile=t)
        elif kind == "added" or "add_kong" in ev:
            out = txt("render.replay.kong_added", lang, who=who, tile=t)
        else:
            out = txt("render.replay.kong", lang, who=who, tile=t)
    elif a.type == "win":  # the win(s) the step brought about (several winners on one discard: each), after the call
        # when this one is not among them: awaiting another answer, or overruled (截胡: an earlier seat's win)
        said = (txt("render.replay.win_called", lang, who=who) if called else "",
                describe_outcome(step, names, winds, lang))
        out = " · ".join(x for x in said if x)
    elif a.type == "pass" and not step.window:
        laid = _tile(_kind(ev["lay_aside"].data["tile"]), lang) if "lay_aside" in ev else ""
        out = txt("render.replay.lay_aside", lang, who=who, tile=laid)
    elif a.type == "pass":
        out = txt("render.replay.pass", lang, who=who)
    else:
        out = txt("render.replay.action", lang, who=who, what=a.describe(lang))
    if step.timeout:
        out = txt("render.replay.timed_out", lang, text=out)
    if step.by_ai:
        out = txt("render.replay.by_ai", lang, text=out)
    if "hand_end" in ev and ev["hand_end"].data.get("draw"):
        out = txt("render.replay.drawn", lang, text=out)
    if step.window and step.takes() and a.type != "win" and called:
        # the window's last answer, and another seat's claim or win took the tile: what the window came to with it
        out = " · ".join([out, describe_outcome(step, names, winds, lang)])
    return out


def _run(low: int, lang: str) -> str:
    """A chi's run from its lowest tile: "3p-4p-5p", "三四五筒"."""
    rk = [low, low + 1, low + 2]
    if lang == "en":
        return "-".join(tile_name(x) for x in rk)
    return given(f"{tile_zh(rk[0])[0]}{tile_zh(rk[1])[0]}{tile_zh(rk[2])}", lang)


def _win_words(who: str, w: Mapping[str, Any], names: Sequence[str], winds: Sequence[int], lang: str) -> str:
    """``who`` wins, as the ``win`` event's data ``w`` says (self-drawn, robbing a kong, on whose discard)."""
    if w.get("self_drawn", False):
        return txt("render.replay.win_self", lang, who=who)
    if w.get("rob_kong"):
        return txt("render.replay.win_rob", lang, who=who, from_=_who(names, winds, w["from"], lang))
    f = _who(names, winds, w["from"], lang) if w.get("from") is not None else "?"
    return txt("render.replay.win_discard", lang, who=who, from_=f)


def describe_outcome(step: Step, names: Sequence[str], winds: Sequence[int], lang: str = "zh") -> str:
    """What a claim window's last answer (or the hand's last step) brought about, without naming the answer: who
    won (on whose discard), who took the tile by a pung, a kong or a chi, or that the hand is drawn; "" when it
    brought about none of these. The caption of a step the viewer may not see named (another seat's answer in a
    claim window, ``HandReplay.names_action``): the resolution is public, the answers are not.

    >>> from engine.table import Action, Event
    >>> from engine.replay import Step
    >>> s = Step(9, 2, Action("pass", 2), False, True, False, (Event("hand_end", None, {"draw": True}),))
    >>> describe_outcome(s, "ABCD", [0, 1, 2, 3], "en"), describe_outcome(s, "ABCD", [0, 1, 2, 3], "zh")
    ('the hand is drawn', '流局')
    >>> w = Step(9, 2, Action("pass", 2), False, True, False, (Event("win", 1, {"from": 3}),))
    >>> describe_outcome(w, "ABCD", [0, 1, 2, 3], "en")
    "S B wins on N D's discard"
    >>> p = Step(9, 2, Action("pung", 2, 10), False, True, False, (Event("pung", 0, {"tile": "2p", "from": 3}),))
    >>> describe_outcome(p, "ABCD", [0, 1, 2, 3], "en")
    'E A pungs 2p'
    """
    lang = lang_of(lang)
    wins = [_win_words(_who(names, winds, e.seat, lang), e.data, names, winds, lang)
            for e in step.events if e.type == "win" and e.seat is not None]
    if wins:
        return " · ".join(wins)
    for e in step.events:
        if e.seat is None:
            continue
        who = _who(names, winds, e.seat, lang)
        if e.type == "pung":
            return txt("render.replay.pung", lang, who=who, tile=_tile(_kind(e.data["tile"]), lang))
        if e.type == "chi":
            return txt("render.replay.chi", lang, who=who, run=_run(_kind(e.data["tiles"][0]), lang))
        if e.type == "kong" and e.data.get("kind") == "claimed":
            return txt("render.replay.kong", lang, who=who, tile=_tile(_kind(e.data["tile"]), lang))
    if any(e.type == "hand_end" for e in step.events):
        return txt("render.replay.drawn_alone", lang)
    return ""


def _kind(name: str) -> int:
    from engine.table.actions import parse_tile

    return parse_tile(name)


def _review_lines(d: Decision, lang: str, names: Sequence[str] | None = None, winds: Sequence[int] | None = None
                  ) -> tuple[tuple[str, str, bool | None], ...]:
    """The review at the viewer's decision: their choice and the AI's (shanten and 进张), and under them, when the
    choices differ, the loss and why (as the review card words it) or that the player's was no worse."""
    you = txt("render.replay.you", lang)
    ai = txt("render.replay.ai", lang)
    played = describe_choice(d.played, lang, d.variant)
    if d.timeout:  # the table played it, whatever it cost
        played = txt("render.replay.timed_out", lang, text=played)
    if d.agrees:
        return ((you, played, None),
                (ai, txt("render.replay.same_choice", lang), True))
    if not d.costly:  # a choice worth as much as the AI's
        note = txt("render.review.no_worse", lang)
        if d.reason in EXPLAINED:  # the AI lets a tile go for the table's sake, or takes a win priced no higher
            note = txt("render.review.no_loss_why", lang, why=describe_reason(d, lang, names, winds))
        return ((you, played, None), (ai, describe_choice(d.ai, lang, d.variant), True), ("", note, None))
    why = txt("render.review.loss", lang, loss=_zi(d.cost)) + " · " + describe_reason(d, lang, names, winds)
    return ((you, played, False),
            (ai, describe_choice(d.ai, lang, d.variant), True),
            ("", why, None))


# ------------------------------------------------------------------------------------------------ scenes


def replay_scene(
    replay: HandReplay,
    step: int,
    viewer: int | None,
    *,
    lang: str = "zh",
    names: Sequence[str] | None = None,
    show_all: bool = False,
    review: Review | None = None,
    code: str | None = None,
    table: Table | None = None,
) -> ReplayScene:
    """The scene of ``step`` (0..n) for ``viewer`` (a chair, or None for a spectator: no hand at all).

    ``show_all``: show every seat's concealed tiles (only for a hand that is over and a server that allows it; the
    caller decides). ``review``: the viewer's review (its decisions are annotated). ``names``: display names per
    chair (default the table's player strings). ``code``: the replay code, shown in the title. ``table``: the table
    at ``step`` when the caller has it (:meth:`HandReplay.walk`), else it is rebuilt."""
    lang = lang_of(lang)
    if table is None:
        table = replay.table(step)
    if viewer is not None and viewer not in (0, 1, 2, 3):
        raise EngineError("bad_seat_number", seat=viewer)
    view: dict[str, Any] = dict(table.view(viewer))
    # the hand's own winds and dealer (after the last step the table has already moved them on)
    view["winds"], view["dealer"] = replay.winds, replay.dealer
    winning = _winning_tiles(replay) if step == replay.n else {}
    if names is not None:
        view["players"] = [str(x) for x in names]
    names_ = list(view["players"])
    winds = list(view["winds"])
    hand_label = txt("render.replay.hand_no", lang, n=replay.hand_no + 1)
    table_title = f"{_variant(replay.variant, lang)} {hand_label}"
    title = txt("render.replay.title", lang) + (f" {code}" if code else "") + f" · {table_title}"
    tscene = table_scene_from_view(view, title=table_title, lang=lang, viewer=viewer)
    if step == replay.n:
        tscene = replace(tscene, turn=None)
    hands: list[tuple[str, HandScene]] = []
    dec = review.at(step) if review is not None and viewer is not None and review.seat == viewer else None
    if show_all:
        all_hands = replay.hands(step, table)
        drawn = replay.drawn(step, table)
        order = [0, 1, 2, 3] if viewer is None else [(viewer + i) % 4 for i in range(4)]
        for s in order:
            conc = list(all_hands[s])
            d = drawn[s] if drawn[s] is not None and drawn[s] in conc else None
            if d is not None:
                conc.remove(d)
            elif s in winning:  # won on a discard: the winning tile set apart
                d = winning[s]
            melds = tscene.seats[s].melds
            hands.append((_who(names_, winds, s, lang),
                          HandScene(concealed=tuple(conc), melds=melds, drawn=d, seat=s, names=tuple(names_),
                                    winds=tuple(winds))))
    elif viewer is not None:
        highlight: tuple[int, ...] = ()
        if dec is not None and not dec.agrees and dec.ai.action.tile is not None:
            highlight = (dec.ai.action.tile,)
        hs = hand_scene_from_view(view, highlight=highlight if step < replay.n else ())
        if viewer in winning and hs.drawn is None:
            hs = replace(hs, drawn=winning[viewer])
        hands.append((txt("render.replay.your_hand", lang) + f" · {_who(names_, winds, viewer, lang)}", hs))
    named = replay.names_action(step, viewer, show_all=show_all)
    number, total = replay.number(step, viewer, show_all=show_all)

    def captioned(ns: Sequence[str]) -> str:
        head = txt("render.replay.step_of", lang, step=number, n=total)
        if step == 0:
            return head + " · " + txt("render.replay.the_deal", lang)
        if named:
            return head + " · " + describe_step(replay.steps[step - 1], ns, winds, lang)
        # another seat's answer in a claim window: what the window came to is public (at its last answer), the
        # answer is not; nothing at all for one that is not the window's last (the bot never draws it:
        # HandReplay.nearest_visible)
        out = describe_outcome(replay.steps[step - 1], ns, winds, lang) if replay.resolves(step) else ""
        return head + " · " + out if out else head

    caption = captioned(names_)
    caption_lines, caption_size = caption_layout(captioned, names_)
    lines: tuple[tuple[str, str, bool | None], ...] = ()
    if review is not None and step == replay.n and viewer is not None and review.seat == viewer:
        # the hand's last step: the review's summary, also when it was the player's own win (under the decision
        # when the AI would have chosen otherwise)
        lines = (_review_lines(dec, lang, names_, winds) if dec is not None and not dec.agrees else ()) + (
            (txt("render.replay.review", lang),
             review_summary(review, lang, review_numbers(replay, viewer, show_all=show_all)), None),)
    elif dec is not None:
        lines = _review_lines(dec, lang, names_, winds)
    elif (review is not None and viewer is not None and review.seat == viewer and step > 0
          and replay.steps[step - 1].by_ai and replay.steps[step - 1].seat == viewer):
        lines = (("", txt("render.replay.by_ai_line", lang), None),)  # the AI's move for the player: not reviewed
    return ReplayScene(table=tscene, hands=tuple(hands), title=title, caption=caption, step=step, n=replay.n,
                       review=lines, caption_lines=caption_lines, caption_size=caption_size,
                       number=number, total=total)


CAPTION_W = WIDTH - 2 * 12 - 28  # the caption's room in its panel
CAPTION_SIZE = 22  # one line: 22 px down to 18
CAPTION_TWO = 20  # two lines: 20 px down to 16
CAPTION_MIN = 16


def caption_layout(build: Callable[[Sequence[str]], str], names: Sequence[str]) -> tuple[tuple[str, ...], int]:
    """How a step's caption is set (``build(names)`` writes it): on one line at 22 px down to 18, else on two at
    20 px down to 16; past that the longest names (only they) are shortened with "…" until it takes two lines (three
at 15 px when even the words alone need them). The
    step's action and its outcome ("· the hand is drawn", "(AI, 托管)", whose discard a win was on) are never cut:
    a caption of one line cut them first, as the words that matter come last.

    >>> lines, size = caption_layout(lambda ns: f"Step 66/66 · W {ns[0]} lays 3s aside (AI, 托管) · the hand is drawn",
    ...                              ["Christopher Johnson the Third of His Name"])
    >>> lines, size
    (('Step 66/66 · W Christopher Johnson the…', 'lays 3s aside (AI, 托管) · the hand is drawn'), 16)
    """
    names = [fonts.clean(n) for n in names]
    text = fonts.clean(build(names))
    one, size = set_lines(text, CAPTION_SIZE, CAPTION_W, max_lines=1, min_size=CAPTION_SIZE - 4)
    if len(one) == 1:
        return tuple(one), size
    for n in range(max((len(x) for x in names), default=0), 0, -1):
        short = [x if len(x) <= n else x[:n].rstrip() + "…" for x in names]
        text = fonts.clean(build(short))
        two, size = set_lines(text, CAPTION_TWO, CAPTION_W, max_lines=2, min_size=CAPTION_MIN)
        if len(two) <= 2:
            return tuple(two), size
    # the words alone take more than two lines (an AI's added kong that timed out as the hand is drawn): three
    three, size = set_lines(text, CAPTION_MIN - 1, CAPTION_W, max_lines=3, min_size=CAPTION_MIN - 1)
    return tuple(three), size


def _winning_tiles(replay: HandReplay) -> dict[int, int]:
    """Winners of the hand and their winning tile (a tile won on a discard is not in the hand's counts)."""
    res: Mapping[str, Any] = replay.result or {}
    return {int(w["seat"]): _kind(w["tile"]) for w in res.get("winners", [])}


# ------------------------------------------------------------------------------------------------ drawing


TOP_H = 134  # the caption panel above the table: the title and two caption lines (the table brings its own margin)


def draw_replay(scene: ReplayScene, theme: str | Theme = "dark", lang: str = "zh", *,
                table_height: int | None = None, review_rows: int | None = None,
                review_height: int | None = None) -> Image.Image:
    """The replay image. ``table_height`` / ``review_rows`` (lines of one row each) / ``review_height``: reserve that
    much room (animations keep one layout for every frame)."""
    th = theme_of(theme)
    lang = lang_of(lang)
    table_img = draw_table(scene.table, th, lang)
    tw = ALL_HANDS_W if len(scene.hands) > 1 else HAND_W
    hand_imgs = [(label, draw_hand(h, th, lang, tw, bg=th.panel)) for label, h in scene.hands]
    margin = 12
    top_h = TOP_H
    tab_h = max(table_img.height, table_height or 0)
    label_h = 30
    hands_h = sum(label_h + im.height + 6 for _, im in hand_imgs) + (10 if hand_imgs else 0)
    block, review_h = review_block(scene.review)
    if review_rows:
        review_h = max(review_h, 16 + 34 * review_rows)
    review_h = max(review_h, review_height or 0)
    H = top_h + tab_h + hands_h + review_h + margin
    img = Image.new("RGB", (WIDTH, H), th.bg)
    d = ImageDraw.Draw(img)
    # caption panel
    d.rounded_rectangle((margin, margin, WIDTH - margin, top_h - margin - 2), radius=10, fill=th.panel)
    draw_text(img, (margin + 14, margin + 6), scene.title, 15, th.subtext, bold=False, max_width=WIDTH - 2 * margin - 28)
    bar_y = top_h - margin - 14
    lines, size = scene.caption_lines, scene.caption_size
    if not lines:
        lines, size = caption_layout(lambda ns: scene.caption, ())
    pitch = size + (4 if len(lines) > 2 else 6)
    block_h = pitch * (len(lines) - 1) + size * 1.45  # (a line's box: ascender to descender)
    cy = margin + 28 + (bar_y - 4 - (margin + 28) - block_h) / 2  # centred between the title and the bar
    for i, line in enumerate(lines):
        draw_text(img, (margin + 14, cy + i * pitch), line, size, th.text, max_width=CAPTION_W)
    # progress bar
    x0, x1 = margin + 14, WIDTH - margin - 14
    d.rounded_rectangle((x0, bar_y, x1, bar_y + 4), radius=2, fill=th.panel_hi)
    if scene.total:
        d.rounded_rectangle((x0, bar_y, x0 + (x1 - x0) * scene.number / scene.total, bar_y + 4), radius=2, fill=th.accent)
    img.paste(table_img, (0, top_h - margin))
    y = top_h - margin + tab_h
    if hand_imgs:
        d.rounded_rectangle((margin, y, WIDTH - margin, y + hands_h - 4), radius=10, fill=th.panel)
        y += 6
        for label, im in hand_imgs:
            draw_text(img, (margin + 14, y + 4), label, 16, th.subtext, max_width=WIDTH - 2 * margin - 28)
            y += label_h
            if im.width > WIDTH - 2 * margin:
                im = im.resize((WIDTH - 2 * margin, round(im.height * (WIDTH - 2 * margin) / im.width)),
                               Image.Resampling.LANCZOS)
            img.paste(im, (margin + 2, y))
            y += im.height + 6
        y += 8
    if scene.review:  # (an animation frame without review lines keeps the room, empty)
        d.rounded_rectangle((margin, y, WIDTH - margin, y + review_h - 4), radius=10, fill=th.panel)
        colours = {"accent": th.accent, "text": th.text, "good": th.plus, "bad": th.minus, "sub": th.subtext}
        for t in block:
            draw_text(img, (t.x, y + t.y), t.text, t.size, colours[t.role], bold=t.bold)
    return img


def review_block(lines: Sequence[tuple[str, str, bool | None]]) -> tuple[list[CardText], int]:
    """The review lines of a replay image as drawn (y from the top of their panel) and the panel's height: a labelled
    line ("You", "AI") has its text beside the label, shrunk to fit down to :data:`LINE_MIN_SIZE`, wrapped past
    that; a line without a label (the reason of a costly choice) runs the image's width in smaller,
    grey type."""
    if not lines:
        return [], 0
    margin = 12
    x0 = margin + 14
    full = WIDTH - 2 * margin - 28
    out: list[CardText] = []
    y = 8
    for label, text, good in lines:
        if not label:
            set_, size = set_lines(text, 17, full, bold=False, max_lines=3)
            for i, line in enumerate(set_):
                out.append(CardText(x0, y + 2 + i * 23, line, size, "sub", False))
            y += 8 + 23 * len(set_)
            continue
        role = "text" if good is None else ("good" if good else "bad")
        lw = round(fonts.text_width(label, fonts.text_font(label, 19)))
        out.append(CardText(x0, y + 4, label, 19, "accent"))
        x = x0 + max(lw, 40) + 12
        set_, size = set_lines(text, 19, WIDTH - margin - 14 - x, max_lines=1)
        for i, line in enumerate(set_):
            out.append(CardText(x, y + 4 + i * 26, line, size, role))
        y += 34 + 26 * (len(set_) - 1)
    return out, y + 8


def render_replay(scene: ReplayScene, theme: str | Theme = "dark", lang: str = "zh") -> bytes:
    """PNG bytes of a replay scene."""
    return encode(draw_replay(scene, theme, lang), theme)


def render_replay_step(replay: HandReplay, step: int, viewer: int | None, *, theme: str | Theme = "dark",
                       lang: str = "zh", **kw: Any) -> bytes:
    """PNG bytes of ``step`` for ``viewer`` (keywords as :func:`replay_scene`)."""
    return render_replay(replay_scene(replay, step, viewer, lang=lang, **kw), theme, lang)


# ------------------------------------------------------------------------------------------------ review card

REVIEW_ROW_H = 96  # a disagreement: the player's choice, the AI's under it, a one-line reason under that
REVIEW_W = 480  # the review card: lines of text, as wide as the score card (the replay image is the table's width)
REVIEW_MAX_ROWS = 5
"""The costliest disagreements the hand's card lists, as the match review does (five): with eight, a card of long
reasons was 1,410 px tall on the 480 px card (1,175 on a 400 px phone, two screens and more); with five the worst real
cards stay near a screen. The rest are summed on one line (their total stays in the card's head) that names their
steps and the replay button that shows each of them with the same words."""
WHY_SIZE = 17  # the reason's text: 14 px on a ~400 px phone screen; wrapped over up to three lines, not shrunk
LINE_MIN_SIZE = 15  # no line of the card is set smaller (12.5 px on a phone); past two lines it wraps on
STEP_W = 92  # the step and loss column of a row


EXPLAINED = frozenset({"let_go", "win"})
"""The reasons of a disagreement at no loss that the card explains on a line of its own instead of calling it "no
worse": Chizhou's tile let go for the table's sake (a credit that ranks the AI's choice, not 子), and a win the AI
takes where the player's choice is priced as high (the all-pungs plan against a 1 子 win on a discard: the AI takes
every win, passing them measured about even in play)."""


def _listed(review: Review) -> list[Decision]:
    """The disagreements the card lists: the REVIEW_MAX_ROWS costliest of those that cost 子 (the earliest on a
    tie), in step order."""
    differ = [d for d in review.decisions if d.costly]
    top = sorted(differ, key=lambda d: (-d.cost, d.step))[:REVIEW_MAX_ROWS]
    return sorted(top, key=lambda d: d.step)


def review_rows(review: Review, lang: str = "zh", names: Sequence[str] | None = None,
                winds: Sequence[int] | None = None, number: StepNumber | None = None
                ) -> list[tuple[int, str, str, str, str]]:
    """The rows of the review card, one per listed disagreement (the costliest that cost 子, see
    :data:`REVIEW_MAX_ROWS`): (step as ``number`` writes it, the loss, the player's choice priced, the AI's choice
    priced, the reason in words). Exactly the text :func:`draw_review` draws."""
    lang = lang_of(lang)
    out = []
    for dec in _listed(review):
        out.append((_shown(number, dec.step), txt("render.review.loss", lang, loss=_zi(dec.cost)),
                    txt("render.replay.you_prefix", lang) + describe_priced(dec.played, lang, dec.timeout),
                    txt("render.replay.ai_prefix", lang) + describe_priced(dec.ai, lang),
                    describe_reason(dec, lang, names, winds)))
    return out


def review_head(review: Review, lang: str = "zh", number: StepNumber | None = None) -> tuple[str, str, str]:
    """The card's summary lines: what the decisions cost in 子, the counts (:func:`review_summary`, its step written
    by ``number``), and what the review judges on."""
    lang = lang_of(lang)
    if review.cost >= 0.05:
        cost = txt("render.review.cost_line", lang, cost=_zi(review.cost))
    elif not review.decisions and review.by_ai:  # the AI played the whole hand for the player (away, 托管)
        cost = txt("render.review.all_by_ai", lang)
    elif not review.decisions:  # the hand ended before the player had a choice to make (a 天胡, a win at once)
        cost = txt("render.review.no_decisions", lang)
    else:
        cost = txt("render.review.no_loss" if review.disagreements else "render.review.no_cost", lang)
    return cost, review_summary(review, lang, number), txt("render.review.visible_only", lang)


def review_rows_any(review: Review) -> bool:
    """Whether the card lists a priced row (then it says what "expected" means)."""
    return any(d.costly for d in review.decisions)


def review_foot(review: Review, lang: str = "zh", names: Sequence[str] | None = None,
                winds: Sequence[int] | None = None, number: StepNumber | None = None) -> list[str]:
    """The card's last lines: the smaller losses not listed (their count and 子), the risky choices against one seat
    that add up to more than one deal-in to it and count as one (:func:`engine.review.one_deal_in`), the steps where
    the player chose
    otherwise than the AI at no loss (worth as much on the evaluator's figures, to 0.1 子; those of :data:`EXPLAINED`
    each on a line with why: a tile the AI lets go of, a win it takes that the player's choice is priced as high as),
    and the steps where the AI chose the same. Steps are written by ``number`` (:func:`review_numbers`)."""
    lang = lang_of(lang)
    listed = {d.step for d in _listed(review)}
    more = [d for d in review.decisions if d.costly and d.step not in listed]
    equal = [d.step for d in review.decisions if not d.agrees and not d.costly and d.reason not in EXPLAINED]
    # no loss, said why: a tile the AI lets go of so that someone can win (a credit that ranks, not 子), a win the
    # AI takes where the player's choice is priced as high
    agree = [d.step for d in review.decisions if d.agrees]
    out = []
    if more:
        out.append(txt("render.review.more" if len(more) > 1 else "render.review.more_one", lang, n=len(more),
                       cost=_zi(round(sum(d.cost for d in more), 1)), steps=_steps(number, (d.step for d in more), lang)))
        # where to see them: the replay's "my decision ▶" steps through the player's decisions with the same words
        out.append(txt("render.review.more_where", lang, button=txt("memory.next_decision", lang)))
    for ds, total, counted in review.capped():  # risky choices against one seat: one deal-in at most
        out.append(txt("render.review.capped", lang, steps=_steps(number, (d.step for d in ds), lang),
                       who=threat_name(ds[0], lang, names, winds), total=_zi(total), cost=_zi(counted)))
    if equal:
        out.append(txt("render.review.as_good_many" if len(equal) > 1 else "render.review.as_good_one", lang,
                       steps=_steps(number, equal, lang)))
    for group, note in explained(review, lang, names, winds):
        out.append(txt("render.review.step_note", lang, step=_shown(number, group[0].step), text=note) if len(group) == 1
                   else txt("render.review.steps_note", lang, steps=_steps(number, (d.step for d in group), lang),
                       text=note))
    if agree and len(agree) == len(review.decisions):
        out.append(txt("render.replay.ai_agrees_all", lang))
    elif agree:
        out.append(txt("render.replay.ai_agrees_many" if len(agree) > 1 else "render.replay.ai_agrees_one", lang,
                       steps=_steps(number, agree, lang)))
    return out


def explained(review: Review, lang: str = "zh", names: Sequence[str] | None = None,
              winds: Sequence[int] | None = None, tile: Callable[[int], str] | None = None
              ) -> list[tuple[tuple[Decision, ...], str]]:
    """The disagreements at no loss that are said why (:data:`EXPLAINED`), in step order, each with its words: the
    tiles the AI lets go of in Chizhou on one line together (a hand too far from 2 花 late lets one go at nearly
    every turn: a line for each made a card four phone screens tall), a win the AI takes on a line of its own.
    ``tile`` writes a tile as in :func:`describe_reason`."""
    lang = lang_of(lang)
    ds = [d for d in review.decisions if not d.agrees and not d.costly and d.reason in EXPLAINED]
    let_go = [d for d in ds if d.reason == "let_go" and d.ai.action.tile is not None]
    out: list[tuple[tuple[Decision, ...], str]] = []
    if len(let_go) > 1:
        write = tile or (lambda k: _tile(k, lang))
        tiles = join_list(dict.fromkeys(write(d.ai.action.tile) for d in let_go if d.ai.action.tile is not None),
                          lang)
        out.append((tuple(let_go), txt("render.review.no_loss_why", lang,
                                       why=txt("render.review.why_let_go_many", lang, tiles=tiles))))
        grouped = {d.step for d in let_go}
        ds = [d for d in ds if d.step not in grouped]
    out += [((d,), txt("render.review.no_loss_why", lang, why=describe_reason(d, lang, names, winds, tile)))
            for d in ds]
    return sorted(out, key=lambda g: g[0][0].step)


@dataclass(frozen=True)
class CardText:
    """One line of text on a card, as drawn: where, what (after wrapping; a line never ends in an ellipsis unless
    the text itself did), its size in px, bold or not, and its role (the colour: ``title``, ``bad``, ``good``,
    ``sub``, ``text``, ``accent``)."""

    x: int
    y: int
    text: str
    size: int
    role: str
    bold: bool = True


def set_lines(text: str, size: int, width: int, *, bold: bool = True, max_lines: int = 2,
              min_size: int = LINE_MIN_SIZE) -> tuple[list[str], int]:
    """How a line of a card is set in ``width`` px: at the largest size from ``size`` down to ``min_size`` at which
    it takes at most ``max_lines`` lines (wrapped at spaces, Chinese anywhere); else wrapped at ``min_size`` over as
    many lines as it takes. Never shortened.

    >>> set_lines("faster hand: ready against 1 shanten, 53% to win against 16%", 17, 336, bold=False)
    (['faster hand: ready against 1 shanten,', '53% to win against 16%'], 17)
    >>> set_lines("少喂花：中还有 3 张没见，别家碰了就多 1 花", 17, 336, bold=False)
    (['少喂花：中还有 3 张没见，', '别家碰了就多 1 花'], 17)
    """
    text = fonts.clean(text)
    for s in range(size, min_size - 1, -1):
        lines = wrap(text, fonts.text_font(text, s, bold), width)
        if len(lines) <= max_lines:
            return lines, s
    return wrap(text, fonts.text_font(text, min_size, bold), width), min_size


@dataclass
class TextBlocks:
    """A card's text set block after block: a call wraps ``text`` into ``width`` px (:func:`set_lines`), adds its
    lines to ``out`` from ``y`` down, ``gap`` px apart, and returns the y under them. ``width`` and ``x`` default to
    the card's text column."""

    out: list[CardText]
    width: int
    x: int

    def __call__(self, y: int, text: str, size: int, role: str, width: int | None = None, x: int | None = None,
                 bold: bool = True, gap: int = 6, max_lines: int = 2) -> int:
        lines, s = set_lines(text, size, self.width if width is None else width, bold=bold, max_lines=max_lines)
        for line in lines:
            self.out.append(CardText(self.x if x is None else x, y, line, s, role, bold))
            y += s + gap
        return y


_CLOSING = set("，。、：；）」』%!?,.:;)")


_UNITS = ("向听", "向聽", "子", "张", "張", "花", "番", "步", "局", "次", "处", "處")
_VERSUS = ("对", "對")
#: kept on one line in English: a comparison ("26% to win against 24%", "52 useful tiles against 27", "10.8 子 against
#: 3.6"), a count and its word ("4 useful", "1 shanten")
_EN_COMPARISON = re.compile(r"\d+(?:\.\d+)?(?:%| 子)?(?: to win| to deal in| useful tiles)? against \d+(?:\.\d+)?(?:%| 子)?"
                            r"|\d+ (?:useful|shanten)\b")


def _atoms(text: str, cjk: bool) -> list[str]:
    """The pieces a line may break between: words and spaces; in Chinese text (``cjk``) also each Chinese character,
    except that a number keeps its unit ("10.8 子", "1 向听") and a comparison stays whole ("10% 对 2%"; in English
    "26% to win against 24%", which wrapped after "26%"); closing punctuation stays with what it closes."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == " ":
            out.append(c)
            i += 1
            continue
        kept = None if cjk else _EN_COMPARISON.match(text, i)
        if kept is not None:
            j = kept.end()
        elif cjk and ord(c) >= 0x2E80:
            j = i + 1
        else:
            j = i
            while j < len(text) and text[j] != " " and (not cjk or ord(text[j]) < 0x2E80):
                j += 1
            if cjk and text[j - 1].isdigit() and text[j:j + 1] == " ":
                unit = next((u for u in _UNITS if text.startswith(u, j + 1)), "")
                j += 1 + len(unit) if unit else 0  # a number and its unit
        while j < len(text) and text[j] in _CLOSING:
            j += 1
        out.append(text[i:j])
        i = j
    if cjk:  # "25% 对 13%", "26.8 子 对 12.4 子": one piece
        k = 0
        while k + 4 < len(out):
            # a figure, a percentage or 子 ("26.8 子 对 12.4 子")
            if (out[k][-1:].isdigit() or out[k].endswith(("%", " 子"))) and out[k + 1] == " " \
                    and out[k + 2] in _VERSUS and out[k + 3] == " " and out[k + 4][:1].isdigit():
                out[k:k + 5] = ["".join(out[k:k + 5])]
            else:
                k += 1
    return out


_PAUSES = "，；："


def wrap(text: str, font: Any, width: int) -> list[str]:
    """Greedy wrap of a card's line: between words, and in Chinese text (more Chinese characters than Latin letters)
    between characters too, after the last pause (，；：) of a line when it is past the line's middle, but never
    inside a number and its unit nor before closing punctuation (:func:`_atoms`); a piece wider than the line is
    broken anywhere.

    >>> from render import fonts
    >>> wrap("更快的牌：听牌 对 1 向听，和牌机会 53% 对 16%", fonts.text_font("听", 17), 300)
    ['更快的牌：听牌 对 1 向听，', '和牌机会 53% 对 16%']
    >>> wrap("safer against E Bob (alarm, 报警): 39% to deal in", fonts.text_font("a", 17), 300)
    ['safer against E Bob (alarm, 报警):', '39% to deal in']
    >>> wrap("faster hand: 35 useful tiles against 31, 26% to win against 24%", fonts.text_font("a", 17), 300)
    ['faster hand:', '35 useful tiles against 31,', '26% to win against 24%']
    """
    cjk = sum(ord(c) >= 0x2E80 for c in text) > sum(c.isascii() and c.isalpha() for c in text)
    lines: list[str] = []
    cur = ""
    for a in _atoms(text, cjk):
        cand = cur + a
        if font.getlength(cand.rstrip()) <= width or not cur.strip():
            cur = cand
            continue
        cut = max(cur.rfind(x) for x in _PAUSES) + 1 if cjk else 0
        if cut > len(cur) / 2:
            lines.append(cur[:cut].rstrip())
            cur = cur[cut:].lstrip() + a
        else:
            lines.append(cur.rstrip())
            cur = "" if a == " " else a
        while font.getlength(cur) > width and len(cur) > 1:  # a piece wider than the line
            k = len(cur)
            while k > 1 and font.getlength(cur[:k]) > width:
                k -= 1
            lines.append(cur[:k])
            cur = cur[k:]
    if cur.strip():
        lines.append(cur.rstrip())
    return lines


def review_layout(review: Review, replay: HandReplay, lang: str = "zh", title: str = "",
                  names: Sequence[str] | None = None, *, show_all: bool = False
                  ) -> tuple[int, list[CardText], list[tuple[int, int, int, int]]]:
    """The review card as it is drawn: its height, every line of text (:class:`CardText`) and the frame around the
    costliest row. The head: the title, what the decisions cost, the counts, the note that only what the player could
    see is judged; a row per listed disagreement (:func:`review_rows`): the step and its loss, the player's choice
    and the AI's with their expected 子 (red: the choice that lost 子), the reason (wrapped); the foot
    (:func:`review_foot`). Every step is numbered as the replay numbers it for the player (:func:`review_numbers`,
    ``show_all`` as the replay has it)."""
    lang = lang_of(lang)
    number = review_numbers(replay, review.seat, show_all=show_all)
    margin, pad = 12, 14
    x0 = margin + pad
    full = REVIEW_W - 2 * (margin + pad)
    out: list[CardText] = []
    frames: list[tuple[int, int, int, int]] = []

    block = TextBlocks(out, full, x0)

    head = title or (txt("render.replay.review", lang) + f" · {_variant(replay.variant, lang)} "
                     + txt("render.replay.hand_no", lang, n=replay.hand_no + 1))
    cost, _summary, note = review_head(review, lang, number)
    n = len(review.decisions)
    counts = counts_line(n, review.disagreements, review.costly, lang)
    y = block(margin + 10, head, 24, "title", gap=10)
    y = block(y, cost, 21, "bad" if review.cost >= 0.05 else "good", gap=9, max_lines=1)
    y = block(y + 2, counts, 18, "sub", bold=False, gap=9)
    y = block(y, note, 18, "sub", bold=False, gap=9)
    if review.by_ai:  # the moves the AI made for the player (away, 托管) are not theirs to be judged on
        y = block(y, txt("render.review.by_ai", lang, n=review.by_ai), 18, "sub", bold=False, gap=9)
    if review_rows_any(review):
        y = block(y, txt("render.review.legend", lang), 15, "sub", bold=False, gap=6)
    y += 10
    biggest = review.biggest
    for dec, (shown, loss, you, ai, why) in zip(_listed(review), review_rows(review, lang, names, replay.winds, number),
                                                strict=True):
        big = biggest is not None and dec.step == biggest.step
        top = y
        out.append(CardText(x0, y + 5, txt("render.replay.step", lang, step=shown), 19, "accent" if big else "sub"))
        worse = dec.cost >= 0.05
        out.append(CardText(x0, y + 33, loss, 18, "bad" if worse else "sub", False))
        # each line under the one before, however many lines it took (a long one wraps at the smallest size)
        y_ai = max(y + 32, block(y + 4, you, 20, "bad" if worse else "text", full - STEP_W, x0 + STEP_W, gap=8,
                                 max_lines=1))
        y_why = max(y_ai + 28, block(y_ai, ai, 20, "good", full - STEP_W, x0 + STEP_W, gap=8, max_lines=1))
        y = block(y_why, why, WHY_SIZE, "sub", full - STEP_W, x0 + STEP_W, bold=False, gap=5, max_lines=3)
        y = max(y + 14, top + REVIEW_ROW_H)
        if big:
            frames.append((x0 - 6, top - 2, REVIEW_W - margin - pad + 6, y - 6))
    for line in review_foot(review, lang, names, replay.winds, number):
        y = block(y + 6, line, 19, "sub", bold=False, gap=6) + 8
    return y + pad + margin, out, frames


def draw_review(review: Review, replay: HandReplay, theme: str | Theme = "dark", lang: str = "zh",
                title: str = "", names: Sequence[str] | None = None, *, show_all: bool = False) -> Image.Image:
    """The review of one seat as a card (:func:`review_layout`): what the decisions cost (子, the strong AI's
    evaluator), the counts, the note that only what the player could see is judged; then each decision where the
    player's choice lost 子 against the AI's (the step and its loss, the player's choice and the AI's with their
    expected 子, the reason in words; the costliest framed, a choice that lost 子 in red); the smaller losses, the
    choices worth as much as the AI's and the steps where the AI agrees, each on a line."""
    th = theme_of(theme)
    H, texts, frames = review_layout(review, replay, lang, title, names, show_all=show_all)
    return draw_card(texts, frames, H, th)


def draw_card(texts: Sequence[CardText], frames: Sequence[tuple[int, int, int, int]], height: int,
              th: Theme) -> Image.Image:
    """A card of :class:`CardText` lines on the theme's panel, the given rows framed."""
    margin = 12
    img = Image.new("RGB", (REVIEW_W, height), th.bg)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((margin, margin, REVIEW_W - margin, height - margin), radius=12, fill=th.panel)
    for box in frames:
        d.rounded_rectangle(box, radius=8, outline=th.accent, width=3)
    colour = {"title": th.text, "text": th.text, "bad": th.minus, "good": th.plus, "sub": th.subtext,
              "accent": th.accent}
    for t in texts:
        draw_text(img, (t.x, t.y), t.text, t.size, colour[t.role], bold=t.bold)
    return img


def render_review(review: Review, replay: HandReplay, theme: str | Theme = "dark", lang: str = "zh",
                  title: str = "", names: Sequence[str] | None = None, *, show_all: bool = False) -> bytes:
    """PNG bytes of :func:`draw_review` (``show_all`` as the replay has it: how its steps are numbered)."""
    return review_card(review, replay, theme, lang, title, names, show_all=show_all)[0]


def review_card(review: Review, replay: HandReplay, theme: str | Theme = "dark", lang: str = "zh", title: str = "",
                names: Sequence[str] | None = None, *, show_all: bool = False) -> tuple[bytes, list[CardText]]:
    """PNG bytes of :func:`draw_review` and the lines of text drawn on it."""
    H, texts, frames = review_layout(review, replay, lang, title, names, show_all=show_all)
    return encode(draw_card(texts, frames, H, theme_of(theme)), theme), texts


# ------------------------------------------------------------------------------------------------ animation


def frame_ms(replay: HandReplay, step: int, scene: ReplayScene) -> int:
    """How long a frame stays: long enough to read what changed."""
    if step == 0:
        return 2000
    if step == replay.n:
        return 5000
    if scene.review and any(g is not None for _, _, g in scene.review):
        return 2500
    # by what the step brought about, which every viewer sees alike (a claim or a win), never by the action: a
    # window's last answer that the viewer may not see named must not last as long as the answer it was
    if any(e.type in ("pung", "chi", "kong", "add_kong", "win") for e in replay.steps[step - 1].events):
        return 1600
    return 900


def animation_scenes(replay: HandReplay, viewer: int | None, *, show_all: bool = False, **kw: Any
                     ) -> Iterator[ReplayScene]:
    """The scenes of the animation, one per step ``viewer`` may see (in order)."""
    visible = set(replay.visible_steps(viewer, show_all=show_all))
    for k, table in replay.walk():
        if k in visible:
            yield replay_scene(replay, k, viewer, show_all=show_all, table=table, **kw)


def render_replay_animation(replay: HandReplay, viewer: int | None, *, theme: str | Theme = "dark",
                            lang: str = "zh", fmt: str = "gif", show_all: bool = False, **kw: Any) -> bytes:
    """The whole hand as an animated GIF (``fmt="png"``: APNG, for comparison) for ``viewer``."""
    th = theme_of(theme)
    lang = lang_of(lang)
    scenes = list(animation_scenes(replay, viewer, show_all=show_all, lang=lang, **kw))
    # one layout for all frames: the table grows (rivers, melds), so reserve its final height
    last = draw_table(scenes[-1].table, th, lang)
    review_h = max(review_block(s.review)[1] for s in scenes)
    pal = palette_for(th.key)
    frames: list[Image.Image] = []
    durations: list[int] = []
    for s in scenes:
        im = draw_replay(s, th, lang, table_height=last.height, review_height=review_h)
        frames.append(im.quantize(palette=pal, dither=Image.Dither.NONE))
        durations.append(frame_ms(replay, s.step, s))
    # a hand image may grow during the hand (a meld's feeder label): every frame gets the tallest frame's height
    height = max(f.height for f in frames)
    bg = Image.new("RGB", (1, 1), th.bg).quantize(palette=pal, dither=Image.Dither.NONE).getpixel((0, 0))
    for i, f in enumerate(frames):
        if f.height < height:
            canvas = Image.new("P", (f.width, height), bg)
            canvas.putpalette(pal.getpalette() or [])
            canvas.paste(f, (0, 0))
            frames[i] = canvas
    buf = io.BytesIO()
    if fmt == "gif":
        frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0,
                       optimize=True, disposal=1)
    else:
        frames[0].save(buf, format="PNG", save_all=True, append_images=frames[1:], duration=durations, loop=0,
                       disposal=0, blend=0, compress_level=6)
    return buf.getvalue()


__all__ = ["ReplayScene", "animation_scenes", "describe_outcome", "describe_step", "draw_replay", "draw_review", "frame_ms",
           "render_replay", "render_review", "review_card", "review_numbers",
           "render_replay_animation", "render_replay_step", "replay_scene"]


def _examples(out: str) -> None:
    """``python -m render.replay OUTDIR``: the example images of docs/replay.md (a real hand of AI play, seat 0 the
    easy AI so the review has something to say)."""
    import random
    from pathlib import Path

    from engine.replay import HandReplay, encode_code
    from engine.review import review_hand
    from engine.selfplay import play_match
    from engine.table import Table

    names = ("小明", "Alice", "王大锤", "Bob the Builder")
    t = Table.new("wuhu", "img")
    acts: list = []
    play_match(t, ["easy", "normal", "normal", "normal"], random.Random("img"), max_hands=1, record=acts)
    r = HandReplay.build("wuhu", "img", {}, acts, 0)
    rv = review_hand(r, 0)
    code = encode_code(42, 0)
    big = rv.biggest.step if rv.biggest is not None else r.n
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    kw: dict[str, Any] = {"names": names, "review": rv, "code": code}
    (d / "replay-step.png").write_bytes(render_replay_step(r, big, 0, theme="dark", lang="zh", **kw))
    (d / "replay-step-light-en.png").write_bytes(render_replay_step(r, big, 0, theme="light", lang="en", **kw))
    (d / "replay-end.png").write_bytes(render_replay_step(r, r.n, 0, theme="dark", lang="zh-TW", show_all=True, **kw))
    (d / "replay-review.png").write_bytes(render_review(rv, r, "dark", "zh", names=names))
    (d / "replay-review-light-en.png").write_bytes(render_review(rv, r, "light", "en", names=names))
    (d / "replay-animation.gif").write_bytes(render_replay_animation(r, 0, theme="dark", lang="zh", **kw))


if __name__ == "__main__":
    from .samples import folder_argument

    _examples(str(folder_argument("the replay documentation's example pictures")))
