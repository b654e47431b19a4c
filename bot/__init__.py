"""The bot: configuration, create_bot(), the table lifecycle, the store, the CLI.

Importing the package loads nothing else (the console script's entry point, :mod:`bot.launch`, catches a Ctrl-C while
the command's modules load). Every module of it that words a message imports :mod:`text`, whose catalogue module
registers the engine's translator: every entry point (the bot, ``mjbot score``, ``mjbot local``) shows the engine's
messages in words.
"""
