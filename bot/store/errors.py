"""The store's errors: a stable code plus parameters, with a message in English and Chinese."""

from __future__ import annotations

from typing import Any

from engine.errors import normalise_lang, to_hant

MESSAGES: dict[str, tuple[str, str]] = {
    "bad_migration_name": ("Migration file {name} is not named NNNN_name.sql.", "迁移文件 {name} 的名字不是 NNNN_name.sql。"),
    "migration_gap": ("Migration {name} is out of order (expected number {expected}).", "迁移 {name} 编号不连续（应为 {expected}）。"),
    "schema_too_new": (
        "The database {path} is at schema version {found}, newer than this program knows ({known}). Update the bot.",
        "数据库 {path} 的版本 {found} 比本程序认识的版本 {known} 新，请更新机器人。",
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
    "bad_setting_value": ("Setting {field} cannot be {value} (allowed: {allowed}). Nothing was changed.",
                          "设置 {field} 不能是 {value}（允许：{allowed}）。什么都没有改动。"),
    # the database at start-up (Store.open): one line naming the file and what is wrong with it
    "db_is_directory": ("The database path {path} is a folder, not a file. Set MJBOT_DB to a file path.",
                        "数据库路径 {path} 是一个文件夹，不是文件。请把 MJBOT_DB 设为一个文件路径。"),
    "db_no_folder": ("Cannot create the folder of the database {path}: {error}.",
                     "无法创建数据库 {path} 所在的文件夹：{error}。"),
    "db_not_database": ("{path} is not an SQLite database (damaged, or another kind of file). Restore it from a "
                        "backup or point MJBOT_DB elsewhere.",
                        "{path} 不是 SQLite 数据库（已损坏或是别的文件）。请从备份恢复，或把 MJBOT_DB 指向别处。"),
    "db_corrupt": ("The database {path} is damaged ({error}). Restore it from a backup.",
                   "数据库 {path} 已损坏（{error}）。请从备份恢复。"),
    "db_read_only": ("The database {path} is read-only: the bot must be able to write it (check the file's "
                     "permissions and its disk).",
                     "数据库 {path} 是只读的：机器人必须能写入它（请检查文件权限和磁盘）。"),
    "db_folder_read_only": ("The folder of the database {path} is read-only: the bot must be able to create files "
                            "next to it (the write-ahead log).",
                            "数据库 {path} 所在的文件夹是只读的：机器人必须能在旁边创建文件（预写日志）。"),
    "db_locked": ("The database {path} is locked by another process (another bot running on it?); waited "
                  "{seconds} s.",
                  "数据库 {path} 被另一个进程锁住（是否有另一个机器人在用它？）；已等待 {seconds} 秒。"),
    "db_cannot_open": ("Cannot open the database {path}: {error}.", "无法打开数据库 {path}：{error}。"),
}


class _Params(dict[str, Any]):
    """Message parameters; one that was not given reads as "?" (e.g. the path, when a caller does not know it)."""

    def __missing__(self, key: str) -> str:
        return "?"


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
            text = template.format_map(_Params(self.params))
        except (KeyError, IndexError, ValueError):
            text = template
        return to_hant(text) if lang == "zh-TW" else text
