"""``mjbot local``'s review: the AI's review of the player's decisions in a finished hand, and over the match, as
lines of text for the terminal.

The numbers and words are the review card's (:func:`engine.review.review_hand` over the hand's
:class:`engine.replay.HandReplay`, rebuilt from the match's seed and actions as the bot rebuilds a stored hand; the
card's own texts from :mod:`render.replay`): each costly decision with the player's choice and the AI's, both priced
in expected 子 by the strong AI's evaluator, the loss and the reason. A terminal has no replay to step through, so a
decision is placed by the tiles left in the wall and shown with the player's concealed tiles at that moment instead
of the card's step numbers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from engine.replay import HandReplay
from engine.review import HandReview, MatchReview, Review, review_hand
from engine.tiles import HONOR
from render.match_review import match_review_capped, match_review_head, match_review_kinds
from render.replay import (
    REVIEW_MAX_ROWS,
    counts_line,
    describe_priced,
    describe_reason,
    review_head,
    review_rows_any,
    threat_name,
)
from text.catalog import text


def _tr(lang: str, key: str, **params: Any) -> str:
    return text(f"local.{key}", lang, **params)


_NOTATION_HONOUR = re.compile(r"\b([1-7])z\b")


def _honours(line: str, tile_label: Any) -> str:
    """The card's English names an honour in the notation (``3z``); the terminal writes it by its character (西), as
    everywhere else on its screen."""
    return _NOTATION_HONOUR.sub(lambda m: tile_label(HONOR + int(m.group(1)) - 1), line)


def _zi(x: float) -> str:
    return f"{x:.1f}".replace("-0.0", "0.0")


class HandReviews:
    """The reviews of one seat's finished hands of a terminal match, each made once when first asked for.

    ``actions``: every action applied to the match so far (the list the terminal appends to), ``players``: the
    names the table was made with; ``tile_label``: how the terminal writes a tile kind."""

    def __init__(self, variant: str, seed: int, settings: dict[str, Any], players: Sequence[str],
                 actions: Sequence[Any], seat: int, lang: str, tile_label: Any) -> None:
        self.variant, self.seed, self.settings = variant, seed, settings
        self.players = tuple(players)
        self.actions = actions
        self.seat, self.lang, self.tile_label = seat, lang, tile_label
        self.done: dict[int, tuple[HandReplay, Review]] = {}

    def hand(self, hand_no: int) -> tuple[HandReplay, Review]:
        """The finished hand ``hand_no`` (0-based) and the seat's review of it."""
        if hand_no not in self.done:
            rp = HandReplay.build(self.variant, self.seed, self.settings, list(self.actions), hand_no, self.players)
            self.done[hand_no] = (rp, review_hand(rp, self.seat))
        return self.done[hand_no]

    # ------------------------------------------------------------------------------------------------ a hand

    def held(self, view: Mapping[str, Any]) -> str:
        """The seat's concealed tiles, then its melds as the terminal's table writes them ([claimed], (concealed
        kong))."""
        out = [" ".join(self.tile_label(k) for k in sorted(view["hand"]))]
        for m in view["melds"][self.seat]:
            body = " ".join(self.tile_label(k) for k in m["tiles"])
            out.append(f"({body})" if m["kind"] == "concealed_kong" else f"[{body}]")
        return " ".join(out)

    def hand_lines(self, hand_no: int) -> list[str]:
        """The review of hand ``hand_no``: what the decisions cost, the counts, what it judges on, then each of the
        costliest disagreements (the card's five) with the wall left, the tiles held, the two choices priced, the
        loss and the reason; the smaller ones summed; risky tiles against one seat counted as one deal-in."""
        rp, review = self.hand(hand_no)
        lang, names, winds = self.lang, self.players, rp.winds
        cost, _summary, visible = review_head(review, lang)
        out = [_tr(lang, "review_title", n=hand_no + 1), cost]
        if review.decisions:
            out.append(counts_line(len(review.decisions), review.disagreements, review.costly, lang))
        out.append(visible)
        costly = [d for d in review.decisions if d.costly]
        listed = sorted(sorted(costly, key=lambda d: (-d.cost, d.step))[:REVIEW_MAX_ROWS], key=lambda d: d.step)
        for d in listed:
            v = rp.view(d.step - 1, self.seat)
            out.append(_tr(lang, "review_at", wall=v["wall_count"], tiles=self.held(v)))
            out.append(_tr(lang, "review_you", text=describe_priced(d.played, lang, d.timeout)))
            out.append(_tr(lang, "review_ai", text=describe_priced(d.ai, lang)))
            out.append(_tr(lang, "review_why", loss=_zi(d.cost), why=describe_reason(d, lang, names, winds)))
        more = [d for d in costly if d not in listed]
        if more:
            out.append(_tr(lang, "review_more" if len(more) > 1 else "review_more_one", n=len(more),
                           cost=_zi(round(sum(d.cost for d in more), 1))))
        for ds, total, counted in review.capped():
            walls = ", ".join(str(rp.view(d.step - 1, self.seat)["wall_count"]) for d in ds)
            out.append(_tr(lang, "review_capped", walls=walls, who=threat_name(ds[0], lang, names, winds),
                           total=_zi(total), cost=_zi(counted)))
        equal = sum(1 for d in review.decisions if not d.agrees and not d.costly)
        if equal:
            out.append(_tr(lang, "review_as_good" if equal > 1 else "review_as_good_one", n=equal))
        if review_rows_any(review):
            out.append(text("render.review.legend", lang))
        return [_honours(line, self.tile_label) for line in out]

    # ------------------------------------------------------------------------------------------------ the match

    def match_lines(self, hands: Sequence[int]) -> list[str]:
        """The review over the finished hands ``hands``: what the decisions cost in all, the counts, and the kinds of
        loss (faster, bigger, safer ...) with their 子."""
        if not hands:
            return []
        m = MatchReview(self.seat, tuple(HandReview(h, tuple(self.hand(h)[0].winds), self.hand(h)[1])
                                         for h in hands))
        lang = self.lang
        title, cost, counts, visible = match_review_head(m, self.variant, lang)
        out = [_tr(lang, "review_match_title", title=title), cost, counts, visible]
        kinds = match_review_kinds(m, lang)
        if kinds:
            out.append(_tr(lang, "review_list", title=text("render.match_review.kinds", lang),
                           items=" · ".join(f"{kind} {line}" for kind, line in kinds)))
        capped = match_review_capped(m, lang)
        if capped:
            out.append(capped)
        out.append(_tr(lang, "review_list", title=text("render.match_review.by_hand", lang),
                       items=" · ".join(_tr(lang, "review_hand_cost", n=h.hand_no + 1, cost=_zi(h.review.cost))
                                        for h in m.hands)))
        return out
