"""Scenes from the table's per-seat views (``engine.table.Table.view(seat)``, a plain dict).

The renderers take :mod:`render.scene` dataclasses; these adapters read the view dict's documented keys (players,
dealer, winds, dice, wall_count, turn, hand, drawn, hand_sizes, melds, rivers, last_discard, totals, alarms) so the
bot can go from ``table.view(seat)`` to PNG bytes in one call. Seats are chairs; winds come from ``winds``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping, Sequence
from typing import Any

from engine.errors import EngineError
from engine.tiles import Meld, MeldKind
from engine.variants import get_variant

from .scene import HandScene, SeatScene, TableScene


def _meld(m: Mapping[str, Any]) -> Meld:
    return Meld(MeldKind(str(m["kind"])), int(m["tile"]), m.get("fed_by"), m.get("claimed"), bool(m.get("added")))


def _dice(dice: Any) -> tuple[int, ...]:
    out: list[int] = []
    for d in dice or ():
        if isinstance(d, (list, tuple)):
            out.extend(int(x) for x in d)
        else:
            out.append(int(d))
    return tuple(out)


def alarm_names(variant: str, codes: Sequence[str], lang: str = "zh") -> tuple[str, ...]:
    """Display names of alarm codes (the variant's ``alarm_names``; an unknown variant's codes as they are)."""
    names: Mapping[str, tuple[str, str]] = {}
    with contextlib.suppress(EngineError):
        names = get_variant(variant).alarm_names
    out = []
    for c in codes:
        zh, en = names.get(c, (c, c))
        out.append(en if lang == "en" else zh)
    return tuple(out)


def hand_scene_from_view(
    view: Mapping[str, Any], *, highlight: Sequence[int] = (), labels: bool = False
) -> HandScene:
    """A player's own hand from their view: the drawn tile set apart, their melds, the feeders named."""
    seat = view["seat"]
    hand = list(view.get("hand") or ())
    drawn = view.get("drawn")
    if drawn is not None and drawn in hand:
        hand.remove(drawn)
    else:
        drawn = None
    return HandScene(
        concealed=tuple(hand),
        melds=tuple(_meld(m) for m in (view.get("melds") or [[]] * 4)[seat]) if seat is not None else (),
        drawn=drawn,
        seat=seat,
        highlight=frozenset(highlight),
        labels=labels,
        names=tuple(str(p) for p in view.get("players", ())) or None,
        winds=tuple(view["winds"]) if view.get("winds") else None,
    )


def table_scene_from_view(
    view: Mapping[str, Any], *, title: str = "", lang: str = "zh", viewer: int | None = None
) -> TableScene:
    """The public table from any seat's view (its own concealed tiles are not used: only counts). The dealer (庄,
    its badge and highlighted wind disc) is the seat whose wind is E, as G1 has it, so the badge never sits on
    another wind than the one drawn (``dealer`` is read only when the view has no winds).

    >>> scene = table_scene_from_view({"winds": [3, 0, 1, 2], "dealer": 2})
    >>> scene.dealer, scene.seats[scene.dealer].wind
    (1, 0)
    """
    players = list(view.get("players") or ["", "", "", ""])
    winds = list(view.get("winds") or range(4))
    rivers = view.get("rivers") or [[], [], [], []]
    melds = view.get("melds") or [[], [], [], []]
    sizes = view.get("hand_sizes") or [13] * 4
    totals = view.get("totals") or [0] * 4
    alarms = view.get("alarms") or [[], [], [], []]
    last = view.get("last_discard")
    last_discard = None
    if last is not None and rivers[last["seat"]]:
        last_discard = (last["seat"], len(rivers[last["seat"]]) - 1)
    seats = tuple(
        SeatScene(
            name=str(players[s]),
            melds=tuple(_meld(m) for m in melds[s]),
            river=tuple(int(r["tile"]) for r in rivers[s]),
            taken=frozenset(i for i, r in enumerate(rivers[s]) if r.get("status") == "claimed"),
            laid_aside=frozenset(i for i, r in enumerate(rivers[s]) if r.get("status") == "dead"),
            concealed_count=int(sizes[s]),
            score=int(totals[s]),
            alarms=alarm_names(str(view.get("variant", "")), alarms[s], lang),
            wind=int(winds[s]),
        )
        for s in range(4)
    )
    return TableScene(
        seats=seats,  # type: ignore[arg-type]  # four seats
        dealer=winds.index(0) if view.get("winds") and 0 in winds else int(view.get("dealer", 0)),
        # a discard or an added kong out, the table waits on the others' claims, not on its player's turn
        turn=view.get("turn") if view.get("phase") == "play" else None,
        claims=str(view.get("phase")) if view.get("phase") in ("claim", "rob") else "",
        last_discard=last_discard,
        wall=int(view.get("wall_count", 0)),
        dice=_dice(view.get("dice")),
        viewer=viewer if viewer is not None else view.get("seat"),
        title=title,
        last_tiles=bool(view.get("last_four")) and view.get("phase") in ("play", "claim", "rob"),
    )
