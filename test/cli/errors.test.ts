/**
 * Exit codes, error output and `--help` of the `punctual` command, run in this process
 * (test/cli/run.ts; test/cli/binary.test.ts holds the built binary to the same codes and output):
 * 1 for a problem the API answered, 2 for usage, 3 for not found, 4 when the service cannot be
 * reached or answers 5xx. The token never appears in any output.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { punctual, type CliResult } from './run.js';

const UNKNOWN = '01900000-0000-7000-8000-000000000000';

let server: TestServer;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  env = { PUNCTUAL_URL: server.url, PUNCTUAL_TOKEN: TEST_TOKEN };
});

afterAll(async () => {
  await server?.stop();
});

/** A server answering every request with `status` and a problem document; its URL and a stop. */
async function failing(status: number): Promise<{ url: string; close(): Promise<void> }> {
  const http: Server = createServer((_req, res) => {
    res.writeHead(status, { 'content-type': 'application/problem+json', 'retry-after': '1' });
    res.end(JSON.stringify({ type: 'urn:punctual:problem:store_unavailable', title: 'Service unavailable', status, detail: 'The store is unavailable.' }));
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  return {
    url: `http://127.0.0.1:${(http.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => http.close(() => resolve())),
  };
}

function expectNoToken(r: CliResult): void {
  expect(r.stdout).not.toContain(TEST_TOKEN);
  expect(r.stderr).not.toContain(TEST_TOKEN);
}

describe('exit codes', () => {
  it('1: a 4xx problem, printed as status, title, detail and each field', async () => {
    const r = await punctual(['schedules', 'create', '--name', ' ', '--at', 'tomorrow', '--endpoint', 'ftp://example.com/x'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^punctual: 400 Invalid input: /);
    expect(lines.slice(1).map((l) => /^ {2}(\/\w+): ./.exec(l)?.[1]).sort()).toEqual(['/endpoint', '/name', '/scheduledAt']);
    expectNoToken(r);

    // With --json, stderr carries the problem document itself.
    const json = await punctual(['cron', 'preview', '* * *', '--json'], env);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stderr)).toMatchObject({
      type: 'urn:punctual:problem:invalid_input',
      status: 400,
      errors: [{ path: '/query/expression', message: expect.any(String) }],
    });

    const unauthenticated = await punctual(['cron', 'list'], { ...env, PUNCTUAL_TOKEN: 'pk_not-a-key' });
    expect(unauthenticated.code).toBe(1);
    expect(unauthenticated.stderr).toMatch(/^punctual: 401 /);
  });

  it('1: a problem with one faulty field names it once (the detail states it; no field line repeats it)', async () => {
    const r = await punctual(['cron', 'preview', '* * *'], env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^punctual: 400 Invalid input: \/query\/expression: [^\n]+\n$/);
    expect(r.stderr.split('/query/expression')).toHaveLength(2);

    // Two faulty fields: the detail counts them, and each has its own line.
    const two = await punctual(['schedules', 'create', '--name', 'x', '--at', 'tomorrow', '--endpoint', 'ftp://example.com/x'], env);
    expect(two.code).toBe(1);
    for (const path of ['/scheduledAt', '/endpoint']) expect([path, two.stderr.split(`${path}:`).length]).toEqual([path, 2]);
  });

  it('3: not found, for a get that answers null and for a 404', async () => {
    for (const args of [
      ['schedules', 'get', UNKNOWN],
      ['cron', 'get', 'not-a-uuid'],
      ['executions', 'get', UNKNOWN],
      ['executions', 'list', UNKNOWN],
      ['schedules', 'delete', UNKNOWN],
      ['cron', 'pause', UNKNOWN],
      ['cron', 'trigger', UNKNOWN],
    ]) {
      const r = await punctual(args, env);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 3]);
      expect(r.stderr).toMatch(/^punctual: /);
    }
  });

  it('4: the service cannot be reached, or answers 5xx', async () => {
    const gone = await failing(503);
    await gone.close(); // nothing listens on that port any more
    const unreachable = await punctual(['schedules', 'list'], { ...env, PUNCTUAL_URL: gone.url });
    expect(unreachable.code).toBe(4);
    expect(unreachable.stderr).toBe(`punctual: cannot reach ${gone.url} (ECONNREFUSED)\n`);

    const down = await failing(503);
    try {
      const r = await punctual(['cron', 'list'], { ...env, PUNCTUAL_URL: down.url });
      expect(r.code).toBe(4);
      expect(r.stderr).toBe('punctual: 503 Service unavailable: The store is unavailable. (retry after 1 s)\n');
      expectNoToken(r);
    } finally {
      await down.close();
    }
  });

  it('2: usage and configuration errors, before anything is sent', async () => {
    const cases: [string[], Record<string, string>, RegExp][] = [
      [['schedules', 'list'], { PUNCTUAL_TOKEN: TEST_TOKEN }, /set PUNCTUAL_URL or pass --url/],
      [['schedules', 'list'], { PUNCTUAL_URL: server.url }, /set PUNCTUAL_TOKEN or pass --token/],
      [['keys', 'list'], { PUNCTUAL_URL: server.url }, /or add --local to work on the store in DATABASE_URL/],
      [['schedules', 'list', '--url', 'localhost:8080'], { PUNCTUAL_TOKEN: TEST_TOKEN }, /PUNCTUAL_URL \/ --url: baseUrl must be/],
      [['schedules', 'create', '--name', 'x'], env, /needs --at, --endpoint/],
      [
        ['schedules', 'create', '--name', 'x', '--at', 'now', '--endpoint', 'http://e', '--data', '{oops'],
        env,
        /^punctual: --data '\{oops' is not valid JSON \(Expected property name or '\}' in JSON at position 1[^\n]*\)\.\n$/,
      ],
      [['cron', 'update', UNKNOWN, '--data', '[1,'], env, /^punctual: --data '\[1,' is not valid JSON \([^\n]+\)\.\n$/],
      [['schedules', 'list', '--status', 'Done'], env, /Allowed choices are Pending, Running, Succeeded, Failed/],
      [['cron', 'create', '--timeout-ms', '5s'], env, /must be a whole number/],
      [['schedules', 'list', '--limit', 'ten'], env, /'--limit <n>' argument 'ten' is invalid/],
      [['cron', 'preview', '* * * * *', '--count', '1e2'], env, /must be a whole number/],
      [['cron', 'frobnicate'], env, /unknown command 'frobnicate'/],
      [['schedules', 'list', '--colour'], env, /unknown option '--colour'/],
      [['executions', 'get'], env, /missing required argument 'id'/],
    ];
    for (const [args, e, message] of cases) {
      const r = await punctual(args, e);
      expect([args.join(' '), r.code]).toEqual([args.join(' '), 2]);
      expect(r.stderr).toMatch(message);
      expectNoToken(r);
    }
  });

  it('--url and --token flags stand in for the variables', async () => {
    const r = await punctual(['cron', 'list', '--url', server.url, '--token', TEST_TOKEN, '--json'], {});
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ size: expect.any(Number), cronJobs: expect.any(Array) });
  });
});

describe('--help', () => {
  const COMMANDS = [
    [],
    ['serve'], ['migrate'], ['migrate-store'], ['signing-secret'], ['backup'],
    ['keys'], ['keys', 'create'], ['keys', 'list'], ['keys', 'get'], ['keys', 'update'], ['keys', 'delete'],
    ['schedules'], ['schedules', 'create'], ['schedules', 'list'], ['schedules', 'get'], ['schedules', 'update'],
    ['schedules', 'delete'], ['schedules', 'trigger'], ['schedules', 'executions'],
    ['cron'], ['cron', 'create'], ['cron', 'list'], ['cron', 'get'], ['cron', 'update'], ['cron', 'pause'], ['cron', 'resume'],
    ['cron', 'trigger'], ['cron', 'delete'], ['cron', 'executions'], ['cron', 'preview'],
    ['executions'], ['executions', 'list'], ['executions', 'get'],
    ['secrets'], ['secrets', 'rekey'],
  ];

  it('every command has one (exit 0), and the API commands name PUNCTUAL_URL and PUNCTUAL_TOKEN without their values', async () => {
    // Two at a time (in this process the runs take turns; as child processes, two of them).
    for (let i = 0; i < COMMANDS.length; i += 2) {
      await Promise.all(
        COMMANDS.slice(i, i + 2).map(async (command) => {
          const r = await punctual([...command, '--help'], env);
          expect([command.join(' '), r.code]).toEqual([command.join(' '), 0]);
          expect(r.stdout).toContain(`Usage: punctual${command.length > 0 ? ` ${command.join(' ')}` : ''}`);
          expectNoToken(r);
          const api = ['schedules', 'cron', 'executions'].includes(command[0] ?? '') || command[0] === 'keys';
          if (api && command.length === 2) {
            const text = r.stdout.replace(/\s+/g, ' '); // help is wrapped at 80 columns
            expect(text).toContain('(env: PUNCTUAL_URL)');
            expect(text).toContain('(env: PUNCTUAL_TOKEN)');
            expect(text).toContain('--json');
            expect(text).not.toContain(server.url);
          }
        }),
      );
    }
    // About 35 runs: give a loaded machine time (a child process takes ~0.3 s alone).
  }, 120_000);
});
