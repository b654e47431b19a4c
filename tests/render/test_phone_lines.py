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
