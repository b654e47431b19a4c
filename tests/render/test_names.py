"""Players' names as the images draw them: never blank or only "?".

Names are escaped: the font tool reads the tests' sources, and a name must not bring its characters into the bold
face (the test would then not see a name the bold face lacks).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

import render.common
from render import fonts, samples
from render.card import render_score
from render.common import seat_label
from render.hand import render_hand
from render.match import render_match
from render.table import render_table

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

