"""The store's errors: a stable code plus parameters, with a message in English and Chinese."""

from __future__ import annotations

from typing import Any

from engine.errors import normalise_lang, to_hant

MESSAGES: dict[str, tuple[str, str]] = {
    "bad_migration_name": ("Migration file {name} is not named NNNN_name.sql.", "迁移文件 {name} 的名字不是 NNNN_name.sql。"),
    "migration_gap": ("Migration {name} is out of order (expected number {expected}).", "迁移 {name} 编号不连续（应为 {expected}）。"),
    "schema_too_new": (
        "The database is at schema version {found}, newer than this program knows ({known}). Update the bot.",
        "数据库版本 {found} 比本程序认识的版本 {known} 新，请更新机器人。",
    ),
    "migration_failed": ("Migration {name} failed and was rolled back: {error}", "迁移 {name} 失败，已回滚：{error}"),
    "closed": ("The store is closed.", "数据库已关闭。"),
    "no_match": ("There is no match {match_id}.", "没有编号为 {match_id} 的对局。"),
    "no_hand": ("There is no hand {hand_id}.", "没有编号为 {hand_id} 的牌局。"),
    "match_not_active": ("Match {match_id} is already {status}.", "对局 {match_id} 已经{status}。"),
    "hand_not_active": ("Hand {hand_id} is already {status}.", "这一局（{hand_id}）已经{status}。"),
    "hand_exists": ("Match {match_id} already has a hand {number} with another seed.",
                    "对局 {match_id} 已有第 {number} 局，种子不同。"),
    "hand_still_active": ("Match {match_id} still has hand {number} in play.", "对局 {match_id} 的第 {number} 局还没打完。"),
    "hand_not_in_match": ("Hand {hand_id} does not belong to match {match_id}.", "牌局 {hand_id} 不属于对局 {match_id}。"),
    "bad_seats": ("A match needs seats 0-3, each a player or an AI: {detail}", "对局需要 0-3 号四个座位，每个是玩家或电脑：{detail}"),
    "seq_gap": ("Action {seq} of match {match_id} is out of order: the next is {expected}.",
                "对局 {match_id} 的动作 {seq} 顺序不对：下一个应为 {expected}。"),
    "seq_conflict": ("Action {seq} of match {match_id} was already recorded differently.",
                     "对局 {match_id} 的动作 {seq} 已经记录为别的内容。"),
    "ledger_seats": ("A hand's ledger needs exactly one row per seat (got seats {seats}).",
                     "每局账目每个座位恰好一行（收到座位 {seats}）。"),
    "not_zero_sum": ("The hand's {column} values do not sum to zero ({values}).", "这一局的 {column} 合计不为零（{values}）。"),
    "wuhu_split": ("Seat {seat}: amount {amount} is not stack {stack} + 交 {jiao}.",
                   "座位 {seat}：输赢 {amount} 不等于 底 {stack} + 交 {jiao}。"),
    "ledger_conflict": ("Hand {hand_id} was already settled differently.", "牌局 {hand_id} 已经按别的结果结算过。"),
    "bad_setting": ("Unknown setting {field}.", "没有 {field} 这个设置。"),
    "bad_setting_value": ("Setting {field} cannot be {value!r}.", "设置 {field} 不能是 {value!r}。"),
}


class StoreError(Exception):
    """A refused store operation. Nothing was written when this is raised."""

    def __init__(self, code: str, **params: Any) -> None:
        self.code = code
        self.params = params
        super().__init__(self.message("en"))

    def message(self, lang: str | None = "en") -> str:
        """The message in ``en``, ``zh`` or ``zh-TW`` (any Discord locale is accepted)."""
        lang = normalise_lang(lang)
        en, zh = MESSAGES.get(self.code, (self.code, self.code))
        template = en if lang == "en" else zh
        try:
            text = template.format(**self.params)
        except (KeyError, IndexError, ValueError):
            text = template
        return to_hant(text) if lang == "zh-TW" else text
