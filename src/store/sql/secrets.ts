/*
 * What the SQLite and PostgreSQL stores share for the job-secrets operations (store/contract/secrets.ts):
 * the page statement (valid in both dialects, given each one's parameters), its parameters from
 * the position, the row mapper, and when two sealed maps are the same.
 */
import type { JobType, SealedSecrets } from '../../domain/types.js';
import type { RowCodec } from '../rows/jobs.js';
import type { JobSecretsEntry, SecretsPageParams } from '../contract/secrets.js';

/** The table of each job type. */
export const JOB_TABLES: Readonly<Record<JobType, string>> = { schedule: 'schedules', cron: 'cron_jobs' };

/** The parameters of {@link secretsPageSql}. */
export interface SecretsPageBinding {
  /** Schedules with an id above this are read; null: none (the position is already in the cron jobs). */
  schedulesAfter: string | null;
  /** Cron jobs with an id above this are read (`''`: all). */
  cronAfter: string;
  /** Most rows, at least 1. */
  limit: number;
}

/**
 * A page of `secretsPage`: schedules (those after `schedulesAfter`) then cron jobs (after
 * `cronAfter`), each by id, with non-null `secrets`, at most `limit`. Each part is a range of the
 * table's primary key. `param` writes a parameter in the dialect (`:limit`, `$3::int`).
 */
export function secretsPageSql(param: (name: keyof SecretsPageBinding) => string): string {
  const part = (type: JobType, k: number, after: string) =>
    `SELECT '${type}' AS job_type, ${k} AS k, id, secrets
       FROM (SELECT id, secrets FROM ${JOB_TABLES[type]}
              WHERE secrets IS NOT NULL AND id > ${after} ORDER BY id LIMIT ${param('limit')}) AS t${k}`;
  return `SELECT job_type, id, secrets FROM (
     ${part('schedule', 0, param('schedulesAfter'))}
     UNION ALL
     ${part('cron', 1, param('cronAfter'))}) AS j
   ORDER BY k, id LIMIT ${param('limit')}`;
}

/**
 * `secretsNewest`: the newest job with non-null `secrets` of each table (schedules first), the
 * same columns as {@link secretsPageSql}. Each part is the last entry of the table's partial index
 * of jobs with secrets (`schedules_with_secrets`, `cron_jobs_with_secrets`). No parameters.
 */
export function secretsNewestSql(): string {
  const part = (type: JobType, k: number) =>
    `SELECT '${type}' AS job_type, ${k} AS k, id, secrets
       FROM (SELECT id, secrets FROM ${JOB_TABLES[type]} WHERE secrets IS NOT NULL ORDER BY id DESC LIMIT 1) AS t${k}`;
  return `SELECT job_type, id, secrets FROM (${part('schedule', 0)} UNION ALL ${part('cron', 1)}) AS j ORDER BY k`;
}

/** The parameters of {@link secretsPageSql} for `p` (`id > NULL` holds for no row). */
export function secretsPageBinding(p: SecretsPageParams): SecretsPageBinding {
  const limit = Math.max(1, Math.floor(p.limit));
  if (p.after === null) return { schedulesAfter: '', cronAfter: '', limit };
  if (p.after.jobType === 'schedule') return { schedulesAfter: p.after.id, cronAfter: '', limit };
  return { schedulesAfter: null, cronAfter: p.after.id, limit };
}

/** A row of {@link secretsPageSql}: `secrets` as the driver gives JSON. */
export interface SecretsRow {
  job_type: JobType;
  id: string;
  secrets: unknown;
}

/** Row → entry. */
export function secretsEntryFromRow(codec: RowCodec, r: SecretsRow): JobSecretsEntry {
  return { jobType: r.job_type, id: r.id, secrets: storedSecrets(codec, r.secrets)! };
}

/** A `secrets` column as the driver gives it (undefined: no row) → the map, or null. */
export function storedSecrets(codec: RowCodec, column: unknown): SealedSecrets | null {
  return (codec.json(column ?? null) as SealedSecrets | null) ?? null;
}

/**
 * Whether the stored secrets `stored` (null: none, or the job is gone) are `expected`: the same
 * fields, each with the same sealed text; the order of the fields does not matter.
 */
export function sameSealedSecrets(stored: SealedSecrets | null, expected: SealedSecrets): boolean {
  if (stored === null) return false;
  const fields = Object.keys(expected);
  return Object.keys(stored).length === fields.length && fields.every((f) => Object.hasOwn(stored, f) && stored[f] === expected[f]);
}
