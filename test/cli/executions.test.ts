/**
 * `punctual executions list` with its filter flags and `punctual executions replay` (docs/cli.md),
 * run in this process (test/cli/run.ts) against a live server calling a real receiver.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Execution, ExecutionPage } from '../../src/client/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { punctual, punctualJson } from './run.js';

let server: TestServer;
let receiver: Receiver;
let env: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  env = { PUNCTUAL_URL: server.url, PUNCTUAL_TOKEN: TEST_TOKEN };
});

afterAll(async () => {
  await receiver?.close();
  await server?.stop();
});

/** A schedule due now calling `path`; its id. */
async function schedule(path: string): Promise<string> {
  const res = await server.api('POST', '/schedules', { name: path, scheduledAt: new Date().toISOString(), endpoint: receiver.url + path });
  expect(res.status).toBe(201);
  return (res.body as { id: string }).id;
}

/** The schedule's execution once its status is `status`. */
async function execution(scheduleId: string, status: string): Promise<Execution> {
  let last: Execution | undefined;
  await expect
    .poll(async () => {
      last = ((await server.api('GET', `/schedules/${scheduleId}/executions`)).body as ExecutionPage).executions[0];
      return last?.status;
    }, { timeout: 15_000, interval: 50 })
    .toBe(status);
  return last!;
}

describe('punctual executions list and replay', () => {
  it('lists across jobs with --status (any case, repeatable), --job, --type, --since; replays one and many', async () => {
    receiver.respond('/cli-a', [{ status: 404 }, { status: 200 }]);
    receiver.respond('/cli-b', [{ status: 400 }, { status: 200 }]);
    receiver.respond('/cli-ok', { status: 200 });
    const a = await schedule('/cli-a');
    const b = await schedule('/cli-b');
    const ok = await schedule('/cli-ok');
    const failedA = await execution(a, 'Failed');
    const failedB = await execution(b, 'Failed');
    const succeeded = await execution(ok, 'Succeeded');

    const failed = await punctualJson<ExecutionPage>(['executions', 'list', '--status', 'failed'], env);
    expect(new Set(failed.executions.map((e) => e.id))).toEqual(new Set([failedA.id, failedB.id]));
    expect(failed).toEqual((await server.api('GET', '/executions?status=Failed')).body);
    const both = await punctualJson<ExecutionPage>(['executions', 'list', '--status', 'FAILED', '--status', 'succeeded', '--since', '2h'], env);
    expect(both.size).toBe(3);
    expect((await punctualJson<ExecutionPage>(['executions', 'list', '--status', 'failed', '--job', a], env)).executions.map((e) => e.id)).toEqual([failedA.id]);
    expect((await punctualJson<ExecutionPage>(['executions', 'list', '--type', 'cron'], env)).size).toBe(0);
    expect((await punctualJson<ExecutionPage>(['executions', 'list', '--limit', '1'], env)).size).toBe(1);
    expect((await punctualJson<ExecutionPage>(['executions', 'list', '--to', '2000-01-01T00:00:00Z'], env)).size).toBe(0);
    const table = await punctual(['executions', 'list', '--status', 'failed'], env);
    expect(table.code).toBe(0);
    for (const text of ['ID', 'STATUS', failedA.id, failedB.id, 'HTTP 404', 'HTTP 400']) expect(table.stdout).toContain(text);

    // Usage errors (exit 2) and the service's 400 (exit 1, naming the field).
    expect((await punctual(['executions', 'list', '--status', 'lost'], env)).code).toBe(2);
    expect((await punctual(['executions', 'list', '--since', '2 hours'], env)).code).toBe(2);
    const badFrom = await punctual(['executions', 'list', '--from', 'yesterday'], env);
    expect(badFrom.code).toBe(1);
    expect(badFrom.stderr).toContain('/query/from');

    // One execution: its detail, Retrying; then called again with the same webhook-id, attempt 2.
    const replayed = await punctual(['executions', 'replay', failedA.id], env);
    expect(replayed.code).toBe(0);
    expect(replayed.stdout).toContain('Retrying');
    const done = await execution(a, 'Succeeded');
    expect(done.attempts.map((x) => x.number)).toEqual([1, 2]);
    const callsA = receiver.arrivals.filter((x) => x.path === '/cli-a');
    expect(callsA.map((x) => [x.headers['webhook-id'], x.headers['punctual-attempt']])).toEqual([[failedA.id, '1'], [failedA.id, '2']]);

    // Not Failed: the 409 is an API error (exit 1); unknown: exit 3.
    expect((await punctual(['executions', 'replay', succeeded.id], env)).code).toBe(1);
    expect((await punctual(['executions', 'replay', '0190a0e0-0000-7000-8000-000000000000'], env)).code).toBe(3);

    // Many: by job and time; nothing without a filter; not both an id and flags.
    expect((await punctual(['executions', 'replay'], env)).code).toBe(2);
    expect((await punctual(['executions', 'replay', failedB.id, '--job', b], env)).code).toBe(2);
    expect(await punctualJson(['executions', 'replay', '--job', a, '--since', '2h'], env)).toEqual({ count: 0 });
    const many = await punctual(['executions', 'replay', '--job', b, '--since', '2h'], env);
    expect(many).toMatchObject({ code: 0, stdout: 'replayed 1 execution\n' });
    expect((await execution(b, 'Succeeded')).attempts.map((x) => x.number)).toEqual([1, 2]);
  });

  it('keeps `executions list <job-id>` as the job\'s own list', async () => {
    receiver.respond('/cli-own', { status: 200 });
    const id = await schedule('/cli-own');
    const e = await execution(id, 'Succeeded');
    expect(await punctualJson<ExecutionPage>(['executions', 'list', id], env)).toEqual({ size: 1, executions: [e], nextCursor: null });
    expect((await punctualJson<ExecutionPage>(['executions', 'list', id, '--status', 'failed'], env)).size).toBe(0);
  });
});
