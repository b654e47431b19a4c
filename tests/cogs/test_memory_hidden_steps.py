"""/replay with ``replays_show_all_hands`` off, through the real dispatch: other seats' answers in claim windows
(a pass, a claim a win overruled, a win call) are never shown nor named (docs/replay.md, "What a viewer may see"),
what the window came to and the hand's result are (they are public), the steps are numbered over what the viewer
may see, and the image, the caption, the buttons and the animation agree on it."""

from __future__ import annotations

import contextlib
import io
import json
import random
import re
from pathlib import Path

import pytest
from PIL import Image

from bot.store import SeatSpec, Store
from bot.store.tables import TableRecorder
from engine.replay import HandReplay, encode_code
from engine.review import review_hand
from engine.selfplay import play_match
from engine.table import Action, Table
from render.replay import animation_scenes, frame_ms
from tests.cogs.test_memory import NAMES, A, B, record_match
from tests.harness import ADMIN_PERMISSIONS, CHANNEL_ID, GUILD_ID, Harness

# chizhou "q6": its second hand (hand_no 1) is drawn, and ends with B's (seat 2) pass on the last discard; its first
# hand has passes of other seats in claim windows along the way
VARIANT, SEED = "chizhou", "q6"


@pytest.fixture
async def hidden(tmp_path: Path):
    db = tmp_path / "bot.db"
    store = await Store.open(db)
    rec = await record_match(store, GUILD_ID, VARIANT, SEED, 2)
    await store.close()
    h = await Harness.boot(db)
    await h.bot.tables.wait_idle()
    for p, n in NAMES.items():
        h.fake.add_user(p, n)
    await h.slash("settings", user=A, permissions=ADMIN_PERMISSIONS, replays_show_all_hands=False)
    try:
        yield h, rec.match_id
    finally:
        await h.close()


async def replay_of(h: Harness, match_id: int, hand_no: int) -> HandReplay:
    m = await h.bot.store.match(match_id)
    acts = [json.loads(a.action) for a in await h.bot.store.actions(match_id)]
    return HandReplay.build(m.variant, m.seed, m.settings, acts, hand_no, [str(A), "AI:normal", str(B), "AI:normal"])


def button(msg, label: str) -> dict:
    return next(b for b in msg.buttons() if b.get("label") == label)


def theme_button(msg) -> str:
    """The id of the viewer's light/dark button (its label says the other theme)."""
    return next(b["custom_id"] for b in msg.buttons() if b.get("label") in ("☀ light", "🌙 dark"))


async def go_to_step(h: Harness, msg, viewer: int, k: int | str, label: str | None = None):
    """Press the viewer's own light/dark button (or the one labelled ``label``) with the step field of its id
    (``mjr:<guild>:<code>:<viewer>:<step>:...``) set to ``k``, as a modified client would send it. A bare number is
    the form the ids had before they carried the viewer's numbers, a raw step: the bot draws the step it lets this
    viewer see nearest to ``k``."""
    cid = button(msg, label)["custom_id"] if label else theme_button(msg)
    parts = cid.split(":")
    parts[4] = str(k)
    forged = ":".join(parts)
    for comp in msg.all_components():
        if comp.get("custom_id") == cid:
            comp["custom_id"] = forged
    return await h.click(msg, custom_id=forged, user=viewer, locale="en-US")


async def test_the_last_step_shows_the_result_not_another_players_pass(hidden) -> None:
    """A presses ⏭ on a hand that B's pass on the last discard ended: the caption says the hand is drawn, not that
    Bob passed (which would tell A that Bob held a pair of that tile); ▶ from the last step A may see before it
    lands on the same result, and there ▶ ⏭ are disabled."""
    h, mid = hidden
    rp = await replay_of(h, mid, 1)
    last = rp.steps[-1]
    assert last.private_to_seat() and last.seat == 2  # the set-up: B's pass ends the hand
    r = await h.slash("replay", user=A, code=encode_code(mid, 1), locale="en-US")
    await h.click(r.reply, custom_id=button(r.reply, "⏭")["custom_id"], user=A, locale="en-US")
    viewer, end = h.seen.replay_images()[-1]
    assert viewer == A and end.step == rp.n
    m = len(rp.visible_steps(0)) - 1  # the steps A may see, numbered 0..m
    assert end.caption == f"Step {m}/{m} · the hand is drawn", end.caption
    assert "Bob" not in end.caption
    assert button(r.reply, "▶").get("disabled") and button(r.reply, "⏭").get("disabled")
    assert any(txt == "Review" for txt, _w, _g in end.review)  # the review's summary is on the result
    # ◀ goes back over B's pass to the discard before it; ▶ comes back to the result
    await h.click(r.reply, custom_id=button(r.reply, "◀")["custom_id"], user=A, locale="en-US")
    before = h.seen.replay_images()[-1][1]
    assert before.step == rp.n - 1 and "discards" in before.caption
    assert not button(r.reply, "▶").get("disabled")
    await h.click(r.reply, custom_id=button(r.reply, "▶")["custom_id"], user=A, locale="en-US")
    again = h.seen.replay_images()[-1][1]
    assert again.step == rp.n and again.caption == end.caption
    # in Chinese, the same
    r2 = await h.slash("replay", user=A, code=encode_code(mid, 1), locale="zh-CN")
    await h.click(r2.reply, custom_id=button(r2.reply, "⏭")["custom_id"], user=A, locale="zh-CN")
    zh = h.seen.replay_images()[-1][1]
    assert zh.caption == f"第 {m}/{m} 步 · 流局" and "过" not in zh.caption
    # a spectator too
    r3 = await h.slash("replay", user=A + 9, code=encode_code(mid, 1), locale="en-US")
    await h.click(r3.reply, custom_id=button(r3.reply, "⏭")["custom_id"], user=A + 9, locale="en-US")
    ms = len(rp.visible_steps(None)) - 1
    assert h.seen.replay_images()[-1][1].caption == f"Step {ms}/{ms} · the hand is drawn"
    # B sees their own pass named
    r4 = await h.slash("replay", user=B, code=encode_code(mid, 1), locale="en-US")
    await h.click(r4.reply, custom_id=button(r4.reply, "⏭")["custom_id"], user=B, locale="en-US")
    assert "Bob passes" in h.seen.replay_images()[-1][1].caption


async def test_a_forged_step_in_a_replay_button_draws_the_nearest_step_the_viewer_may_see(hidden) -> None:
    """A edits the step in one of their own replay buttons' ids (``mjr:<guild>:<code>:<A>:<step>:d:th``) to a step
    where another seat passed in a claim window: the bot draws the nearest step A may see, not the pass."""
    h, mid = hidden
    rp = await replay_of(h, mid, 0)
    visible = rp.visible_steps(0)
    privates = [s.index for s in rp.steps if s.private_to_seat() and s.seat != 0 and s.index < rp.n]
    assert privates  # the set-up
    r = await h.slash("replay", user=A, code=encode_code(mid, 0), locale="en-US")
    for k in privates[:3] + [10 ** 6]:
        await go_to_step(h, r.reply, A, k)
        viewer, scene = h.seen.replay_images()[-1]
        assert viewer == A
        want = min(visible, key=lambda x: (abs(x - min(k, rp.n)), x))
        assert scene.step == want and scene.step in visible, (k, scene.step)
        assert "passes" not in scene.caption, scene.caption
        assert f"step {visible.index(want)}/{len(visible) - 1}" in r.reply.text  # the head says the same step


async def test_the_animation_with_hands_hidden_ends_on_the_result(hidden) -> None:
    """A presses Animation on the hand B's pass ended: the GIF's frames are the steps A may see and end on the
    result (5 s, with the review's summary), not one step short of it."""
    h, mid = hidden
    rp = await replay_of(h, mid, 1)
    r = await h.slash("replay", user=A, code=encode_code(mid, 1), locale="en-US")
    r2 = await h.click(r.reply, label="Animation", user=A, locale="en-US", timeout=600)
    (_name, data), = r2.reply.files.items()
    gif = Image.open(io.BytesIO(data))
    durations = []
    for i in range(gif.n_frames):
        gif.seek(i)
        durations.append(gif.info["duration"])
    scenes = list(animation_scenes(rp, 0, show_all=False, lang="en", review=review_hand(rp, 0)))
    assert scenes[-1].step == rp.n and "passes" not in scenes[-1].caption
    assert [s.step for s in scenes] == rp.visible_steps(0)
    assert durations[-1] == frame_ms(rp, rp.n, scenes[-1]) == 5000  # the last frame is the result
    assert sum(durations) == sum(frame_ms(rp, s.step, s) for s in scenes)


async def test_stepping_over_a_hidden_pass_does_not_skip_a_step_number(hidden) -> None:
    h, mid = hidden
    rp = await replay_of(h, mid, 0)
    privates = [s.index for s in rp.steps if s.private_to_seat() and s.seat != 0 and s.index < rp.n]
    assert privates  # the set-up: another seat passed in a claim window along the way
    p = privates[0]
    r = await h.slash("replay", user=A, code=encode_code(mid, 0), locale="en-US")
    # A's own light/dark button carries the step: go to the step just before the hidden pass (A may see it)
    await go_to_step(h, r.reply, A, p - 1)
    before = re.search(r"step (\d+)/(\d+)", r.reply.text)
    cap_before = h.seen.replay_images()[-1][1].caption
    await h.click(r.reply, custom_id=button(r.reply, "▶")["custom_id"], user=A, locale="en-US")
    after = re.search(r"step (\d+)/(\d+)", r.reply.text)
    cap_after = h.seen.replay_images()[-1][1].caption
    assert before and after
    # the next step A sees must read as the next step, not one with a number left out for another seat's pass
    assert int(after.group(1)) == int(before.group(1)) + 1, (r.reply.text, cap_before, cap_after)


async def test_the_step_total_does_not_count_other_seats_hidden_passes(hidden) -> None:
    h, mid = hidden
    rp = await replay_of(h, mid, 0)
    seen = rp.visible_steps(0)
    assert len(seen) - 1 < rp.n  # the set-up: some steps are hidden from A
    r = await h.slash("replay", user=A, code=encode_code(mid, 0), locale="en-US")
    await h.click(r.reply, custom_id=button(r.reply, "⏭")["custom_id"], user=A, locale="en-US")
    m = re.search(r"step (\d+)/(\d+)", r.reply.text)
    assert m
    cap = h.seen.replay_images()[-1][1].caption
    # "step 61/61" after stepping through 54 steps tells A that 7 claim offers went to other seats
    assert int(m.group(2)) == len(seen) - 1, (r.reply.text, cap, len(seen) - 1)


# ------------------------------------------------------------------------------------------------ the buttons' ids


def step_fields(msg) -> list[str]:
    """The step field of every replay control's id on ``msg`` (``mjr:<guild>:<code>:<viewer>:<step>:<d|l>:<op>``):
    what a client's developer tools show."""
    return [str(c["custom_id"]).split(":")[4] for c in msg.all_components()
            if str(c.get("custom_id", "")).startswith("mjr:")]


def head_number(msg) -> int:
    m = re.search(r"step (\d+)/(\d+)", msg.text)
    assert m, msg.text
    return int(m.group(1))


async def test_the_buttons_ids_carry_the_number_the_viewer_sees_with_no_gap(hidden) -> None:
    """A steps through hand 1 with ▶ over other seats' answers in claim windows that A may not see. The ids of the
    controls carried the raw step index: "…:12:…" then "…:14:…" told anyone reading them (a client's developer
    tools) that a seat could have claimed the tile in between. Every id on the message now carries the number the
    head shows ("step 12/53": ``h12``), so the ids of consecutive steps count 0, 1, 2 … with no gap; ▶ and ◀ still
    walk exactly over the steps A may see, and the review cards come with no control naming a step."""
    h, mid = hidden
    rp = await replay_of(h, mid, 0)
    visible = rp.visible_steps(0)
    assert len(visible) - 1 < rp.n  # the set-up: steps hidden from A
    r = await h.slash("replay", user=A, code=encode_code(mid, 0), locale="en-US")
    msg = r.reply
    walked, fields, heads = [], [], []
    while True:
        on_msg = step_fields(msg)
        assert len(on_msg) >= 8 and len(set(on_msg)) == 1, on_msg  # every control carries the same step
        fields.append(on_msg[0])
        heads.append(head_number(msg))
        walked.append(h.seen.replay_images()[-1][1].step)
        if button(msg, "▶").get("disabled"):
            break
        await h.click(msg, label="▶", user=A, locale="en-US")
    assert walked == visible  # ▶ stepped over exactly the steps A may see, to the result
    assert heads == list(range(len(visible)))
    in_ids = [int(re.sub(r"\D", "", f)) for f in fields]
    assert in_ids == heads, in_ids  # the numbers A sees: no gap for the hidden answers
    assert fields == [f"h{i}" for i in heads], fields
    for _ in range(3):  # ◀ from the result comes back over the same steps, the ids counting down
        await h.click(msg, label="◀", user=A, locale="en-US")
    assert h.seen.replay_images()[-1][1].step == visible[-4]
    assert set(step_fields(msg)) == {f"h{len(visible) - 4}"}
    for label in ("AI review", "Match review"):  # their answers hold no control, so no other id names a step
        answer = await h.click(msg, label=label, user=A, locale="en-US")
        assert answer.reply.images and not answer.reply.all_components(), label


async def test_a_forged_number_in_a_replay_button_never_shows_a_hidden_step(hidden) -> None:
    """A edits the number in their own button's id: any number draws the step A counts as that number (past the
    end: the result), never another seat's hidden answer; a raw step in the form of the "every hand shown" ids
    (``a<k>``) with every hand hidden is drawn as the nearest step A may see; a negative or non-numeric step
    matches no control, as before (nothing is drawn); B pressing A's id gets B's own replay from the start."""
    h, mid = hidden
    rp = await replay_of(h, mid, 0)
    visible = rp.visible_steps(0)
    m = len(visible) - 1
    privates = [s.index for s in rp.steps if s.private_to_seat() and s.seat != 0 and s.index < rp.n]
    assert privates  # the set-up
    r = await h.slash("replay", user=A, code=encode_code(mid, 0), locale="en-US")
    msg = r.reply
    for i in (5, 0, m - 1, m, m + 1, 10**6):
        await go_to_step(h, msg, A, f"h{i}")
        viewer, scene = h.seen.replay_images()[-1]
        assert viewer == A and scene.step == visible[min(i, m)], (i, scene.step)
        assert head_number(msg) == min(i, m) and set(step_fields(msg)) == {f"h{min(i, m)}"}
    for k in privates[:3]:
        await go_to_step(h, msg, A, f"a{k}")
        scene = h.seen.replay_images()[-1][1]
        assert scene.step == rp.nearest_visible(k, 0) and scene.step in visible, (k, scene.step)
        assert "passes" not in scene.caption, scene.caption
    drawn, edits = len(h.seen.replay_images()), msg.edits
    for bad in ("h-3", "-3", "hx", "x3", "b3", "h"):
        answer = await go_to_step(h, msg, A, bad)
        assert not answer.responded and msg.edits == edits and len(h.seen.replay_images()) == drawn, bad
    other = await go_to_step(h, msg, B, "h7")
    assert other.reply.ephemeral and msg.edits == edits
    viewer, scene = h.seen.replay_images()[-1]
    assert viewer == B and scene.step == 0


async def test_an_old_replay_button_carrying_a_raw_step_still_works(hidden) -> None:
    """A message posted before the ids carried the viewer's numbers holds raw step indices (``…:<k>:d:n``). Its ▶
    still goes to the next step A may see after step k, its theme button draws the nearest one to k (never another
    seat's answer), a raw step past the end draws the result; the message's controls then carry A's numbers."""
    h, mid = hidden
    rp = await replay_of(h, mid, 0)
    visible = rp.visible_steps(0)
    p = next(k for k in range(rp.n) if k not in visible)  # another seat's answer A may not see
    assert p - 1 in visible  # the set-up
    r = await h.slash("replay", user=A, code=encode_code(mid, 0), locale="en-US")
    msg = r.reply
    await go_to_step(h, msg, A, p - 1, label="▶")  # the ▶ of a message at raw step p - 1, the step before the pass
    scene = h.seen.replay_images()[-1][1]
    assert scene.step == rp.next_step(p - 1, 0) and scene.step > p and "passes" not in scene.caption
    assert head_number(msg) == visible.index(scene.step)
    assert set(step_fields(msg)) == {f"h{visible.index(scene.step)}"}
    await go_to_step(h, msg, A, p)  # the theme button of a message at the hidden step itself (a forged old id)
    scene = h.seen.replay_images()[-1][1]
    assert scene.step == rp.nearest_visible(p, 0) and scene.step in visible and "passes" not in scene.caption
    assert set(step_fields(msg)) == {f"h{visible.index(scene.step)}"}
    await go_to_step(h, msg, A, 10**6)
    assert h.seen.replay_images()[-1][1].step == rp.n and set(step_fields(msg)) == {f"h{len(visible) - 1}"}


async def test_the_replay_buttons_work_after_a_restart(hidden) -> None:
    """A's replay stands at a step after a hidden answer; the bot is killed and starts again; A's ◀ and ▶ on the same
    message step from the number in their ids, over the steps A may see."""
    h, mid = hidden
    rp = await replay_of(h, mid, 0)
    visible = rp.visible_steps(0)
    i = next(i for i, x in enumerate(visible) if x != i)  # the first step A may see after a hidden one
    r = await h.slash("replay", user=A, code=encode_code(mid, 0), locale="en-US")
    await go_to_step(h, r.reply, A, f"h{i}")
    assert h.seen.replay_images()[-1][1].step == visible[i]
    h2 = await h.kill()
    try:
        msg = h2.fake.find_message(r.reply.id)
        await h2.click(msg, label="◀", user=A, locale="en-US")
        assert h2.seen.replay_images()[-1][1].step == visible[i - 1] and set(step_fields(msg)) == {f"h{i - 1}"}
        await h2.click(msg, label="▶", user=A, locale="en-US")
        assert h2.seen.replay_images()[-1][1].step == visible[i] and head_number(msg) == i
    finally:
        await h2.close()


async def test_a_button_pressed_after_the_server_changed_the_setting_keeps_its_step(hidden) -> None:
    """The id says how it counted its step: A is at step i of the steps A may see (raw step k > i), the server
    turns "replays show all hands" on, and A's theme button still draws raw step k (now counted "step k/n", every
    step shown), not raw step i; turned off again, the same holds the other way."""
    h, mid = hidden
    rp = await replay_of(h, mid, 0)
    visible = rp.visible_steps(0)
    k = next(x for i, x in enumerate(visible) if x != i)  # the first step A may see after a hidden one
    i = visible.index(k)
    r = await h.slash("replay", user=A, code=encode_code(mid, 0), locale="en-US")
    msg = r.reply
    await go_to_step(h, msg, A, f"h{i}")
    assert h.seen.replay_images()[-1][1].step == k and set(step_fields(msg)) == {f"h{i}"}
    await h.slash("settings", user=A, permissions=ADMIN_PERMISSIONS, replays_show_all_hands=True)
    await h.click(msg, custom_id=theme_button(msg), user=A, locale="en-US")
    assert h.seen.replay_images()[-1][1].step == k and head_number(msg) == k and set(step_fields(msg)) == {f"a{k}"}
    await h.slash("settings", user=A, permissions=ADMIN_PERMISSIONS, replays_show_all_hands=False)
    await h.click(msg, custom_id=theme_button(msg), user=A, locale="en-US")
    assert h.seen.replay_images()[-1][1].step == k and head_number(msg) == i and set(step_fields(msg)) == {f"h{i}"}


# ------------------------------------------------------------------------------------------------ claims a win overruled


def played(variant: str, seed: str, rng: int, hands: int) -> list[Action]:
    t, acts = Table.new(variant, seed), []
    play_match(t, ["normal"] * 4, random.Random(rng), max_hands=hands, record=acts)
    return acts


async def record(store: Store, variant: str, seed: str, acts: list[Action], hands: int) -> int:
    seats = [SeatSpec.human(A, "Ann"), SeatSpec.bot("normal"), SeatSpec.human(B, "Bob"), SeatSpec.bot("normal")]
    rec = await TableRecorder.start(store, guild_id=GUILD_ID, channel_id=CHANNEL_ID + 1, variant=variant, seed=seed,
                                    settings={}, seats=seats)
    ended = 0
    for a in acts:
        await rec.apply(a)
        if rec.table.phase in ("ended", "over"):
            ended += 1
            if ended >= hands:
                break
    await store.finish_match(rec.match_id)
    return rec.match_id


@contextlib.asynccontextmanager
async def booted(tmp_path: Path, variant: str, seed: str, rng_seed: int):
    """The bot on a store holding one hand of ``variant`` (seed ``seed``, normal AIs, ``rng_seed``), every hand
    hidden in replays; yields the harness and the match id."""
    db = tmp_path / "bot.db"
    store = await Store.open(db)
    mid = await record(store, variant, seed, played(variant, seed, rng_seed, 1), 1)
    await store.close()
    h = await Harness.boot(db)
    await h.bot.tables.wait_idle()
    for p, n in ((A, "Ann"), (B, "Bob")):
        h.fake.add_user(p, n)
    await h.slash("settings", user=A, permissions=ADMIN_PERMISSIONS, replays_show_all_hands=False)
    try:
        yield h, mid
    finally:
        await h.close()


@pytest.fixture
async def wuhu_c3(tmp_path: Path):
    """Wuhu "c3" (normal AIs): hand 1 (hand_no 0) ends when Ann (seat 0, E) wins on seat 1's 9p; the window's
    last answer was seat 2's (Bob's) pung of 9p, which the win overruled."""
    async with booted(tmp_path, "wuhu", "c3", 3) as got:
        yield got


async def test_the_last_step_of_a_won_hand_names_the_win_not_an_overruled_pung(wuhu_c3) -> None:
    h, mid = wuhu_c3
    acts = played("wuhu", "c3", 3, 1)
    rp = HandReplay.build("wuhu", "c3", {}, acts, 0)
    last = rp.steps[-1]
    assert last.action.type == "pung" and last.seat == 2 and any(e.type == "win" and e.seat == 0 for e in last.events)
    for viewer in (A, B, A + 9):  # the winner, the seat whose pung was overruled, a spectator
        r = await h.slash("replay", user=viewer, code=encode_code(mid, 0), locale="en-US")
        await h.click(r.reply, custom_id=button(r.reply, "⏭")["custom_id"], user=viewer, locale="en-US")
        _v, end = h.seen.replay_images()[-1]
        assert end.step == rp.n
        # the hand was won by Ann on the 9p: the last step must say so ...
        assert "wins" in end.caption, (viewer, end.caption)
        # ... and not that Bob punged a 9p he never took (it tells everyone Bob held a pair of 9p)
        if viewer != B:
            assert "pungs" not in end.caption, (viewer, end.caption)


@pytest.fixture
async def hefei_c11(tmp_path: Path):
    """Hefei "c11" (normal AIs): in hand 1, seat 0 (Ann) answers the 3p's window with a pung, and seat 1's win on
    the same 3p (the window's last answer) overrules it: Ann never takes the 3p."""
    async with booted(tmp_path, "hefei", "c11", 11) as got:
        yield got


async def test_a_pung_a_win_overruled_is_not_shown_to_the_others(hefei_c11) -> None:
    h, mid = hefei_c11
    rp = HandReplay.build("hefei", "c11", {}, played("hefei", "c11", 11, 1), 0)
    k = next(s.index for s in rp.steps if s.window and s.action.type == "pung" and not s.events)
    assert rp.steps[k - 1].seat == 0 and any(e.type == "win" for e in rp.steps[k].events)  # the set-up
    for viewer in (B, B + 9):  # another seat, a spectator
        r = await h.slash("replay", user=viewer, code=encode_code(mid, 0), locale="en-US")
        await go_to_step(h, r.reply, viewer, k)  # at the step of Ann's answer
        shown = [sc.caption for v, sc in h.seen.replay_images() if v == viewer]
        # "E Ann pungs 3p" for a pung that never happened tells everyone Ann held a pair of 3p
        assert not any("pungs 3p" in c or "calls pung" in c for c in shown), shown


@pytest.fixture
async def hefei_c13(tmp_path: Path):
    """Hefei "c13" (normal AIs): in hand 1, seat 0 (Ann) calls a win on seat 1's 2m while seat 2 (Bob) is still
    to answer; Bob's pass (the last step) settles it."""
    async with booted(tmp_path, "hefei", "c13", 13) as got:
        yield got


async def test_a_win_called_before_another_seats_answer_does_not_tell_that_answer_was_awaited(hefei_c13) -> None:
    """A spectator (and seats 1 and 3) steps to the end: "Step 29/30 · E Ann calls a win on the discard" then
    "Step 30/30 · E Ann wins on S AI's discard". Had nobody else been offered the 2m, the win would have been one step
    "E Ann wins on ..."; the extra "calls a win" step says another seat (here: the only one left, Bob) was offered
    the 2m - the very thing Bob's hidden pass hides."""
    h, mid = hefei_c13
    rp = HandReplay.build("hefei", "c13", {}, played("hefei", "c13", 13, 1), 0)
    assert rp.steps[-2].action.type == "win" and not rp.steps[-2].events and rp.steps[-1].private_to_seat()
    assert rp.steps[-1].seat == 2  # the set-up: Bob's pass settles Ann's win
    viewer = A + 9
    r = await h.slash("replay", user=viewer, code=encode_code(mid, 0), locale="en-US")
    await go_to_step(h, r.reply, viewer, rp.n - 1)
    shown = [sc.caption for v, sc in h.seen.replay_images() if v == viewer]
    assert not any("calls a win" in c for c in shown), shown


# ------------------------------------------------------------------------------------------------ the review's steps


def numbers_after_step(text: str) -> list[int]:
    """Every step number an English text names: "step 36", "Steps 4, 9 and 12"."""
    out: list[int] = []
    for m in re.finditer(r"\b[Ss]teps? ((?:\d+(?:, | and |,? and )?)+)", text):
        out += [int(x) for x in re.findall(r"\d+", m.group(1))]
    return out


@pytest.mark.parametrize("show_all", [False, True])
async def test_the_reviews_step_numbers_are_the_replays(hefei_c11, show_all: bool) -> None:
    """Ann (seat 0) steps through her decisions with "my decision ▶" and reads each one's number in the caption
    ("Step 36/40"); the AI review (its message, the card's rows and foot, the summary on the last step) and the match
    review (its message, its rows) name each decision by that same number. With every hand hidden the raw step (37)
    would tell her that an answer she may not see came before it; with every hand shown the numbers are the raw
    steps, as the replay's."""
    h, mid = hefei_c11
    if show_all:
        await h.slash("settings", user=A, permissions=ADMIN_PERMISSIONS, replays_show_all_hands=True)
    rp = HandReplay.build("hefei", "c11", {}, played("hefei", "c11", 11, 1), 0)
    review = review_hand(rp, 0)
    code = encode_code(mid, 0)
    r = await h.slash("replay", user=A, code=code, locale="en-US")
    shown: dict[int, int] = {}  # raw step -> the number the caption gives it
    while not button(r.reply, "my decision ▶").get("disabled"):
        await h.click(r.reply, custom_id=button(r.reply, "my decision ▶")["custom_id"], user=A, locale="en-US")
        sc = h.seen.replay_images()[-1][1]
        m = re.match(r"Step (\d+)/(\d+)", sc.caption)
        assert m, sc.caption
        shown[sc.step] = int(m.group(1))
    assert {d.step for d in review.decisions} <= set(shown)
    biggest = review.biggest
    assert biggest is not None and review.costly > 5  # the set-up: a biggest loss, and more than the card lists
    # the set-up: with every hand hidden, some decisions (the costliest among them) come after a hidden answer
    assert (shown[biggest.step] != biggest.step) is not show_all
    if show_all:
        assert all(k == v for k, v in shown.items())

    # the /replay message's summary and the summary on the last step's review line
    assert f"the most at step {shown[biggest.step]} (" in r.reply.text, r.reply.text
    await h.click(r.reply, custom_id=button(r.reply, "⏭")["custom_id"], user=A, locale="en-US")
    end = h.seen.replay_images()[-1][1]
    summary = next(text for head, text, _g in end.review if head == "Review")
    assert numbers_after_step(summary) == [shown[biggest.step]], summary

    # the AI review: its message, the card's rows (one per listed disagreement, in step order) and its foot
    r2 = await h.click(r.reply, label="AI review", user=A, locale="en-US")
    assert numbers_after_step(r2.reply.text) == [shown[biggest.step]], r2.reply.text
    texts = h.seen.of("review_card")[-1]["texts"]
    rows = [int(t.text.split()[1]) for t in texts if re.fullmatch(r"Step \d+", t.text)]
    listed = sorted(sorted((d for d in review.decisions if d.costly), key=lambda d: (-d.cost, d.step))[:5],
                    key=lambda d: d.step)
    assert rows == [shown[d.step] for d in listed], rows
    card = " ".join(t.text for t in texts if not re.fullmatch(r"Step \d+", t.text))
    named = numbers_after_step(card)
    assert named and set(named) <= {shown[d.step] for d in review.decisions}, (named, card)
    more = [shown[d.step] for d in review.decisions if d.costly and d not in listed]
    agree = [shown[d.step] for d in review.decisions if d.agrees]
    assert more and agree  # the set-up: the foot names steps
    m = re.search(r"smaller differences?, about [\d.]+ 子 in all: (steps? [\d, and]+)", card)
    assert m and numbers_after_step(m.group(1)) == more, card
    m = re.search(r"The AI agrees at (steps? [\d, and]+)", card)
    assert m and numbers_after_step(m.group(1)) == agree, card

    # the match review (one hand here): its message and its rows
    r3 = await h.click(r.reply, label="Match review", user=A, locale="en-US")
    assert f"in hand 1 at step {shown[biggest.step]} (" in r3.reply.text, r3.reply.text
    mtexts = h.seen.of("match_review")[-1]["texts"]
    mrows = [int(t.text.split()[1]) for t in mtexts if re.fullmatch(r"Step \d+", t.text)]
    top = sorted((d for d in review.decisions if d.costly), key=lambda d: (-d.cost, d.step))[:4]
    assert mrows == [shown[d.step] for d in top], mrows
