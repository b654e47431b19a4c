"""``/rules [variant]``: how a variant is played, in our own words, with this server's house rules in force."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.i18n import item_name, lang_for, locale_str, rule_value, t, variant_name
from bot.settings import guild_settings, variant_rules
from cogs.score import VARIANT_CHOICES
from engine.variants import get_variant

# variant -> [(section title en/zh/zh-TW, body en/zh/zh-TW)]; every body under Discord's 1024-character field limit.
Text = tuple[str, str, str]
SUMMARIES: dict[str, list[tuple[Text, Text]]] = {
    "wuhu": [
        (("Tiles and claims", "牌与吃碰", "牌與吃碰"), (
            "112 tiles: characters, dots and bamboo 1-9 plus four Red Dragons (红中, a plain tile, not wild). "
            "Peng and kong only, no chi. If several players want the same discard to win, the first in turn "
            "order after the discarder takes it. Once only four tiles are left nobody discards or claims: "
            "players draw in turn and can only win by self-draw.",
            "共 112 张：万、筒、条各 1-9 四张，加四张红中（红中是普通的牌，不是百搭）。"
            "只能碰和杠，不能吃。几家同时要和同一张牌时，从放炮者下家起按顺序第一家和（截胡）。"
            "牌墙只剩四张时不再打牌、不能吃碰杠，大家轮流摸牌，只能自摸。",
            "共 112 張：萬、筒、條各 1-9 四張，加四張紅中（紅中是普通的牌，不是百搭）。"
            "只能碰和槓，不能吃。幾家同時要和同一張牌時，從放槍者下家起按順序第一家和（截胡）。"
            "牌牆只剩四張時不再打牌、不能吃碰槓，大家輪流摸牌，只能自摸。",
        )),
        (("Winning", "和牌", "和牌"), (
            "A pair and four sets (no seven pairs), and 八支: one suit must make up at least 8 tiles of the "
            "finished hand (a kong counts 4; Red Dragons never count). 支数 is that suit's count. 压档: a single "
            "wait on the middle of a sequence, or an edge wait, is worth the winning tile's rank.",
            "一对将加四组牌（没有七对），并且要够八支：和牌时万、筒、条中至少一门有 8 张（杠算 4 张，红中不算）。"
            "那一门的张数就是支数。压档：只听一张、且和的是顺子中间那张或边张，压档值等于那张牌的点数。",
            "一對將加四組牌（沒有七對），並且要夠八支：和牌時萬、筒、條中至少一門有 8 張（槓算 4 張，紅中不算）。"
            "那一門的張數就是支數。壓檔：只聽一張、且和的是順子中間那張或邊張，壓檔值等於那張牌的點數。",
        )),
        (("Scoring: 嘴子 and 交", "计分：嘴子与交", "計分：嘴子與交"), (
            "嘴子 are 混一色, 通天, 四核, 对对胡 and 杠后开花. Direct 交 are 清一色, 双八支, 双四核, 天胡, 地胡 and "
            "杠后开花 with 压档; with no direct 交, two 嘴子 make one 交. A 交 hand pays 30 per 交 (525: 50), "
            "10 (20) per extra 嘴子 and 10 (20) more on self-draw, and nothing else. Other hands pay 底番 + 支番 + "
            "嘴子 + kongs, plus one more 底番 when the dealer is involved.",
            "嘴子：混一色、通天、四核、对对胡、杠后开花。直接成交：清一色、双八支、双四核、天胡、地胡、杠后开花带压档；"
            "没有直接的交时，两个嘴子算一交。交牌每交 30（525 为 50），多出的嘴子每个 10（20），自摸再加 10（20），"
            "其余都不算。不成交的牌算 底番 + 支番 + 嘴子番 + 杠番，庄家参与时多算一个底番。",
            "嘴子：混一色、通天、四核、對對胡、槓後開花。直接成交：清一色、雙八支、雙四核、天胡、地胡、槓後開花帶壓檔；"
            "沒有直接的交時，兩個嘴子算一交。交牌每交 30（525 為 50），多出的嘴子每個 10（20），自摸再加 10（20），"
            "其餘都不算。不成交的牌算 底番 + 支番 + 嘴子番 + 槓番，莊家參與時多算一個底番。",
        )),
        (("Paying", "输赢", "輸贏"), (
            "All three others pay the winner, on a discard too. Each player starts a 底 with 30 子 (525: 50); "
            "ordinary amounts come out of these stacks, and the 底 ends when a stack is empty. 交 amounts are "
            "kept on a separate tally. 报警: some exposed melds are announced, and dealing into them can make "
            "one player pay for everyone (包).",
            "和牌后其他三家都要付，点炮也一样。每人一底 30 子（525 为 50 子），普通的输赢从底里出，"
            "有人的底输光这一底就结束。交另外记账，不扣底。报警：某些亮出的牌型要报警，给这样的牌放炮可能要包三家。",
            "和牌後其他三家都要付，放槍也一樣。每人一底 30 子（525 為 50 子），普通的輸贏從底裡出，"
            "有人的底輸光這一底就結束。交另外記帳，不扣底。報警：某些亮出的牌型要報警，給這樣的牌放槍可能要包三家。",
        )),
    ],
    "hefei": [
        (("Tiles and claims", "牌与吃碰", "牌與吃碰"), (
            "108 tiles: characters, dots and bamboo 1-9, no honours. Peng and kong only, no chi, and each "
            "player may claim at most one meld per hand (adding the fourth tile to it is allowed). Several "
            "players may win on the same discard. In the last four tiles (海捞) everyone draws one more tile "
            "and may only win by self-draw.",
            "共 108 张：万、筒、条各 1-9，没有字牌。只能碰和杠，不能吃，每人每局最多碰（或明杠）一次，"
            "碰后补成杠可以。一炮可以多响。最后四张（海捞）每人再摸一张，只能自摸。",
            "共 108 張：萬、筒、條各 1-9，沒有字牌。只能碰和槓，不能吃，每人每局最多碰（或明槓）一次，"
            "碰後補成槓可以。一炮可以多響。最後四張（海撈）每人再摸一張，只能自摸。",
        )),
        (("Winning", "和牌", "和牌"), (
            "A pair and four sets, or seven pairs, with at least 8 tiles of one suit (八支).",
            "一对将加四组牌，或者七对；至少一门要有 8 张（八支）。",
            "一對將加四組牌，或者七對；至少一門要有 8 張（八支）。",
        )),
        (("Scoring", "计分", "計分"), (
            "Add up: 胡 5, 门清 10 (no peng or exposed kong), 支 = long suit minus 8, 缺门 1 per missing "
            "suit, 同 for a rank held more than four times across suits, 坎 1 per concealed triplet, kongs "
            "(exposed 1, concealed 2), 活 (2 or 4), 卡 1 for a single wait, 七对 5, and 庄分 between the "
            "dealer and a payer (grows with each dealer repeat). Double it for a kong-replacement win, triple "
            "it for 清一色, then add 10 for a 海捞 win.",
            "逐项相加：胡 5、门清 10（没碰没明杠）、支 = 最长一门减 8、缺门每缺一门 1、同（同点数超过四张的部分）、"
            "坎每个暗刻 1、杠（明 1 暗 2）、活（2 或 4）、卡（只听一张）1、七对 5、庄家与付款人之间的庄分"
            "（随连庄增加）。杠开乘 2，清一色乘 3，海捞再加 10。",
            "逐項相加：胡 5、門清 10（沒碰沒明槓）、支 = 最長一門減 8、缺門每缺一門 1、同（同點數超過四張的部分）、"
            "坎每個暗刻 1、槓（明 1 暗 2）、活（2 或 4）、卡（只聽一張）1、七對 5、莊家與付款人之間的莊分"
            "（隨連莊增加）。槓開乘 2，清一色乘 3，海撈再加 10。",
        )),
        (("Paying", "输赢", "輸贏"), (
            "On a discard the discarder pays; on a self-draw all three pay. Robbing a kong counts as a "
            "self-draw paid in full by the player robbed. The dealer keeps the deal on a dealer win or a "
            "draw.",
            "点炮由放炮者付；自摸三家都付。抢杠按自摸算，由被抢的人付三家的钱。庄家和牌或流局时连庄。",
            "放槍由放槍者付；自摸三家都付。搶槓按自摸算，由被搶的人付三家的錢。莊家和牌或流局時連莊。",
        )),
    ],
    "chizhou": [
        (("Tiles and claims", "牌与吃碰", "牌與吃碰"), (
            "136 tiles: characters, dots and bamboo 1-9 plus winds and dragons; no flower tiles. Chi from the "
            "previous player, peng and kong. Several players may win on the same discard. While you have fewer "
            "than 2 花, all your chis must be in one suit.",
            "共 136 张：万、筒、条各 1-9，加东南西北中发白；没有花牌。可以吃上家的牌，也可以碰和杠。"
            "一炮可以多响。花不到 2 个时，吃牌只能吃同一门。",
            "共 136 張：萬、筒、條各 1-9，加東南西北中發白；沒有花牌。可以吃上家的牌，也可以碰和槓。"
            "一炮可以多響。花不到 2 個時，吃牌只能吃同一門。",
        )),
        (("Winning and 花", "和牌与花", "和牌與花"), (
            "A pair and four sets (no seven pairs, no suit minimum). 花 are points from honour triplets and from kongs: "
            "honour pung or concealed honour triplet 1, suited exposed kong 1, suited concealed kong 2, honour "
            "exposed kong 2, honour concealed kong 3. A self-draw needs 2 花, a discard win 3.",
            "一对将加四组牌（推倒胡；没有七对，不要求八支）。花来自字牌刻子和各种杠：字牌碰或暗刻 1、"
            "数牌明杠 1、数牌暗杠 2、字牌明杠 2、字牌暗杠 3。自摸要 2 花，点炮要 3 花。",
            "一對將加四組牌（推倒胡；沒有七對，不要求八支）。花來自字牌刻子和各種槓：字牌碰或暗刻 1、"
            "數牌明槓 1、數牌暗槓 2、字牌明槓 2、字牌暗槓 3。自摸要 2 花，放槍要 3 花。",
        )),
        (("Scoring", "计分", "計分"), (
            "番: 对对胡 3, 清一色 3, 混一色 3, 字一色 3, 大吊车 2, 杠开 2; a plain hand is 1 and the total is "
            "capped at 3 (蜡子). On a discard the discarder pays the 番; on a self-draw each of the three pays it.",
            "番：对对胡 3、清一色 3、混一色 3、字一色 3、大吊车 2、杠开 2；平胡 1，最多 3 番（蜡子）。"
            "点炮由放炮者付番数，自摸三家各付番数。",
            "番：對對胡 3、清一色 3、混一色 3、字一色 3、大吊車 2、槓開 2；平胡 1，最多 3 番（蠟子）。"
            "放槍由放槍者付番數，自摸三家各付番數。",
        )),
        (("承包", "承包", "承包"), (
            "If you feed one player three or more melds of one suit, you may have to pay for the others when "
            "they win big (承包); in some cases it turns around and they pay you (反包).",
            "给同一家喂了三口以上同一门的牌，对方和大牌时你可能要替别人付（承包）；有些情况下反过来由对方付给你（反包）。",
            "給同一家餵了三口以上同一門的牌，對方和大牌時你可能要替別人付（承包）；有些情況下反過來由對方付給你（反包）。",
        )),
    ],
}

_IDX = {"en": 0, "zh": 1, "zh-TW": 2}


def rules_embed(variant_key: str, rules: dict[str, Any], lang: str) -> discord.Embed:
    """The /rules answer: the summary sections and every house rule with the value in force here."""
    v = get_variant(variant_key)
    i = _IDX[lang]
    embed = discord.Embed(title=t("rules.title", lang, variant=variant_name(variant_key, lang)),
                          colour=discord.Colour.dark_green())
    for title, body in SUMMARIES[variant_key]:
        embed.add_field(name=title[i], value=body[i], inline=False)
    if v.house_rules:
        lines = []
        for r in v.house_rules:
            value = rules.get(r.key, r.default)
            mark = f" ({t('rules.default_mark', lang)})" if value == r.default else ""
            helptext = r.help_en if lang == "en" else item_name(r.help_zh, r.help_en, lang)
            line = f"• **{item_name(r.zh, r.en, lang)}**: {rule_value(value, lang)}{mark}"
            lines.append(line + (f" — {helptext}" if helptext else ""))
        embed.add_field(name=t("rules.house", lang), value="\n".join(lines)[:1024], inline=False)
    else:
        embed.add_field(name=t("rules.house", lang), value=t("rules.house_none", lang), inline=False)
    embed.set_footer(text=t("rules.footer", lang, doc=f"docs/rules/{variant_key}.md"))
    return embed


class Rules(commands.Cog):
    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name=locale_str("rules.name"), description=locale_str("rules.desc"))
    @app_commands.rename(variant=locale_str("rules.variant.name"))
    @app_commands.describe(variant=locale_str("rules.variant.desc"))
    @app_commands.choices(variant=VARIANT_CHOICES)
    async def rules(self, interaction: discord.Interaction, variant: str | None = None) -> None:
        settings = await guild_settings(self.bot, interaction.guild_id)
        lang = lang_for(interaction, settings.language if interaction.guild_id else None)
        key = variant or settings.default_variant
        rules = variant_rules(settings, get_variant(key))
        await interaction.response.send_message(embed=rules_embed(key, rules, lang), ephemeral=True)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(Rules(bot))
