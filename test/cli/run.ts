/** Runs the `punctual` command as a real child process (the build, or the sources through tsx). Not a test file. */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
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
  /** Working directory of the command (default: the repository's root). */
  cwd?: string;
  /**
   * true (the default): run the build, `node dist/cli.js` (kept fresh by test/support/global-setup.ts);
   * false: the sources through tsx (slower to start).
   */
  built?: boolean;
  /** Written to the command's standard input, then closed (default: no standard input). */
  input?: string;
}

/**
 * Runs `punctual <args>` with `env` added to this process's environment (without its own
 * PUNCTUAL_URL, PUNCTUAL_TOKEN, DATABASE_URL, PUNCTUAL_BOOTSTRAP_TOKEN) and resolves when it exits.
 */
export function punctual(args: string[], env: Record<string, string> = {}, opts: RunOptions = {}): Promise<CliResult> {
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

/** `punctual <args>` that must succeed (exit 0), parsed from its `--json` output. */
export async function punctualJson<T = Record<string, unknown>>(args: string[], env: Record<string, string>): Promise<T> {
  const r = await punctual([...args, '--json'], env);
  if (r.code !== 0) throw new Error(`punctual ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return JSON.parse(r.stdout) as T;
}
