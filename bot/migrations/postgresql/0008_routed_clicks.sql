-- 0008 (PostgreSQL, as ../0008_routed_clicks.sql) (issue 20): DM clicks routed between processes. Discord delivers
-- every DM event to shard 0 only; the process running shard 0 queues a click on a table another process owns, and the
-- owner takes it (docs/sharding.md).

CREATE TABLE routed_clicks (
    interaction_id  BIGINT PRIMARY KEY,                -- Discord's id of the interaction: one row per click, ever
    shard_count     INTEGER NOT NULL,
    shard           INTEGER NOT NULL,                  -- the shard of the table's server: its owner takes the row
    match_id        BIGINT NOT NULL,
    payload         TEXT    NOT NULL,                  -- the INTERACTION_CREATE data (JSON); emptied once taken
    state           TEXT    NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'taken', 'dropped')),
    queued_at       BIGINT NOT NULL,                   -- Unix ms
    taken_at        BIGINT,
    taken_by        TEXT                               -- the process that took it (host:pid)
);

CREATE INDEX routed_clicks_queued ON routed_clicks (shard_count, shard, state);
