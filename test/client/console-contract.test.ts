/**
 * The web console speaks the API of docs/openapi.json, not one of its own: console/src/api.ts
 * takes its wire types from src/client/schema.ts (generated from that document) and makes every
 * call through `request(method, pathTemplate, …)`. This test fails when the console drifts:
 * - a call (method + path template) the document does not define, or a query parameter that no
 *   operation the console calls accepts;
 * - a `fetch(` anywhere in console/src but the one inside `request`;
 * - the console no longer typechecking against the generated types (`tsc -p console/tsconfig.json`).
 * test/client/schema.test.ts keeps src/client/schema.ts current with the document.
 */
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CONSOLE_SRC = join(ROOT, 'console/src');

interface Parameter {
  name: string;
  in: string;
}
type Document = { paths: Record<string, Record<string, { parameters?: Parameter[] }>> };
const document = JSON.parse(readFileSync(join(ROOT, 'docs/openapi.json'), 'utf8')) as Document;

/** Every .ts and .tsx file under `dir`, with its text. */
function sources(dir: string): { file: string; text: string }[] {
  return readdirSync(dir, { withFileTypes: true, recursive: true })
    .filter((e) => e.isFile() && /\.tsx?$/.test(e.name))
    .map((e) => join(e.parentPath, e.name))
    .sort()
    .map((file) => ({ file: relative(ROOT, file), text: readFileSync(file, 'utf8') }));
}

/** The `request('method', '/path', …)` calls of `text`, as `METHOD /path`. */
function calls(text: string): { method: string; path: string }[] {
  return [...text.matchAll(/\brequest\(\s*'([a-z]+)',\s*'([^']*)'/g)].map((m) => ({ method: m[1]!, path: m[2]! }));
}

/** Why `method path` is not an operation of the document, or null when it is. */
function callProblem(method: string, path: string): string | null {
  const item = document.paths[path];
  if (item === undefined) return `${path} is not a path of docs/openapi.json`;
  return item[method] === undefined ? `${method.toUpperCase()} ${path} is not an operation of docs/openapi.json` : null;
}

const files = sources(CONSOLE_SRC);
const api = files.find((f) => f.file === 'console/src/api.ts');
const apiCalls = calls(api?.text ?? '');

describe('the console against docs/openapi.json', () => {
  it('finds the calls of console/src/api.ts, and reports one the document lacks', () => {
    expect(api, 'console/src/api.ts').toBeDefined();
    // Every page of the console needs these; finding fewer means the scan no longer sees the calls.
    expect(apiCalls.length).toBeGreaterThanOrEqual(14);
    expect(callProblem('put', '/schedules')).toMatch(/PUT \/schedules is not an operation/);
    expect(callProblem('get', '/schedule/{id}')).toMatch(/not a path/);
  });

  it('calls only operations the document defines', () => {
    const problems = apiCalls.map((c) => callProblem(c.method, c.path)).filter((p) => p !== null);
    expect(problems).toEqual([]);
  });

  it('makes every call through request() (console/src/api-request.ts) from console/src/api.ts', () => {
    const transport = files.find((f) => f.file === 'console/src/api-request.ts');
    expect(transport, 'console/src/api-request.ts').toBeDefined();
    const elsewhere = files
      .filter((f) => f !== api && ((f !== transport && /\bfetch\(/.test(f.text)) || calls(f.text).length > 0))
      .map((f) => f.file);
    expect(elsewhere).toEqual([]);
    expect(transport!.text.match(/\bfetch\(/g)).toHaveLength(1);
    expect(api!.text.match(/\bfetch\(/g)).toBeNull();
  });

  it('sends only query parameters that the operations it calls accept', () => {
    const accepted = new Set(
      apiCalls.flatMap((c) => (document.paths[c.path]?.[c.method]?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name)),
    );
    const sent = [...api!.text.matchAll(/\.(?:set|append)\('([^']+)'/g)].map((m) => m[1]!);
    expect(sent.length).toBeGreaterThan(0);
    expect(sent.filter((name) => !accepted.has(name))).toEqual([]);
  });

  it('typechecks against the generated types (tsc -p console/tsconfig.json)', async () => {
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const run = promisify(execFile)(process.execPath, [tsc, '-p', 'console/tsconfig.json', '--noEmit'], { cwd: ROOT });
    await expect(run.then(() => 'clean').catch((err: { stdout?: string }) => err.stdout ?? String(err))).resolves.toBe('clean');
  }, 120_000);
});
