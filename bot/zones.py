"""Time zone names a server may choose: the IANA names every host knows (``zoneinfo.available_timezones()``).

``zoneinfo.ZoneInfo`` also opens whatever file the host happens to have under its zone directory (``posix/Asia/
Shanghai``, ``right/UTC``, ``posixrules``): a server set to such a name worked on one host and failed everywhere on
another (one with only the ``tzdata`` package), so only the portable names are accepted, and a name stored earlier
that this host does not know is read as the default zone, with one warning in the log per name (not one per request).

>>> known_zone("Asia/Shanghai"), known_zone("posix/Asia/Shanghai"), known_zone("right/UTC"), known_zone("posixrules")
(True, False, False, False)
>>> zone_or_default("Europe/Paris", "Asia/Shanghai").key, zone_or_default("Mars/Olympus", "Asia/Shanghai").key
('Europe/Paris', 'Asia/Shanghai')
"""

from __future__ import annotations

import functools
import logging
import zoneinfo

log = logging.getLogger(__name__)

_warned: set[str] = set()


@functools.cache
def known_zones() -> frozenset[str]:
    """The IANA zone names of the ``tzdata`` package (a dependency: every host has them; read once). The host's
    own list (``zoneinfo.available_timezones()``) also holds ``localtime`` where /usr/share/zoneinfo has that link:
    the host's clock, not a zone a server chooses, and unknown to a host with only the package.

    >>> "Asia/Shanghai" in known_zones(), "localtime" in known_zones()
    (True, False)
    """
    try:
        from importlib.resources import files

        names = files("tzdata").joinpath("zones").read_text(encoding="utf-8").split()
    except (ImportError, OSError):  # no tzdata package: the host's names, less its own clock
        names = list(zoneinfo.available_timezones())
    return frozenset(names) - {"localtime"}


def known_zone(name: object) -> bool:
    """Whether ``name`` is a zone a server may choose."""
    return isinstance(name, str) and name in known_zones()


def zone_or_default(name: str, default: str) -> zoneinfo.ZoneInfo:
    """The zone ``name``; the ``default`` zone when this host does not know it (warned once per name)."""
    if known_zone(name):
        try:
            return zoneinfo.ZoneInfo(name)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
            pass
    if name not in _warned:
        _warned.add(name)
        log.warning("time zone %r is not known on this host: %s is used instead (/settings timezone sets another)",
                    name[:64] if isinstance(name, str) else name, default)
    return zoneinfo.ZoneInfo(default)
