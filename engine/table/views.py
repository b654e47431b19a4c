"""Per-seat views: exactly what one seat may see (its own concealed tiles, never another seat's, never the wall).

Built from the declared state (:mod:`engine.table.state`) alone; the table passes what it computes (legal actions,
the settlement's figures, totals), so this module does not import the table.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..tiles import NUM_KINDS, SEATS
from ..variants.base import LedgerView
from .actions import Action
from .state import HandState, MatchState, MeldView, RiverView, View


def build_view(m: MatchState, h: HandState, seat: int | None, *, legal: Sequence[Action], ledger: LedgerView,
               totals: Sequence[int]) -> View:
    """A plain dict (JSON-ready; tiles are kinds 0-33, see :func:`engine.tiles.tile_name`).

    Keys: variant, seat, players, hand_no, dealer, dealer_streak, winds (wind 0-3 of each chair, 0 = E = dealer),
    dice, wall_break, wall_count, phase, turn, last_four (bool), hand (own concealed kinds, sorted; [] for None),
    drawn (own drawn kind or None), hand_sizes, seen (public count of each kind in rivers and melds), melds (per
    chair: kind, tiles, fed_by chair, claimed, added), rivers (per chair, in order: {tile, status} status "" /
    "claimed" / "won" / "dead"), last_discard, scores / stacks / jiao / di / quan / totals (stacks, jiao, di: the
    variants settled in stacks; quan: the others), alarms (per chair), claim (own pending options or None),
    claim_open (bool), legal (own legal actions as JSON), furiten (own), commitment, last_result, rules.
    """
    own = seat is not None
    hand: list[int] = []
    if seat is not None:
        c = h.counts[seat]
        hand = [k for k in range(NUM_KINDS) for _ in range(c[k])]
    melds: list[list[MeldView]] = [
        [
            {"kind": str(x.kind), "tile": x.tile, "tiles": list(x.tiles), "fed_by": x.fed_by, "claimed": x.claimed,
             "added": x.added}
            for x in ms
        ]
        for ms in h.melds
    ]
    rivers: list[list[RiverView]] = [[{"tile": k, "status": st} for k, st in r] for r in h.rivers]
    claim = None
    if seat is not None and h.phase in ("claim", "rob") and seat in h.window and seat not in h.responses:
        claim = [a.to_json() for a in h.window[seat]] + [{"type": "pass", "seat": seat}]
    winds = [(s - m.dealer) % 4 for s in range(4)]
    return {
        "variant": m.variant,
        "seat": seat,
        "players": list(m.players),
        "hand_no": m.hand_no,
        "dealer": m.dealer,
        "dealer_streak": m.streak,
        "winds": winds,
        "wind_names": [SEATS[w] for w in winds],
        "dice": h.dice,
        "wall_break": dict(h.wall_break),
        "wall_count": h.live,
        "phase": h.phase,
        "turn": h.turn,
        "last_four": h.last_four >= 0,
        "hand": hand,
        "drawn": h.drawn[seat] if seat is not None else None,
        "hand_sizes": [sum(c) for c in h.counts],
        "seen": list(h.seen),
        "melds": melds,
        "rivers": rivers,
        "last_discard": None if h.last_discard is None else {"seat": h.last_discard[0], "tile": h.last_discard[1]},
        "robbing": None if h.rob is None else {"seat": h.rob[0], "tile": h.rob[1]},
        "scores": list(m.ledger.scores),
        "stacks": ledger.stacks,
        "jiao": ledger.jiao,
        "di": ledger.di,
        "quan": ledger.quan,
        "totals": list(totals),
        "alarms": [list(a) for a in h.alarms],
        "claim": claim,
        "claim_open": h.phase in ("claim", "rob"),
        "legal": [a.to_json() for a in legal] if own else [],
        "furiten": h.furiten[seat] if seat is not None else None,
        "commitment": h.commitment,
        "last_result": m.last_result,
        "rules": dict(m.rules),
    }
