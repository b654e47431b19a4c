"""The public lines a batch of engine events produces (claims, wins, timeouts, the wall's commitment and reveal,
hand results) and the score cards to attach. Pure: the publisher sends them."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.table import Action, Event, verify_commitment
from render.common import join_list
from text.hant import named

from .scenes import _kind, score_scenes
from .state import LiveTable
from .strings import shown_name, t, tile_label

CHUNK = 1900  # characters per message (Discord allows 2,000)
SUBTEXT = "-# "  # Discord's subtext markdown at a line's start: small grey text (the wall's commitment and reveal)


def _lines(lt: LiveTable, events: list[Event]) -> tuple[list[str], list[tuple[str, Any]]]:
    lang = lt.lang
    names = lt.names()
    lines: list[str] = []
    cards: list[tuple[str, Any]] = []
    tb = lt.table
    assert tb is not None
    for e in events:
        ty, d = e.type, e.data
        who = names[e.seat] if e.seat is not None else "?"  # the acting seat's name (every announced event has one)
        if ty == "hand_start":
            lines.append(SUBTEXT + t("tables.commit", lang, hand=d["hand_no"] + 1, commitment=d["commitment"]))
        elif ty == "pung":
            lines.append(t("tables.ann_pung", lang, name=who, tile=tile_label(_kind(d["tile"]), lang)))
        elif ty == "kong":
            if d.get("kind") == "concealed":
                lines.append(t("tables.ann_ckong", lang, name=who))
            else:
                lines.append(t("tables.ann_kong", lang, name=who, tile=tile_label(_kind(d["tile"]), lang)))
        elif ty == "chi":
            lines.append(t("tables.ann_chi", lang, name=who,
                           tiles="".join(tile_label(_kind(x), lang) for x in d["tiles"])))
        elif ty == "alarm":
            lines.append(t("tables.ann_alarm", lang, name=who,
                           alarm=named(d["zh"], d["en"], lang)))
        elif ty == "timeout":
            a = Action.from_json(d["as"])  # the tile in the table's words (一万 / 1m), as the other lines write it
            what = t(f"engine.action.{a.type}", lang, tile="" if a.tile is None else tile_label(a.tile, lang))
            lines.append(t("tables.ann_timeout", lang, name=who, what=what))
        elif ty == "afk":
            lines.append(t("tables.afk", lang, name=who))
        elif ty == "win":
            if d["self_drawn"]:
                how = t("tables.ann_self", lang)
            elif d["rob_kong"]:
                how = t("tables.ann_rob", lang, name=names[d["from"]])
            else:
                how = t("tables.ann_from", lang, name=names[d["from"]])
            lines.append(t("tables.ann_win", lang, name=who, how=how))
        elif ty == "hand_end":
            if d["draw"]:
                lines.append(t("tables.ann_draw", lang, hand=d["hand_no"] + 1))
            unit = t("tables.unit", lang)
            res = " · ".join(f"{shown_name(names[c])} {d['payments'][c]:+d} {unit}" for c in range(4))
            lines.append(t("tables.result", lang, hand=d["hand_no"] + 1, lines=res))
            if tb.last_result and tb.last_result.get("hand_no") == d["hand_no"]:
                lines += _short_payments(lt, tb.last_result, lang)
                for i, sc in enumerate(score_scenes(lt, tb.last_result)):
                    cards.append((f"score-{d['hand_no'] + 1}-{i}.png", sc))
            # the wall's reveal (to check the deal against its commitment) after the result, in Discord's small
            # grey subtext: 272 characters of tile codes a player rarely reads
            ok = verify_commitment(d["commitment"], d["reveal"])
            lines.append(SUBTEXT + t("tables.reveal", lang, hand=d["hand_no"] + 1, salt=d["reveal"]["salt"],
                                     wall="".join(d["reveal"]["wall"]),
                                     ok=t("tables.reveal_ok" if ok else "tables.reveal_bad", lang)))
        elif ty == "di_end":  # Wuhu (W11): a stack is empty, the 底 is over (and with the last 底, the match)
            empty = [shown_name(names[c]) for c in range(4) if d["stacks"][c] <= 0]
            lines.append(t("tables.ann_di_end", lang, n=d["di"], names=join_list(empty, lang)))
    return lines, cards


def _short_payments(lt: LiveTable, result: Mapping[str, Any], lang: str) -> list[str]:
    """Wuhu (W11): a payer whose stack (底) held less than the win's payment pays what it held; the card shows what
    was paid, and this says why it is less than its items ("-4" where the items came to 10)."""
    names = lt.names()
    unit = t("tables.unit", lang)
    out = []
    for w in result["winners"]:
        for c in range(4):
            owed, paid = w["payments"][c], w["settled"][c]
            if owed < 0 and paid > owed:
                out.append(t("tables.ann_short", lang, name=shown_name(names[c]), paid=f"{-paid} {unit}",
                             owed=f"{-owed} {unit}"))
    return out


def chunks(lines: list[str], size: int = CHUNK) -> list[str]:
    """Lines joined into messages of at most ``size`` characters (long wall reveals pass Discord's limit).

    >>> chunks(["a" * 5, "b" * 5, "c"], size=8)
    ['aaaaa', 'bbbbb\\nc']
    """
    out: list[str] = []
    cur = ""
    for ln in lines:
        if cur and len(cur) + len(ln) + 1 > size:
            out.append(cur)
            cur = ""
        cur = f"{cur}\n{ln}" if cur else ln
    if cur:
        out.append(cur)
    return out


def announcements(lt: LiveTable, events: list[Event]) -> tuple[list[str], list[tuple[str, Any]]]:
    """(messages to post, [(file name, score scene)] to attach to the last one)."""
    lines, cards = _lines(lt, events)
    return chunks(lines), cards
