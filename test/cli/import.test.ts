/**
 * `punctual schedules import` (docs/cli.md): NDJSON from a file or standard input, in batches
 * through POST /schedules/batch; faulty lines reported by number and skipped, the rest created.
 * Run in this process (test/cli/run.ts) against a real server on a socket.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ScheduleList } from '../../src/client/index.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { punctual } from './run.js';

let server: TestServer;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  server = await startTestServer();
  env = { PUNCTUAL_URL: server.url, PUNCTUAL_TOKEN: TEST_TOKEN };
  dir = mkdtempSync(join(tmpdir(), 'punctual-import-'));
});
afterAll(async () => {
  await server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const line = (name: string, o: Record<string, unknown> = {}) =>
  JSON.stringify({ name, scheduledAt: '2036-01-01T00:00:00Z', endpoint: 'https://example.com/hook', ...o });
const names = async () => ((await server.api('GET', '/schedules?limit=1000')).body as ScheduleList).schedules.map((s) => s.name).sort();

describe('punctual schedules import', () => {
  it('creates every good line in batches, reports faulty ones by line number, exits 1', async () => {
    const file = join(dir, 'jobs.jsonl');
    writeFileSync(
      file,
      [line('a'), line('b'), '', '{not json', line('c', { endpoint: 'nope' }), line('d'), '[1]', line('e')].join('\n') + '\n',
    );
    const r = await punctual(['schedules', 'import', file, '--batch-size', '2'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('4 schedules created, 3 lines failed\n');
    expect(r.stderr).toContain('line 4: not valid JSON');
    expect(r.stderr).toMatch(/line 5: \/endpoint: /);
    expect(r.stderr).toContain('line 7: must be a JSON object');
    expect(await names()).toEqual(['a', 'b', 'd', 'e']);
  });

  it('reads standard input with -, and --json gives the summary', async () => {
    const r = await punctual(['schedules', 'import', '-', '--json'], env, { input: `${line('s1')}\n${line('s2')}\n` });
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ created: 2, failed: [] });
    expect(await names()).toEqual(expect.arrayContaining(['s1', 's2']));
  });
});
