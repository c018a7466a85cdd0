/**
 * Migrated databases for tests that want one per test (the Store conformance suite): made once
 * per test file, then handed out cheaply, as River's `riverdbtest` does.
 *
 * - SQLite: one migrated template file per test file, copied to a fresh temp dir per test.
 * - PostgreSQL: a pool of migrated schemas per test file. A schema given back is checked (same
 *   relations and migrations as when it was made) and emptied with one TRUNCATE … RESTART
 *   IDENTITY, then handed to the next test; one that changed shape is dropped instead.
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

/** What a schema looked like right after its migration: reused only while it still does. */
const SHAPE_SQL = `SELECT
  (SELECT count(*) FROM pg_class WHERE relnamespace = $1::regnamespace)::int AS relations,
  (SELECT count(*) FROM pg_proc WHERE pronamespace = $1::regnamespace)::int AS functions,
  (SELECT count(*) FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE c.relnamespace = $1::regnamespace)::int AS triggers`;

/**
 * A pool of migrated PostgreSQL schemas on the server at `base`, for one test file. `take()` gives
 * a schema with no rows (as a fresh migration leaves it); its `drop()` gives it back. `close()`
 * drops every schema the pool made (call it in `afterAll`).
 */
export class MigratedSchemaPool {
  private readonly idle: string[] = [];
  private readonly made = new Set<string>();
  private admin: Promise<pg.Client> | null = null;
  private shape: string | null = null;
  private versions: string | null = null;

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

  /** The shape of `schema` and its applied migrations, compared at each give-back. */
  private async fingerprint(schema: string): Promise<{ shape: string; versions: string }> {
    const c = await this.client();
    const shape = JSON.stringify((await c.query(SHAPE_SQL, [schema])).rows[0]);
    const versions = (await c.query<{ v: string }>(`SELECT string_agg(version::text, ',' ORDER BY version) AS v FROM "${schema}".schema_migrations`)).rows[0]?.v ?? '';
    return { shape, versions };
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
      const f = await this.fingerprint(schema);
      this.shape = f.shape;
      this.versions = f.versions;
    }
    return schema;
  }

  /** Empties `schema` for the next test, or drops it when a test changed its shape. */
  private async giveBack(schema: string): Promise<void> {
    const c = await this.client();
    try {
      const f = await this.fingerprint(schema);
      if (f.shape !== this.shape || f.versions !== this.versions) throw new Error('changed shape');
      const tables = (
        await c.query<{ name: string }>(
          `SELECT tablename AS name FROM pg_tables WHERE schemaname = $1 AND tablename <> 'schema_migrations'`,
          [schema],
        )
      ).rows.map((r) => `"${schema}"."${r.name}"`);
      if (tables.length > 0) await c.query(`TRUNCATE ${tables.join(', ')} RESTART IDENTITY CASCADE`);
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
