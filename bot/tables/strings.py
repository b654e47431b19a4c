"""The strings of the table lifecycle (English and Simplified Chinese; Traditional is derived), registered into
:data:`bot.i18n.MESSAGES`, and the tile and wind labels the messages use."""

from __future__ import annotations

from bot.i18n import MESSAGES, hant, t
from engine.tiles import tile_name, tile_zh

# key -> (English, Simplified Chinese); Traditional Chinese is derived. Registered into bot.i18n.MESSAGES.
_TEXT: dict[str, tuple[str, str]] = {
    "tables.lobby_title": ("{variant} table: waiting for players", "{variant}牌桌：等人入座"),
    "tables.lobby_rules": ("Rules: {rules}", "规则：{rules}"),
    "tables.lobby_host": ("Host: {host}. Join with the buttons or /table join; the host starts.",
                          "房主：{host}。用按钮或 /table join 入座，房主开始。"),
    "tables.seat_empty": ("(empty)", "（空）"),
    "tables.ai_name": ("AI {n}", "电脑{n}"),
    "tables.btn_join": ("Join", "入座"),
    "tables.btn_leave": ("Leave", "离座"),
    "tables.btn_addbot": ("Add AI", "加电脑"),
    "tables.btn_start": ("Start", "开始"),
    "tables.btn_my_hand": ("My hand", "我的牌"),
    "tables.btn_back": ("I'm back", "我回来了"),
    "tables.btn_next": ("Next hand", "下一局"),
    "tables.btn_pass": ("Pass", "过"),
    "tables.btn_win": ("Win 胡", "胡"),
    "tables.btn_pung": ("Pung 碰 {tile}", "碰 {tile}"),
    "tables.btn_kong": ("Kong 杠 {tile}", "杠 {tile}"),
    "tables.btn_chi": ("Chi 吃 {tiles}", "吃 {tiles}"),
    "tables.btn_lay": ("Lay aside", "弃牌（不和）"),
    "tables.busy_channel": ("There is already a table in this channel: use /table show.",
                            "这个频道已经有一桌了：用 /table show 查看。"),
    "tables.no_table": ("There is no table in this channel. Open one with /table new.",
                        "这个频道没有牌桌。用 /table new 开一桌。"),
    "tables.seated_elsewhere": ("You already sit at a table (in <#{channel}>). Leave it first.",
                                "你已经在一桌了（<#{channel}>）。请先离座。"),
    "tables.already_seated": ("You already sit at this table.", "你已经在这一桌了。"),
    "tables.full": ("The table is full.", "这一桌已经满了。"),
    "tables.not_seated": ("You do not sit at this table.", "你不在这一桌。"),
    "tables.not_lobby": ("The game has started; seats can no longer change.", "牌局已经开始，座位不能再变了。"),
    "tables.host_only": ("Only the host ({host}) or a server manager can do that.",
                         "只有房主（{host}）或服务器管理员可以这样做。"),
    "tables.need_four": ("Four seats are needed to start: add AI players to fill the empty ones.",
                         "需要四个人才能开始：可以加电脑补满空位。"),
    "tables.need_human": ("At least one player must sit at the table.", "至少要有一个真人入座。"),
    "tables.lobby_gone": ("This lobby is closed. Open a new table with /table new.",
                          "这个房间已经关闭。用 /table new 重新开一桌。"),
    "tables.table_gone": ("That table is over.", "那一桌已经结束了。"),
    "tables.stale": ("That button is out of date; nothing was changed. Use your latest hand message.",
                     "这个按钮已经过期，什么都没有改动。请用最新的手牌消息。"),
    "tables.not_your_seat": ("Those controls belong to another player.", "这不是你的操作按钮。"),
    "tables.not_now": ("You cannot do that now; nothing was changed.", "现在不能这样做，什么都没有改动。"),
    "tables.done": ("Done: {what}.", "已操作：{what}。"),
    "tables.joined": ("{name} sits down.", "{name} 入座。"),
    "tables.left": ("{name} leaves.", "{name} 离座。"),
    "tables.started": ("The game starts! Hands come by DM; the table is below.", "开始！手牌会私信发给各位，牌桌在下面。"),
    "tables.ended_by": ("The table was closed by {name}.", "{name} 结束了这一桌。"),
    "tables.not_started_end": ("The lobby was closed.", "房间已关闭。"),
    "tables.turn": ("Turn: {name} ({wind})", "轮到：{name}（{wind}）"),
    "tables.claims": ("Waiting for claims on {tile} ({n} s)", "等待吃碰杠胡：{tile}（{n} 秒）"),
    "tables.rob": ("{name} adds a kong: waiting for 抢杠", "{name} 加杠：等待抢杠"),
    "tables.header": ("{variant} · hand {hand} · wall {wall}", "{variant} · 第 {hand} 局 · 牌墙余 {wall} 张"),
    "tables.hand_over": ("Hand over. Press Next hand (starts by itself in {n} s).",
                         "本局结束。按“下一局”继续（{n} 秒后自动开始）。"),
    "tables.match_over": ("The match is over.", "本场结束。"),
    "tables.afk_list": ("Played by the AI while away: {names}", "暂离、由电脑代打：{names}"),
    "tables.dm_list": ("Hand by the My hand button (DMs closed): {names}", "私信关闭、用“我的牌”按钮看牌：{names}"),
    "tables.dm_closed": ("{mention}, I cannot DM you (your DMs are closed): press **My hand** on the table to see "
                         "your tiles and play.",
                         "{mention}，无法私信你（你关闭了私信）：请按牌桌上的 **我的牌** 查看手牌并出牌。"),
    "tables.afk": ("{name} timed out twice: the AI plays for them until they press I'm back.",
                   "{name} 连续两次超时：由电脑代打，直到按下“我回来了”。"),
    "tables.back": ("{name} is back.", "{name} 回来了。"),
    "tables.not_afk": ("You are not away.", "你没有暂离。"),
    "tables.your_hand": ("Your hand · {variant} · hand {hand} · you are {wind}",
                         "你的手牌 · {variant} · 第 {hand} 局 · 你是{wind}家"),
    "tables.your_turn": ("**Your turn**: discard a tile.", "**轮到你**：请出牌。"),
    "tables.your_turn_last": ("**Your turn** (last tiles): win or lay the tile aside.",
                              "**轮到你**（最后几张）：和牌或弃掉这张。"),
    "tables.claim_offer": ("**{name} discarded {tile}**: claim it or pass.", "**{name} 打出 {tile}**：要吗？"),
    "tables.rob_offer": ("**{name} adds a kong with {tile}**: rob it?", "**{name} 用 {tile} 加杠**：抢杠吗？"),
    "tables.waiting": ("Waiting for the others.", "等待其他人。"),
    "tables.hint_title": ("Hint: discards that keep you ready", "提示：打这些牌可以听牌"),
    "tables.hint_line": ("{tile} → waits {waits}", "打 {tile} → 听 {waits}"),
    "tables.hint_left": ("{tile}×{n}", "{tile}×{n}"),
    "tables.hint_ready": ("Ready: waiting on {waits}", "听牌：{waits}"),
    "tables.ann_pung": ("{name} 碰 {tile}", "{name} 碰 {tile}"),
    "tables.ann_kong": ("{name} 杠 {tile}", "{name} 杠 {tile}"),
    "tables.ann_ckong": ("{name} 暗杠", "{name} 暗杠"),
    "tables.ann_chi": ("{name} 吃 {tiles}", "{name} 吃 {tiles}"),
    "tables.ann_alarm": ("{name} 报警: {alarm}", "{name} 报警：{alarm}"),
    "tables.ann_win": ("{name} wins (胡) {how}", "{name} 胡了 {how}"),
    "tables.ann_self": ("by self-draw", "（自摸）"),
    "tables.ann_from": ("on {name}'s discard", "（{name} 点炮）"),
    "tables.ann_rob": ("robbing {name}'s kong", "（抢 {name} 的杠）"),
    "tables.ann_draw": ("Hand {hand} is drawn (流局).", "第 {hand} 局流局。"),
    "tables.ann_timeout": ("{name} ran out of time: {what}.", "{name} 超时：{what}。"),
    "tables.commit": ("Hand {hand}: wall commitment `{commitment}` (sha256 of the shuffled wall and a salt, "
                      "revealed at the end).",
                      "第 {hand} 局：牌墙承诺 `{commitment}`（洗好的牌墙加盐的 sha256，本局结束时公开）。"),
    "tables.reveal": ("Hand {hand} wall reveal: salt `{salt}`, wall `{wall}` · commitment {ok}",
                      "第 {hand} 局牌墙公开：盐 `{salt}`，牌墙 `{wall}` · 承诺{ok}"),
    "tables.reveal_ok": ("verified ✓", "核对无误 ✓"),
    "tables.reveal_bad": ("DOES NOT MATCH ✗", "不符 ✗"),
    "tables.result": ("Hand {hand}: {lines}", "第 {hand} 局：{lines}"),
    "tables.summary": ("Final 子: {lines}", "最终子数：{lines}"),
    "tables.resumed": ("The bot restarted; this table continues.", "机器人重启了，牌局继续。"),
    "tables.unrestorable": ("The bot restarted but this table could not be restored; it is closed. "
                            "Hands already settled stay in the ledger.",
                            "机器人重启后无法恢复这一桌，已关闭。已经结算的局仍记在账上。"),
    "tables.ephemeral_only": ("Only you can see this.", "只有你能看到。"),
    "tables.spectator": ("You do not play at this table.", "你不在这一桌打牌。"),
    "tables.unit": ("子", "子"),
    # ---- issue 10: the lifecycle's truthful messages when Discord or the disk misbehaves
    "tables.not_recorded": ("The database did not answer, so your move was not recorded; nothing was changed. "
                            "Press it again in a moment.",
                            "数据库没有响应，你的操作没有记录，什么都没有改动。请稍后再按一次。"),
    "tables.recorded_behind": ("Done: {what}. Your move is recorded, but the database is slow: the table continues "
                               "by itself as soon as it answers.",
                               "已操作：{what}。你的操作已记录，但数据库响应慢：恢复后牌桌会自动继续。"),
    "tables.store_down": ("The database is not answering: this table waits and continues by itself when it is back. "
                          "Nothing played is lost.",
                          "数据库没有响应：这一桌暂停，恢复后自动继续。已经打出的牌都不会丢。"),
    "tables.store_back": ("The database answers again: the table continues.", "数据库恢复了：牌局继续。"),
    "tables.paused": ("This table hit an internal error and is paused (reference {ref}). Hands already settled stay "
                      "in the ledger. The host or a server manager can close it with /table end.",
                      "这一桌遇到内部错误，已暂停（编号 {ref}）。已经结算的局仍记在账上。房主或服务器管理员可以用 "
                      "/table end 结束。"),
    "tables.is_paused": ("This table is paused after an internal error; only /table end works now.",
                         "这一桌因内部错误已暂停，现在只能用 /table end 结束。"),
    "tables.wrong_place": ("Those controls belong to a table somewhere else; nothing was changed.",
                           "这些按钮属于别处的牌桌，什么都没有改动。"),
    "tables.lobby_started": ("The game has started below.", "牌局已在下面开始。"),
    "tables.start_ok": ("Started.", "已开始。"),
}
MESSAGES.update({k: (en, zh, hant(zh)) for k, (en, zh) in _TEXT.items()})


def tile_label(k: int, lang: str) -> str:
    """A tile's short name for buttons and texts: 五万 / 5m."""
    return tile_name(k) if lang == "en" else (tile_zh(k) if lang == "zh" else hant(tile_zh(k)))


def wind_label(w: int, lang: str) -> str:
    return t(f"common.seat.{'ESWN'[w]}", lang)


