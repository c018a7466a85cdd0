/**
 * The rekey loop (src/service/secrets-rekey.ts) against a real SQLite store, with writes of
 * "another node" made at a chosen moment, between the page read and the compare-and-set: a PATCH
 * of the job's secrets is never overwritten, the job is read again once, a deleted job is skipped.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { openJobSecrets, sealJobSecrets } from '../../src/secrets/job-secrets.js';
import { KeyRing } from '../../src/secrets/key-ring.js';
import { rekeyJobSecrets, type RekeyStore } from '../../src/service/secrets-rekey.js';
import { openStore } from '../../src/store/open.js';
import type { Store } from '../../src/store/store.js';
import { copyMigratedSqlite } from '../support/migrated.js';

const T0 = Date.UTC(2030, 0, 1);
const [A, B] = [Buffer.alloc(32, 9), Buffer.alloc(32, 7)];
/** The ring before the rotation (A), and the one the rekey runs with (B newest, A still opening). */
const oldRing = new KeyRing([A]);
const newRing = new KeyRing([B, A]);
const onlyB = new KeyRing([B]);

let dir: string;
let store: Store;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'punctual-svc-rekey-'));
  await copyMigratedSqlite(join(dir, 'test.db'));
  store = await openStore(`file:${join(dir, 'test.db')}`);
  await store.migrate(); // nothing to do: the copy is migrated
});
afterEach(async () => {
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** A schedule whose bearer token `token` is sealed by `ring`. */
async function schedule(ring: KeyRing, token: string): Promise<string> {
  const id = newId();
  const sealed = sealJobSecrets(ring, id, null, { auth: { type: 'bearer', token } });
  await store.scheduleCreate({
    id,
    name: 'job',
    scheduledAt: T0,
    endpoint: 'https://example.com/',
    data: {},
    tags: [],
    retry: { maxAttempts: 1, initialDelayMs: 1000, maxDelayMs: 1000 },
    timeoutMs: 1000,
    now: T0,
    ...sealed,
  });
  return id;
}

/** A node still sealing with A changes the job's token (a PATCH). */
async function patch(id: string, token: string): Promise<void> {
  const current = (await store.scheduleGet({ id }))!;
  const sealed = sealJobSecrets(oldRing, id, current, { auth: { type: 'bearer', token } });
  expect(await store.scheduleUpdate({ id, now: T0, ...sealed })).not.toBe('not_found');
}

/** The store, with `before` run before each compare-and-set (the moment another node writes). */
function racing(before: (id: string) => Promise<void>): RekeyStore {
  return {
    secretsPage: (p) => store.secretsPage(p),
    secretsReplace: async (p) => {
      await before(p.id);
      return store.secretsReplace(p);
    },
    scheduleGet: (p) => store.scheduleGet(p),
    cronGet: (p) => store.cronGet(p),
  };
}

/** The token of schedule `id`, opened with B alone (throws when a value is still sealed with A). */
async function tokenWithB(id: string): Promise<string | undefined> {
  const s = (await store.scheduleGet({ id }))!;
  const auth = openJobSecrets(onlyB, id, s.auth, s.secrets).auth;
  return auth?.type === 'bearer' ? auth.token : undefined;
}

describe('rekeyJobSecrets', () => {
  it('keeps a PATCH made between the read and the write: reads the job again and re-seals the new value', async () => {
    const id = await schedule(oldRing, 'first');
    let patched = 0;
    const report = await rekeyJobSecrets(
      racing(async (jobId) => {
        if (patched++ === 0) await patch(jobId, 'patched');
      }),
      newRing,
    );
    expect(patched).toBe(2);
    expect(report).toEqual({ examined: 1, resealed: 1, unchanged: 0, failed: 0, failures: [] });
    expect(await tokenWithB(id)).toBe('patched');
  });

  it('reports a job whose secrets change at every try, and leaves the latest PATCH in place', async () => {
    const id = await schedule(oldRing, 'first');
    let n = 0;
    const report = await rekeyJobSecrets(racing(async (jobId) => patch(jobId, `patch-${++n}`)), newRing);
    expect(report).toEqual({
      examined: 1,
      resealed: 0,
      unchanged: 0,
      failed: 1,
      failures: [{ jobType: 'schedule', id, keyId: null, message: 'its secrets changed twice while being re-sealed: run the command again' }],
    });
    const s = (await store.scheduleGet({ id }))!;
    expect(openJobSecrets(oldRing, id, s.auth, s.secrets).auth).toEqual({ type: 'bearer', token: 'patch-2' });
  });

  it('counts a job deleted meanwhile as unchanged; pages of one walk every job', async () => {
    const gone = await schedule(oldRing, 'gone');
    const kept = await schedule(oldRing, 'kept');
    const report = await rekeyJobSecrets(
      racing(async (jobId) => {
        if (jobId === gone) await store.scheduleDelete({ id: gone });
      }),
      newRing,
      { batchSize: 1 },
    );
    expect(report).toEqual({ examined: 2, resealed: 1, unchanged: 1, failed: 0, failures: [] });
    expect(await tokenWithB(kept)).toBe('kept');
    expect(await rekeyJobSecrets(store, newRing)).toEqual({ examined: 1, resealed: 0, unchanged: 1, failed: 0, failures: [] });
  });
});
