/**
 * The OpenAPI 3.1 document and the reference page: the committed `docs/openapi.json`
 * is what the app generates now, it validates, it covers every route with the problems each can
 * answer, what it says about authentication is what the service does, and `/openapi.json` and
 * `/docs` are served, open, over a real socket.
 */
import { readFile } from 'node:fs/promises';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DOCUMENTED_METRICS, generateOpenApiText, OPENAPI_FILE } from '../../scripts/openapi.js';
import { findConsoleRoot } from '../../src/http/console.js';
import { finishDocument } from '../../src/http/openapi-document.js';
import { DOCS_INITIALIZER } from '../../src/http/openapi.js';
import { PROBLEM_CONTENT_TYPE } from '../../src/http/problem.js';
import { ScheduleSchema } from '../../src/http/schemas/schedules.js';
import { startTestServer } from '../support/server.js';
import { openHarness, type Harness } from './harness.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
interface Operation {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
  requestBody?: Json;
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: Json }> }>;
}
interface Document {
  openapi: string;
  info: { version: string };
  tags: { name: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, Json>;
    securitySchemes: Record<string, Json>;
    responses: Record<string, { description?: string; content?: Record<string, { schema?: Json }> }>;
  };
}

/**
 * Routes that are not part of the API: the root (a redirect to the console), the console, the
 * reference page, the document itself and the JSON Schemas of files (`/schemas/…`, docs/apply.md).
 */
const NOT_API = /^\/$|^\/(console|docs|schemas)(\/|$)|^\/openapi\.json$/;

/**
 * Every `METHOD /path` Fastify's router holds, read from `printRoutes` (the router's own tree,
 * independent of the OpenAPI generator), with `:id` written `{id}`; HEAD routes left out
 * (Fastify adds one to every GET).
 */
function registeredRoutes(tree: string): string[] {
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:[│ ] {3})*)[├└]── (.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (m === null) continue;
    const depth = m[1]!.length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + m[2]!;
    stack.push(path);
    for (const method of (m[3] ?? '').split(', ').filter((x) => x !== '' && x !== 'HEAD')) {
      out.push(`${method} ${path.replace(/:([A-Za-z]+)/g, '{$1}')}`);
    }
  }
  return out.sort();
}

function documentedOperations(doc: Document): Array<[string, Operation]> {
  return Object.entries(doc.paths)
    .flatMap(([path, item]) => Object.entries(item).map(([method, op]) => [`${method.toUpperCase()} ${path}`, op] as [string, Operation]))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Every `$ref` in `node`. */
function refs(node: Json, out: string[] = []): string[] {
  if (Array.isArray(node)) node.forEach((n) => refs(n, out));
  else if (node !== null && typeof node === 'object') {
    for (const [k, v] of Object.entries(node)) {
      if (k === '$ref' && typeof v === 'string') out.push(v);
      else refs(v, out);
    }
  }
  return out;
}

/**
 * The problem statuses an operation must document, from what the document says of it: the
 * authentication problems when it needs a key, 400/413/415 when it takes a body, 400 when it takes
 * query parameters, 404 for a change to a resource named in the path.
 */
function expectedProblems(method: string, op: Operation): number[] {
  const statuses = new Set<number>();
  if ((op.security ?? []).length > 0) [401, 403, 429, 503].forEach((s) => statuses.add(s));
  if (op.requestBody !== undefined) [400, 413, 415].forEach((s) => statuses.add(s));
  const params = op.parameters ?? [];
  if (params.some((p) => p.in === 'query')) statuses.add(400);
  // A PUT makes the resource at its path when there is none (RFC 9110 §9.3.4): no 404.
  if (method !== 'GET' && method !== 'PUT' && params.some((p) => p.in === 'path')) statuses.add(404);
  return [...statuses].sort((a, b) => a - b);
}

/** A documented path with an (unknown) id in each `{…}` parameter. */
const withIds = (path: string) => path.replace(/\{[^}]+\}/g, '019aa5c2-5e00-7c3a-8d2b-3f6e1a9b4c70');

describe('the OpenAPI document', () => {
  let h: Harness;
  let committed: string;
  let generated: string;
  let doc: Document;

  beforeAll(async () => {
    [committed, generated, h] = await Promise.all([readFile(OPENAPI_FILE, 'utf8'), generateOpenApiText(), openHarness({ metrics: DOCUMENTED_METRICS })]);
    doc = JSON.parse(generated) as Document;
  });
  afterAll(async () => {
    await h?.close();
  });
  /** The harness's app on a real socket (listening from the first call on); its base URL. */
  let base: Promise<string> | undefined;
  const listening = () => (base ??= h.app.listen({ port: 0, host: '127.0.0.1' }));

  it('is committed as docs/openapi.json, current (else run `npm run openapi` and commit it)', () => {
    expect(committed, 'docs/openapi.json is stale: run `npm run openapi` and commit the result').toBe(generated);
    const pkg = JSON.parse(generated) as Document;
    expect(pkg.openapi).toBe('3.1.0');
    expect(generated.endsWith('}\n')).toBe(true);
  });

  it('validates as OpenAPI 3.1 (@seriousme/openapi-schema-validator), with the x-rule keywords in its schemas', async () => {
    expect(generated).toContain('"x-rule"');
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(generated) as Record<string, unknown>);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');

    // The validator does find faults: the same document with a response lacking its (required) description.
    const broken = JSON.parse(generated) as Document;
    delete broken.paths['/schedules']!.post!.responses!['201']!.description;
    expect((await new Validator().validate(broken as unknown as Record<string, unknown>)).valid).toBe(false);
  });

  it('resolves every $ref to a schema of components.schemas or an answer of components.responses', () => {
    const targets = [...new Set(refs(doc as unknown as Json))];
    expect(targets.length).toBeGreaterThan(10);
    for (const ref of targets) {
      const m = /^#\/components\/(schemas|responses)\/([A-Za-z]+)$/.exec(ref);
      expect(m, ref).not.toBeNull();
      expect(doc.components[m![1] as 'schemas' | 'responses'][m![2]!], ref).toBeDefined();
    }
    for (const name of ['Schedule', 'CronJob', 'Execution', 'Attempt', 'ApiKey', 'ProblemDetails', 'FieldProblem']) {
      expect(doc.components.schemas[name], name).toBeDefined();
    }
  });

  it('covers every route Fastify has registered, and nothing else', () => {
    const routes = registeredRoutes(h.app.printRoutes({ commonPrefix: false })).filter((r) => !NOT_API.test(r.split(' ')[1]!));
    // The parser reads the tree: a route the API certainly has must be among them.
    expect(routes).toContain('GET /schedules/{id}/executions');
    expect(routes.length).toBeGreaterThanOrEqual(21);
    expect(documentedOperations(doc).map(([key]) => key)).toEqual(routes);
  });

  it('gives every operation a summary, a description, a unique operationId, known tags, its security and its responses', () => {
    const ids = new Set<string>();
    const tags = new Set(doc.tags.map((t) => t.name));
    for (const [key, op] of documentedOperations(doc)) {
      const method = key.split(' ')[0]!;
      expect(op.summary, `${key} summary`).toMatch(/\S/);
      expect(op.description, `${key} description`).toMatch(/\S{3}/);
      expect(op.operationId, `${key} operationId`).toMatch(/^[a-z][A-Za-z]+$/);
      expect(ids.has(op.operationId!), `${key} operationId ${op.operationId} is unique`).toBe(false);
      ids.add(op.operationId!);
      expect(op.tags?.length, `${key} tags`).toBeGreaterThan(0);
      for (const tag of op.tags ?? []) expect(tags.has(tag), `${key} tag ${tag}`).toBe(true);
      expect(Array.isArray(op.security), `${key} states its security`).toBe(true);
      for (const requirement of op.security ?? []) {
        for (const scheme of Object.keys(requirement)) expect(doc.components.securitySchemes[scheme], scheme).toBeDefined();
      }

      const statuses = Object.keys(op.responses ?? {});
      const answer = (status: string) => {
        const r = op.responses![status] as { $ref?: string; description?: string; content?: Record<string, { schema?: Json }> };
        return r.$ref === undefined ? r : doc.components.responses[r.$ref.slice('#/components/responses/'.length)]!;
      };
      expect(statuses.some((s) => /^2\d\d$/.test(s)), `${key} has a 2xx answer`).toBe(true);
      for (const status of statuses) expect(answer(status).description, `${key} ${status} description`).toMatch(/\S/);
      const problems = statuses.filter((s) => /^[45]\d\d$/.test(s)).map(Number);
      expect(problems, `${key} problem answers`).toEqual(expect.arrayContaining(expectedProblems(method, op)));
      expect(problems.length, `${key} has problem answers`).toBeGreaterThan(0);
      for (const status of problems) {
        const content = answer(String(status)).content ?? {};
        expect(Object.keys(content), `${key} ${status} media types`).toEqual([PROBLEM_CONTENT_TYPE]);
        expect(content[PROBLEM_CONTENT_TYPE]!.schema, `${key} ${status} schema`).toEqual({ $ref: '#/components/schemas/ProblemDetails' });
      }
    }
    // The operation ids the typed client and the CLI are built on.
    for (const id of [
      'createSchedule', 'listSchedules', 'getSchedule', 'updateSchedule', 'deleteSchedule', 'triggerSchedule', 'listScheduleExecutions',
      'createCronJob', 'listCronJobs', 'getCronJob', 'updateCronJob', 'deleteCronJob', 'triggerCronJob', 'listCronJobExecutions',
      'previewCron', 'getExecution', 'createApiKey', 'listApiKeys', 'getApiKey', 'updateApiKey', 'deleteApiKey',
    ]) {
      expect(ids.has(id), id).toBe(true);
    }
  });

  it('names shared schemas once: a use of Schedule becomes a $ref, a changed copy of it is an error', () => {
    const schedule = JSON.parse(JSON.stringify(ScheduleSchema)) as Record<string, Json>;
    const withSchema = (schema: Json) =>
      ({ openapi: '3.1.0', info: {}, paths: { '/x': { get: { responses: { 200: { content: { 'application/json': { schema } } } } } } } }) as never;
    const finished = finishDocument(withSchema({ ...schedule, type: ['object', 'null'] }));
    expect(JSON.stringify(finished.paths['/x']!.get)).toContain('{"anyOf":[{"$ref":"#/components/schemas/Schedule"},{"type":"null"}]}');
    expect(() => finishDocument(withSchema({ ...schedule, required: ['id'] }))).toThrow(/Schedule differs/);
  });

  it('documents ProblemDetails as problem.ts makes problems, errors[{path, message}] included', () => {
    expect(doc.components.schemas.ProblemDetails).toMatchObject({
      type: 'object',
      required: ['type', 'title', 'status', 'detail'],
      properties: { errors: { type: 'array', items: { $ref: '#/components/schemas/FieldProblem' } } },
    });
    expect(doc.components.schemas.FieldProblem).toMatchObject({ required: ['path', 'message'], additionalProperties: false });
  });

  it('documents limit and count as integers with the bounds and defaults the service applies', async () => {
    const base = await listening();
    const integers: string[] = [];
    for (const [key, op] of documentedOperations(doc)) {
      const [method, path] = key.split(' ') as [string, string];
      for (const param of (op.parameters ?? []) as { in: string; name: string; required?: boolean; schema?: Record<string, Json> }[]) {
        if (param.in !== 'query' || param.schema?.type !== 'integer') continue;
        integers.push(`${key} ${param.name}`);
        const { minimum, maximum, default: byDefault } = param.schema as { minimum: number; maximum: number; default: number };
        expect([minimum, maximum, byDefault].every(Number.isInteger), `${key} ${param.name}`).toBe(true);
        expect(minimum <= byDefault && byDefault <= maximum, `${key} ${param.name}`).toBe(true);
        // The bounds are the service's: one step outside each is a 400 naming the parameter; the bounds themselves are not.
        const target = base + withIds(path);
        const required = path === '/cron/preview' ? 'expression=*%20*%20*%20*%20*&' : '';
        for (const [value, ok] of [[minimum - 1, false], [minimum, true], [maximum, true], [maximum + 1, false]] as const) {
          const res = await fetch(`${target}?${required}${param.name}=${value}`, { method, headers: h.headers });
          const text = await res.text();
          if (ok) expect(res.status, `${key} ${param.name}=${value}: ${text}`).toBe(200);
          else {
            expect(res.status, `${key} ${param.name}=${value}`).toBe(400);
            expect((JSON.parse(text) as { errors: { path: string }[] }).errors.map((e) => e.path)).toEqual([`/query/${param.name}`]);
          }
        }
      }
    }
    expect(integers.sort()).toEqual([
      'GET /audit-events limit',
      'GET /cron limit',
      'GET /cron/preview count',
      'GET /cron/{id}/executions limit',
      'GET /executions limit',
      'GET /schedules limit',
      'GET /schedules/{id}/executions limit',
    ]);
  });

  it('says the truth about authentication: every operation it secures answers 401 without a token, the open ones do not', async () => {
    const base = await listening();
    for (const [key, op] of documentedOperations(doc)) {
      const [method, path] = key.split(' ') as [string, string];
      const url = base + withIds(path);
      const res = await fetch(url, { method });
      const secured = (op.security ?? []).length > 0;
      if (secured) {
        expect(res.status, `${key} without a token`).toBe(401);
        expect(res.headers.get('content-type'), key).toMatch(/^application\/problem\+json/);
      } else {
        expect(res.status, `${key} without a token`).not.toBe(401);
      }
      await res.arrayBuffer();
    }
  });
});

describe('GET /openapi.json and /docs over a real socket', () => {
  let h: Harness;
  let base: string;
  let committed: string;

  beforeAll(async () => {
    h = await openHarness({ metrics: DOCUMENTED_METRICS });
    base = await h.app.listen({ port: 0, host: '127.0.0.1' });
    committed = await readFile(OPENAPI_FILE, 'utf8');
  });
  afterAll(async () => {
    await h?.close();
  });

  it('serves the document without a token: 200, JSON, the committed document', async () => {
    const res = await fetch(`${base}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(JSON.parse(committed));
  });

  it('serves the reference page: HTML that loads its scripts and the document, with a strict CSP', async () => {
    const page = await fetch(`${base}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((m) => m[1]!);
    expect(scripts.some((s) => s.endsWith('/swagger-ui-bundle.js'))).toBe(true);
    expect(scripts.some((s) => s.endsWith('/swagger-initializer.js'))).toBe(true);
    for (const src of scripts) {
      const asset = await fetch(new URL(src, `${base}/docs`));
      expect(asset.status, src).toBe(200);
      expect(asset.headers.get('content-type'), src).toMatch(/javascript/);
      expect((await asset.text()).length, src).toBeGreaterThan(100);
    }
    // The page is titled for Punctual and reads the document from /openapi.json, in Swagger UI's
    // base layout: no top bar, so neither the plugin's logo nor a box to load another document.
    expect(html).toMatch(/<title>Punctual API reference<\/title>/);
    const script = await fetch(`${base}/docs/static/swagger-initializer.js`);
    expect(script.headers.get('content-type')).toMatch(/^application\/javascript/);
    expect(script.headers.get('content-security-policy')).toContain("script-src 'self'");
    const initializer = await script.text();
    expect(initializer).toBe(DOCS_INITIALIZER);
    expect(initializer).toContain('new URL("/openapi.json", window.location.href)');
    expect(initializer).toContain("layout: 'BaseLayout'");
    expect(initializer).not.toMatch(/\.\/json|logo|StandaloneLayout/);
  });

  it('is what `punctual serve` answers by default (the server as main.ts starts it)', async () => {
    const server = await startTestServer();
    try {
      const res = await fetch(`${server.url}/openapi.json`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual(JSON.parse(committed));
    } finally {
      await server.stop();
    }
  });

  it('leaves the console as it was: /console/ still answers from its own static files', async () => {
    const res = await fetch(`${base}/console/`);
    expect(res.status).toBe(findConsoleRoot() === null ? 503 : 200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    await res.arrayBuffer();
  });
});
