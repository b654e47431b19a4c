"""The controls of ``/table``'s messages: the lobby's, the table's and the hand's buttons and the vote's, all
``discord.ui.DynamicItem`` buttons whose custom id carries what they act on (see :mod:`cogs.tables`), and
:class:`UI`, which builds every view the table manager's messages carry (:class:`bot.seams.TableUI`). A press is
handed to the loaded ``Tables`` cog (:mod:`cogs.tables`), found by its name.
"""

from __future__ import annotations

import re
from typing import Any

import discord

from bot.app import MjBot
from bot.i18n import item_name, rule_value
from bot.tables import LiveTable, discard_label, tile_label
from bot.tables.strings import t  # display names in its messages are escaped (no pings, no markdown)
from engine.tiles import tile_name
from engine.variants import get_variant
from render.scene import discard_numbers
from render.views import hand_scene_from_view


def _tables(interaction: discord.Interaction[Any]) -> Any:
    """The loaded ``Tables`` cog (:class:`cogs.tables.Tables`) a press is handed to."""
    cog = interaction.client.get_cog("Tables")
    if cog is None:
        raise LookupError("the cog Tables is not loaded")
    return cog


class LobbyButton(discord.ui.DynamicItem[discord.ui.Button],
                  template=r"mjl:(?P<ch>\d+):(?:(?P<seen>\d):)?(?P<op>join|leave|addbot|rmbot|start)"):
    """Join / Leave / Add AI / Remove AI / Start on a lobby message. ``seen``: Remove AI's count of AIs on the lobby
    it was drawn for (``mjl:<ch>:<n>:rmbot``), so that a second press of the same button (a double click, two players
    at once) is refused as out of date instead of taking the next AI out too; None on a lobby drawn before it."""

    def __init__(self, channel_id: int, op: str, label: str = "", style: discord.ButtonStyle = discord.ButtonStyle.secondary,
                 seen: int | None = None):
        cid = f"mjl:{channel_id}:" + (f"{seen}:" if seen is not None else "") + op
        super().__init__(discord.ui.Button(label=label or op, style=style, custom_id=cid))
        self.channel_id = channel_id
        self.op = op
        self.seen = seen

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any], match: re.Match[str]):  # type: ignore[override]  # discord.py hands over the component its template matched
        return cls(int(match["ch"]), match["op"], item.label or "", item.style,
                   int(match["seen"]) if match["seen"] is not None else None)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _tables(interaction)
        await cog.lobby_click(interaction, self.channel_id, self.op, self.seen)


class PlayButton(discord.ui.DynamicItem[discord.ui.Button],
                 template=r"mjt:(?P<tid>\d+):(?P<seat>\d):(?P<seq>\d+):(?P<op>[a-z]+)(?::(?P<arg>[0-9a-z]+))?"):
    """A play control: ``op`` d (discard ``arg``), w (win), p (pung), k (kong), c (chi from ``arg``), x (pass),
    next (next hand), hand (my hand, ephemeral), back (I'm back). ``seat`` is the chair the control acts for (9: the
    table's own buttons, for whoever presses them)."""

    def __init__(self, table_id: int, seat: int, seq: int, op: str, arg: str | None = None, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary, row: int | None = None):
        cid = f"mjt:{table_id}:{seat}:{seq}:{op}" + (f":{arg}" if arg else "")
        super().__init__(discord.ui.Button(label=label or op, style=style, custom_id=cid, row=row))
        self.table_id, self.seat, self.seq, self.op, self.arg = table_id, seat, seq, op, arg

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any], match: re.Match[str]):  # type: ignore[override]  # discord.py hands over the component its template matched
        return cls(int(match["tid"]), int(match["seat"]), int(match["seq"]), match["op"], match["arg"],
                   item.label or "", item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _tables(interaction)
        await cog.play_click(interaction, self.table_id, self.seat, self.seq, self.op, self.arg)


class VoteButton(discord.ui.DynamicItem[discord.ui.Button], template=r"mjv:(?P<tid>\d+):(?P<n>\d+):(?P<v>[yn])"):
    """Agree / Refuse on a dissolve (解散) vote message: table id, vote number, the answer."""

    def __init__(self, table_id: int, number: int, yes: bool, label: str = "",
                 style: discord.ButtonStyle = discord.ButtonStyle.secondary):
        super().__init__(discord.ui.Button(label=label or ("y" if yes else "n"), style=style,
                                           custom_id=f"mjv:{table_id}:{number}:{'y' if yes else 'n'}"))
        self.table_id, self.number, self.yes = table_id, number, yes

    @classmethod
    async def from_custom_id(cls, interaction: discord.Interaction[Any], item: discord.ui.Button[Any], match: re.Match[str]):  # type: ignore[override]  # discord.py hands over the component its template matched
        return cls(int(match["tid"]), int(match["n"]), match["v"] == "y", item.label or "", item.style)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        cog = _tables(interaction)
        await cog.vote_click(interaction, self.table_id, self.number, self.yes)


def _view(items: list[discord.ui.Item[Any]]) -> discord.ui.View:
    v = discord.ui.View(timeout=None)
    for it in items:
        v.add_item(it)
    return v


class UI:
    """Builds the controls of the manager's messages."""

    def __init__(self, bot: MjBot | None = None) -> None:
        self.bot = bot

    def vote_view(self, lt: LiveTable, number: int, lang: str) -> discord.ui.View:
        return _view([VoteButton(lt.id, number, True, t("tables.btn_vote_yes", lang), discord.ButtonStyle.danger),
                      VoteButton(lt.id, number, False, t("tables.btn_vote_no", lang))])

    def lobby_embed(self, lt: LiveTable) -> discord.Embed:
        lang = lt.lang
        V = get_variant(lt.variant)
        e = discord.Embed(title=t("tables.lobby_title", lang, variant=t(f"variant.{lt.variant}", lang)),
                          colour=discord.Colour.dark_green())
        rules = []
        for r in V.house_rules:
            rules.append(f"{item_name(r.zh, r.en, lang)} {rule_value(lt.rules.get(r.key, r.default), lang)}")
        host = next((s.name for s in lt.seats if s and s.user_id == lt.host_id), "?")
        sep = ", " if lang == "en" else "，"  # (a Chinese line takes a Chinese comma)
        e.description = t("tables.lobby_rules", lang, rules=sep.join(rules) or "-") + "\n" + t(
            "tables.lobby_host", lang, host=host)
        seats = []
        for i, s in enumerate(lt.seats):
            who = t("tables.seat_empty", lang) if s is None else s.lobby_line(lang)
            seats.append(f"{i + 1}. {who}")
        e.add_field(name=t("tables.lobby_seats", lang), value="\n".join(seats), inline=False)
        return e

    def lobby_message(self, lt: LiveTable) -> tuple[discord.Embed, discord.ui.View]:
        """The lobby message: its seats and rules, and its buttons (the publisher writes it)."""
        return self.lobby_embed(lt), self.lobby_view(lt, lt.lang)

    def lobby_view(self, lt: LiveTable, lang: str) -> discord.ui.View:
        ch = lt.channel_id
        return _view([
            LobbyButton(ch, "join", t("tables.btn_join", lang), discord.ButtonStyle.primary),
            LobbyButton(ch, "leave", t("tables.btn_leave", lang)),
            LobbyButton(ch, "addbot", t("tables.btn_addbot", lang)),
            # the AI added last (a wrong difficulty), of the AIs this lobby shows
            LobbyButton(ch, "rmbot", t("tables.btn_rmbot", lang), seen=sum(1 for s in lt.seats if s is not None and s.ai)),
            LobbyButton(ch, "start", t("tables.btn_start", lang), discord.ButtonStyle.success),
        ])

    def table_view(self, lt: LiveTable) -> discord.ui.View | None:
        tb = lt.table
        if tb is None or tb.phase == "over" or lt.closed:
            return None
        lang = lt.lang
        items: list[discord.ui.Item[Any]] = [
            PlayButton(lt.id, 9, tb.seq, "hand", None, t("tables.btn_my_hand", lang), discord.ButtonStyle.primary)]
        if tb.phase == "ended":
            items.append(PlayButton(lt.id, 9, tb.seq, "next", None, t("tables.btn_next", lang),
                                    discord.ButtonStyle.success))
        if any(s and s.afk for s in lt.seats):
            items.append(PlayButton(lt.id, 9, tb.seq, "back", None, t("tables.btn_back", lang)))
        items.append(PlayButton(lt.id, 9, tb.seq, "auto", None, t("tables.btn_autoplay", lang)))
        items.append(PlayButton(lt.id, 9, tb.seq, "dissolve", None, t("tables.btn_dissolve", lang)))
        return _view(items)

    def hand_view(self, lt: LiveTable, seat: int, lang: str, marks: frozenset[int]) -> discord.ui.View | None:
        tb = lt.table
        assert tb is not None
        if tb.phase not in ("play", "claim", "rob") or seat not in tb.awaited():
            return None
        seq = lt.since[seat]
        legal = tb.legal_actions(seat)
        items: list[discord.ui.Item[Any]] = []
        drawn = tb.drawn[seat]
        # numbered as the hand image numbers its tiles (render.discard_numbers), in that order
        numbers = discard_numbers(hand_scene_from_view(tb.view(seat)))
        discards = sorted({a.tile for a in legal if a.type == "discard" and a.tile is not None},
                          key=lambda k: (numbers.get(k, len(numbers) + 1), k))
        for k in discards:
            style = discord.ButtonStyle.success if k in marks else (
                discord.ButtonStyle.primary if k == drawn else discord.ButtonStyle.secondary)
            items.append(PlayButton(lt.id, seat, seq, "d", tile_name(k), discard_label(numbers.get(k), k, lang),
                                    style, row=len(items) // 5))
        row = (len(items) + 4) // 5
        extra: list[discord.ui.Item[Any]] = []
        for a in legal:
            if a.type == "win":
                extra.append(PlayButton(lt.id, seat, seq, "w", None, t("tables.btn_win", lang), discord.ButtonStyle.danger))
            elif a.type == "pung" and a.tile is not None:
                extra.append(PlayButton(lt.id, seat, seq, "p", tile_name(a.tile), t("tables.btn_pung", lang,
                                        tile=tile_label(a.tile, lang)), discord.ButtonStyle.primary))
            elif a.type == "kong" and a.tile is not None:
                extra.append(PlayButton(lt.id, seat, seq, "k", tile_name(a.tile), t("tables.btn_kong", lang,
                                        tile=tile_label(a.tile, lang)), discord.ButtonStyle.primary))
            elif a.type == "chi" and a.tile is not None:
                tiles = "".join(tile_label(a.tile + i, lang) for i in range(3))
                extra.append(PlayButton(lt.id, seat, seq, "c", tile_name(a.tile), t("tables.btn_chi", lang,
                                        tiles=tiles), discord.ButtonStyle.primary))
            elif a.type == "pass":
                key = "tables.btn_lay" if tb.phase == "play" else "tables.btn_pass"
                extra.append(PlayButton(lt.id, seat, seq, "x", None, t(key, lang)))
        for i, it in enumerate(extra):
            it.item.row = min(4, row + i // 5)  # type: ignore[attr-defined]  # every item here is a PlayButton
        return _view(items + extra)
