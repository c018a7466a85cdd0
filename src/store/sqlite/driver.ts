import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { SqliteDispatchThread } from './dispatch-thread.js';
import { StoreUnavailableError } from '../../domain/errors.js';
import type { DatabaseTarget, StoreDriver } from '../driver.js';
import { SqliteStore } from './store.js';
import { openSqliteTransferSource, openSqliteTransferTarget } from './queries/transfer.js';

/**
 * The embedded SQLite store, on the file `target.path`. Opening creates the file's directory when
 * missing. `punctual serve` runs the dispatcher's transactions on a thread of their own, on a
 * second connection to the file (src/store/sqlite/dispatch-thread.ts).
 */
export const sqliteDriver: StoreDriver<Extract<DatabaseTarget, { kind: 'sqlite' }>> = {
  async open(target, opts) {
    try {
      mkdirSync(dirname(target.path), { recursive: true });
    } catch (err) {
      throw new StoreUnavailableError(`Cannot create the directory of the SQLite database ${target.path}.`, err);
    }
    return SqliteStore.open(target.path, opts.logger ? { logger: opts.logger } : {});
  },
  async openTransferSource(target) {
    return openSqliteTransferSource(target.path);
  },
  async openTransferTarget(target) {
    return openSqliteTransferTarget(target.path);
  },
  serveDispatchStore(store, target, opts) {
    return new SqliteDispatchThread(store, target.path, opts.logger ? { logger: opts.logger } : {});
  },
  describe: (target) => `SQLite file ${target.path}`,
};
