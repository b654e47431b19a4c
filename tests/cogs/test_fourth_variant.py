"""A fourth variant, registered as a real one would be (its module's ``VARIANT`` plus its key), goes through the bot
as the three do: ``/score`` (breakdown, card image, the example shown with a refused hand, the Record button),
``/record``, ``/rules`` and the table image. Nothing outside the engine knows a variant's key
(tests/cogs/test_variants_complete.py checks what each real variant must supply)."""

from __future__ import annotations

import pytest

from engine.table import Table
from engine.variants import get_variant
from render.views import table_scene_from_view
from tests.engine.test_fourth_variant import TOY
from tests.engine.test_fourth_variant import toy as toy  # noqa: F401 - the fixture registering the toy variant
from tests.harness import USER_ID, Harness
from tests.harness.db import sql

A, B, C, D = USER_ID, USER_ID + 1, USER_ID + 2, USER_ID + 3


@pytest.fixture
async def h(toy, tmp_path):  # noqa: F811 - the fixture above
    harness = await Harness.boot(tmp_path / "bot.db")
    for p, n in ((A, "Ann"), (B, "Bob"), (C, "Cid"), (D, "Dee")):
        harness.fake.add_user(p, n)
    try:
        yield harness
    finally:
        await harness.close()


async def test_score_scores_draws_and_offers_to_record_a_fourth_variants_hand(h: Harness):
    assert get_variant("toy") is TOY
    r = await h.slash("score", hand=TOY.example, variant="toy", discarder="W")
    reply = r.reply
    assert not reply.ephemeral and "__Payments__" in reply.content
    assert "South +3" in reply.content and "West -3" in reply.content
    assert len(reply.images) == 1
    record = reply.component(label="Record this hand")
    assert record["custom_id"].startswith("mjrs:t:SW:")


async def test_a_refused_fourth_variant_hand_shows_its_example(h: Harness):
    r = await h.slash("score", hand="123456789m123p5p+7s", variant="toy")
    assert r.reply.ephemeral and TOY.example in r.reply.content


async def test_record_proposes_a_fourth_variants_hand(h: Harness):
    r = await h.slash("record", user=B, hand=TOY.example, variant="toy", winner=B, discarder=C,
                      east=A, south=B, west=C, north=D)
    assert not r.reply.ephemeral and len(r.reply.images) == 1
    assert "South +3 (winner) · West -3" in r.reply.content
    assert sql(h, "SELECT variant, status FROM records ORDER BY id DESC LIMIT 1") == [("toy", "pending")]


async def test_rules_explains_a_fourth_variant_by_its_house_rules(h: Harness):
    r = await h.slash("rules", variant="toy", locale="en-US")
    [embed] = r.reply.embeds
    assert [f["name"] for f in embed["fields"]] == ["House rules on this server"]  # no summary sections: none written
    assert "rounds" in embed["fields"][0]["value"]


def test_a_fourth_variants_table_is_drawn(toy):  # noqa: F811
    from render import render_table

    png = render_table(table_scene_from_view(Table.new("toy", 1).view(None)))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
