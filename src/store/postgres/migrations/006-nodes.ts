/** Version 6 of the PostgreSQL schema (the conventions are in index.ts). */
import type { Migration } from './migration.js';

/*
 * Node liveness (docs/multinode.md, "Node liveness"): a row per serving node, heartbeated on the
 * database's clock; a node whose heartbeat is too old is removed and its leases released at once
 * (found through executions_running_lease: the Running executions, as many as the calls in
 * flight, so no index of their owner is kept on the hot path). Not copied by `migrate-store`
 * (it describes running processes).
 */
export const MIGRATION: Migration = {
  version: 6,
  sql: `
CREATE TABLE nodes (
  node_id      text NOT NULL PRIMARY KEY,
  role         text NOT NULL,
  started_at   bigint NOT NULL,
  heartbeat_at bigint NOT NULL
);
`,
};
