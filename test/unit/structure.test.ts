/**
 * The shape of src/ (docs/architecture.md, "The map"):
 * - no import cycle, type-only imports included, found by dependency-cruiser from the TypeScript
 *   sources (`tsPreCompilationDeps`: an `import type` counts as an edge);
 * - the two databases in one shape: src/store/sqlite/ and src/store/postgres/ hold the same file
 *   names, but for the named exceptions (SQLite's online backup and its store thread,
 *   PostgreSQL's LISTEN/NOTIFY), and each numbers its migrations 001, 002, … without a gap;
 * - at most 15 files at the top of src/store/, and no file of src/ over 400 lines (the generated
 *   client schema aside).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type IViolation } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SRC = join(ROOT, 'src');

/** Files of each database that the other has no counterpart of, each for a reason of its own. */
const ONLY_IN: Record<'sqlite' | 'postgres', string[]> = {
  // The online backup of `punctual backup` (SQLite's backup API), and the store thread that keeps
  // the dispatcher's transactions off the event loop (better-sqlite3 is synchronous).
  sqlite: ['backup.ts', 'dispatch-thread.ts', 'dispatch-thread-worker.ts'],
  // LISTEN/NOTIFY, which wakes the idle nodes of a shared database.
  postgres: ['notify.ts'],
};

/** The .ts files under `dir` (relative to it), sorted. */
function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => relative(dir, join(e.parentPath, e.name)))
    .sort();
}

describe('structure of src/', () => {
  it('has no import cycle, type-only imports included', async () => {
    const result = await cruise(
      ['src'],
      {
        baseDir: ROOT,
        tsPreCompilationDeps: true,
        doNotFollow: { path: 'node_modules' },
        validate: true,
        ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }] },
      },
      undefined,
      { tsConfig: { fileName: join(ROOT, 'tsconfig.json') } },
    );
    const output = result.output as { summary: { totalCruised: number; violations: IViolation[] } };
    // The check read the tree (it would pass vacuously otherwise).
    expect(output.summary.totalCruised).toBeGreaterThan(200);
    const cycles = output.summary.violations.map((v) => [v.from, ...(v.cycle ?? []).map((c) => c.name)].join(' → '));
    expect(cycles).toEqual([]);
  });

  it('finds a cycle when there is one (the check can fail)', async () => {
    const result = await cruise(
      ['test/unit/fixtures/cycle'],
      { baseDir: ROOT, tsPreCompilationDeps: true, validate: true, ruleSet: { forbidden: [{ name: 'no-circular', severity: 'error', from: {}, to: { circular: true } }] } },
      undefined,
      { tsConfig: { fileName: join(ROOT, 'tsconfig.json') } },
    );
    const output = result.output as { summary: { violations: IViolation[] } };
    expect(output.summary.violations.length).toBeGreaterThan(0);
  });

  it('gives src/store/sqlite/ and src/store/postgres/ the same file names, but for the named exceptions', () => {
    const outsideMigrations = (db: 'sqlite' | 'postgres') =>
      tsFiles(join(SRC, 'store', db)).filter((f) => !f.startsWith('migrations/') && !ONLY_IN[db].includes(f));
    expect(outsideMigrations('sqlite')).toEqual(outsideMigrations('postgres'));
    for (const db of ['sqlite', 'postgres'] as const) {
      const present = tsFiles(join(SRC, 'store', db));
      for (const f of ONLY_IN[db]) expect(present, `${db}/${f}, a named exception`).toContain(f);
    }
  });

  it('numbers each database\'s migrations 001, 002, … without a gap, beside index.ts and migration.ts', () => {
    for (const db of ['sqlite', 'postgres'] as const) {
      const files = tsFiles(join(SRC, 'store', db, 'migrations'));
      const numbered = files.filter((f) => /^\d{3}-[a-z0-9-]+\.ts$/.test(f));
      expect(files.filter((f) => !numbered.includes(f))).toEqual(['index.ts', 'migration.ts']);
      expect(numbered.length).toBeGreaterThan(10);
      expect(numbered.map((f) => Number(f.slice(0, 3)))).toEqual(numbered.map((_, i) => i + 1));
      const index = readFileSync(join(SRC, 'store', db, 'migrations', 'index.ts'), 'utf8');
      for (const f of numbered) expect(index, `${db}/migrations/index.ts lists ${f}`).toContain(`'./${f.replace(/\.ts$/, '.js')}'`);
    }
  });

  it('keeps at most 15 files at the top of src/store/', () => {
    const top = readdirSync(join(SRC, 'store'), { withFileTypes: true }).filter((e) => e.isFile());
    expect(top.length).toBeGreaterThan(0);
    expect(top.length).toBeLessThanOrEqual(15);
  });

  it('has no file over 400 lines (the generated client schema aside)', () => {
    const long = tsFiles(SRC)
      .filter((f) => f !== 'client/schema.ts')
      .map((f) => ({ f, lines: readFileSync(join(SRC, f), 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > 400)
      .map(({ f, lines }) => `${f}: ${lines}`);
    expect(long).toEqual([]);
  });
});
