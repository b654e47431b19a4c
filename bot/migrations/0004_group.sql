-- 0004 (group): running a group - time zone, weekly report, seasons, corrections, the first-time walk-through.
-- Nothing here edits the ledger: a correction is a set of rows of its own (correction_rows), zero-sum like a hand,
-- and readers add them to the ledger's rows. Timestamps are integer milliseconds since the Unix epoch (UTC).

-- Per-server settings for running a group (a missing row = the defaults). Kept apart from guild_settings.
CREATE TABLE group_settings (
    guild_id          INTEGER PRIMARY KEY,
    timezone          TEXT    NOT NULL DEFAULT 'Asia/Shanghai',   -- IANA name (zoneinfo)
    report_channel    INTEGER,                                   -- weekly report channel; NULL = no report
    report_weekday    INTEGER NOT NULL DEFAULT 0 CHECK (report_weekday BETWEEN 0 AND 6),  -- 0 = Monday
    last_report_week  INTEGER,          -- the week last posted: day number (proleptic ordinal) of its local Monday
    welcomed_at       INTEGER,          -- when the first-time walk-through was posted (it never is twice)
    updated_at        INTEGER NOT NULL
);

-- Seasons: at most one open season (ended_at IS NULL) per server; hands in [started_at, ended_at) belong to it.
CREATE TABLE seasons (
    id              INTEGER PRIMARY KEY,
    guild_id        INTEGER NOT NULL,
    number          INTEGER NOT NULL,            -- 1, 2, 3 ... per server
    name            TEXT    NOT NULL,
    channel_id      INTEGER,                     -- where it was started: its final board is posted there
    started_at      INTEGER NOT NULL,
    ends_at         INTEGER,                     -- planned end (optional)
    ended_at        INTEGER,                     -- when it really ended (next season started / end date passed)
    final_posted_at INTEGER,                     -- when its final board was posted
    created_by      INTEGER NOT NULL,
    UNIQUE (guild_id, number)
);
CREATE INDEX seasons_open ON seasons (ended_at, ends_at);

-- Corrections: a voided hand or an adjustment between members, with who, why and when.
-- ``at`` is when it counts: a void counts at its hand's time (so the hand nets to nothing in every period that
-- holds it), an adjustment when it was posted. ``posted_at`` is when it was entered.
CREATE TABLE corrections (
    id         INTEGER PRIMARY KEY,
    guild_id   INTEGER NOT NULL,
    kind       TEXT    NOT NULL CHECK (kind IN ('void', 'adjust')),
    hand_id    INTEGER UNIQUE REFERENCES hands (id),   -- the voided hand (a hand is voided at most once)
    variant    TEXT    NOT NULL,
    reason     TEXT    NOT NULL,
    user_id    INTEGER NOT NULL,                         -- who posted it
    at         INTEGER NOT NULL,
    posted_at  INTEGER NOT NULL,
    CHECK ((kind = 'void') = (hand_id IS NOT NULL))
);
CREATE INDEX corrections_by_guild ON corrections (guild_id, at);

-- The correction's rows: one per seat it moves (amounts sum to zero per correction, checked by the store). A void
-- negates its hand's rows, counters included (hands -1, wins -won ...), so sums over ledger + correction_rows are
-- what the ledger would say without the hand.
CREATE TABLE correction_rows (
    correction_id  INTEGER NOT NULL REFERENCES corrections (id),
    seat           INTEGER NOT NULL,             -- the hand's seat for a void; 0 / 1 (from / to) for an adjustment
    guild_id       INTEGER NOT NULL,
    variant        TEXT    NOT NULL,
    player_id      INTEGER REFERENCES players (user_id),
    ai             TEXT,
    amount         INTEGER NOT NULL,
    stack_amount   INTEGER NOT NULL DEFAULT 0,
    jiao_amount    INTEGER NOT NULL DEFAULT 0,
    hands          INTEGER NOT NULL DEFAULT 0,
    wins           INTEGER NOT NULL DEFAULT 0,
    self_draws     INTEGER NOT NULL DEFAULT 0,
    deal_ins       INTEGER NOT NULL DEFAULT 0,
    draws          INTEGER NOT NULL DEFAULT 0,
    at             INTEGER NOT NULL,
    PRIMARY KEY (correction_id, seat)
);
CREATE INDEX correction_rows_by_time ON correction_rows (guild_id, variant, at);
CREATE INDEX correction_rows_by_player ON correction_rows (player_id, guild_id, at);
