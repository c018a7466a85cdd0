import { constants } from 'node:fs';
import { open } from 'node:fs/promises';

/**
 * fsync of the folder `dir`, so that a file created, renamed or removed in it lasts a power cut
 * (POSIX: a file's own fsync does not make its directory entry durable; fsync(2)). Some file
 * systems cannot sync a directory: there it does nothing, the files themselves being synced by
 * their writers.
 * @throws the error of opening `dir` (e.g. `ENOENT`)
 */
export async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, constants.O_RDONLY);
  try {
    await handle.sync();
  } catch {
    // Some file systems cannot sync a directory; the file itself is synced.
  } finally {
    await handle.close();
  }
}
