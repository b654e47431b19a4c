-- 0014 (PostgreSQL, as ../0014_record_replaces.sql): a hand recorded in place of a voided one. A hand recorded
-- wrongly (the wrong winner, a wrong seat) is fixed by /correct void and /record again; the record made again names the
-- voided hand (/record replaces:<hand>) and, once confirmed, counts where that hand counted (its time: its season, its
-- week), not when the correction was made. NULL: an ordinary record, dated when it was proposed
-- (bot/store/records.py).
ALTER TABLE records ADD COLUMN replaces_hand BIGINT REFERENCES hands (id);
CREATE INDEX records_replacing ON records (replaces_hand);
