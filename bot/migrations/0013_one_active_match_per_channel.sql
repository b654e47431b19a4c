-- 0013: a channel has at most one active match. A start whose COMMIT landed but whose answer was lost (a connection
-- dropped as the answer was on its way) made the host press Start again and left two active matches in the channel,
-- both resumed after a restart: the same players got DMs and turn timers for a second, hidden table. The store now
-- refuses a second active match in a channel (``Store.start_match``: ``channel_busy``, or the same start found
-- again), and this index keeps it so. A database that already has such a pair keeps the newest match of the channel
-- (the one its channel showed); the older ones are aborted, the hand in play with them (settled hands stay in the
-- ledger), and the bot closes their messages at its next start (``Store.games_left_open``).

UPDATE hands SET status = 'aborted',
    ended_at = COALESCE((SELECT MAX(a.at) FROM actions a WHERE a.match_id = hands.match_id), hands.started_at)
WHERE status = 'active' AND match_id IN (
    SELECT m.id FROM matches m WHERE m.status = 'active' AND EXISTS (
        SELECT 1 FROM matches n WHERE n.channel_id = m.channel_id AND n.status = 'active' AND n.id > m.id));
UPDATE matches SET status = 'aborted', reason = 'a second active match in its channel',
    ended_at = COALESCE((SELECT MAX(a.at) FROM actions a WHERE a.match_id = matches.id), matches.started_at)
WHERE status = 'active' AND EXISTS (
    SELECT 1 FROM matches n WHERE n.channel_id = matches.channel_id AND n.status = 'active' AND n.id > matches.id);
CREATE UNIQUE INDEX matches_one_active_per_channel ON matches (channel_id) WHERE status = 'active';
