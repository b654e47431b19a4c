-- 0015 (PostgreSQL, as ../0015_seated_players.sql): a player sits at one table at a time, whatever the deployment:
-- ``seated_players`` holds, per player, the channel of the table they sit at; a row counts only while its channel
-- has a lobby or an active match. The players of the active matches are claimed now (the newest match first).

CREATE TABLE seated_players (
    user_id     BIGINT PRIMARY KEY,
    channel_id  BIGINT NOT NULL                       -- the channel of the lobby or match they sit at
);
CREATE INDEX seated_players_by_channel ON seated_players (channel_id);

INSERT INTO seated_players (user_id, channel_id)
SELECT s.player_id, m.channel_id FROM match_seats s JOIN matches m ON m.id = s.match_id
WHERE m.status = 'active' AND s.player_id IS NOT NULL AND m.channel_id IS NOT NULL
ORDER BY m.id DESC
ON CONFLICT (user_id) DO NOTHING;
