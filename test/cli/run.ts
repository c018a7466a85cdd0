/**
 * Runs the `punctual` command: in this process by default (the program of src/cli/program.ts, as
 * `dist/cli.js` runs it), or as a real child process (the build, or the sources through tsx).
 * Not a test file.
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format } from 'node:util';
import { runCli } from '../../src/cli/program.js';
import { BUILT_CLI } from '../support/child.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** What a run of the command gave. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Settings of this process the command reads; a run gets only those its test gives. */
const OWN = ['PUNCTUAL_URL', 'PUNCTUAL_TOKEN', 'DATABASE_URL', 'PUNCTUAL_BOOTSTRAP_TOKEN'];

/** tsx's loader and the command's source, as absolute references: the command may run in any folder. */
const TSX = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const CLI = join(ROOT, 'src', 'cli.ts');

/** Options of {@link punctual}. */
export interface RunOptions {
  /**
   * true: run the command as a child process (implied by `cwd` and `built`). Default: in this
   * process (see {@link punctualInProcess}).
   */
  spawn?: boolean;
  /** Working directory of the command (a child process; default: the repository's root). */
  cwd?: string;
  /**
   * For a child process: true (the default), run the build, `node dist/cli.js` (kept fresh by
   * test/support/global-setup.ts); false: the sources through tsx (slower to start).
   */
  built?: boolean;
  /** Written to the command's standard input, then closed (default: no standard input). */
  input?: string;
}

/**
 * Runs `punctual <args>` with `env` added to this process's environment (without its own
 * PUNCTUAL_URL, PUNCTUAL_TOKEN, DATABASE_URL, PUNCTUAL_BOOTSTRAP_TOKEN) and resolves when it
 * exits: in this process unless `opts` asks for a child process (`spawn`, `cwd` or `built`).
 */
export function punctual(args: string[], env: Record<string, string> = {}, opts: RunOptions = {}): Promise<CliResult> {
  if (opts.spawn || opts.cwd !== undefined || opts.built !== undefined) return punctualSpawned(args, env, opts);
  return punctualInProcess(args, env, opts.input);
}

/** {@link punctual} as a real child process: `node dist/cli.js <args>` (or the sources through tsx with `built: false`). */
export function punctualSpawned(args: string[], env: Record<string, string> = {}, opts: RunOptions = {}): Promise<CliResult> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !OWN.includes(k)));
  return new Promise((resolve, reject) => {
    const command = (opts.built ?? true) ? [BUILT_CLI] : ['--import', TSX, CLI];
    const proc = spawn(process.execPath, [...command, ...args], {
      cwd: opts.cwd ?? ROOT,
      env: { ...base, ...env },
      stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (opts.input !== undefined) proc.stdin!.end(opts.input);
    let stdout = '';
    let stderr = '';
    proc.stdout!.on('data', (c: Buffer) => (stdout += c.toString()));
    proc.stderr!.on('data', (c: Buffer) => (stderr += c.toString()));
    proc.once('error', reject);
    proc.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Thrown by the stand-in for `process.exit` during an in-process run: the rest of the run is not the process's any more. */
class ExitCalled extends Error {
  constructor(readonly code: number) {
    super(`process.exit(${code})`);
  }
}

/** In-process runs one at a time: each takes over the process's streams, exit and environment. */
let queue: Promise<unknown> = Promise.resolve();

/** Replaces `obj[key]` by `value` and returns what puts the property back as it was (own or inherited). */
function replace<T extends object>(obj: T, key: PropertyKey, value: unknown): () => void {
  const own = Object.getOwnPropertyDescriptor(obj, key);
  Object.defineProperty(obj, key, { value, configurable: true, writable: true, enumerable: own?.enumerable ?? true });
  return () => {
    if (own) Object.defineProperty(obj, key, own);
    else delete (obj as Record<PropertyKey, unknown>)[key];
  };
}

/** The exit code `process.exit(code)` would end the process with (`undefined`: `process.exitCode`, else 0). */
function exitCodeFrom(code: unknown, fallback: unknown): number {
  const chosen = code ?? fallback ?? 0;
  const n = typeof chosen === 'number' ? chosen : Number.parseInt(String(chosen), 10);
  return Number.isInteger(n) ? n : 0;
}

/**
 * {@link punctual} in this process: `runCli` (what `dist/cli.js` calls) on a fresh program, with
 * the process taken over for the length of the run and given back after it, whatever happened:
 * - the environment: this process's without PUNCTUAL_URL, PUNCTUAL_TOKEN, DATABASE_URL and
 *   PUNCTUAL_BOOTSTRAP_TOKEN, plus `env`;
 * - `process.stdout.write`, `process.stderr.write` and `console`'s methods write to the result,
 *   and neither stream is a terminal;
 * - standard input: `input`, then its end (without it, an empty stream, like /dev/null);
 * - `process.exit(code)` ends the run with that code: it throws, and nothing the run writes after
 *   it counts (the process would be gone); otherwise the code is `process.exitCode` (default 0)
 *   once the command's action has finished.
 * Runs are queued: one at a time. `serve` (but for its help) is refused: it runs until a signal,
 * and takes the process's signals; it runs as a child process (`spawn: true`, or
 * test/support/child.ts).
 */
export function punctualInProcess(args: string[], env: Record<string, string> = {}, input?: string): Promise<CliResult> {
  if (args[0] === 'serve' && !args.includes('--help') && !args.includes('-h')) return Promise.reject(new Error('punctual serve runs as a child process: pass { spawn: true }'));
  const run = queue.then(() => runInProcess(args, env, input));
  queue = run.catch(() => undefined);
  return run;
}

async function runInProcess(args: string[], env: Record<string, string>, input: string | undefined): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  let exited: number | null = null;
  const restores: (() => void)[] = [];

  // The environment, changed in place (modules keep references to process.env) and put back after.
  const before = new Map<string, string | undefined>();
  const setEnv = (key: string, value: string | undefined) => {
    if (!before.has(key)) before.set(key, process.env[key]);
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  };
  for (const key of OWN) setEnv(key, undefined);
  for (const [key, value] of Object.entries(env)) setEnv(key, value);
  restores.push(() => {
    for (const [key, value] of before) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  });

  const writer = (append: (text: string) => void) =>
    function write(chunk: string | Uint8Array, encoding?: BufferEncoding | ((err?: Error | null) => void), cb?: (err?: Error | null) => void): boolean {
      if (exited === null) append(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString(typeof encoding === 'string' ? encoding : 'utf8'));
      const done = typeof encoding === 'function' ? encoding : cb;
      if (done) process.nextTick(done);
      return true;
    };
  const toOut = (text: string) => (stdout += text);
  const toErr = (text: string) => (stderr += text);
  restores.push(replace(process.stdout, 'write', writer(toOut)));
  restores.push(replace(process.stderr, 'write', writer(toErr)));
  restores.push(replace(process.stdout, 'isTTY', false));
  restores.push(replace(process.stderr, 'isTTY', false));
  for (const [method, append] of [
    ['log', toOut],
    ['info', toOut],
    ['debug', toOut],
    ['warn', toErr],
    ['error', toErr],
  ] as const) {
    restores.push(replace(console, method, (...values: unknown[]) => (exited === null ? append(`${format(...values)}\n`) : undefined)));
  }
  const stdin = new PassThrough();
  stdin.end(input ?? '');
  restores.push(replace(process, 'stdin', stdin));

  const exitCodeBefore = process.exitCode;
  process.exitCode = undefined;
  restores.push(() => (process.exitCode = exitCodeBefore));
  restores.push(
    replace(process, 'exit', (code?: unknown) => {
      exited ??= exitCodeFrom(code, process.exitCode);
      throw new ExitCalled(exited);
    }),
  );

  let code: number;
  try {
    await runCli([process.execPath, BUILT_CLI, ...args]);
  } catch (err) {
    // Not an exit: what escapes runCli would end the process as an uncaught error does.
    if (!(err instanceof ExitCalled) && exited === null) {
      stderr += `${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`;
      exited = 1;
    }
  } finally {
    code = exited ?? exitCodeFrom(undefined, process.exitCode);
    for (const restore of restores.reverse()) restore();
  }
  return { code, stdout, stderr };
}

/** `punctual <args>` that must succeed (exit 0), parsed from its `--json` output. */
export async function punctualJson<T = Record<string, unknown>>(args: string[], env: Record<string, string>): Promise<T> {
  const r = await punctual([...args, '--json'], env);
  if (r.code !== 0) throw new Error(`punctual ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
