/**
 * A consistent copy of a SQLite store while `punctual serve` runs on it (`punctual backup`,
 * docs/deployment.md "Backups"): SQLite's online backup API through better-sqlite3's
 * `Database.backup`, all pages in one step, so the copy is the snapshot of one read transaction.
 * In WAL mode a reader blocks no writer: the service goes on committing while the copy is read
 * (its WAL grows for that time, as no checkpoint can pass the reader).
 *
 * Why one step: the backup API restarts from the first page when another connection writes
 * between two steps, and a service delivering calls writes every few milliseconds; copied page
 * by page (better-sqlite3's default, 100 pages a step) the copy of a busy store would start over
 * without end.
 */
import { constants } from 'node:fs';
import { open, rename, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { DEFAULT_BUSY_TIMEOUT_MS } from './connection.js';
import { syncDirectory } from '../../runtime/durable-files.js';

/** What {@link backupSqlite} copied. */
export interface SqliteBackup {
  /** Pages of the copy. */
  pages: number;
  /** Size of the copy, in bytes. */
  bytes: number;
  /** Time the copy took (backup, check, sync), in ms. */
  durationMs: number;
}

/** Pages per step that means "all of them" (better-sqlite3 caps a step at 2^31 - 1). */
const ALL_PAGES = 0x7fffffff;

/**
 * Copies the SQLite database at `source` (which must exist; it is not migrated or changed) to
 * `temporary`, a path that must not exist, created with mode 0600: the copy is made there, set to
 * the rollback journal (`journal_mode = DELETE`, so it is one file without `-wal` or `-shm`;
 * `punctual serve` turns WAL on again when it opens it), checked with `PRAGMA quick_check`, and
 * synced to disk. The caller renames it into place ({@link moveIntoPlace}).
 * @throws Error (better-sqlite3's SqliteError, or a file system error) when the source cannot
 *   be read, the copy cannot be written, or the check fails; `temporary` is removed then
 */
export async function backupSqlite(source: string, temporary: string): Promise<SqliteBackup> {
  const started = performance.now();
  // Made first, empty and private: the copy holds the signing secret and the keys' digests.
  await (await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600)).close();
  try {
    const db = new Database(source, { fileMustExist: true, timeout: DEFAULT_BUSY_TIMEOUT_MS });
    try {
      await db.backup(temporary, { progress: () => ALL_PAGES });
    } finally {
      db.close();
    }
    const copy = new Database(temporary, { fileMustExist: true });
    let pages: number;
    let bytes: number;
    try {
      copy.pragma('journal_mode = DELETE');
      const check = copy.pragma('quick_check', { simple: true });
      if (check !== 'ok') throw new Error(`the copy does not pass PRAGMA quick_check (${String(check)})`);
      pages = Number(copy.pragma('page_count', { simple: true }));
      bytes = pages * Number(copy.pragma('page_size', { simple: true }));
    } finally {
      copy.close();
    }
    await syncFile(temporary);
    return { pages, bytes, durationMs: performance.now() - started };
  } catch (err) {
    await rm(temporary, { force: true });
    throw err;
  }
}

/** Renames `temporary` to `destination` (replacing it), then syncs the folder so the rename lasts. */
export async function moveIntoPlace(temporary: string, destination: string): Promise<void> {
  await rename(temporary, destination);
  await syncDirectory(dirname(destination));
}

/** fsync of the file at `path`. */
async function syncFile(path: string): Promise<void> {
  const file = await open(path, constants.O_RDONLY);
  try {
    await file.sync();
  } finally {
    await file.close();
  }
}
