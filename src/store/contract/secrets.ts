/**
 * The store operations of `punctual secrets rekey` (docs/security.md, "Rotating the key"): read the
 * sealed secrets of every job in pages, and replace a job's secrets only if nobody changed them
 * in between; and the newest sealed secrets, which the start of `punctual serve` checks its keys
 * against. Part of the `Store` contract (store.ts extends {@link JobSecretsStore}); the rules
 * shared by both databases are in store/sql/secrets.ts.
 */
import type { JobType, SealedSecrets } from '../../domain/types.js';

/** A job, by type and id: the position of a page of secrets ({@link JobSecretsStore.secretsPage}). */
export interface JobRef {
  jobType: JobType;
  id: string;
}

/** The sealed secrets of one job: field → sealed text (src/secrets/job-secrets.ts). */
export interface JobSecretsEntry extends JobRef {
  secrets: SealedSecrets;
}

/** Params of {@link JobSecretsStore.secretsPage}. */
export interface SecretsPageParams {
  /** The last job of the previous page, or null for the first page. */
  after: JobRef | null;
  /** Most jobs in the page (at least 1; lower values read as 1). */
  limit: number;
}

/** Params of {@link JobSecretsStore.secretsReplace}. */
export interface SecretsReplaceParams extends JobRef {
  /** The secrets as read (by {@link JobSecretsStore.secretsPage} or a get): the write happens only if they are still stored. */
  expected: SealedSecrets;
  /** The new secrets (the same fields, re-sealed). */
  secrets: SealedSecrets;
}

/** The job-secrets operations of a store (see the module's description). */
export interface JobSecretsStore {
  /**
   * One page of the jobs whose `secrets` is not null, whatever their status: every schedule first,
   * then every cron job, each table by id (byte order: ids are UUID v7, so roughly the order of
   * creation), strictly after `p.after`. A job created during the walk behind the position is not
   * seen; the walk ends with a page shorter than `p.limit`. Reads only, one statement.
   * @returns at most `p.limit` entries, in that order
   */
  secretsPage(p: SecretsPageParams): Promise<JobSecretsEntry[]>;
  /**
   * Compare-and-set of a job's secrets, whatever its status (a Running schedule's retries need
   * them): in one transaction, writes `p.secrets` only when the stored secrets still equal
   * `p.expected` (the same fields with the same sealed texts, in any order: `sameSealedSecrets`
   * of store/sql/secrets.ts). Nothing else of the job changes. A PATCH of the job's secrets between the
   * read and this write is therefore never overwritten.
   * @returns true when written; false when the job is gone or its secrets changed (then nothing changes)
   */
  secretsReplace(p: SecretsReplaceParams): Promise<boolean>;
  /**
   * The newest job (highest id: ids are UUID v7) whose `secrets` is not null, of each job table,
   * whatever its status: what the start of `punctual serve` checks its keys against
   * (src/serve-store.ts). Reads only, one statement over the partial indexes of the jobs with
   * secrets (migrations), so its cost does not grow with the jobs that have none.
   * @returns at most 2 entries: the newest schedule with secrets, then the newest cron job with
   *   secrets; empty when no job carries secrets
   */
  secretsNewest(): Promise<JobSecretsEntry[]>;
}
