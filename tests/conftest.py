"""Every test sees the engine's messages in words, as the bot and the CLI do: the string catalogue's module registers
the engine's translator on import (the engine itself holds no text)."""

from text import catalog as catalog  # noqa: F401
