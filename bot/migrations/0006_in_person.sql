-- 0006 (the group's memory, issue 14): hands played in person and recorded with /record.
-- A record is a proposal (the hand as typed, scored with the server's variant and house rules at that moment) that
-- every paying player confirms; on the last confirmation one transaction writes a finished match of one hand and its
-- ledger rows with source 'in_person', so every ledger reader (boards, stats, history, export, corrections) sees it.

-- Where a ledger row comes from: a hand played on Discord, or one played at a real table and recorded.
ALTER TABLE ledger ADD COLUMN source TEXT NOT NULL DEFAULT 'played' CHECK (source IN ('played', 'in_person'));

-- How long a record waits for its confirmations (bot/settings.py RECORD_EXPIRY_HOURS); audited like every setting.
ALTER TABLE memory_settings ADD COLUMN record_expiry_hours INTEGER NOT NULL DEFAULT 24
    CHECK (record_expiry_hours BETWEEN 1 AND 168);

CREATE TABLE records (
    id           INTEGER PRIMARY KEY,
    guild_id     INTEGER NOT NULL,
    channel_id   INTEGER NOT NULL,
    message_id   INTEGER,                              -- the public card with the buttons (NULL until posted)
    proposer_id  INTEGER NOT NULL,
    hand_text    TEXT    NOT NULL,                     -- as typed, spaces removed
    variant      TEXT    NOT NULL,
    rules        TEXT    NOT NULL,                     -- JSON: the house rules the hand was scored with
    situation    TEXT    NOT NULL,                     -- JSON: winner / discarder seats, flags, dealer streak
    hand_value   INTEGER NOT NULL,                     -- what the winner collects
    lang         TEXT    NOT NULL DEFAULT 'zh',        -- the language the card was posted in
    status       TEXT    NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'confirmed', 'rejected', 'expired')),
    created_at   INTEGER NOT NULL,
    expires_at   INTEGER NOT NULL,
    decided_at   INTEGER,
    decided_by   INTEGER,                              -- who rejected, or whose confirmation was the last
    match_id     INTEGER REFERENCES matches (id),      -- the match written on confirmation
    hand_id      INTEGER REFERENCES hands (id),
    card_stale   INTEGER NOT NULL DEFAULT 0            -- 1: the card shows an older state (expired, or an edit
                                                       -- Discord failed); the scheduler redraws it, even after a restart
);
CREATE INDEX records_pending ON records (status, expires_at);
CREATE INDEX records_by_match ON records (match_id);
CREATE INDEX records_stale ON records (card_stale);

-- The four seats (0-3 = E S W N, E the dealer) of a record: the player, the proposed amounts, and for a paying
-- seat its confirmation (who pressed: the player or a Manage Server member for them, and when).
CREATE TABLE record_seats (
    record_id     INTEGER NOT NULL REFERENCES records (id),
    seat          INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    player_id     INTEGER NOT NULL,
    display_name  TEXT    NOT NULL,                    -- as Discord showed it when proposed
    amount        INTEGER NOT NULL,
    stack_amount  INTEGER NOT NULL DEFAULT 0,
    jiao_amount   INTEGER NOT NULL DEFAULT 0,
    confirmed_by  INTEGER,
    confirmed_at  INTEGER,
    PRIMARY KEY (record_id, seat),
    UNIQUE (record_id, player_id)
);
