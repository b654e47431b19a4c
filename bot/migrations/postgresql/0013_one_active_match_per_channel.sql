-- 0013 (PostgreSQL, as ../0013_one_active_match_per_channel.sql): a channel has at most one active match. A start
-- whose COMMIT landed but whose answer was lost left two active matches in one channel when the host pressed Start
-- again. The newest match of such a channel stays; the older ones are aborted, with the hand in play (settled hands
-- stay in the ledger), and the bot closes their messages at its next start. The index keeps it so.

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
