/**
 * Scopes, table-driven over the live app's OpenAPI document (the one `docs/openapi.json` is
 * written from): every operation that has `security` needs exactly one scope; a key holding every
 * other scope gets a 403 naming it, before its body, parameters or resource are looked at; a key
 * holding only that scope is not refused. A route added later is in the document, so it is in
 * this table too; one that declares no scope stops the app from starting (also tested here).
 * Then: no escalation through create, patch or rotate, and the defaults of new keys.
 */
import { randomUUID } from 'node:crypto';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTED_METRICS } from '../../scripts/openapi.js';
import { API_KEY_SCOPES, type ApiKeyScope } from '../../src/domain/enums.js';
import { scopeOnRoute } from '../../src/http/scopes.js';
import { createApiKey } from '../../src/service/api-keys.js';
import { expectProblem, openHarness, type Harness } from './harness.js';

let h: Harness;
/** Per scope: the token of a key holding every other scope, and of one holding only it. */
const without = new Map<ApiKeyScope, string>();
const only = new Map<ApiKeyScope, string>();

interface Operation {
  method: string;
  path: string;
  operationId: string;
  scope: ApiKeyScope;
}
const operations: Operation[] = [];

beforeAll(async () => {
  h = await openHarness({ metrics: DOCUMENTED_METRICS });
  for (const scope of API_KEY_SCOPES) {
    // jobs:write implies jobs:read: a key "without jobs:read" must not hold jobs:write either.
    const rest = API_KEY_SCOPES.filter((s) => s !== scope && !(scope === 'jobs:read' && s === 'jobs:write'));
    without.set(scope, (await createApiKey(h.store, h.clock, { name: `without ${scope}`, scopes: rest })).token);
    only.set(scope, (await createApiKey(h.store, h.clock, { name: `only ${scope}`, scopes: [scope] })).token);
  }
  const doc = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json() as {
    paths: Record<string, Record<string, { operationId: string; security?: Array<Record<string, string[]>> }>>;
  };
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      if (op.security === undefined || op.security.length === 0) continue;
      const scopes = op.security[0]!.bearerAuth ?? [];
      expect(scopes, `${op.operationId} must declare exactly one scope`).toHaveLength(1);
      operations.push({ method: method.toUpperCase(), path, operationId: op.operationId, scope: scopes[0] as ApiKeyScope });
    }
  }
});

afterAll(async () => {
  await h?.close();
});

/** The path with every `{param}` a random UUID: the scope is checked before anything looks for it. */
const url = (path: string) => path.replace(/\{[^}]+\}/g, () => randomUUID());

async function call(op: Operation, token: string) {
  const withBody = op.method !== 'GET' && op.method !== 'DELETE';
  return h.app.inject({
    method: op.method as 'GET',
    url: url(op.path),
    headers: { authorization: `Bearer ${token}`, ...(withBody && { 'content-type': 'application/json' }) },
    // A body that breaks the schema: the refusal must come before validation.
    ...(withBody && { payload: '{"unknown field": true}' }),
  });
}

describe('every operation with security', () => {
  it('is in the document with its scope (the table is not empty, and covers keys, jobs, metrics and nodes)', () => {
    const ids = operations.map((o) => o.operationId);
    expect(ids.length).toBeGreaterThan(30);
    expect(ids).toEqual(expect.arrayContaining(['createApiKey', 'rotateApiKey', 'createSchedule', 'getMetrics', 'listNodes', 'replayExecutions']));
    expect(new Set(operations.map((o) => o.scope))).toEqual(new Set(API_KEY_SCOPES));
  });

  it('refuses a key without its scope with a 403 naming it, before validation and lookups', async () => {
    for (const op of operations) {
      const res = await call(op, without.get(op.scope)!);
      const body = expectProblem(res, 403);
      expect(body.type, op.operationId).toBe('urn:punctual:problem:insufficient_scope');
      expect(body.detail, op.operationId).toBe(`this key lacks the scope ${op.scope}`);
    }
  });

  it('does not refuse a key holding only its scope', async () => {
    for (const op of operations) {
      const res = await call(op, only.get(op.scope)!);
      expect(res.statusCode, `${op.method} ${op.path}`).not.toBe(403);
      expect(res.statusCode, `${op.method} ${op.path}`).toBeLessThan(500);
    }
  });
});

describe('scope declarations', () => {
  it('an authenticated route that declares no scope stops the app from starting', async () => {
    const app = Fastify();
    const registered = app.register(async (api) => {
      api.addHook('onRoute', scopeOnRoute);
      api.get('/forgot', { schema: { security: [{ bearerAuth: [] }] } }, async () => ({}));
    });
    await expect(Promise.resolve(registered).then(() => app.ready())).rejects.toThrow(/GET \/forgot declares no scope/);
    await app.close().catch(() => undefined);
  });

  it('jobs:write implies jobs:read', async () => {
    const { token } = await createApiKey(h.store, h.clock, { name: 'writer', scopes: ['jobs:write'] });
    expect((await h.app.inject({ method: 'GET', url: '/schedules', headers: { authorization: `Bearer ${token}` } })).statusCode).toBe(200);
  });
});

describe('no escalation', () => {
  const post = (token: string, url: string, payload: unknown) =>
    h.app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload: payload as object });

  it('a key creates keys with its own scopes by default, and never more (403 naming them)', async () => {
    const { token } = await createApiKey(h.store, h.clock, { name: 'manager', scopes: ['keys:manage', 'jobs:read'] });
    const created = await post(token, '/api-keys', { name: 'child' });
    expect(created.statusCode).toBe(201);
    expect(created.json().scopes).toEqual(['jobs:read', 'keys:manage']);

    const before = (await h.store.apiKeyList()).length;
    const refused = expectProblem(await post(token, '/api-keys', { name: 'bigger', scopes: ['jobs:write', 'metrics:read'] }), 403);
    expect(refused.type).toBe('urn:punctual:problem:insufficient_scope');
    expect(refused.detail).toContain('jobs:write, metrics:read');
    expect((await h.store.apiKeyList()).length).toBe(before);

    const childId = created.json().id as string;
    const patched = await h.app.inject({
      method: 'PATCH',
      url: `/api-keys/${childId}`,
      headers: { authorization: `Bearer ${token}` },
      payload: { scopes: ['metrics:read'] },
    });
    expect(expectProblem(patched, 403).detail).toContain('metrics:read');
    expect((await h.store.apiKeyGet({ id: childId }))!.scopes).toEqual(['jobs:read', 'keys:manage']);
  });

  it('a key cannot rotate (and so obtain a token of) a key holding a scope it lacks', async () => {
    const { token } = await createApiKey(h.store, h.clock, { name: 'small manager', scopes: ['keys:manage'] });
    const refused = expectProblem(await post(token, `/api-keys/${h.keyId}/rotate`, {}), 403);
    expect(refused.detail).toContain('jobs:read, jobs:write, metrics:read');
  });

  it('scopes are checked: empty or unknown ones are a 400 naming the field', async () => {
    expectProblem(await post(h.token, '/api-keys', { name: 'x', scopes: [] }), 400);
    const bad = expectProblem(await post(h.token, '/api-keys', { name: 'x', scopes: ['jobs:admin'] }), 400);
    expect(JSON.stringify(bad.errors)).toContain('/scopes/0');
  });
});
