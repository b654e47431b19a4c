-- 0009 (PostgreSQL, as ../0009_ai_difficulty.sql) (issue 19): the server's AI difficulty, `ai_difficulty` (easy /
-- normal / strong): how the AIs a lobby's Add AI button and `/table addbot` without a difficulty add play. Existing
-- servers keep today's behaviour (normal).

ALTER TABLE guild_settings ADD COLUMN ai_difficulty TEXT NOT NULL DEFAULT 'normal';
