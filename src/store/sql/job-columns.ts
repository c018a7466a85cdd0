/*
 * Groups of the jobs' columns that both databases' migrations add, each written once with its
 * portable types (store/sql/columns.ts) and rendered by each database's migrations/migration.ts:
 * SQLite writes `text` and `json` as TEXT and both integers as INTEGER; PostgreSQL writes
 * `text`, `json`, `integer` and `bigint`. Released migrations run this text byte for byte
 * (test/unit/migrations-frozen.test.ts): a group is never edited, a later change is a new group.
 */
import type { Column } from './columns.js';

/**
 * The delivery settings of both job kinds (docs/calls.md): the retry policy's attempts and its
 * delays in ms, and the timeout of a call in ms, each with its default (what existing jobs take).
 * SQLite's migrations 2 and 14, PostgreSQL's migration 1.
 */
export const DELIVERY: readonly Column[] = [
  ['retry_max_attempts', 'integer', 'NOT NULL DEFAULT 5'],
  ['retry_initial_delay_ms', 'bigint', 'NOT NULL DEFAULT 1000'],
  ['retry_max_delay_ms', 'bigint', 'NOT NULL DEFAULT 3600000'],
  ['timeout_ms', 'bigint', 'NOT NULL DEFAULT 30000'],
];

/**
 * The policies of cron jobs (docs/cron.md, "Missed occurrences and overlap"): `misfire` (existing
 * jobs `once`) and `overlap` (existing jobs `allow`). SQLite's migrations 2 and 14, PostgreSQL's
 * migration 1.
 */
export const CRON_POLICIES: readonly Column[] = [
  ['misfire', 'text', `NOT NULL DEFAULT 'once'  CHECK (misfire IN ('skip', 'once', 'all'))`],
  ['overlap', 'text', `NOT NULL DEFAULT 'allow' CHECK (overlap IN ('allow', 'skip'))`],
];

/**
 * The request of both job kinds' calls (docs/calls.md, "Method, headers and body"): the method
 * (existing jobs POST), the headers (a JSON object), the body (NULL: the JSON of `data`), and for
 * target authentication its public part and the sealed secrets (JSON). SQLite's migrations 5 and 14.
 */
export const CALL_REQUEST: readonly Column[] = [
  ['method', 'text', `NOT NULL DEFAULT 'POST'`],
  ['headers', 'json', `NOT NULL DEFAULT '{}'`],
  ['body', 'text'],
  ['auth', 'json'],
  ['secrets', 'json'],
];

/**
 * What counts as success for both job kinds (docs/calls.md): a JSON array of status classes and
 * codes, `["2xx"]` for jobs made before. SQLite's migrations 10 and 14, PostgreSQL's migration 9.
 */
export const SUCCESS_STATUSES: Column = ['success_statuses', 'json', `NOT NULL DEFAULT '["2xx"]'`];

/**
 * The auto-pause of cron jobs (docs/cron.md, "Auto-pause"; store/rules/outcome.ts): the number of
 * failures in a row that pauses the job (NULL: never), why it was paused (NULL: not by a rule),
 * and the failures in a row so far. SQLite's migrations 10 and 14, PostgreSQL's migration 9.
 */
export const AUTO_PAUSE: readonly Column[] = [
  ['pause_after_failures', 'integer'],
  ['paused_reason', 'text'],
  ['consecutive_failures', 'integer', 'NOT NULL DEFAULT 0'],
];

/**
 * The window and the limit of a cron job's occurrences and its jitter (docs/cron.md, "Start, end
 * and limits" and "Jitter"): start and end in epoch ms (NULL: unbounded), the most invocations
 * (NULL: no limit), the jitter in ms (0: none). SQLite's migration 14, PostgreSQL's migration 13.
 */
export const CRON_LIFE: readonly Column[] = [
  ['start_at', 'bigint'],
  ['end_at', 'bigint'],
  ['max_invocations', 'bigint'],
  ['jitter_ms', 'bigint', 'NOT NULL DEFAULT 0'],
];
