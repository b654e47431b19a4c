"""Players' names as the images draw them: never blank or only "?", and one face for a column of names.

Names are escaped: the font tool reads the tests' sources, and a name must not bring its characters into the bold
face (the test would then not see a name the bold face lacks).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import render.common
from render import fonts, samples
from render.board import BoardLine, BoardScene, render_board
from render.card import render_score
from render.common import seat_label
from render.hand import render_hand
from render.match import render_match
from render.table import render_table

LI_NA, WANG_XIN = "\u674e\u5a1c", "\u738b\u946b"  # names outside the bold subset: drawn regular
BLANKS = ("\u3164", "   ", "\u200b\u200d", "\u0e2a\u0e21\u0e0a\u0e32\u0e22")  # Hangul filler, spaces, zero-width, Thai


@pytest.fixture
def drawn(monkeypatch):
    """Every text drawn (after cleaning and fitting) with whether it came out bold."""
    out: list[tuple[str, bool]] = []
    mask = render.common.text_mask

    def spy(text, size, bold=True):
        out.append((text, bold and fonts.has_bold(text)))
        return mask(text, size, bold)

    monkeypatch.setattr(render.common, "text_mask", spy)
    return out


def _texts(drawn) -> list[str]:
    return [t for t, _ in drawn]


def test_a_seat_whose_name_draws_nothing_shows_its_wind_spelled_out(drawn):
    """A name of spaces left the South band with a wind disc and a score but no name; a Hangul-filler name was "?",
    a Thai one "?????"."""
    base = samples.table_scene()
    scene = replace(base, seats=tuple(replace(s, name=n) for s, n in zip(base.seats, BLANKS, strict=True)))
    render_table(scene, "dark", "en")
    texts = _texts(drawn)
    for s in range(4):
        assert any(t.startswith(seat_label(s, "en")) for t in texts), (s, texts)
    assert not any("?" in t for t in texts), texts  # the turn line too ("Turn: N ?????" before)


@pytest.mark.parametrize("lang", ["en", "zh", "zh-TW"])
def test_score_card_match_legend_and_feeder_label_fall_back_to_the_wind(drawn, lang):
    card = replace(samples.score_scene(), names=BLANKS)
    render_score(card, "dark", lang)
    texts = _texts(drawn)
    for s in range(4):
        assert seat_label(s, lang) in texts, (s, texts)
    drawn.clear()
    render_match(replace(samples.match_scene(), names=BLANKS), "dark", lang)
    legend = [t for t in _texts(drawn) if t[:3] in ("1. ", "2. ", "3. ", "4. ")]
    assert sorted(t[3:] for t in legend) == sorted(seat_label(s, lang) for s in range(4)), legend
    drawn.clear()
    render_hand(replace(samples.hand_scene(), names=BLANKS), "dark", lang)
    assert not any("?" in t for t in _texts(drawn)), _texts(drawn)


def _bold_of(drawn, names) -> set[bool]:
    return {b for t, b in drawn if t in names}


def test_a_leaderboard_column_is_one_face(drawn):
    """With two names outside the bold subset (LI_NA, WANG_XIN) among the rows, the other names were bold and these
    two regular."""
    names = ("\u738b\u5927\u9524", LI_NA, WANG_XIN, "Alice", "\u5c0f\u660e")
    render_board(BoardScene("t", "s", tuple(BoardLine(i + 1, n, 50 - 20 * i, 20, 5) for i, n in enumerate(names))),
                 "dark", "zh")
    assert {t for t, _ in drawn} >= set(names)
    assert _bold_of(drawn, names) == {False}
    drawn.clear()
    render_board(samples.board_scene(), "dark", "zh")  # every name in the bold face: bold throughout
    assert _bold_of(drawn, {line.name for line in samples.board_scene().lines}) == {True}


def test_table_seats_match_legend_and_score_card_names_are_one_face(drawn):
    names = ("Alice", LI_NA, "Bob", "\u5c0f\u660e")
    base = samples.table_scene()
    render_table(replace(base, seats=tuple(replace(s, name=n, bot=False) for s, n in zip(base.seats, names,
                                                                                        strict=True))), "dark", "zh")
    assert _bold_of(drawn, names) == {False}
    drawn.clear()
    render_match(replace(samples.match_scene(), names=names), "dark", "zh")
    assert {b for t, b in drawn if t[:3] in ("1. ", "2. ", "3. ", "4. ")} == {False}
    drawn.clear()
    render_score(replace(samples.score_scene(), names=names), "dark", "zh")
    assert _bold_of(drawn, names) == {False}
    drawn.clear()
    render_table(base, "dark", "zh")
    assert _bold_of(drawn, {s.name + (" · AI" if s.bot else "") for s in base.seats}) == {True}
