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
