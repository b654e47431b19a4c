-- 0005 (PostgreSQL, as ../0005_records.sql) (the group's memory, issue 14): per-server settings for replays (and, later, hands recorded in person).
-- A missing row = the defaults declared in bot/settings.py (REPLAYS_SHOW_ALL_HANDS_DEFAULT).

CREATE TABLE memory_settings (
    guild_id                BIGINT PRIMARY KEY,
    replays_show_all_hands  INTEGER NOT NULL DEFAULT 1 CHECK (replays_show_all_hands IN (0, 1)),
    updated_at              BIGINT NOT NULL
);
