/**
 * `punctual flow-control …` and `--flow-control-key` of the job commands (docs/cli.md), through
 * the API of a live server, run in this process (test/cli/run.ts): `set` replaces every limit,
 * `--period` in ms or with a unit, the exit codes (1 refused naming the field, 2 usage, 3 not
 * found), and a real call held by a paused key: listed as waiting, made once the key is resumed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { periodText } from '../../src/cli/flow-control.js';
import type { CronJob, FlowControlKey, FlowControlKeyList, Schedule } from '../../src/client/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { punctual, punctualJson } from './run.js';

let server: TestServer;
let receiver: Receiver;
let remote: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  remote = { PUNCTUAL_URL: server.url, PUNCTUAL_TOKEN: TEST_TOKEN };
});
afterAll(async () => {
  await server?.stop();
  await receiver?.close();
});

/** `punctual flow-control get <key> --json` until `done` holds of it (5 s at most). */
async function keyWhen(key: string, done: (k: FlowControlKey) => boolean): Promise<FlowControlKey> {
  const until = Date.now() + 5_000;
  for (;;) {
    const k = await punctualJson<FlowControlKey>(['flow-control', 'get', key], remote);
    if (done(k) || Date.now() > until) return k;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('punctual flow-control', () => {
  it('set creates and replaces every limit, get and list show them, delete removes them', async () => {
    const empty = await punctual(['flow-control', 'list'], remote);
    expect([empty.code, empty.stdout]).toEqual([0, 'No flow-control keys yet: punctual flow-control set <key> --parallelism <n>\n']);

    const created = await punctualJson<FlowControlKey>(['flow-control', 'set', 'partner:eu', '--rate', '2', '--period', '1m'], remote);
    expect(created).toMatchObject({ key: 'partner:eu', configured: true, parallelism: null, rate: 2, period: 60_000, paused: false });
    // A PUT: what is not given is removed (the rate), the period in ms.
    const replaced = await punctual(['flow-control', 'set', 'partner:eu', '--parallelism', '3', '--period', '1500'], remote);
    expect(replaced.code, replaced.stderr).toBe(0);
    expect(replaced.stdout).toMatch(/parallelism\s*│ 3 /);
    expect(replaced.stdout).toMatch(/rate\s*│ - /);
    expect(replaced.stdout).toMatch(/period\s*│ 1500 ms /);
    expect(await punctualJson<FlowControlKey>(['flow-control', 'get', 'partner:eu'], remote)).toMatchObject({ parallelism: 3, rate: null, period: 1500 });

    await punctual(['flow-control', 'set', 'search', '--rate', '100', '--period', '1s', '--parallelism', '10'], remote);
    const list = await punctual(['flow-control', 'list'], remote);
    expect(list.code).toBe(0);
    for (const text of ['KEY', 'PARALLELISM', 'RATE USED', 'OLDEST WAITING SINCE', 'partner:eu', 'search', '100/1s']) expect(list.stdout).toContain(text);
    const listed = await punctualJson<FlowControlKeyList>(['flow-control', 'list'], remote);
    expect(listed.flowControlKeys.map((k) => [k.key, k.rateUsed])).toEqual([['partner:eu', null], ['search', 0]]);

    expect((await punctual(['flow-control', 'delete', 'partner:eu'], remote)).stdout).toBe('Deleted flow-control key partner:eu.\n');
    const gone = await punctual(['flow-control', 'get', 'partner:eu', '--json'], remote);
    expect([gone.code, gone.stdout]).toEqual([3, 'null\n']);
    expect((await punctual(['flow-control', 'get', 'partner:eu'], remote)).stderr).toContain('no job or configuration names the flow-control key partner:eu');
    for (const verb of ['delete', 'pause', 'resume']) expect((await punctual(['flow-control', verb, 'partner:eu'], remote)).code, verb).toBe(3);
  });

  it('refuses bad input: 1 naming the field for what the service refuses, 2 for a value that cannot be sent', async () => {
    const cases: [string[], string][] = [
      [['set', 'k'], '/parallelism'],
      [['set', 'k', '--parallelism', '0'], '/parallelism'],
      [['set', 'k', '--rate', '5', '--period', '500ms'], '/period'],
      [['set', 'a b', '--rate', '1'], '/params/key'],
    ];
    for (const [args, field] of cases) {
      const r = await punctual(['flow-control', ...args], remote);
      expect([r.code, r.stderr], args.join(' ')).toEqual([1, expect.stringContaining(field)]);
    }
    for (const args of [['set', 'k', '--period', '1w'], ['set', 'k', '--rate', 'many']]) {
      const r = await punctual(['flow-control', ...args], remote);
      expect(r.code, args.join(' ')).toBe(2);
    }
    expect((await punctual(['flow-control', 'set', 'k', '--period', 'soon'], remote)).stderr).toContain("It must be ms or a duration like '1s'");
    expect((await punctualJson<FlowControlKeyList>(['flow-control', 'list'], remote)).flowControlKeys.map((k) => k.key)).toEqual(['search']);
    expect((await punctual(['flow-control', 'list'], {})).code).toBe(2);
  });

  it('a paused key holds the call of a job naming it: listed as waiting, made once resumed', async () => {
    expect(await punctualJson<FlowControlKey>(['flow-control', 'set', 'hold', '--paused'], remote)).toMatchObject({ paused: true, parallelism: null, rate: null });
    const s = await punctualJson<Schedule>(
      ['schedules', 'create', '--name', 'held', '--at', new Date().toISOString(), '--endpoint', `${receiver.url}/held`, '--flow-control-key', 'hold'],
      remote,
    );
    expect(s.flowControlKey).toBe('hold');
    const waiting = await keyWhen('hold', (k) => k.waiting === 1);
    expect(waiting).toMatchObject({ waiting: 1, inFlight: 0, oldestWaitingSince: expect.any(String) });
    const list = await punctual(['flow-control', 'list'], remote);
    const row = list.stdout.split('\n').find((line) => line.includes(' hold '))!;
    expect(row.split('│').map((c) => c.trim()).slice(1, -1)).toEqual(['hold', 'yes', '-', '-', 'yes', '1', '0', '-', waiting.oldestWaitingSince]);
    expect(receiver.arrivals.filter((a) => a.path === '/held')).toEqual([]);

    const resumed = await punctual(['flow-control', 'resume', 'hold'], remote);
    expect([resumed.code, resumed.stdout]).toEqual([0, expect.stringMatching(/paused\s*│ false /)]);
    await receiver.waitFor((all) => all.some((a) => a.path === '/held'));
    expect(await keyWhen('hold', (k) => k.waiting === 0 && k.inFlight === 0)).toMatchObject({ waiting: 0, inFlight: 0, oldestWaitingSince: null });
    expect(await punctualJson<FlowControlKey>(['flow-control', 'pause', 'hold'], remote)).toMatchObject({ paused: true });
  });

  it('--flow-control-key on cron create and update, --no-flow-control-key removes it', async () => {
    const job = await punctualJson<CronJob>(
      ['cron', 'create', '--expression', '0 3 * * *', '--endpoint', `${receiver.url}/c`, '--flow-control-key', 'search'],
      remote,
    );
    expect(job.flowControlKey).toBe('search');
    expect((await punctualJson<CronJob>(['cron', 'update', job.id, '--flow-control-key', 'other'], remote)).flowControlKey).toBe('other');
    // Other changes leave it as it is.
    expect((await punctualJson<CronJob>(['cron', 'update', job.id, '--name', 'n'], remote)).flowControlKey).toBe('other');
    expect((await punctualJson<CronJob>(['cron', 'update', job.id, '--no-flow-control-key'], remote)).flowControlKey).toBeNull();
    const bad = await punctual(['cron', 'update', job.id, '--flow-control-key', 'a b'], remote);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('/flowControlKey')]);
    expect((await punctual(['cron', 'get', job.id], remote)).stdout).toMatch(/flowControlKey\s*│ - /);
  });

  it('periodText writes a period with the largest unit that fits whole', () => {
    expect([1000, 90_000, 60_000, 3_600_000, 86_400_000, 1500].map(periodText)).toEqual(['1s', '90s', '1m', '1h', '1d', '1500ms']);
  });
});
