"""Per-seat views: exactly what one seat may see (its own concealed tiles, never another seat's, never the wall)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..tiles import NUM_KINDS, SEATS

if TYPE_CHECKING:
    from .flow import Table


def build_view(t: Table, seat: int | None) -> dict[str, Any]:
    """A plain dict (JSON-ready; tiles are kinds 0-33, see :func:`engine.tiles.tile_name`).

    Keys: variant, seat, players, hand_no, dealer, dealer_streak, winds (wind 0-3 of each chair, 0 = E = dealer),
    dice, wall_break, wall_count, phase, turn, last_four (bool), hand (own concealed kinds, sorted; [] for None),
    drawn (own drawn kind or None), hand_sizes, seen (public count of each kind in rivers and melds), melds (per chair: kind, tiles, fed_by chair, claimed, added),
    rivers (per chair, in order: {tile, status} status "" / "claimed" / "won" / "dead"), last_discard,
    scores / stacks / jiao / di / quan / totals, alarms (per chair), claim (own pending options or None),
    claim_open (bool), legal (own legal actions as JSON), furiten (own), commitment, last_result, rules.
    """
    own = seat is not None
    hand: list[int] = []
    if own:
        c = t.counts[seat]
        hand = [k for k in range(NUM_KINDS) for _ in range(c[k])]
    melds = [
        [
            {"kind": str(m.kind), "tile": m.tile, "tiles": list(m.tiles), "fed_by": m.fed_by, "claimed": m.claimed,
             "added": m.added}
            for m in ms
        ]
        for ms in t.melds
    ]
    rivers = [[{"tile": k, "status": st} for k, st in r] for r in t.rivers]
    claim = None
    if own and t.phase in ("claim", "rob") and seat in t.window and seat not in t.responses:
        claim = [a.to_json() for a in t.window[seat]] + [{"type": "pass", "seat": seat}]
    return {
        "variant": t.variant,
        "seat": seat,
        "players": list(t.players),
        "hand_no": t.hand_no,
        "dealer": t.dealer,
        "dealer_streak": t.streak,
        "winds": [t.wind(s) for s in range(4)],
        "wind_names": [SEATS[t.wind(s)] for s in range(4)],
        "dice": t.dice,
        "wall_break": dict(t.wall_break),
        "wall_count": t.live,
        "phase": t.phase,
        "turn": t.turn,
        "last_four": t.last_four >= 0,
        "hand": hand,
        "drawn": t.drawn[seat] if own else None,
        "hand_sizes": [sum(c) for c in t.counts],
        "seen": list(t.seen),
        "melds": melds,
        "rivers": rivers,
        "last_discard": None if t.last_discard is None else {"seat": t.last_discard[0], "tile": t.last_discard[1]},
        "robbing": None if t.rob is None else {"seat": t.rob[0], "tile": t.rob[1]},
        "scores": list(t.scores),
        "stacks": list(t.stacks) if t.variant == "wuhu" else None,
        "jiao": list(t.jiao) if t.variant == "wuhu" else None,
        "di": t.di_no + 1 if t.variant == "wuhu" else None,
        "quan": t.passes // 4 + 1 if t.variant != "wuhu" else None,
        "totals": t.totals(),
        "alarms": [list(a) for a in t.alarms],
        "claim": claim,
        "claim_open": t.phase in ("claim", "rob"),
        "legal": [a.to_json() for a in t.legal_actions(seat)] if own else [],
        "furiten": t.furiten[seat] if own else None,
        "commitment": t.commitment,
        "last_result": t.last_result,
        "rules": dict(t.rules),
    }
