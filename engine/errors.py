"""Errors the engine raises for bad input, with messages in the player's language.

Every error carries a stable ``code`` (for programs and JSON), the parameters of its message, and renders itself in
English, Simplified or Traditional Chinese. Nothing else escapes the engine's public functions on bad input.

The engine is pure: it does not convert Simplified to Traditional Chinese itself. The i18n layer registers its
converter with :func:`set_hant` (``render.hant`` does, with OpenCC, whenever ``render`` or the bot is imported), or
a caller passes one to :meth:`EngineError.message`; without one, ``zh-TW`` falls back to the Simplified text.

>>> e = EngineError("five_copies", tile="5m")
>>> e.message("en")
'five copies of 5m: a set has only four'
>>> e.message("zh")
'5m 有五张：每种牌只有四张'
"""

from __future__ import annotations

from collections.abc import Callable

# code -> (English, Simplified Chinese). Traditional Chinese is derived from the Simplified text (``to_hant``).
MESSAGES: dict[str, tuple[str, str]] = {
    # notation
    "empty": ("the hand is empty", "牌是空的"),
    "unknown_char": ("unknown character '{char}' at character {pos}", "第 {pos} 个字符 '{char}' 无法识别"),
    "unknown_suit": ("unknown suit '{char}' at character {pos}", "第 {pos} 个字符 '{char}' 不是花色"),
    "digits_without_suit": (
        "digits '{digits}' at character {pos} have no suit letter after them (m, p, s or z)",
        "第 {pos} 个字符起的数字 '{digits}' 后面缺少花色（m 万、p 筒、s 条、z 字）",
    ),
    "suit_without_digits": ("suit '{char}' at character {pos} has no digits before it", "第 {pos} 个字符的花色 '{char}' 前面没有数字"),
    "zero_rank": ("'0' at character {pos} is not a tile rank (use 1-9)", "第 {pos} 个字符 '0' 不是牌点（用 1-9）"),
    "honour_rank": ("honour tiles are 1z-7z; '{rank}z' at character {pos} does not exist", "字牌只有 1z-7z；第 {pos} 个字符的 '{rank}z' 不存在"),
    "unclosed_meld": ("the meld opened at character {pos} is never closed", "第 {pos} 个字符开始的副露没有闭合"),
    "nested_meld": ("a meld cannot open inside another meld (character {pos})", "副露里不能再套副露（第 {pos} 个字符）"),
    "stray_close": ("'{char}' at character {pos} closes no meld", "第 {pos} 个字符 '{char}' 没有对应的开括号"),
    "mismatched_brackets": ("the meld opened with '{open}' is closed with '{char}' at character {pos}", "用 '{open}' 开始的副露在第 {pos} 个字符被 '{char}' 结束"),
    "meld_size": ("a meld has 3 or 4 tiles, not {n} (the meld ending at character {pos})", "副露应为 3 或 4 张，而不是 {n} 张（第 {pos} 个字符结束的副露）"),
    "bad_chi": ("a chi must be three consecutive tiles of one suit, not {tiles}", "吃必须是同一花色的三张连续牌，{tiles} 不是"),
    "bad_kong": ("a kong must be four identical tiles, not {tiles}", "杠必须是四张相同的牌，{tiles} 不是"),
    "concealed_not_kong": ("only a concealed kong is written in ( ): {tiles} is not four identical tiles", "圆括号只用于暗杠：{tiles} 不是四张相同的牌"),
    "concealed_with_feeder": (
        "a concealed kong is made from your own tiles: ({tiles}:{seat}) cannot name a feeder",
        "暗杠是自己摸的牌：({tiles}:{seat}) 不能写放牌的人",
    ),
    "bad_seat": ("'{seat}' is not a seat; use E, S, W or N (东 南 西 北)", "'{seat}' 不是座位；请用 E S W N（东 南 西 北）"),
    "seat_outside_meld": ("a seat ':{seat}' can only follow a meld's tiles inside its brackets", "座位 ':{seat}' 只能写在副露括号里的牌后面"),
    "two_plus": ("only one '+' is allowed: it marks the winning tile", "只能有一个 '+'：它标出和的那张牌"),
    "plus_not_one_tile": ("after '+' comes exactly one tile (the winning tile), not {n}", "'+' 后面应该只有一张牌（和的牌），而不是 {n} 张"),
    "melds_after_plus": ("melds go before '+'; only the winning tile comes after it", "副露要写在 '+' 前面；'+' 后只写和的那张牌"),
    "tiles_after_melds": ("concealed tiles go before the melds: '{tiles}' follows a meld", "手牌要写在副露前面：'{tiles}' 写在了副露后面"),
    "five_copies": ("five copies of {tile}: a set has only four", "{tile} 有五张：每种牌只有四张"),
    # hand shape and variant legality
    "no_winning_tile": ("mark the winning tile with '+', e.g. 1234678922m345s+5m", "请用 '+' 标出和的那张牌，例如 1234678922m345s+5m"),
    "wrong_size": (
        "a winning hand has 14 tiles (a kong counts as 3); this one has {n}",
        "和牌应有 14 张（杠按 3 张算）；这手牌有 {n} 张",
    ),
    "tile_not_in_variant": ("{variant} is played without {tile}", "{variant}没有 {tile} 这张牌"),
    "not_complete": ("this hand is not complete: it is not a pair plus four sets{extra}", "这手牌没有和：不是一对将加四组牌{extra}"),
    "no_bazhi": (
        "八支 missing: a winning hand needs 8 or more tiles of one suit (万/筒/条); the most here is {n}",
        "不够八支：和牌时万、筒、条中必须有一门达到 8 张；这手牌最多只有 {n} 张",
    ),
    "hua_gate": (
        "not enough 花 to win: {need} needed when {how}, this hand has {have}",
        "花不够，不能和：{how_zh}需要 {need} 花，这手牌只有 {have} 花",
    ),
    "no_chi_in_variant": ("{variant} has no chi: [{tiles}] cannot be a meld", "{variant}不能吃：[{tiles}] 不能作为副露"),
    "heavenly_not_dealer": ("天胡 is the dealer's (E) win on the 14 dealt tiles", "天胡只属于庄家（东）：用起手 14 张和牌"),
    "heavenly_with_melds": ("天胡 and 地胡 are won before any meld is made", "天胡和地胡在任何副露之前和牌"),
    "earthly_dealer": ("地胡 is a non-dealer's win on the dealer's first discard", "地胡是闲家和庄家打出的第一张牌"),
    "bad_dealer_streak": ("the dealer streak (庄数) is 1 or more, not {n}", "庄数至少为 1，而不是 {n}"),
    "from_self": ("the discarder cannot be the winner", "点炮的人不能是和牌的人"),
    "rob_kong_needs_from": ("robbing a kong needs the seat whose kong was robbed (--from)", "抢杠需要指明被抢杠的人（--from）"),
    "rob_kong_not_allowed": ("{variant} has no 抢杠", "{variant}没有抢杠"),
    "kong_draw_and_discard": ("a kong replacement win is self-drawn: it cannot also be won on a discard", "杠上开花是自摸，不能同时是点炮"),
    "bad_rule": ("unknown house rule '{key}'; known: {known}", "没有这条规则 '{key}'；可用：{known}"),
    "bad_rule_value": ("house rule '{key}' takes {expected}, not '{value}'", "规则 '{key}' 的值应为 {expected}，而不是 '{value}'"),
}

Converter = Callable[[str], str]
_hant: Converter | None = None


def set_hant(convert: Converter | None) -> Converter | None:
    """Register the Simplified-to-Traditional converter the messages use (None: none); returns the previous one."""
    global _hant
    previous, _hant = _hant, convert
    return previous


def to_hant(text: str) -> str:
    """Traditional Chinese through the registered converter (see :func:`set_hant`); the text unchanged without one.

    >>> previous = set_hant(lambda s: s.replace("杠", "槓"))
    >>> to_hant("杠后开花")
    '槓后开花'
    >>> _ = set_hant(previous)
    """
    return _hant(text) if _hant is not None else text


def normalise_lang(lang: str | None) -> str:
    """Map a Discord locale or a short code to one of ``en``, ``zh`` (Simplified) or ``zh-TW`` (Traditional).

    >>> normalise_lang("zh-CN"), normalise_lang("zh-TW"), normalise_lang("en-US"), normalise_lang(None)
    ('zh', 'zh-TW', 'en', 'zh')
    """
    if not lang:
        return "zh"
    lang = str(lang).lower().replace("_", "-")
    if lang in ("zh-tw", "zh-hk", "zh-hant", "zh-mo"):
        return "zh-TW"
    if lang.startswith("zh"):
        return "zh"
    return "en"


def translate(code: str, lang: str | None = "en", hant: Converter | None = None, **params: object) -> str:
    """The message for ``code`` in ``lang`` with its parameters filled in (``hant``: the Traditional converter to
    use instead of the registered one)."""
    en, zh = MESSAGES.get(code, ("{code}", "{code}"))
    values = _Params(params, code=code)
    lang = normalise_lang(lang)
    if lang == "en":
        return en.format_map(values)
    text = zh.format_map(values)
    if lang != "zh-TW":
        return text
    return hant(text) if hant is not None else to_hant(text)


class _Params(dict[str, object]):
    """Message parameters; a parameter a caller left out reads as empty rather than failing."""

    def __missing__(self, key: str) -> str:
        return ""


class EngineError(ValueError):
    """Bad input to the engine: a stable ``code``, message parameters and a message in any supported language."""

    def __init__(self, code: str, **params: object) -> None:
        self.code = code
        self.params = params
        super().__init__(self.message("en"))

    def message(self, lang: str | None = "en", hant: Converter | None = None) -> str:
        """The message in ``lang`` (``en``, ``zh``, ``zh-TW`` or a Discord locale)."""
        return translate(self.code, lang, hant, **self.params)


class ParseError(EngineError):
    """The notation could not be read."""


class HandError(EngineError):
    """The hand was read but cannot be scored: not complete, not allowed to win, or impossible."""
