import type { PgContext, Sql } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** The `settings` table (key → text value). */
export const settings = {
  /** See `Store.settingGet`. */
  async get(sql: Sql, key: string): Promise<string | null> {
    return (await sql.rows<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]))[0]?.value ?? null;
  },

  /**
   * See `Store.settingGetOrCreate`. Three autocommit statements, deliberately outside one
   * transaction: read; when absent, `create()` and INSERT … ON CONFLICT DO NOTHING (which waits
   * for a concurrent insert of the same key and then does nothing); read again — a new statement,
   * so a new snapshot that sees whichever value committed first. Concurrent callers may each
   * call `create`, but all return the one value stored. A `create` that throws stores nothing.
   */
  async getOrCreate(sql: Sql, key: string, create: () => string): Promise<string> {
    const read = async () => (await sql.rows<{ value: string }>('SELECT value FROM settings WHERE key = $1', [key]))[0]?.value;
    const found = await read();
    if (found !== undefined) return found;
    await sql.rows('INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING', [key, create()]);
    const stored = await read();
    if (stored === undefined) throw new Error(`setting ${key} vanished while being created`);
    return stored;
  },
};

/** The store operations of settings (store/sql-store.ts). */
export const settingOperations = {
  settingGetOrCreate: (c, p) => settings.getOrCreate(c.sql, p.key, p.create),
  settingGet: (c, p) => settings.get(c.sql, p.key),
} satisfies Partial<Operations<PgContext>>;
