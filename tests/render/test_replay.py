"""Replay images: captions in three languages, both themes, the review annotation, privacy (checked on the scenes),
and the animated GIF (lossless frames, readable pace, under Discord's upload limit on long real hands)."""

from __future__ import annotations

import doctest
import io
import itertools
import random
import sys
from functools import cache
from pathlib import Path

import pytest
from PIL import Image, ImageChops

import render.replay as rr
from engine.replay import HandReplay, encode_code
from engine.review import review_hand
from engine.selfplay import play_match
from engine.table import Table
from render import fonts
from render.common import palette_for, theme_of
from render.replay import (
    MAX_UPLOAD,
    animation_scenes,
    draw_replay,
    frame_ms,
    render_replay_animation,
    render_replay_step,
    replay_scene,
    review_summary,
)
from render.table import WIDTH

sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))
from replay_games import VARIANTS, played  # noqa: E402

NAMES = ("小明", "Alice", "王大锤", "Bob the Builder")
LANGS = ("zh", "zh-TW", "en")


@cache
def hand(variant: str, seed: str = "img", h: int = 0) -> HandReplay:
    _kw, acts = played(variant, seed, h + 1)
    return HandReplay.build(variant, seed, {}, acts, h)


def _png(data: bytes) -> Image.Image:
    im = Image.open(io.BytesIO(data))
    assert im.format == "PNG"
    return im


def test_docstring_examples():
    assert doctest.testmod(rr).failed == 0


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("theme", ("dark", "light"))
def test_a_step_image_in_every_language_and_theme(variant, lang, theme):
    r = hand(variant)
    rv = review_hand(r, 0)
    k = rv.decisions[len(rv.decisions) // 2].step
    im = _png(render_replay_step(r, k, 0, theme=theme, lang=lang, names=NAMES, review=rv, code=encode_code(7, 0)))
    assert im.width == WIDTH and 700 < im.height < 1600
    # the image is in the theme: its corner is the theme's background (as mapped onto the fixed palette)
    corner = im.convert("RGB").getpixel((2, 2))
    assert max(abs(a - b) for a, b in zip(corner, theme_of(theme).bg, strict=True)) <= 3


def _first(r: HandReplay, typ: str) -> int:
    return next(s.index for s in r.steps if s.action.type == typ)


def test_captions_say_who_did_what_in_three_languages():
    r = hand("wuhu")
    k = _first(r, "discard")
    s = r.steps[k - 1]
    from engine.tiles import tile_zh
    from render.common import wind_name
    from text.tiles import tile_label

    w = r.winds[s.seat]
    m = len(r.visible_steps(0)) - 1  # the steps seat 0 may see (every hand hidden)
    assert r.visible_steps(0)[k] == k  # the set-up: seat 0 sees every step up to k
    zh = replay_scene(r, k, 0, lang="zh", names=NAMES).caption
    tw = replay_scene(r, k, 0, lang="zh-TW", names=NAMES).caption
    en = replay_scene(r, k, 0, lang="en", names=NAMES).caption
    assert zh == f"第 {k}/{m} 步 · {wind_name(w, 'zh')} {NAMES[s.seat]} 打出 {tile_zh(s.action.tile)}"
    assert en == f"Step {k}/{m} · {'ESWN'[w]} {NAMES[s.seat]} discards {tile_label(s.action.tile, 'en')}"
    assert tw.startswith(f"第 {k}/{m} 步 · ") and "打出" in tw
    assert replay_scene(r, 0, 0, lang="en").caption == f"Step 0/{m} · The deal"
    assert replay_scene(r, 0, 0, lang="en", show_all=True).caption == f"Step 0/{r.n} · The deal"
    assert replay_scene(r, 0, 0, lang="zh-TW").caption.endswith("發牌")


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_caption_draws_with_the_shipped_fonts(variant):
    """No caption or review line of a real hand falls back to '?' (characters missing from the font subsets)."""
    for seed in ("img", "cap"):
        r = hand(variant, seed)
        rv = review_hand(r, 0)
        for lang in LANGS:
            for sc in animation_scenes(r, 0, lang=lang, names=NAMES, review=rv, show_all=True):
                for text in (sc.caption, sc.title, *(x for line in sc.review for x in line[:2]),
                             *(label for label, _ in sc.hands)):
                    assert fonts.clean(text) == text, text


def test_the_last_step_shows_the_result_and_the_hands_own_winds():
    r = hand("hefei")
    sc = replay_scene(r, r.n, 0, lang="en", names=NAMES)
    assert sc.table.turn is None
    assert sc.table.dealer == r.dealer  # not the next hand's dealer
    assert [s.wind for s in sc.table.seats] == r.winds
    res = r.result
    assert res is not None
    if res["winners"]:
        assert "wins" in sc.caption
    else:
        assert "drawn" in sc.caption


# ------------------------------------------------------------------------------------------------ privacy


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_viewer_never_sees_another_seats_concealed_tiles(variant):
    r = hand(variant)
    for viewer in range(4):
        scenes = list(animation_scenes(r, viewer, lang="en", names=NAMES))
        assert [s.step for s in scenes] == r.visible_steps(viewer)
        for sc, (k, t) in zip(scenes, ((k, t) for k, t in r.walk() if k in set(r.visible_steps(viewer))),
                              strict=True):
            assert sc.step == k
            # one hand only, the viewer's, exactly their concealed tiles
            assert len(sc.hands) == 1
            own = sc.hands[0][1]
            assert own.seat == viewer
            shown = sorted(own.concealed + ((own.drawn,) if own.drawn is not None else ()))
            expected = sorted(x for x in range(34) for _ in range(t.counts[viewer][x]))
            if k == r.n and viewer in {w["seat"] for w in r.result["winners"]} and len(shown) > len(expected):
                # won on a discard: the winning tile is set apart beside the hand
                shown.remove(own.drawn)
            assert shown == expected
            # the table shows other seats as counts of backs
            for s, seat in enumerate(sc.table.seats):
                assert seat.concealed_count == sum(t.counts[s])
            # numbered over the steps the viewer may see
            assert (sc.number, sc.total) == (r.visible_steps(viewer).index(k), len(r.visible_steps(viewer)) - 1)
            # nobody else's answer in a claim window is described: a window's last answer, shown when the window
            # took the tile or ended the hand, is captioned with what the window came to alone
            if k:
                st = r.steps[k - 1]
                if st.private_to_seat() and st.seat != viewer:
                    assert r.resolves(k) and (st.takes() or k == r.n)
                    out = rr.describe_outcome(st, NAMES, r.winds, "en")
                    assert out and sc.caption == f"Step {sc.number}/{sc.total} · {out}"
    # a spectator sees no hand at all
    assert all(not sc.hands for sc in animation_scenes(r, None))


def test_a_win_another_seats_pass_completes_is_captioned_with_the_win_alone():
    """Wuhu: a win on a discard whose window another seat answered last (with a pass). With every hand hidden, the
    other viewers' last step names the win and whose discard it was, not the pass; the animation ends on it."""
    t, acts = Table.new("wuhu", "y6"), []
    play_match(t, ["normal"] * 4, random.Random(6), max_hands=4, record=acts)
    r = HandReplay.build("wuhu", "y6", {}, acts, 1)
    last = r.steps[-1]
    assert last.private_to_seat() and any(e.type == "win" for e in last.events)  # the set-up
    win = next(e for e in last.events if e.type == "win")
    winds = r.winds
    for viewer in (None, 0, 1, 2, 3):
        sc = replay_scene(r, r.n, viewer, lang="en", names=list("ABCD"))
        if viewer == last.seat:
            assert "passes" in sc.caption
            continue
        who = f"{rr.wind_name(winds[win.seat], 'en')} {'ABCD'[win.seat]}"
        frm = f"{rr.wind_name(winds[win.data['from']], 'en')} {'ABCD'[win.data['from']]}"
        m = len(r.visible_steps(viewer)) - 1
        assert sc.caption == f"Step {m}/{m} · {who} wins on {frm}'s discard", sc.caption
        assert [s.step for s in animation_scenes(r, viewer, lang="en")][-1] == r.n


def test_a_win_awaiting_another_answer_and_the_pass_that_settles_it_are_both_captioned_truly():
    """The same hand: B's win call waited on C's answer. B's step said "wins on ?'s discard" (the discarder
    unknown until the window closed), and C's pass, which settled the win, said only "S C passes": C, and every
    viewer of a replay showing all hands, never read who won."""
    t, acts = Table.new("wuhu", "y6"), []
    play_match(t, ["normal"] * 4, random.Random(6), max_hands=4, record=acts)
    r = HandReplay.build("wuhu", "y6", {}, acts, 1)
    call, last = r.steps[-2], r.steps[-1]
    assert call.action.type == "win" and not any(e.type == "win" for e in call.events)  # the set-up
    for lang, called, won in (("en", "E B calls a win on the discard", "E B wins on W D's discard"),
                              ("zh", "东 B 要和这张牌", "东 B 和牌（西 D 点炮）")):
        assert rr.describe_step(call, list("ABCD"), r.winds, lang) == called
        assert "?" not in replay_scene(r, r.n - 1, None, lang=lang, names=list("ABCD")).caption
        passed = rr.describe_step(last, list("ABCD"), r.winds, lang)
        assert passed.endswith(won) and passed.startswith({"en": "S C passes", "zh": "南 C 过"}[lang])
        assert replay_scene(r, r.n, last.seat, lang=lang, names=list("ABCD")).caption.endswith(won)


def _selfplay(variant: str, seed: str, rng: int) -> HandReplay:
    t, acts = Table.new(variant, seed), []
    play_match(t, ["normal"] * 4, random.Random(rng), max_hands=1, record=acts)
    return HandReplay.build(variant, seed, {}, acts, 0)


def test_a_hand_whose_last_answer_a_win_overruled_ends_on_the_win():
    """Wuhu "c3": A (seat 0) calls a win on B's 9p, C (seat 2) answers Pung last; the win takes the tile. Every
    viewer's last step names the win; only C reads their own pung call (never taken: it is said as called), and
    with it the win."""
    r = _selfplay("wuhu", "c3", 3)
    last = r.steps[-1]
    assert last.action.type == "pung" and last.seat == 2 and last.takes()  # the set-up
    won = "E A wins on S B's discard"
    for viewer in (None, 0, 1, 3):
        cap = replay_scene(r, r.n, viewer, lang="en", names=list("ABCD")).caption
        assert cap.endswith(" · " + won) and "pung" not in cap, cap
    called = "W C calls pung on 9p"
    assert replay_scene(r, r.n, 2, lang="en", names=list("ABCD")).caption.endswith(f" · {called} · {won}")
    # every hand shown: each answer as it was, the last with what it came to
    assert rr.describe_step(last, list("ABCD"), r.winds, "en") == f"{called} · {won}"
    assert replay_scene(r, r.n, None, lang="en", names=list("ABCD"), show_all=True).caption == (
        f"Step {r.n}/{r.n} · {called} · {won}")


def test_a_pung_a_win_overruled_is_captioned_only_for_its_seat():
    """Hefei "c11": A's pung of the 3p is overruled by B's win. The others step from the discard to the win."""
    r = _selfplay("hefei", "c11", 11)
    k = r.n - 1
    assert r.steps[k - 1].action.type == "pung" and r.steps[k - 1].seat == 0  # the set-up
    for viewer in (None, 1, 2, 3):
        caps = [sc.caption for sc in animation_scenes(r, viewer, lang="en", names=list("ABCD"))]
        assert not any("pungs 3p" in c or "calls pung" in c for c in caps), caps
        assert caps[-1].endswith("wins on W C's discard")
    # A reads their own call, as called: the win took the 3p, A never punged it
    caps = [sc.caption for sc in animation_scenes(r, 0, lang="en", names=list("ABCD"))]
    assert any("A calls pung on 3p" in c for c in caps) and not any("A pungs 3p" in c for c in caps), caps


def test_a_claim_another_seat_answered_last_is_captioned_at_the_windows_end():
    """A pung that took the tile while another seat's pass closed the window: the pass is not named to others, the
    pung is, at the window's last step (and with every hand shown, "X passes · Y pungs")."""
    r = _selfplay("chizhou", "c6", 6)  # two such windows (found by a sweep)
    found = [s for s in r.steps if s.action.type == "pass" and s.takes()]
    assert len(found) == 2
    for s in found:
        claim = next(e for e in s.events if e.type in ("pung", "chi", "kong"))
        out = rr.describe_outcome(s, "ABCD", r.winds, "en")
        assert out and "passes" not in out
        for viewer in {None, 0, 1, 2, 3} - {s.seat}:
            assert s.index in r.visible_steps(viewer)
            cap = replay_scene(r, s.index, viewer, lang="en", names=list("ABCD")).caption
            assert cap.endswith(" · " + out) and "passes" not in cap, cap
        assert rr.describe_step(s, "ABCD", r.winds, "en").endswith(" passes · " + out)
        assert claim.seat != s.seat


def test_show_all_hands_shows_every_seat_once_the_hand_is_over():
    r = hand("chizhou")
    k = r.n // 2
    t = r.table(k)
    sc = replay_scene(r, k, 2, show_all=True, names=NAMES, lang="en")
    assert [h.seat for _, h in sc.hands] == [2, 3, 0, 1]
    for _, h in sc.hands:
        got = sorted(h.concealed + ((h.drawn,) if h.drawn is not None else ()))
        assert got == sorted(x for x in range(34) for _ in range(t.counts[h.seat][x]))
    assert sc.hands[0][0].endswith(NAMES[2])


def test_a_seat_that_does_not_exist_is_refused():
    from engine.errors import EngineError

    with pytest.raises(EngineError):
        replay_scene(hand("wuhu"), 0, 7)


# ------------------------------------------------------------------------------------------------ review


def test_the_viewers_decision_shows_their_choice_and_the_ais():
    r = hand("wuhu")
    rv = review_hand(r, 0)  # seat 0 is the easy AI: it disagrees somewhere
    d = next(x for x in rv.decisions if not x.agrees)
    for lang, you, ai in (("zh", "你", "AI"), ("en", "You", "AI"), ("zh-TW", "你", "AI")):
        sc = replay_scene(r, d.step, 0, review=rv, lang=lang)
        assert [line[0] for line in sc.review] == [you, ai, ""]
        from render.replay import describe_choice

        assert sc.review[0][1] == describe_choice(d.played, lang)
        assert sc.review[1][1] == describe_choice(d.ai, lang)
    sc = replay_scene(r, d.step, 0, review=rv)
    if d.ai.action.tile is not None and d.ai.action.type == "discard":
        assert sc.hands[0][1].highlight == frozenset({d.ai.action.tile})  # the AI's discard is marked in the hand
    # the review is the viewer's own: another viewer sees no annotation
    assert replay_scene(r, d.step, 1, review=rv).review == ()
    # the summary closes the hand
    end = replay_scene(r, r.n, 0, review=rv, lang="en")
    assert end.review == (("Review", review_summary(rv, "en", rr.review_numbers(r, 0)), None),)
    agree = next((x for x in rv.decisions if x.agrees), None)
    if agree is not None:
        assert replay_scene(r, agree.step, 0, review=rv, lang="en").review[1][1] == "the same choice"


# ------------------------------------------------------------------------------------------------ animation


def test_the_animation_is_a_lossless_gif_at_a_readable_pace():
    r = hand("hefei")
    rv = review_hand(r, 0)
    data = render_replay_animation(r, 0, names=NAMES, review=rv, lang="en")
    im = Image.open(io.BytesIO(data))
    assert im.format == "GIF" and im.is_animated and im.info.get("loop") == 0
    scenes = list(animation_scenes(r, 0, names=NAMES, review=rv, lang="en"))
    assert im.n_frames == len(scenes)
    durations = []
    for i in range(im.n_frames):
        im.seek(i)
        durations.append(im.info["duration"])
    assert durations == [frame_ms(r, s.step, s) for s in scenes]
    assert min(durations) >= 900 and durations[-1] >= 5000
    # the last frame is exactly the replay image on the fixed palette: nothing blurred or dithered away
    last_table = rr.draw_table(scenes[-1].table, "dark", "en")
    review_h = max(rr.review_block(s.review)[1] for s in scenes)
    ref = draw_replay(scenes[-1], "dark", "en", table_height=last_table.height, review_height=review_h)
    ref = ref.quantize(palette=palette_for("dark"), dither=Image.Dither.NONE).convert("RGB")
    im.seek(im.n_frames - 1)
    got = im.convert("RGB")
    assert got.width == ref.width
    assert ImageChops.difference(got.crop((0, 0, *ref.size)), ref).getbbox() is None


@cache
def longest_hand(variant: str) -> HandReplay:
    """The longest of a few real AI matches (Chizhou plays its wall out: its hands are the longest)."""
    best = None
    for m in range(3):
        t = Table.new(variant, f"long{m}")
        acts: list = []
        n = play_match(t, ["normal"] * 4, random.Random(m), max_hands=5, record=acts)
        for h in range(n):
            r = HandReplay.build(variant, f"long{m}", {}, acts, h)
            if best is None or r.n > best.n:
                best = r
    assert best is not None
    return best


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_long_hand_animates_under_discords_upload_limit(variant):
    r = longest_hand(variant)
    assert r.n >= 60
    rv = review_hand(r, 0)
    data = render_replay_animation(r, 0, names=NAMES, review=rv, show_all=True, theme="light", lang="zh-TW")
    assert len(data) < MAX_UPLOAD / 2, len(data)  # half the limit: room for names, themes and longer hands
    assert Image.open(io.BytesIO(data)).n_frames == r.n + 1


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("theme", ("dark", "light"))
def test_the_review_card_lists_the_disagreements(lang, theme):
    r = hand("chizhou", "errs")  # 12 of its decisions cost 子
    rv = review_hand(r, 0)
    im = _png(rr.render_review(rv, r, theme, lang))
    height, texts, frames = rr.review_layout(rv, r, lang)
    assert im.size == (rr.REVIEW_W, height)
    # one row per listed disagreement (the costliest of those that cost 子), then the foot's lines
    rows = min(rv.costly, rr.REVIEW_MAX_ROWS)
    assert rv.costly > rr.REVIEW_MAX_ROWS  # the easy AI errs often: the card lists the costliest only
    number = rr.review_numbers(r, 0)  # as the replay numbers the steps (every hand hidden)
    listed = [row[0] for row in rr.review_rows(rv, lang, number=number)]
    assert listed == sorted(listed) and len(listed) == rows
    assert rv.biggest is not None and number(rv.biggest.step) in listed and len(frames) == 1
    foot = rr.review_foot(rv, lang, number=number)
    # the smaller ones and where to see them, the ones worth as much, the steps where the AI agrees
    assert len(foot) == 2 + bool(rv.disagreements > rv.costly) + (rv.disagreements < len(rv.decisions))
    assert _drawn(texts).endswith("".join(foot).replace(" ", ""))
    assert rr.txt("render.review.legend", lang).replace(" ", "") in _drawn(texts)  # what "expected" means
    # a seat played by the strong AI: nothing to list, one line saying so
    _kw, acts = played("chizhou", "self", 1, ("strong",) * 4)
    r2 = HandReplay.build("chizhou", "self", {}, acts, 0)
    rv2 = review_hand(r2, 1)
    assert rv2.disagreements == 0
    h2, texts2, frames2 = rr.review_layout(rv2, r2, lang)
    assert _png(rr.render_review(rv2, r2, theme, lang)).height == h2 and not frames2
    assert rr.review_foot(rv2, lang) == [rr.txt("render.replay.ai_agrees_all", lang)]
    assert texts2[-1].text == rr.txt("render.replay.ai_agrees_all", lang)
    assert rr.txt("render.review.legend", lang).replace(" ", "") not in _drawn(texts2)  # no price on it


def _drawn(texts) -> str:
    """Every line of a card, joined, without spaces (a wrapped line loses the space it broke at)."""
    return "".join(t.text for t in texts).replace(" ", "")


def test_every_kind_of_step_is_described():
    from engine.replay import Step
    from engine.table import Action, Event

    names, winds = ["A", "B", "C", "D"], [0, 1, 2, 3]

    def say(action, events=(), *, window=False, timeout=False, lang="zh"):
        return rr.describe_step(Step(1, action.seat, action, timeout, window, True, tuple(events)), names, winds, lang)

    assert say(Action("chi", 1, 2)) == "南 B 吃 三四五万"
    assert say(Action("chi", 1, 2), lang="en") == "S B chows 3m-4m-5m"
    assert say(Action("pung", 2, 31), lang="zh-TW") == "西 C 碰 白"
    assert say(Action("kong", 0, 5), [Event("kong", 0, {"tile": "6m", "kind": "concealed"})]) == "东 A 暗杠 六万"
    assert say(Action("kong", 0, 5), [Event("add_kong", 0, {"tile": "6m"})], lang="en") == "E A adds 6m to a pung (kong)"
    assert say(Action("kong", 3, 5), [Event("kong", 3, {"tile": "6m", "kind": "claimed", "from": 1})]) == "北 D 杠 六万"
    assert say(Action("win", 0), [Event("win", 0, {"self_drawn": True, "from": None})]) == "东 A 自摸和牌"
    assert say(Action("win", 0), [Event("win", 0, {"self_drawn": False, "from": 2, "rob_kong": False})],
               lang="en") == "E A wins on W C's discard"
    assert say(Action("win", 1), [Event("win", 1, {"self_drawn": False, "from": 0, "rob_kong": True})]) == \
        "南 B 抢 东 A 的杠和牌"
    assert say(Action("pass", 1), [Event("lay_aside", 1, {"tile": "9s"})], lang="en") == "S B lays 9s aside"
    assert say(Action("pass", 1), window=True, lang="zh-TW") == "南 B 過"
    assert say(Action("discard", 1, 0), [Event("hand_end", None, {"draw": True})], timeout=True, lang="en") == \
        "S B discards 1m (timed out) · the hand is drawn"
    assert say(Action("discard", 1, 0), [Event("hand_end", None, {"draw": True})], timeout=True) == \
        "南 B 打出 一万（超时） · 流局"


def test_replays_and_reviews_name_tiles_as_the_live_table_does():
    """An honour is East ... Red in English, as the table's messages and buttons say it, never "1z".."7z" (the
    notation of /score): one naming for the table, the captions and the review lines."""
    from bot.tables import tile_label as table_label
    from engine.replay import Step
    from engine.review import Choice, Decision
    from engine.table import Action
    from text.tiles import tile_label

    for lang in LANGS:
        assert [rr._tile(k, lang) for k in range(34)] == [table_label(k, lang) for k in range(34)]
    assert table_label is tile_label
    step = Step(1, 1, Action("discard", 1, 33), False, False, True, ())
    assert rr.describe_step(step, "ABCD", [0, 1, 2, 3], "en") == "S B discards Red"
    assert rr.describe_choice(Choice(Action("pung", 0, 31), 0, 8), "en") == "pung White · ready · 8 useful"
    you = Choice(Action("discard", 0, 4), 3, 20, ev=0.1)
    ai = Choice(Action("discard", 0, 27), 3, 20, ev=0.1)
    assert "East" in rr.describe_reason(Decision(4, 0, you, ai, reason="let_go"), "en")


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_line_of_the_review_cards_reads_on_a_phone(variant):
    """Real hands (the easy AI in chair 0, long names): every line of the hand's card, the match's card and the review
    lines of the step images is whole (wrapped, never cut with "…") and set at 15 px or more, inside the card. The
    cards shrank a long reason to 11-12 px (9-10 px on a 400 px phone) and cut it ("worth 10.8 …"), and the step image
    shrank its lines the same way."""
    from engine.review import review_match
    from render.match_review import match_review_layout, match_review_rows

    _kw, acts = played(variant, "weak", 2)
    hands = list(HandReplay.each(variant, "weak", {}, acts))
    mr = review_match(hands, 0)

    def readable(texts, width: int) -> None:
        for t in texts:
            w = fonts.text_width(t.text, fonts.text_font(t.text, t.size, t.bold))
            assert t.size >= rr.LINE_MIN_SIZE and "…" not in t.text and t.x + w <= width - 20, (t, w)

    for lang in LANGS:
        for h, r in zip(mr.hands, hands, strict=True):
            _height, texts, _frames = rr.review_layout(h.review, r, lang, names=NAMES)
            readable(texts, rr.REVIEW_W)
            drawn = _drawn(texts)
            for row in rr.review_rows(h.review, lang, NAMES, r.winds):
                assert all(part.replace(" ", "") in drawn for part in row[1:]), row
            for d in h.review.decisions:
                block, _h = rr.review_block(replay_scene(r, d.step, 0, review=h.review, lang=lang, names=NAMES).review)
                readable(block, WIDTH)
                if d.costly:
                    why = rr.describe_reason(d, lang, NAMES, r.winds)
                    assert why and why.replace(" ", "") in _drawn(block)
        _height, texts, _frames, _bars, _chart = match_review_layout(mr, variant, lang, NAMES)
        readable(texts, rr.REVIEW_W)
        for row in match_review_rows(mr, lang, NAMES):
            assert all(part.replace(" ", "") in _drawn(texts) for part in row), row


def _no_overlap(texts) -> None:
    """No line of a card runs into the next one set at the same x (one column)."""
    by_x: dict[int, list] = {}
    for t in texts:
        by_x.setdefault(t.x, []).append(t)
    for col in by_x.values():
        col.sort(key=lambda t: t.y)
        for a, b in itertools.pairwise(col):
            assert a.y + a.size <= b.y, (a, b)


@pytest.mark.parametrize("lang", LANGS)
def test_a_timed_out_choice_that_wraps_pushes_the_lines_under_it_down(lang):
    """A timed-out choice says so ("discard 6m (timed out) · 1.7 子 expected"): in English it takes two lines of the
    row's column, and its second line was drawn over the AI's choice (hand and match cards; found by an independent
    review). Every costly decision of a real hand marked timed out: no two lines of a column meet."""
    import dataclasses

    from engine.review import HandReview, MatchReview, Review
    from render.match_review import match_review_layout

    _kw, acts = played("wuhu", "d", 1)
    r = HandReplay.build("wuhu", "d", {}, acts, 0)
    rv = review_hand(r, 0)
    out = Review(rv.seat, tuple(dataclasses.replace(d, timeout=True) if d.costly else d for d in rv.decisions),
                 rv.n_steps, rv.by_ai)
    assert sum(d.costly for d in out.decisions) >= 3
    _h, texts, _f = rr.review_layout(out, r, lang, names=NAMES)
    _no_overlap(texts)
    wrapped = [t for t in texts if t.text.strip() in ("expected", "子 expected")]
    assert wrapped or lang != "en"  # the case that overlapped is there
    _h, texts, _f, _b, _c = match_review_layout(MatchReview(0, (HandReview(0, tuple(r.winds), out),)), "wuhu", lang,
                                                NAMES)
    _no_overlap(texts)


@pytest.mark.parametrize("lang", LANGS)
def test_the_match_reviews_kinds_of_loss_are_set_in_one_weight(lang):
    """The match review's kinds of loss are a list of labels side by side. The bold face holds only some characters
    (render/fonts.py), so most Chinese labels fell back to the regular face while 漏和 (wins let pass), which it
    covers, stood out bold among them (zh-TW: 錯過更大的牌 regular, 漏和 bold; zh-CN: 错过更大的牌 bold too). Every
    label is drawn in the same face; since the bold face holds every character of the catalogues, bold in every
    language."""
    from engine.review import Choice, Decision, HandReview, MatchReview, Review
    from engine.table import Action
    from render.match_review import kind_label, match_review_layout

    def dec(step: int, reason: str) -> Decision:
        return Decision(step, 0, Choice(Action("pass", 0), 1, 10, ev=1.0), Choice(Action("discard", 0, step), 1, 20,
                        ev=1.0 + step), reason=reason)

    kinds = ("win", "faster", "bigger", "shape", "safer")
    mr = MatchReview(0, (HandReview(0, (0, 1, 2, 3), Review(0, tuple(dec(k + 1, r) for k, r in enumerate(kinds)),
                                                             20)),))
    _h, texts, _f, _bars, _c = match_review_layout(mr, "wuhu", lang)
    labels = {kind_label(k, lang) for k in kinds}
    drawn = [t for t in texts if t.text in labels]
    assert {t.text for t in drawn} == labels
    faces = {fonts.text_font(t.text, t.size, t.bold).path for t in drawn}
    assert len(faces) == 1, [(t.text, t.bold) for t in drawn]
    assert faces == {str(fonts.BOLD)}


PHONE_W = 400  # a phone's screen, CSS px, in portrait
CARD_MAX_H = 1100  # 917 px on that phone: about one screen


@pytest.mark.parametrize("lang", ("zh-TW", "en"))
def test_the_worst_real_review_cards_fit_about_one_phone_screen(lang):
    """The easy AI's hands with the most costly decisions and the longest reasons (Wuhu seed d: 12 of 17 decisions
    cost 子, most of them "safer against E Bob the Builder (alarm, 报警) ..." over three lines). With eight rows the hand's
    card was 1,411 px tall on its 480 px (1,176 on a 400 px phone: two screens and more to scroll through an image),
    and the match's card with five rows 1,222. They list the costliest five and four, and fit 1,100 px (917 on the
    phone); the hand's total is still every decision's loss, and the line under the rows names the steps not shown and
    the replay button that shows each."""
    from bot.i18n import t
    from engine.review import review_match
    from render.match_review import match_review_layout

    for variant, seed in (("wuhu", "d"), ("chizhou", "errs")):
        _kw, acts = played(variant, seed, 6)
        hands = list(HandReplay.each(variant, seed, {}, acts))
        r, rv = hands[0], review_hand(hands[0], 0)
        height, texts, _frames = rr.review_layout(rv, r, lang, names=NAMES)
        assert rv.costly > rr.REVIEW_MAX_ROWS and height <= CARD_MAX_H, (variant, height)
        drawn = _drawn(texts)
        assert rr.review_head(rv, lang)[0].replace(" ", "") in drawn
        assert f"{sum(d.cost for d in rv.decisions):.1f}" in rr.review_head(rv, lang)[0]  # every decision's loss
        number = rr.review_numbers(r, 0)  # as the replay numbers the steps (every hand hidden)
        listed = [row[0] for row in rr.review_rows(rv, lang, NAMES, r.winds, number)]
        hidden = [d for d in rv.decisions if d.costly and number(d.step) not in listed]
        more = rr.txt("render.review.more", lang, n=len(hidden), cost=f"{round(sum(d.cost for d in hidden), 1):.1f}",
                      steps=rr.join_list((str(number(d.step)) for d in hidden), lang))
        where = rr.txt("render.review.more_where", lang, button=t("memory.next_decision", lang))
        assert more.replace(" ", "") in drawn and where.replace(" ", "") in drawn
        mheight = match_review_layout(review_match(hands, 0), variant, lang, NAMES)[0]
        assert mheight <= CARD_MAX_H, (variant, mheight)


# ------------------------------------------------------------------------ found by an independent review of the cards


def _simple_player_hands(variant: str, seed: str, hands: int = 3) -> list[HandReplay]:
    """Chair 0 plays as a careless player (a win when offered, else the right-most tile, else pass) against three
    normal AIs; the hands, as the bot rebuilds them."""
    from engine.ai import choose

    t = Table.new(variant, seed)
    acts = []
    rng = random.Random(seed)
    ended = 0
    while t.hand.phase != "over" and ended < hands:
        if t.hand.phase == "ended":
            a = t.legal_actions(0)[0]
        else:
            seat = t.awaited()[0]
            la = t.legal_actions(seat)
            if seat == 0 and len(la) > 1:
                a = (next((x for x in la if x.type == "win"), None)
                     or ([x for x in la if x.type == "discard"] or [None])[-1]
                     or next((x for x in la if x.type == "pass"), la[0]))
            else:
                a = la[0] if len(la) == 1 else choose(t, seat, la, "normal", rng)
        acts.append(a)
        if any(e.type == "hand_end" for e in t.apply(a)):
            ended += 1
    return list(HandReplay.each(variant, seed, {}, acts, NAMES))


@pytest.mark.parametrize("lang", LANGS)
def test_the_tiles_let_go_are_told_on_one_line_and_the_card_stays_a_screen(lang):
    """Chizhou: a hand too far from 2 花 late lets a tile go at nearly every turn; the card said so on a line of its
    own for each (twelve lines, 1,718 px tall in English)."""
    rp = _simple_player_hands("chizhou", "sp6")[2]
    rv = review_hand(rp, 0)
    let_go = [d for d in rv.decisions if d.reason == "let_go" and not d.costly]
    assert len(let_go) >= 10
    foot = rr.review_foot(rv, lang, NAMES, rp.winds)
    lines = [x for x in foot if "2 花" in x or "2 flowers" in x]
    steps = rr.join_list((str(d.step) for d in let_go), lang)
    assert len(lines) == 1 and steps in lines[0]
    tiles = {rr._tile(d.ai.action.tile, lang) for d in let_go}
    assert all(t in lines[0] for t in tiles)
    height, _texts, _frames = rr.review_layout(rv, rp, lang, names=NAMES)
    assert height < 1200


@pytest.mark.parametrize("lang", LANGS)
def test_the_last_step_of_a_hand_the_player_won_shows_the_summary(lang):
    """The player's own win is their last decision: the last step showed "You: win / AI: the same choice" instead
    of the review's summary, on the step image and the animation's last frame."""
    t = Table.new("chizhou", "sp6")
    acts = []
    play_match(t, ["easy", "normal", "normal", "normal"], random.Random("sp6"), max_hands=3, record=acts)
    rp = HandReplay.build("chizhou", "sp6", {}, acts, 2, NAMES)
    rv = review_hand(rp, 0)
    assert [w["seat"] for w in rp.result["winners"]] == [0] and rv.at(rp.n) is not None  # won by the player
    scene = rr.replay_scene(rp, rp.n, 0, lang=lang, names=NAMES, review=rv)
    assert [line[1] for line in scene.review] == [rr.review_summary(rv, lang, rr.review_numbers(rp, 0))]


@pytest.mark.parametrize("lang", LANGS)
def test_a_match_the_ai_played_for_the_player_says_so(lang):
    """The match card said "You had no decision to make in this match" and "0 decisions" for a player whose every
    move the AI made (away, 托管), where the hand's card said the AI played it."""
    from engine.review import HandReview, MatchReview, Review
    from render.match_review import match_review_head, match_review_layout, match_review_summary

    m = MatchReview(0, (HandReview(0, (0, 1, 2, 3), Review(0, (), 40, 11)),
                        HandReview(1, (3, 0, 1, 2), Review(0, (), 30, 9))))
    by_ai = rr.txt("render.review.by_ai", lang, n=20)
    assert match_review_head(m, "hefei", lang)[1] == rr.txt("render.match_review.all_by_ai", lang)
    assert match_review_summary(m, lang).endswith("\n" + by_ai)
    _h, texts, _f, _b, _c = match_review_layout(m, "hefei", lang, NAMES)
    drawn = " ".join(t.text for t in texts)
    assert rr.txt("render.match_review.all_by_ai", lang) in drawn and by_ai.split()[-1] in drawn


def _steps_named(text: str) -> list[int]:
    import re

    out: list[int] = []
    for m in re.finditer(r"\b[Ss]teps? ((?:\d+(?:, | and )?)+)", text):
        out += [int(x) for x in re.findall(r"\d+", m.group(1))]
    return out


@pytest.mark.parametrize("show_all", [False, True])
def test_the_review_numbers_its_steps_as_the_replay_does(show_all):
    """Hefei "c11": Ann's (seat 0) costliest decision is raw step 37, after an answer of another seat she may not
    see; her replay captions it "Step 36/40". Every number of the review (the summary, the card's rows and foot, the
    summary on the last step) is the replay's caption number; with every hand shown, the raw step."""
    from render.replay import review_foot, review_layout, review_numbers, review_rows, review_summary

    r = _selfplay("hefei", "c11", 11)
    rv = review_hand(r, 0)
    caption = {d.step: replay_scene(r, d.step, 0, lang="en", show_all=show_all).number for d in rv.decisions}
    b = rv.biggest
    assert b is not None and (caption[b.step] == b.step) is show_all  # the set-up
    number = review_numbers(r, 0, show_all=show_all)
    assert all(number(k) == v for k, v in caption.items())
    assert _steps_named(review_summary(rv, "en", number)) == [caption[b.step]]
    assert f"第 {caption[b.step]} 步" in review_summary(rv, "zh", number)
    end = replay_scene(r, r.n, 0, lang="en", review=rv, show_all=show_all)
    assert _steps_named(next(t for h, t, _g in end.review if h == "Review")) == [caption[b.step]]
    listed = sorted(sorted((d for d in rv.decisions if d.costly), key=lambda d: (-d.cost, d.step))[:5],
                    key=lambda d: d.step)
    assert [row[0] for row in review_rows(rv, "en", number=number)] == [caption[d.step] for d in listed]
    _h, texts, frames = review_layout(rv, r, "en", show_all=show_all)
    assert [t.text for t in texts if t.text.startswith("Step ")] == [f"Step {caption[d.step]}" for d in listed]
    assert len(frames) == 1  # the costliest row is still the one framed
    more = [caption[d.step] for d in rv.decisions if d.costly and d not in listed]
    agree = [caption[d.step] for d in rv.decisions if d.agrees]
    foot = review_foot(rv, "en", number=number)
    assert _steps_named(foot[0]) == more and _steps_named(foot[-1]) == agree, foot
    # without a numbering the raw steps (the review's own identity stays raw)
    assert _steps_named(review_summary(rv, "en")) == [b.step]


def test_the_match_review_numbers_each_hands_steps_as_its_replay_does():
    """A match review of two hands: each hand's steps are numbered as that hand's replay numbers them for the
    player; with every hand shown, the raw steps."""
    from engine.review import Choice, Decision, HandReview, MatchReview, Review, review_match
    from engine.table import Action
    from render.match_review import match_review_layout, match_review_rows, match_review_summary

    r = _selfplay("hefei", "c11", 11)
    mr = review_match([r], 0)
    assert mr.hands[0].visible == tuple(r.visible_steps(0))

    def dec(k: int, loss: float) -> Decision:
        return Decision(k, 0, Choice(Action("discard", 0, 1), 2, 20, ev=1.0),
                        Choice(Action("discard", 0, 9), 1, 8, ev=1.0 + loss), reason="faster")

    # hand 1: steps 0..10, 4 and 5 hidden; hand 2: steps 0..10, 2 hidden
    m = MatchReview(0, (HandReview(0, (0, 1, 2, 3), Review(0, (dec(7, 2.0),)), (0, 1, 2, 3, 6, 7, 8, 9, 10)),
                        HandReview(1, (3, 0, 1, 2), Review(0, (dec(9, 3.0), dec(3, 1.0))),
                                   (0, 1, 3, 4, 5, 6, 7, 8, 9, 10))))
    assert _steps_named(match_review_summary(m, "en")) == [8]  # hand 2's step 9, its replay's 8th
    assert "第 2 局第 8 步" in match_review_summary(m, "zh")
    assert [row[1] for row in match_review_rows(m, "en")] == ["Step 8", "Step 5", "Step 2"]
    assert [row[1] for row in match_review_rows(m, "en", show_all=True)] == ["Step 9", "Step 7", "Step 3"]
    assert _steps_named(match_review_summary(m, "en", show_all=True)) == [9]
    texts = match_review_layout(m, "hefei", "en")[1]
    assert [t.text for t in texts if t.text.startswith("Step ")] == ["Step 8", "Step 5", "Step 2"]
