/** Version 1 of the SQLite schema (the conventions are in index.ts). */
import type { Migration } from './migration.js';

/** Version 1. */
export const MIGRATION: Migration = {
  version: 1,
  sql: `
CREATE TABLE api_keys (
  id         TEXT    NOT NULL PRIMARY KEY,
  name       TEXT    NOT NULL,
  status     TEXT    NOT NULL CHECK (status IN ('Enabled', 'Disabled')),
  digest     TEXT    NOT NULL UNIQUE,   -- SHA-256 of the token, lowercase hex
  created_at INTEGER NOT NULL,
  last_used  INTEGER
) STRICT;

CREATE TABLE schedules (
  id           TEXT    NOT NULL PRIMARY KEY,
  name         TEXT    NOT NULL,
  scheduled_at INTEGER NOT NULL,
  status       TEXT    NOT NULL,          -- Pending | Running | Succeeded | Failed
  endpoint     TEXT    NOT NULL,
  data         TEXT    NOT NULL DEFAULT '{}',
  tags         TEXT    NOT NULL DEFAULT '[]',
  created_at   INTEGER NOT NULL
) STRICT;
CREATE INDEX schedules_pending_due ON schedules (scheduled_at) WHERE status = 'Pending';

CREATE TABLE cron_jobs (
  id              TEXT    NOT NULL PRIMARY KEY,
  expression      TEXT    NOT NULL,
  name            TEXT,
  timezone        TEXT,
  status          TEXT    NOT NULL CHECK (status IN ('Active', 'Paused')),
  endpoint        TEXT    NOT NULL,
  data            TEXT,
  invocations     INTEGER NOT NULL DEFAULT 0,
  next_invocation INTEGER NOT NULL,
  created_at      INTEGER NOT NULL
) STRICT;
CREATE INDEX cron_jobs_active_due ON cron_jobs (next_invocation) WHERE status = 'Active';

-- One row per occurrence of a job. No foreign key to the job: executions outlive a deleted job
-- as history, and job_id points into one of two tables.
CREATE TABLE executions (
  id                 TEXT    NOT NULL PRIMARY KEY,
  job_type           TEXT    NOT NULL CHECK (job_type IN ('schedule', 'cron')),
  job_id             TEXT    NOT NULL,
  scheduled_for      INTEGER NOT NULL,
  status             TEXT    NOT NULL,    -- Running | Succeeded | Failed (later migrations add more)
  attempt            INTEGER NOT NULL,
  created_at         INTEGER NOT NULL,
  started_at         INTEGER,             -- first attempt's start
  finished_at        INTEGER,
  lease_owner        TEXT,
  lease_expires_at   INTEGER,
  last_status_code   INTEGER,
  last_error         TEXT,
  last_duration_ms   INTEGER,
  last_response_body TEXT,
  UNIQUE (job_type, job_id, scheduled_for),
  CHECK (status <> 'Running' OR (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL))
) STRICT;
CREATE INDEX executions_running_lease ON executions (lease_expires_at) WHERE status = 'Running';
`,
};
