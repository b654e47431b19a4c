-- 0001: the initial schema. Standard SQL (types, constraints, indexes) so that a PostgreSQL backend can reuse it
-- with INTEGER -> BIGINT for Discord ids and timestamps. Timestamps are integer milliseconds since the Unix epoch
-- (UTC), always passed in by the caller. JSON is stored as TEXT.

-- Per-server settings. Missing row = all defaults.
CREATE TABLE guild_settings (
    guild_id         INTEGER PRIMARY KEY,
    default_variant  TEXT    NOT NULL DEFAULT 'wuhu',
    wuhu_mode        INTEGER NOT NULL DEFAULT 315,
    house_rules      TEXT    NOT NULL DEFAULT '{}',   -- JSON {variant: {rule key: value}}
    turn_seconds     INTEGER NOT NULL DEFAULT 60,
    claim_seconds    INTEGER NOT NULL DEFAULT 15,
    language         TEXT    NOT NULL DEFAULT 'zh',
    allowed_channels TEXT    NOT NULL DEFAULT '[]',   -- JSON [channel id, ...]; empty = every channel
    hints            INTEGER NOT NULL DEFAULT 1,
    updated_at       INTEGER NOT NULL
);

-- Who changed which setting, from what to what, when. One row per changed field.
CREATE TABLE settings_audit (
    id         INTEGER PRIMARY KEY,
    guild_id   INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    field      TEXT    NOT NULL,
    old_value  TEXT,                                  -- JSON
    new_value  TEXT,                                  -- JSON
    changed_at INTEGER NOT NULL
);
CREATE INDEX settings_audit_by_guild ON settings_audit (guild_id, changed_at);

-- Discord users with their last known display name.
CREATE TABLE players (
    user_id      INTEGER PRIMARY KEY,
    display_name TEXT    NOT NULL,
    updated_at   INTEGER NOT NULL
);

-- A match is the unit of replay: (variant, settings snapshot, seed, ordered actions) -> state.
CREATE TABLE matches (
    id          INTEGER PRIMARY KEY,
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    variant     TEXT    NOT NULL,
    settings    TEXT    NOT NULL,                     -- JSON snapshot taken at the start
    seed        TEXT    NOT NULL,
    status      TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished', 'aborted')),
    start_hash  TEXT,                                 -- state hash before the first action
    final_hash  TEXT,
    reason      TEXT,                                 -- why it was aborted
    started_at  INTEGER NOT NULL,
    ended_at    INTEGER
);
CREATE INDEX matches_by_status ON matches (status);
CREATE INDEX matches_by_guild ON matches (guild_id, started_at);

-- The four seats of a match and the match's running totals.
CREATE TABLE match_seats (
    match_id     INTEGER NOT NULL REFERENCES matches (id),
    seat         INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    player_id    INTEGER REFERENCES players (user_id),
    ai           TEXT,                                -- AI marker (difficulty) when no player sits here
    total        INTEGER NOT NULL DEFAULT 0,
    stack_total  INTEGER NOT NULL DEFAULT 0,
    jiao_total   INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (match_id, seat),
    CHECK ((player_id IS NULL) <> (ai IS NULL))
);
CREATE INDEX match_seats_by_player ON match_seats (player_id);

CREATE TABLE hands (
    id               INTEGER PRIMARY KEY,
    match_id         INTEGER NOT NULL REFERENCES matches (id),
    number           INTEGER NOT NULL,
    seed             TEXT    NOT NULL,
    wall_commitment  TEXT,
    status           TEXT    NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'finished', 'aborted')),
    state_hash       TEXT,                            -- state hash when the hand ended
    started_at       INTEGER NOT NULL,
    ended_at         INTEGER,
    UNIQUE (match_id, number)
);

-- Every action of a match, in order. (match_id, seq) is the primary key: nothing is recorded twice.
CREATE TABLE actions (
    match_id    INTEGER NOT NULL REFERENCES matches (id),
    seq         INTEGER NOT NULL CHECK (seq >= 0),
    hand_id     INTEGER REFERENCES hands (id),
    action      TEXT    NOT NULL,                     -- JSON, the engine's Action.to_json()
    state_hash  TEXT,                                 -- state hash after this action
    at          INTEGER NOT NULL,
    PRIMARY KEY (match_id, seq)
);

-- The 子 ledger: one row per seat per finished hand; amounts sum to 0 per hand (checked by the store).
-- guild_id, variant, player_id and at are copied from the match so that leaderboards read one table.
CREATE TABLE ledger (
    hand_id      INTEGER NOT NULL REFERENCES hands (id),
    seat         INTEGER NOT NULL CHECK (seat BETWEEN 0 AND 3),
    match_id     INTEGER NOT NULL REFERENCES matches (id),
    guild_id     INTEGER NOT NULL,
    variant      TEXT    NOT NULL,
    player_id    INTEGER REFERENCES players (user_id),
    ai           TEXT,
    amount       INTEGER NOT NULL,                    -- the seat's result for the hand (stack + 交 in Wuhu)
    stack_amount INTEGER NOT NULL DEFAULT 0,          -- Wuhu: out of / into the 底 stack
    jiao_amount  INTEGER NOT NULL DEFAULT 0,          -- Wuhu: the separate 交 tally
    won          INTEGER NOT NULL DEFAULT 0,
    self_draw    INTEGER NOT NULL DEFAULT 0,
    deal_in      INTEGER NOT NULL DEFAULT 0,
    drawn        INTEGER NOT NULL DEFAULT 0,          -- the hand was a draw (流局)
    hand_value   INTEGER NOT NULL DEFAULT 0,          -- the winner's hand value (what it collected)
    at           INTEGER NOT NULL,
    PRIMARY KEY (hand_id, seat)
);
-- Covering index for leaderboards: every column a leaderboard reads, grouped by player.
CREATE INDEX ledger_board ON ledger
    (guild_id, variant, player_id, at, amount, won, self_draw, deal_in, drawn, hand_value);
CREATE INDEX ledger_by_player ON ledger (player_id, guild_id, at);
