/**
 * `punctual apply` (docs/apply.md) against a live server (in this process, SQLite, over HTTP):
 * create, update of the changed fields only, idempotence, `--dry-run` and its exit code 2, nothing
 * to do (0), errors (1) naming the field, secrets from the environment reaching the call,
 * flow-control keys configured before the jobs, and `--prune` deleting only managed jobs (never a
 * flow-control key). A few runs are the whole command line (test/cli/run.ts:
 * in this process, as `dist/cli.js` runs it; test/cli/binary.test.ts holds the built binary to the
 * same exit codes); the others call the command's action directly (`applyCommand`, the same code,
 * its output captured). The tests share one server and run
 * in order; each uses keys of its own, and the prune test comes last.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyCommand, type ApplyFlags } from '../../src/cli/apply.js';
import type { CronJob, FlowControlKey, Schedule } from '../../src/client/index.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { punctual } from './run.js';

let server: TestServer;
let receiver: Receiver;
let env: Record<string, string>;
let dir: string;

beforeAll(async () => {
  server = await startTestServer();
  receiver = await startReceiver();
  env = { PUNCTUAL_URL: server.url, PUNCTUAL_TOKEN: TEST_TOKEN };
  dir = mkdtempSync(join(tmpdir(), 'punctual-apply-'));
});

afterAll(async () => {
  await receiver?.close();
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Writes `text` to a file of the test folder and returns its path. */
function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

/** `punctual apply -f <path> …`, the whole command line (test/cli/run.ts). */
const applyChild = (path: string, args: string[] = [], extra: Record<string, string> = {}) =>
  punctual(['apply', '-f', path, ...args], { ...env, ...extra });

const FLAGS: Record<string, keyof ApplyFlags> = { '--dry-run': 'dryRun', '--prune': 'prune', '--rotate-secrets': 'rotateSecrets' };

/** The same, in this process: the command's action with its output captured. */
async function apply(path: string, args: string[] = [], extra: Record<string, string> = {}) {
  let stdout = '';
  let stderr = '';
  const flags: ApplyFlags = { file: path, url: extra.PUNCTUAL_URL ?? env.PUNCTUAL_URL, token: 'PUNCTUAL_TOKEN' in extra ? extra.PUNCTUAL_TOKEN : env.PUNCTUAL_TOKEN };
  for (const a of args) (flags as unknown as Record<string, boolean>)[FLAGS[a]!] = true;
  const code = await applyCommand(flags, { out: (t) => (stdout += t), err: (t) => (stderr += t), env: extra });
  return { code, stdout, stderr };
}

async function cronByKey(key: string): Promise<CronJob | undefined> {
  const res = await server.api('GET', `/cron?key=${encodeURIComponent(key)}`);
  return (res.body as { cronJobs: CronJob[] }).cronJobs[0];
}

async function scheduleByKey(key: string): Promise<Schedule | undefined> {
  const res = await server.api('GET', `/schedules?key=${encodeURIComponent(key)}`);
  return (res.body as { schedules: Schedule[] }).schedules[0];
}

const yaml = (expression: string, extra = '') => `# yaml-language-server: $schema=http://localhost/schemas/punctual-file.json
version: 1
cron:
  - key: nightly-report
    name: Nightly report
    expression: "${expression}"
    endpoint: ${receiver.url}/report
    secretHeaders:
      X-Api-Key: \${REPORT_API_KEY}
    auth:
      type: bearer
      token: "\${REPORT_TOKEN}"
${extra}schedules:
  - key: launch-mail
    name: Launch mail
    scheduledAt: "2099-01-01T09:00:00Z"
    endpoint: ${receiver.url}/launch
    tags: [launch]
    data: { campaign: "\${CAMPAIGN}" }
`;
const SECRETS = { REPORT_API_KEY: 'api-key-value-9', REPORT_TOKEN: 'token-value-9', CAMPAIGN: 'winter' };

describe('punctual apply', () => {
  it('creates, plans nothing the second time, and sends the secrets of the environment', async () => {
    const path = file('jobs.yaml', yaml('0 2 * * *'));
    const dry = await applyChild(path, ['--dry-run'], SECRETS);
    expect([dry.code, dry.stderr]).toEqual([2, '']);
    expect(dry.stdout).toContain('+ create cron nightly-report\n+ create schedule launch-mail\nPlan: 2 to create, 0 to update, 0 to delete.');
    expect(await cronByKey('nightly-report')).toBeUndefined();

    const first = await applyChild(path, [], SECRETS);
    expect([first.code, first.stderr]).toEqual([0, '']);
    expect(first.stdout).toContain('Applied: 2 changes.');
    const cron = (await cronByKey('nightly-report'))!;
    expect(cron).toMatchObject({ name: 'Nightly report', expression: '0 2 * * *', managedBy: 'apply', secretHeaderNames: ['X-Api-Key'], auth: { type: 'bearer' } });
    expect(await scheduleByKey('launch-mail')).toMatchObject({ managedBy: 'apply', tags: ['launch'], data: { campaign: 'winter' } });

    for (const run of [() => applyChild(path, [], SECRETS), () => apply(path, ['--dry-run'], SECRETS)]) {
      const again = await run();
      expect([again.code, again.stdout, again.stderr]).toEqual([0, 'Nothing to do: the service holds the jobs of the file.\n', '']);
    }
    expect((await cronByKey('nightly-report'))!.id).toBe(cron.id);
    // The list commands filter by key too.
    const listed = await punctual(['cron', 'list', '--key', 'nightly-report', '--json'], env);
    expect(JSON.parse(listed.stdout)).toMatchObject({ size: 1, cronJobs: [{ id: cron.id, key: 'nightly-report', managedBy: 'apply' }] });

    await server.api('POST', `/cron/${cron.id}/trigger`);
    const call = (await receiver.waitFor((all) => all.some((a) => a.path === '/report'))).find((a) => a.path === '/report')!;
    expect(call.headers).toMatchObject({ 'x-api-key': 'api-key-value-9', authorization: 'Bearer token-value-9' });
    for (const out of [dry.stdout, first.stdout]) for (const value of Object.values(SECRETS).slice(0, 2)) expect(out).not.toContain(value);
  });

  it('updates only the fields that changed, in place; --rotate-secrets sends the secrets again', async () => {
    const path = file('jobs.yaml', yaml('0 3 * * *').replace('    name: Nightly report\n', '    name: Nightly report\n    timezone: Europe/Berlin\n'));
    const before = (await cronByKey('nightly-report'))!;
    const dry = await apply(path, ['--dry-run'], SECRETS);
    expect(dry.code).toBe(2);
    expect(dry.stdout).toBe(
      '~ update cron nightly-report: expression "0 2 * * *" → "0 3 * * *", timezone null → "Europe/Berlin"\n' +
        'Plan: 0 to create, 1 to update, 0 to delete.\n',
    );
    expect((await cronByKey('nightly-report'))!.expression).toBe('0 2 * * *');
    const run = await apply(path, [], SECRETS);
    expect([run.code, run.stderr]).toEqual([0, '']);
    const after = (await cronByKey('nightly-report'))!;
    expect(after).toMatchObject({ id: before.id, expression: '0 3 * * *', timezone: 'Europe/Berlin', name: 'Nightly report', createdAt: before.createdAt });

    const rotate = await apply(path, ['--rotate-secrets', '--dry-run'], SECRETS);
    expect(rotate.code).toBe(2);
    expect(rotate.stdout).toContain('~ update cron nightly-report: secretHeaders secret → rotated, auth secret → rotated');
    expect((await apply(path, [], SECRETS)).code).toBe(0);
  });

  it('refuses a faulty file with exit code 1, naming the field, and changes nothing', async () => {
    const good = yaml('0 3 * * *').replace('    name: Nightly report\n', '    name: Nightly report\n    timezone: Europe/Berlin\n');
    const missing = await apply(file('jobs.yaml', good), [], { REPORT_API_KEY: 'x', CAMPAIGN: 'c' });
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('/cron/0/auth/token: the environment variable REPORT_TOKEN is not set');

    const literal = await apply(file('jobs.yaml', good.replace('"${REPORT_TOKEN}"', 'plain-token')), [], SECRETS);
    expect(literal.code).toBe(1);
    expect(literal.stderr).toContain('/cron/0/auth/token: is a secret: write it as a ${ENV_VAR} reference');

    const typed = await apply(file('jobs.yaml', good.replace('    timezone: Europe/Berlin\n', '    timezone: 5\n    colour: red\n')), [], SECRETS);
    expect(typed.code).toBe(1);
    expect(typed.stderr).toContain('/cron/0/timezone: must be either string or null');
    expect(typed.stderr).toContain('/cron/0/colour: is not a field of the file here');

    const parse = await apply(file('jobs.yaml', 'version: 1\ncron: [\n'), [], SECRETS);
    expect(parse.code).toBe(1);
    expect(parse.stderr).toContain('cannot be parsed');

    // Checked by the service: the path is the field's in the file.
    const refused = await apply(file('jobs.yaml', good.replace('"0 3 * * *"', '"61 * * * *"')), [], SECRETS);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('cron nightly-report: 400');
    expect(refused.stderr).toContain('/cron/0/expression:');
    expect((await cronByKey('nightly-report'))!.expression).toBe('0 3 * * *');

    const noToken = await apply(file('jobs.yaml', good), [], { ...SECRETS, PUNCTUAL_TOKEN: '' });
    expect([noToken.code, noToken.stderr]).toEqual([1, expect.stringContaining('no API token')]);
    // A usage error of the command itself is 1 too (2 means "changes pending").
    const usage = await punctual(['apply', '--dry-run'], env);
    expect([usage.code, usage.stderr]).toEqual([1, expect.stringContaining("required option '-f, --file <path>' not specified")]);
  });

  it('accepts JSON; a schedule that ran is left alone', async () => {
    const body = (at: string) => JSON.stringify({ version: 1, schedules: [{ key: 'json-once', name: 'Once', scheduledAt: at, endpoint: `${receiver.url}/once` }] });
    const path = file('once.json', body('2099-02-01T00:00:00Z'));
    expect((await apply(path)).code).toBe(0);
    const s = (await scheduleByKey('json-once'))!;
    await server.api('POST', `/schedules/${s.id}/trigger`);
    await receiver.waitFor((all) => all.some((a) => a.path === '/once'));
    let ran: Schedule | undefined;
    for (;;) {
      ran = await scheduleByKey('json-once');
      if (ran!.status === 'Succeeded') break;
      await new Promise((r) => setImmediate(r));
    }
    const later = await apply(file('once.json', body('2099-03-01T00:00:00Z')), ['--dry-run']);
    expect([later.code, later.stdout]).toEqual([0, '= keep schedule json-once (Succeeded: a schedule that ran is left alone)\nNothing to do: the service holds the jobs of the file.\n']);
  });

  it('configures the flow-control keys of the file before its jobs, which name them; a pause by hand stays', async () => {
    const keysFile = (rate: number, first = '') => `version: 1
flowControlKeys:
${first}  - key: reports-api
    rate: ${rate}
    period: 60000
  - key: warmup
    parallelism: 2
cron:
  - key: fc-report
    expression: "0 4 * * *"
    endpoint: ${receiver.url}/fc
    flowControlKey: reports-api
`;
    const key = async (name: string) => (await server.api('GET', `/flow-control-keys/${name}`)).body as FlowControlKey | null;
    const path = file('keys.yaml', keysFile(10));
    const dry = await apply(path, ['--dry-run']);
    expect([dry.code, dry.stdout]).toEqual([
      2,
      '+ create flow-control-key reports-api\n+ create flow-control-key warmup\n+ create cron fc-report\nPlan: 3 to create, 0 to update, 0 to delete.\n',
    ]);
    expect(await key('reports-api')).toBeNull();
    const run = await applyChild(path);
    expect([run.code, run.stderr, run.stdout]).toEqual([0, '', expect.stringContaining('Applied: 3 changes.')]);
    expect(await key('reports-api')).toMatchObject({ configured: true, rate: 10, period: 60000, parallelism: null, paused: false });
    expect(await key('warmup')).toMatchObject({ configured: true, parallelism: 2, rate: null });
    expect(await cronByKey('fc-report')).toMatchObject({ flowControlKey: 'reports-api', managedBy: 'apply' });

    // Paused by hand: the file does not say `paused`, so the pause stays.
    expect((await server.api('POST', '/flow-control-keys/warmup/pause')).status).toBe(200);
    expect((await apply(path)).stdout).toBe('Nothing to do: the service holds the jobs of the file.\n');
    const changed = await apply(file('keys.yaml', keysFile(20)));
    expect([changed.code, changed.stdout]).toEqual([
      0,
      '~ update flow-control-key reports-api: rate 10 → 20\nPlan: 0 to create, 1 to update, 0 to delete.\nApplied: 1 change.\n',
    ]);
    expect(await key('reports-api')).toMatchObject({ rate: 20, period: 60000 });
    expect(await key('warmup')).toMatchObject({ paused: true });

    // Refused by the service: named by its path in the file; the steps after it are not sent.
    const refused = await apply(file('keys.yaml', keysFile(20, '  - key: no-limits\n').replace('key: fc-report', 'key: fc-never')));
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('flow-control-key no-limits: 400 Invalid input');
    expect(refused.stderr).toContain('/flowControlKeys/0/parallelism: give parallelism or rate');
    expect(await cronByKey('fc-never')).toBeUndefined();
    const twice = await apply(file('keys.yaml', keysFile(20, '  - key: warmup\n    paused: true\n')));
    expect([twice.code, twice.stderr]).toEqual([1, expect.stringContaining('/flowControlKeys/2/key: is already the key of /flowControlKeys/0')]);

    // The prune test below counts the managed jobs of the other tests.
    expect((await server.api('DELETE', `/cron/${(await cronByKey('fc-report'))!.id}`)).status).toBe(204);
  });

  it('deletes with --prune only, and only the jobs apply created', async () => {
    const manual = await server.api('POST', '/cron', { key: 'made-by-hand', expression: '0 0 * * *', endpoint: `${receiver.url}/hand` });
    expect(manual.status).toBe(201);
    // Only a key the service holds as it is: prune never deletes a flow-control key (warmup stays).
    const path = file('empty.yaml', 'version: 1\nflowControlKeys:\n  - key: reports-api\n    rate: 20\n    period: 60000\n');
    const plain = await apply(path);
    expect([plain.code, plain.stdout]).toEqual([0, 'Nothing to do: the service holds the jobs of the file.\n']);

    const dry = await apply(path, ['--prune', '--dry-run']);
    expect(dry.code).toBe(2);
    expect(dry.stdout).toBe('- delete cron nightly-report\n- delete schedule launch-mail\nPlan: 0 to create, 0 to update, 2 to delete.\n');
    expect(await cronByKey('nightly-report')).toBeDefined();

    const pruned = await applyChild(path, ['--prune']);
    expect([pruned.code, pruned.stderr]).toEqual([0, '']);
    expect(await cronByKey('nightly-report')).toBeUndefined();
    expect(await scheduleByKey('launch-mail')).toBeUndefined();
    expect(await cronByKey('made-by-hand')).toMatchObject({ managedBy: null });
    expect((await server.api('GET', '/flow-control-keys/warmup')).body).toMatchObject({ configured: true, parallelism: 2 });
    // The schedule that ran stays: history.
    expect(await scheduleByKey('json-once')).toMatchObject({ status: 'Succeeded' });
    expect((await apply(path, ['--prune'])).code).toBe(0);
  });
});
