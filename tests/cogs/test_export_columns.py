"""/export's columns as a spreadsheet reads them: summed per player (a pivot table), every count nets a voided hand out
and gives what /stats shows; a Discord id stays whole."""

from __future__ import annotations

import csv
import io
import re

from tests.cogs.test_group import A, B, admin, h  # noqa: F401  (fixture: 9 Hefei hands of A, B, C and an AI)
from tests.harness import GUILD_ID, Harness
from tests.harness.db import sql

#: /stats' figure -> the export's column that sums to it
STATS_COLUMNS = {"Hands": "hands", "Wins": "won", "Self-draws": "self_draw", "Deal-ins": "deal_in", "Draws": "drawn",
                 "Net": "amount"}


def export_rows(r) -> list[dict]:
    [att] = r.reply.attachments
    lines = list(csv.reader(io.StringIO(r.reply.files[att.filename].decode("utf-8-sig"))))
    return [dict(zip(lines[0], line, strict=True)) for line in lines[1:]]


async def test_every_count_column_sums_to_what_stats_shows_after_a_void(h: Harness):  # noqa: F811
    """One of Bob's wins is voided. The void rows used to write 0 in won / deal_in / ... (and there was no hands
    column), so Bob's summed export still counted the voided win while /stats did not."""
    won = sql(h, "SELECT hand_id FROM ledger WHERE guild_id = ? AND player_id = ? AND won = 1 ORDER BY at LIMIT 1",
              (GUILD_ID, B))[0][0]
    await admin(h, "correct void", hand=won, reason="wrong winner")
    rows = [r for r in export_rows(await admin(h, "export")) if r["player_id"] == f"<@{B}>"]
    void = [r for r in rows if r["kind"] == "void"]
    assert len(void) == 1 and (void[0]["hands"], void[0]["won"]) == ("-1", "-1"), void
    text = (await h.slash("stats", player=B, season="all")).reply.content
    shown = {k: int(re.search(rf"{k} ([+-]?\d+)", text).group(1)) for k in STATS_COLUMNS}
    summed = {k: sum(int(r[col]) for r in rows) for k, col in STATS_COLUMNS.items()}
    assert summed == shown, text


async def test_discord_ids_survive_a_spreadsheet(h: Harness):  # noqa: F811
    """Discord ids have 19 digits; Excel and Google Sheets keep 15 significant digits of a number (Excel shows
    1.2E+18 and saves 1200000000000000000). Written as bare numbers, every player's id was lost as soon as the file
    was opened. They are text now, from which a script still reads the id."""
    await admin(h, "correct adjust", payer=A, payee=B, amount=3, reason="side bet", variant="hefei")
    rows = export_rows(await admin(h, "export"))
    ids = [r[col] for r in rows for col in ("player_id", "posted_by") if r[col]]
    assert ids and not [i for i in ids if re.fullmatch(r"[+-]?\d+", i)], ids[:3]
    assert {int(i.removeprefix("<@").removesuffix(">")) for i in ids} >= {A, B}
    assert {r["posted_by"] for r in rows if r["kind"] == "adjust"} == {f"<@{A}>"}  # the admin (the harness's user)
    assert {r["player_id"] for r in rows if r["ai"]} == {""}
