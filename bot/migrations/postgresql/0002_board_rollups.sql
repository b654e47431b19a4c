-- 0002 (PostgreSQL, as ../0002_board_rollups.sql): leaderboard roll-ups. A server's leaderboard must stay fast over 100,000+ hands, so finish_hand also adds
-- each human seat's result into a per-player all-time row and a per-player UTC-day row (same transaction as the
-- ledger). A period leaderboard sums the whole days after its start plus the raw ledger rows of the partial first
-- day, so any period start (any time zone) gives exactly the sum over the ledger.

CREATE TABLE board_totals (
    guild_id    BIGINT NOT NULL,
    variant     TEXT    NOT NULL,
    player_id   BIGINT NOT NULL REFERENCES players (user_id),
    hands       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    self_draws  INTEGER NOT NULL,
    deal_ins    INTEGER NOT NULL,
    draws       INTEGER NOT NULL,
    biggest     INTEGER NOT NULL,
    net         INTEGER NOT NULL,
    PRIMARY KEY (guild_id, variant, player_id)
);

CREATE TABLE board_days (
    guild_id    BIGINT NOT NULL,
    variant     TEXT    NOT NULL,
    day         INTEGER NOT NULL,                     -- at // 86400000 (UTC day number)
    player_id   BIGINT NOT NULL REFERENCES players (user_id),
    hands       INTEGER NOT NULL,
    wins        INTEGER NOT NULL,
    self_draws  INTEGER NOT NULL,
    deal_ins    INTEGER NOT NULL,
    draws       INTEGER NOT NULL,
    biggest     INTEGER NOT NULL,
    net         INTEGER NOT NULL,
    PRIMARY KEY (guild_id, variant, day, player_id)
);

INSERT INTO board_totals (guild_id, variant, player_id, hands, wins, self_draws, deal_ins, draws, biggest, net)
SELECT guild_id, variant, player_id, COUNT(*), SUM(won), SUM(self_draw), SUM(deal_in), SUM(drawn),
       MAX(CASE WHEN won = 1 THEN hand_value ELSE 0 END), SUM(amount)
FROM ledger WHERE player_id IS NOT NULL GROUP BY guild_id, variant, player_id;

INSERT INTO board_days (guild_id, variant, day, player_id, hands, wins, self_draws, deal_ins, draws, biggest, net)
SELECT guild_id, variant, at / 86400000, player_id, COUNT(*), SUM(won), SUM(self_draw), SUM(deal_in), SUM(drawn),
       MAX(CASE WHEN won = 1 THEN hand_value ELSE 0 END), SUM(amount)
FROM ledger WHERE player_id IS NOT NULL GROUP BY guild_id, variant, at / 86400000, player_id;

-- The wide covering index is no longer needed; the partial first day reads the ledger by time.
DROP INDEX ledger_board;
CREATE INDEX ledger_by_time ON ledger (guild_id, variant, at);
