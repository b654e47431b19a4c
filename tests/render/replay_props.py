"""Property checks of the replay's privacy and numbering (docs/replay.md, "What a viewer may see"), over real games.

``games(variant, seeds)`` plays matches of 4 easy/normal AIs and records their actions; ``shuffled(...)`` reorders
the answers inside every claim/rob window (any awaited seat may answer first at the real table; the engine's result
does not depend on the order). ``check_hand(replay, viewer, show_all)`` returns a list of violations (strings).
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Sequence

from engine.replay import HandReplay
from engine.selfplay import play_match
from engine.table import Action, Table
from render.replay import (
    animation_scenes,
    describe_outcome,
    frame_ms,
    replay_scene,
    review_numbers,
    review_summary,
)

NAMES = ("Ann", "Bob", "Cat", "Dan")
VIEWERS: tuple[int | None, ...] = (0, 1, 2, 3, None)


def game(variant: str, seed: int, mix: Sequence[str] = ("easy", "normal", "easy", "normal"),
         max_hands: int = 4) -> list[Action]:
    t = Table.new(variant, seed, {}, list(NAMES))
    acts: list[Action] = []
    play_match(t, list(mix), random.Random(seed), max_hands=max_hands, record=acts)
    return acts


def windows(variant: str, seed: int, acts: Sequence[Action]) -> list[list[int]]:
    """Index groups of the actions answering one claim/rob window."""
    t = Table.new(variant, seed, {}, list(NAMES))
    groups: list[list[int]] = []
    cur: list[int] = []
    for i, a in enumerate(acts):
        if t.phase in ("claim", "rob"):
            cur.append(i)
        elif cur:
            groups.append(cur)
            cur = []
        t.apply(a)
        if t.phase not in ("claim", "rob") and cur:
            groups.append(cur)
            cur = []
    if cur:
        groups.append(cur)
    return groups


def reorder(acts: Sequence[Action], groups: list[list[int]], order: dict[int, list[int]]) -> list[Action]:
    """``acts`` with window ``g``'s answers in ``order[g]`` (a permutation of its index list)."""
    out = list(acts)
    for g, perm in order.items():
        for slot, src in zip(groups[g], perm, strict=True):
            out[slot] = acts[src]
    return out


def hands(variant: str, seed: int, acts: Sequence[Action]) -> Iterator[HandReplay]:
    yield from HandReplay.each(variant, seed, {}, acts, list(NAMES))


def outputs(rp: HandReplay, viewer: int | None, show_all: bool, lang: str = "en", review=None) -> list[tuple]:
    """What the viewer is shown, step by step: (number, total, caption, frame ms, review lines, table scene,
    hands, ▶/◀/nd/pd states)."""
    out = []
    for sc in animation_scenes(rp, viewer, show_all=show_all, lang=lang, names=NAMES, review=review):
        k = sc.step
        nd = rp.next_decision(k, viewer) if viewer is not None else None
        pd = rp.prev_decision(k, viewer) if viewer is not None else None
        out.append((sc.number, sc.total, sc.caption, frame_ms(rp, k, sc), sc.review, sc.table, sc.hands,
                    k >= rp.n, k == 0, nd is None, pd is None))
    return out


def check_hand(rp: HandReplay, viewer: int | None, show_all: bool, review=None) -> list[str]:
    bad: list[str] = []
    vis = rp.visible_steps(viewer, show_all=show_all)
    m = len(vis) - 1
    tag = f"hand {rp.hand_no} viewer {viewer} show_all {show_all}"
    if vis[0] != 0 or vis[-1] != rp.n:
        bad.append(f"{tag}: visible steps do not run from the deal to the result: {vis[:3]}..{vis[-3:]}")
    # (d) numbers consecutive
    for i, k in enumerate(vis):
        if rp.number(k, viewer, show_all=show_all) != (i, m):
            bad.append(f"{tag}: step {k} numbered {rp.number(k, viewer, show_all=show_all)} not {(i, m)}")
    # (c) jumps
    for i, k in enumerate(vis):
        nx = rp.next_step(k, viewer, show_all=show_all)
        pv = rp.prev_step(k, viewer, show_all=show_all)
        if nx != (vis[i + 1] if i + 1 < len(vis) else k):
            bad.append(f"{tag}: ▶ from {k} lands on {nx}")
        if pv != (vis[i - 1] if i > 0 else k):
            bad.append(f"{tag}: ◀ from {k} lands on {pv}")
        if viewer is not None:
            for j in (rp.next_decision(k, viewer), rp.prev_decision(k, viewer)):
                if j is not None and j not in vis:
                    bad.append(f"{tag}: my decision from {k} lands on hidden {j}")
    for k in range(rp.n + 1):
        if rp.nearest_visible(k, viewer, show_all=show_all) not in vis:
            bad.append(f"{tag}: nearest_visible({k}) not visible")
    # (b) public events, each on a visible step
    for s in rp.steps:
        if (s.takes() or s.index == rp.n) and s.index not in vis:
            bad.append(f"{tag}: public outcome at step {s.index} hidden ({s.action})")
    scenes = list(animation_scenes(rp, viewer, show_all=show_all, lang="en", names=NAMES, review=review))
    if [sc.step for sc in scenes] != vis:
        bad.append(f"{tag}: animation frames {[sc.step for sc in scenes]} != visible {vis}")
    seen_numbers = [sc.number for sc in scenes]
    if seen_numbers != list(range(m + 1)) or any(sc.total != m for sc in scenes):
        bad.append(f"{tag}: frame numbers {seen_numbers} totals {set(sc.total for sc in scenes)}")
    for sc in scenes:
        k = sc.step
        if not sc.caption.startswith(f"Step {sc.number}/{m}"):
            bad.append(f"{tag}: caption head {sc.caption!r} at {k}")
        if k == 0:
            continue
        s = rp.steps[k - 1]
        out = describe_outcome(s, NAMES, rp.winds, "en")
        if (s.takes() or k == rp.n) and out and out not in sc.caption:
            bad.append(f"{tag}: step {k} caption {sc.caption!r} misses its outcome {out!r}")
        if not show_all and s.window and s.seat != viewer:
            who = f"{NAMES[s.seat]}"
            words = sc.caption.split(" · ", 1)[1] if " · " in sc.caption else ""
            if words != out:
                bad.append(f"{tag}: hidden answer step {k} captioned {sc.caption!r} (outcome {out!r})")
            if " passes" in sc.caption or "calls a win" in sc.caption:
                bad.append(f"{tag}: caption names a hidden answer: {sc.caption!r} ({who})")
    return bad


def check_review_numbers(rp: HandReplay, seat: int, review, show_all: bool) -> list[str]:
    """The review's numbers equal the replay's at each decision (and the summary's biggest step)."""
    bad = []
    num = review_numbers(rp, seat, show_all=show_all)
    for d in review.decisions:
        sc = replay_scene(rp, d.step, seat, lang="en", names=NAMES, show_all=show_all, review=review)
        if sc.number != num(d.step):
            bad.append(f"hand {rp.hand_no} seat {seat}: decision at {d.step} replay {sc.number} review {num(d.step)}")
    if review.biggest is not None:
        s = review_summary(review, "en", num)
        k = replay_scene(rp, review.biggest.step, seat, lang="en", names=NAMES, show_all=show_all).number
        if f"step {k} (" not in s:
            bad.append(f"hand {rp.hand_no} seat {seat}: summary {s!r} vs replay number {k}")
    return bad


def check_claims_once(rp: HandReplay, viewer: int | None, show_all: bool) -> list[str]:
    """Every pung/chi/kong taken from a discard is captioned as done on one visible step only, the one whose table
    has it (an answer before the window's end is said as called)."""
    bad = []
    vis = rp.visible_steps(viewer, show_all=show_all)
    for k in vis:
        if k == 0:
            continue
        s = rp.steps[k - 1]
        if (s.window and s.action.type in ("pung", "chi", "kong") and rp.names_action(k, viewer, show_all=show_all)
                and not any(e.type == s.action.type and e.seat == s.seat for e in s.events)):
            end = next(t for t in rp.steps[k - 1:] if rp.resolves(t.index))
            took = any(e.type == s.action.type and e.seat == s.seat for e in end.events)
            cap = replay_scene(rp, k, viewer, lang="en", names=NAMES, show_all=show_all).caption
            if took and " calls " not in cap:  # said as called until the window's end, where it is said as done
                bad.append(f"hand {rp.hand_no} viewer {viewer} show_all {show_all}: step {k} {cap!r} before the "
                           f"claim happened (at step {end.index})")
    return bad
