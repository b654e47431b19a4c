"""Actions (what a seat asks for), events (what happened) and the table's errors.

Both are small frozen dataclasses with ``to_json()`` / ``from_json()`` to plain dicts of str / int / list, so the
store can persist them. Tiles are written in the hand notation of docs/rules/common.md (``"5m"``, ``"7z"``) in JSON and are
kinds 0-33 in Python.

>>> a = Action("discard", 2, 13)
>>> a.to_json()
{'type': 'discard', 'seat': 2, 'tile': '5p'}
>>> Action.from_json(a.to_json()) == a
True
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ..errors import EngineError, Msg, render_message
from ..tiles import make_kind, tile_name

ACTION_TYPES = ("discard", "win", "pung", "kong", "chi", "pass", "timeout", "next_hand")

class IllegalAction(EngineError):
    """An action that is not legal now (or not this seat's to make). The table is left unchanged."""


@dataclass(frozen=True, slots=True)
class Action:
    """One request by one seat (0-3, fixed chairs for the whole match).

    ``tile``: the discarded tile, the kong's tile, the pung's tile, or the LOWEST tile of a chi's run.
    """

    type: str
    seat: int
    tile: int | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "seat": self.seat}
        if self.tile is not None:
            out["tile"] = tile_name(self.tile)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Action:
        """Read an action; raises :class:`IllegalAction` (code ``bad_action`` / ``bad_action_json``) on bad data."""
        if not isinstance(data, Mapping):
            raise IllegalAction("bad_action_json", why="not an object")
        typ = data.get("type")
        if typ not in ACTION_TYPES:
            raise IllegalAction("bad_action", type=typ, known=", ".join(ACTION_TYPES))
        seat = data.get("seat")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat <= 3:
            raise IllegalAction("bad_seat_number", seat=seat)
        tile = data.get("tile")
        if tile is not None:
            tile = parse_tile(tile)
        return cls(typ, seat, tile)

    def message(self) -> Msg:
        """What this action does, as a message (catalogue key ``engine.action.<type>``, the tile as a parameter)."""
        return Msg(f"engine.action.{self.type}", {"tile": tile_name(self.tile) if self.tile is not None else ""},
                   fallback=self.type)

    def describe(self, lang: str = "en") -> str:
        """:meth:`message` in ``lang`` (through the registered translator, see :mod:`engine.errors`)."""
        msg = self.message()
        return render_message(msg.key, lang, params=msg.params)


def parse_tile(tile: Any) -> int:
    """A tile kind from a kind (0-33) or a name like ``5m``."""
    if isinstance(tile, int) and not isinstance(tile, bool) and 0 <= tile < 34:
        return tile
    if isinstance(tile, str) and len(tile) == 2 and tile[0] in "123456789" and tile[1] in "mpsz":
        if tile[1] == "z" and tile[0] in "89":
            raise IllegalAction("bad_action_json", why=f"no tile {tile}")
        return make_kind(int(tile[0]), tile[1])
    raise IllegalAction("bad_action_json", why=f"no tile {tile!r}")


@dataclass(frozen=True, slots=True)
class Event:
    """Something that happened. ``seat`` is the acting seat (or None); ``to`` set means only that seat may see the
    event in full (others see :meth:`for_seat`'s redacted copy). ``data`` holds plain JSON values."""

    type: str
    seat: int | None = None
    data: Mapping[str, Any] = field(default_factory=dict)
    to: int | None = None

    SECRET_KEYS = ("tile", "tiles", "hand")

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type}
        if self.seat is not None:
            out["seat"] = self.seat
        if self.to is not None:
            out["to"] = self.to
        out.update(self.data)
        return out

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Event:
        d = dict(data)
        typ = d.pop("type")
        seat = d.pop("seat", None)
        to = d.pop("to", None)
        return cls(typ, seat, d, to)

    def for_seat(self, seat: int | None) -> Event:
        """The event as ``seat`` may see it (None = a spectator): private details of other seats removed."""
        if self.to is None or self.to == seat:
            return self
        return Event(self.type, self.seat, {k: v for k, v in self.data.items() if k not in self.SECRET_KEYS}, self.to)
