"""The shipped fonts: no system font needed, every Chinese character the engine can put on an image is covered."""

from __future__ import annotations

import re
from pathlib import Path

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


def test_common_simplified_and_traditional_characters_are_covered():
    gb_level1 = {bytes([r, c]).decode("gb2312") for r in range(0xB0, 0xD8) for c in range(0xA1, 0xFF)
                 if (r, c) != (0xD7, 0xFA) and (r, c) < (0xD7, 0xFA)}
    assert gb_level1 <= fonts.charset()
    assert set("萬發東門槓聽報龍雙莊") <= fonts.charset()


def test_characters_the_fonts_lack_are_replaced_not_drawn_as_boxes():
    assert fonts.clean("阿明😀") == "阿明?"
    assert fonts.clean("two\nlines\t") == "two lines "
    assert fonts.clean("Zoë Ωμέγα Иван") == "Zoë Ωμεγα Иван"  # an accent the font lacks: the base letter


def test_text_actually_draws_ink():
    img = Image.new("L", (200, 60), 0)
    ImageDraw.Draw(img).text((4, 4), "清一色 Pung", font=fonts.regular(30), fill=255)
    assert img.getbbox() is not None and img.getbbox()[2] > 150


def test_fit_shrinks_then_shortens():
    text, font = fonts.fit("一二三四五六七八九十" * 3, 30, 200)
    assert font.getlength(text) <= 200 and text.endswith("…")
    text, font = fonts.fit("短", 30, 200)
    assert text == "短" and font.size == 30
