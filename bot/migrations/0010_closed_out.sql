-- 0010: a match that is over keeps its Discord messages listed (``match_meta.messages``) only until the bot has closed
-- them: controls removed, the end said in its channel. A bot stopped before that (killed right after `/table end` or
-- a match's last hand was stored) finds them at its next start (``Store.games_left_open``) and finishes the job.
-- Every match that was over before this migration was closed by the bot that ended it: its list is emptied, so that
-- no old match is closed a second time.

UPDATE match_meta SET messages = '{}' WHERE match_id IN (SELECT id FROM matches WHERE status <> 'active');
