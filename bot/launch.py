"""The ``mjbot`` console script's entry point (and ``python -m bot``'s): :func:`main` imports the command's modules
(:mod:`bot.cli`: the engine, the catalogues; seconds on a first run) and runs :func:`bot.cli.main`.

A Ctrl-C while they load ends the command as one after (:func:`bot.cli.main`): the line "interrupted" and the exit
status 130, no traceback. This module and the package's ``__init__`` import nothing else, so that the whole load is
inside the ``try``.
"""

from __future__ import annotations

import sys

INTERRUPTED = 130  # the usual exit status of a command ended by Ctrl-C (128 + SIGINT)


def main() -> int:
    try:
        from .cli import main as run
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return INTERRUPTED
    return run()
