"""The server's AI difficulty (issue 19): ``/settings ai_difficulty`` sets how the AIs a lobby's **Add AI** button and
``/table addbot`` without a difficulty add play (read when the AI is added, from the click's own read of the
server's settings, ``cogs.tables``; :meth:`bot.tables.manager.TableManager.add_ai` given none reads it itself: an AI
already seated keeps its own). Written through the store's audited ``update_guild_settings``.

>>> difficulty_name("strong", "zh"), difficulty_name("strong", "en")
('强', 'strong')
"""

from __future__ import annotations

from typing import Any

from discord import app_commands

from bot.errors import UserError
from bot.i18n import locale_str, t
from bot.options import shown_value
from bot.settings import AI_DIFFICULTIES, GuildSettings

#: ``/settings ai_difficulty``'s choices, named as ``/table addbot``'s difficulty option names them
AI_CHOICES = [app_commands.Choice(name=locale_str(f"choice.difficulty.{d}"), value=d) for d in AI_DIFFICULTIES]


def difficulty_name(value: Any, lang: str) -> str:
    """The name ``/table addbot`` shows for a difficulty (a value from an older version: as stored, short)."""
    return t(f"choice.difficulty.{value}", lang) if value in AI_DIFFICULTIES else str(value)[:20]


def check_ai_difficulty(value: Any, lang: str) -> None:
    """Refuse (a message saying what is allowed; nothing written) a value no client offers: a forged option (None:
    the option was not given)."""
    if value is not None and value not in AI_DIFFICULTIES:
        raise UserError("settings.bad_choice", field=t("settings.field.ai_difficulty", lang), value=shown_value(value),
                        allowed="/".join(difficulty_name(d, lang) for d in AI_DIFFICULTIES))


async def set_ai_difficulty(store: Any, guild_id: int, user_id: int, before: GuildSettings, value: str,
                            lang: str) -> tuple[GuildSettings, str]:
    """Write the server's AI difficulty (audited when it changes); the new settings and the line saying so."""
    check_ai_difficulty(value, lang)
    new: GuildSettings = await store.update_guild_settings(guild_id, user_id, {"ai_difficulty": value})
    key = "settings.ai_difficulty.changed" if new.ai_difficulty != before.ai_difficulty else "settings.unchanged"
    return new, t(key, lang, field=t("settings.field.ai_difficulty", lang),
                  value=difficulty_name(new.ai_difficulty, lang))
