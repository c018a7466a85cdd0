/**
 * The schema's versions after the first ones of store/postgres/migrations/index.ts, one module per subject, in version
 * order. A new migration goes into the module of its subject, or a new module listed here.
 */
import { FAILURE_MIGRATIONS } from './failures.js';
import { CRON_LIFE_MIGRATIONS } from './cron-life.js';
import { CRON_TAG_MIGRATIONS } from './cron-tags.js';
import { BACKFILL_MIGRATIONS } from './backfill.js';
import { KEY_MIGRATIONS } from './keys.js';
import { JOB_KEY_MIGRATIONS } from './job-keys.js';
import { AUDIT_MIGRATIONS } from './audit.js';
import type { Migration } from './index.js';

/** The later migrations, in version order. */
export const LATER_MIGRATIONS: readonly Migration[] = [
  ...FAILURE_MIGRATIONS, // failing calls: retries, success statuses, executions across jobs, notification channels, traces
  ...CRON_LIFE_MIGRATIONS, // the window, limit and jitter of cron jobs
  ...CRON_TAG_MIGRATIONS, // tags on cron jobs
  ...BACKFILL_MIGRATIONS, // backfilled executions
  ...KEY_MIGRATIONS, // scopes, expiry and rotation of API keys
  ...JOB_KEY_MIGRATIONS, // the keys of jobs
  ...AUDIT_MIGRATIONS, // the audit log
];
