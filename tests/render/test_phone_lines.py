"""Lines that name players, read on a phone: a long name gives way (shrunk, then shortened with "…"), never the
words that say what happened. The score card's headline (who won, how, on whose discard), its payments (a 5-digit
amount beside the winner / dealt-in tag), the replay's caption (the step's action and its outcome) and the table's
alarm banner and last-tiles phase.

The texts are caught as the images draw them (``draw_text`` wrapped), so the tests read what a player sees."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from render import fonts, samples

LANGS = ("zh", "zh-TW", "en")
NAMES = {
    "ordinary": ("Christopher Johnson", "Bob the Builder", "王大锤", "Alex"),
    "gamer": ("xXDragonSlayer2000Xx", "TheLegendaryMahjongKing", "王大锤", "Alex"),
    "longest": ("W" * 32, "Bartholomew Christopherson III of Ye", "王大锤王大锤王大锤王大锤王大锤王大", "Alex"),
}


@dataclass(frozen=True)
class Drawn:
    """A text as drawn: its left and right edges, its top (as given), what it says and its size."""

    x0: float
    x1: float
    y: float
    text: str
    size: int


def catch(monkeypatch, module) -> list[Drawn]:
    """Every text ``module`` draws from now on, as shown (after shrinking or shortening)."""
    from render import common

    out: list[Drawn] = []
    real = common.draw_text

    def spy(img, xy, text, size, fill, *, bold=True, anchor="la", max_width=None):
        shown, s = fonts.clean(text), size
        if max_width is not None:
            shown, f = fonts.fit(text, size, max_width, bold_=bold, min_size=max(9, int(size * 0.7)))
            s = int(f.size)
        w = real(img, xy, text, size, fill, bold=bold, anchor=anchor, max_width=max_width)
        x0 = {"l": xy[0], "m": xy[0] - w / 2, "r": xy[0] - w}[anchor[0]]
        out.append(Drawn(x0, x0 + w, xy[1], shown, s))
        return w

    monkeypatch.setattr(module, "draw_text", spy)
    return out


# ------------------------------------------------------------------------------------------------ score card


def _card(monkeypatch, scene, lang):
    import render.card as card

    drawn = catch(monkeypatch, card)
    card.draw_score(scene, "dark", lang)
    return drawn


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("case", NAMES)
def test_the_score_cards_headline_says_who_won_how_and_on_whose_discard(monkeypatch, lang, case):
    """With ordinary names ("Bob the Builder" winning on "Christopher Johnson") the one-line headline lost the
    discarder or "discard", with a 32-character name even "wins". The names give way, the words never."""
    from render.common import txt, wind_name

    names = NAMES[case]
    sc = replace(samples.score_scene(), names=names, title="Wuhu")
    win, dis = sc.winner, sc.discarder
    assert dis is not None
    head = [d for d in _card(monkeypatch, sc, lang) if d.y < 6 + 100][1:]  # (the title first)
    wins = txt("render.card.wins", lang, who="{who}")
    how = txt("render.card.on_discard", lang, who="{who}")
    text = "\n".join(d.text for d in head)
    before, after = wins.split("{who}")
    assert text.startswith(before + wind_name(win, lang) + " " + names[win][:3]), text
    assert head[0].text.endswith(after), text
    before, after = how.split("{who}")
    assert head[1].text.startswith(before + wind_name(dis, lang) + " " + names[dis][:3]), text
    assert head[1].text.endswith(after), text
    assert all(d.size >= 16 and d.x1 <= 480 - 16 for d in head), head
    if case == "ordinary":  # ordinary names are never shortened
        assert "…" not in text and names[win] in text and names[dis] in text


@pytest.mark.parametrize("lang", LANGS)
def test_a_self_drawn_win_says_so_under_the_winner(monkeypatch, lang):
    from render.common import txt

    sc = replace(samples.score_scene(), names=NAMES["longest"], discarder=None)
    head = [d for d in _card(monkeypatch, sc, lang) if d.y < 6 + 100][1:]
    assert head[0].text.endswith(txt("render.card.wins", lang, who="").strip())
    assert head[1].text == txt("render.card.self_drawn", lang)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("amount", [1234, 12345, 123456])
def test_a_big_payment_never_runs_into_the_winner_or_dealt_in_tag(monkeypatch, lang, amount):
    """A 5-digit amount was printed over the tag ("winne+37035 子", "dealt in12345 子")."""
    from render.common import txt

    sc = replace(samples.score_scene(), payments=(-amount, 3 * amount, -amount, -amount))
    drawn = _card(monkeypatch, sc, lang)
    unit = txt("render.unit.zi", lang)
    for tag in (txt("render.card.winner_tag", lang), txt("render.card.dealt_in_tag", lang)):
        t = next(d for d in drawn if d.text == tag)
        a = next(d for d in drawn if d.text.endswith(unit) and abs(d.y - t.y) < 1)
        assert a.text in (f"{3 * amount:+d} {unit}", f"{-amount:+d} {unit}")
        assert t.x1 + 6 <= a.x0, (tag, t, a)
        name = next(d for d in drawn if abs(d.y - t.y) < 1 and d.x0 < t.x0 and d.size >= 14 and d.x0 > 40)
        assert name.x1 + 4 <= t.x0, (name, t)


# ------------------------------------------------------------------------------------------------ replay captions

MARK = "Ж"  # names made of a letter no caption's words use: what is left once the names are taken out is the words
MARKED = (MARK * 32, MARK * 19, MARK * 3, MARK * 10)


def _words(text: str) -> str:
    """A caption without its names (shortened or not) and without spaces (a wrapped line loses the one it broke
    at)."""
    import re

    return re.sub(f"{MARK}+…?", "", text).replace(" ", "")


def _replays():
    import sys
    from pathlib import Path

    from engine.replay import HandReplay

    sys.path.insert(0, str(Path(__file__).parents[1] / "engine"))
    from replay_games import VARIANTS, played

    for variant in VARIANTS:
        for seed in ("img", "cap"):
            _kw, acts = played(variant, seed, 1)
            yield HandReplay.build(variant, seed, {}, acts, 0)


@pytest.mark.parametrize("lang", LANGS)
def test_every_replay_caption_keeps_its_action_and_outcome(lang):
    """Every step of real hands, with names of 3 to 32 letters: the caption's words (the step, the action, the
    discarder's part, "the hand is drawn", "(AI, 托管)") are all shown, on at most two lines at 16 px or more;
    only names are shortened. A one-line caption lost them from the end ("N Bob lays 5m aside · the han…")."""
    from render.replay import CAPTION_MIN, CAPTION_W, animation_scenes

    seen = 0
    for r in _replays():
        for sc in animation_scenes(r, 0, lang=lang, names=MARKED, show_all=True):
            lines = sc.caption_lines
            assert 1 <= len(lines) <= 2 and sc.caption_size >= CAPTION_MIN, (sc.caption, lines)
            assert _words("".join(lines)) == _words(sc.caption), (sc.caption, lines)
            for line in lines:
                assert fonts.text_font(line, sc.caption_size).getlength(line) <= CAPTION_W, line
            seen += 1
    assert seen > 100


@pytest.mark.parametrize("lang", LANGS)
def test_the_longest_captions_keep_their_words(lang):
    """The longest steps there are, said of a 32-letter name: an AI's added kong that timed out on the last tile,
    a win on a discard between two long names, a tile laid aside in the last tiles as the hand is drawn."""
    from engine.replay import Step
    from engine.table import Action, Event
    from render.replay import CAPTION_MIN, caption_layout, describe_step

    steps = [
        Step(1, 0, Action("kong", 0, 5), True, False, True, (Event("add_kong", 0, {"tile": "6m"}),
                                                             Event("hand_end", None, {"draw": True})), by_ai=True),
        Step(1, 0, Action("win", 0), False, False, True, (Event("win", 0, {"self_drawn": False, "from": 1}),)),
        Step(1, 0, Action("win", 0), False, False, True, (Event("win", 0, {"self_drawn": False, "from": 1,
                                                                          "rob_kong": True}),)),
        Step(1, 0, Action("pass", 0), False, False, True, (Event("lay_aside", 0, {"tile": "7z"}),
                                                           Event("hand_end", None, {"draw": True})), by_ai=True),
    ]
    for st in steps:
        def build(ns, st=st):
            return f"Step 120/120 · {describe_step(st, ns, [0, 1, 2, 3], lang)}"

        lines, size = caption_layout(build, [MARK * 32, MARK * 32, "", ""])
        assert (len(lines) <= 2 and size >= CAPTION_MIN) or (len(lines) == 3 and size >= CAPTION_MIN - 1), lines
        if len(lines) == 3:  # the words need three lines: every name is down to one letter
            assert MARK * 2 not in "".join(lines), lines
        assert _words("".join(lines)) == _words(build([MARK * 32, MARK * 32, "", ""])), lines


@pytest.mark.parametrize("lang", LANGS)
def test_the_replay_image_draws_the_caption_it_laid_out(monkeypatch, lang):
    import render.replay as rr

    r = next(_replays())
    sc = rr.replay_scene(r, r.n, 0, lang=lang, names=NAMES["ordinary"])
    drawn = catch(monkeypatch, rr)
    rr.draw_replay(sc, "dark", lang)
    shown = [d.text for d in drawn if 12 + 28 <= d.y < rr.TOP_H - 12]
    assert tuple(shown) == sc.caption_lines and "…" not in "".join(shown)
    assert _words("".join(shown)) == _words(sc.caption)


# ------------------------------------------------------------------------------------------------ the table


@pytest.mark.parametrize("lang", LANGS)
def test_every_alarm_on_the_banner_reads_whole_and_in_the_languages_own_list(monkeypatch, lang):
    """Two English alarms gave "Alarm: 3 pungs of one suit (清一色 alarm)、2 kongs of one suit (双…": the second was
    cut, and the names were joined with the Chinese "、". The banner wraps between alarms instead."""
    import render.table as table
    from engine.variants import get_variant
    from render.common import given, txt
    from render.views import alarm_names

    sep = txt("render.list_sep", lang)
    codes = list(get_variant("wuhu").alarm_names)
    names = alarm_names("wuhu", codes, lang)
    ts = samples.table_scene()
    seats = list(ts.seats)
    seats[0] = replace(seats[0], alarms=names)
    scene = replace(ts, seats=tuple(seats))
    drawn = catch(monkeypatch, table)
    table.draw_table(scene, "dark", lang)
    band = next(b for b in table.table_layout(scene, lang).bands if b.seat == 0)
    assert band.alarm_y is not None
    bottom = band.alarm_y + table.ALARM_H + table.ALARM_LINE * (len(band.alarms) - 1)
    banner = [d for d in drawn if band.alarm_y <= d.y < bottom]
    assert [d.text for d in banner] == list(band.alarms)
    text = " ".join(d.text for d in banner)
    for n in names:
        assert fonts.clean(given(n, lang)) in text, (n, text)
    assert "…" not in text and all(d.size >= 12 and d.x1 <= table.WIDTH - table.MARGIN - table.PAD for d in banner)
    assert text.count(sep.strip()) >= len(names) - 1
    if lang == "en":  # the English names are long: a line each, joined with commas
        assert "、" not in text.replace("(", "").replace(")", "") and len(banner) > 1, text


def _last_tiles_view():
    import random

    from engine.replay import HandReplay
    from engine.selfplay import play_match
    from engine.table import Table

    t = Table.new("hefei", "s1")
    acts: list = []
    play_match(t, ["easy", "normal", "normal", "normal"], random.Random("s1"), max_hands=8, record=acts)
    r = HandReplay.build("hefei", "s1", {}, acts, 6)  # a hand drawn in its last tiles
    for k in range(r.n, 0, -1):
        v = r.table(k).view(None)
        if v["last_four"] and v["phase"] == "play" and any(x["status"] == "dead" for riv in v["rivers"] for x in riv):
            return v
    raise AssertionError("no last tiles in the hand")


@pytest.mark.parametrize("lang", LANGS)
def test_the_last_tiles_show_on_the_table(monkeypatch, lang):
    """Tiles laid aside in the last tiles were drawn exactly as discards, and nothing on the image said claims were
    off. The header now carries the phase's tag, and each tile laid aside is framed in blue."""
    import render.table as table
    from render.common import txt
    from render.views import table_scene_from_view

    view = _last_tiles_view()
    sc = table_scene_from_view(view, title="Hefei", lang=lang)
    dead = [frozenset(i for i, x in enumerate(riv) if x["status"] == "dead") for riv in view["rivers"]]
    assert sc.last_tiles and [s.laid_aside for s in sc.seats] == dead and any(dead)
    drawn = catch(monkeypatch, table)
    img = table.draw_table(sc, "dark", lang)
    tag = txt("render.table.last_tiles", lang)
    assert any(d.text == tag and d.y < table.MARGIN + table.HEADER_H for d in drawn)
    blue = table.LAID_ASIDE_FRAME
    lay = table.table_layout(sc, lang)
    for band in lay.bands:
        for t in band.river:
            framed = img.getpixel((t.x - 2, t.y + 10)) == blue
            assert framed == (t.index in dead[band.seat]), (band.seat, t.index)
    # the phase over (the hand drawn), the tag goes
    over = table_scene_from_view({**view, "phase": "ended"}, lang=lang)
    assert not over.last_tiles


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("case", NAMES)
def test_an_ai_seat_keeps_its_mark_whatever_its_name(monkeypatch, lang, case):
    """A long name was cut together with its " · AI", so an AI seat no longer looked like one: the name gives way."""
    import render.table as table

    ts = samples.table_scene()
    seats = tuple(replace(sc, name=NAMES[case][i], bot=True) for i, sc in enumerate(ts.seats))
    drawn = catch(monkeypatch, table)
    table.draw_table(replace(ts, seats=seats), "dark", lang)
    for i in range(4):
        line = next(d for d in drawn if d.text.endswith(" · AI") and d.text.startswith(NAMES[case][i][:1]))
        assert line.size >= 11 and line.x1 <= table.WIDTH, line
