/**
 * The real binary against the in-process runs of the other CLI tests (test/cli/run.ts): each
 * command line here runs as `node dist/cli.js` (a child process, standard input piped or none)
 * and in this process, and both give the same exit code, stdout and stderr. The lines go through
 * every way the command ends: an action that returns (0) or sets `process.exitCode` (1, 3, 4, a
 * usage error 2), commander's usage errors and help (`process.exit` from its exit override, 2 and
 * 0), a parser's error caught by the run (2), a configuration error (`process.exit(2)` in the
 * middle of an action), `apply`'s own exit override (1) and its "changes pending" (2), standard
 * input (`schedules import -`), tables and `--json`, on the API and on a store opened directly.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { punctualInProcess, punctualSpawned } from './run.js';

const UNKNOWN = '01900000-0000-7000-8000-000000000000';

let server: TestServer;
let env: Record<string, string>;
let dir: string;
let closedUrl: string;
let scheduleId: string;

beforeAll(async () => {
  server = await startTestServer();
  env = { PUNCTUAL_URL: server.url, PUNCTUAL_TOKEN: TEST_TOKEN };
  dir = mkdtempSync(join(tmpdir(), 'punctual-binary-'));
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedUrl = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const created = await server.api('POST', '/schedules', {
    name: 'binary',
    scheduledAt: '2099-01-01T00:00:00Z',
    endpoint: 'https://example.com/hook',
    tags: ['binary'],
  });
  scheduleId = (created.body as { id: string }).id;
});

afterAll(async () => {
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** One command line: its arguments, its environment (beyond this process's), its standard input, and the exit code both runs give. */
interface Line {
  args: string[];
  env: () => Record<string, string>;
  input?: string;
  code: number;
}

const LINES: Line[] = [
  { args: ['--version'], env: () => ({}), code: 0 },
  { args: ['schedules', '--help'], env: () => ({}), code: 0 },
  { args: ['schedules', 'get', '<id>'], env: () => env, code: 0 },
  { args: ['schedules', 'get', '<id>', '--json'], env: () => env, code: 0 },
  { args: ['schedules', 'list', '--tag', 'binary'], env: () => env, code: 0 },
  { args: ['cron', 'preview', '* * *'], env: () => env, code: 1 },
  { args: ['cron', 'preview', '* * *', '--json'], env: () => env, code: 1 },
  { args: ['schedules', 'list'], env: () => ({ PUNCTUAL_URL: server.url }), code: 2 },
  { args: ['cron', 'frobnicate'], env: () => env, code: 2 },
  { args: ['schedules', 'list', '--limit', 'ten'], env: () => env, code: 2 },
  { args: ['schedules', 'create', '--name', 'x', '--at', 'now', '--endpoint', 'http://e', '--data', '{oops'], env: () => env, code: 2 },
  { args: ['migrate'], env: () => ({ DATABASE_URL: `file:${join(dir, 'm.db')}`, PUNCTUAL_NODE_TIMEOUT: 'soon' }), code: 2 },
  { args: ['schedules', 'get', UNKNOWN], env: () => env, code: 3 },
  { args: ['schedules', 'get', UNKNOWN, '--json'], env: () => env, code: 3 },
  { args: ['schedules', 'list'], env: () => ({ ...env, PUNCTUAL_URL: closedUrl }), code: 4 },
  { args: ['apply', '--dry-run'], env: () => env, code: 1 },
  { args: ['apply', '-f', '<file>', '--dry-run'], env: () => env, code: 2 },
  { args: ['schedules', 'import', '-', '--json', '--batch-size', '1'], env: () => env, input: '{"name":"x"}\n[1]\n', code: 1 },
  { args: ['migrate'], env: () => ({ DATABASE_URL: `file:${join(dir, 'k.db')}`, PUNCTUAL_ENCRYPTION_KEYS: '' }), code: 0 },
  { args: ['keys', 'list', '--json'], env: () => ({ DATABASE_URL: `file:${join(dir, 'k.db')}`, PUNCTUAL_ENCRYPTION_KEYS: '' }), code: 0 },
];

/** The arguments of `line` with its placeholders filled in. */
function argsOf(line: Line): string[] {
  const applyFile = join(dir, 'jobs.yaml');
  writeFileSync(applyFile, `version: 1\nschedules:\n  - key: binary-once\n    name: Once\n    scheduledAt: "2099-01-01T00:00:00Z"\n    endpoint: https://example.com/once\n`);
  return line.args.map((a) => (a === '<id>' ? scheduleId : a === '<file>' ? applyFile : a));
}

describe('node dist/cli.js and the in-process runs', () => {
  it.each(LINES.map((line) => [`${line.args.join(' ')}${line.input === undefined ? '' : ' (stdin)'} → ${line.code}`, line] as const))(
    '%s: the same exit code, stdout and stderr',
    async (_name, line) => {
      const args = argsOf(line);
      const spawned = await punctualSpawned(args, line.env(), { input: line.input });
      const inProcess = await punctualInProcess(args, line.env(), line.input);
      expect(spawned.code, spawned.stderr).toBe(line.code);
      // Each line says something, on stdout or stderr.
      expect(spawned.stdout + spawned.stderr).not.toBe('');
      expect(inProcess).toEqual(spawned);
    },
  );
});
