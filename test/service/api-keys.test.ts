import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DomainError, InvalidInputError } from '../../src/domain/errors.js';
import {
  authenticate,
  createApiKey,
  ensureBootstrapKey,
  listApiKeys,
  updateApiKey,
} from '../../src/service/api-keys.js';
import { digestToken } from '../../src/service/tokens.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const clock = { now: () => Date.parse('2026-11-21T10:00:00.000Z') };
let dir: string;
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punctual-svc-keys-'));
  await copyMigratedSqlite(join(dir, 'test.db'));
  store = await openStore('file:' + join(dir, 'test.db'));
  await store.migrate(); // nothing to do: the copy is migrated
});

afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

describe('createApiKey', () => {
  it('stores the digest of the token, never the token', async () => {
    const { apiKey, token } = await createApiKey(store, clock, { name: 'a' });
    expect(apiKey).toMatchObject({ name: 'a', status: 'Enabled', lastUsed: null, createdAt: clock.now() });
    expect(JSON.stringify(apiKey)).not.toContain(token);
    expect((await store.apiKeyFindByDigest({ digest: digestToken(token) }))?.key.id).toBe(apiKey.id);
  });

  it('rejects a blank name and an unknown status together, storing nothing', async () => {
    const err = await createApiKey(store, clock, { name: ' ', status: 'On' as never }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInputError);
    expect((err as InvalidInputError).errors.map((e) => e.path)).toEqual(['/name', '/status']);
    expect(await store.apiKeyList()).toEqual([]);
  });
});

describe('authenticate', () => {
  it('finds an Enabled key, refuses unknown (unauthenticated) and Disabled (forbidden) ones', async () => {
    const { apiKey, token } = await createApiKey(store, clock, { name: 'a' });
    expect((await authenticate(store, token, clock.now())).id).toBe(apiKey.id);
    await expect(authenticate(store, token + "x", clock.now())).rejects.toMatchObject({ code: 'unauthenticated' });
    await updateApiKey(store, apiKey.id, { status: 'Disabled' });
    const err = await authenticate(store, token, clock.now()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('forbidden');
  });
});

describe('ensureBootstrapKey', () => {
  const TOKEN = 'operator-chosen-bootstrap-token-0123456789';

  it('creates an Enabled key named bootstrap with that token, once', async () => {
    const a = await ensureBootstrapKey(store, clock, TOKEN);
    expect(a).toMatchObject({ name: 'bootstrap', status: 'Enabled' });
    expect((await authenticate(store, TOKEN, clock.now())).id).toBe(a.id);
    const b = await ensureBootstrapKey(store, clock, TOKEN);
    expect(b.id).toBe(a.id);
    expect((await listApiKeys(store)).length).toBe(1);
  });

  it('enables and renames the key again when it was disabled', async () => {
    const a = await ensureBootstrapKey(store, clock, TOKEN);
    await updateApiKey(store, a.id, { status: 'Disabled', name: 'old' });
    const b = await ensureBootstrapKey(store, clock, TOKEN);
    expect(b).toMatchObject({ id: a.id, name: 'bootstrap', status: 'Enabled' });
  });

  it('refuses a token shorter than 32 characters without echoing it', async () => {
    const err = await ensureBootstrapKey(store, clock, 'short-secret').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidInputError);
    expect(String((err as Error).message)).not.toContain('short-secret');
    expect(await store.apiKeyList()).toEqual([]);
  });
});
