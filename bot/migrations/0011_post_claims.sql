-- 0011: a season's final board and a weekly report are posted at least once and never twice. Claiming a post and
-- noting it as posted are two steps: the claim (when, and for a final board the channel it goes to) is kept until
-- Discord took the post, so that a bot stopped while the post was in flight (or a database that failed to give the
-- claim back) leaves a claim the scheduler finds and posts again with the same nonce, which Discord makes the same
-- message. A final board or a week already noted as posted before this migration stays posted.

ALTER TABLE seasons ADD COLUMN final_claimed_at INTEGER;     -- a post of its final board in flight since then
ALTER TABLE seasons ADD COLUMN final_channel INTEGER;        -- where that post goes (a retry posts there too)
ALTER TABLE group_settings ADD COLUMN report_claim_week INTEGER;  -- the week whose report is in flight
ALTER TABLE group_settings ADD COLUMN report_claimed_at INTEGER;  -- since when
