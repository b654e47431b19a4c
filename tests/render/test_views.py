"""From a real table's per-seat views to images: the adapters read what the table state machine exposes."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from engine import table as table_mod
from render import hand_slots, render_hand, render_table
from render.hand import hand_layout
from render.table import WIDTH as TABLE_W
from render.table import table_layout
from render.views import hand_scene_from_view, table_scene_from_view

sys.path.insert(0, str(Path(__file__).parent))
from imgutil import open_png  # noqa: E402


def played_table(variant: str, seed: int, steps: int):
    """A table after ``steps`` actions: claims taken whenever offered (to get melds), else the engine's timeout."""
    t = table_mod.Table.new(variant, seed, players=("小明", "Alice", "王大锤", "Bob"))
    for _ in range(steps):
        if t.phase not in ("play", "claim", "rob"):
            break
        s = t.awaited()[0]
        claims = [a for a in t.legal_actions(s) if a.type in ("pung", "kong", "chi")]
        t.apply(claims[0] if claims else table_mod.Action("timeout", s))
    return t


@pytest.mark.parametrize("variant", ["wuhu", "hefei", "chizhou"])
def test_views_render_for_every_seat(variant):
    t = played_table(variant, 11, 120)
    public = t.view(None)
    scene = table_scene_from_view(public)
    assert [s.concealed_count for s in scene.seats] == public["hand_sizes"]
    assert [len(s.river) for s in scene.seats] == [len(r) for r in public["rivers"]]
    assert [s.wind for s in scene.seats] == public["winds"]
    assert open_png(render_table(scene)).width == TABLE_W
    assert table_layout(scene).shown_river_tile() >= 20  # on a 400 px phone screen
    for seat in range(4):
        view = t.view(seat)
        hs = hand_scene_from_view(view, labels=True)
        # every concealed tile is drawn once, the drawn tile apart
        assert sorted(hand_slots(hs)) == sorted(view["hand"])
        assert hs.drawn == view["drawn"]
        assert len(hs.melds) == len(view["melds"][seat])
        assert open_png(render_hand(hs)).width == hand_layout(hs).width
        assert hand_layout(hs).shown_tile() >= 36 and hand_layout(hs).shown_meld_tile() >= 36


def test_the_latest_discard_is_marked_in_its_river():
    t = played_table("wuhu", 3, 9)
    v = t.view(None)
    scene = table_scene_from_view(v)
    if v["last_discard"] is None:
        pytest.skip("no discard yet")
    s, i = scene.last_discard
    assert s == v["last_discard"]["seat"] and scene.seats[s].river[i] == v["last_discard"]["tile"]
