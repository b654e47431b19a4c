"""The match review card: over the ended hands of a match, what one player's decisions cost against the strong AI's.

Built from :class:`engine.review.MatchReview` (each hand reviewed as the hand's own review card does, by the strong
AI's evaluator, from the player's own view at each decision):

- the head: what the decisions cost in the match (the sum of every decision's loss, 子), the counts, and the note
  that only what the player could see at the time is judged;
- where the 子 went, by kind: pushing into danger (the AI's tile was safer), a slower hand, missed value (a bigger
  hand), a weaker shape; each with its count, its 子 and a bar;
- the costliest decisions (:data:`TOP`): the hand and step, the loss, the player's choice and the AI's with their
  expected 子, the reason in words;
- the loss of each hand as a small bar chart.

``match_review_summary`` is the one-line text sent with the card. Drawn 480 px wide like the hand's review card, so
it reads on a ~400 px phone screen. ``python -m render.match_review docs/images`` writes the example cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image, ImageDraw

from engine.review import MatchReview

from . import fonts
from .common import Theme, draw_text, encode, lang_of, theme_of, txt
from .replay import (
    REVIEW_W,
    WHY_SIZE,
    CardText,
    TextBlocks,
    _variant,
    _zi,
    counts_line,
    describe_priced,
    describe_reason,
    draw_card,
    set_lines,
)

TOP = 4
"""The costliest decisions listed. With five, a match of long reasons made a card 1,220 px tall (1,020 on a 400 px phone);
with four it stays near a screen like the hand's card (:data:`render.replay.REVIEW_MAX_ROWS`); every decision is on
its hand's card and the replay."""
ROW_H = 96  # a listed decision: the player's choice, the AI's under it, the reason under that
KIND_H = 40  # a kind of loss: its label and figures, a bar under them
CHART_H = 86  # the loss of each hand


def kind_label(kind: str, lang: str = "zh") -> str:
    """A kind of loss in words.

    >>> kind_label("safer", "en"), kind_label("bigger", "zh")
    ('Pushing into danger', '错过更大的牌')
    """
    return txt(f"render.match_review.kind.{kind}", lang_of(lang))


def match_review_summary(review: MatchReview, lang: str = "zh", *, show_all: bool = False) -> str:
    """"N hands: D decisions, M where the AI disagrees; they cost about X 子, the most in hand H at step K (Y 子)":
    step K as hand H's replay numbers it for the player (:meth:`engine.review.HandReview.number`, ``show_all`` as
    the replay has it).

    >>> from engine.review import Choice, Decision, HandReview, Review
    >>> from engine.table import Action
    >>> d = Decision(3, 0, Choice(Action("discard", 0, 1), 2, 20, ev=1.5), Choice(Action("discard", 0, 9), 1, 8,
    ...              ev=2.75), reason="faster")
    >>> m = MatchReview(0, (HandReview(0, (0, 1, 2, 3), Review(0, ())), HandReview(1, (3, 0, 1, 2), Review(0, (d,)))))
    >>> match_review_summary(m, "en")
    '2 hands: 1 decision, 1 where the AI disagrees; they cost about 1.3 子, the most in hand 2 at step 3 (1.3 子)'
    >>> match_review_summary(m, "zh")
    '2 局：共 1 次决策，AI 有 1 次选得不同，约损失 1.3 子，差别最大在第 2 局第 3 步（1.3 子）'
    """
    lang = lang_of(lang)
    n = len(review.hands)
    counts = counts_line(review.decisions, review.disagreements, review.costly, lang)
    out = txt("render.match_review.summary_one_hand" if n == 1 else "render.match_review.summary", lang, hands=n,
              counts=counts)
    top = review.costliest(1)
    if top:
        h, d = top[0]
        out = txt("render.match_review.biggest", lang, summary=out, cost=_zi(review.cost), hand=h.hand_no + 1,
                  step=h.number(d.step, show_all=show_all), loss=_zi(d.cost))
    if review.by_ai:  # the moves the AI made for the player (away, 托管), not reviewed: as the hand's card says
        out += "\n" + txt("render.review.by_ai", lang, n=review.by_ai)
    return out


def match_review_rows(review: MatchReview, lang: str = "zh", names: Sequence[str] | None = None, *,
                      show_all: bool = False) -> list[tuple[str, str, str, str, str, str]]:
    """The costliest decisions as the card draws them: (the hand, the step as the hand's replay numbers it for the
    player, the loss, the player's choice priced, the AI's choice priced, the reason in words), costliest first."""
    lang = lang_of(lang)
    out = []
    for h, d in review.costliest(TOP):
        out.append((txt("render.match_review.hand", lang, hand=h.hand_no + 1),
                    txt("render.replay.step", lang, step=h.number(d.step, show_all=show_all)),
                    txt("render.review.loss", lang, loss=_zi(d.cost)),
                    txt("render.replay.you_prefix", lang) + describe_priced(d.played, lang, d.timeout),
                    txt("render.replay.ai_prefix", lang) + describe_priced(d.ai, lang),
                    describe_reason(d, lang, names, h.winds)))
    return out


def match_review_kinds(review: MatchReview, lang: str = "zh") -> list[tuple[str, str]]:
    """(kind in words, its count and 子) as the card draws them, costliest first."""
    lang = lang_of(lang)
    return [(kind_label(k, lang), txt("render.match_review.kind_line", lang, n=n, cost=_zi(c)))
            for k, n, c in review.kinds()]


def match_review_head(review: MatchReview, variant: str, lang: str = "zh") -> tuple[str, str, str, str]:
    """The card's title, its cost line, the counts and the note on what is judged."""
    lang = lang_of(lang)
    n = len(review.hands)
    title = txt("render.match_review.title_one" if n == 1 else "render.match_review.title", lang,
                variant=_variant(variant, lang), n=n)
    if review.cost >= 0.05:
        cost = txt("render.match_review.cost", lang, cost=_zi(review.cost))
    elif not review.decisions and review.by_ai:  # the AI played every move of the player's (away, 托管)
        cost = txt("render.match_review.all_by_ai", lang)
    elif not review.decisions:  # no hand of it gave the player a choice to make
        cost = txt("render.match_review.no_decisions", lang)
    else:
        cost = txt("render.match_review.no_loss" if review.disagreements else "render.match_review.no_cost", lang)
    counts = counts_line(review.decisions, review.disagreements, review.costly, lang)
    return title, cost, counts, txt("render.review.visible_only", lang)


def match_review_capped(review: MatchReview, lang: str = "zh") -> str:
    """The line saying how much the total does not charge because risky choices against one seat in a hand added up
    to more than one deal-in to it (:func:`engine.review.one_deal_in`); "" when nothing was."""
    off = review.capped_off
    return txt("render.match_review.capped", lang_of(lang), cost=_zi(off)) if off >= 0.05 else ""


def match_review_layout(review: MatchReview, variant: str, lang: str = "zh", names: Sequence[str] | None = None,
                        *, show_all: bool = False) -> tuple[int, list[CardText], list[tuple[int, int, int, int]], list[tuple[int, float, float]],
                                   int]:
    """The match review card as it is drawn: its height, every line of text (:class:`render.replay.CardText`), the
    frame around the costliest decision, the kinds' bars (top y, the kind's 子, the largest kind's 子) and the top of
    the chart of each hand's loss. Reasons are wrapped, never shortened (:func:`render.replay.set_lines`)."""
    lang = lang_of(lang)
    margin, pad = 12, 14
    x0 = margin + pad
    x1 = REVIEW_W - margin - pad
    full = x1 - x0
    out: list[CardText] = []
    frames: list[tuple[int, int, int, int]] = []
    bars: list[tuple[int, float, float]] = []

    block = TextBlocks(out, full, x0)

    title, cost, counts, note = match_review_head(review, variant, lang)
    y = block(margin + 10, title, 24, "title", gap=10, max_lines=1)
    y = block(y, cost, 21, "bad" if review.cost >= 0.05 else "good", gap=9, max_lines=1)
    y = block(y + 2, counts, 18, "sub", bold=False, gap=9)
    if review.by_ai:  # the moves the AI made for the player (away, 托管), as the hand's card says
        y = block(y, txt("render.review.by_ai", lang, n=review.by_ai), 18, "sub", bold=False, gap=9)
    y = block(y, note, 18, "sub", bold=False, gap=9)
    capped = match_review_capped(review, lang)
    if capped:
        y = block(y, capped, 18, "sub", bold=False, gap=9)
    if review.costly:
        y = block(y, txt("render.review.legend", lang), 15, "sub", bold=False, gap=6)
    y += 10
    kinds = review.kinds()
    if kinds:
        y = block(y + 6, txt("render.match_review.kinds", lang), 20, "accent") + 8
        most = max(c for _, _, c in kinds) or 1.0
        labels = match_review_kinds(review, lang)
        # one weight for the list: bold only when the bold face has every label (in Chinese some fall back to the
        # regular face, and a label it covers, 漏和, stood out bold among them)
        bold = all(fonts.has_bold(label) for label, _ in labels)
        for (label, figures), (_, _, c) in zip(labels, kinds, strict=True):
            lines, sz = set_lines(figures, 18, full, bold=False, max_lines=1)
            w = round(fonts.text_width(lines[0], fonts.text_font(lines[0], sz, False)))
            out.append(CardText(x1 - w, y + 2, lines[0], sz, "sub", False))
            block(y, label, 19, "text", full - w - 12, bold=bold, max_lines=1)
            bars.append((y + 27, c, most))
            y += KIND_H
    rows = match_review_rows(review, lang, names, show_all=show_all)
    if rows:
        y = block(y + 6, txt("render.match_review.costliest", lang), 20, "accent") + 8
        col = 96
        for i, (hand, step, loss, you, ai, why) in enumerate(rows):
            top = y
            out.append(CardText(x0, y + 5, hand, 19, "accent" if i == 0 else "sub"))
            out.append(CardText(x0, y + 33, step, 18, "sub", False))
            out.append(CardText(x0, y + 60, loss, 18, "bad", False))
            # each line under the one before, however many lines it took (a long one wraps at the smallest size)
            y_ai = max(y + 32, block(y + 4, you, 20, "bad", full - col, x0 + col, gap=8, max_lines=1))
            y_why = max(y_ai + 28, block(y_ai, ai, 20, "good", full - col, x0 + col, gap=8, max_lines=1))
            y = block(y_why, why, WHY_SIZE, "sub", full - col, x0 + col, bold=False, gap=5, max_lines=3)
            y = max(y + 14, top + ROW_H)
            if i == 0:
                frames.append((x0 - 6, top - 2, x1 + 6, y - 6))
    y = block(y + 6, txt("render.match_review.by_hand", lang), 20, "accent") + 8
    chart = y
    return chart + CHART_H + pad + margin, out, frames, bars, chart


def draw_match_review(review: MatchReview, variant: str, theme: str | Theme = "dark", lang: str = "zh",
                      names: Sequence[str] | None = None, *, show_all: bool = False) -> Image.Image:
    """The match review card (:func:`match_review_layout`): its lines, the kinds' bars and each hand's loss."""
    return _match_card(review, variant, theme, lang, names, show_all=show_all)[0]


def _match_card(review: MatchReview, variant: str, theme: str | Theme = "dark", lang: str = "zh",
                names: Sequence[str] | None = None, *, show_all: bool = False) -> tuple[Image.Image, list[CardText]]:
    th = theme_of(theme)
    lang = lang_of(lang)
    margin, pad = 12, 14
    x0 = margin + pad
    x1 = REVIEW_W - margin - pad
    full = x1 - x0
    H, texts, frames, bars, chart = match_review_layout(review, variant, lang, names, show_all=show_all)
    img = draw_card(texts, frames, H, th)
    d = ImageDraw.Draw(img)
    for y, c, most in bars:
        d.rounded_rectangle((x0, y, x1, y + 6), radius=3, fill=th.panel_hi)
        if c >= 0.05:
            d.rounded_rectangle((x0, y, x0 + max(6, round(full * c / most)), y + 6), radius=3, fill=th.minus)
    # the loss of each hand: one bar per hand, its number under it
    n = max(1, len(review.hands))
    slot = full / n
    top_cost = max((h.review.cost for h in review.hands), default=0.0) or 1.0
    base = chart + CHART_H - 26
    d.line((x0, base, x1, base), fill=th.subtext, width=1)
    every = max(1, round(28 / slot))  # numbers at least 28 px apart
    for i, h in enumerate(review.hands):
        cx = x0 + slot * (i + 0.5)
        bw = max(3, min(26, slot * 0.6))
        hgt = round((CHART_H - 34) * h.review.cost / top_cost)
        if hgt:
            d.rectangle((round(cx - bw / 2), base - hgt, round(cx + bw / 2), base), fill=th.minus)
        if i % every == 0:
            draw_text(img, (cx, base + 4), str(h.hand_no + 1), 14, th.subtext, bold=False, anchor="ma")
    return img, texts


def render_match_review(review: MatchReview, variant: str, theme: str | Theme = "dark", lang: str = "zh",
                        names: Sequence[str] | None = None, *, show_all: bool = False) -> bytes:
    """PNG bytes of :func:`draw_match_review` (``show_all`` as the replays have it: how steps are numbered)."""
    return match_review_card(review, variant, theme, lang, names, show_all=show_all)[0]


def match_review_card(review: MatchReview, variant: str, theme: str | Theme = "dark", lang: str = "zh",
                      names: Sequence[str] | None = None, *, show_all: bool = False) -> tuple[bytes, list[CardText]]:
    """PNG bytes of :func:`draw_match_review` and the lines of text drawn on it."""
    img, texts = _match_card(review, variant, theme, lang, names, show_all=show_all)
    return encode(img, theme), texts


def _examples(out: str) -> None:
    """``python -m render.match_review OUTDIR``: the example cards of docs/replay.md (six hands of AI play, seat 0
    the easy AI so the review has something to say)."""
    import random
    from pathlib import Path

    from engine.replay import HandReplay
    from engine.review import review_match
    from engine.selfplay import play_match
    from engine.table import Table

    names = ("小明", "Alice", "王大锤", "Bob the Builder")
    t = Table.new("wuhu", "img")
    acts: list[Any] = []
    play_match(t, ["easy", "normal", "normal", "normal"], random.Random("img"), max_hands=6, record=acts)
    mr = review_match(HandReplay.each("wuhu", "img", {}, acts), 0)
    d = Path(out)
    d.mkdir(parents=True, exist_ok=True)
    (d / "match-review.png").write_bytes(render_match_review(mr, "wuhu", "dark", "zh", names))
    (d / "match-review-light-en.png").write_bytes(render_match_review(mr, "wuhu", "light", "en", names))


if __name__ == "__main__":
    import sys

    _examples(sys.argv[1] if len(sys.argv) > 1 else "docs/images")
