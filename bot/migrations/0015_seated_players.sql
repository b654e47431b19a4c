-- 0015: a player sits at one table at a time, in every server and whatever the deployment. Each process checked only
-- its own players, so with several processes (shards) one player could sit at a lobby or match of each. The store
-- now judges: ``seated_players`` holds, per player, the channel of the table they sit at. A lobby's write makes the
-- channel's rows exactly its players (a second row for a player seated elsewhere is refused: ``seated_elsewhere``),
-- and the match started from it keeps them. A row counts only while its channel still has a lobby or an active match
-- (the tables' own rows): when the table is gone, however it went (ended, dissolved, aborted, its channel deleted, or
-- the process killed before it said so), the row is stale and the player's next seat replaces it
-- (``bot/store/lobbies.py``). The players of the active matches are claimed now; those of a stored lobby on its next
-- write.

CREATE TABLE seated_players (
    user_id     INTEGER PRIMARY KEY,
    channel_id  INTEGER NOT NULL                      -- the channel of the lobby or match they sit at
);
CREATE INDEX seated_players_by_channel ON seated_players (channel_id);

INSERT OR IGNORE INTO seated_players (user_id, channel_id)
SELECT s.player_id, m.channel_id FROM match_seats s JOIN matches m ON m.id = s.match_id
WHERE m.status = 'active' AND s.player_id IS NOT NULL AND m.channel_id IS NOT NULL
ORDER BY m.id DESC;
