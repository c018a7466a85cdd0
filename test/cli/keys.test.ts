/**
 * `punctual keys …` (docs/cli.md): on the store directly when no service URL is set (or with
 * `--local`), the way the first key is made; through the API otherwise. Run in this process
 * (test/cli/run.ts), a live server on a real SQLite file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiKey, ApiKeyCreated, ApiKeyList } from '../../src/client/index.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { punctual, punctualJson } from './run.js';

let server: TestServer;
/** The store of the running server, with no service URL: keys go to the store. */
let local: Record<string, string>;
/** The API of the running server. */
let remote: Record<string, string>;

beforeAll(async () => {
  server = await startTestServer();
  local = { DATABASE_URL: server.databaseUrl };
  remote = { PUNCTUAL_URL: server.url, PUNCTUAL_TOKEN: TEST_TOKEN };
});

afterAll(async () => {
  await server?.stop();
});

/** Status of GET /api-keys with `token`. */
async function statusWith(token: string): Promise<number> {
  const res = await fetch(`${server.url}/api-keys`, { headers: { authorization: `Bearer ${token}` } });
  await res.arrayBuffer();
  return res.status;
}

describe('punctual keys, without a service URL: the store itself', () => {
  it('create prints a token the running server accepts; list shows the key, never a token', async () => {
    const created = await punctual(['keys', 'create', 'walkthrough'], local);
    expect(created.code).toBe(0);
    const token = /^(pk_\S+)$/m.exec(created.stdout)![1]!;
    expect(created.stdout).toMatch(/^Created API key "walkthrough" \([0-9a-f-]{36}, Enabled\)\.\nToken \(shown only this once; store it now\):\npk_/);
    expect(await statusWith(token)).toBe(200);

    const json = await punctualJson<ApiKeyCreated>(['keys', 'create', 'scripted', '--disabled'], local);
    expect(json).toMatchObject({ name: 'scripted', status: 'Disabled', lastUsed: null, token: expect.stringMatching(/^pk_/) });
    expect(Object.keys(json)).toEqual(['id', 'name', 'status', 'createdAt', 'lastUsed', 'scopes', 'expiresAt', 'previousTokenExpiresAt', 'token']);
    expect(await statusWith(json.token)).toBe(403);

    const list = await punctual(['keys', 'list'], local);
    expect(list.code).toBe(0);
    for (const text of ['NAME', 'LAST USED', 'walkthrough', 'scripted', 'Disabled', 'bootstrap']) expect(list.stdout).toContain(text);
    expect(list.stdout).not.toContain('pk_');
    const listed = await punctualJson<ApiKeyList>(['keys', 'list'], local);
    // The same shape as GET /api-keys.
    expect(listed.apiKeys.map((k) => k.id)).toEqual(((await server.api('GET', '/api-keys')).body as ApiKeyList).apiKeys.map((k) => k.id));

    // Enable, rename, delete: also without a key (the way back in when every key is disabled).
    expect(await punctualJson<ApiKey>(['keys', 'update', json.id, '--status', 'Enabled', '--name', 'scripted-2'], local)).toMatchObject({
      name: 'scripted-2',
      status: 'Enabled',
    });
    expect(await statusWith(json.token)).toBe(200);
    expect(await punctual(['keys', 'delete', json.id], local)).toMatchObject({ code: 0, stdout: `Deleted API key ${json.id}.\n` });
    expect(await statusWith(json.token)).toBe(401);
    expect((await punctual(['keys', 'get', json.id], local)).code).toBe(3);
    expect((await punctual(['keys', 'delete', json.id], local)).code).toBe(3);
    // Each change is an audit event of actor `cli`, without request id or address.
    const res = await fetch(`${server.url}/audit-events?resourceType=apiKey&resourceId=${json.id}`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    const events = ((await res.json()) as { events: { action: string; actor: unknown; requestId: unknown; sourceAddress: unknown }[] }).events;
    expect(events.map((e) => e.action)).toEqual(['apiKey.delete', 'apiKey.update', 'apiKey.create']);
    for (const e of events) expect(e).toMatchObject({ actor: 'cli', requestId: null, sourceAddress: null });
    // punctual audit list shows them, filtered, through the API.
    const shown = await punctual(['audit', 'list', '--resource-type', 'apiKey', '--resource-id', json.id], remote);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain('apiKey.delete');
    expect(shown.stdout).toContain('status: Disabled → Enabled');
  });

  it('--local goes to the store even when PUNCTUAL_URL is set (here to a server that is not there)', async () => {
    const created = await punctualJson<ApiKeyCreated>(['keys', 'create', 'forced', '--local'], {
      ...local,
      PUNCTUAL_URL: 'http://127.0.0.1:9',
      PUNCTUAL_TOKEN: 'pk_unused',
    });
    expect(await statusWith(created.token)).toBe(200);
  });
});

describe('punctual keys: scopes, expiry and rotation', () => {
  it('create --scopes --expires, then rotate --grace 1h: both tokens work, the new one is printed once', async () => {
    const created = await punctualJson<ApiKeyCreated>(
      ['keys', 'create', 'reader', '--scopes', 'jobs:read,metrics:read', '--expires', '2099-01-01T00:00:00Z'],
      remote,
    );
    expect(created).toMatchObject({ scopes: ['jobs:read', 'metrics:read'], expiresAt: '2099-01-01T00:00:00.000Z' });
    // jobs:read only: the keys are out of reach.
    expect(await statusWith(created.token)).toBe(403);
    const list = await punctual(['keys', 'list'], local);
    expect(list.stdout).toContain('jobs:read,metrics:read');

    const rotated = await punctual(['keys', 'rotate', created.id, '--grace', '1h'], remote);
    expect(rotated.code).toBe(0);
    const token = /^(pk_\S+)$/m.exec(rotated.stdout)![1]!;
    expect(rotated.stdout).toMatch(/^Rotated API key "reader" /);
    for (const t of [created.token, token]) {
      const res = await fetch(`${server.url}/schedules`, { headers: { authorization: `Bearer ${t}` } });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const got = await punctualJson<ApiKey>(['keys', 'get', created.id], local);
    expect(Date.parse(got.previousTokenExpiresAt!) - Date.now()).toBeGreaterThan(3_500_000);

    // Bad values are refused before anything is sent.
    expect((await punctual(['keys', 'create', 'x', '--scopes', 'jobs:admin'], local)).code).not.toBe(0);
    expect((await punctual(['keys', 'rotate', created.id, '--grace', 'soon'], local)).code).not.toBe(0);
  });
});

describe('punctual keys, with PUNCTUAL_URL: through the API', () => {
  it('create, list, get, update (disable), delete', async () => {
    const created = await punctualJson<ApiKeyCreated>(['keys', 'create', 'ci'], remote);
    expect(created).toMatchObject({ name: 'ci', status: 'Enabled' });
    expect(await statusWith(created.token)).toBe(200);
    const { token: _token, ...key } = created;

    const shown = await punctual(['keys', 'get', created.id], remote);
    expect(shown.code).toBe(0);
    for (const text of [created.id, 'ci', 'Enabled', 'lastUsed']) expect(shown.stdout).toContain(text);
    expect(shown.stdout).not.toContain(created.token);
    expect(await punctualJson<ApiKey>(['keys', 'get', created.id], remote)).toMatchObject({ ...key, lastUsed: expect.any(String) });
    expect((await punctualJson<ApiKeyList>(['keys', 'list'], remote)).apiKeys.map((k) => k.name)).toContain('ci');

    const disabled = await punctual(['keys', 'update', created.id, '--status', 'Disabled'], remote);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toMatch(/status\s+│ Disabled/);
    expect(await statusWith(created.token)).toBe(403);

    expect((await punctual(['keys', 'delete', created.id], remote)).code).toBe(0);
    expect(await punctual(['keys', 'get', created.id, '--json'], remote)).toMatchObject({ code: 3, stdout: 'null\n' });
  });
});
