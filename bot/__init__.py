"""The bot: configuration, create_bot(), the table lifecycle, the store, the CLI.

Importing it loads the string catalogue's module (:mod:`text.catalog`), which registers the engine's translator:
every entry point (the bot, ``mjbot score``, ``mjbot local``) shows the engine's messages in words.
"""

import text  # noqa: F401 - registers the engine's translator
