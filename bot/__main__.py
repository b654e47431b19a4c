"""``python -m bot`` = the ``mjbot`` command."""

import sys

from .cli import main

sys.exit(main())
