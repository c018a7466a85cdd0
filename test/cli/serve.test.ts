/**
 * The built command comes up: `node dist/cli.js serve` (what `npm start` runs, and the package's
 * bin) in an empty folder without DATABASE_URL creates its database at the default path, says
 * which one (absolute) in its log, and answers GET /healthz. Not timed: start times are measured by
 * `npm run bench -- --scenario startup` (docs/benchmarks.md). Needs the build (`npm run build`,
 * which `npm install` runs through `prepare`). A real child process on a real port.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
/** Settings of this process that would point the server elsewhere. */
const OWN = ['DATABASE_URL', 'PORT', 'HOST', 'PUNCTUAL_ROLE', 'LOG_LEVEL'];

let dir: string;

beforeEach(() => {
  dir = realpathSync(mkdtempSync(join(tmpdir(), 'punctual-serve-')));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

describe('node dist/cli.js serve on a fresh database', () => {
  it('logs the absolute database path and answers /healthz', async () => {
    expect(existsSync(CLI), `${CLI} is missing: npm run build`).toBe(true);
    const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !OWN.includes(k)));
    const proc = spawn(process.execPath, [CLI, 'serve'], {
      cwd: dir,
      env: { ...base, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = once(proc, 'exit');
    const lines: string[] = [];
    let stderr = '';
    proc.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    try {
      // The URL it serves on, from its log (PORT=0: the system chose the port).
      const url = await new Promise<string>((resolve, reject) => {
        let buffer = '';
        proc.stdout.on('data', (c: Buffer) => {
          buffer += c.toString();
          for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
            const line = buffer.slice(0, nl);
            buffer = buffer.slice(nl + 1);
            lines.push(line);
            const rec = JSON.parse(line) as { msg?: string; url?: string };
            if (rec.msg === 'punctual is serving' && rec.url) resolve(rec.url);
          }
        });
        void exited.then(([code]) => reject(new Error(`serve exited (${String(code)}) before serving:\n${stderr}`)));
      });
      const res = await fetch(`${url}/healthz`);
      expect(res.status).toBe(200);
      const path = join(dir, 'data', 'punctual.db');
      const store = lines.map((l) => JSON.parse(l) as { msg?: string; database?: string }).find((r) => r.database !== undefined);
      expect(store).toMatchObject({ database: `SQLite file ${path}`, msg: `store: SQLite file ${path}` });
      expect(existsSync(path)).toBe(true);
    } finally {
      if (proc.exitCode === null) proc.kill('SIGTERM');
      const [code] = await exited;
      expect(code).toBe(0);
    }
  });
});
