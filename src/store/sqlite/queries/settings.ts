import type { Db } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** The `settings` table (key → text value): statements prepared once. */
export class SettingQueries {
  private readonly read;
  private readonly insert;
  private readonly getOrCreateTx;

  constructor(db: Db) {
    this.read = db.prepare<[string], { value: string }>('SELECT value FROM settings WHERE key = ?');
    this.insert = db.prepare<[string, string]>(
      'INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING',
    );
    // IMMEDIATE: the write lock is taken before the read, so of two processes starting at once
    // the second waits and then reads the first one's value. `create` runs only when the key is
    // absent. ON CONFLICT DO NOTHING is then redundant here, kept so the statement is safe alone.
    this.getOrCreateTx = db.transaction((key: string, create: () => string): string => {
      const found = this.read.get(key);
      if (found) return found.value;
      this.insert.run(key, create());
      return this.read.get(key)!.value;
    });
  }

  /** See `Store.settingGet`. */
  get(key: string): string | null {
    return this.read.get(key)?.value ?? null;
  }

  /** See `Store.settingGetOrCreate`. A `create` that throws rolls back and rethrows. */
  getOrCreate(key: string, create: () => string): string {
    return this.getOrCreateTx.immediate(key, create);
  }
}

/** The store operations of settings (../../sql-store.ts), on the statements of SettingQueries. */
export const settingOperations = {
  settingGetOrCreate: (q, p) => q.settings.getOrCreate(p.key, p.create),
  settingGet: (q, p) => q.settings.get(p.key),
} satisfies Partial<Operations<{ settings: SettingQueries }>>;
