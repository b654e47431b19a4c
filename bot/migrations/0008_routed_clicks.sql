-- 0008 (issue 20): DM clicks routed between processes. Discord delivers every DM event to shard 0 only; the process
-- running shard 0 queues a click on a table another process owns, and the owner takes it (docs/sharding.md). Used
-- with PostgreSQL only (one SQLite file serves one process, which owns every table); kept here so that both
-- dialects have the same schema and version.

CREATE TABLE routed_clicks (
    interaction_id  INTEGER PRIMARY KEY,               -- Discord's id of the interaction: one row per click, ever
    shard_count     INTEGER NOT NULL,
    shard           INTEGER NOT NULL,                  -- the shard of the table's server: its owner takes the row
    match_id        INTEGER NOT NULL,
    payload         TEXT    NOT NULL,                  -- the INTERACTION_CREATE data (JSON); emptied once taken
    state           TEXT    NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'taken', 'dropped')),
    queued_at       INTEGER NOT NULL,                  -- Unix ms
    taken_at        INTEGER,
    taken_by        TEXT                               -- the process that took it (host:pid)
);

CREATE INDEX routed_clicks_queued ON routed_clicks (shard_count, shard, state);
