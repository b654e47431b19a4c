"""Replays of stored games: the steps of one hand, per-seat views, decisions and jumps, and the replay codes."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import EngineError
from engine.replay import ALPHABET, HandReplay, decode_code, encode_code, hand_count
from engine.selfplay import play_match
from engine.table import Action, Table

sys.path.insert(0, str(Path(__file__).parent))
from replay_games import VARIANTS, played  # noqa: E402

# ------------------------------------------------------------------------------------------------ codes


@given(st.integers(0, 10**12), st.integers(0, 511))
def test_codes_round_trip_in_any_case(match_id, hand_no):
    code = encode_code(match_id, hand_no)
    assert set(code) <= set(ALPHABET)
    assert decode_code(code) == decode_code(code.lower()) == (match_id, hand_no)
    assert decode_code(f" {code[:2]}-{code[2:]} ") == (match_id, hand_no)


def test_codes_are_short_and_deterministic():
    assert encode_code(1, 0) == encode_code(1, 0) == "0G0G"
    assert len(encode_code(50_000, 40)) == 6  # fifty thousand matches: 6 characters
    assert len({encode_code(m, h) for m in range(200) for h in range(20)}) == 4000


@given(st.integers(0, 10**9), st.integers(0, 511))
def test_a_code_typed_in_full_width_reads_as_typed_in_ascii(match_id, hand_no):
    """A Chinese keyboard in full-width mode types ０Ｇ０Ｇ for 0G0G (as it types ２３４ｍ into /score)."""
    code = encode_code(match_id, hand_no)
    wide = "".join(chr(ord(c) + 0xFEE0) for c in code)  # ０-９ Ａ-Ｚ
    assert decode_code(wide) == decode_code(wide.lower()) == (match_id, hand_no)
    assert decode_code(f"\u3000{wide[:2]}－{wide[2:]}\u3000") == (match_id, hand_no)  # full-width space and hyphen


def test_look_alike_letters_read_as_digits():
    code = encode_code(42, 3)
    assert code == "N03F"
    assert decode_code("NO3F") == decode_code("n03f") == (42, 3)
    assert decode_code(encode_code(33, 1).replace("1", "l")) == (33, 1)


@pytest.mark.parametrize("match_id,hand_no", [(1, 0), (42, 3), (987654, 11), (77, 200), (2**30, 511)])
def test_every_single_typo_is_caught(match_id, hand_no):
    code = encode_code(match_id, hand_no)
    for i in range(len(code)):
        for c in ALPHABET:
            if c != code[i]:
                with pytest.raises(EngineError) as e:
                    decode_code(code[:i] + c + code[i + 1 :])
                assert e.value.code == "replay_code_check"


def test_most_swapped_neighbours_are_caught():
    caught = total = 0
    for m in range(0, 5000, 7):
        code = encode_code(m, m % 50)
        for i in range(len(code) - 1):
            if code[i] != code[i + 1]:
                total += 1
                swapped = code[:i] + code[i + 1] + code[i] + code[i + 2 :]
                try:
                    decode_code(swapped)
                except EngineError:
                    caught += 1
    assert caught / total > 0.95, (caught, total)


@pytest.mark.parametrize("bad,code", [("12", "replay_code_length"), ("N0U3F", "replay_code_char"),
                                      ("N0!3F", "replay_code_char"), ("N03G", "replay_code_check"),
                                      ("0" * 17, "replay_code_length")])
def test_bad_codes_say_what_is_wrong_in_three_languages(bad, code):
    with pytest.raises(EngineError) as e:
        decode_code(bad)
    assert e.value.code == code
    assert bad[:4] in e.value.message("en") and "replay code" in e.value.message("en")
    assert "回放码" in e.value.message("zh")
    assert "回放碼" in e.value.message("zh-TW")


def test_encode_refuses_what_it_cannot_name():
    for args in ((-1, 0), (1, 512), (1, -1)):
        with pytest.raises(EngineError):
            encode_code(*args)


# ------------------------------------------------------------------------------------------------ stepping


@pytest.mark.parametrize("variant", VARIANTS)
def test_steps_are_the_hands_actions_and_rebuild_the_table(variant):
    _kw, acts = played(variant, "steps", 3)
    assert hand_count(variant, "steps", {}, acts) == 3
    seen = 0
    for h in range(3):
        r = HandReplay.build(variant, "steps", {}, acts, h)
        assert r.hand_no == h and r.variant == variant
        # the steps are exactly the hand's actions (after the next_hand that dealt it)
        first = seen + (1 if h else 0)
        assert [s.action for s in r.steps] == list(acts[first : first + r.n])
        assert [s.index for s in r.steps] == list(range(1, r.n + 1))
        seen = first + r.n
        # step k is Table.replay of the actions up to it
        for k in (0, 1, r.n // 2, r.n):
            assert r.table(k).state_hash() == Table.replay(variant, "steps", {}, acts[: first + k]).state_hash()
        assert r.table(0).phase == "play" and r.table(0).hand_no == h
        end = r.table(r.n)
        assert end.phase in ("ended", "over") and end.hand_no == h + 1
        assert r.result is not None and r.result["hand_no"] == h
        # going back and forth gives the same tables
        assert r.table(5).state_hash() == r.table(5).state_hash() == Table.replay(
            variant, "steps", {}, acts[: first + 5]).state_hash()


def test_a_table_handed_out_is_a_copy():
    _kw, acts = played("hefei", "steps", 1)
    r = HandReplay.build("hefei", "steps", {}, acts, 0)
    before = r.table(3).state_hash()
    t = r.table(3)
    t.apply(t.legal_actions(t.awaited()[0])[0])
    assert r.table(3).state_hash() == before


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_seat_sees_its_own_tiles_and_no_one_elses(variant):
    _kw, acts = played(variant, "priv", 1)
    r = HandReplay.build(variant, "priv", {}, acts, 0)
    for k in range(0, r.n + 1, 5):
        t = r.table(k)
        for seat in range(4):
            v = r.view(k, seat)
            assert v["hand"] == [x for x in range(34) for _ in range(t.counts[seat][x])]
            assert v["seat"] == seat and "wall" not in v and "counts" not in v
            assert v["hand_sizes"] == [sum(c) for c in t.counts]
        assert r.view(k, None)["hand"] == []
        # show all hands (the hand is over): every seat's concealed tiles
        assert r.hands(k) == [[x for x in range(34) for _ in range(t.counts[s][x])] for s in range(4)]
    with pytest.raises(EngineError):
        r.view(0, 4)


def test_decisions_are_the_seats_real_choices():
    for variant in VARIANTS:
        _kw, acts = played(variant, "dec", 1)
        r = HandReplay.build(variant, "dec", {}, acts, 0)
        for seat in range(4):
            ds = r.decisions(seat)
            for k in ds:
                t = r.table(k - 1)
                assert seat in t.awaited() and len(t.legal_actions(seat)) > 1
                assert r.steps[k - 1].seat == seat
            forced = [s.index for s in r.steps if s.seat == seat and s.index not in ds]
            for k in forced:
                assert len(r.table(k - 1).legal_actions(seat)) == 1
        # a discard from a hand of several kinds is a decision; claim windows show up as passes / claims
        assert any(s.action.type == "discard" and s.choice for s in r.steps)


def test_other_seats_answers_in_claim_windows_are_not_shown():
    """Another seat's answer in a claim window (pass, pung, kong, chi, a win call) is not shown; the window's last
    answer stands for what the window came to when it took the tile or ended the hand."""
    for variant in VARIANTS:
        _kw, acts = played(variant, "win", 2)
        for h in (0, 1):
            r = HandReplay.build(variant, "win", {}, acts, h)
            private = [s for s in r.steps if s.private_to_seat()]
            assert any(s.action.type != "pass" for s in private)  # claims are answers too
            for seat in (None, 0, 1, 2, 3):
                vis = r.visible_steps(seat)
                assert vis[0] == 0 and vis[-1] == r.n  # the deal and the result are public
                for s in private:
                    assert (s.index in vis) == (s.seat == seat or s.index == r.n
                                                or (r.resolves(s.index) and s.takes()))
                    assert r.names_action(s.index, seat) == (s.seat == seat)
                assert r.visible_steps(seat, show_all=True) == list(range(r.n + 1))
                # numbered over what the seat may see: no gap, and the total counts nothing hidden
                assert [r.number(k, seat) for k in vis] == [(i, len(vis) - 1) for i in range(len(vis))]


def _selfplay(variant: str, seed: str, rng: int) -> HandReplay:
    t, acts = Table.new(variant, seed), []
    play_match(t, ["normal"] * 4, random.Random(rng), max_hands=1, record=acts)
    return HandReplay.build(variant, seed, {}, acts, 0)


def test_a_claim_a_win_overruled_is_shown_only_to_its_seat():
    """Hefei "c11": seat 0 answers Pung on seat 2's 3p, seat 1's win (the window's last answer) takes it. The pung
    never happened: the others see the discard, then the win, as consecutive steps."""
    r = _selfplay("hefei", "c11", 11)
    k = r.n - 1
    assert r.steps[k - 1].action.type == "pung" and r.steps[k - 1].seat == 0 and not r.steps[k - 1].events
    assert r.steps[k - 2].action.type == "discard" and r.resolves(r.n) and r.steps[-1].takes()  # the set-up
    for seat in (None, 1, 2, 3):
        vis = r.visible_steps(seat)
        assert k not in vis and vis[-2:] == [k - 1, r.n]
        assert r.number(r.n, seat)[0] == r.number(k - 1, seat)[0] + 1
        assert r.nearest_visible(k, seat) == k - 1
    assert k in r.visible_steps(0) and r.names_action(k, 0)


def test_a_win_called_before_another_answer_shows_as_one_step():
    """Hefei "c13": seat 0 calls a win on seat 1's 2m, seat 2's pass settles it. To anyone but seat 0 the win is
    one step, as when nobody else could claim the 2m."""
    r = _selfplay("hefei", "c13", 13)
    assert r.steps[-2].action.type == "win" and r.steps[-2].seat == 0 and r.steps[-1].seat == 2  # the set-up
    for seat in (None, 1, 3):
        assert r.visible_steps(seat)[-2:] == [r.n - 2, r.n]
        assert not r.names_action(r.n, seat)
    assert r.visible_steps(0)[-3:] == [r.n - 2, r.n - 1, r.n]
    assert r.visible_steps(2)[-2:] == [r.n - 2, r.n] and r.names_action(r.n, 2)


def test_a_window_that_came_to_nothing_is_left_out_for_those_who_did_not_answer():
    for variant in VARIANTS:
        _kw, acts = played(variant, "win", 2)
        r = HandReplay.build(variant, "win", {}, acts, 0)
        empty = [k for k in range(1, r.n) if r.resolves(k) and not r.steps[k - 1].takes()]
        assert empty, variant  # the set-up: some window came to nothing
        for k in empty:
            answered = set()
            j = k
            while j >= 1 and r.steps[j - 1].window:
                answered.add(r.steps[j - 1].seat)
                j -= 1
            for seat in (None, 0, 1, 2, 3):
                assert (k in r.visible_steps(seat)) == (seat == r.steps[k - 1].seat)
                assert any(x in r.visible_steps(seat) for x in range(j + 1, k + 1)) == (seat in answered)


def test_a_hand_ended_by_another_seats_pass_ends_on_its_result_for_everyone():
    """A drawn hand whose last discard another seat could have claimed ends with that seat's pass: every viewer may
    step to the last step (the result is public), but only the seat itself may have its pass named; any step
    number is drawn as the nearest step the viewer may see."""
    for seed in ("x11", "x13", "x34"):  # chizhou matches of normal AIs whose hand ends so (found by a sweep)
        t, acts = Table.new("chizhou", seed), []
        play_match(t, ["normal"] * 4, random.Random(int(seed[1:])), max_hands=2, record=acts)
        ended = [r for r in HandReplay.each("chizhou", seed, {}, acts) if r.steps[-1].private_to_seat()]
        assert ended, seed
        for r in ended:
            passer = r.steps[-1].seat
            for seat in (None, 0, 1, 2, 3):
                vis = r.visible_steps(seat)
                assert vis[-1] == r.n and r.next_step(vis[-2], seat) == r.n
                assert r.names_action(r.n, seat) == (seat == passer)
                for k in range(-3, r.n + 5):
                    near = r.nearest_visible(k, seat)
                    clamped = min(max(k, 0), r.n)
                    assert near in vis
                    assert all(abs(x - clamped) >= abs(near - clamped) for x in vis)
                    assert r.nearest_visible(k, seat, show_all=True) == clamped


def test_a_number_the_seat_sees_names_a_step_it_may_see():
    """``numbered`` undoes ``number`` over the steps a seat may see (the number in a replay button's id), and any
    other number (negative, past the end) names the deal or the result, never a step the seat may not see."""
    for variant in VARIANTS:
        _kw, acts = played(variant, "win", 2)
        r = HandReplay.build(variant, "win", {}, acts, 0)
        for seat in (None, 0, 1, 2, 3):
            for show_all in (False, True):
                vis = r.visible_steps(seat, show_all=show_all)
                assert [r.numbered(r.number(k, seat, show_all=show_all)[0], seat, show_all=show_all)
                        for k in vis] == vis
                assert [r.numbered(i, seat, show_all=show_all) for i in (-1, len(vis), 10**9)] == [0, r.n, r.n]
        assert len(r.visible_steps(None)) < r.n + 1  # the set-up: steps a spectator may not see


def test_jumps():
    _kw, acts = played("wuhu", "jump", 1)
    r = HandReplay.build("wuhu", "jump", {}, acts, 0)
    ds = r.decisions(0)
    assert len(ds) >= 3
    assert r.start() == 0 and r.end() == r.n
    assert r.next_decision(0, 0) == ds[0]
    assert r.next_decision(ds[0], 0) == ds[1]
    assert r.prev_decision(ds[1], 0) == ds[0]
    assert r.prev_decision(ds[0], 0) is None
    assert r.next_decision(ds[-1], 0) is None
    vis = r.visible_steps(1)
    assert r.next_step(0, 1) == vis[1] and r.prev_step(vis[2], 1) == vis[1]
    assert r.next_step(r.n, 1) == r.n and r.prev_step(0, 1) == 0


def test_timeouts_are_shown_as_what_the_table_did():
    t = Table.new("hefei", "to")
    drawn = t.drawn[t.dealer]
    acts = [Action("timeout", t.dealer)]
    t.apply(acts[0])
    while t.phase != "ended":
        s = t.awaited()[0]
        a = Action("timeout", s)
        acts.append(a)
        t.apply(a)
    r = HandReplay.build("hefei", "to", {}, [a.to_json() for a in acts], 0)
    assert r.steps[0].action == Action("discard", r.dealer, drawn)  # a timeout discards the tile just drawn
    assert all(s.timeout and s.action.type != "timeout" for s in r.steps)


def test_missing_and_unfinished_hands_are_refused_in_the_players_language():
    _kw, acts = played("chizhou", "miss", 1)
    with pytest.raises(EngineError) as e:
        HandReplay.build("chizhou", "miss", {}, acts, 5)
    assert e.value.code == "no_such_hand" and "6" in e.value.message("en")
    half = acts[: len(acts) // 2]
    with pytest.raises(EngineError) as e:
        HandReplay.build("chizhou", "miss", {}, half, 0)
    assert e.value.code == "hand_in_play"
    assert "进行中" in e.value.message("zh") and "進行中" in e.value.message("zh-TW")
    r = HandReplay.build("chizhou", "miss", {}, acts, 0)
    with pytest.raises(EngineError) as e:
        r.table(r.n + 1)
    assert e.value.code == "bad_step"
    # the next hand was dealt by a next_hand action, but none of its actions is stored yet
    with pytest.raises(EngineError):
        HandReplay.build("chizhou", "miss", {}, list(acts) + [Action("next_hand", 0)], 1)
