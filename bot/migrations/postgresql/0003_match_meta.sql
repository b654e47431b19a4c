-- 0003 (PostgreSQL, as ../0003_match_meta.sql): what the bot keeps about a match beside the engine's settings, so that ``matches.settings`` stays exactly
-- what ``Table.new`` takes (and ``rebuild_table`` can read every match), and a restarted bot can find its messages.

CREATE TABLE match_meta (
    match_id  BIGINT PRIMARY KEY REFERENCES matches (id),
    meta      TEXT    NOT NULL DEFAULT '{}',          -- JSON: host, language, timers, hints, seats (names, languages)
    messages  TEXT    NOT NULL DEFAULT '{}'           -- JSON: the table message and each seat's DM with controls
);
