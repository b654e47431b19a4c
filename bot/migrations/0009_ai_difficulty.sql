-- 0009 (issue 19): the server's AI difficulty, `ai_difficulty` (easy / normal / strong): how the AIs a lobby's
-- Add AI button and `/table addbot` without a difficulty add play. Checked by bot.settings.check_setting (no CHECK
-- constraint: a level added later needs no rebuild of the table). Existing servers keep today's behaviour (normal).

ALTER TABLE guild_settings ADD COLUMN ai_difficulty TEXT NOT NULL DEFAULT 'normal';
