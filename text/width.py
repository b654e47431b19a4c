"""Lines for a terminal: a Chinese character takes two columns, so columns are padded by display width, not by
characters, and a label's colon is the language's own (``：`` in Chinese, ``: `` in English).

>>> ljust("你(南)", 8) + "|", ljust("AI-1(北)", 8) + "|"
('你(南)  |', 'AI-1(北)|')
>>> colon("zh"), colon("zh-TW"), colon("en")
('：', '：', ': ')
"""

from __future__ import annotations

import unicodedata


def width(text: str) -> int:
    """Columns ``text`` takes in a terminal: two for a wide or full-width character (Chinese, ``：``), one else."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def ljust(text: str, columns: int) -> str:
    """``text`` padded with spaces to ``columns`` terminal columns (as ``str.ljust`` counts characters)."""
    return text + " " * max(0, columns - width(text))


def colon(lang: str) -> str:
    """What follows a label: ``：`` in Chinese, ``: `` in English."""
    return ": " if lang == "en" else "："
