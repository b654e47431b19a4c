"""The replay's privacy, truth and numbering with "replays show all hands" off and on, checked over real games of four
easy and normal AIs in the three variants (docs/replay.md, "What a viewer may see"): what a viewer is shown never
depends on the other seats' hidden answers, every public event is shown once, numbers and jumps agree."""

from __future__ import annotations

import random

import pytest

from engine.replay import HandReplay
from engine.review import review_hand, review_match
from render.replay import replay_scene
from tests.render.replay_props import (
    NAMES,
    VIEWERS,
    check_hand,
    check_review_numbers,
    game,
    hands,
    outputs,
    reorder,
    windows,
)


def _others_shuffled(variant: str, seed: int, acts: list, viewer: int | None, rng: random.Random) -> list:
    """``acts`` with the answers of the seats other than ``viewer`` reordered inside each claim/rob window (the
    viewer's own answer keeps its place). Legal: the engine resolves a window on the set of answers."""
    groups = windows(variant, seed, acts)
    order = {}
    for g, idx in enumerate(groups):
        others = [i for i in idx if acts[i].seat != viewer]
        if len(others) < 2:
            continue
        sh = others[:]
        rng.shuffle(sh)
        it = iter(sh)
        order[g] = [next(it) if acts[i].seat != viewer else i for i in idx]
    return reorder(acts, groups, order)


@pytest.mark.parametrize("variant", ["wuhu", "hefei", "chizhou"])
def test_visibility_numbers_jumps_and_outcomes_over_many_games(variant: str) -> None:
    """(a)-(d) for every viewer, show-all off and on: visible steps run from the deal to the result, are numbered
    0..m, ▶ ◀ ⏭ and "my decision" land only on them, every claim/win/draw is on a visible step whose caption names it,
    another seat's answer is captioned by its outcome alone, the animation's frames are exactly those steps."""
    bad = []
    for seed in range(8):
        for rp in hands(variant, seed, game(variant, seed, max_hands=3)):
            for viewer in VIEWERS:
                for show_all in (False, True):
                    bad += check_hand(rp, viewer, show_all)
    assert not bad, bad[:5]


def test_review_numbers_equal_the_replays() -> None:
    bad = []
    for variant in ("wuhu", "hefei", "chizhou"):
        acts = game(variant, 1, max_hands=2)
        hs = list(hands(variant, 1, acts))
        for seat in range(4):
            mr = review_match(HandReplay.each(variant, 1, {}, acts, list(NAMES)), seat)
            for rp, hr in zip(hs, mr.hands, strict=True):
                for show_all in (False, True):
                    bad += check_review_numbers(rp, seat, hr.review, show_all)
                    bad += [f"{variant} match review step {d.step}" for d in hr.review.decisions
                            if hr.number(d.step, show_all=show_all) != rp.number(d.step, seat, show_all=show_all)[0]]
    assert not bad, bad[:5]


@pytest.mark.parametrize("variant,seed", [("chizhou", 0), ("chizhou", 1), ("chizhou", 2)])
def test_frame_length_does_not_depend_on_hidden_answer_order(variant: str, seed: int) -> None:
    """Reordering only the OTHER seats' answers in claim windows must change nothing a viewer is shown with every
    hand hidden: not the captions, numbers, table, buttons, nor how long each animation frame stays. A pung/chi/kong
    frame stayed 1.6 s when the claimer's answer closed the window and 0.9 s when another seat's hidden answer did
    (``frame_ms`` read the hidden last answer's type)."""
    acts = game(variant, seed, max_hands=3)
    base = list(hands(variant, seed, acts))
    rng = random.Random(seed)
    diffs = []
    for viewer in VIEWERS:
        other = list(hands(variant, seed, _others_shuffled(variant, seed, acts, viewer, rng)))
        for a, b in zip(base, other, strict=True):
            for x, y in zip(outputs(a, viewer, False), outputs(b, viewer, False), strict=True):
                if x != y:
                    diffs.append((viewer, a.hand_no, x[2], x[3], y[3]))
    assert not diffs, diffs[:3]


def test_a_pung_frame_is_shown_for_a_claims_length_whoever_answered_last() -> None:
    """Chizhou seed 0 hand 2, as S Cat (seat 2) sees it: S Bob's pung of 5p came before a hidden answer of another
    seat. The docs: 1.6 s for a claim. It lasted 0.9 s (the hidden pass's pace)."""
    from render.replay import animation_scenes, frame_ms

    rp = list(hands("chizhou", 0, game("chizhou", 0, max_hands=3)))[2]
    short = [(sc.caption, frame_ms(rp, sc.step, sc))
             for sc in animation_scenes(rp, 2, lang="en", names=NAMES)
             if 0 < sc.step < rp.n and rp.steps[sc.step - 1].takes() and frame_ms(rp, sc.step, sc) < 1600]
    assert not short, short


def test_an_overruled_win_call_is_named_for_its_seat() -> None:
    """Wuhu seed 104 hand_no 3: N Ann (seat 0) and E Bob (seat 1) both call a win on W Dan's discard; Ann takes it
    (截胡), Bob's call is the window's last answer (step 53). Bob's own step, and every viewer's with every hand shown,
    must name Bob's call (docs: "each answer is named as it was, and a window's last answer with what the window came
    to"). The caption was "N Ann wins on W Dan's discard" alone."""
    rp = list(hands("wuhu", 104, game("wuhu", 104, max_hands=4)))[3]
    last = rp.steps[52]
    assert last.seat == 1 and last.action.type == "win" and last.window
    assert [e.seat for e in last.events if e.type == "win"] == [0]  # the set-up: Ann won, Bob was cut off
    own = replay_scene(rp, 53, 1, lang="en", names=NAMES).caption
    shown = replay_scene(rp, 53, 2, lang="en", names=NAMES, show_all=True).caption
    assert "Bob" in own, own
    assert "Bob" in shown, shown
    # the review line under Bob's own step says he won: the caption must not say only that Ann did
    rv = review_hand(rp, 1)
    d = rv.at(53)
    assert d is not None


def test_a_claim_is_shown_once_on_the_step_that_made_it() -> None:
    """Chizhou seed 0 hand 2: S Bob (seat 1) answers a pung of 5p first; N Dan's answer (a pass) comes after and
    closes the window. The pung is one public event: it must be captioned once, on a step whose table shows Bob's
    new meld (docs: a window "shows as one step at its last answer captioned by what it came to"; a win called early
    reads "calls a win"). Bob's own replay (and everyone's with every hand shown) said "S Bob pungs 5p" twice, the
    first time over a table without the meld, the tile still in W Cat's river, "Others may take the last discard";
    that first step now says "S Bob calls pung on 5p"."""
    rp = list(hands("chizhou", 0, game("chizhou", 0, max_hands=3)))[2]
    s = rp.steps[20]
    assert s.seat == 1 and s.action.type == "pung" and s.window and not rp.resolves(21)  # the set-up
    bad = []
    for viewer, show_all in ((1, False), (0, True), (None, True)):
        said = [(k, sc.caption, len(sc.table.seats[1].melds))
                for k in rp.visible_steps(viewer, show_all=show_all)
                if (sc := replay_scene(rp, k, viewer, lang="en", names=NAMES, show_all=show_all))
                and "Bob pungs 5p" in sc.caption]
        if len(said) != 1 or said[0][2] != 1:
            bad.append((viewer, show_all, said))
    assert not bad, bad


@pytest.mark.parametrize("variant", ["chizhou"])
def test_claims_are_told_once_over_many_games(variant: str) -> None:
    """Every claim taken from a discard is captioned on one visible step, the one whose table has it, for every
    viewer, show-all off and on: a claim answered before another seat's answer was captioned at the answer (table
    without it) and again at the window's end; it is said as called there now."""
    from tests.render.replay_props import check_claims_once

    bad = []
    for seed in range(70, 90):
        for rp in hands(variant, seed, game(variant, seed, max_hands=3)):
            for viewer in VIEWERS:
                for show_all in (False, True):
                    bad += [f"{variant} seed {seed} {b}" for b in check_claims_once(rp, viewer, show_all)]
    assert not bad, bad[:4]


def _substituted(variant: str, seed: int, acts: list, viewer: int | None, mode: str) -> list[dict]:
    from engine.table import Table

    t = Table.new(variant, seed, {}, list(NAMES))
    out = []
    for a in acts:
        j = a.to_json()
        if t.phase in ("claim", "rob") and a.seat != viewer:
            if mode == "timeout" and a.type == "pass":
                j = {"type": "timeout", "seat": a.seat}
            elif mode == "ai":
                j = dict(j, ai=True)
        out.append(j)
        t.apply(a)
    return out


@pytest.mark.parametrize("mode", ["timeout", "ai"])
def test_hidden_answers_timed_out_or_played_by_the_ai_change_nothing_shown(mode: str) -> None:
    """Another seat's hidden answers turned into timeouts, or marked as the AI's (托管): the viewer is shown exactly
    the same (captions, numbers, table, hands, review lines, buttons, frame lengths). Passes."""
    bad = []
    for variant in ("wuhu", "hefei", "chizhou"):
        for seed in range(3):
            acts = game(variant, seed, max_hands=2)
            base = list(hands(variant, seed, acts))
            for viewer in VIEWERS:
                other = list(HandReplay.each(variant, seed, {}, _substituted(variant, seed, acts, viewer, mode),
                                             list(NAMES)))
                for a, b in zip(base, other, strict=True):
                    if outputs(a, viewer, False) != outputs(b, viewer, False):
                        bad.append((variant, seed, a.hand_no, viewer))
    assert not bad, bad[:3]
