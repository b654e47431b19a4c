"""``/record``'s ``others`` option (and the field of its form): the melds the other seats have shown, in the hand
notation, by the record's seats: ``W[123m:S][456m:S][789m:S] N[555p:E]`` (docs/record.md).

A scorer that reads the other seats' melds (Chizhou's 反包, ruling C9: :data:`SCORER_READS_SEATS`) is given them as
the table gives them, ``Situation.melds_by_seat``: four tuples of melds by seat, the winner's own melds those of the
hand. ``-`` says that no other seat shows a meld. The text is read as the hand is (full-width ``Ｗ［123m：S］``
too), a seat's name as its letter (``West``, ``西家``), a lower-case seat letter standing alone as the capital. The
melds entered are stored with the record's situation (``others``: each seat's melds in the notation, the winner's
empty), so the card is redrawn from them; they do not make another record of the same hand (the duplicate check
leaves them out). Any other variant refuses the option: its payments do not depend on them, and ignoring it would
let players believe they counted.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from typing import Any

import discord

from bot.errors import UserError
from bot.i18n import seat_name, t, variant_name
from engine.errors import ParseError
from engine.strong.lookahead import SCORER_READS_SEATS
from engine.tiles import NUM_KINDS, Hand, Meld, MeldKind, parse_hand, seat_index, tile_name
from engine.variants import Situation

#: How long the option may be: four seats of four melds with their feeders fit several times over.
OTHERS_LENGTH = 200
#: What a record says when no other seat shows a meld.
NONE = "-"
_SEATS = set("ESWN东南西北東")
_LOWER_SEATS = set("eswn")  # a seat only standing alone (see _split): an s after a number is a suit
_OPEN, _CLOSE = set("[(【"), set("])】")
_SEPARATORS = set(" \t\r\n,，、;；·")
#: A seat spelled out (West, 西家) is its letter: ``WEST[…]`` must not be read as the seats W, E, S and T.
_SEAT_WORDS = re.compile(r"(?i)(?<![a-z0-9])(east|south|west|north)(?![a-z])|(?<=[东南西北東])家")
EXAMPLE = "W[123m:S][456m:S][789m:S] N[555p:E]"

Seats = tuple[tuple[Meld, ...], tuple[Meld, ...], tuple[Meld, ...], tuple[Meld, ...]]


def judges_seats(variant: str) -> bool:
    """Whether ``variant``'s scorer reads the other seats' melds (the card says so when they were not entered)."""
    return variant in SCORER_READS_SEATS


def _split(text: str) -> list[tuple[int, str]]:
    """The seats and their melds' text, in the order written: a seat letter outside the brackets starts a seat (a
    lower-case one only standing alone: neither after a number, where s is a suit, nor in a word); a ``-`` or a
    ``:`` outside the brackets says nothing.

    >>> _split("w[555p:S] s[123m:W] -")
    [(2, '[555p:S] '), (1, '[123m:W] ')]
    """
    out: list[tuple[int, str]] = []
    depth = 0
    for i, ch in enumerate(text):
        alone = not (i and text[i - 1].isalnum()) and not (text[i + 1:i + 2].isascii() and text[i + 1:i + 2].isalpha())
        if depth == 0 and (ch in _SEATS or (ch in _LOWER_SEATS and alone)):
            out.append((seat_index(ch), ""))
            continue
        if depth == 0 and ch in "-:":  # W: [123m:S], W[123m:S] - : nothing more said
            continue
        if ch in _OPEN:
            depth += 1
        elif ch in _CLOSE:
            depth = max(0, depth - 1)
        if not out:
            if ch in _SEPARATORS:
                continue
            raise UserError("record.others_no_seat", example=EXAMPLE)
        out[-1] = (out[-1][0], out[-1][1] + ch)
    return out


def parse_others(text: str, winner: int, hand: Hand, lang: str) -> Seats:
    """The four seats' shown melds from ``text`` (the winner's are the hand's). Raises :class:`UserError` in
    ``lang`` on anything that cannot be at a table: no seat letter, a seat twice, the winner's seat, tiles that are
    not shown melds, more than four melds, a meld fed by its own seat, a chi not fed by the seat before, a fifth
    copy of a tile.

    >>> by_seat = parse_others("W[123m:S][456m:S][789m:S] N[555p:E]", 1, parse_hand("11z+1z"), "en")
    >>> [len(m) for m in by_seat], by_seat[2][0].fed_by
    ([0, 0, 3, 1], 1)
    >>> try:
    ...     parse_others("S[123m:E]", 1, parse_hand("11z+1z"), "en")
    ... except UserError as e:
    ...     print(e.message("en"))
    South is the winner: the winner's melds go in the hand. Nothing was recorded.
    """
    text = unicodedata.normalize("NFKC", text)  # full-width ［123m：S］ and Ｗ, as the hand is read
    text = _SEAT_WORDS.sub(lambda m: m.group(1)[0].upper() if m.group(1) else "", text)
    by_seat: list[tuple[Meld, ...]] = [(), (), (), ()]
    by_seat[winner] = hand.melds
    if text.strip() == NONE:
        return tuple(by_seat)  # type: ignore[return-value]  # four seats
    seen: set[int] = set()
    for seat, body in _split(text):
        name = seat_name(seat, lang)
        if seat in seen:
            raise UserError("record.others_twice", seat=name)
        seen.add(seat)
        if seat == winner:
            raise UserError("record.others_winner", seat=name)
        if not body.strip(" \t\r\n,，、;；·"):
            continue  # a seat with no melds
        try:
            shown = parse_hand(body)
        except ParseError as e:
            raise UserError("record.others_bad", seat=name, error=e.message(lang), example=EXAMPLE) from None
        if shown.concealed or shown.win_tile is not None:
            raise UserError("record.others_not_melds", seat=name, example=EXAMPLE)
        if len(shown.melds) > 4:
            raise UserError("record.others_too_many", seat=name)
        for m in shown.melds:
            if m.fed_by == seat:
                raise UserError("record.others_own_feeder", seat=name, meld=m.notation())
            if m.kind is MeldKind.CHI and m.fed_by is not None and m.fed_by != (seat - 1) % 4:
                raise UserError("record.others_chi_feeder", seat=name, meld=m.notation(),
                                before=seat_name((seat - 1) % 4, lang))
        by_seat[seat] = shown.melds
    if not seen:
        raise UserError("record.others_no_seat", example=EXAMPLE)
    counts = hand.all_counts
    for seat in range(4):
        if seat != winner:
            for m in by_seat[seat]:
                for k in m.tiles:
                    counts[k] += 1
    for k in range(NUM_KINDS):
        if counts[k] > 4:
            raise UserError("record.others_five", tile=tile_name(k))
    return tuple(by_seat)  # type: ignore[return-value]  # four seats


def with_others(text: str | None, variant: str, sit: Situation, hand: Hand,
                lang: str) -> tuple[Situation, dict[str, list[str]]]:
    """``sit`` with the other seats' melds ``text`` entered (unchanged when nothing was entered), and what the record
    stores of them in its situation (nothing when not entered). Refuses the option in a variant whose scorer does not
    read them."""
    if text is None or not text.strip():
        return sit, {}
    if not judges_seats(variant):
        raise UserError("record.others_not_in_variant", option=t("record.others.name", lang),
                        variant=variant_name(variant, lang))
    by_seat = parse_others(text, sit.winner, hand, lang)
    stored = ["" if s == sit.winner else "".join(m.notation() for m in by_seat[s]) for s in range(4)]
    return dataclasses.replace(sit, melds_by_seat=by_seat), {"others": stored}


def stored_others(situation: dict[str, Any], sit: Situation, hand: Hand) -> Situation:
    """The situation of a stored record with the other seats' melds it was scored with (none stored: as it is)."""
    stored = situation.get("others")
    if stored is None:
        return sit
    by_seat = tuple(hand.melds if s == sit.winner else parse_hand(stored[s]).melds if stored[s] else ()
                    for s in range(4))
    return dataclasses.replace(sit, melds_by_seat=by_seat)


def others_line(variant: str, situation: dict[str, Any], lang: str) -> str | None:
    """The card's line about the other seats' melds: those entered, or, in a variant that reads them, that its
    contracts on them (反包) were not judged; None in another variant."""
    stored = situation.get("others")
    if stored is None:
        return t("record.others_missing", lang) if judges_seats(variant) else None
    shown = [f"{seat_name(s, lang)} {melds}" for s, melds in enumerate(stored) if melds]
    return t("record.others_shown", lang, melds=" · ".join(shown) if shown else t("record.others_none", lang))


def others_field(form: discord.ui.Modal, variant: str, lang: str) -> discord.ui.TextInput[Any] | None:
    """The optional field for the other seats' melds, added to ``form`` in a variant that reads them (else None)."""
    if not judges_seats(variant):
        return None
    field: discord.ui.TextInput[Any] = discord.ui.TextInput(custom_id="mjrs-others", required=False,
                                                            max_length=OTHERS_LENGTH, placeholder=EXAMPLE)
    label = discord.ui.Label(text=t("record.form_others", lang)[:45], component=field,
                             description=t("record.form_others_desc", lang)[:100])
    form.add_item(label)
    return field
