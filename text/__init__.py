"""The words: the string catalogues (:mod:`text.catalog`, gettext ``.po`` files under ``data/locale``), the
Traditional Chinese (Taiwan) conversion (:mod:`text.hant`, OpenCC ``s2tw``) and which language a text is in
(:mod:`text.lang`: one default, :data:`text.lang.DEFAULT`).

A layer of its own, below the images and the bot and above the engine: ``cogs -> bot -> render -> text -> engine``.
It imports only the engine (whose translator :mod:`text.catalog` registers on import: the engine holds codes, not
words), Babel and OpenCC: no Discord, no Pillow. ``bot.store`` words its errors with it without loading an image
module, and the CLI prints the engine's messages with it. See docs/translating.md and docs/architecture.md.

Importing the package registers the engine's translator.
"""

from . import catalog as catalog  # noqa: F401 - registers the engine's translator
