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

from .common import Theme, draw_text, encode, lang_of, theme_of, txt
from .replay import REVIEW_W, _variant, _zi, describe_priced, describe_reason

TOP = 5  # the costliest decisions listed
ROW_H = 96  # a listed decision: the player's choice, the AI's under it, the reason under that
KIND_H = 40  # a kind of loss: its label and figures, a bar under them
HEAD_H = 150
CHART_H = 86  # the loss of each hand


def kind_label(kind: str, lang: str = "zh") -> str:
    """A kind of loss in words.

    >>> kind_label("safer", "en"), kind_label("bigger", "zh")
    ('Pushing into danger', '错过更大的牌')
    """
    return txt(f"render.match_review.kind.{kind}", lang_of(lang))


def match_review_summary(review: MatchReview, lang: str = "zh") -> str:
    """"N hands: D decisions, M where the AI disagrees; they cost about X 子, the most in hand H at step K (Y 子)".

    >>> from engine.review import Choice, Decision, HandReview, Review
    >>> from engine.table import Action
    >>> d = Decision(3, 0, Choice(Action("discard", 0, 1), 2, 20, ev=1.5), Choice(Action("discard", 0, 9), 1, 8,
    ...              ev=2.75), reason="faster")
    >>> m = MatchReview(0, (HandReview(0, (0, 1, 2, 3), Review(0, ())), HandReview(1, (3, 0, 1, 2), Review(0, (d,)))))
    >>> match_review_summary(m, "en")
    '2 hands: 1 decision, 1 where the AI disagrees; they cost about 1.2 子, the most in hand 2 at step 3 (1.2 子)'
    >>> match_review_summary(m, "zh")
    '2 局：共 1 次决策，AI 有 1 次选得不同，约损失 1.2 子，差别最大在第 2 局第 3 步（1.2 子）'
    """
    lang = lang_of(lang)
    n = len(review.hands)
    counts = txt("render.review.summary_one" if review.decisions == 1 else "render.review.summary", lang,
                 n=review.decisions, m=review.disagreements)
    out = txt("render.match_review.summary_one_hand" if n == 1 else "render.match_review.summary", lang, hands=n,
              counts=counts)
    top = review.costliest(1)
    if not top:
        return out
    h, d = top[0]
    return txt("render.match_review.biggest", lang, summary=out, cost=_zi(review.cost), hand=h.hand_no + 1,
               step=d.step, loss=_zi(d.cost))


def match_review_rows(review: MatchReview, lang: str = "zh", names: Sequence[str] | None = None
                      ) -> list[tuple[str, str, str, str, str, str]]:
    """The costliest decisions as the card draws them: (the hand, the step, the loss, the player's choice priced,
    the AI's choice priced, the reason in words), costliest first."""
    lang = lang_of(lang)
    out = []
    for h, d in review.costliest(TOP):
        out.append((txt("render.match_review.hand", lang, hand=h.hand_no + 1),
                    txt("render.replay.step", lang, step=d.step),
                    txt("render.review.loss", lang, loss=_zi(d.cost)),
                    txt("render.replay.you_prefix", lang) + describe_priced(d.played, lang),
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
    cost = (txt("render.match_review.cost", lang, cost=_zi(review.cost)) if review.disagreements
            else txt("render.match_review.no_cost", lang))
    counts = txt("render.review.summary_one" if review.decisions == 1 else "render.review.summary", lang,
                 n=review.decisions, m=review.disagreements)
    return title, cost, counts, txt("render.review.visible_only", lang)


def draw_match_review(review: MatchReview, variant: str, theme: str | Theme = "dark", lang: str = "zh",
                      names: Sequence[str] | None = None) -> Image.Image:
    th = theme_of(theme)
    lang = lang_of(lang)
    margin, pad = 12, 14
    W = REVIEW_W
    kinds = review.kinds()
    kind_rows = match_review_kinds(review, lang)
    rows = match_review_rows(review, lang, names)
    sections = (40 + KIND_H * len(kinds) if kinds else 0) + (40 + ROW_H * len(rows) if rows else 0)
    H = margin + HEAD_H + sections + 40 + CHART_H + pad + margin
    img = Image.new("RGB", (W, H), th.bg)
    d = ImageDraw.Draw(img)
    d.rounded_rectangle((margin, margin, W - margin, H - margin), radius=12, fill=th.panel)
    x0 = margin + pad
    x1 = W - margin - pad
    full = x1 - x0
    title, cost, counts, note = match_review_head(review, variant, lang)
    draw_text(img, (x0, margin + 10), title, 24, th.text, max_width=full)
    draw_text(img, (x0, margin + 46), cost, 21, th.minus if review.cost >= 0.05 else th.plus, max_width=full)
    draw_text(img, (x0, margin + 80), counts, 18, th.subtext, bold=False, max_width=full)
    draw_text(img, (x0, margin + 108), note, 18, th.subtext, bold=False, max_width=full)
    y = margin + HEAD_H
    if kinds:
        draw_text(img, (x0, y + 6), txt("render.match_review.kinds", lang), 20, th.accent, max_width=full)
        y += 40
        most = max(c for _, _, c in kinds) or 1.0
        for (label, figures), (_, _, c) in zip(kind_rows, kinds, strict=True):
            w = draw_text(img, (x1, y + 2), figures, 18, th.subtext, bold=False, anchor="ra")
            draw_text(img, (x0, y), label, 19, th.text, max_width=full - w - 12)
            d.rounded_rectangle((x0, y + 27, x1, y + 33), radius=3, fill=th.panel_hi)
            if c >= 0.05:
                d.rounded_rectangle((x0, y + 27, x0 + max(6, round(full * c / most)), y + 33), radius=3, fill=th.minus)
            y += KIND_H
    if rows:
        draw_text(img, (x0, y + 6), txt("render.match_review.costliest", lang), 20, th.accent, max_width=full)
        y += 40
        col = 96
        for i, (hand, step, loss, you, ai, why) in enumerate(rows):
            if i == 0:
                d.rounded_rectangle((x0 - 6, y - 2, x1 + 6, y + ROW_H - 6), radius=8, outline=th.accent, width=3)
            draw_text(img, (x0, y + 5), hand, 19, th.accent if i == 0 else th.subtext, max_width=col - 6)
            draw_text(img, (x0, y + 33), step, 18, th.subtext, bold=False, max_width=col - 6)
            draw_text(img, (x0, y + 60), loss, 18, th.minus, bold=False, max_width=col - 6)
            draw_text(img, (x0 + col, y + 4), you, 20, th.minus, max_width=full - col)
            draw_text(img, (x0 + col, y + 32), ai, 20, th.plus, max_width=full - col)
            draw_text(img, (x0 + col, y + 60), why, 17, th.subtext, bold=False, max_width=full - col)
            y += ROW_H
    # the loss of each hand: one bar per hand, its number under it
    draw_text(img, (x0, y + 6), txt("render.match_review.by_hand", lang), 20, th.accent, max_width=full)
    y += 40
    n = max(1, len(review.hands))
    slot = full / n
    top_cost = max((h.review.cost for h in review.hands), default=0.0) or 1.0
    base = y + CHART_H - 26
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
    return img


def render_match_review(review: MatchReview, variant: str, theme: str | Theme = "dark", lang: str = "zh",
                        names: Sequence[str] | None = None) -> bytes:
    """PNG bytes of :func:`draw_match_review`."""
    return encode(draw_match_review(review, variant, theme, lang, names), theme)


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
