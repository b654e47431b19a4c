"""Fixed example scenes: used by the benchmark, the golden-image tests and docs/images. Deterministic.

``python -m render.samples OUTDIR`` writes the contact sheet and one example of each image.
"""

from __future__ import annotations

import sys
from pathlib import Path

from engine.tiles import Meld, MeldKind, parse_hand

from .board import BoardLine, BoardScene, StatsScene
from .scene import HandScene, MatchScene, ScoreScene, SeatScene, TableScene

NAMES = ("小明", "Alice", "王大锤", "Bob the Builder")


def hand_scene() -> HandScene:
    """A 14-tile turn: a chi fed by the previous seat, a pung from across, the drawn tile apart, two hints."""
    return HandScene(
        concealed=tuple(parse_hand("2345m66p3478s中中").concealed),
        melds=(Meld(MeldKind.CHI, 11, fed_by=0, claimed=12),),
        drawn=22,
        seat=1,
        highlight=frozenset({18, 21}),
        labels=True,
        names=NAMES,
    )


def table_scene() -> TableScene:
    rivers = (
        (27, 0, 8, 33, 15, 26, 2, 30, 9, 17, 4),
        (31, 18, 29, 5, 24, 14, 10, 1, 28),
        (28, 30, 16, 3, 25, 19, 7, 6, 12, 23),
        (32, 9, 17, 26, 0, 20, 13, 11, 21, 2),
    )
    seats = (
        SeatScene("小明", melds=(Meld(MeldKind.PUNG, 33, fed_by=2),), river=rivers[0], concealed_count=10,
                  score=24, taken=frozenset({3})),
        SeatScene("Alice", melds=(Meld(MeldKind.CHI, 11, fed_by=0, claimed=12),), river=rivers[1],
                  concealed_count=11, score=-6),
        SeatScene("王大锤", melds=(Meld(MeldKind.PUNG, 4, fed_by=1), Meld(MeldKind.KONG, 6, fed_by=3, added=True),
                                  Meld(MeldKind.CONCEALED_KONG, 15)),
                  river=rivers[2], concealed_count=4, score=-30, alarms=("清一色",)),
        SeatScene("Bob the Builder", river=rivers[3], concealed_count=13, score=12, bot=True),
    )
    return TableScene(seats=seats, dealer=0, turn=3, last_discard=(2, 9), wall=47, dice=(3, 5), viewer=1,
                      title="芜湖 315 · 第 3 局")


def score_scene() -> ScoreScene:
    """A Wuhu win scored by the engine: 通天 on a discard from the dealer."""
    from engine.variants import Situation, get_variant

    hand = parse_hand("123m456m789m1p[555s:E]+1p")
    v = get_variant("wuhu")
    result = v.score(hand, Situation(winner=1, discarder=0))
    return ScoreScene.from_result(hand, result, NAMES, discarder=0, title=f"{v.zh} · 315")


def match_scene() -> MatchScene:
    deltas = [(16, -6, -5, -5), (-10, 30, -10, -10), (-3, -3, 9, -3), (0, 0, 0, 0), (-20, -20, 60, -20),
              (12, -4, -4, -4), (-8, 24, -8, -8), (-5, -5, -5, 15)]
    return MatchScene.from_deltas(NAMES, deltas, title="芜湖 315 · 8 局")


def board_scene() -> BoardScene:
    """A server's weekly board with the caller's own line highlighted."""
    return BoardScene("芜湖排行榜", "本周（11月23日起，北京时间）", (
        BoardLine(1, "小明", 135, 40, 12),
        BoardLine(2, "Alice", 60, 38, 10),
        BoardLine(3, "王大锤", 12, 20, 5, highlight=True),
        BoardLine(4, "Bob the Builder", -40, 33, 6),
        BoardLine(5, "張三豐", -167, 41, 4),
    ))


def stats_scene() -> StatsScene:
    series = (6, 2, -2, -2, 10, 26, 20, 16, 16, 48, 40, 36, 30, 30, 14, 10, 22, 22, 18, 35)
    return StatsScene("小明", "芜湖 · 全部时间", hands=20, wins=6, self_draws=2, deal_ins=4, draws=3,
                      biggest_hand=32, net=35, series=series)


def phone_screen(images: list[bytes], width: int = 400, background=(49, 51, 56)) -> bytes:
    """PNG of ``images`` as a phone shows them: each scaled to ``width`` px wide (Discord fits an image to the chat's
    width), one under the other. Used for docs/images/phone-*.png."""
    import io

    from PIL import Image

    shown = []
    for data in images:
        im = Image.open(io.BytesIO(data)).convert("RGB")
        shown.append(im.resize((width, round(im.height * width / im.width)), Image.Resampling.LANCZOS))
    gap = 12
    screen = Image.new("RGB", (width, sum(im.height for im in shown) + gap * (len(shown) - 1)), background)
    y = 0
    for im in shown:
        screen.paste(im, (0, y))
        y += im.height + gap
    buf = io.BytesIO()
    screen.save(buf, "PNG", optimize=True)
    return buf.getvalue()


def write_examples(out: Path) -> list[Path]:
    """Write docs images: the contact sheet and one example of each image (dark), plus light/English variants."""
    from .board import render_board, render_stats
    from .card import render_score
    from .hand import render_hand
    from .match import render_match
    from .table import render_table
    from .tiles import contact_sheet

    out.mkdir(parents=True, exist_ok=True)
    paths = []

    def w(name: str, data: bytes) -> None:
        p = out / name
        p.write_bytes(data)
        paths.append(p)

    import io

    buf = io.BytesIO()
    contact_sheet(72).save(buf, "PNG", optimize=True)
    w("tiles.png", buf.getvalue())
    w("hand.png", render_hand(hand_scene()))
    w("phone-after.png", phone_screen([render_hand(hand_scene()), render_table(table_scene())]))
    w("hand-light-en.png", render_hand(hand_scene(), "light", "en"))
    w("table.png", render_table(table_scene()))
    w("table-light-en.png", render_table(table_scene(), "light", "en"))
    w("score.png", render_score(score_scene()))
    w("score-light-en.png", render_score(score_scene(), "light", "en"))
    w("match.png", render_match(match_scene()))
    w("board.png", render_board(board_scene()))
    w("stats.png", render_stats(stats_scene()))
    return paths


def folder_argument(what: str, argv: list[str] | None = None) -> Path:
    """The one argument of ``python -m render.samples`` and ``python -m render.replay``: the folder to write
    ``what`` into (``docs/images`` by default); ``--help`` explains and writes nothing.

    >>> folder_argument("pictures", []), folder_argument("pictures", ["/tmp/x"])
    (PosixPath('docs/images'), PosixPath('/tmp/x'))
    """
    import argparse

    parser = argparse.ArgumentParser(description=f"Write {what} (PNG and GIF files) into a folder.")
    parser.add_argument("folder", nargs="?", default="docs/images", help="where to write them (default: docs/images)")
    return Path(parser.parse_args(argv).folder)


if __name__ == "__main__":
    for p in write_examples(folder_argument("the documentation's example pictures", sys.argv[1:])):
        print(p)
