-- 0007 (PostgreSQL, as ../0007_lobbies.sql) (issue 10): what a restart must not lose besides the matches: the lobbies still filling up, and each
-- match's dissolve (解散) vote. Both are written before the change they describe takes effect.

CREATE TABLE lobbies (
    channel_id  BIGINT PRIMARY KEY,
    guild_id    BIGINT NOT NULL,
    state       TEXT    NOT NULL,                     -- JSON: host, variant, rules, language, timers, seats, message
    updated_at  BIGINT NOT NULL
);

CREATE TABLE match_votes (
    match_id  BIGINT PRIMARY KEY REFERENCES matches (id),
    held      INTEGER NOT NULL DEFAULT 0,             -- votes held so far in the match (numbers their buttons)
    vote      TEXT                                    -- JSON of the open vote (NULL: none): who, answers, message,
                                                      -- deadline (Unix ms)
);
