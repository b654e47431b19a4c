"""Build the font subsets shipped in ``data/fonts/`` from Debian's Noto CJK (SIL Open Font License 1.1).

Tool-only requirements (NOT runtime dependencies of the bot)::

    apt-get update && apt-get install -y fonts-noto-cjk
    .venv/bin/pip install fonttools
    .venv/bin/python tools/make_font_subset.py

What goes in (the bot needs no system font at run time):

* every CJK character appearing in the repository's ``.py`` / ``.md`` / ``.txt`` files (engine, render, bot, cogs,
  docs, ...; not this file, whose characters are the names' lists) and in the message catalogues
  (``data/locale/*/LC_MESSAGES/*.po``, with the zh-TW texts the catalogue derives from zh-CN through OpenCC,
  :mod:`text.hant`): tile names, item names, messages;
* player names in both scripts: all of GB2312 (levels 1 and 2, 6763 Simplified characters: level 2 holds many
  characters of given names, 鑫 钰 潇 璐 茜 岚 韬 婧), their Traditional forms (:mod:`text.hant`: 鈺 瑋 瀅), the Big5
  frequently-used block (5401 Traditional characters) and ``NAME_CHARS``, common given-name characters that neither
  holds (喆 堃 赟 珺 祎 瑄 琇), each with its Traditional form;
* the Hangul syllables of KS X 1001 (the 2350 in everyday use) and its compatibility jamo: Korean player names;
* kana, CJK and full-width punctuation, Latin-1, Latin Extended-A and -B, Vietnamese letters, Greek, Cyrillic,
  general punctuation, arrows, a few symbols: Latin player names and numbers.

Three files are written:

* ``NotoSansCJKsc-Regular-subset.otf``: the text face (the set above);
* ``NotoSansCJKsc-Bold-subset.otf``: a bold face for headings, with the repository's characters and Latin only
  (``bold_charset.txt``); text it cannot show falls back to the regular face, and a list of names the bold face
  cannot all show is drawn regular throughout (:func:`render.fonts.bold_for`);
* ``NotoSerifCJKsc-Bold-tiles.otf``: a tiny serif face with only the characters engraved on the tiles;

plus ``charset.txt`` (every character the text faces cover, for the renderer to replace what they lack) and
``LICENSE-OFL.txt``. Re-run it when new Chinese text is added to the repository.

``data/`` stays under 6 MB (``tests/render/test_fonts.py``): the regular face with all of GB2312, its Traditional
forms, the names' list and the Hangul syllables is 4.9 MB; a bold face with the same set would double that for
headings, whose text is the project's own.
"""

from __future__ import annotations

import argparse
import contextlib
import re
import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOTO = Path("/usr/share/fonts/opentype/noto")
SC_INDEX = 2  # index of the Simplified Chinese face in Debian's .ttc collections (JP, KR, SC, TC, HK, ...)
TILE_CHARS = "一二三四五六七八九萬万東南西北中發白东发筒条"

# Common given-name characters outside GB2312, its Traditional forms and the Big5 frequently-used block: the ones
# parents pick for their sound and their "jade", "sun", "fire", "metal" or "water" radical (王珺, 张喆, 李堃, 陈赟,
# 刘祎, 林瑄, 黄琇). Each is taken with its Traditional form (赟 贇, 祎 禕). Add a character when a player's name
# shows it as "?".
NAME_CHARS = (
    "亶伃侁俶倢偲冏勍卬叕叡喆垚堃妘姮姵娪婠婳婼媃媗媞媱嫆嫚嫿嬅嬿宬峣峯崟嵚嶢彣彧愔慜旸旻昉昺晙晳暋暐暻曈曌"
    "棫楙橦沄沺浛淏淯湉澐澔炘炟烜煕熲燊燏燚爔犇玙玠玧玹珅珖珝珣珦珵珹珺珽琀琇琋琎琤琭琲琸瑀瑄瑆瑊瑒瑔瑢瑨瑱"
    "璆璠璡璪璫璵瓀瓅瓘皞矞祎禕禛秝綉翀翃翾芃蒨贇赟鋆鋐錤鍹镕霂韡頔顒颎颙飏鵾鹍龑"
)
HANGUL_FILLERS = "\u115f\u1160\u3164\uffa0"  # blank "letters" of Hangul: never in the font (render.fonts drops them)

_CJK = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff\uff00-\uffef\u3000-\u303f]")
_SKIP_DIRS = {".git", ".venv", "node_modules", "__pycache__", ".ruff_cache", ".pytest_cache", "data"}


def repo_chars(root: Path) -> set[str]:
    """CJK characters used anywhere in the repository's text sources, the message catalogues included, and the
    zh-TW forms of the sources' own Chinese (score items and house rules are named in the engine's code and
    converted when shown: 基础分 is drawn as 基礎分)."""
    sys.path.insert(0, str(root))
    from text.hant import to_hant

    out: set[str] = set()
    for path in sorted((root / "data" / "locale").rglob("*.po")):  # the catalogues, and the zh-TW derived from them
        body = path.read_text(encoding="utf-8")
        out.update(_CJK.findall(body), _CJK.findall(to_hant(body)))
    for path in root.rglob("*"):
        if path.suffix not in (".py", ".md", ".txt", ".toml", ".json", ".sql") or not path.is_file():
            continue
        if _SKIP_DIRS.intersection(path.relative_to(root).parts) or path.resolve() == Path(__file__).resolve():
            continue  # this file's characters are the names' lists: only the regular face takes them
        try:
            body = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        out.update(_CJK.findall(body))
        if path.suffix == ".py":
            out.update(_CJK.findall(to_hant(body)))
    return out


def gb2312() -> set[str]:
    """Both levels of GB2312's Chinese characters (rows 16-87: 3755 + 3008)."""
    out = set()
    for row in range(0xB0, 0xF8):
        for cell in range(0xA1, 0xFF):
            with contextlib.suppress(UnicodeDecodeError):
                out.add(bytes([row, cell]).decode("gb2312"))
    return out


def hant_forms(chars: set[str]) -> set[str]:
    """The Traditional forms (as :func:`text.hant.to_hant` writes them) of ``chars``."""
    sys.path.insert(0, str(ROOT))
    from text.hant import to_hant

    return set(to_hant("".join(sorted(chars))))


def names() -> set[str]:
    """The characters of player names: GB2312, the Traditional forms, Big5's common block and ``NAME_CHARS``."""
    simplified = gb2312() | set(NAME_CHARS)
    return simplified | hant_forms(simplified) | big5_common()


def hangul() -> set[str]:
    """KS X 1001's Hangul: its 2350 syllables (rows 16-40) and its compatibility jamo (row 4), fillers left out."""
    out = set()
    for row in [0xA4, *range(0xB0, 0xC9)]:
        for cell in range(0xA1, 0xFF):
            with contextlib.suppress(UnicodeDecodeError):
                out.add(bytes([row, cell]).decode("euc_kr"))
    return out - set(HANGUL_FILLERS)


def big5_common() -> set[str]:
    out = set()
    for hi in range(0xA4, 0xC7):  # frequently used characters: A440-C67E
        for lo in list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF)):
            with contextlib.suppress(UnicodeDecodeError):
                out.add(bytes([hi, lo]).decode("big5"))
    return out


def latin_and_symbols() -> set[str]:
    ranges = [
        (0x20, 0x7E), (0xA0, 0x24F), (0x370, 0x3FF), (0x400, 0x45F), (0x1E00, 0x1EFF), (0x2000, 0x206F),
        (0x2190, 0x21FF), (0x20A0, 0x20CF), (0x2100, 0x214F), (0x2200, 0x22FF),  # currency, letterlike, maths
        (0x2460, 0x24FF), (0x25A0, 0x25FF), (0x2600, 0x26FF), (0x2700, 0x27BF),  # ... dingbats (a flower in a name)
        (0x3000, 0x303F), (0x3040, 0x30FF), (0xFF00, 0xFFEF),
    ]  # fmt: skip
    chars = {chr(c) for a, b in ranges for c in range(a, b + 1)}
    return {c for c in chars if unicodedata.category(c) != "Cf"} - set(HANGUL_FILLERS)  # invisible: dropped, not drawn


def subset(src: Path, dst: Path, chars: set[str]) -> set[str]:
    from fontTools import subset as ft_subset
    from fontTools.ttLib import TTFont

    font = TTFont(src, fontNumber=SC_INDEX, lazy=False, recalcTimestamp=False)  # reproducible output
    cmap = font.getBestCmap()
    keep = sorted(c for c in chars if ord(c) in cmap)
    options = ft_subset.Options()
    options.layout_features = ["kern", "liga", "vert", "palt", "locl"]
    options.name_IDs = ["*"]
    options.hinting = False
    options.desubroutinize = False
    options.notdef_outline = True
    sub = ft_subset.Subsetter(options)
    sub.populate(unicodes=[ord(c) for c in keep])
    sub.subset(font)
    font.save(dst)
    return set(keep)


def write_licence(dst: Path) -> None:
    from fontTools.ttLib import TTFont

    font = TTFont(NOTO / "NotoSansCJK-Regular.ttc", fontNumber=SC_INDEX, lazy=True)
    copyright_line = font["name"].getDebugName(0) or "Copyright 2014-2021 Adobe (http://www.adobe.com/)"
    text = Path("/usr/share/doc/fonts-noto-cjk/copyright").read_text(encoding="utf-8")
    start = text.index("SIL OPEN FONT LICENSE Version 1.1")
    end = text.index("License: GPL-3+", start)
    body = "\n".join(line[1:] if line.startswith(" ") else line for line in text[start:end].splitlines())
    body = body.replace("\n.\n", "\n\n")
    dst.write_text(
        "Fonts in this folder are subsets of Noto Sans CJK SC (Regular, Bold) and Noto Serif CJK SC (Bold),\n"
        "made by tools/make_font_subset.py (fontTools) from Debian's fonts-noto-cjk package.\n\n"
        f"{copyright_line}\n\n"
        "-----------------------------------------------------------\n" + body.strip() + "\n",
        encoding="utf-8",
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=ROOT / "data" / "fonts")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    chars = repo_chars(ROOT) | names() | hangul() | latin_and_symbols() | set(TILE_CHARS)
    covered = subset(NOTO / "NotoSansCJK-Regular.ttc", args.out / "NotoSansCJKsc-Regular-subset.otf", chars)
    bold_chars = repo_chars(ROOT) | latin_and_symbols() | set(TILE_CHARS)
    bold = subset(NOTO / "NotoSansCJK-Bold.ttc", args.out / "NotoSansCJKsc-Bold-subset.otf", bold_chars)
    (args.out / "bold_charset.txt").write_text("".join(sorted(bold)), encoding="utf-8")
    subset(NOTO / "NotoSerifCJK-Bold.ttc", args.out / "NotoSerifCJKsc-Bold-tiles.otf", set(TILE_CHARS))
    (args.out / "charset.txt").write_text("".join(sorted(covered)), encoding="utf-8")
    write_licence(args.out / "LICENSE-OFL.txt")
    total = sum(p.stat().st_size for p in args.out.iterdir())
    missing = sorted(chars - covered)
    print(f"{len(covered)} characters, {total / 1e6:.2f} MB in {args.out}; not in the font: {len(missing)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
