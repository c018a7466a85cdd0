/**
 * The secret flags of `schedules|cron create|update` and `signing-secret <id>` (docs/cli.md,
 * "Secrets and authentication"), run in this process (test/cli/run.ts) against a live server: values come
 * from environment variables, reach a real receiver, and are never printed.
 */
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CronJob, Schedule } from '../../src/client/index.js';
import { generateSigningSecret } from '../../src/domain/signing-secret.js';
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

const SECRETS = { API_KEY: 'api-key-value-7', BEARER: 'bearer-value-7', PASSWORD: 'password-value-7' };
const arrival = async (path: string) => (await receiver.waitFor((all) => all.some((a) => a.path === path))).find((a) => a.path === path)!;

describe('secret flags', () => {
  it('schedules: secret headers and a bearer token from the environment reach the call; nothing prints a value', async () => {
    const args = [
      'schedules', 'create', '--name', 'secret', '--at', '2099-01-01T00:00:00Z', '--endpoint', `${receiver.url}/secret`,
      '--method', 'PUT', '--header', 'Content-Type: application/json', '--body', '{"n":1}',
      '--secret-header', 'X-Plain-Secret: plain-value-7', '--secret-header-env', 'X-Api-Key=API_KEY', '--bearer-env', 'BEARER',
    ];
    const created = await punctualJson<Schedule>(args, { ...env, ...SECRETS });
    expect(created).toMatchObject({ method: 'PUT', secretHeaderNames: ['X-Api-Key', 'X-Plain-Secret'], auth: { type: 'bearer' }, signingSecretSet: false });
    await punctual(['schedules', 'trigger', created.id], env);
    const a = await arrival('/secret');
    expect(a).toMatchObject({ method: 'PUT', body: '{"n":1}' });
    expect(a.headers).toMatchObject({ 'x-api-key': 'api-key-value-7', 'x-plain-secret': 'plain-value-7', authorization: 'Bearer bearer-value-7' });

    const shown = await punctual(['schedules', 'get', created.id], env);
    expect(shown.code).toBe(0);
    for (const text of ['PUT', 'Content-Type: application/json', 'X-Api-Key, X-Plain-Secret', 'bearer', 'signingSecretSet', 'false']) {
      expect(shown.stdout).toContain(text);
    }
    for (const value of [...Object.values(SECRETS), 'plain-value-7']) expect(shown.stdout).not.toContain(value);
  });

  it('cron: HTTP Basic, then OAuth 2.0 by update; get shows the public part only', async () => {
    const created = await punctualJson<CronJob>(
      ['cron', 'create', '--expression', '0 0 1 1 *', '--endpoint', `${receiver.url}/basic`, '--basic-user', 'reports', '--basic-password-env', 'PASSWORD'],
      { ...env, ...SECRETS },
    );
    expect(created.auth).toEqual({ type: 'basic', username: 'reports' });
    await punctual(['cron', 'trigger', created.id], env);
    expect((await arrival('/basic')).headers.authorization).toBe(`Basic ${Buffer.from('reports:password-value-7').toString('base64')}`);

    const oauth = [
      '--oauth2-token-url', 'https://auth.example.com/token', '--oauth2-client-id', 'punctual',
      '--oauth2-client-secret-env', 'PASSWORD', '--oauth2-scope', 'jobs:write', '--oauth2-audience', 'api',
    ];
    const updated = await punctualJson<CronJob>(['cron', 'update', created.id, ...oauth], { ...env, ...SECRETS });
    expect(updated.auth).toEqual({ type: 'oauth2', tokenUrl: 'https://auth.example.com/token', clientId: 'punctual', scope: 'jobs:write', audience: 'api' });
    const shown = await punctual(['cron', 'get', created.id], env);
    expect(shown.stdout).toContain('oauth2, client punctual at https://auth.example.com/token, scope jobs:write, audience api');
    expect(shown.stdout).not.toContain('password-value-7');

    const withHeader = await punctualJson<CronJob>(['cron', 'update', created.id, '--secret-header-env', 'X-Api-Key=API_KEY'], { ...env, ...SECRETS });
    expect(withHeader).toMatchObject({ secretHeaderNames: ['X-Api-Key'], auth: { type: 'oauth2' } });
    const removed = await punctualJson<CronJob>(['cron', 'update', created.id, '--no-auth', '--no-secret-headers'], env);
    expect(removed).toMatchObject({ secretHeaderNames: [], auth: null });
  });

  it('signing-secret <id> prints a new secret once, and it signs the calls; --signing-secret-env sets one', async () => {
    const job = await punctualJson<CronJob>(['cron', 'create', '--expression', '0 0 1 1 *', '--endpoint', `${receiver.url}/signed`], env);
    const printed = await punctual(['cron', 'signing-secret', job.id], env);
    expect(printed.code).toBe(0);
    const secret = printed.stdout.trim();
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/=]+$/);
    expect((await punctualJson<CronJob>(['cron', 'get', job.id], env)).signingSecretSet).toBe(true);
    await punctual(['cron', 'trigger', job.id], env);
    const a = await arrival('/signed');
    expect(() => new Webhook(secret).verify(a.body, a.headers as Record<string, string>)).not.toThrow();

    const { signingSecret } = await punctualJson<{ signingSecret: string }>(['schedules', 'signing-secret',
      (await punctualJson<Schedule>(['schedules', 'create', '--name', 's', '--at', '2099-01-01T00:00:00Z', '--endpoint', `${receiver.url}/s`], env)).id], env);
    expect(signingSecret).toMatch(/^whsec_/);

    const own = generateSigningSecret();
    const set = await punctualJson<CronJob>(['cron', 'update', job.id, '--signing-secret-env', 'OWN'], { ...env, OWN: own });
    expect(set.signingSecretSet).toBe(true);
    expect((await punctualJson<CronJob>(['cron', 'update', job.id, '--no-signing-secret'], env)).signingSecretSet).toBe(false);
  });

  it('usage errors name the flag and the variable, never a value, and send nothing', async () => {
    const base = ['cron', 'create', '--expression', '0 0 1 1 *', '--endpoint', `${receiver.url}/never`];
    const cases: [string[], Record<string, string>, string][] = [
      [['--bearer-env', 'NOT_SET_ANYWHERE'], {}, '--bearer-env: environment variable NOT_SET_ANYWHERE is not set'],
      [['--secret-header-env', 'X-Key=EMPTY'], { EMPTY: '' }, '--secret-header-env: environment variable EMPTY is empty'],
      [['--bearer-env', 'BEARER', '--basic-user', 'u', '--basic-password-env', 'PASSWORD'], SECRETS, '--basic-user cannot be combined with --bearer-env: a job has one kind of auth'],
      [['--basic-user', 'u'], SECRETS, '--basic-user also needs --basic-password-env'],
      [['--oauth2-token-url', 'https://a.example/t'], SECRETS, '--oauth2-token-url also needs --oauth2-client-id, --oauth2-client-secret-env'],
      [['--secret-header-env', 'X-Key'], SECRETS, "It must be 'Name=VARIABLE'"],
      [['--bearer-env', 'not a name'], SECRETS, 'It must be the name of an environment variable'],
    ];
    for (const [flags, extra, message] of cases) {
      const r = await punctual([...base, ...flags], { ...env, ...extra });
      expect(r.code, flags.join(' ')).toBe(2);
      expect(r.stderr).toContain(message);
      for (const value of Object.values(SECRETS)) expect(r.stderr).not.toContain(value);
    }
    const job = await punctualJson<CronJob>(base, env);
    const conflict = await punctual(['cron', 'update', job.id, '--no-auth', '--bearer-env', 'BEARER'], { ...env, ...SECRETS });
    expect(conflict).toMatchObject({ code: 2 });
    expect(conflict.stderr).toContain('--no-auth cannot be combined with --bearer-env');
    const list = (await server.api('GET', '/cron')).body as { cronJobs: CronJob[] };
    expect(list.cronJobs.filter((j) => j.endpoint.endsWith('/never'))).toHaveLength(1);
    expect(receiver.arrivals.some((a) => a.path === '/never')).toBe(false);
  });
});
