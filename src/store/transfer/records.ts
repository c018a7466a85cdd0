import type { FlowControlKey } from '../../domain/flow-control.js';
import type { NotificationChannel } from '../../domain/notifications.js';
import type { ApiKey, Attempt, CronJob, ExecutionStatus, JobType, MissedOccurrences, Schedule } from '../../domain/types.js';

// ---- Moving a whole store to another (`punctual migrate-store`, docs/multinode.md) -------------
//
// Kept apart from `Store`: only `migrate-store` copies whole tables, and it does so through its own
// connections (a snapshot to read, one transaction to write), so the serving store needs none of
// it. Each database implements both ends in `<database>/transfer.ts`; `store/transfer/copy.ts` drives
// them. Records carry every stored column, internal ones (leases, attempt counters) included, so a
// copy continues exactly where the source stopped.

/** An API key as stored: with the SHA-256 digest of its token (never the token). */
export interface ApiKeyRecord extends ApiKey {
  /** SHA-256 of the token, lowercase hex. */
  digest: string;
  /** SHA-256 of the token its last rotation replaced, or null (see `previousTokenExpiresAt`). */
  previousDigest: string | null;
}

/** A row of the settings (e.g. the generated signing secret). */
export interface SettingRecord {
  key: string;
  value: string;
}

/** A schedule as stored (all of {@link Schedule}). */
export type ScheduleRecord = Schedule;

/**
 * A cron job as stored: {@link CronJob} without `lastInvocation`/`lastStatus`, which the target
 * derives from the executions copied (its newest execution, by `scheduledFor` then id) at commit.
 */
export type CronJobRecord = Omit<CronJob, 'lastInvocation' | 'lastStatus'>;

/** An execution as stored, with its internal columns and its attempts (oldest first). Instants: epoch ms (UTC). */
export interface ExecutionRecord {
  id: string;
  jobType: JobType;
  jobId: string;
  scheduledFor: number;
  triggered: boolean;
  /** Made by a cron job's backfill (`Execution.backfill`). */
  backfill: boolean;
  status: ExecutionStatus;
  /** Number of the latest attempt claimed; 0 before the first. */
  attempt: number;
  createdAt: number;
  startedAt: number | null;
  finishedAt: number | null;
  /** When a `Pending` or `Retrying` execution is due, else null. */
  nextAttemptAt: number | null;
  /** Node holding a `Running` execution's lease, else null. */
  leaseOwner: string | null;
  leaseExpiresAt: number | null;
  /** Why it ended without an attempt of its own (`job deleted`), else null. */
  error: string | null;
  /** When a schedule's execution became due to the service (`Schedule.dueAt`), else null. */
  dueAt: number | null;
  /** The occurrences a catch-up execution stands for (misfire `once`), else null. */
  missedOccurrences: MissedOccurrences | null;
  /** The flow-control key it counts against, else null. */
  flowControlKey: string | null;
  /** Attempts made before the current attempt budget began: 0, or the attempts made when it was last replayed. */
  retryBase: number;
  attempts: Attempt[];
}

/** The kinds of record a transfer copies, by name, in the order they are written. */
export interface TransferRecords {
  apiKeys: ApiKeyRecord;
  settings: SettingRecord;
  schedules: ScheduleRecord;
  cronJobs: CronJobRecord;
  executions: ExecutionRecord;
  /** Notification channels (docs/when-calls-fail.md); their outbox is not copied (notifications not yet sent). */
  notificationChannels: NotificationChannel;
  /**
   * Configured flow-control keys (docs/flow-control.md), holds included; the log of their starts
   * is not copied (the target's first window starts empty).
   */
  flowControlKeys: FlowControlKey;
}

/** A kind of record a transfer copies. */
export type TransferKind = keyof TransferRecords;

/** Every kind, in the order a transfer writes them. */
export const TRANSFER_KINDS: readonly TransferKind[] = [
  'apiKeys',
  'settings',
  'schedules',
  'cronJobs',
  'executions',
  'notificationChannels',
  'flowControlKeys',
];

/** Rows of each kind in a store (executions: executions, not attempts). */
export type TransferCounts = Record<TransferKind, number>;

/**
 * The reading end of a transfer: a consistent snapshot of a migrated store, taken when it was
 * opened (SQLite: a read transaction; PostgreSQL: `REPEATABLE READ READ ONLY`), so a node still
 * writing cannot tear the copy.
 */
export interface TransferSource {
  /** Rows of each kind in the snapshot. */
  counts(): Promise<TransferCounts>;
  /**
   * One page of `kind`: up to `limit` records after `cursor` (from the start when null). API keys,
   * schedules and cron jobs come oldest first (`createdAt`, then order of insertion), as API keys
   * are listed, so a target that writes them in that order lists them alike (schedules and cron
   * jobs are listed by `createdAt`, then id, which the copy keeps anyway); the other kinds in any
   * stable order.
   * @returns the records, and the cursor of the next page (opaque), or null after the last page
   */
  read<K extends TransferKind>(
    kind: K,
    p: { cursor: string | null; limit: number },
  ): Promise<{ records: TransferRecords[K][]; cursor: string | null }>;
  /** Ends the snapshot and closes the connection. Idempotent. */
  close(): Promise<void>;
}

/**
 * The writing end of a transfer: one transaction on a migrated store, so a copy that fails
 * leaves the target as it was.
 */
export interface TransferTarget {
  /** Rows of each kind in the target (read inside the transaction). */
  counts(): Promise<TransferCounts>;
  /**
   * Inserts records of `kind` as they are (ids, digests, statuses, leases, attempts), in the
   * order given (which becomes their order of insertion).
   * @throws when a key already exists (the target must not hold them)
   */
  write<K extends TransferKind>(kind: K, records: TransferRecords[K][]): Promise<void>;
  /** Derives what the target keeps derived (each cron job's newest execution) and commits. */
  commit(): Promise<void>;
  /** Rolls back unless committed, and closes the connection. Idempotent. */
  close(): Promise<void>;
}
