/**
 * The bulk forms of `punctual cron pause|resume|delete` and `punctual schedules delete`
 * (docs/cli.md, "Bulk actions"), run in this process (test/cli/run.ts) against a live server: --dry-run
 * counts, --yes acts, without a terminal and without --yes the command refuses (exit 2, nothing
 * changed), one id keeps the single-job form. The terminal's confirmation is driven through
 * `runBulk` with a scripted terminal (the runs of test/cli/run.ts have no TTY).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPunctualClient, type CronJob, type Schedule } from '../../src/client/index.js';
import { runBulk } from '../../src/cli/bulk.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { punctual, punctualJson } from './run.js';

let server: TestServer;
let env: Record<string, string>;
let client: ReturnType<typeof createPunctualClient>;

beforeAll(async () => {
  server = await startTestServer();
  env = { PUNCTUAL_URL: server.url, PUNCTUAL_TOKEN: TEST_TOKEN };
  client = createPunctualClient({ baseUrl: server.url, token: TEST_TOKEN });
});

afterAll(async () => {
  await server?.stop();
});

const cron = (tags: string[]) => client.cron.create({ expression: '0 3 * * *', endpoint: 'https://example.com/nightly', tags });
const status = async (j: CronJob) => (await client.cron.get(j.id))!.status;

describe('bulk commands', () => {
  it('cron pause --tag: --dry-run counts, no terminal and no --yes refuses, --yes pauses; resume and delete likewise', async () => {
    const tag = `nightly-${Date.now()}`;
    const a = await cron([tag]);
    const b = await cron([tag, 'eu']);
    const other = await cron(['daily']);

    const dry = await punctual(['cron', 'pause', '--tag', tag, '--dry-run'], env);
    expect(dry).toMatchObject({ code: 0, stdout: '2 cron jobs match.\n' });
    expect(await status(a)).toBe('Active');

    const refused = await punctual(['cron', 'pause', '--tag', tag], env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not a terminal: add --yes/);
    expect(await status(a)).toBe('Active');

    expect(await punctualJson(['cron', 'pause', '--tag', tag, '--tag', 'eu', '--yes'], env)).toEqual({ count: 1 });
    expect([await status(a), await status(b), await status(other)]).toEqual(['Active', 'Paused', 'Active']);
    expect(await punctual(['cron', 'pause', '--tag', tag, '--yes'], env)).toMatchObject({ code: 0, stdout: '1 cron jobs paused.\n' });
    expect(await punctualJson(['cron', 'resume', '--tag', tag, '--status', 'Paused', '--yes'], env)).toEqual({ count: 2 });
    expect(await punctualJson(['cron', 'delete', a.id, b.id, '--yes'], env)).toEqual({ count: 2 });
    expect(await client.cron.get(a.id)).toBeNull();
    expect(await status(other)).toBe('Active');
    expect((await punctual(['cron', 'pause', '--status', 'Nope', '--yes'], env)).code).toBe(2);
  });

  it('one id keeps the single-job form; schedules delete --tag', async () => {
    const one = await cron(['x']);
    const paused = await punctualJson<CronJob>(['cron', 'pause', one.id, '--reason', 'maintenance'], env);
    expect(paused).toMatchObject({ id: one.id, status: 'Paused', pausedReason: 'maintenance' });
    const tag = `campaign-${Date.now()}`;
    const mk = () => client.schedules.create({ name: 'n', scheduledAt: '2099-01-01T00:00:00Z', endpoint: 'https://example.com/s', tags: [tag] });
    const s: Schedule[] = [await mk(), await mk()];
    expect(await punctual(['schedules', 'delete', '--tag', tag, '--dry-run'], env)).toMatchObject({ code: 0, stdout: '2 schedules match.\n' });
    expect((await punctual(['schedules', 'delete', '--tag', tag], env)).code).toBe(2);
    expect(await punctualJson(['schedules', 'delete', '--tag', tag, '--yes'], env)).toEqual({ count: 2 });
    for (const x of s) expect(await client.schedules.get(x.id)).toBeNull();
  });

  it('on a terminal: a dry run first, then the question; only y acts', async () => {
    const tag = `tty-${Date.now()}`;
    const a = await cron([tag]);
    const asked: string[] = [];
    const terminal = (answer: string) => ({ isTTY: true, ask: async (q: string) => (asked.push(q), answer) });
    const send = (filter: Record<string, unknown>, dryRun: boolean) => client.cron.bulk({ action: 'pause', filter, dryRun });
    await runBulk('cron jobs', 'pause', [], { tag: [tag], json: true }, send, terminal('n'));
    expect(asked).toEqual(['1 cron jobs match; pause them? [y/N] ']);
    expect(await status(a)).toBe('Active');
    await runBulk('cron jobs', 'pause', [], { tag: [tag], json: true }, send, terminal('y'));
    expect(await status(a)).toBe('Paused');
  });
});
