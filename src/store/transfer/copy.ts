/**
 * `punctual migrate-store --from <url> --to <url>`: copies a whole store into
 * another, empty one — typically the embedded SQLite file into PostgreSQL, when one node is no
 * longer enough. API keys (their digests: tokens keep working), settings (the generated signing
 * secret: receivers keep verifying), schedules, cron jobs, notification channels (not their outbox of
 * notifications not yet sent), and executions with their attempts
 * (history, and work in progress: a `Retrying` execution retries on time, a `Running` one whose
 * node is gone is attempted again once its lease expires, as the same execution and so with the
 * same `webhook-id`).
 *
 * How: both stores are migrated to the latest schema; the source is read from one snapshot, page
 * by page (keys, schedules and cron jobs oldest first, so the target lists them alike); the target is written in one transaction, so a failed copy leaves it
 * empty and can simply be run again. Each database implements the two ends in
 * `<database>/transfer.ts` (see `TransferSource`/`TransferTarget` in store/transfer/records.ts), reached through its
 * driver (`<database>/driver.ts`).
 */
import { describeDatabaseUrl, driverOf, openStore, parseDatabaseUrl } from '../open.js';
import {
  TRANSFER_KINDS,
  type TransferCounts,
  type TransferKind,
  type TransferRecords,
  type TransferSource,
  type TransferTarget,
} from './records.js';

/** Options of {@link transferStore}. */
export interface TransferOptions {
  /** `DATABASE_URL` of the store to copy from (left unchanged, apart from pending migrations). */
  from: string;
  /** `DATABASE_URL` of the store to copy into; it must hold nothing (created and migrated when new). */
  to: string;
  /** Records per page (default 500). */
  batchSize?: number;
  /** Told after each page (kind, records of that kind copied so far). */
  onProgress?: (kind: TransferKind, copied: number) => void;
}

/** Thrown when the target already holds something: `migrate-store` copies only into an empty store. */
export class TargetNotEmptyError extends Error {
  constructor(readonly counts: TransferCounts) {
    super(
      `The target store is not empty (${describeCounts(counts)}). migrate-store copies only into an ` +
        'empty store: use a new database (or schema), and start no node on it before the copy.',
    );
    this.name = 'TargetNotEmptyError';
  }
}

/** `3 API keys, 1 setting, …` for messages. */
export function describeCounts(c: TransferCounts): string {
  return (
    `${c.apiKeys} API keys, ${c.settings} settings, ${c.schedules} schedules, ` +
    `${c.cronJobs} cron jobs, ${c.executions} executions, ${c.notificationChannels} notification channels, ` +
    `${c.flowControlKeys} flow-control keys`
  );
}

async function openSource(url: string): Promise<TransferSource> {
  const target = parseDatabaseUrl(url);
  return driverOf(target).openTransferSource(target);
}

async function openTarget(url: string): Promise<TransferTarget> {
  const target = parseDatabaseUrl(url);
  return driverOf(target).openTransferTarget(target);
}

/** Applies pending migrations to the store at `url` (creating a SQLite file or PG schema objects). */
async function migrateStore(url: string): Promise<void> {
  const store = await openStore(url);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
}

/**
 * Copies everything from the store at `opts.from` into the empty store at `opts.to`.
 * @returns the records copied, by kind (equal to the source's counts)
 * @throws Error when `from` and `to` name the same store, or for an unsupported URL
 * @throws TargetNotEmptyError when the target holds anything; nothing is written then
 * @throws StoreUnavailableError when either store cannot be reached; the target is left as it was
 */
export async function transferStore(opts: TransferOptions): Promise<TransferCounts> {
  const batchSize = opts.batchSize ?? 500;
  if (describeDatabaseUrl(opts.from) === describeDatabaseUrl(opts.to)) {
    throw new Error(`--from and --to name the same store (${describeDatabaseUrl(opts.from)}).`);
  }
  await migrateStore(opts.from);
  await migrateStore(opts.to);
  const source = await openSource(opts.from);
  try {
    const target = await openTarget(opts.to);
    try {
      const existing = await target.counts();
      if (TRANSFER_KINDS.some((k) => existing[k] > 0)) throw new TargetNotEmptyError(existing);
      const expected = await source.counts();
      const copied = Object.fromEntries(TRANSFER_KINDS.map((k) => [k, 0])) as TransferCounts;
      for (const kind of TRANSFER_KINDS) {
        let cursor: string | null = null;
        do {
          const page: { records: TransferRecords[typeof kind][]; cursor: string | null } = await source.read(kind, {
            cursor,
            limit: batchSize,
          });
          if (page.records.length > 0) await target.write(kind, page.records);
          copied[kind] += page.records.length;
          cursor = page.cursor;
          opts.onProgress?.(kind, copied[kind]);
        } while (cursor !== null);
      }
      // The snapshot makes these equal; a difference would be a bug in an end: write nothing then.
      const written = await target.counts();
      for (const k of TRANSFER_KINDS) {
        if (copied[k] !== expected[k] || written[k] !== expected[k]) {
          throw new Error(
            `copy incomplete for ${k}: source ${expected[k]}, read ${copied[k]}, written ${written[k]}; nothing was committed`,
          );
        }
      }
      await target.commit();
      return copied;
    } finally {
      await target.close();
    }
  } finally {
    await source.close();
  }
}
