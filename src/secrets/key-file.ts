/**
 * The key file of an embedded SQLite store (docs/security.md, "Job secrets"): when no
 * `PUNCTUAL_ENCRYPTION_KEYS` is configured, the key that seals job secrets is kept beside the
 * database, in `<database path>.key`, created at the first start with mode 0600.
 */
import { constants } from 'node:fs';
import { open, readFile, rm, stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { generateKey, KeyRing, parseKeys } from './key-ring.js';
import { syncDirectory } from '../runtime/durable-files.js';

/** What the key file's handling logs: pino's logger fits. */
export interface KeyFileLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
}

/** A key file that cannot be read, is malformed or cannot be created. Names the file, never its content. */
export class KeyFileError extends Error {
  constructor(
    readonly path: string,
    why: string,
  ) {
    super(`encryption key file ${path}: ${why}`);
    this.name = 'KeyFileError';
  }
}

/** The key file of the SQLite database at `databasePath`: the same path with `.key` appended. */
export function keyFilePath(databasePath: string): string {
  return `${databasePath}.key`;
}

/**
 * The key ring kept in the file at `path`, created first when it does not exist: one new random
 * key, base64 and a newline, mode 0600, synced to disk with its directory; then its path is
 * logged once at info with the advice to back it up apart from the database. The file may hold
 * several keys (as `PUNCTUAL_ENCRYPTION_KEYS`: separated by white space, newest first), for rotation.
 * A file readable by group or others is used, with a warning.
 * @throws KeyFileError when the file cannot be read or created, or does not hold valid keys
 */
export async function loadOrCreateKeyFile(path: string, logger: KeyFileLogger): Promise<KeyRing> {
  try {
    await createKeyFile(path);
    logger.info(
      { keyFile: path },
      `generated the encryption key of job secrets: ${path}. Back it up, separately from the database: ` +
        'without it the secrets cannot be decrypted, and a backup holding both exposes them.',
    );
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw new KeyFileError(path, `cannot be created (${codeOf(err)})`);
  }
  return loadKeyFile(path, logger);
}

/**
 * The key ring kept in the existing file at `path` (as {@link loadOrCreateKeyFile}, which never
 * creates it): for the commands that only work on what is stored, such as `punctual secrets rekey`.
 * @throws KeyFileError when the file is missing or cannot be read, or does not hold valid keys
 */
export async function loadKeyFile(path: string, logger: KeyFileLogger): Promise<KeyRing> {
  let text: string;
  try {
    const { mode } = await stat(path);
    if ((mode & 0o077) !== 0) {
      logger.warn({ keyFile: path, mode: (mode & 0o777).toString(8) }, `the encryption key file ${path} is readable by other users: chmod 600 it`);
    }
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new KeyFileError(path, `cannot be read (${codeOf(err)})`);
  }
  let keys: Buffer[];
  try {
    keys = parseKeys(text);
  } catch (err) {
    throw new KeyFileError(path, (err as Error).message);
  }
  if (keys.length === 0) throw new KeyFileError(path, 'holds no key');
  return new KeyRing(keys);
}

/**
 * Copies the key file at `from` to `to`, a path that must not exist, created with mode 0600 and
 * synced (`punctual backup`). The content is copied as it is, after checking that it holds valid
 * keys.
 * @returns the ids of the keys it holds, newest first
 * @throws KeyFileError naming `from` when it cannot be read or holds no valid key (nothing is
 *   written), or naming `to` when it cannot be written (then it is removed)
 */
export async function copyKeyFile(from: string, to: string): Promise<string[]> {
  let text: string;
  let ids: string[];
  try {
    text = await readFile(from, 'utf8');
  } catch (err) {
    throw new KeyFileError(from, `cannot be read (${codeOf(err)})`);
  }
  try {
    const keys = parseKeys(text);
    if (keys.length === 0) throw new Error('holds no key');
    ids = new KeyRing(keys).keyIds.slice();
  } catch (err) {
    throw new KeyFileError(from, (err as Error).message);
  }
  try {
    const file = await open(to, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
    try {
      await file.writeFile(text);
      await file.sync();
    } finally {
      await file.close();
    }
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') await rm(to, { force: true });
    throw new KeyFileError(to, `cannot be written (${codeOf(err)})`);
  }
  return ids;
}

/** Writes a new key file at `path` with mode 0600 and syncs it and its directory; throws EEXIST when one is there. */
async function createKeyFile(path: string): Promise<void> {
  const file = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, 0o600);
  try {
    await file.writeFile(`${generateKey().toString('base64')}\n`);
    await file.sync();
  } finally {
    await file.close();
  }
  await syncDirectory(dirname(path));
}

/** The error code of a file system error (`ENOENT`, `EACCES`, …), never its message's paths or content. */
function codeOf(err: unknown): string {
  return (err as NodeJS.ErrnoException).code ?? 'error';
}
