/**
 * The uniqueness of job keys, for both stores (docs/apply.md): each job table has a partial unique
 * index `<table>_by_key` on `key` (`WHERE key IS NOT NULL`; SQLite migration 18, PostgreSQL 17),
 * so two jobs of one kind never share a key while any number have none. A write the index refuses
 * is answered as a conflict on `/key`; each database recognises its own refusal (its
 * connection.ts) and this module says what it means. Pure.
 */
import { ConflictError } from '../../domain/errors.js';

/** The job tables that have keys, with what their rows are called in messages. */
export const KEYED_TABLES = { schedules: 'schedule', cron_jobs: 'cron job' } as const;

/** A job table that has keys. */
export type KeyedTable = keyof typeof KEYED_TABLES;

/** The name of the unique index on `key` of `table`. */
export function keyIndexName(table: KeyedTable): string {
  return `${table}_by_key`;
}

/** The table whose key index is named `name`, or null for any other name. */
export function tableOfKeyIndex(name: string | undefined | null): KeyedTable | null {
  for (const table of Object.keys(KEYED_TABLES) as KeyedTable[]) if (name === keyIndexName(table)) return table;
  return null;
}

/**
 * The conflict of a key another job of `table` holds: a `ConflictError` (HTTP 409) naming `/key`,
 * without the key itself (it may be long; the caller sent it).
 */
export function keyConflict(table: KeyedTable): ConflictError {
  const what = KEYED_TABLES[table];
  return new ConflictError(`Another ${what} already has this key: keys are unique among ${what}s.`, [
    { path: '/key', message: `is already the key of another ${what}` },
  ]);
}
