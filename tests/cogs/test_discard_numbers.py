"""The numbers under the tiles of a player's hand image are the numbers on their discard buttons.

Played through the harness (slash commands and button clicks only); the hand image's numbers are read from the
scene the bot drew (``render.discard_numbers`` and the hand layout's number boxes), the buttons from the DM the
fake Discord received.
"""

from __future__ import annotations

import re

import pytest

from bot.tables import tile_label
from engine.tiles import tile_name
from render.hand import hand_layout
from render.scene import HandScene, discard_numbers
from tests.cogs.test_tables import button_id, choose_click, controls, live, op_of, open_table, prep
from tests.harness import Harness

P1 = 7001
KIND_OF = {tile_name(k): k for k in range(34)}
LABEL = re.compile(r"^(\d+) · (.+)$")


def shown_numbers(scene: HandScene) -> dict[int, int]:
    """kind -> the number drawn under its tiles, as laid out (every run of identical tiles shows the same one)."""
    out: dict[int, int] = {}
    for nb in hand_layout(scene).numbers:
        assert out.setdefault(nb.kind, nb.number) == nb.number
    return out


@pytest.mark.parametrize(("variant", "locale", "lang"),
                         [("hefei", "en-US", "en"), ("wuhu", "zh-CN", "zh"), ("chizhou", "zh-TW", "zh-TW")])
async def test_discard_buttons_carry_the_numbers_under_the_tiles(harness: Harness, variant: str, locale: str,
                                                                 lang: str):
    h = harness
    prep(h, seed=3)
    await open_table(h, variant, locale=locale)
    lt = live(h)
    seat = lt.seat_of(P1)
    checked = 0
    for _ in range(600):
        tb = lt.table
        if checked >= 12 or tb.phase == "over":
            break
        if tb.phase == "ended":  # next hand, by the table's button
            table_msg = h.fake.find_message(lt.message_id)
            await h.click(table_msg, custom_id=button_id(table_msg, ":next"), user=P1)
            continue
        msg = h.dms(P1)[-1]
        cs = controls(msg)
        user, scene, _ = h.seen.private_images()[-1]
        assert user == P1
        discards = [c for c in cs if op_of(c) == "d"]
        if not discards:  # a claim offer, or nothing to do: no numbers under the tiles
            assert not scene.labels and hand_layout(scene).numbers == ()
        else:
            assert scene.labels
            numbers = discard_numbers(scene)
            assert shown_numbers(scene) == numbers  # the image shows the scene's numbers
            got = {}
            for c in discards:
                m = LABEL.match(c["label"])
                assert m, c["label"]
                kind = KIND_OF[c["custom_id"].split(":")[5]]
                assert m.group(2) == tile_label(kind, lang)
                got[kind] = int(m.group(1))
            # one button per kind held, with that kind's number, in the order of the numbers
            assert got == numbers
            assert [int(LABEL.match(c["label"]).group(1)) for c in discards] == sorted(numbers.values())
            # and the tiles in the scene are the seat's tiles now
            assert sorted(numbers) == sorted(set(tb.view(seat)["hand"]))
            checked += 1
        if not cs:
            await h.settle()
            if h.dms(P1)[-1] is msg and lt.table.phase in ("play", "claim", "rob"):
                pytest.fail("the human is awaited without controls")  # pragma: no cover
            continue
        await h.click(msg, custom_id=choose_click(msg))
    assert checked >= 12
