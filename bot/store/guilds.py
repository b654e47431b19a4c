"""Server settings (audited) and players: the :class:`~bot.store.Store` methods of this topic."""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping
from datetime import datetime
from typing import Any

from bot.settings import InvalidSetting, check_house_rules, check_setting

from .backend import Connection
from .database import Database, completes
from .errors import StoreError
from .models import SETTING_DEFAULTS, AuditEntry, GuildSettings, from_ms, to_ms
from .sql import dumps, upsert_player

_JSON_SETTINGS = ("house_rules", "allowed_channels")


def _check_settings(changes: Mapping[str, Any]) -> None:
    """Refuse a change outside the declared settings (:func:`bot.settings.check_setting`) before any write."""
    for key, value in changes.items():
        if key not in SETTING_DEFAULTS:
            raise StoreError("bad_setting", field=key)
        try:
            check_setting(key, value)
        except InvalidSetting as e:
            raise _refused(e) from None


def _check_house_rules(variant: Any, rules: Any) -> None:
    try:
        check_house_rules(variant, rules)
    except InvalidSetting as e:
        raise _refused(e) from None


def _refused(e: InvalidSetting) -> StoreError:
    """The store's refusal of a value (quoted short: a forged list or mapping can be long)."""
    shown = repr(e.value)
    return StoreError("bad_setting_value", field=e.field, value=shown if len(shown) <= 60 else shown[:59] + "…",
                      allowed=e.allowed)


async def read_settings(conn: Connection, guild_id: int) -> GuildSettings:
    """A server's settings inside a transaction (defaults when it never changed any)."""
    row = await conn.one(
        "SELECT default_variant, wuhu_mode, house_rules, turn_seconds, claim_seconds, language, "
        "allowed_channels, hints, updated_at, ai_difficulty FROM guild_settings WHERE guild_id = ?",
        (guild_id,),
    )
    if row is None:
        return GuildSettings(guild_id=guild_id)
    return GuildSettings(
        guild_id=guild_id,
        default_variant=row[0],
        wuhu_mode=row[1],
        house_rules=json.loads(row[2]),
        turn_seconds=row[3],
        claim_seconds=row[4],
        language=row[5],
        allowed_channels=[int(c) for c in json.loads(row[6])],
        hints=bool(row[7]),
        updated_at=from_ms(row[8]),
        ai_difficulty=row[9],
    )


async def _change_settings(
    conn: Connection,
    guild_id: int,
    user_id: int,
    make_changes: Callable[[GuildSettings], Mapping[str, Any]],
    ms: int,
) -> GuildSettings:
    old = await read_settings(conn, guild_id)
    changes = make_changes(old)
    new_values = {k: getattr(old, k) for k in SETTING_DEFAULTS}
    audit = []
    for key, value in changes.items():
        if key == "allowed_channels":
            value = [int(c) for c in value]
        if key == "house_rules":
            value = {str(v): dict(r) for v, r in value.items()}
        if new_values[key] != value:
            audit.append((guild_id, user_id, key, dumps(new_values[key]), dumps(value), ms))
            new_values[key] = value
    if not audit:
        return old
    params: list[Any] = [guild_id]
    for key in SETTING_DEFAULTS:
        v = new_values[key]
        params.append(dumps(v) if key in _JSON_SETTINGS else (int(v) if isinstance(v, bool) else v))
    params.append(ms)
    cols = ", ".join(SETTING_DEFAULTS)
    updates = ", ".join(f"{c} = excluded.{c}" for c in [*SETTING_DEFAULTS, "updated_at"])
    await conn.execute(
        f"INSERT INTO guild_settings (guild_id, {cols}, updated_at) "
        f"VALUES ({', '.join('?' * (len(SETTING_DEFAULTS) + 2))}) "
        f"ON CONFLICT (guild_id) DO UPDATE SET {updates}",
        params,
    )
    await conn.executemany(
        "INSERT INTO settings_audit (guild_id, user_id, field, old_value, new_value, changed_at) "
        "VALUES (?, ?, ?, ?, ?, ?)",
        audit,
    )
    return await read_settings(conn, guild_id)


class GuildTopic(Database):
    """Server settings, their audit, and players' display names."""

    async def guild_settings(self, guild_id: int) -> GuildSettings:
        """The server's settings (defaults when it never changed any)."""
        async with self.transaction(write=False) as conn:
            return await read_settings(conn, guild_id)

    @completes
    async def update_guild_settings(
        self, guild_id: int, user_id: int, changes: Mapping[str, Any], at: datetime | None = None
    ) -> GuildSettings:
        """Change some settings; every field whose value really changes gets an audit row (who, old, new, when).

        Every value is checked against its declared range or choice set (:mod:`bot.settings`): a bad field or
        value raises ``StoreError`` and nothing is written.
        """
        _check_settings(changes)
        async with self.transaction() as conn:
            return await _change_settings(conn, guild_id, user_id, lambda _old: changes, to_ms(at))

    @completes
    async def set_house_rules(
        self, guild_id: int, user_id: int, variant: str, rules: Mapping[str, Any], at: datetime | None = None
    ) -> GuildSettings:
        """Replace one variant's house-rule overrides (audited as a change of ``house_rules``); read and written in
        one transaction, so two admins changing different variants at once both keep their change. A variant, rule
        or value outside the declared choices (:mod:`bot.settings`) raises ``StoreError``; nothing is written."""
        _check_house_rules(variant, rules)

        def change(current: GuildSettings) -> dict[str, Any]:
            house = {k: dict(v) for k, v in current.house_rules.items()}
            house[str(variant)] = dict(rules)
            return {"house_rules": house}

        async with self.transaction() as conn:
            return await _change_settings(conn, guild_id, user_id, change, to_ms(at))

    async def settings_audit(self, guild_id: int, limit: int = 50, *,
                             fields: Collection[str] | None = None) -> list[AuditEntry]:
        """The latest rows of a server's audit, newest first; ``fields``: only the rows of those fields (the
        settings, without the table, record and correction actions audited beside them)."""
        if fields is not None and not fields:
            return []
        only = f"AND field IN ({', '.join('?' * len(fields))}) " if fields is not None else ""
        async with self.transaction(write=False) as conn:
            rows = await conn.all(
                "SELECT user_id, field, old_value, new_value, changed_at FROM settings_audit "
                f"WHERE guild_id = ? {only}ORDER BY changed_at DESC, id DESC LIMIT ?",
                (guild_id, *(fields or ()), limit),
            )
        return [
            AuditEntry(guild_id, r[0], r[1], json.loads(r[2]) if r[2] is not None else None,
                       json.loads(r[3]) if r[3] is not None else None, from_ms(r[4]))
            for r in rows
        ]

    @completes
    async def upsert_player(self, user_id: int, display_name: str, at: datetime | None = None) -> None:
        """Remember (or refresh) a Discord user's display name."""
        async with self.transaction() as conn:
            await upsert_player(conn, user_id, display_name, to_ms(at))

    async def display_name(self, user_id: int) -> str | None:
        async with self.transaction(write=False) as conn:
            row = await conn.one("SELECT display_name FROM players WHERE user_id = ?", (user_id,))
        return row[0] if row else None
