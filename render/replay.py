"""Replay images: the table at one step of a replayed hand as one viewer may see it, and the whole hand animated.

``replay_scene(replay, step, viewer, ...)`` builds a :class:`ReplayScene` from :class:`engine.replay.HandReplay` (the
adapter from the engine's per-seat views to the scene types lives here, so render never imports the bot):

- the public table (:func:`render.views.table_scene_from_view` of the viewer's view: other seats as counts only);
- the viewer's own hand from THEIR view - or, with ``show_all`` (the hand is over and the server allows it), every
  seat's hand;
- a caption: step k/n and who did what (another seat's pass in a claim window is never described: the viewer
  never saw it, see ``HandReplay.visible_steps``);
- with a :class:`engine.review.Review` of the viewer, at their decisions: their choice and the AI's, each with
  its shanten and 进张; on the last step the review's summary.

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

Over 600 lines on purpose: the still, the animation and the review card draw the same scene from the same replay
and are read together.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from PIL import Image, ImageDraw

from engine.errors import EngineError
from engine.review import Choice, Decision, Review
from engine.table import Action
from engine.tiles import tile_name, tile_zh

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


# ------------------------------------------------------------------------------------------------ captions


def _variant(key: str, lang: str) -> str:
    """The variant's name (the registered variant's own names; the key for an unknown one)."""
    from engine.variants import get_variant

    try:
        v = get_variant(key)
    except Exception:  # noqa: BLE001 - a caption shows the key rather than fail
        return key
    return named(v.zh, v.en, lang)


def review_summary(review: Review, lang: str = "zh") -> str:
    """"N decisions, M where the AI disagrees, they cost about X 子, the most at step K (Y 子)" in the player's
    language.

    >>> from engine.table import Action
    >>> r = Review(0, (Decision(3, 0, Choice(Action("discard", 0, 1), 2, 20, ev=1.5),
    ...                          Choice(Action("discard", 0, 9), 1, 8, ev=2.75), reason="faster"),))
    >>> review_summary(r, "en")
    '1 decision, 1 where the AI disagrees; they cost about 1.2 子, the most at step 3 (1.2 子)'
    >>> review_summary(r, "zh"), review_summary(r, "zh-TW")
    ('共 1 次决策，AI 有 1 次选得不同，约损失 1.2 子，差别最大在第 3 步（1.2 子）', '共 1 次決策，AI 有 1 次選得不同，約損失 1.2 子，差別最大在第 3 步（1.2 子）')
    """
    lang = lang_of(lang)
    n, m, b = len(review.decisions), review.disagreements, review.biggest
    out = txt("render.review.summary_one" if n == 1 else "render.review.summary", lang, n=n, m=m)
    if b is None:
        return out
    return txt("render.review.biggest", lang, summary=out, cost=_zi(review.cost), step=b.step, loss=_zi(b.cost))


def _zi(x: float) -> str:
    """子 to one decimal (never "-0.0").

    >>> _zi(3.04), _zi(-0.25), _zi(12.0), _zi(-0.01)
    ('3.0', '-0.2', '12.0', '0.0')
    """
    s = f"{x:.1f}"
    return "0.0" if s == "-0.0" else s


def _pct(x: float) -> str:
    return f"{round(100 * x)}"


def describe_priced(c: Choice, lang: str = "zh") -> str:
    """A choice with its expected 子 (the strong AI's evaluator), for the review card.

    >>> from engine.table import Action
    >>> describe_priced(Choice(Action("discard", 0, 4), 1, 24, ev=3.21), "zh")
    '打五万 · 期望 3.2 子'
    >>> describe_priced(Choice(Action("pass", 0), 1, 24, ev=-0.5), "en")
    'pass · -0.5 子 expected'
    """
    lang = lang_of(lang)
    return txt("render.review.priced", lang, what=_action_words(c.action, lang), ev=_zi(c.ev))


def describe_reason(d: Decision, lang: str = "zh", names: Sequence[str] | None = None,
                    winds: Sequence[int] | None = None) -> str:
    """Why the AI's choice is worth more, in words: a faster hand (the chances to win), a bigger hand (the item it
    aims at, the values when won) or a safer tile (against whom, the chances to deal in). "" when they agree.

    >>> from engine.table import Action
    >>> you = Choice(Action("discard", 0, 4), 1, 24, ev=1.0, win=0.2, deal_in=0.12, danger=2.0, threat=2)
    >>> ai = Choice(Action("discard", 0, 13), 1, 20, ev=2.5, win=0.25, deal_in=0.01, danger=0.1)
    >>> describe_reason(Decision(4, 0, you, ai, reason="safer"), "en", ["A", "B", "C", "D"], [0, 1, 2, 3])
    'safer against W C: 12% to deal in against 1%'
    >>> describe_reason(Decision(4, 0, you, ai, reason="faster"), "zh")
    '更快的牌：和牌机会 25% 对 20%'
    """
    lang = lang_of(lang)
    p, a = d.played, d.ai
    if d.agrees or not d.reason:
        return ""
    if d.reason == "safer" and p.threat is not None:
        who = wind_name(winds[p.threat], lang) if winds is not None else seat_label(p.threat, lang)
        if names is not None:
            who = f"{who} {names[p.threat]}"
        return txt("render.review.why_safer", lang, who=who, you=_pct(p.deal_in), ai=_pct(a.deal_in))
    if d.reason == "bigger":
        if d.item == "menqing":  # Hefei: the pass keeps 门清, a pung short of ready gives it up
            if a.value > p.value:
                return txt("render.review.why_menqing", lang, ai=_zi(a.value), you=_zi(p.value))
            return txt("render.review.why_menqing_plain", lang)
        if d.item:
            item = txt(f"render.review.item.{_variant_of_item(d.item)}", lang)
            return txt("render.review.why_bigger", lang, item=item, ai=_zi(a.value), you=_zi(p.value))
        return txt("render.review.why_bigger_plain", lang, ai=_zi(a.value), you=_zi(p.value))
    if d.reason == "faster":
        return txt("render.review.why_faster", lang, ai=_pct(a.win), you=_pct(p.win))
    if a.useful > p.useful:
        return txt("render.review.why_shape", lang, ai=a.useful, you=p.useful)
    return txt("render.review.why_shape_plain", lang)


def _variant_of_item(item: str) -> str:
    from engine.strong.evaluator import HUN_ITEMS, PLAN_ITEMS, PUNGS_ITEMS

    if item in HUN_ITEMS.values():  # Wuhu's one suit and 红中 (混一色): render.review.item.wuhu_hun
        return next(f"{v}_hun" for v, code in HUN_ITEMS.items() if code == item)
    return next((v for items in (PLAN_ITEMS, PUNGS_ITEMS) for v, code in items.items() if code == item), "wuhu")


def _action_words(a: Action, lang: str) -> str:
    if a.type == "chi" and a.tile is not None:
        tile = tile_name(a.tile) if lang == "en" else given(
            tile_zh(a.tile)[0] + tile_zh(a.tile + 1)[0] + tile_zh(a.tile + 2), lang)
    else:
        tile = _tile(a.tile, lang)
    key = f"render.review.{a.type}"
    return txt(key, lang, tile=tile) if key in _REVIEW_ACTIONS else a.describe(lang)


def describe_choice(c: Choice, lang: str = "zh") -> str:
    """A choice for a caption: the action, its shanten and 进张 (useful tiles).

    >>> from engine.table import Action
    >>> describe_choice(Choice(Action("discard", 0, 4), 1, 24), "zh")
    '打五万 · 1 向听 · 进张 24'
    >>> describe_choice(Choice(Action("pung", 0, 31), 0, 8), "en")
    'pung 5z · ready · 8 useful'
    >>> describe_choice(Choice(Action("win", 0), -1, 0), "zh-TW")
    '和牌'
    """
    lang = lang_of(lang)
    what = _action_words(c.action, lang)
    if c.shanten < 0:
        return what
    sh = txt("render.review.ready", lang) if c.shanten == 0 else txt("render.review.shanten", lang, n=c.shanten)
    return txt("render.review.choice", lang, what=what, shanten=sh, useful=c.useful)


_REVIEW_ACTIONS = frozenset(f"render.review.{t}" for t in ("discard", "pung", "kong", "chi", "pass", "win"))


def _tile(k: int | None, lang: str) -> str:
    if k is None:
        return ""
    if lang == "en":
        return tile_name(k)
    return given(tile_zh(k), lang)


def _who(names: Sequence[str], winds: Sequence[int], seat: int, lang: str) -> str:
    return f"{wind_name(winds[seat], lang)} {names[seat]}"


def describe_step(step: Step, names: Sequence[str], winds: Sequence[int], lang: str = "zh") -> str:
    """Who did what at ``step``, in the viewer's language (the caller leaves out what the viewer never saw).

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
    if a.type == "discard":
        out = txt("render.replay.discard", lang, who=who, tile=t)
    elif a.type == "pung":
        out = txt("render.replay.pung", lang, who=who, tile=t)
    elif a.type == "chi":
        assert a.tile is not None
        rk = [a.tile, a.tile + 1, a.tile + 2]
        if lang == "en":
            run = "-".join(tile_name(x) for x in rk)
        else:
            run = given(f"{tile_zh(rk[0])[0]}{tile_zh(rk[1])[0]}{tile_zh(rk[2])}", lang)
        out = txt("render.replay.chi", lang, who=who, run=run)
    elif a.type == "kong":
        kind = ev["kong"].data.get("kind") if "kong" in ev else ("added" if "add_kong" in ev else "")
        if kind == "concealed":
            out = txt("render.replay.kong_concealed", lang, who=who, tile=t)
        elif kind == "added" or "add_kong" in ev:
            out = txt("render.replay.kong_added", lang, who=who, tile=t)
        else:
            out = txt("render.replay.kong", lang, who=who, tile=t)
    elif a.type == "win":
        w = ev["win"].data if "win" in ev else {}
        if w.get("self_drawn", False):
            out = txt("render.replay.win_self", lang, who=who)
        elif w.get("rob_kong"):
            out = txt("render.replay.win_rob", lang, who=who, from_=_who(names, winds, w["from"], lang))
        else:
            f = _who(names, winds, w["from"], lang) if w.get("from") is not None else "?"
            out = txt("render.replay.win_discard", lang, who=who, from_=f)
    elif a.type == "pass" and not step.window:
        laid = _tile(_kind(ev["lay_aside"].data["tile"]), lang) if "lay_aside" in ev else ""
        out = txt("render.replay.lay_aside", lang, who=who, tile=laid)
    elif a.type == "pass":
        out = txt("render.replay.pass", lang, who=who)
    else:
        out = txt("render.replay.action", lang, who=who, what=a.describe(lang))
    if step.timeout:
        out = txt("render.replay.timed_out", lang, text=out)
    if "hand_end" in ev and ev["hand_end"].data.get("draw"):
        out = txt("render.replay.drawn", lang, text=out)
    return out


def _kind(name: str) -> int:
    from engine.table.actions import parse_tile

    return parse_tile(name)


def _review_lines(d: Decision, lang: str) -> tuple[tuple[str, str, bool | None], ...]:
    you = txt("render.replay.you", lang)
    ai = txt("render.replay.ai", lang)
    if d.agrees:
        return ((you, describe_choice(d.played, lang), None),
                (ai, txt("render.replay.same_choice", lang), True))
    worse = d.cost >= 0.05
    return ((you, describe_choice(d.played, lang), False if worse else None),
            (ai, describe_choice(d.ai, lang), True))


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
    if step == 0:
        caption = txt("render.replay.the_deal", lang)
    else:
        caption = describe_step(replay.steps[step - 1], names_, winds, lang)
    caption = txt("render.replay.step_of", lang, step=step, n=replay.n) + " · " + caption
    lines: tuple[tuple[str, str, bool | None], ...] = ()
    if dec is not None:
        lines = _review_lines(dec, lang)
    elif review is not None and step == replay.n and viewer is not None and review.seat == viewer:
        lines = ((txt("render.replay.review", lang), review_summary(review, lang), None),)
    return ReplayScene(table=tscene, hands=tuple(hands), title=title, caption=caption, step=step, n=replay.n,
                       review=lines)


def _winning_tiles(replay: HandReplay) -> dict[int, int]:
    """Winners of the hand and their winning tile (a tile won on a discard is not in the hand's counts)."""
    res: Mapping[str, Any] = replay.result or {}
    return {int(w["seat"]): _kind(w["tile"]) for w in res.get("winners", [])}


# ------------------------------------------------------------------------------------------------ drawing


TOP_H = 108  # the caption panel above the table (the table image brings its own top margin)


def draw_replay(scene: ReplayScene, theme: str | Theme = "dark", lang: str = "zh", *,
                table_height: int | None = None, review_rows: int | None = None) -> Image.Image:
    """The replay image. ``table_height`` / ``review_rows``: reserve that much room (animations keep one layout for
    every frame)."""
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
    rows = len(scene.review) if review_rows is None else max(review_rows, len(scene.review))
    review_h = (16 + 34 * rows) if rows else 0
    H = top_h + tab_h + hands_h + review_h + margin
    img = Image.new("RGB", (WIDTH, H), th.bg)
    d = ImageDraw.Draw(img)
    # caption panel
    d.rounded_rectangle((margin, margin, WIDTH - margin, top_h - margin - 2), radius=10, fill=th.panel)
    draw_text(img, (margin + 14, margin + 6), scene.title, 15, th.subtext, bold=False, max_width=WIDTH - 2 * margin - 28)
    draw_text(img, (margin + 14, margin + 31), scene.caption, 22, th.text, max_width=WIDTH - 2 * margin - 28)
    # progress bar
    bar_y = top_h - margin - 14
    x0, x1 = margin + 14, WIDTH - margin - 14
    d.rounded_rectangle((x0, bar_y, x1, bar_y + 4), radius=2, fill=th.panel_hi)
    if scene.n:
        d.rounded_rectangle((x0, bar_y, x0 + (x1 - x0) * scene.step / scene.n, bar_y + 4), radius=2, fill=th.accent)
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
        yy = y + 8
        for label, text, good in scene.review:
            colour = th.text if good is None else (th.plus if good else th.minus)
            lw = draw_text(img, (margin + 14, yy + 4), label, 19, th.accent)
            draw_text(img, (margin + 14 + max(lw, 40) + 12, yy + 4), text, 19, colour,
                      max_width=WIDTH - 2 * margin - 40 - max(lw, 40))
            yy += 34
    return img


def render_replay(scene: ReplayScene, theme: str | Theme = "dark", lang: str = "zh") -> bytes:
    """PNG bytes of a replay scene."""
    return encode(draw_replay(scene, theme, lang), theme)


def render_replay_step(replay: HandReplay, step: int, viewer: int | None, *, theme: str | Theme = "dark",
                       lang: str = "zh", **kw: Any) -> bytes:
    """PNG bytes of ``step`` for ``viewer`` (keywords as :func:`replay_scene`)."""
    return render_replay(replay_scene(replay, step, viewer, lang=lang, **kw), theme, lang)


# ------------------------------------------------------------------------------------------------ review card

REVIEW_ROW_H = 96  # a disagreement: the player's choice, the AI's under it, the reason under that
REVIEW_W = 480  # the review card: lines of text, as wide as the score card (the replay image is the table's width)


REVIEW_HEAD_H = 150  # the card's title, cost, counts and note
REVIEW_MAX_ROWS = 8  # the costliest disagreements listed (a phone screen or two); the rest summed on one line


def _listed(review: Review) -> list[Decision]:
    """The disagreements the card lists: the REVIEW_MAX_ROWS costliest (the earliest on a tie), in step order."""
    differ = [d for d in review.decisions if not d.agrees]
    top = sorted(differ, key=lambda d: (-d.cost, d.step))[:REVIEW_MAX_ROWS]
    return sorted(top, key=lambda d: d.step)


def review_rows(review: Review, lang: str = "zh", names: Sequence[str] | None = None,
                winds: Sequence[int] | None = None) -> list[tuple[int, str, str, str, str]]:
    """The rows of the review card, one per listed disagreement (the costliest, see :data:`REVIEW_MAX_ROWS`):
    (step, the loss, the player's choice priced, the AI's choice priced, the reason in words). Exactly the text
    :func:`draw_review` draws."""
    lang = lang_of(lang)
    out = []
    for dec in _listed(review):
        out.append((dec.step, txt("render.review.loss", lang, loss=_zi(dec.cost)),
                    txt("render.replay.you_prefix", lang) + describe_priced(dec.played, lang),
                    txt("render.replay.ai_prefix", lang) + describe_priced(dec.ai, lang),
                    describe_reason(dec, lang, names, winds)))
    return out


def review_head(review: Review, lang: str = "zh") -> tuple[str, str, str]:
    """The card's summary lines: what the decisions cost in 子, the counts, and what the review judges on."""
    lang = lang_of(lang)
    cost = (txt("render.review.cost_line", lang, cost=_zi(review.cost)) if review.disagreements
            else txt("render.review.no_cost", lang))
    return cost, review_summary(review, lang), txt("render.review.visible_only", lang)


def draw_review(review: Review, replay: HandReplay, theme: str | Theme = "dark", lang: str = "zh",
                title: str = "", names: Sequence[str] | None = None) -> Image.Image:
    """The review of one seat as a card: what the decisions cost (子, the strong AI's evaluator), the counts, the
    note that only what the player could see is judged; then each decision where the AI disagrees (the step and
    its loss, the player's choice and the AI's with their expected 子, the reason in words; the costliest framed,
    a choice that lost 子 in red), and the steps where the AI agrees on one line."""
    th = theme_of(theme)
    lang = lang_of(lang)
    margin, pad = 12, 14
    biggest = review.biggest
    rows = review_rows(review, lang, names, replay.winds)
    costs = {d.step: d.cost for d in review.decisions}
    agree = [d.step for d in review.decisions if d.agrees]
    listed = {d.step for d in _listed(review)}
    more = [d for d in review.decisions if not d.agrees and d.step not in listed]
    head_h = REVIEW_HEAD_H
    H = margin + head_h + REVIEW_ROW_H * len(rows) + (40 if more else 0) + (40 if agree else 0) + pad + margin
    img = Image.new("RGB", (REVIEW_W, H), th.bg)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((margin, margin, REVIEW_W - margin, H - margin), radius=12, fill=th.panel)
    head = title or (txt("render.replay.review", lang) + f" · {_variant(replay.variant, lang)} "
                     + txt("render.replay.hand_no", lang, n=replay.hand_no + 1))
    x0 = margin + pad
    full = REVIEW_W - 2 * (margin + pad)
    cost, _summary, note = review_head(review, lang)
    n = len(review.decisions)
    counts = txt("render.review.summary_one" if n == 1 else "render.review.summary", lang, n=n,
                 m=review.disagreements)
    draw_text(img, (x0, margin + 10), head, 24, th.text, max_width=full)
    draw_text(img, (x0, margin + 46), cost, 21, th.minus if review.cost >= 0.05 else th.plus, max_width=full)
    draw_text(img, (x0, margin + 80), counts, 18, th.subtext, bold=False, max_width=full)
    draw_text(img, (x0, margin + 108), note, 18, th.subtext, bold=False, max_width=full)
    y = margin + head_h
    step_w = 92
    for step, loss, you, ai, why in rows:
        big = biggest is not None and step == biggest.step
        if big:
            d.rounded_rectangle((x0 - 6, y - 2, REVIEW_W - margin - pad + 6, y + REVIEW_ROW_H - 6), radius=8,
                                outline=th.accent, width=3)
        draw_text(img, (x0, y + 5), txt("render.replay.step", lang, step=step), 19,
                  th.accent if big else th.subtext)
        worse = costs.get(step, 0.0) >= 0.05
        draw_text(img, (x0, y + 33), loss, 18, th.minus if worse else th.subtext, bold=False)
        draw_text(img, (x0 + step_w, y + 4), you, 20, th.minus if worse else th.text, max_width=full - step_w)
        draw_text(img, (x0 + step_w, y + 32), ai, 20, th.plus, max_width=full - step_w)
        draw_text(img, (x0 + step_w, y + 60), why, 17, th.subtext, bold=False, max_width=full - step_w)
        y += REVIEW_ROW_H
    if more:
        draw_text(img, (x0, y + 6), txt("render.review.more", lang, n=len(more),
                                        cost=_zi(round(sum(d.cost for d in more), 1))),
                  19, th.subtext, bold=False, max_width=full)
        y += 40
    if agree:
        steps = join_list((str(k) for k in agree), lang)
        agrees = "render.replay.ai_agrees_many" if len(agree) > 1 else "render.replay.ai_agrees_one"
        draw_text(img, (x0, y + 6), txt(agrees, lang, steps=steps),
                  19, th.subtext, bold=False, max_width=full)
    return img


def render_review(review: Review, replay: HandReplay, theme: str | Theme = "dark", lang: str = "zh",
                  title: str = "", names: Sequence[str] | None = None) -> bytes:
    """PNG bytes of :func:`draw_review`."""
    return encode(draw_review(review, replay, theme, lang, title, names), theme)


# ------------------------------------------------------------------------------------------------ animation


def frame_ms(replay: HandReplay, step: int, scene: ReplayScene) -> int:
    """How long a frame stays: long enough to read what changed."""
    if step == 0:
        return 2000
    if step == replay.n:
        return 5000
    if scene.review and any(g is not None for _, _, g in scene.review):
        return 2500
    a = replay.steps[step - 1].action
    if a.type in ("pung", "chi", "kong", "win"):
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
    rows = max(len(s.review) for s in scenes)
    pal = palette_for(th.key)
    frames: list[Image.Image] = []
    durations: list[int] = []
    for s in scenes:
        im = draw_replay(s, th, lang, table_height=last.height, review_rows=rows)
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


__all__ = ["ReplayScene", "animation_scenes", "describe_step", "draw_replay", "draw_review", "frame_ms",
           "render_replay", "render_review",
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
    import sys

    _examples(sys.argv[1] if len(sys.argv) > 1 else "docs/images")
