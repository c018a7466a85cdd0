/** Version 7 of the SQLite schema (the conventions are in index.ts). */
import type { Migration } from './migration.js';

/*
 * Node liveness (docs/multinode.md, "Node liveness"): a row per serving node, heartbeated; a
 * node whose heartbeat is too old is removed and its leases released. One node per SQLite file,
 * but its row is kept all the same: a restart after a crash hands the old node's leases back as
 * soon as its heartbeat is too old. Not copied by `migrate-store` (it describes running processes).
 */
export const MIGRATION: Migration = {
  version: 7,
  sql: `
CREATE TABLE nodes (
  node_id      TEXT NOT NULL PRIMARY KEY,
  role         TEXT NOT NULL,
  started_at   INTEGER NOT NULL,
  heartbeat_at INTEGER NOT NULL
) STRICT;
`,
};
