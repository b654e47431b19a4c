"""``python -m bot`` = the ``mjbot`` command."""

import sys

from .launch import main

sys.exit(main())
