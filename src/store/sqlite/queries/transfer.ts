/**
 * Both ends of `punctual migrate-store` for the embedded store (see `TransferSource` and
 * `TransferTarget` in store/transfer/records.ts; what is read and written is in
 * store/transfer/ends.ts). Each end has its own connection to the file, so a copy never goes
 * through (or disturbs) a serving `SqliteStore`.
 */
import type { TransferSource, TransferTarget } from '../../transfer/records.js';
import { transferSource, transferTarget, type Row, type TransferConnection } from '../../transfer/ends.js';
import { openConnection, toStoreError, type Db } from '../connection.js';
import { SQLITE_CODEC } from '../connection.js';

/** The end's view of the connection `db`: SQLite's codec and placeholders, errors as the store's. */
function connectionOf(db: Db): TransferConnection {
  return {
    codec: SQLITE_CODEC,
    mark: () => '?',
    insertionOrder: 'rowid',
    inIds: (column, ids) => ({ sql: `${column} IN (SELECT value FROM json_each(?))`, value: JSON.stringify(ids) }),
    all: (text, values = []) => {
      try {
        const stmt = db.prepare<unknown[], Row>(text);
        if (stmt.reader) return Promise.resolve(stmt.all(...values));
        stmt.run(...values);
        return Promise.resolve([]);
      } catch (err) {
        return Promise.reject(toStoreError(err));
      }
    },
  };
}

/**
 * Opens the reading end on the migrated SQLite file at `path`: a read transaction (a snapshot
 * in WAL mode) held until `close()`.
 * @throws StoreUnavailableError when the file cannot be opened
 */
export function openSqliteTransferSource(path: string): TransferSource {
  const db = openConnection(path);
  db.exec('BEGIN');
  return transferSource(connectionOf(db), async () => {
    if (!db.open) return;
    if (db.inTransaction) db.exec('ROLLBACK');
    db.close();
  });
}

/**
 * Opens the writing end on the migrated SQLite file at `path`: one IMMEDIATE transaction (the
 * write lock, so no node writes meanwhile) committed by `commit()`.
 * @throws StoreUnavailableError when the file cannot be opened or locked
 */
export function openSqliteTransferTarget(path: string): TransferTarget {
  const db = openConnection(path);
  try {
    db.exec('BEGIN IMMEDIATE');
  } catch (err) {
    db.close();
    throw toStoreError(err);
  }
  let committed = false;
  return transferTarget(connectionOf(db), {
    commit: async () => {
      try {
        db.exec('COMMIT');
      } catch (err) {
        throw toStoreError(err);
      }
      committed = true;
    },
    close: async () => {
      if (!db.open) return;
      if (!committed && db.inTransaction) db.exec('ROLLBACK');
      db.close();
    },
  });
}
