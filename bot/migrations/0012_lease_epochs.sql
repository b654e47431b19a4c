-- 0012: a fence for the tables of several processes (docs/sharding.md). The process that takes a shard's lease bumps
-- the shard's epoch before it resumes the shard's tables; every write of a table (an action, a hand, a settlement, a
-- match's start and end) checks, in its own transaction, that the epoch is still the one its process took. A process
-- that lost the lease and has not noticed yet can then no longer write: its write either commits before the new
-- owner reads the store, or is refused. Used with PostgreSQL only (one SQLite file serves one process); kept here so
-- that both dialects have the same schema and version.

CREATE TABLE lease_epochs (
    shard_count  INTEGER NOT NULL,
    shard        INTEGER NOT NULL,
    epoch        INTEGER NOT NULL,                  -- bumped each time a process takes the lease
    PRIMARY KEY (shard_count, shard)
);
