/**
 * Migrated databases for tests that want one per test (the Store conformance suite): made once
 * per test file, then handed out cheaply, as River's `riverdbtest` does.
 *
 * - SQLite: one migrated template file per test file, copied to a fresh temp dir per test.
 * - PostgreSQL: a pool of migrated schemas per test file. A schema given back is checked (same
 *   relations and migrations as when it was made) and emptied (its rows deleted, its sequences
 *   restarted), then handed to the next test; one that changed shape is dropped instead.
 *
 * Tests of migrating itself, or of an empty database, keep using `createTestSchema` (pg.ts) and
 * `SQLITE.create()` (stores.ts), which still give empty ones.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openStore } from '../../src/store/open.js';
import type { TestSchema } from './pg.js';

/** A migrated SQLite database file of its own, and how to remove it. */
export interface MigratedSqlite {
  /** `DATABASE_URL` of the copy (`file:<dir>/punctual.db`). */
  url: string;
  /** Removes the copy's temp dir. Idempotent. */
  drop(): Promise<void>;
}

let template: Promise<string> | null = null;

/** The template file, migrated once per test file; removed when the process exits. */
function sqliteTemplate(): Promise<string> {
  template ??= (async () => {
    const dir = await mkdtemp(join(tmpdir(), 'punctual-template-'));
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'punctual.db');
    const store = await openStore(`file:${file}`);
    await store.migrate();
    await store.close(); // checkpoints the WAL into the file: the file alone is the database
    return file;
  })();
  return template;
}

/** Writes a copy of the migrated template to `file` (a few ms instead of a migration). */
export async function copyMigratedSqlite(file: string): Promise<void> {
  await copyFile(await sqliteTemplate(), file);
}

/** A copy of the migrated template in a fresh temp dir. */
export async function migratedSqlite(): Promise<MigratedSqlite> {
  const dir = await mkdtemp(join(tmpdir(), 'punctual-test-'));
  const file = join(dir, 'punctual.db');
  await copyMigratedSqlite(file);
  return { url: `file:${file}`, drop: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * What a schema looks like (counts of its relations, functions and triggers, and its applied
 * migrations): a schema given back is reused only while it looks as it did right after its
 * migration.
 */
function shapeSql(schema: string): string {
  return `SELECT
  (SELECT count(*) FROM pg_class WHERE relnamespace = '"${schema}"'::regnamespace)::int AS relations,
  (SELECT count(*) FROM pg_proc WHERE pronamespace = '"${schema}"'::regnamespace)::int AS functions,
  (SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = '"${schema}"'::regnamespace)::int AS triggers,
  (SELECT string_agg(version::text, ',' ORDER BY version) FROM "${schema}".schema_migrations) AS versions`;
}

/** The tables to empty (referencing tables before those they reference) and the sequences to restart. */
interface Contents {
  tables: string[];
  sequences: string[];
}

/**
 * A pool of migrated PostgreSQL schemas on the server at `base`, for one test file. `take()` gives
 * a schema with no rows (as a fresh migration leaves it); its `drop()` gives it back. `close()`
 * drops every schema the pool made (call it in `afterAll`).
 *
 * Emptying is one transaction of DELETEs and sequence restarts (the tables of a test hold a few
 * rows: about 20 ms, where TRUNCATE, which makes new files for every table and index, takes
 * 10–20 times longer); TRUNCATE … RESTART IDENTITY CASCADE is the fallback when it fails.
 */
export class MigratedSchemaPool {
  private readonly idle: string[] = [];
  private readonly made = new Set<string>();
  private admin: Promise<pg.Client> | null = null;
  private shape: string | null = null;
  private contents: Contents | null = null;

  constructor(private readonly base: string) {}

  /** One admin connection (no `schema` parameter) kept for the pool's statements. */
  private client(): Promise<pg.Client> {
    this.admin ??= (async () => {
      const u = new URL(this.base);
      u.searchParams.delete('schema');
      const c = new pg.Client({ connectionString: u.toString(), connectionTimeoutMillis: 5_000 });
      c.on('error', () => undefined);
      await c.connect();
      // A schema still locked by a leaked connection is dropped rather than waited for.
      await c.query(`SET lock_timeout = '5s'`);
      return c;
    })();
    return this.admin;
  }

  private urlOf(schema: string): string {
    const u = new URL(this.base);
    u.searchParams.set('schema', schema);
    return u.toString();
  }

  /** The tables and sequences of a freshly migrated `schema` (the same in every schema of the pool). */
  private async contentsOf(schema: string): Promise<Contents> {
    const c = await this.client();
    const tables = (
      await c.query<{ name: string; refs: number }>(
        `SELECT t.relname AS name,
                (SELECT count(*) FROM pg_constraint f WHERE f.conrelid = t.oid AND f.contype = 'f')::int AS refs
           FROM pg_class t
          WHERE t.relnamespace = $1::regnamespace AND t.relkind IN ('r', 'p') AND t.relname <> 'schema_migrations'`,
        [`"${schema}"`],
      )
    ).rows;
    tables.sort((a, b) => b.refs - a.refs || a.name.localeCompare(b.name));
    const sequences = (
      await c.query<{ name: string }>(`SELECT relname AS name FROM pg_class WHERE relnamespace = $1::regnamespace AND relkind = 'S'`, [
        `"${schema}"`,
      ])
    ).rows;
    return { tables: tables.map((t) => t.name), sequences: sequences.map((q) => q.name) };
  }

  private async make(): Promise<string> {
    const schema = `punctual_test_${randomBytes(6).toString('hex')}`;
    const c = await this.client();
    await c.query(`CREATE SCHEMA "${schema}"`);
    this.made.add(schema);
    const store = await openStore(this.urlOf(schema), { clock: 'caller' });
    try {
      await store.migrate();
    } finally {
      await store.close();
    }
    if (this.shape === null) {
      this.shape = JSON.stringify((await c.query(shapeSql(schema))).rows[0]);
      this.contents = await this.contentsOf(schema);
    }
    return schema;
  }

  /** Empties `schema` for the next test, or drops it when a test changed its shape. */
  private async giveBack(schema: string): Promise<void> {
    const c = await this.client();
    try {
      if (JSON.stringify((await c.query(shapeSql(schema))).rows[0]) !== this.shape) throw new Error('changed shape');
      const { tables, sequences } = this.contents!;
      const q = (name: string) => `"${schema}"."${name}"`;
      try {
        await c.query(
          `BEGIN; ${tables.map((t) => `DELETE FROM ${q(t)};`).join(' ')} ` +
            `${sequences.map((n) => `ALTER SEQUENCE ${q(n)} RESTART;`).join(' ')} COMMIT;`,
        );
      } catch {
        await c.query('ROLLBACK').catch(() => undefined);
        await c.query(`TRUNCATE ${tables.map(q).join(', ')} RESTART IDENTITY CASCADE`);
      }
      this.idle.push(schema);
    } catch {
      this.made.delete(schema);
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch((err: unknown) => {
        console.warn(`could not drop test schema ${schema}: ${(err as Error).message}`);
      });
    }
  }
  /** A migrated, empty schema for one test; its `drop()` gives it back to the pool. */
  async take(): Promise<TestSchema> {
    const schema = this.idle.pop() ?? (await this.make());
    let given = false;
    return {
      url: this.urlOf(schema),
      schema,
      drop: async () => {
        if (given) return;
        given = true;
        await this.giveBack(schema);
      },
    };
  }

  /** Drops every schema the pool made and closes its connection. */
  async close(): Promise<void> {
    if (this.admin === null) return;
    const c = await this.admin;
    for (const schema of this.made) {
      await c.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch((err: unknown) => {
        console.warn(`could not drop test schema ${schema}: ${(err as Error).message}`);
      });
    }
    this.made.clear();
    this.idle.length = 0;
    this.admin = null;
    await c.end().catch(() => undefined);
  }
}
