"""Languages: Simplified Chinese (``zh``), Traditional Chinese (``zh-TW``) and English (``en``).

Two halves:

- :class:`Translator`, a discord.py ``app_commands.Translator``: every command, option and choice name and
  description is a ``locale_str`` whose ``key`` extra names an entry of :data:`COMMANDS`; Discord shows each player
  the names in their own client language.
- :func:`t` for messages: ``t("score.bad_hand", "zh", error=...)``. :func:`lang_for` picks the language of a reply:
  the player's Discord locale first when we speak it, the server's chosen language second, English last.

>>> t("common.seat.E", "zh"), t("common.seat.E", "zh-TW"), t("common.seat.E", "en")
('东', '東', 'East')
>>> lang_of_locale("zh-CN"), lang_of_locale("zh-TW"), lang_of_locale("en-GB"), lang_of_locale("fr")
('zh', 'zh-TW', 'en', None)
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

import discord
from discord import app_commands

log = logging.getLogger(__name__)

LANGS = ("zh", "zh-TW", "en")

# key -> (English, Simplified Chinese, Traditional Chinese). English is what Discord shows by default.
COMMANDS: dict[str, tuple[str, str, str]] = {
    # /score
    "score.name": ("score", "算分", "算分"),
    "score.desc": ("Score a winning hand: itemised breakdown and payments", "计算一手和牌：逐项番数与输赢", "計算一手和牌：逐項番數與輸贏"),
    "score.hand.name": ("hand", "手牌", "手牌"),
    "score.hand.desc": ("The hand, e.g. 1234678922m345s+5m (winning tile after +)", "手牌，例如 1234678922m345s+5m（+ 后是和的那张）", "手牌，例如 1234678922m345s+5m（+ 後是和的那張）"),
    "score.variant.name": ("variant", "玩法", "玩法"),
    "score.variant.desc": ("Rule set (default: this server's)", "玩法（默认：本服务器的设置）", "玩法（預設：本伺服器的設定）"),
    "score.win.name": ("win", "和法", "和法"),
    "score.win.desc": ("Won on a discard or self-drawn", "点炮还是自摸", "放槍還是自摸"),
    "score.winner.name": ("winner", "和家", "和家"),
    "score.winner.desc": ("The winner's seat (E is the dealer; default S)", "和牌者座位（东为庄；默认南）", "和牌者座位（東為莊；預設南）"),
    "score.discarder.name": ("discarder", "点炮", "放槍"),
    "score.discarder.desc": ("Who dealt in (or whose kong was robbed)", "谁点的炮（或被抢杠的人）", "誰放的槍（或被搶槓的人）"),
    "score.situation.name": ("situation", "情形", "情形"),
    "score.situation.desc": ("A special way the hand was won", "特殊的和牌情形", "特殊的和牌情形"),
    "score.mode.name": ("mode", "模式", "模式"),
    "score.mode.desc": ("Wuhu scoring: 315 or 525 (default: this server's)", "芜湖计分：315 或 525（默认：本服务器的设置）", "蕪湖計分：315 或 525（預設：本伺服器的設定）"),
    "score.streak.name": ("dealer_streak", "庄数", "莊數"),
    "score.streak.desc": ("Hefei 庄数: consecutive dealerships (default 1)", "合肥庄数：连庄次数（默认 1）", "合肥莊數：連莊次數（預設 1）"),
    # choices
    "choice.variant.wuhu": ("Wuhu", "芜湖", "蕪湖"),
    "choice.variant.hefei": ("Hefei", "合肥", "合肥"),
    "choice.variant.chizhou": ("Chizhou", "池州", "池州"),
    "choice.win.discard": ("on a discard", "点炮", "放槍"),
    "choice.win.self": ("self-drawn", "自摸", "自摸"),
    "choice.seat.E": ("East (dealer)", "东（庄）", "東（莊）"),
    "choice.seat.S": ("South", "南", "南"),
    "choice.seat.W": ("West", "西", "西"),
    "choice.seat.N": ("North", "北", "北"),
    "choice.situation.kong_draw": ("kong replacement draw (杠开)", "杠上开花", "槓上開花"),
    "choice.situation.rob_kong": ("robbing a kong (抢杠)", "抢杠", "搶槓"),
    "choice.situation.last_tiles": ("in the last four tiles", "最后四张（海捞）", "最後四張（海撈）"),
    "choice.situation.heavenly": ("天胡 heavenly hand (dealer)", "天胡", "天胡"),
    "choice.situation.earthly": ("地胡 earthly hand", "地胡", "地胡"),
    "choice.mode.315": ("315", "315", "315"),
    "choice.mode.525": ("525", "525", "525"),
    # /rules
    "rules.name": ("rules", "规则", "規則"),
    "rules.desc": ("How a variant is played, with this server's house rules", "玩法规则简介，以及本服务器的规则设置", "玩法規則簡介，以及本伺服器的規則設定"),
    "rules.variant.name": ("variant", "玩法", "玩法"),
    "rules.variant.desc": ("Rule set (default: this server's)", "玩法（默认：本服务器的设置）", "玩法（預設：本伺服器的設定）"),
    # /settings
    "settings.name": ("settings", "设置", "設定"),
    "settings.desc": ("Server settings: variant, house rules, timers, language (Manage Server)", "服务器设置：玩法、规则、计时、语言（需管理服务器权限）", "伺服器設定：玩法、規則、計時、語言（需管理伺服器權限）"),
}

# key -> (English, Simplified Chinese, Traditional Chinese); ``{name}`` placeholders are filled by :func:`t`.
MESSAGES: dict[str, tuple[str, str, str]] = {
    "common.seat.E": ("East", "东", "東"),
    "common.seat.S": ("South", "南", "南"),
    "common.seat.W": ("West", "西", "西"),
    "common.seat.N": ("North", "北", "北"),
    "common.dealer": ("dealer", "庄", "莊"),
    "common.on": ("on", "开", "開"),
    "common.off": ("off", "关", "關"),
    "variant.wuhu": ("Wuhu", "芜湖", "蕪湖"),
    "variant.hefei": ("Hefei", "合肥", "合肥"),
    "variant.chizhou": ("Chizhou", "池州", "池州"),
    # errors
    "error.generic": (
        "Something went wrong on our side; nothing was changed. Please try again in a moment.",
        "出了点问题（是我们这边的），什么都没有改动。请稍后再试。",
        "出了點問題（是我們這邊的），什麼都沒有改動。請稍後再試。",
    ),
    "error.no_permission": (
        "You need the Manage Server permission for this.",
        "需要“管理服务器”权限才能这样做。",
        "需要「管理伺服器」權限才能這樣做。",
    ),
    "error.guild_only": ("This works only in a server, not in DMs.", "这只能在服务器里用，私信里不行。", "這只能在伺服器裡用，私訊裡不行。"),
    "error.cooldown": ("Slow down: try again in {seconds} s.", "太快了：请 {seconds} 秒后再试。", "太快了：請 {seconds} 秒後再試。"),
    "error.bot_missing_permissions": (
        "I am missing permissions in this channel: {perms}.",
        "我在这个频道缺少权限：{perms}。",
        "我在這個頻道缺少權限：{perms}。",
    ),
    "error.store_unavailable": (
        "The bot's database is not available right now; nothing was changed.",
        "机器人的数据库暂时不可用，什么都没有改动。",
        "機器人的資料庫暫時無法使用，什麼都沒有改動。",
    ),
    "error.no_variant": (
        "The {variant} rules are not available yet.",
        "{variant}的规则暂时还不能用。",
        "{variant}的規則暫時還不能用。",
    ),
    # /score
    "score.title": ("{variant}: {winner} wins {how}", "{variant}：{winner}家{how}", "{variant}：{winner}家{how}"),
    "score.how.self": ("by self-draw", "自摸", "自摸"),
    "score.how.discard": ("on {discarder}'s discard", "和{discarder}家点炮", "和{discarder}家放槍"),
    "score.how.rob_kong": ("by robbing {discarder}'s kong", "抢{discarder}家的杠", "搶{discarder}家的槓"),
    "score.mode": ("mode {mode}", "{mode} 模式", "{mode} 模式"),
    "score.streak": ("庄数 {n}", "庄数 {n}", "莊數 {n}"),
    "score.items": ("Breakdown", "明细", "明細"),
    "score.notes": ("Notes", "说明", "說明"),
    "score.payments": ("Payments", "输赢", "輸贏"),
    "score.per_payer": ("Each payer owes", "每家应付", "每家應付"),
    "score.stacks": ("from the stacks (底)", "底分", "底分"),
    "score.jiao": ("交 tally", "交", "交"),
    "score.unit": ("子", "子", "子"),
    "score.winner_mark": ("winner", "和家", "和家"),
    "score.rules_used": ("House rules: {rules}", "规则：{rules}", "規則：{rules}"),
    "score.bad_hand": (
        "That hand cannot be scored: {error}",
        "这手牌无法计分：{error}",
        "這手牌無法計分：{error}",
    ),
    "score.example": (
        "Example: `{example}` (concealed tiles, melds in [ ], winning tile after +). Press the button for the notation.",
        "例如：`{example}`（先写手牌，副露写在 [ ] 里，+ 后是和的那张）。按下面的按钮查看写法说明。",
        "例如：`{example}`（先寫手牌，副露寫在 [ ] 裡，+ 後是和的那張）。按下面的按鈕查看寫法說明。",
    ),
    "score.win_conflict": (
        "You chose a self-drawn win but also named a discarder; leave one of them out.",
        "选了自摸，又指定了点炮的人；请去掉其中一个。",
        "選了自摸，又指定了放槍的人；請去掉其中一個。",
    ),
    "score.help_button": ("Notation help", "写法说明", "寫法說明"),
    "score.help": (
        "**How to write a hand**\n"
        "• Tiles: digits then the suit: `m` characters (万), `p` dots (筒), `s` bamboo (条); honours `1z`-`7z` = "
        "East South West North White Green Red. Chinese works too: `一二三万`, `东东东`, `中中`.\n"
        "• Concealed tiles first, then the melds in the order they were made: `[555p]` pung, `[5555p]` exposed "
        "kong, `(5555p)` concealed kong, `[345s]` chi (Chizhou only). Add the feeding seat: `[555p:W]`.\n"
        "• The winning tile last, after `+`. A hand has 14 tiles (a kong counts as 3).\n"
        "• Examples: `1234678922m345s+5m`, `222m555m888m9m[777z]+9m`, `123m111z77z[5555p:W](9999s)+7z`.\n"
        "• Seats: E S W N; E is the dealer. Spaces are ignored.",
        "**手牌写法**\n"
        "• 牌：数字加花色字母：`m` 万、`p` 筒（饼）、`s` 条；字牌 `1z`-`7z` = 东 南 西 北 白 发 中。"
        "也可以直接写中文：`一二三万`、`东东东`、`中中`。\n"
        "• 先写手里的牌，再按顺序写副露：`[555p]` 碰，`[5555p]` 明杠，`(5555p)` 暗杠，`[345s]` 吃（仅池州）。"
        "可以标出谁喂的牌：`[555p:W]`。\n"
        "• 最后在 `+` 后面写和的那张牌。一手和牌 14 张（杠按 3 张算）。\n"
        "• 例子：`1234678922m345s+5m`、`222m555m888m9m[777z]+9m`、`123m111z77z[5555p:W](9999s)+7z`。\n"
        "• 座位：E 东 S 南 W 西 N 北；东为庄。空格会被忽略。",
        "**手牌寫法**\n"
        "• 牌：數字加花色字母：`m` 萬、`p` 筒（餅）、`s` 條；字牌 `1z`-`7z` = 東 南 西 北 白 發 中。"
        "也可以直接寫中文：`一二三萬`、`東東東`、`中中`。\n"
        "• 先寫手裡的牌，再按順序寫副露：`[555p]` 碰，`[5555p]` 明槓，`(5555p)` 暗槓，`[345s]` 吃（僅池州）。"
        "可以標出誰餵的牌：`[555p:W]`。\n"
        "• 最後在 `+` 後面寫和的那張牌。一手和牌 14 張（槓按 3 張算）。\n"
        "• 例子：`1234678922m345s+5m`、`222m555m888m9m[777z]+9m`、`123m111z77z[5555p:W](9999s)+7z`。\n"
        "• 座位：E 東 S 南 W 西 N 北；東為莊。空格會被忽略。",
    ),
    "score.no_image": ("(score card image not available yet)", "（计分卡图片暂不可用）", "（計分卡圖片暫不可用）"),
    # /settings
    "settings.title": ("Server settings", "服务器设置", "伺服器設定"),
    "settings.intro": (
        "Changes apply to tables opened from now on; tables in play keep their rules.",
        "改动只对之后新开的牌桌生效；正在进行的牌桌沿用原来的规则。",
        "改動只對之後新開的牌桌生效；正在進行的牌桌沿用原來的規則。",
    ),
    "settings.field.default_variant": ("Default variant", "默认玩法", "預設玩法"),
    "settings.field.wuhu_mode": ("Wuhu scoring", "芜湖计分", "蕪湖計分"),
    "settings.field.language": ("Language", "语言", "語言"),
    "settings.field.house_rules": ("House rules", "规则设置", "規則設定"),
    "settings.field.turn_seconds": ("Seconds per turn", "每手时间（秒）", "每手時間（秒）"),
    "settings.field.claim_seconds": ("Seconds to claim", "吃碰等待（秒）", "吃碰等待（秒）"),
    "settings.field.hints": ("Hints", "听牌提示", "聽牌提示"),
    "settings.field.allowed_channels": ("Channels for tables", "可开桌的频道", "可開桌的頻道"),
    "settings.house_for": ("House rules: {variant}", "规则设置：{variant}", "規則設定：{variant}"),
    "settings.house_for_other": (
        "House rules: {variant} (the default variant stays {default})",
        "规则设置：{variant}（默认玩法仍是{default}）",
        "規則設定：{variant}（預設玩法仍是{default}）",
    ),
    "settings.viewing": (
        "Showing the house rules of {variant}. Changing them does not change the default variant ({default}); "
        "new {variant} tables use them.",
        "正在查看{variant}的规则设置。修改它们不会改变默认玩法（{default}）；之后新开的{variant}牌桌按新规则。",
        "正在查看{variant}的規則設定。修改它們不會改變預設玩法（{default}）；之後新開的{variant}牌桌按新規則。",
    ),
    "settings.btn.view": ("{variant} house rules", "{variant}规则设置", "{variant}規則設定"),
    "settings.timers": ("Turn {turn} s · claim window {claim} s", "每手 {turn} 秒 · 吃碰等待 {claim} 秒", "每手 {turn} 秒 · 吃碰等待 {claim} 秒"),
    "settings.channels_all": ("every channel", "所有频道", "所有頻道"),
    "settings.recent": ("Recent changes", "最近的改动", "最近的改動"),
    "settings.none_yet": ("none yet", "还没有改动", "還沒有改動"),
    "settings.changed": (
        "Saved: {field} → {value}. New tables use it; tables in play keep their rules.",
        "已保存：{field} → {value}。新开的牌桌生效；正在进行的牌桌不变。",
        "已儲存：{field} → {value}。新開的牌桌生效；正在進行的牌桌不變。",
    ),
    "settings.unchanged": ("Nothing changed: {field} was already {value}.", "没有改动：{field} 本来就是 {value}。", "沒有改動：{field} 本來就是 {value}。"),
    "settings.ph.variant": ("Default variant…", "默认玩法…", "預設玩法…"),
    "settings.ph.mode": ("Wuhu scoring…", "芜湖计分…", "蕪湖計分…"),
    "settings.ph.language": ("Language…", "语言…", "語言…"),
    "settings.ph.rule": ("Change a house rule of {variant}…", "修改{variant}的规则…", "修改{variant}的規則…"),
    "settings.ph.channels": ("Channels where tables may open…", "可以开桌的频道…", "可以開桌的頻道…"),
    "settings.btn.timers": ("Timers…", "计时…", "計時…"),
    "settings.btn.hints": ("Hints on/off", "提示 开/关", "提示 開/關"),
    "settings.btn.channels": ("Channels…", "频道…", "頻道…"),
    "settings.btn.all_channels": ("Every channel", "所有频道", "所有頻道"),
    "settings.channels_prompt": (
        "Pick the channels where tables may open, or press “Every channel”.",
        "选择可以开桌的频道，或者按“所有频道”。",
        "選擇可以開桌的頻道，或者按「所有頻道」。",
    ),
    "settings.modal.title": ("Timers", "计时", "計時"),
    "settings.modal.turn": ("Seconds per turn ({low}-{high})", "每手秒数（{low}-{high}）", "每手秒數（{low}-{high}）"),
    "settings.modal.claim": ("Seconds to claim a discard ({low}-{high})", "吃碰等待秒数（{low}-{high}）", "吃碰等待秒數（{low}-{high}）"),
    "settings.bad_number": (
        "{field} must be a whole number from {low} to {high}, not “{value}”. Nothing was changed.",
        "{field}必须是 {low} 到 {high} 之间的整数，而不是“{value}”。什么都没有改动。",
        "{field}必須是 {low} 到 {high} 之間的整數，而不是「{value}」。什麼都沒有改動。",
    ),
    "settings.unknown_rule": ("That house rule does not exist (any more).", "没有这条规则。", "沒有這條規則。"),
    "lang.zh": ("简体中文", "简体中文", "简体中文"),
    "lang.zh-TW": ("繁體中文", "繁體中文", "繁體中文"),
    "lang.en": ("English", "English", "English"),
    # /rules
    "rules.title": ("{variant} mahjong", "{variant}麻将", "{variant}麻將"),
    "rules.house": ("House rules on this server", "本服务器的规则设置", "本伺服器的規則設定"),
    "rules.house_none": ("This variant has no house rules to set.", "这个玩法没有可调的规则。", "這個玩法沒有可調的規則。"),
    "rules.default_mark": ("default", "默认", "預設"),
    "rules.footer": (
        "Score a hand with /score. Every scoring item and ruling is written out in the project's {doc}.",
        "用 /算分 计算一手牌。每一项计分和规则判定都写在项目的 {doc} 里。",
        "用 /算分 計算一手牌。每一項計分和規則判定都寫在專案的 {doc} 裡。",
    ),
    # --- validation of settings and /score options (forged or mistyped values); kept together for easy merges
    "settings.bad_choice": (
        "{field} cannot be “{value}”: choose one of {allowed}. Nothing was changed.",
        "{field}不能是“{value}”，只能选 {allowed}。什么都没有改动。",
        "{field}不能是「{value}」，只能選 {allowed}。什麼都沒有改動。",
    ),
    "score.bad_option": (
        "The option {option} cannot be “{value}”: choose one of {allowed}.",
        "选项「{option}」不能是“{value}”，只能选 {allowed}。",
        "選項「{option}」不能是「{value}」，只能選 {allowed}。",
    ),
    "score.bad_streak": (
        "The dealer streak (庄数) must be a whole number from {low} to {high}, not {value}.",
        "庄数必须是 {low} 到 {high} 之间的整数，而不是 {value}。",
        "莊數必須是 {low} 到 {high} 之間的整數，而不是 {value}。",
    ),
    "score.bad_hand_length": (
        "A hand is written in at most {high} characters (this one has {length}).",
        "手牌最多写 {high} 个字符（这里有 {length} 个）。",
        "手牌最多寫 {high} 個字元（這裡有 {length} 個）。",
    ),
    "score.full_in_file": (
        "… the full breakdown is in the attached {file}.",
        "……完整明细见附件 {file}。",
        "……完整明細見附件 {file}。",
    ),
}


def normalise(lang: str | None) -> str:
    """``zh``, ``zh-TW`` or ``en`` for any language code we may meet (unknown codes: English)."""
    return lang_of_locale(lang) or "en"


def lang_of_locale(locale: discord.Locale | str | None) -> str | None:
    """The language we speak for a Discord locale, or None when we do not speak it."""
    if locale is None:
        return None
    text = str(locale.value if isinstance(locale, discord.Locale) else locale).lower().replace("_", "-")
    if text in ("zh-tw", "zh-hk", "zh-hant", "zh-mo"):
        return "zh-TW"
    if text.startswith("zh"):
        return "zh"
    if text.startswith("en"):
        return "en"
    return None


def lang_for(interaction: discord.Interaction | None, server_lang: str | None = None) -> str:
    """The language of a reply: the player's Discord locale when we speak it, else the server's choice, else
    the server's Discord locale when we speak it, else English."""
    if interaction is not None:
        lang = lang_of_locale(getattr(interaction, "locale", None))
        if lang:
            return lang
    if server_lang:
        lang = lang_of_locale(server_lang)
        if lang:
            return lang
    if interaction is not None and getattr(interaction, "guild_locale", None) is not None:
        lang = lang_of_locale(interaction.guild_locale)
        if lang:
            return lang
    return "en"


def _pick(entry: tuple[str, str, str], lang: str) -> str:
    en, zh, hant = entry
    return {"en": en, "zh": zh, "zh-TW": hant}[normalise(lang)]


def t(key: str, lang: str | None, /, **params: Any) -> str:
    """The message ``key`` in ``lang`` with ``params`` filled in. A missing key is a bug: it shows the key."""
    entry = MESSAGES.get(key) or COMMANDS.get(key)
    if entry is None:
        log.error("missing message key %s", key)
        return key
    text = _pick(entry, lang or "en")
    return text.format(**params) if params else text


def variant_name(key: str, lang: str | None) -> str:
    return t(f"variant.{key}", lang)


def seat_name(seat: int, lang: str | None) -> str:
    return t(f"common.seat.{'ESWN'[seat]}", lang)


def hant(text: str) -> str:
    """Traditional Chinese for engine texts (item names, house rules)."""
    from engine.errors import to_hant

    return to_hant(text)


def item_name(zh: str, en: str, lang: str | None) -> str:
    """An engine item's name (``Item.zh`` / ``Item.en``) in ``lang``."""
    lang = normalise(lang)
    return en if lang == "en" else (zh if lang == "zh" else hant(zh))


def rule_value(value: Any, lang: str | None) -> str:
    """A house rule's value for a player: on/off words for switches, the value itself otherwise."""
    if isinstance(value, bool):
        return t("common.on" if value else "common.off", lang)
    return str(value)


def locale_str(key: str) -> app_commands.locale_str:
    """A command string: the English default with ``key`` for the translator."""
    return app_commands.locale_str(COMMANDS[key][0], key=key)


_DISCORD_LANG: Mapping[discord.Locale, str] = {
    discord.Locale.chinese: "zh",
    discord.Locale.taiwan_chinese: "zh-TW",
    discord.Locale.american_english: "en",
    discord.Locale.british_english: "en",
}


class Translator(app_commands.Translator):
    """Command, option and choice names and descriptions for Discord's zh-CN, zh-TW and en locales."""

    async def translate(
        self, string: app_commands.locale_str, locale: discord.Locale, context: app_commands.TranslationContextTypes
    ) -> str | None:
        lang = _DISCORD_LANG.get(locale)
        key = string.extras.get("key")
        if lang is None or key is None:
            return None
        entry = COMMANDS.get(key)
        if entry is None:
            log.error("missing command string %s", key)
            return None
        return _pick(entry, lang)


# ---------------------------------------------------------------------------------------------------------------
# Running a group (issue 15): time zone, weekly report, seasons, corrections, export, head to head, /help and the
# first-time walk-through. (English, Simplified Chinese[, Traditional Chinese]); Traditional is converted from the
# Simplified text (OpenCC s2tw) unless given.

_GROUP_COMMANDS: dict[str, tuple[str, ...]] = {
    # /settings options
    "settings.timezone.name": ("timezone", "时区"),
    "settings.timezone.desc": ("Time zone for periods, seasons and dates (IANA name, e.g. Asia/Shanghai)",
                               "排行榜时段、赛季和日期用的时区（IANA 名称，例如 Asia/Shanghai）"),
    "settings.report_channel.name": ("report_channel", "战报频道"),
    "settings.report_channel.desc": ("Channel for the weekly report (战报)", "每周战报发到哪个频道"),
    "settings.report_day.name": ("report_day", "战报日"),
    "settings.report_day.desc": ("Weekday of the weekly report, or off", "每周哪一天发战报，或关闭"),
    "choice.weekday.0": ("Monday", "周一", "週一"),
    "choice.weekday.1": ("Tuesday", "周二", "週二"),
    "choice.weekday.2": ("Wednesday", "周三", "週三"),
    "choice.weekday.3": ("Thursday", "周四", "週四"),
    "choice.weekday.4": ("Friday", "周五", "週五"),
    "choice.weekday.5": ("Saturday", "周六", "週六"),
    "choice.weekday.6": ("Sunday", "周日", "週日"),
    "choice.weekday.off": ("off (no weekly report)", "关闭（不发战报）", "關閉（不發戰報）"),
    # /season
    "season.name": ("season", "赛季"),
    "season.desc": ("Seasons of this server's leaderboard (Manage Server)", "本服务器排行榜的赛季（需管理服务器权限）"),
    "season.start.name": ("start", "开始"),
    "season.start.desc": ("Start a new season now (the current one ends and its final board is posted)",
                          "现在开始新赛季（当前赛季结束并公布最终排名）"),
    "season.list.name": ("list", "列表"),
    "season.list.desc": ("This server's seasons", "本服务器的所有赛季"),
    "season.title.name": ("title", "名称"),
    "season.title.desc": ("The season's name, e.g. Spring 2027", "赛季名称，例如 2027 春季赛"),
    "season.ends.name": ("ends", "结束日期"),
    "season.ends.desc": ("Last day of the season, YYYY-MM-DD (optional)", "赛季最后一天，格式 YYYY-MM-DD（可不填）"),
    # /correct
    "correct.name": ("correct", "更正"),
    "correct.desc": ("Correct the ledger: void a hand or adjust between members (Manage Server)",
                     "更正账目：作废一局或在成员之间调整（需管理服务器权限）"),
    "correct.void.name": ("void", "作废"),
    "correct.void.desc": ("Void a settled hand: it counts for nothing (the record stays)",
                          "作废一局已结算的牌：不再计分（记录保留）"),
    "correct.adjust.name": ("adjust", "调整"),
    "correct.adjust.desc": ("Move 子 from one member to another, with a reason", "把一些子从一位成员转给另一位，并写明原因"),
    "correct.hand.name": ("hand", "牌局"),
    "correct.hand.desc": ("The hand (pick from the latest, or type its number)", "哪一局（从最近的里选，或输入编号）"),
    "correct.reason.name": ("reason", "原因"),
    "correct.reason.desc": ("Why (kept with the correction)", "原因（与更正一起保存）"),
    "correct.payer.name": ("payer", "付出方"),
    "correct.payer.desc": ("The member who gives the 子", "付出子的成员"),
    "correct.payee.name": ("payee", "收入方"),
    "correct.payee.desc": ("The member who receives the 子", "收到子的成员"),
    "correct.amount.name": ("amount", "数额"),
    "correct.amount.desc": ("How many 子 (a positive whole number)", "多少子（正整数）"),
    "correct.variant.name": ("variant", "玩法"),
    "correct.variant.desc": ("Whose leaderboard (default: this server's variant)", "记在哪个玩法的排行榜（默认：本服务器的玩法）"),
    # /export
    "export.name": ("export", "导出"),
    "export.desc": ("The ledger of this server as a CSV file (Manage Server)", "把本服务器的账目导出为 CSV 文件（需管理服务器权限）"),
    "export.season.name": ("season", "赛季"),
    "export.season.desc": ("One season, or all time (default)", "某一个赛季，或全部时间（默认）"),
    # /leaderboard, /stats
    "leaderboard.season.name": ("season", "赛季"),
    "leaderboard.season.desc": ("Season or all time (default: the current season)", "赛季或全部时间（默认：当前赛季）"),
    "stats.season.name": ("season", "赛季"),
    "stats.season.desc": ("Season or all time (default: the current season)", "赛季或全部时间（默认：当前赛季）"),
    "stats.other.name": ("other_player", "对手"),
    "stats.other.desc": ("Head to head: the hands of both players together", "交手记录：两位玩家同桌的牌局"),
    # /help
    "help.name": ("help", "帮助"),
    "help.desc": ("What this bot does and how to use it", "这个机器人能做什么、怎么用"),
}

_GROUP_MESSAGES: dict[str, tuple[str, ...]] = {
    # time zone and weekly report (/settings)
    "settings.field.timezone": ("Time zone", "时区"),
    "settings.field.weekly_report": ("Weekly report", "每周战报"),
    "settings.field.season": ("Season", "赛季"),
    "settings.field.void": ("Voided hand", "作废牌局"),
    "settings.field.adjust": ("Adjustment", "调整"),
    "settings.field.export": ("Ledger export", "导出账目"),
    "group.settings_line": ("Time zone: **{tz}** · Weekly report: {report}", "时区：**{tz}** · 每周战报：{report}"),
    "group.report_on": ("{day} in <#{channel}>", "每{day}发到 <#{channel}>"),
    "group.report_off": ("off", "关闭", "關閉"),
    "group.report_needs_channel": ("Pick a channel for the weekly report (report_channel) as well as the day.",
                                   "请同时选择战报频道（战报频道）和日子。"),
    "group.report_cannot_post": ("I cannot post in <#{channel}> (I need to see it and send messages and files "
                                 "there); nothing was changed.",
                                 "我不能在 <#{channel}> 发消息（需要能看到频道、发消息和发文件），什么都没有改动。"),
    "group.tz_unknown": ("{name!r} is not a time zone I know: use an IANA name such as Asia/Shanghai or "
                         "Europe/London (pick one from the list). Nothing was changed.",
                         "“{name}”不是认识的时区：请用 IANA 名称，例如 Asia/Shanghai 或 Europe/London（从列表里选）。"
                         "什么都没有改动。"),
    # seasons
    "board.tz.china": ("UTC+8", "北京时间", "北京時間"),
    "season.label": ("Season {number} · {name} ({span})", "第 {number} 赛季 · {name}（{span}）"),
    "season.span": ("{start} – {end}", "{start} – {end}"),
    "season.span.open": ("from {start}", "{start}起"),
    "season.all_time": ("All time", "全部时间"),
    "season.unknown": ("There is no season {season!r} on this server: pick one from the list.",
                       "本服务器没有“{season}”这个赛季：请从列表里选。"),
    "season.bad_date": ("{value!r} is not a date: write it as YYYY-MM-DD, e.g. 2027-03-31.",
                        "“{value}”不是日期：请写成 YYYY-MM-DD，例如 2027-03-31。"),
    "season.started": ("**{label}** has started. /leaderboard and /stats now show it by default.",
                       "**{label}** 开始了。/leaderboard 和 /stats 现在默认显示这个赛季。"),
    "season.started_ends": ("It ends after {end}.", "到 {end} 结束。"),
    "season.final_title": ("🏁 Final board of {label}", "🏁 {label} 最终排名"),
    "season.final_empty": ("Nobody played during this season.", "这个赛季没有人打过牌。"),
    "season.list_title": ("Seasons of this server", "本服务器的赛季"),
    "season.list_empty": ("No season yet: the leaderboard covers all time. Start one with /season start.",
                          "还没有赛季：排行榜按全部时间计算。用 /season start 开始一个赛季。"),
    "season.current_mark": ("current", "进行中", "進行中"),
    # corrections
    "correct.voided": ("Hand #{hand} ({variant}, {when}) is void: it counts for nothing now. Reason: {reason}",
                       "第 {hand} 号牌局（{variant}，{when}）已作废，不再计分。原因：{reason}"),
    "correct.void_rows": ("Reversed: {rows}", "冲回：{rows}"),
    "correct.adjusted": ("Adjustment: **{amount} 子** from {payer} to {payee} ({variant}). Reason: {reason}",
                         "调整：{payer} 给 {payee} **{amount} 子**（{variant}）。原因：{reason}"),
    "correct.bot_member": ("{name} is a bot: adjustments are between members who play.",
                           "{name}是机器人：调整只能在打牌的成员之间进行。"),
    "correct.bad_hand_value": ("{value!r} is not a hand number: pick a hand from the list.",
                               "“{value}”不是牌局编号：请从列表里选一局。"),
    "correct.hand_choice": ("#{hand} · {when} · {variant} · {who}", "#{hand} · {when} · {variant} · {who}"),
    "correct.hand_draw": ("draw", "流局"),
    "correct.hand_void": ("void", "已作废", "已作廢"),
    # export
    "export.done": ("The ledger of {scope}: {rows} rows (hands, voids and adjustments). Opens in Excel.",
                    "{scope}的账目：{rows} 行（牌局、作废和调整）。可以用 Excel 打开。"),
    "export.empty": ("The ledger of {scope} is empty: nothing to export.", "{scope}的账目是空的，没有可导出的内容。"),
    "export.scope_all": ("this server (all time)", "本服务器（全部时间）"),
    # head to head
    "h2h.same": ("Pick two different players for a head to head.", "交手记录要选两位不同的玩家。"),
    "h2h.title": ("**{a}** vs **{b}** · {scope}", "**{a}** 对 **{b}** · {scope}"),
    "h2h.hands": ("Hands together {hands} · {a} won {a_wins} · {b} won {b_wins}",
                  "同桌 {hands} 局 · {a}和了 {a_wins} 次 · {b}和了 {b_wins} 次"),
    "h2h.net": ("Net in those hands: {a} {a_net} 子 · {b} {b_net} 子", "这些局的输赢：{a} {a_net} 子 · {b} {b_net} 子"),
    "h2h.flow": ("Between them: {a} → {b} {a_to_b} 子 · {b} → {a} {b_to_a} 子 · net for {a} {net} 子",
                 "两人之间：{a} → {b} {a_to_b} 子 · {b} → {a} {b_to_a} 子 · {a}净得 {net} 子"),
    "h2h.definition": ("Each loser pays each winner in proportion to that winner's share of the gains "
                       "(exact when a hand has one winner); voided hands left out, adjustments between them counted.",
                       "每个输家按各赢家所得的比例付给赢家（一局只有一个赢家时就是实际付的数）；作废的牌局不算，"
                       "两人之间的调整计入。"),
    "h2h.none": ("{a} and {b} have not played together on this server ({scope}).",
                 "{a}和{b}在本服务器还没有同桌打过牌（{scope}）。"),
    # weekly report
    "report.title": ("Weekly report (战报)", "本周战报"),
    "report.week": ("{start} – {end}", "{start} – {end}"),
    "report.top": ("Top players", "本周排名"),
    "report.biggest": ("Biggest hand", "最大一手"),
    "report.most_jiao": ("Most 交", "交最多"),
    "report.most_value": ("Most 番 / 子 won", "和牌番数/子最多"),
    "report.hands": ("{n} hands", "共 {n} 局"),
    "report.wins_hands": ("wins / hands", "和 / 局"),
    "report.none": ("No hands were played this week.", "这一周没有人打牌。"),
    "report.text": ("📰 **Weekly report** · {week} · {hands}", "📰 **本周战报** · {week} · {hands}"),
    # /help
    "help.page.about": ("What it does", "简介", "簡介"),
    "help.page.table": ("Start a table", "开桌", "開桌"),
    "help.page.images": ("Reading the images", "看懂图片", "看懂圖片"),
    "help.page.notation": ("Hand notation", "手牌写法", "手牌寫法"),
    "help.page.server": ("House rules & running a group", "规则设置与群管理", "規則設定與群管理"),
    "help.select": ("Pick a page", "选择一页", "選擇一頁"),
    "help.footer": ("Page {n} of {total}", "第 {n} 页，共 {total} 页", "第 {n} 頁，共 {total} 頁"),
    "help.about": (
        "**mjbot** plays the mahjong of Anhui province with you on Discord: three local rule sets, **Wuhu** (芜湖, "
        "波克 315/525 scoring), **Hefei** (合肥) and **Chizhou** (池州).\n"
        "• Open a table in a channel, fill empty seats with AI players, and play hand after hand.\n"
        "• Your tiles come to you privately (a direct message) as an image with buttons.\n"
        "• Every hand is settled in 子; the bot keeps totals, leaderboards (/leaderboard) and records (/stats).\n"
        "• /score scores a hand you type; /rules explains a variant and this server's house rules.",
        "**mjbot** 在 Discord 上陪你打安徽麻将：三种地方玩法——**芜湖**（波克 315/525 计分）、**合肥**、**池州**。\n"
        "• 在频道里开桌，空位可以加电脑，一局接一局地打。\n"
        "• 你的手牌会私信发给你：一张牌图加按钮。\n"
        "• 每局按子结算；机器人记总账、排行榜（/leaderboard）和战绩（/stats）。\n"
        "• /score 给你输入的手牌算分；/rules 讲解玩法和本服务器的规则设置。",
    ),
    "help.table": (
        "**Starting a table**\n"
        "1. In a channel where tables are allowed, type `/table new` (choose the variant, or keep the server's).\n"
        "2. Others sit down with the **Join** button or `/table join`; `/table addbot` fills a seat with an AI.\n"
        "3. With four seats filled the host presses **Start** (or `/table start`).\n"
        "4. Your hand arrives by direct message: allow DMs from server members. Press a tile to discard it; "
        "the buttons offer pung, kong, chi (Chizhou) and win when you may.\n"
        "5. A player who does not act in time is played for by the AI. `/table end` closes the table (host or "
        "Manage Server); settled hands stay settled.",
        "**怎么开桌**\n"
        "1. 在允许开桌的频道输入 `/table new`（可以选玩法，默认用本服务器的）。\n"
        "2. 其他人按 **入座** 按钮或用 `/table join` 入座；`/table addbot` 加一个电脑。\n"
        "3. 四个座位坐满后，房主按 **开始**（或 `/table start`）。\n"
        "4. 手牌会私信发给你：请允许服务器成员给你发私信。点一张牌就是打出；能碰、杠、吃（池州）或和的时候会出现按钮。\n"
        "5. 超时没操作时由电脑代打。`/table end` 结束牌桌（房主或管理员）；已结算的局保留。",
    ),
    "help.images": (
        "**Reading the images**\n"
        "• The **table** image (in the channel): the four seats with their winds (E is the dealer), each player's "
        "discards in order, their melds (pung, kong, chi) and 子 totals, the tiles left in the wall, and whose turn "
        "it is.\n"
        "• Your **hand** image (by DM): your concealed tiles sorted, the tile you just drew set apart on the right, "
        "your melds; hints mark the tiles that keep you ready (听牌) when hints are on.\n"
        "• The **score card** after a hand: the winner, each item (番 / 子) of the hand, and what every seat paid or "
        "received; in Wuhu the 底 stack and the 交 tally separately.\n"
        "• /leaderboard and /stats images: ranks by net 子, and a chart of a player's running net.",
        "**怎么看图**\n"
        "• **牌桌图**（在频道里）：四个座位和门风（东为庄）、每家按顺序打出的牌、副露（碰、杠、吃）、各家子数、牌墙剩余张数、轮到谁。\n"
        "• **手牌图**（私信）：你的手牌按顺序排好，刚摸的牌单独放在右边，下面是副露；开着提示时会标出打了仍能听牌的牌。\n"
        "• **结算图**（每局之后）：谁和了、每一项番/子、每家付了或收了多少；芜湖分开显示底和交。\n"
        "• /leaderboard 和 /stats 的图：按净输赢排名，以及一位玩家的输赢走势。",
    ),
    "help.notation": (
        "**Writing a hand (for /score)**\n"
        "• Tiles: digits then the suit: `m` characters (万), `p` dots (筒), `s` bamboo (条); honours `1z`-`7z` = "
        "East South West North White Green Red. Chinese works too: `一二三万`, `东东东`.\n"
        "• Concealed tiles first, then melds: `[555p]` pung, `[5555p]` exposed kong, `(5555p)` concealed kong, "
        "`[345s]` chi (Chizhou only); the feeding seat after a colon: `[555p:W]`.\n"
        "• The winning tile last, after `+`.\n"
        "Examples:\n"
        "`1234678922m345s+5m` - all concealed, won on 5 characters\n"
        "`222m555m888m9m[777z]+9m` - a pung of Red shown, won on 9 characters\n"
        "`123m111z77z[5555p:W](9999s)+7z` - an exposed kong from West and a concealed kong",
        "**手牌写法（/score 用）**\n"
        "• 牌：数字加花色字母：`m` 万、`p` 筒、`s` 条；字牌 `1z`-`7z` = 东 南 西 北 白 发 中。也可以写中文：`一二三万`、`东东东`。\n"
        "• 先写手里的牌，再写副露：`[555p]` 碰，`[5555p]` 明杠，`(5555p)` 暗杠，`[345s]` 吃（仅池州）；冒号后写是谁打的：`[555p:W]`。\n"
        "• 和的那张写在最后，放在 `+` 后面。\n"
        "例子：\n"
        "`1234678922m345s+5m` ——门清，和五万\n"
        "`222m555m888m9m[777z]+9m` ——碰了红中，和九万\n"
        "`123m111z77z[5555p:W](9999s)+7z` ——西家打的明杠加一个暗杠",
    ),
    "help.server": (
        "**House rules and running a group** (Manage Server)\n"
        "• `/settings`: the default variant, Wuhu 315/525, each variant's house rules, timers, language, the "
        "channels for tables, the time zone (`timezone`) and the weekly report (`report_channel`, `report_day`).\n"
        "• `/rules` shows the house rules in force to everyone.\n"
        "• `/season start` begins a new season: /leaderboard and /stats show it by default; earlier seasons and all "
        "time stay one option away. The final board is posted when a season ends.\n"
        "• `/correct void` voids a hand, `/correct adjust` moves 子 between members; both keep their reason and "
        "never erase anything.\n"
        "• `/export` sends the ledger as a CSV file that opens in Excel.",
        "**规则设置与群管理**（需管理服务器权限）\n"
        "• `/settings`：默认玩法、芜湖 315/525、各玩法的规则、计时、语言、可开桌的频道、时区（时区）和每周战报（战报频道、战报日）。\n"
        "• `/rules` 让所有人看到现行规则。\n"
        "• `/season start` 开始新赛季：/leaderboard 和 /stats 默认显示当前赛季，也可以选以前的赛季或全部时间。赛季结束时公布最终排名。\n"
        "• `/correct void` 作废一局，`/correct adjust` 在成员之间调整子；都会保存原因，不删除任何记录。\n"
        "• `/export` 导出账目 CSV 文件，可以用 Excel 打开。",
    ),
    "welcome.title": ("Thanks for inviting mjbot! 🀄", "感谢邀请 mjbot！🀄"),
    "welcome.body": (
        "First time here? Three steps:\n"
        "1. Someone with Manage Server runs `/settings` to choose the variant (Wuhu, Hefei or Chizhou), the house "
        "rules and the channels where tables may open.\n"
        "2. Anyone types `/table new` in such a channel; others join, empty seats take AI players, the host starts.\n"
        "3. Tiles arrive by direct message: allow DMs from server members.\n"
        "`/help` explains everything else (the images, how to write a hand for `/score`, seasons and corrections).",
        "第一次用？三步就好：\n"
        "1. 有“管理服务器”权限的人用 `/settings` 选择玩法（芜湖、合肥或池州）、规则，以及可以开桌的频道。\n"
        "2. 任何人在这些频道输入 `/table new` 开桌；其他人入座，空位加电脑，房主开始。\n"
        "3. 手牌通过私信发送：请允许服务器成员给你发私信。\n"
        "其他的都在 `/help` 里（怎么看图、/score 的手牌写法、赛季和更正）。",
    ),
}


#: Taiwan words where the character conversion keeps the mainland word (as the hand-written entries above say).
_TW_WORDS = (("服務器", "伺服器"), ("默認", "預設"), ("設置", "設定"), ("私信", "私訊"), ("文件", "檔案"),
             ("點炮", "放槍"), ("數據庫", "資料庫"), ("賬目", "帳目"), ("導出", "匯出"), ("頻道里", "頻道裡"),
             ("發消息", "發訊息"), ("“", "「"), ("”", "」"))


def _tw(text: str) -> str:
    out = hant(text)
    for cn, tw in _TW_WORDS:
        out = out.replace(cn, tw)
    return out


def _with_hant(entries: Mapping[str, tuple[str, ...]]) -> dict[str, tuple[str, str, str]]:
    return {k: (v[0], v[1], v[2] if len(v) > 2 else _tw(v[1])) for k, v in entries.items()}


COMMANDS.update(_with_hant(_GROUP_COMMANDS))
MESSAGES.update(_with_hant(_GROUP_MESSAGES))


# ---------------------------------------------------------------------------------------------------------------
# The group's memory (issue 14): /history and /replay. One block: (English, Simplified, Traditional).

_MEMORY_COMMANDS: dict[str, tuple[str, str, str]] = {
    "history.name": ("history", "战绩", "戰績"),
    "history.desc": ("A member's recent hands on this server, with their replays",
                     "成员在本服务器最近的牌局，可以回放", "成員在本伺服器最近的牌局，可以回放"),
    "history.player.name": ("player", "玩家", "玩家"),
    "history.player.desc": ("Whose hands (default: yours)", "谁的牌局（默认：你自己）", "誰的牌局（預設：你自己）"),
    "replay.name": ("replay", "回放", "回放"),
    "replay.desc": ("Step through a finished hand by its replay code", "用回放码一步步回看打完的一局",
                    "用回放碼一步步回看打完的一局"),
    "replay.code.name": ("code", "回放码", "回放碼"),
    "replay.code.desc": ("The hand's replay code (from /history or the table)", "这一局的回放码（见 /history 或牌桌）",
                         "這一局的回放碼（見 /history 或牌桌）"),
    "settings.replays_show_all_hands.name": ("replays_show_all_hands", "回放显示全部手牌", "回放顯示全部手牌"),
    "settings.replays_show_all_hands.desc": ("Once a hand is over, replays show every player's tiles (default: on)",
                                             "牌局结束后，回放显示所有人的手牌（默认：开）",
                                             "牌局結束後，回放顯示所有人的手牌（預設：開）"),
}

_MEMORY_MESSAGES: dict[str, tuple[str, str, str]] = {
    "memory.history_title": ("**{name}** · {total} hands on this server", "**{name}** · 本服务器共 {total} 局",
                             "**{name}** · 本伺服器共 {total} 局"),
    "memory.history_empty": ("No settled hands yet.", "还没有结算过的牌局。", "還沒有結算過的牌局。"),
    "memory.history_line": ("{when} · {variant} · {result} · **{amount}** 子 · `{code}`",
                            "{when} · {variant} · {result} · **{amount}** 子 · `{code}`",
                            "{when} · {variant} · {result} · **{amount}** 子 · `{code}`"),
    "memory.page": ("Page {n} of {total}", "第 {n} 页，共 {total} 页", "第 {n} 頁，共 {total} 頁"),
    "memory.pick_hand": ("Open a hand's replay", "选一局回放", "選一局回放"),
    "memory.result_won": ("won", "和牌", "和牌"),
    "memory.result_self": ("won (self-drawn)", "自摸", "自摸"),
    "memory.result_dealt_in": ("dealt in", "点炮", "放槍"),
    "memory.result_draw": ("draw", "流局", "流局"),
    "memory.result_paid": ("paid", "输", "輸"),
    "memory.result_other": ("—", "—", "—"),
    "memory.bot_member": ("{name} is a bot: bots have no history.", "{name} 是机器人：机器人没有战绩。",
                          "{name} 是機器人：機器人沒有戰績。"),
    "memory.other_server": ("That belongs to another server: nothing was shown.", "这属于别的服务器：不能在这里查看。",
                            "這屬於別的伺服器：不能在這裡查看。"),
    "memory.replay_unknown": ("There is no hand {code} on this server.", "本服务器没有回放码为 {code} 的牌局。",
                              "本伺服器沒有回放碼為 {code} 的牌局。"),
    "memory.replay_in_play": ("Hand {code} is still being played: it can be replayed once it is over.",
                              "{code} 这一局还在进行中：打完后才能回放。", "{code} 這一局還在進行中：打完後才能回放。"),
    "memory.replay_head": ("Replay `{code}` · {variant} hand {hand} · step {step}/{n}",
                           "回放 `{code}` · {variant} 第 {hand} 局 · 第 {step}/{n} 步",
                           "回放 `{code}` · {variant} 第 {hand} 局 · 第 {step}/{n} 步"),
    "memory.prev_decision": ("◀ my decision", "◀ 我的决策", "◀ 我的決策"),
    "memory.next_decision": ("my decision ▶", "我的决策 ▶", "我的決策 ▶"),
    "memory.review": ("AI review", "AI 复盘", "AI 復盤"),
    "memory.animation": ("Animation", "动图", "動圖"),
    "memory.animation_done": ("The whole hand `{code}`:", "整局 `{code}`：", "整局 `{code}`："),
    "memory.theme_light": ("☀ light", "☀ 浅色", "☀ 淺色"),
    "memory.theme_dark": ("🌙 dark", "🌙 深色", "🌙 深色"),
    "memory.setting_show_all": ("Replays show every hand", "回放显示全部手牌", "回放顯示全部手牌"),
    "memory.on": ("on", "开", "開"),
    "memory.off": ("off", "关", "關"),
    "memory.not_seated": ("You did not sit in this hand: there is nothing of yours to review.",
                          "你没有参加这一局：没有你的决策可以复盘。", "你沒有參加這一局：沒有你的決策可以復盤。"),
}

COMMANDS.update(_MEMORY_COMMANDS)
MESSAGES.update(_MEMORY_MESSAGES)
