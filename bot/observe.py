"""What the bot reports as it works, for whoever listens: the scenes of the images it draws, how long a replay
image took. Tests and benchmarks attach a listener (the product classes keep no logs for them); with none attached
an event costs a loop over an empty list.

>>> seen = []
>>> observers = Observers()
>>> observers.attach(lambda what, data: seen.append((what, data["n"])))
>>> observers.emit("demo", n=1)
>>> seen
[('demo', 1)]

Events (``what``: the data):

* ``table_image``: ``kind`` (table, hand, score, match), ``scene``, ``seq`` (the table's), ``public``, ``user``
  (the player a private image is for, else None), before the table's image is drawn;
* ``score_card`` / ``record_card``: ``scene``, before ``/score``'s or ``/record``'s card is drawn;
* ``replay_step``: ``code``, ``step``, ``ms``, ``viewer``, ``scene``, after a replay step image was drawn;
* ``replay_animation``: ``code``, ``ms``, ``size`` (bytes), after a replay's animated file was made;
* ``review_card``: ``code``, ``viewer``, ``texts`` (the :class:`render.replay.CardText` lines drawn), after a hand's
  review card was drawn;
* ``match_review``: ``code``, ``viewer``, ``review`` (:class:`engine.review.MatchReview`), ``lang``, ``texts`` (the
  lines drawn), ``ms`` (drawing the card), after a match review card was drawn.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

#: ``(what, data)``: called in the emitting task; it must not block nor raise
Listener = Callable[[str, Mapping[str, Any]], None]


class Observers:
    """The listeners of one bot."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []

    def attach(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def detach(self, listener: Listener) -> None:
        self._listeners.remove(listener)

    def emit(self, what: str, **data: Any) -> None:
        for listener in tuple(self._listeners):
            listener(what, data)
