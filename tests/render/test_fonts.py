"""The shipped fonts: no system font needed, every Chinese character the engine can put on an image is covered."""

from __future__ import annotations

import contextlib
import re
import unicodedata
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from render import fonts

ROOT = Path(__file__).resolve().parents[2]
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


def test_fonts_come_from_the_repository_and_have_their_licence():
    for path in (fonts.REGULAR, fonts.BOLD, fonts.TILES):
        assert path.is_file() and ROOT / "data" in path.parents
    licence = (fonts.FONT_DIR / "LICENSE-OFL.txt").read_text(encoding="utf-8")
    assert "SIL OPEN FONT LICENSE Version 1.1" in licence


def test_data_stays_small():
    total = sum(p.stat().st_size for p in (ROOT / "data").rglob("*") if p.is_file())
    assert total < 6_000_000


def test_every_chinese_character_of_the_engine_and_renderer_is_covered():
    """In both faces, and in zh-TW too: the engine names its score items in its code, and a Traditional card shows
    them converted (基础分 as 基礎分, 封顶 as 封頂: their rows were drawn regular among bold ones)."""
    from text.hant import to_hant

    used: set[str] = set()
    for folder in ("engine", "render"):
        for path in (ROOT / folder).rglob("*.py"):
            body = path.read_text(encoding="utf-8")
            used.update(CJK.findall(body), CJK.findall(to_hant(body)))
    missing = sorted(used - fonts.charset())
    assert not missing, f"re-run tools/make_font_subset.py: missing {''.join(missing)}"
    not_bold = sorted(used - fonts.bold_charset())
    assert not not_bold, f"re-run tools/make_font_subset.py: missing in bold {''.join(not_bold)}"


def test_every_character_of_the_catalogues_is_covered_in_both_faces():
    """Every message lives in the catalogues (data/locale/*.po), and zh-TW texts without an override are derived
    from zh-CN by OpenCC: every Chinese character they can put on an image is in the regular face, and in the bold
    one, so a heading or label is never drawn regular because the bold subset lacked one of its characters (the
    subset tool read only .py/.md files, and 139 characters of the zh-CN messages were missing from the bold face)."""
    from text.hant import to_hant

    used: set[str] = set()
    for path in sorted((ROOT / "data" / "locale").rglob("*.po")):
        body = path.read_text(encoding="utf-8")
        used.update(CJK.findall(body), CJK.findall(to_hant(body)))
    assert len(used) > 500  # the catalogues were read
    missing = sorted(used - fonts.charset())
    assert not missing, f"re-run tools/make_font_subset.py: missing {''.join(missing)}"
    not_bold = sorted(used - fonts.bold_charset())
    assert not not_bold, f"re-run tools/make_font_subset.py: missing in bold {''.join(not_bold)}"


def _decoded(codec: str, rows, cells=range(0xA1, 0xFF)) -> set[str]:
    out = set()
    for r in rows:
        for c in cells:
            with contextlib.suppress(UnicodeDecodeError):
                out.add(bytes([r, c]).decode(codec))
    return out


def test_common_simplified_and_traditional_characters_are_covered():
    assert set("萬發東門槓聽報龍雙莊") <= fonts.charset()
    gb2312 = _decoded("gb2312", range(0xB0, 0xF8))  # both levels: level 2 holds many given names' characters
    assert len(gb2312) == 6763
    missing = sorted(gb2312 - fonts.charset())
    assert not missing, "".join(missing)
    from text.hant import to_hant

    missing = sorted(set(to_hant("".join(sorted(gb2312)))) - fonts.charset())
    assert not missing, "".join(missing)


# Names' characters escaped: the font tool reads the tests' sources, and a name must not put them in the bold face.
GIVEN_NAMES_SC = ("\u6657\u94b0\u9a9e\u8283\u8d5f\u71a0\u7fca\u714a\u5a67\u98a2\u73cf\u7490\u831c\u6f47\u6b46"
                  "\u665f\u709c\u7131\u5f67\u5586\u5a55\u73fa\u97ec\u6dfc\u5803\u794e\u946b\u5c9a\u7444")
GIVEN_NAMES_TC = "\u923a\u84c1\u744b\u7005\u7407\u946b\u9708"
KOREAN_NAME = "\uae40\ubbfc\uc900"  # Kim Min-jun


@pytest.mark.parametrize("name", [*GIVEN_NAMES_SC, *GIVEN_NAMES_TC, "\u738b\u946b", "\u9648\u7490", KOREAN_NAME])
def test_given_names_draw_as_typed_not_as_question_marks(name):
    """29 of 64 popular given-name characters (two players named WANG Xin and WANG Yu were both drawn "WANG ?") and 7
    of 28 Traditional ones were missing; a Korean name was "???"."""
    assert fonts.clean(name) == name


def test_korean_syllables_are_covered():
    hangul = _decoded("euc_kr", range(0xB0, 0xC9))
    assert len(hangul) == 2350 and hangul <= fonts.charset()


def test_vietnamese_letters_are_covered():
    assert fonts.clean("Nguy\u1ec5n V\u0103n An") == "Nguy\u1ec5n V\u0103n An"


def test_characters_the_fonts_lack_are_replaced_not_drawn_as_boxes():
    assert fonts.clean("阿明\u0e2a") == "阿明?"  # a letter of a script the fonts lack (Thai)
    assert fonts.clean("\u20b9x") == "?x"  # a currency sign the fonts lack is not dropped: it may tell names apart


def test_currency_and_maths_signs_in_names_are_drawn():
    """The text face holds the currency, letterlike and maths blocks the source font has: a name with € or ∞ was
    drawn with "?" (and, for one version, without the sign at all)."""
    assert [fonts.clean(n) for n in ("\u20acuro", "\u20a9on", "\u221eLoop", "\u2122")] == [
        "\u20acuro", "\u20a9on", "\u221eLoop", "\u2122"]
    assert fonts.clean("two\nlines\t") == "two lines "
    assert fonts.clean("Zoë Ωμέγα Иван") == "Zoë Ωμεγα Иван"  # an accent the font lacks: the base letter


def test_decomposed_accents_draw_as_one_letter():
    """macOS and some keyboards type "José" as e + U+0301: it was drawn "Jose?"."""
    assert fonts.clean(unicodedata.normalize("NFD", "José")) == "José"
    assert fonts.clean(unicodedata.normalize("NFD", "Nguy\u1ec5n V\u0103n An")) == "Nguy\u1ec5n V\u0103n An"


@pytest.mark.parametrize("name, shown", [
    ("Ann\u200b", "Ann"), ("\u200cBo\u200db", "Bob"), ("\ufeffLi", "Li"), ("Mo\u00ad", "Mo"),
    ("\u3164", ""), ("\u3164\u3164\u3164", ""), ("\uffa0x", "x"), ("\u2800", ""), ("\u200e\u200f", ""),
    ("Z\u0334\u0321a\u0337lgo", "Zalgo"), ("\u0301Ann", "Ann"),
])  # fmt: skip
def test_invisible_characters_and_lone_marks_are_dropped_not_drawn_as_question_marks(name, shown):
    """A display name of invisible characters (zero-width, BOM, the Hangul filler) was drawn "???"; each combining
    mark of a "Zalgo" name was a "?"."""
    assert fonts.clean(name) == shown


@pytest.mark.parametrize("name, shown", [
    ("阿明\U0001F600", "阿明"), ("\u2728小雪\u2764", "小雪"), ("\u273f小雪\u273f", "\u273f小雪\u273f"), ("\U0001F004小明", "小明"), ("Bob\U0001F44D\U0001F3FD", "Bob"),
    ("\U0001F1E8\U0001F1F3老王", "老王"), ("\U0001F468\u200d\U0001F469\u200d\U0001F467阿明", "阿明"), ("1\ufe0f\u20e3号", "1号"),
    ("\u1d00\u029f\u026a\u1d04\u1d07", "ALICE"), ("\ua731\u1d0b\u028f", "SKY"),
])  # fmt: skip
def test_decorations_are_left_out_and_small_capitals_read_as_capitals(name, shown):
    """Emoji and dingbats round a display name (✨小雪❤, 阿明😀, a flag, a family) were each drawn as "?", so a
    decorated name looked broken on every image; a name in small capitals (ᴀʟɪᴄᴇ, a common style) was all "?".
    A decoration the fonts lack is left out (the dingbats the fonts have, ✿, are drawn); a small capital is drawn
    as its capital."""
    assert fonts.clean(name) == shown
    assert fonts.drawable(name)


@pytest.mark.parametrize("name, ok", [
    ("Bob", True), ("\u738b\u946b", True), ("???", True), (KOREAN_NAME, True), ("  ", False), ("", False),
    ("\u3164", False), ("\u200b\u200b", False), ("\U0001F600\U0001F600", False), ("\u0e2a\u0e21\u0e0a\u0e32\u0e22", False),
    ("A\U0001F600", True), ("\u2728\U0001F431", False),
])  # fmt: skip
def test_drawable_tells_whether_a_name_shows_anything(name, ok):
    assert fonts.drawable(name) is ok


def test_text_actually_draws_ink():
    img = Image.new("L", (200, 60), 0)
    ImageDraw.Draw(img).text((4, 4), "清一色 Pung", font=fonts.regular(30), fill=255)
    assert img.getbbox() is not None and img.getbbox()[2] > 150


def test_fit_shrinks_then_shortens():
    text, font = fonts.fit("一二三四五六七八九十" * 3, 30, 200)
    assert font.getlength(text) <= 200 and text.endswith("…")
    text, font = fonts.fit("短", 30, 200)
    assert text == "短" and font.size == 30
