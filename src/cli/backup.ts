/**
 * `punctual backup <file>` (docs/cli.md "Backups", docs/deployment.md "Backups"): a consistent
 * copy of the SQLite store in `DATABASE_URL`, taken while `punctual serve` runs on it, with the
 * key file of its job secrets beside the copy, so that a restore is "copy both files back".
 *
 * Decisions:
 * - The copy is `<file>`, its key file `<file>.key`: the naming rule of the key file beside a
 *   database (`keyFilePath`). Both are written with mode 0600, first under a temporary name in
 *   the same folder and renamed into place once complete and synced: a failed or interrupted
 *   backup leaves no half-written copy under the final name.
 * - An existing `<file>` or `<file>.key` is not overwritten, unless `--force`.
 * - `--no-key` leaves the key file out (for those who keep the key apart from the backups).
 * - `PUNCTUAL_ENCRYPTION_KEYS` set: those keys are not in the backup and must be kept; a key file
 *   beside the database is still copied when there is one.
 * - PostgreSQL: refused (exit code 2), pointing to `pg_dump`.
 */
import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Command } from 'commander';
import { UsageError } from './exit.js';
import { out, printJson } from './output.js';
import { configOrExit, missingDatabase } from './server.js';

/** What `punctual backup --json` prints. */
export interface BackupOutput {
  /** The database copied (absolute path). */
  database: string;
  /** The copy (absolute path). */
  file: string;
  /** The copy's key file (absolute path), or null when none was written. */
  keyFile: string | null;
  /** Ids of the keys in the copied key file, newest first (empty when none was written). */
  keyIds: string[];
  /** Whether `PUNCTUAL_ENCRYPTION_KEYS` is set: then those keys are not in the backup. */
  encryptionKeysFromEnvironment: boolean;
  pages: number;
  bytes: number;
  durationMs: number;
}

/** Options of the command. */
interface BackupOptions {
  force?: boolean;
  key: boolean;
  json?: boolean;
}

/** The temporary name of `path` while it is written: hidden, in the same folder, unique to this process. */
function temporaryOf(path: string): string {
  return join(dirname(path), `.${basename(path)}.partial-${process.pid}`);
}

async function backup(fileArg: string, opts: BackupOptions): Promise<void> {
  const config = await configOrExit();
  const [{ describeDatabaseUrl, parseDatabaseUrl }, { backupSqlite, moveIntoPlace }, { copyKeyFile, keyFilePath, KeyFileError }] =
    await Promise.all([import('../store/open.js'), import('../store/sqlite/backup.js'), import('../secrets/key-file.js')]);
  const target = parseDatabaseUrl(config.databaseUrl);
  if (target.kind !== 'sqlite') {
    throw new UsageError(
      `DATABASE_URL is PostgreSQL (${describeDatabaseUrl(config.databaseUrl)}): punctual backup copies SQLite stores only. ` +
        'Back PostgreSQL up with pg_dump (e.g. pg_dump --format=custom --file=punctual.dump "$DATABASE_URL"), and keep ' +
        'PUNCTUAL_ENCRYPTION_KEYS apart: the keys are not in the database (docs/deployment.md, "Backups").',
    );
  }
  if (!existsSync(target.path)) throw new UsageError(missingDatabase(target.path, config.databaseUrl, false));
  const file = resolve(fileArg);
  const sourceKey = keyFilePath(target.path);
  const keyFile = opts.key && existsSync(sourceKey) ? keyFilePath(file) : null;
  if ([target.path, sourceKey].includes(file) || (keyFile !== null && [target.path, sourceKey].includes(keyFile))) {
    throw new UsageError(`${file} is the database or its key file: back up to another file`);
  }
  if (!existsSync(dirname(file))) throw new UsageError(`no folder ${dirname(file)} for the backup: create it first`);
  for (const path of [file, keyFile]) {
    if (path !== null && existsSync(path) && !opts.force) {
      throw new UsageError(`${path} exists: choose another file, or add --force to replace it`);
    }
  }

  const tmpDb = temporaryOf(file);
  const tmpKey = keyFile === null ? null : temporaryOf(keyFile);
  let output: BackupOutput;
  try {
    // The key first: a key file that cannot be read stops the backup before the long part.
    const keyIds = tmpKey === null ? [] : await copyKeyFile(sourceKey, tmpKey);
    const copied = await backupSqlite(target.path, tmpDb);
    if (tmpKey !== null) await moveIntoPlace(tmpKey, keyFile!);
    await moveIntoPlace(tmpDb, file);
    output = {
      database: target.path,
      file,
      keyFile,
      keyIds,
      encryptionKeysFromEnvironment: config.encryptionKeys !== null,
      pages: copied.pages,
      bytes: copied.bytes,
      durationMs: Math.round(copied.durationMs),
    };
  } catch (err) {
    await Promise.all([rm(tmpDb, { force: true }), tmpKey === null ? undefined : rm(tmpKey, { force: true })]);
    if (err instanceof KeyFileError) throw new UsageError(err.message);
    throw err;
  }

  if (opts.json) printJson(output);
  else out(summary(output));
  for (const note of notes(output, sourceKey, opts.key)) process.stderr.write(`punctual: ${note}\n`);
}

/** The line printed for people. */
function summary(o: BackupOutput): string {
  const size = `${(o.bytes / (1024 * 1024)).toFixed(1)} MiB, ${o.pages} pages`;
  const key = o.keyFile === null ? '' : `, with its key file ${o.keyFile} (${o.keyIds.length === 1 ? 'key' : 'keys'} ${o.keyIds.join(', ')})`;
  return `backed up ${o.database} to ${o.file} (${size}, ${o.durationMs} ms)${key}`;
}

/** What the backup does not hold, said on stderr (also with --json, which keeps stdout to the JSON). */
function notes(o: BackupOutput, sourceKey: string, keyWanted: boolean): string[] {
  const notes: string[] = [];
  if (o.encryptionKeysFromEnvironment) {
    notes.push(
      'PUNCTUAL_ENCRYPTION_KEYS is set: those keys are not in the backup. Keep them: the job secrets of this backup open only with them.',
    );
  }
  if (!keyWanted) {
    notes.push(`--no-key: the key file ${sourceKey} was not copied. Keep it apart: the job secrets of this backup open only with it.`);
  } else if (o.keyFile === null && !o.encryptionKeysFromEnvironment) {
    notes.push(`there is no key file ${sourceKey}: the backup holds no key, and job secrets stored in it (if any) cannot be opened from it.`);
  }
  return notes;
}

/** Adds `backup` to `program`. */
export function registerBackupCommand(program: Command): void {
  program
    .command('backup')
    .description(
      'copy the SQLite store of DATABASE_URL to <file>, consistently, while the service runs (SQLite\'s online backup ' +
        'API), and its key file to <file>.key; both mode 0600. PostgreSQL: use pg_dump (docs/deployment.md, "Backups").',
    )
    .argument('<file>', 'the copy to write; its key file is written beside it as <file>.key')
    .option('--force', 'replace <file> and <file>.key when they exist (refused otherwise)')
    .option('--no-key', 'do not copy the key file: keep it apart yourself (the copy\'s job secrets open only with it)')
    .option('--json', 'print what was written as JSON')
    .action(backup);
}
