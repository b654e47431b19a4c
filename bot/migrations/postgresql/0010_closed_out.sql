-- 0010 (PostgreSQL, as ../0010_closed_out.sql): a match that is over keeps its Discord messages listed
-- (``match_meta.messages``) only until the bot has closed them: controls removed, the end said in its channel. A bot
-- stopped before that finds them at its next start (``Store.games_left_open``) and finishes the job. Every match that
-- was over before this migration was closed by the bot that ended it: its list is emptied.

UPDATE match_meta SET messages = '{}' WHERE match_id IN (SELECT id FROM matches WHERE status <> 'active');
