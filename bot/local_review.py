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

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engine.replay import HandReplay
from engine.review import Choice, Decision, HandReview, MatchReview, Review, review_hand
from engine.table import Action
from render.common import join_list
from render.match_review import match_review_capped, match_review_head, match_review_kinds
from render.replay import (
    EXPLAINED,
    REVIEW_MAX_ROWS,
    _zi,
    counts_line,
    describe_reason,
    explained,
    review_head,
    review_rows_any,
    threat_name,
)
from text.catalog import text

END_TYPOS = 3
"""At the match's end, the answers other than r, m or Enter asked again before the terminal leaves anyway."""
HANDS_A_LINE = 6
"""The match review's loss of each hand: this many hands a line (a long match stays inside a terminal's width)."""


class HandReviews:
    """The reviews of one seat's finished hands of a terminal match, each made once when first asked for.

    ``actions``: every action applied to the match so far (the list the terminal appends to), ``players``: the
    names the table was made with; ``tile_label``: how the terminal writes a tile kind; ``describe``: how its menu
    writes an action offered in a phase."""

    def __init__(self, variant: str, seed: int, settings: dict[str, Any], players: Sequence[str],
                 actions: Sequence[Any], seat: int, lang: str, tile_label: Callable[[int], str],
                 describe: Callable[[Action, str], str]) -> None:
        self.variant, self.seed, self.settings = variant, seed, settings
        self.players = tuple(players)
        self.actions = actions
        self.seat, self.lang, self.tile_label, self.describe = seat, lang, tile_label, describe
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
        out = [text("local.review_title", lang, n=hand_no + 1), cost]
        if review.decisions:
            out.append(counts_line(len(review.decisions), review.disagreements, review.costly, lang))
        out.append(visible)
        costly = [d for d in review.decisions if d.costly]
        listed = sorted(sorted(costly, key=lambda d: (-d.cost, d.step))[:REVIEW_MAX_ROWS], key=lambda d: d.step)
        for d in listed:
            v = rp.view(d.step - 1, self.seat)
            out.append(text("local.review_at", lang, wall=v["wall_count"], tiles=self.held(v)))
            out.append(text("local.review_you", lang, text=self.priced(d.played, v["phase"], d.timeout)))
            out.append(text("local.review_ai", lang, text=self.priced(d.ai, v["phase"])))
            out.append(text("local.review_why", lang, loss=_zi(d.cost), why=self.reason(d, winds)))
        more = [d for d in costly if d not in listed]
        if more:
            out.append(text("local.review_more" if len(more) > 1 else "local.review_more_one", lang, n=len(more),
                           cost=_zi(round(sum(d.cost for d in more), 1))))
        for ds, total, counted in review.capped():
            walls = ", ".join(str(rp.view(d.step - 1, self.seat)["wall_count"]) for d in ds)
            out.append(text("local.review_capped", lang, walls=walls, who=threat_name(ds[0], lang, names, winds),
                           total=_zi(total), cost=_zi(counted)))
        equal = sum(1 for d in review.decisions if not d.agrees and not d.costly and d.reason not in EXPLAINED)
        if equal:  # "more" only after the rows listed above it
            key = "local.review_as_good" if listed else "local.review_as_good_none"
            out.append(text(key if equal > 1 else f"{key}_one", lang, n=equal))
        # no loss, said why (as the card does): the tiles the AI lets go of (on one line), a win it takes
        for group, why in explained(review, lang, names, winds, self.tile_label):
            walls = join_list((str(rp.view(d.step - 1, self.seat)["wall_count"]) for d in group), lang)
            out.append(text("local.review_explained", lang, wall=walls, text=why))
        if review_rows_any(review):
            out.append(text("render.review.legend", lang))
        return out

    def reason(self, d: Decision, winds: Sequence[int]) -> str:
        """Why the AI's choice is worth more, in the card's words, a tile written as the terminal writes it."""
        return describe_reason(d, self.lang, self.players, winds, self.tile_label)

    def priced(self, c: Choice, phase: str, timeout: bool = False) -> str:
        """A choice as the terminal's menu wrote it (``chi 6m 7m 8m``, ``discard 8万``), with its expected 子."""
        lang = self.lang
        what = text("render.review.rob", lang) if c.rob else self.describe(c.action, phase)
        if timeout:
            what = text("render.replay.timed_out", lang, text=what)
        return text("render.review.priced", lang, what=what, ev=_zi(c.ev))

    # ------------------------------------------------------------------------------------------------ the match

    def match_lines(self, hands: Sequence[int]) -> list[str]:
        """The review over the finished hands ``hands``: what the decisions cost in all, the counts, and the kinds of
        loss (faster, bigger, safer ...) with their 子."""
        if not hands:
            return []
        reviewed = [(h, *self.hand(h)) for h in hands]
        m = MatchReview(self.seat, tuple(HandReview(h, tuple(rp.winds), rv) for h, rp, rv in reviewed))
        lang = self.lang
        title, cost, counts, visible = match_review_head(m, self.variant, lang)
        out = [text("local.review_match_title", lang, title=title), cost, counts, visible]
        kinds = match_review_kinds(m, lang)
        if kinds:  # a line each
            out.append(text("render.match_review.kinds", lang))
            out += [text("local.review_kind", lang, kind=kind, line=line) for kind, line in kinds]
        capped = match_review_capped(m, lang)
        if capped:
            out.append(capped)
        out.append(text("render.match_review.by_hand", lang))  # a few hands a line
        costs = [text("local.review_hand_cost", lang, n=h.hand_no + 1, cost=_zi(h.review.cost)) for h in m.hands]
        out += ["   " + "   ".join(costs[i:i + HANDS_A_LINE]) for i in range(0, len(costs), HANDS_A_LINE)]
        return out

    # ------------------------------------------------------------------------------------------------ asked for

    def asked(self, finished: Sequence[int], key: str) -> list[str]:
        """``r``: the review of the last finished hand; ``m``: of every finished hand (the match so far)."""
        if not finished:
            return [text("local.review_none", self.lang)]
        return self.hand_lines(finished[-1]) if key == "r" else self.match_lines(finished)

    def offer_at_end(self, finished: Sequence[int], input_fn: Callable[[str], str],
                     print_fn: Callable[..., Any]) -> None:
        """No prompt follows a match's last hand: ``r`` and ``m`` are offered once more; Enter (or ``q``, or the
        input's end) leaves with a "bye", a typo is asked again, up to :data:`END_TYPOS` times (input that never
        answers, e.g. ``yes 1 | mjbot local``, still leaves)."""
        typos = 0
        while finished:
            print_fn(text("local.review_end", self.lang))
            try:
                raw = input_fn("> ").strip().lower()
            except EOFError:
                raw = ""
            if raw not in ("r", "m"):
                leave = raw in ("", "q", "quit", "exit")
                typos += not leave
                if not leave and typos < END_TYPOS:
                    continue
                print_fn(text("local.bye", self.lang))
                return
            for line in self.asked(finished, raw):
                print_fn(line)
