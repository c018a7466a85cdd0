/** Version 3 of the PostgreSQL schema (the conventions are in index.ts). */
import type { Migration } from './migration.js';

/*
 * When an occurrence became due to the service: a schedule stored (or moved) with a
 * `scheduled_at` already past is due from that moment, not from its instant
 * (docs/interface.md, "Past instants"). `schedules.due_at` is the later of the two, NULL
 * meaning `scheduled_at` (rows written before, or seeded by SQL); `executions.due_at` copies it
 * when a claim starts a schedule, NULL meaning `scheduled_for`.
 *
 * Catch-up executions say what they stand for (docs/cron.md, "Missed occurrences
 * and overlap"): `missed_*` NULL for an execution that stands for itself, all set for one made
 * by misfire `once` for two or more occurrences; `cron_jobs.skipped_occurrences` counts the
 * occurrences misfire `skip` dropped. Written only by the claim; existing rows take NULL and 0
 * (ADD COLUMN with a constant default rewrites no table).
 */
export const MIGRATION: Migration = {
  version: 3,
  sql: `
ALTER TABLE schedules ADD COLUMN due_at bigint;
ALTER TABLE executions ADD COLUMN due_at bigint;
ALTER TABLE executions ADD COLUMN missed_count bigint, ADD COLUMN missed_first bigint,
  ADD COLUMN missed_last bigint, ADD COLUMN missed_capped boolean;
ALTER TABLE cron_jobs ADD COLUMN skipped_occurrences bigint NOT NULL DEFAULT 0;
`,
};
