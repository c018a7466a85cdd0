/**
 * The examples of docs/calling-other-apis.md, run as written: each block between an
 * `<!-- example: name -->` marker and `<!-- /example -->` is run by bash in the repository's root,
 * its `./punctual` the built command (a real child process; run `npm run build` first), its curl the
 * real curl, against a real server on every store, a real receiver and a real OAuth 2.0 token
 * endpoint on 127.0.0.1 (the page's `*.example.com` URLs replaced by theirs). What arrives is checked.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Arrival } from '../support/receiver.js';
import { TEST_TOKEN } from '../support/server.js';
import { STORES } from '../support/stores.js';
import { secretsRig } from '../support/token-endpoint.js';

const PAGE = readFileSync(fileURLToPath(new URL('../../docs/calling-other-apis.md', import.meta.url)), 'utf8');
const CLI = fileURLToPath(new URL('../../dist/cli.js', import.meta.url));
const KEY = Buffer.alloc(32, 7).toString('base64');
/** The secrets the examples read from the environment. */
const SECRETS = { INVENTORY_API_KEY: 'inventory-key-value-1', REPORTS_CLIENT_SECRET: 'reports-secret-value-1' };

/** The examples of the page, by name. */
const EXAMPLES = new Map(
  [...PAGE.matchAll(/<!-- example: (\S+) -->\n```sh\n([\s\S]*?)```\n<!-- \/example -->/g)].map((m) => [m[1]!, m[2]!]),
);

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PRELUDE = 'set -eo pipefail\n';

describe('docs/calling-other-apis.md', () => {
  it('has the six examples, none holding a secret value, each using what it shows', () => {
    expect([...EXAMPLES.keys()].sort()).toEqual(['health-cli', 'health-curl', 'oauth-cli', 'oauth-curl', 'put-cli', 'put-curl']);
    for (const [name, script] of EXAMPLES) {
      expect(script, name).toContain(name.endsWith('-cli') ? './punctual ' : 'curl ');
      for (const value of Object.values(SECRETS)) expect(script).not.toContain(value);
    }
    expect(existsSync(CLI), 'dist/cli.js is missing: run npm run build').toBe(true);
  });
});

describe.each(STORES)('the examples of docs/calling-other-apis.md ($name)', (store) => {
  const rig = secretsRig(store, store.name === 'postgres' ? { PUNCTUAL_ENCRYPTION_KEYS: KEY } : {});

  /** Runs example `name` with bash, its URLs pointed at the receiver and the token endpoint. */
  const run = (name: string): Promise<{ code: number | null; output: string }> => {
    const script = EXAMPLES.get(name)!
      .replaceAll('https://auth.example.com/oauth/token', rig.tokens.url)
      .replace(/https:\/\/[a-z]+\.example\.com/g, rig.receiver.url);
    const env = {
      ...process.env,
      PATH: `${dirname(process.execPath)}:${process.env.PATH ?? ''}`,
      PUNCTUAL_URL: rig.server.url,
      PUNCTUAL_TOKEN: TEST_TOKEN,
      ...SECRETS,
    };
    return new Promise((resolve, reject) => {
      const proc = spawn('bash', ['-c', PRELUDE + script], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      proc.stdout.on('data', (c: Buffer) => (output += c.toString()));
      proc.stderr.on('data', (c: Buffer) => (output += c.toString()));
      proc.once('error', reject);
      proc.once('close', (code) => resolve({ code, output }));
    });
  };

  /** Runs the curl and the CLI example of `name`; resolves with the first call of each job, and the jobs' ids. */
  const bothArrive = async (name: string, path: string): Promise<Arrival[]> => {
    for (const way of ['curl', 'cli']) {
      const r = await run(`${name}-${way}`);
      expect(r.code, `${name}-${way}:\n${r.output}`).toBe(0);
    }
    const jobs = (all: Arrival[]) => new Map(all.filter((a) => a.path === path).map((a) => [a.headers['punctual-job-id'], a]));
    return [...jobs(await rig.receiver.waitFor((all) => jobs(all).size === 2, 20_000)).values()];
  };

  it('a GET health check every minute', async () => {
    for (const a of await bothArrive('health', '/health')) {
      expect(a).toMatchObject({ method: 'GET', body: '' });
      expect(a.headers['content-type']).toBeUndefined();
      const job = (await rig.server.api('GET', `/cron/${String(a.headers['punctual-job-id'])}`)).body;
      expect(job).toMatchObject({ expression: '* * * * *', method: 'GET', retry: { maxAttempts: 1 }, timeoutMs: 5000 });
    }
  });

  it('a JSON PUT with a secret API key', async () => {
    for (const a of await bothArrive('put', '/v1/items/42')) {
      expect(a).toMatchObject({ method: 'PUT' });
      expect(JSON.parse(a.body)).toEqual({ quantity: 100 });
      expect(a.headers).toMatchObject({ 'content-type': 'application/json', 'x-api-key': SECRETS.INVENTORY_API_KEY });
      const job = (await rig.server.api('GET', `/schedules/${String(a.headers['punctual-job-id'])}`)).body;
      expect(job).toMatchObject({ method: 'PUT', secretHeaderNames: ['X-Api-Key'] });
      expect(JSON.stringify(job)).not.toContain(SECRETS.INVENTORY_API_KEY);
    }
  });

  it('an endpoint protected by OAuth 2.0: one token for both jobs', async () => {
    const calls = await bothArrive('oauth', '/v1/exports');
    expect(rig.tokens.requests.map((r) => Object.fromEntries(r))).toEqual([{ grant_type: 'client_credentials', scope: 'exports:write' }]);
    // HTTP Basic of the form-urlencoded client id and secret (RFC 6749 §2.3.1).
    const [basic] = rig.tokens.authorizations;
    expect(basic).toMatch(/^Basic /);
    const pair = Buffer.from(basic!.slice('Basic '.length), 'base64').toString().split(':').map(decodeURIComponent);
    expect(pair).toEqual(['punctual-reports', SECRETS.REPORTS_CLIENT_SECRET]);
    for (const a of calls) {
      expect(a).toMatchObject({ method: 'POST' });
      expect(a.headers.authorization).toBe('Bearer tok-1');
      expect(JSON.parse(a.body)).toEqual({ format: 'csv' });
      const job = (await rig.server.api('GET', `/cron/${String(a.headers['punctual-job-id'])}`)).body;
      expect(job).toMatchObject({
        timezone: 'Europe/Berlin',
        auth: { type: 'oauth2', tokenUrl: rig.tokens.url, clientId: 'punctual-reports', scope: 'exports:write' },
      });
      expect(JSON.stringify(job)).not.toContain(SECRETS.REPORTS_CLIENT_SECRET);
    }
  });
});
