/** Version 1 of the PostgreSQL schema (the conventions are in index.ts). */
import { columnDefs, type Migration } from './migration.js';
import { CRON_POLICIES, DELIVERY } from '../../sql/job-columns.js';

/**
 * Version 1. Both job kinds end with the delivery settings (`retry_max_attempts`,
 * `retry_initial_delay_ms`, `retry_max_delay_ms`, `timeout_ms`), cron jobs with their policies
 * (`misfire`, `overlap`): column groups of store/sql/job-columns.ts.
 */
export const MIGRATION: Migration = {
  version: 1,
  sql: `
CREATE TABLE api_keys (
  id         text COLLATE "C" NOT NULL PRIMARY KEY,
  seq        bigint GENERATED ALWAYS AS IDENTITY,
  name       text   NOT NULL,
  status     text   NOT NULL CHECK (status IN ('Enabled', 'Disabled')),
  digest     text COLLATE "C" NOT NULL UNIQUE,   -- SHA-256 of the token, lowercase hex
  created_at bigint NOT NULL,
  last_used  bigint
);

CREATE TABLE schedules (
  id                     text COLLATE "C" NOT NULL PRIMARY KEY,
  seq                    bigint  GENERATED ALWAYS AS IDENTITY,
  name                   text    NOT NULL,
  scheduled_at           bigint  NOT NULL,
  status                 text    NOT NULL CHECK (status IN ('Pending', 'Running', 'Succeeded', 'Failed')),
  endpoint               text    NOT NULL,
  data                   json    NOT NULL DEFAULT '{}',
  tags                   json    NOT NULL DEFAULT '[]',
  created_at             bigint  NOT NULL,
${columnDefs(DELIVERY)}
);
CREATE INDEX schedules_pending_due ON schedules (scheduled_at) WHERE status = 'Pending';

CREATE TABLE cron_jobs (
  id                     text COLLATE "C" NOT NULL PRIMARY KEY,
  seq                    bigint  GENERATED ALWAYS AS IDENTITY,
  expression             text    NOT NULL,
  name                   text,
  timezone               text,
  status                 text    NOT NULL CHECK (status IN ('Active', 'Paused')),
  endpoint               text    NOT NULL,
  data                   json,
  invocations            bigint  NOT NULL DEFAULT 0,
  next_invocation        bigint  NOT NULL,
  created_at             bigint  NOT NULL,
${columnDefs([...DELIVERY, ...CRON_POLICIES])},
  last_execution_id      text COLLATE "C"   -- the newest execution; no foreign key (read with LEFT JOIN)
);
CREATE INDEX cron_jobs_active_due ON cron_jobs (next_invocation) WHERE status = 'Active';

CREATE TABLE executions (
  id               text COLLATE "C" NOT NULL PRIMARY KEY,
  job_type         text    NOT NULL CHECK (job_type IN ('schedule', 'cron')),
  job_id           text COLLATE "C" NOT NULL,
  scheduled_for    bigint  NOT NULL,            -- the occurrence; for a trigger, its instant
  triggered        boolean NOT NULL DEFAULT false,
  status           text    NOT NULL CHECK (status IN ('Pending', 'Running', 'Retrying', 'Succeeded', 'Failed', 'Skipped')),
  attempt          integer NOT NULL,            -- number of the latest attempt claimed; 0 before the first
  created_at       bigint  NOT NULL,
  started_at       bigint,                      -- first attempt's start
  finished_at      bigint,
  next_attempt_at  bigint,                      -- when a Pending or Retrying execution is due
  lease_owner      text,
  lease_expires_at bigint,
  error            text,                        -- why it ended without an attempt ('job deleted')
  CHECK (status <> 'Running' OR (lease_owner IS NOT NULL AND lease_expires_at IS NOT NULL)),
  CHECK (status NOT IN ('Pending', 'Retrying') OR next_attempt_at IS NOT NULL),
  CHECK (status IN ('Pending', 'Running', 'Retrying') OR finished_at IS NOT NULL)
);
CREATE UNIQUE INDEX executions_occurrence ON executions (job_type, job_id, scheduled_for) WHERE NOT triggered;
CREATE INDEX executions_by_job ON executions (job_type, job_id, scheduled_for, id);
CREATE INDEX executions_running_lease ON executions (lease_expires_at) WHERE status = 'Running';
CREATE INDEX executions_waiting ON executions (next_attempt_at) WHERE status IN ('Pending', 'Retrying');
CREATE INDEX executions_in_progress ON executions (job_id) WHERE job_type = 'cron' AND status IN ('Pending', 'Running', 'Retrying');
CREATE INDEX executions_finished ON executions (finished_at) WHERE finished_at IS NOT NULL;

-- One row per attempt whose outcome was recorded. number = the attempt claimed (1-based).
CREATE TABLE execution_attempts (
  execution_id  text COLLATE "C" NOT NULL REFERENCES executions (id),
  number        integer NOT NULL,
  started_at    bigint  NOT NULL,
  duration_ms   bigint  NOT NULL,
  status_code   integer,
  error         text,
  response_body text,
  PRIMARY KEY (execution_id, number)
);

CREATE TABLE settings (
  key   text COLLATE "C" NOT NULL PRIMARY KEY,
  value text NOT NULL
);
`,
};
