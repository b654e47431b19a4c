"""The score card of a finished hand: who won and how, the winning hand, the itemised breakdown in the player's
language, and what each seat gains or pays."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PIL import Image, ImageDraw

from engine.tiles import Hand
from engine.variants.base import Item, ScoreResult, Situation

from . import fonts
from .common import (
    Theme,
    draw_text,
    encode,
    fit_names,
    given,
    lang_of,
    named,
    seat_label,
    seat_name,
    theme_of,
    txt,
    wind_name,
)
from .hand import draw_hand
from .scene import HandScene, ScoreScene

CARD_W = 480  # a phone shows it about 400 px wide: 22 px item names read as 18 px
MARGIN = 16
VALUE_W = 76  # the value column
HAND_TILE_W = 48  # the winning hand's tiles: 40 px on a 400 px phone screen
NAME_W = CARD_W - 2 * MARGIN - 16 - VALUE_W  # the item-name column
ITEM_SIZE = 22
ITEM_MIN_SIZE = 16
RULE_SIZE = 15  # the ruling a line comes from ("W12"), grey, right of the name: 13 px on a phone
RULE_W = 40  # its column, taken from the name column when the line has a ruling
KEY_SIZE = 15  # the key to the rulings' codes under the payments
HEADER_H = 94  # the title, who won (24 px, down to 18) and how (20 px, down to 16): three lines
AMOUNT_SIZE = 22  # a seat's gain or payment
AMOUNT_MIN_W = 80  # the amount column, wider when an amount needs it ("+12345 子")
PAY_NOTE_SIZE = 16  # where the payments went (Wuhu's stacks / 交 tally) and what a short stack paid: 13 px on a phone
PAY_NOTE_H = 26  # the line over the payment rows
GLUE = "\u00a0"  # a space no line is broken at (between an amount and its unit), a space again once wrapped


def item_text(item: Item, lang: str) -> str:
    """An item's name in ``lang`` (zh, zh-TW or en)."""
    return named(item.zh, item.en, lang)


def rule_of(scene: ScoreScene) -> Callable[[Item], str]:
    """The ruling each line of ``scene`` comes from ("W5"; "" for none, or when the scene names no variant)."""
    if not scene.variant:
        return lambda item: ""
    from engine.variants import get_variant

    rule_for = get_variant(scene.variant).rule_for
    return lambda item: rule_for(item.code)


def _wrap(text: str, font, width: int) -> list[str]:
    """Greedy wrap: at spaces for text with spaces, else anywhere; a word wider than ``width`` (a Chinese phrase
    between two spaces) is broken anywhere too.

    >>> from render import fonts
    >>> f = fonts.text_font("承包东家共付", 16)
    >>> [len(line) for line in _wrap("承包：东家供和牌者4口条，和出蜡子 12 子", f, 100)]
    [6, 6, 5, 4]
    """
    if " " not in text:
        return _wrap_chars(text, font, width)
    lines: list[str] = []
    cur = ""
    for w in text.split(" "):
        cand = f"{cur} {w}" if cur else w
        if font.getlength(cand) <= width:
            cur = cand
            continue
        if cur:
            lines.append(cur)
        if font.getlength(w) <= width:
            cur = w
        else:
            *full, cur = _wrap_chars(w, font, width)
            lines += full
    if cur:
        lines.append(cur)
    return lines


def _wrap_chars(text: str, font, width: int) -> list[str]:
    lines: list[str] = []
    cur = ""
    for c in text:
        if font.getlength(cur + c) <= width or not cur:
            cur += c
        else:
            lines.append(cur)
            cur = c
    if cur:
        lines.append(cur)
    return lines


def layout_item_name(text: str, width: int = NAME_W) -> tuple[list[str], fonts.FreeTypeFont]:
    """How an item name is set in its column: the largest size from 22 px down to 16 px on one line, else wrapped
    over lines at 16 px. Every returned line fits ``width`` (checked by the tests over every item name)."""
    text = fonts.clean(text)
    for size in range(ITEM_SIZE, ITEM_MIN_SIZE - 1, -1):
        f = fonts.text_font(text, size)
        if f.getlength(text) <= width:
            return [text], f
    f = fonts.text_font(text, ITEM_MIN_SIZE)
    return _wrap(text, f, width), f


def _value_text(item: Item) -> str:
    if item.kind == "mul":
        return f"×{item.value}"
    if item.kind == "info":
        return str(item.value)
    return f"+{item.value}" if item.value >= 0 else str(item.value)


def _wind_of(scene: ScoreScene, s: int) -> int:
    return scene.winds[s] if scene.winds else s


def _who(scene: ScoreScene, s: int, lang: str, name: str | None = None) -> str:
    """Seat ``s`` as the card's sentences name it: its wind and name ("S Bob", "南 小明"), or the wind spelled out
    ("South", "南家") when nothing of the name would show. ``name``: the name as shortened to fit."""
    w = _wind_of(scene, s)
    shown = scene.names[s] if name is None else name
    return f"{wind_name(w, lang)} {shown}" if fonts.drawable(scene.names[s]) else seat_label(w, lang)


def headline(scene: ScoreScene, lang: str = "zh", width: int = CARD_W - 2 * MARGIN) -> list[tuple[str, int]]:
    """The card's two headline lines as drawn, each (text, size in px): who won ("S Bob wins", 24 px down to 18)
    and how ("on E Christopher's discard" / "robbing E Christopher's kong" / "self-drawn", 20 px down to 16). A long
    name is shortened with "…" rather than the words: both lines always say who won, that they won, and on whose
    discard (or whose kong they robbed).

    >>> from dataclasses import replace
    >>> from engine.tiles import parse_hand
    >>> sc = ScoreScene(parse_hand("123m456p789s11z"), (), (3, -3, 0, 0), ("Bob", "Christopher " * 4, "", ""), 0, 1)
    >>> headline(sc, "en")
    [('E Bob wins', 24), ("on S Christopher Christopher Christopher Chr…'s discard", 16)]
    >>> headline(replace(sc, names=("Bob", "Ann", "", ""), robbed_kong=True), "en")[1]
    ("robbing S Ann's kong", 20)
    """
    lang = lang_of(lang)
    win = fit_names(lambda ns: txt("render.card.wins", lang, who=_who(scene, scene.winner, lang, ns[0])),
                    [scene.names[scene.winner]], 24, width, min_size=18)
    d = scene.discarder
    if d is None:
        how = fit_names(lambda ns: txt("render.card.self_drawn", lang), [], 20, width, min_size=16)
    else:
        key = "render.card.robbed_kong" if scene.robbed_kong else "render.card.on_discard"
        how = fit_names(lambda ns: txt(key, lang, who=_who(scene, d, lang, ns[0])), [scene.names[d]], 20,
                        width, min_size=16)
    return [win, how]


def seat_tag(scene: ScoreScene, s: int, lang: str = "zh") -> str:
    """The tag on seat ``s``'s payment row: "winner", "dealt in", "kong robbed" (the seat whose added kong the
    winner robbed: it pays as the variant rules, H6 / C8), or "" for the others."""
    lang = lang_of(lang)
    if s == scene.winner:
        return txt("render.card.winner_tag", lang)
    if s == scene.discarder:
        return txt("render.card.robbed_tag" if scene.robbed_kong else "render.card.dealt_in_tag", lang)
    return ""


def _stack_parts(scene: ScoreScene) -> list[int]:
    """Each seat's payment from the stacks (底): what is not its 交 part (all of it in a variant that does not
    split)."""
    return [p - j for p, j in zip(scene.payments, scene.jiao or (0, 0, 0, 0), strict=True)]


def _amounts(parts: Sequence[int], scene: ScoreScene, lang: str) -> str:
    """Amounts by wind, E first: "E -5 · S +15 · W -5 · N -5"."""
    seats = sorted(range(4), key=lambda s: _wind_of(scene, s))
    return " · ".join(f"{wind_name(_wind_of(scene, s), lang)} {parts[s]:+d}" if parts[s] else
                      f"{wind_name(_wind_of(scene, s), lang)} 0" for s in seats)


def payments_heading(scene: ScoreScene, lang: str = "zh") -> str:
    """The line over the payment rows in a variant whose payments split into the stacks (底) and the 交 tally
    (W11): where the amounts went ("Paid from the stacks (底)", "Paid into the jiao (交) tally ..."); "" in the
    others, or when nothing was paid."""
    if scene.jiao is None:
        return ""
    lang = lang_of(lang)
    jiao, stacks = any(scene.jiao), any(_stack_parts(scene))
    if jiao and stacks:
        return txt("render.card.stacks_and_jiao", lang)
    if jiao:
        return txt("render.card.to_jiao", lang)
    return txt("render.card.from_stacks", lang) if stacks else ""


def payment_notes(scene: ScoreScene, lang: str = "zh") -> list[str]:
    """The lines under the payment rows (before the key to the rulings): each part apart when a hand paid both
    from the stacks and into the 交 tally ("stacks (底): E -5 · ..." and "jiao (交): E -30 · ..."), then, for each
    payer whose stack held less than its items came to (W11), what it paid of what it owed, so that the items and
    the amounts add up.

    >>> from engine.tiles import parse_hand
    >>> sc = ScoreScene(parse_hand("123m456p789s11z"), (), (-7, -5, 13, -1), ("AI 1", "AI 2", "AI 3", "Newbie"), 2,
    ...                 3, jiao=(0, 0, 0, 0), owed=(-7, -5, 15, -5))
    >>> payments_heading(sc, "en")
    'Paid from the stacks (底)'
    >>> payment_notes(sc, "en")
    ["N Newbie's stack (底) held only 1 子: paid 1 子 of the 5 子 the hand's items came to"]
    """
    lang = lang_of(lang)
    out = []
    stacks = _stack_parts(scene)
    if scene.jiao is not None and any(scene.jiao) and any(stacks):
        out.append(txt("render.card.stacks_line", lang, amounts=_amounts(stacks, scene, lang)))
        out.append(txt("render.card.jiao_line", lang, amounts=_amounts(scene.jiao, scene, lang)))
    if scene.owed is not None:
        unit = txt("render.unit.zi", lang) if scene.unit == "子" else scene.unit
        jiao = scene.jiao or (0, 0, 0, 0)
        for s in sorted(range(4), key=lambda s: _wind_of(scene, s)):
            owed, paid = scene.owed[s] - jiao[s], stacks[s]  # the 交 part is never capped
            if owed < 0 and paid > owed:
                out.append(txt("render.card.stack_short", lang, who=_who(scene, s, lang), paid=f"{-paid} {unit}",
                               owed=f"{-owed} {unit}"))
    return out


def draw_score(scene: ScoreScene, theme: str | Theme = "dark", lang: str = "zh") -> Image.Image:
    th = theme_of(theme)
    lang = lang_of(lang)
    hand_img = draw_hand(HandScene.from_hand(scene.hand, seat=scene.winner, names=scene.names, winds=scene.winds),
                         th, lang, HAND_TILE_W, bg=th.panel)

    def wind(s: int) -> str:
        return wind_name(scene.winds[s] if scene.winds else s, lang)

    def name(s: int) -> str:
        """The seat's name, or its wind spelled out when the card has no names."""
        w = scene.winds[s] if scene.winds else s
        return seat_name(scene.names[s], w, lang)

    W = max(CARD_W, hand_img.width + 2 * MARGIN)
    # measure the rows first
    rule = rule_of(scene)
    rows = []
    for it in scene.items:
        lines, f = layout_item_name(item_text(it, lang), NAME_W - (RULE_W if rule(it) else 0))
        rows.append((it, lines, f, max(34, int(len(lines) * f.size * 1.35) + 10)))
    note_rows = []
    for it in scene.notes:
        lines, f = layout_item_name(item_text(it, lang) + (f" ({rule(it)})" if rule(it) else ""),
                                    W - 2 * MARGIN - 16)
        note_rows.append((lines, f, int(len(lines) * f.size * 1.35) + 6))
    # the key to the rulings' codes, under the payments: a code alone ("W4") says nothing to a player who has
    # not met /rules
    codes = [rule(it) for it in (*scene.items, *scene.notes) if rule(it)]
    key_lines: list[str] = []
    if codes:
        key_lines = _wrap(fonts.clean(txt("render.card.rules_key", lang, code=codes[0])), fonts.regular(KEY_SIZE),
                          W - 2 * MARGIN - 16)
    key_h = int(len(key_lines) * KEY_SIZE * 1.35) + 8 if key_lines else 0
    # where the payments went (Wuhu: the stacks or the 交 tally) over the rows; each part apart and what a short
    # stack paid under them
    heading = payments_heading(scene, lang)
    heading_h = PAY_NOTE_H if heading else 0
    unit = txt("render.unit.zi", lang) if scene.unit == "子" else scene.unit
    pay_lines = [ln.replace(GLUE, " ") for note in payment_notes(scene, lang)  # "5 子" kept on one line
                 for ln in _wrap(fonts.clean(note).replace(f" {unit}", GLUE + unit), fonts.regular(PAY_NOTE_SIZE),
                                 W - 2 * MARGIN - 16)]
    pay_h = int(len(pay_lines) * PAY_NOTE_SIZE * 1.35) + 8 if pay_lines else 0
    header_h = HEADER_H
    H = (MARGIN + header_h + hand_img.height + 14 + sum(r[3] for r in rows) + 12 + sum(r[2] for r in note_rows)
         + (50 if scene.total is not None else 0) + 20 + heading_h + 4 * 40 + pay_h + key_h + MARGIN)
    img = Image.new("RGB", (W, H), th.bg)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((6, 6, W - 7, H - 7), radius=16, fill=th.panel)
    # header: the title, who won, and how (self-drawn, or on whose discard), each on a line of its own
    y = MARGIN
    title = given(scene.title, lang) if scene.title else txt("render.card.win", lang)
    draw_text(img, (MARGIN, y), title, 18, th.subtext, max_width=W - 2 * MARGIN)
    for (line, size), dy in zip(headline(scene, lang, W - 2 * MARGIN), (26, 58), strict=True):
        draw_text(img, (MARGIN, y + dy), line, size, th.text, max_width=W - 2 * MARGIN)
    y += header_h
    img.paste(hand_img, (MARGIN - 6, y))
    y += hand_img.height + 14
    # breakdown
    for it, lines, f, h in rows:
        d.line((MARGIN, y, W - MARGIN, y), fill=th.grid, width=1)
        ty = y + (h - len(lines) * f.size * 1.35) / 2
        color = th.subtext if it.kind == "info" else th.text
        for ln in lines:
            draw_text(img, (MARGIN + 8, ty), ln, int(f.size), color, bold=f.path == str(fonts.BOLD))
            ty += f.size * 1.35
        if rule(it):  # right-aligned at the end of the name column, so the rulings line up
            draw_text(img, (W - MARGIN - 8 - VALUE_W - 4, y + h / 2), rule(it), RULE_SIZE, th.subtext, anchor="rm",
                      bold=False)
        vcol = th.subtext if it.kind == "info" else th.accent
        draw_text(img, (W - MARGIN - 8, y + h / 2), _value_text(it), 22, vcol, anchor="rm")
        y += h
    d.line((MARGIN, y, W - MARGIN, y), fill=th.grid, width=1)
    y += 12
    for lines, f, h in note_rows:
        ty = y
        for ln in lines:
            draw_text(img, (MARGIN + 8, ty), ln, int(f.size), th.subtext, bold=False)
            ty += f.size * 1.35
        y += h
    if scene.total is not None:
        draw_text(img, (MARGIN + 8, y + 22), txt("render.card.total", lang), 24, th.text, anchor="lm")
        draw_text(img, (W - MARGIN - 8, y + 22), str(scene.total), 28, th.accent, anchor="rm")
        y += 50
    y += 20
    names_bold = fonts.bold_for(name(s) for s in range(4))  # one face for the four names
    # payments: the amount column as wide as the widest amount (a 5-digit payment never runs into the tag)
    amounts = [f"{a:+d} {unit}" if a else f"0 {unit}" for a in scene.payments]
    amount_w = max(AMOUNT_MIN_W, *(fonts.text_width(fonts.clean(a), fonts.text_font(fonts.clean(a), AMOUNT_SIZE))
                                   for a in amounts))
    tag_x = W - MARGIN - 12 - amount_w - 12  # the tag ends where the amount column begins
    if heading:
        draw_text(img, (MARGIN + 8, y + PAY_NOTE_H / 2 - 4), heading, PAY_NOTE_SIZE, th.subtext, anchor="lm",
                  bold=False, max_width=W - 2 * MARGIN - 16)
        y += heading_h
    for s in range(4):
        amount = scene.payments[s]
        row_bg = th.panel_hi if s == scene.winner else th.panel
        d.rounded_rectangle((MARGIN, y, W - MARGIN, y + 36), radius=8, fill=row_bg)
        tag = seat_tag(scene, s, lang)
        draw_text(img, (MARGIN + 12, y + 18), wind(s), 20, th.subtext, anchor="lm")
        tag_w = draw_text(img, (tag_x, y + 18), tag, 16, th.accent, anchor="rm") + 8 if tag else 0
        draw_text(img, (MARGIN + 44, y + 18), name(s), 20, th.text, anchor="lm", bold=names_bold,
                  max_width=tag_x - tag_w - MARGIN - 44 - 6)
        col = th.plus if amount > 0 else th.minus if amount < 0 else th.subtext
        draw_text(img, (W - MARGIN - 12, y + 18), amounts[s], AMOUNT_SIZE, col, anchor="rm")
        y += 40
    py = y + 8.0
    for ln in pay_lines:
        draw_text(img, (MARGIN + 8, py), ln, PAY_NOTE_SIZE, th.text, bold=False)
        py += PAY_NOTE_SIZE * 1.35
    ky = y + pay_h + 8.0
    for ln in key_lines:
        draw_text(img, (MARGIN + 8, ky), ln, KEY_SIZE, th.subtext, bold=False)
        ky += KEY_SIZE * 1.35
    return img


def render_score(scene: ScoreScene, theme: str | Theme = "dark", lang: str = "zh") -> bytes:
    """PNG bytes of the score card (see :class:`render.scene.ScoreScene`)."""
    return encode(draw_score(scene, theme, lang), theme)


def render_score_card(
    hand: Hand,
    result: ScoreResult,
    situation: Situation | None = None,
    *,
    lang: str = "zh",
    theme: str | Theme = "dark",
    names: Sequence[str] | None = None,
    title: str = "",
) -> bytes:
    """PNG bytes of the score card straight from the engine's scoring: ``hand`` (with its winning tile), the
    :class:`ScoreResult`, and optionally the :class:`Situation` (for who dealt in) and the seats' names (default:
    the winds, seat i = wind i)."""
    lang = lang_of(lang)
    if names is None:
        names = ("", "", "", "")  # the card spells out the winds
    if not title:
        try:
            from engine.variants import get_variant

            v = get_variant(result.variant)
            title = named(v.zh, v.en, lang)
        except Exception:  # noqa: BLE001 - a title is a nicety
            title = ""
        mode = result.extra.get("mode") if result.extra else None
        if mode and title:
            title = f"{title} · {mode}"
    scene = ScoreScene.from_result(hand, result, names, discarder=situation.discarder if situation else None,
                                   title=title, robbed_kong=bool(situation and situation.rob_kong))
    return render_score(scene, theme, lang)
