/**
 * The embedded SQLite store for the bench: a fresh file in a temp directory per scenario, migrated
 * by the service's own `punctual migrate`, seeded (when a scenario needs many far-future rows)
 * by writing the file directly: prepared INSERTs into the `schedules` table of
 * src/store/sqlite/migrations/index.ts, in transactions of 50,000 rows, from a second connection
 * (before the service starts, or while it idles). Only the columns the seeding
 * needs are named; a schema change that adds a NOT NULL column without a default makes the
 * seeding fail with SQLite's message rather than write wrong rows.
 */
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { v7 as uuidv7 } from 'uuid';
import { punctual, type Runner } from '../service.js';
import { EXECUTION_SEED, type BenchDatabase, type BenchStore } from './store.js';

export const sqliteStore: BenchStore = {
  name: 'sqlite',
  // A SQLite file serves one node (docs/multinode.md: `api`/`dispatcher` roles are refused).
  shared: false,
  async describe() {
    const db = new Database(':memory:');
    try {
      const version = (db.prepare('SELECT sqlite_version() AS v').get() as { v: string }).v;
      // The service's settings (src/store/sqlite), not read from a file: stated for the report.
      return { version: `SQLite ${version}`, journal_mode: 'wal', synchronous: 'full' };
    } finally {
      db.close();
    }
  },
  async create(runner: Runner): Promise<BenchDatabase> {
    const dir = await mkdtemp(join(tmpdir(), 'punctual-bench-'));
    const file = join(dir, 'punctual.db');
    const databaseUrl = `file:${file}`;
    await punctual(runner, ['migrate'], databaseUrl);
    return {
      databaseUrl,
      async seedPending(count, { firstAt, stepMs, endpoint }) {
        const t0 = performance.now();
        // A second connection, as `punctual keys create` beside a running server: WAL lets the
        // service read meanwhile, and chunks of 50,000 rows (≈ 0.3 s each) keep the write lock
        // far shorter than the service's busy_timeout (5 s) should it write meanwhile.
        const db = new Database(file, { timeout: 10_000 });
        try {
          // This connection only: the seed is setup, its durability is irrelevant.
          db.pragma('synchronous = OFF');
          const insert = db.prepare<[string, string, number, string, string, number]>(
            `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, data, tags, created_at)
             VALUES (?, ?, ?, 'Pending', ?, ?, '["bench-seed"]', ?)`,
          );
          const now = Date.now();
          const chunk = db.transaction((from: number, to: number) => {
            for (let i = from; i < to; i++) {
              insert.run(uuidv7(), `seed-${i}`, firstAt + i * stepMs, endpoint, `{"seed":${i}}`, now);
            }
          });
          for (let from = 0; from < count; from += 50_000) chunk.immediate(from, Math.min(count, from + 50_000));
          // Leave a checkpointed file with an empty WAL where possible (a reader may prevent it).
          db.pragma('wal_checkpoint(TRUNCATE)');
        } finally {
          db.close();
        }
        return performance.now() - t0;
      },
      async seedExecutions(count, { offset }) {
        const t0 = performance.now();
        const db = new Database(file, { timeout: 10_000 });
        try {
          db.pragma('synchronous = OFF');
          // A recursive CTE per chunk of 500,000 (one transaction each: the write lock is held a few s at most).
          const insert = db.prepare<[number, number]>(
            `WITH RECURSIVE g(n) AS (SELECT ? UNION ALL SELECT n + 1 FROM g WHERE n + 1 < ?)
             INSERT INTO executions (${EXECUTION_SEED.columns}) SELECT ${EXECUTION_SEED.seedSelect('n', Date.now())} FROM g`,
          );
          for (let from = offset; from < offset + count; from += 500_000) insert.run(from, Math.min(offset + count, from + 500_000));
          // No ANALYZE: Punctual never runs it, so a SQLite store has no sqlite_stat1 and its plans
          // are those the plan tests check. Statistics taken of the first 100 executions made the
          // service's statements, prepared then, keep scanning the table once it held millions.
          db.pragma('wal_checkpoint(TRUNCATE)');
        } finally {
          db.close();
        }
        return performance.now() - t0;
      },
      async sizeBytes() {
        let total = 0;
        for (const f of [file, `${file}-wal`]) total += await stat(f).then((s) => s.size, () => 0);
        return total;
      },
      dispose: () => rm(dir, { recursive: true, force: true }),
    };
  },
};
