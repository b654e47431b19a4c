"""/replay with ``replays_show_all_hands`` off, through the real dispatch: other seats' passes in claim windows are
never shown nor named (docs/replay.md, "What a viewer may see"), the hand's result is (it is public), and the
image, the caption, the buttons and the animation agree on it."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from bot.store import Store
from engine.replay import HandReplay, encode_code
from engine.review import review_hand
from render.replay import animation_scenes, frame_ms
from tests.cogs.test_memory import NAMES, A, B, record_match
from tests.harness import ADMIN_PERMISSIONS, GUILD_ID, Harness

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
    assert end.caption == f"Step {rp.n}/{rp.n} · the hand is drawn", end.caption
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
    assert zh.caption == f"第 {rp.n}/{rp.n} 步 · 流局" and "过" not in zh.caption
    # a spectator too
    r3 = await h.slash("replay", user=A + 9, code=encode_code(mid, 1), locale="en-US")
    await h.click(r3.reply, custom_id=button(r3.reply, "⏭")["custom_id"], user=A + 9, locale="en-US")
    assert h.seen.replay_images()[-1][1].caption == end.caption
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
    cid = button(r.reply, "☀ light")["custom_id"]
    for k in privates[:3] + [10 ** 6]:
        parts = cid.split(":")
        parts[4] = str(k)
        forged = ":".join(parts)
        for comp in r.reply.all_components():  # the forged id on the message, as a modified client would send it
            if comp.get("custom_id") == cid:
                comp["custom_id"] = forged
        cid = forged
        await h.click(r.reply, custom_id=forged, user=A, locale="en-US")
        viewer, scene = h.seen.replay_images()[-1]
        assert viewer == A
        want = min(visible, key=lambda x: (abs(x - min(k, rp.n)), x))
        assert scene.step == want and scene.step in visible, (k, scene.step)
        assert "passes" not in scene.caption, scene.caption
        assert f"step {want}/" in r.reply.text  # the message's head says the same step
        cid = next(b["custom_id"] for b in r.reply.buttons() if b.get("label") in ("☀ light", "🌙 dark"))


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
