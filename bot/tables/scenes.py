"""Engine views to render scenes (what each image is drawn from), and the texts drawn from the same views.

The public table image is built from ``table.view(None)`` only, so it can never show a concealed tile; a seat's
hand image from that seat's own view. Seat names are the table's display names (the engine knows players by id).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from engine.hints import Hint, meld_of, ready_discards
from engine.tiles import Hand, Meld
from engine.variants import get_variant
from engine.variants.base import Item
from render.scene import HandScene, ScoreScene, TableScene
from render.views import hand_scene_from_view, table_scene_from_view

from .state import AWAY_CAUSES, LiveTable
from .strings import t, tile_label, wind_label


def _kind(x: Any) -> int:
    if isinstance(x, int):
        return x
    from engine.table.actions import parse_tile

    return parse_tile(x)


def shown_hand(view: Mapping[str, Any]) -> int:
    """The hand number players see (1-based): the one in play, or the one just finished.

    >>> shown_hand({"hand_no": 0, "phase": "play"}), shown_hand({"hand_no": 1, "phase": "ended"})
    (1, 1)
    """
    return view["hand_no"] + (1 if view["phase"] in ("play", "claim", "rob") else 0)


def hand_winds(view: Mapping[str, Any]) -> list[int]:
    """Each chair's wind (0 = E, the dealer) in the hand the view shows. Between hands the engine has already
    passed the deal on, so ``view["winds"]`` are the next hand's: the finished hand's come from its result.

    >>> v = {"phase": "ended", "winds": [3, 0, 1, 2], "last_result": {"dealer": 0}}
    >>> hand_winds(v), hand_winds({**v, "phase": "play"})
    ([0, 1, 2, 3], [3, 0, 1, 2])
    """
    last = view.get("last_result")
    if view["phase"] in ("ended", "over") and last is not None:
        return [(c - last["dealer"]) % 4 for c in range(4)]
    return list(view["winds"])


def _as_shown(view: Mapping[str, Any]) -> Mapping[str, Any]:
    """``view`` with the winds and the dealer of the hand it shows (:func:`hand_winds`): between hands the finished
    hand's, whose dealer (庄, E) the engine has already moved on from.

    >>> v = {"phase": "ended", "winds": [3, 0, 1, 2], "dealer": 1, "last_result": {"dealer": 0}}
    >>> shown = _as_shown(v)
    >>> shown["winds"], shown["dealer"]
    ([0, 1, 2, 3], 0)
    """
    winds = hand_winds(view)
    if winds == list(view["winds"]):
        return view
    return {**view, "winds": winds, "dealer": winds.index(0)}


def variant_title(lt: LiveTable) -> str:
    """The variant as the table's images name it, with Wuhu's scoring (芜湖 525): the amounts depend on it."""
    name = t(f"variant.{lt.variant}", lt.lang)
    mode = get_variant(lt.variant).rules(lt.rules).get("mode")
    return f"{name} {mode}" if mode else name


def table_scene(lt: LiveTable, view: Mapping[str, Any]) -> TableScene:
    """The public table image's scene from the PUBLIC view (``table.view(None)``): never a concealed tile."""
    title = t("tables.image_title", lt.lang, variant=variant_title(lt), hand=shown_hand(view))  # the wall: beside it
    scene = table_scene_from_view(_as_shown(view), title=title, lang=lt.lang)
    names = lt.names()
    a, b, c, d = (replace(sc, name=names[i], bot=bool((seat := lt.seats[i]) and seat.automatic))
                  for i, sc in enumerate(scene.seats))
    return replace(scene, seats=(a, b, c, d))


def hand_scene(lt: LiveTable, view: Mapping[str, Any], highlight: frozenset[int] = frozenset()) -> HandScene:
    """A seat's own hand from ITS view. Between hands, a seat that won on a discard or by robbing a kong has its
    winning tile set apart, as a self-drawn winner's is (the engine's view holds its 13 other tiles only), so its
    hand shows the 14 tiles it won with, as the score card does."""
    scene = hand_scene_from_view(_as_shown(view), highlight=sorted(highlight))
    won = won_on_discard(view)
    if won is not None:
        scene = replace(scene, drawn=won)
    return replace(scene, names=tuple(lt.names())) if scene.names is not None else scene


def won_on_discard(view: Mapping[str, Any]) -> int | None:
    """The tile the view's seat won the hand just over with, when it was another seat's (a discard, a robbed kong);
    None during a hand, for a self-drawn win and for a seat that did not win.

    >>> v = {"seat": 2, "phase": "ended", "last_result": {"winners": [{"seat": 2, "from": 0, "tile": "5m"}]}}
    >>> won_on_discard(v) == _kind("5m"), won_on_discard({**v, "seat": 1}), won_on_discard({**v, "phase": "play"})
    (True, None, None)
    """
    last = view.get("last_result")
    if view["phase"] not in ("ended", "over") or last is None:
        return None
    return next((_kind(w["tile"]) for w in last["winners"] if w["seat"] == view["seat"] and w["from"] is not None),
                None)


def score_scenes(lt: LiveTable, result: Mapping[str, Any]) -> list[ScoreScene]:
    """One score card per winner, seats in wind order (E first) as the card labels them: what each seat paid at
    the table, with the 交 part in a variant that splits it (Wuhu) and, when a stack held less than its items came
    to (W11), what the items came to; a robbed kong (抢杠) said as such."""
    dealer = result["dealer"]
    names = lt.names()
    by_wind = [(dealer + w) % 4 for w in range(4)]
    splits = get_variant(lt.variant).splits_jiao
    out = []
    for w in result["winners"]:
        melds = []
        for m in w["melds"]:
            mm = meld_of(m)
            fed = None if mm.fed_by is None else (mm.fed_by - dealer) % 4
            melds.append(Meld(mm.kind, mm.tile, fed, mm.claimed, mm.added))
        hand = Hand(tuple(_kind(x) for x in w["hand"]), tuple(melds), _kind(w["tile"]))
        items = tuple(Item(i["code"], i["zh"], i["en"], i["value"], i.get("kind", "add")) for i in w["items"])
        notes = tuple(Item(i["code"], i["zh"], i["en"], i["value"], i.get("kind", "add")) for i in w["notes"])
        settled = w["settled"]
        owed = w["payments"]
        out.append(ScoreScene(
            hand=hand, items=items, payments=tuple(settled[c] for c in by_wind),
            names=tuple(names[c] for c in by_wind),
            winner=(w["seat"] - dealer) % 4,
            discarder=None if w["from"] is None else (w["from"] - dealer) % 4, notes=notes,
            title=variant_title(lt), variant=lt.variant, robbed_kong=bool(w["rob_kong"]) and w["from"] is not None,
            jiao=tuple(w["jiao"][c] for c in by_wind) if splits else None,
            owed=tuple(owed[c] for c in by_wind) if list(owed) != list(settled) else None,
        ))
    return out


def hint(lt: LiveTable, view: Mapping[str, Any]) -> list[Hint]:
    """The engine's wait hints (:func:`engine.hints.ready_discards`) for this table's variant."""
    return ready_discards(lt.variant, view)


def hint_text(items: list[Hint], lang: str) -> str:
    if not items:
        return ""
    lines = []
    for k, ws in items:
        wt = " ".join(t("tables.hint_left", lang, tile=tile_label(w, lang), n=n) for w, n in ws)
        if k is None:
            lines.append(t("tables.hint_ready", lang, waits=wt))
        else:
            lines.append(t("tables.hint_line", lang, tile=tile_label(k, lang), waits=wt))
    head = "" if items[0][0] is None else t("tables.hint_title", lang) + "\n"
    return head + "\n".join(lines)


def private_text(lt: LiveTable, seat: int, lang: str) -> tuple[str, frozenset[int]]:
    """The text over a seat's hand image (what to do, the hint) and the tiles the hint marks. Between hands: the
    hand just over, with its number and the seat's wind in it, as its hand message says (:func:`over_text`)."""
    tb = lt.table
    assert tb is not None
    v = tb.view(seat)
    names = lt.names()
    lines = [t("tables.your_hand", lang, variant=t(f"variant.{lt.variant}", lang), hand=shown_hand(v),
               wind=wind_label(hand_winds(v)[seat], lang))]
    if tb.phase in ("ended", "over"):
        lines.append(t("tables.dm_hand_over" if tb.phase == "ended" else "tables.dm_match_over", lang))
        return "\n".join(lines), frozenset()
    legal = {a["type"] for a in v["legal"]}
    waiting = seat in tb.awaited() and tb.phase in ("play", "claim", "rob")
    if waiting and tb.phase == "play":
        lines.append(t("tables.your_turn_last" if v["last_four"] else "tables.your_turn", lang))
    elif waiting and tb.phase == "claim" and v["last_discard"]:
        ld = v["last_discard"]
        lines.append(t("tables.claim_offer", lang, name=names[ld["seat"]], tile=tile_label(ld["tile"], lang)))
    elif waiting and tb.phase == "rob" and v["robbing"]:
        rb = v["robbing"]
        lines.append(t("tables.rob_offer", lang, name=names[rb["seat"]], tile=tile_label(rb["tile"], lang)))
    else:
        lines.append(t("tables.waiting", lang))
    marks: frozenset[int] = frozenset()
    if lt.hints and tb.phase in ("play", "claim", "rob"):
        items = hint(lt, v)
        if "discard" in legal or not waiting or tb.phase != "play":
            ht = hint_text(items, lang)
            if ht:
                lines.append(ht)
            marks = hint_marks(items)
    return "\n".join(lines), marks


def hint_marks(items: list[Hint]) -> frozenset[int]:
    """The discards the hand image marks: those that leave a wait with a tile still unseen (a discard whose every
    winning tile is gone, "听 八条×0", stays in the hint's text but is not marked like a live one)."""
    return frozenset(k for k, ws in items if k is not None and any(n > 0 for _, n in ws))


def over_text(lt: LiveTable, seat: int, why: str) -> str | None:
    """What a seat's latest hand message says once it has nothing left to decide, instead of the decision it asked
    for ("your turn" stayed on it after the hand was over): its first line and ``why`` (``hand_over``, ``match_over``,
    ``table_closed``, ``paused``, ``away``), in the seat's language; None when no hand message was sent in this process
    (or taken over from the run before: :mod:`.resume`)."""
    s = lt.seats[seat]
    if s is None or s.dm_head is None:
        return None
    head = s.dm_head + "\n" if s.dm_head else ""  # ("": a message of a run before this one, its text unknown)
    if why == "away":  # why the AI plays the seat, as the seat records it
        why = f"away_{s.away if s.away in AWAY_CAUSES else 'timeout'}"
    return head + t(f"tables.dm_{why}", s.lang, back=t("tables.btn_back", s.lang))


def status_text(lt: LiveTable, next_seconds: float) -> str:
    """The table message's text: the hand, whose turn, who is away or has closed DMs, and any stall."""
    tb = lt.table
    assert tb is not None
    lang = lt.lang
    v = tb.view(None)
    lines = [t("tables.header", lang, variant=variant_title(lt), hand=shown_hand(v),
               wall=v["wall_count"])]
    names = lt.names()
    if tb.phase == "play":
        lines.append(t("tables.turn", lang, name=names[tb.turn], wind=wind_label(tb.wind(tb.turn), lang)))
    elif tb.phase == "claim" and v["last_discard"]:
        ld = v["last_discard"]
        lines.append(t("tables.discarded", lang, name=names[ld["seat"]], tile=tile_label(ld["tile"], lang)))
    elif tb.phase == "rob" and v["robbing"]:
        lines.append(t("tables.rob", lang, name=names[v["robbing"]["seat"]]))
    elif tb.phase == "ended":
        # every human away: no timer deals the next hand with nobody there (the table waits for Next or I'm back)
        left = math.ceil(round(next_seconds, 3))  # the whole seconds left, rounded up (never a later promise)
        lines.append(t("tables.hand_over_away" if lt.everyone_away() else "tables.hand_over", lang, n=left))
    else:
        lines.append(t("tables.match_over", lang))
    afk = [names[i] for i, s in enumerate(lt.seats) if s and s.afk]
    if afk:
        lines.append(t("tables.afk_list", lang, names=", ".join(afk)))
    dmf = [names[i] for i, s in enumerate(lt.seats) if s and s.dm_failed]
    if dmf:
        lines.append(t("tables.dm_list", lang, names=", ".join(dmf)))
    late = [names[i] for i, s in enumerate(lt.seats) if s and s.dm_down and not s.dm_failed]
    if late:  # Discord failing, not the player's choice: said without a ping
        lines.append(t("tables.dm_down_list", lang, names=", ".join(late)))
    if lt.stall == "store":
        lines.append(t("tables.store_down", lang))
    elif lt.stall == "error":
        lines.append(t("tables.is_paused", lang))
    return "\n".join(lines)
