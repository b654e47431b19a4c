"""The shipped fonts (``data/fonts``, subsets of Noto CJK under the SIL OFL): no system font is used.

They are package data of ``mjbot_data`` (the ``data/`` folder, see :mod:`render.assets`), found with
``importlib.resources`` so an installed wheel draws exactly as a checkout does.

``text_font(text, size, bold=True)`` picks the bold face when it covers the text, else the regular face (the bold
subset holds only the repository's own characters and Latin, to keep ``data/`` small). ``clean(text)`` replaces
characters the fonts lack (emoji, rare scripts) so a player's name never draws as empty boxes, and drops invisible
ones; ``drawable(name)`` tells whether anything of a name is left to tell its player apart.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from PIL import ImageFont

from . import assets

REGULAR = assets.path("fonts", "NotoSansCJKsc-Regular-subset.otf")
BOLD = assets.path("fonts", "NotoSansCJKsc-Bold-subset.otf")
TILES = assets.path("fonts", "NotoSerifCJKsc-Bold-tiles.otf")
FONT_DIR = REGULAR.parent  # the folder the faces are read from (in site-packages once installed)

FreeTypeFont = ImageFont.FreeTypeFont


@lru_cache(maxsize=1)
def charset() -> frozenset[str]:
    """Every character the regular text face can draw."""
    return frozenset(assets.read_text("fonts", "charset.txt"))


@lru_cache(maxsize=1)
def bold_charset() -> frozenset[str]:
    return frozenset(assets.read_text("fonts", "bold_charset.txt"))


@lru_cache(maxsize=64)
def regular(size: int) -> FreeTypeFont:
    return ImageFont.truetype(str(REGULAR), size)


@lru_cache(maxsize=64)
def bold(size: int) -> FreeTypeFont:
    return ImageFont.truetype(str(BOLD), size)


@lru_cache(maxsize=16)
def tile_face(size: int) -> FreeTypeFont:
    """The serif face engraved on the tiles (一..九 萬 東 南 西 北 中 發 白 only)."""
    return ImageFont.truetype(str(TILES), size)


# Characters that draw nothing: format characters (zero-width space and joiners, BOM, direction marks, soft hyphen,
# category Cf), Hangul's blank letters and the blank Braille cell, often whole Discord display names.
_BLANK = frozenset("\u115f\u1160\u3164\uffa0\u2800")


def _invisible(c: str) -> bool:
    return c in _BLANK or unicodedata.category(c) in ("Cf", "Mn", "Me")  # Mn/Me: a mark left over after NFC


def _cleaned(text: str) -> list[tuple[str, bool]]:
    """``text`` as drawable pieces, each with whether it stands for a character the fonts lack."""
    cs = charset()
    out = []
    for c in unicodedata.normalize("NFC", str(text)):  # "José" typed as e + U+0301 is drawn as José
        if c in cs or c == " ":
            out.append((c, False))
        elif c.isspace():
            out.append((" ", False))  # one line only: newlines and tabs become spaces
        elif _invisible(c):
            continue  # drawn as nothing, not as "?"
        else:
            base = "".join(b for b in unicodedata.normalize("NFKD", c) if not unicodedata.combining(b))
            if not (base and all(b in cs for b in base)):
                base = _small_capital(c)
            if base and all(b in cs for b in base):
                out.append((base, False))
            elif unicodedata.category(c) in ("So", "Sk"):
                continue  # an emoji or a dingbat the fonts lack (a flower or a face round a name): a decoration, left out
            else:
                out.append(("?", True))  # a letter of a script the fonts lack: not silently lost
    return out


def _small_capital(c: str) -> str:
    """The capital a "small capital" letter stands for (ᴀʟɪᴄᴇ, a style of display name), which no normalisation
    maps; else "".

    >>> _small_capital("\u1d00"), _small_capital("\ua731"), _small_capital("a")
    ('A', 'S', '')
    """
    name = unicodedata.name(c, "")
    for prefix in ("LATIN LETTER SMALL CAPITAL ", "MODIFIER LETTER SMALL CAPITAL "):
        if name.startswith(prefix) and len(name) == len(prefix) + 1:
            return name[-1]
    return ""


def clean(text: str) -> str:
    """``text`` on one line with characters the fonts cannot draw replaced: accented letters by their base letter
    when only the accent is missing, small capitals by capitals, other spaces by a space, invisible characters
    (zero-width, BOM, Hangul fillers, a combining mark left alone) and pictures the fonts lack (emoji, dingbats)
    dropped, a letter of a script or a currency or maths sign the fonts lack by ``?``.

    >>> clean("小明"), clean("Ann\U0001F600"), clean("Ωμέγα"), clean("Jose\u0301\u200b"), clean("\u1d00\u029f\u026a")
    ('小明', 'Ann', 'Ωμεγα', 'José', 'ALI')
    >>> clean("\u0e2a\u0e21")  # Thai
    '??'
    """
    return "".join(c for c, _ in _cleaned(text))


def drawable(name: str) -> bool:
    """Whether ``name`` shows something on an image that tells it apart: a character the fonts have, not only
    spaces, invisible characters or ``?`` for a script the fonts lack.

    >>> drawable("Bob"), drawable("  "), drawable("\u3164\u200b"), drawable("\U0001F600\U0001F600"), drawable("???")
    (True, False, False, False, True)
    """
    return any(c != " " and not lacked for c, lacked in _cleaned(name))


def has_bold(text: str) -> bool:
    """Whether the bold face has every character of ``text`` (else :func:`text_font` draws it regular). Lines set
    side by side (a list of labels) ask it of all of them, so one line that the bold subset happens to cover is not
    the only bold one among regular neighbours. The bold face holds every character of the project's own texts (the
    catalogues included: ``tools/make_font_subset.py``), not every one a player's name may use.

    >>> has_bold("Wins let pass"), has_bold("漏和"), has_bold("牌速慢了"), has_bold("\u674e\u5a1c")  # a name, escaped: the font tool reads this file
    (True, True, True, False)
    """
    return all(c in bold_charset() or c == " " for c in clean(text))


def bold_for(column: Iterable[str]) -> bool:
    """Whether a column of names (leaderboard rows, table seats, a legend) is drawn bold: only when the bold face
    has every one of them, so one name outside the bold subset does not leave it regular among bold neighbours.

    >>> bold_for(["Bob", "\u5c0f\u660e"]), bold_for(["Bob", "\u674e\u5a1c"])
    (True, False)
    """
    return all(has_bold(t) for t in column)


def text_font(text: str, size: int, bold_: bool = True) -> FreeTypeFont:
    """The bold face when asked and it has every character of ``text``, else the regular face."""
    if bold_ and has_bold(text):
        return bold(size)
    return regular(size)


def text_width(text: str, font: FreeTypeFont) -> int:
    return int(round(font.getlength(text)))


def fit(text: str, size: int, max_width: int, *, bold_: bool = True, min_size: int = 10,
        middle: bool = False) -> tuple[str, FreeTypeFont]:
    """The largest font (down to ``min_size``) in which ``text`` fits ``max_width``; past that, text is shortened
    with an ellipsis, at its end, or in its ``middle`` so that both ends stay (a season's name is shortened, its
    dates at the end of the line are kept). Returns the (possibly shortened) text and its font.

    >>> fit("Season 2 · " + "Spring League " * 6 + "(Mar 1 – May 31)", 16, 300, middle=True)[0][-16:]
    '(Mar 1 – May 31)'
    """
    text = clean(text)
    s = size
    while s > min_size and text_width(text, text_font(text, s, bold_)) > max_width:
        s -= 1
    f = text_font(text, s, bold_)
    if text_width(text, f) <= max_width:
        return text, f
    if middle:
        head, tail = text[: len(text) // 2], text[len(text) // 2 :]
        while (head or tail) and text_width(head.rstrip() + "…" + tail.lstrip(), f) > max_width:
            if len(head) >= len(tail):
                head = head[:-1]
            else:
                tail = tail[1:]
        return head.rstrip() + "…" + tail.lstrip(), f
    while text and text_width(text + "…", f) > max_width:
        text = text[:-1]
    return text + "…", f
