"""Every item name the three variants produce fits the score card, in Chinese (Simplified and Traditional) and
English, without being cut, shortened or drawn with missing glyphs.

The names are collected by scoring a few thousand random complete hands under random situations and house rules
with each variant (whatever ``engine/variants/*.py`` produces today), plus a stress list of long names.
"""

from __future__ import annotations

import random
from functools import lru_cache

import pytest

from engine.errors import EngineError
from engine.tiles import HONOR, NUM_KINDS, Hand, Meld, MeldKind
from engine.variants import VARIANT_KEYS, get_variant
from engine.variants.base import Item, Situation
from render import fonts
from render.card import CARD_W, NAME_W, draw_score, item_text, layout_item_name
from render.scene import ScoreScene
from text.hant import to_hant

STRESS = [
    Item("s1", "两嘴成交（混一色、对对胡）（加嘴）", "two 嘴子 make 1 交 (混一色, 对对胡) (extra 嘴子)", 30),
    Item("s2", "庄家多付一个底番", "the dealer (E) pays one more 底番 and another one for the streak", 1, "info"),
    Item("s3", "杠上开花压档（加嘴）", "kong replacement win on the middle tile (杠开压档), extra 嘴子 counted", 50),
    Item("s4", "双八支双四核天胡地胡清一色对对胡",
         "double eight-of-a-suit, double four-in-hand, heavenly and earthly hand, pure one suit, all pungs", 90),
    Item("s5", "包牌：南 王大锤 放了第三口，一家包三家", "contract: S 王大锤 fed the third meld and pays for all three "
         "players, including the 交 and the dealer's extra 底番", 0, "info"),
    Item("s6", "支：长门超过八张的每张牌", "支: tiles of the long suit beyond 8, counted one by one in the hand", 6),
]


def random_hand(rng: random.Random) -> tuple[Hand, Situation]:
    counts = [0] * NUM_KINDS
    honors = rng.random() < 0.4
    suits = rng.sample(range(3), rng.choice((1, 1, 2, 3)))
    kinds = [s * 9 + r for s in suits for r in range(9)] + (list(range(HONOR, NUM_KINDS)) if honors else [])

    def take(ks):
        for k in ks:
            counts[k] += 1
        return ks

    sets: list[tuple[str, int]] = []
    while len(sets) < 4:
        k = rng.choice(kinds)
        shape = rng.choice(("pung", "chi", "chi", "kong") if k < HONOR and k % 9 <= 6 else ("pung", "kong"))
        need = {"pung": [k] * 3, "kong": [k] * 4, "chi": [k, k + 1, k + 2]}[shape]
        if all(counts[t] + need.count(t) <= 4 for t in set(need)):
            take(need)
            sets.append((shape, k))
    while True:
        p = rng.choice(kinds)
        if counts[p] <= 2:
            take([p, p])
            break
    winner = rng.randrange(4)
    n_melds = rng.choice((0, 0, 1, 2, 3, 4))
    melds: list[Meld] = []
    concealed: list[int] = [p, p]
    for i, (shape, k) in enumerate(sets):
        feeder = rng.choice([s for s in range(4) if s != winner])
        if i < n_melds or shape == "kong":
            if shape == "kong":
                kind = rng.choice((MeldKind.KONG, MeldKind.CONCEALED_KONG))
                melds.append(Meld(kind, k, fed_by=feeder if kind is MeldKind.KONG else None,
                                  added=kind is MeldKind.KONG and rng.random() < 0.5))
            elif shape == "pung":
                melds.append(Meld(MeldKind.PUNG, k, fed_by=feeder))
            else:
                melds.append(Meld(MeldKind.CHI, k, fed_by=(winner - 1) % 4, claimed=k + rng.randrange(3)))
        else:
            concealed += {"pung": [k] * 3, "chi": [k, k + 1, k + 2]}[shape]
    win = concealed.pop(rng.randrange(len(concealed)))
    self_drawn = rng.random() < 0.4
    discarder = None if self_drawn else rng.choice([s for s in range(4) if s != winner])
    has_kong = any(m.is_kong for m in melds)
    situation = Situation(
        winner=winner,
        discarder=discarder,
        kong_draw=self_drawn and has_kong and rng.random() < 0.5,
        last_tiles=rng.random() < 0.1,
        heavenly=winner == 0 and self_drawn and not melds and rng.random() < 0.1,
        earthly=winner != 0 and not melds and discarder == 0 and rng.random() < 0.1,
        dealer_streak=rng.choice((1, 1, 2, 3)),
    )
    return Hand(tuple(concealed), tuple(melds), win), situation


@lru_cache(maxsize=1)
def variant_items() -> tuple[Item, ...]:
    rng = random.Random(20261130)
    seen: dict[tuple[str, str], Item] = {}
    for key in VARIANT_KEYS:
        try:
            v = get_variant(key)
        except Exception:  # a variant module not written yet: nothing to collect from it
            continue
        for _ in range(1500):
            hand, situation = random_hand(rng)
            rules = {r.key: rng.choice(r.choices) if r.choices else r.default for r in v.house_rules}
            try:
                result = v.score(hand, situation, rules)
            except EngineError:
                continue
            for it in (*result.items, *result.notes):
                seen.setdefault((it.zh, it.en), it)
    return tuple(seen.values())


def test_the_variants_produce_items_to_check():
    items = variant_items()
    assert len(items) >= 15, [i.zh for i in items]


@pytest.mark.parametrize("lang", ["zh", "zh-TW", "en"])
def test_every_item_name_fits_its_card(lang):
    for it in (*variant_items(), *STRESS):
        text = item_text(it, lang)
        lines, font = layout_item_name(text)
        assert "".join(lines).replace(" ", "") == text.replace(" ", ""), f"{text!r} was shortened"
        for ln in lines:
            x0, _, x1, _ = font.getbbox(ln)
            assert x1 <= NAME_W and x0 >= -2, f"{ln!r} ({x1} px) overflows the {NAME_W} px column"
        assert all(c in fonts.charset() or c == " " for c in text), f"{text!r} has characters the font lacks"


def test_traditional_names_are_converted():
    assert item_text(Item("x", "杠后开花", "kong", 1), "zh-TW") == to_hant("杠后开花") != "杠后开花"


def test_a_card_of_the_longest_names_keeps_its_width():
    from engine.tiles import parse_hand

    longest = sorted((*variant_items(), *STRESS), key=lambda i: -len(i.en))[:8]
    scene = ScoreScene(parse_hand("123m456m789m1p[555s:E]+1p"), tuple(longest), (-3, 9, -3, -3),
                       ("a", "b", "c", "d"), 1)
    for lang in ("zh", "en"):
        assert draw_score(scene, "dark", lang).width == CARD_W


def _bare_chinese(text: str) -> list[str]:
    """Chinese words in English text that are not inside parentheses (where they gloss an English word)."""
    import re

    out = []
    for m in re.finditer(r"[\u4e00-\u9fff]+", text):
        before = text[: m.start()]
        if before.count("(") <= before.count(")"):
            out.append(m.group())
    return out


def test_english_item_rule_and_alarm_names_are_english():
    """A Chinese term of art in English text stands beside an English gloss: "fan (番)", never a bare 番."""
    bare = [(it.code, it.en) for it in variant_items() if _bare_chinese(it.en)]
    for key in VARIANT_KEYS:
        v = get_variant(key)
        bare += [(r.key, text) for r in v.house_rules for text in (r.en, r.help_en) if _bare_chinese(text)]
        bare += [(code, en) for code, (_, en) in getattr(v, "alarm_names", {}).items() if _bare_chinese(en)]
    assert not bare, bare
    fan = [it.en for it in variant_items() if it.code == "fan"]
    assert fan and all(name.startswith("fan (番)") for name in fan)


@pytest.mark.parametrize("lang", ["zh", "zh-TW", "en"])
def test_every_alarm_reads_whole_on_the_table_image(lang: str):
    """The table image's alarm badge ("Alarm: ..." over a seat's melds) shows each alarm's whole name on a phone:
    the English names were cut ("two exposed pungs of one suit one or two apart (双四核 ala…") at 11 px."""
    from render.common import txt
    from render.table import MARGIN, PAD, WIDTH
    from render.views import alarm_names

    width = WIDTH - 2 * MARGIN - 2 * PAD - 10  # the badge's text room (render.table._alarm)
    cut = []
    for key in VARIANT_KEYS:
        codes = list(getattr(get_variant(key), "alarm_names", {}))
        for name in alarm_names(key, codes, lang):
            label = txt("render.table.alarm", lang) + ": " + name
            shown, font = fonts.fit(label, 13, width, min_size=11)
            if shown != fonts.clean(label) or font.size < 12:
                cut.append((key, shown, font.size))
    assert not cut, cut
