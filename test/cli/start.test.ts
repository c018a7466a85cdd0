/**
 * How the `punctual` command is run in a clone (docs/cli.md, "Running the command"): the
 * executable `./punctual` at the repository's root runs the build without npm or npx, answers
 * `--version` with package.json's version and `--help` with every command; neither loads the
 * service's modules (config, the HTTP app, the stores, cli-table3). And the commands of the README
 * and docs/ use it, never `npx punctual` (which, in a clone, builds the whole project into npx's
 * cache on its first use, and elsewhere would fetch a package of that name from the registry).
 * Needs the build (`npm run build`).
 */
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { BUILT_CLI } from '../support/child.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = join(ROOT, 'punctual');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
const run = promisify(execFile);

if (!existsSync(BUILT_CLI)) throw new Error(`${BUILT_CLI} is missing: npm run build`);

describe('./punctual', () => {
  it('answers --version with the version of package.json, as an executable, from any directory', async () => {
    const here = await run(SCRIPT, ['--version'], { cwd: ROOT });
    expect(here.stdout).toBe(`${VERSION}\n`);
    const elsewhere = await run(SCRIPT, ['--version'], { cwd: join(ROOT, 'docs') });
    expect(elsewhere.stdout).toBe(`${VERSION}\n`);
    const throughNode = await run(process.execPath, ['punctual', '-V'], { cwd: ROOT });
    expect(throughNode.stdout).toBe(`${VERSION}\n`);
  });

  it('answers --help with every command group', async () => {
    const { stdout } = await run(SCRIPT, ['--help'], { cwd: ROOT });
    for (const command of ['serve', 'migrate', 'migrate-store', 'signing-secret', 'keys', 'secrets', 'schedules', 'cron', 'executions', 'flow-control']) {
      expect(stdout).toMatch(new RegExp(`^  ${command}\\b`, 'm'));
    }
  });
});

describe('the start of the command', () => {
  /**
   * The modules (as file URLs) that `node dist/cli.js <args>` loads, recorded by a resolve hook
   * registered before the command starts.
   */
  async function modulesLoaded(args: string[]): Promise<string[]> {
    const hook = `export async function resolve(s, c, next) { const r = await next(s, c); process.stderr.write('LOADED ' + r.url + '\\n'); return r; }`;
    const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(hook)}`)});`;
    const { stdout, stderr } = await run(process.execPath, ['--import', `data:text/javascript,${encodeURIComponent(register)}`, BUILT_CLI, ...args], {
      cwd: ROOT,
    });
    expect(stdout).not.toBe('');
    return stderr.split('\n').filter((l) => l.startsWith('LOADED ')).map((l) => l.slice('LOADED '.length));
  }

  it.each([['--version'], ['--help'], ['schedules', '--help']])('%s loads commander and the commands, not the service', async (...args) => {
    const loaded = await modulesLoaded(args);
    expect(loaded.some((u) => u.endsWith('/dist/cli.js'))).toBe(true);
    expect(loaded.some((u) => u.includes('/node_modules/commander/'))).toBe(true);
    const heavy = loaded.filter((u) =>
      /\/dist\/(config|main|serve-store|logger)\.js$|\/dist\/(http|store|dispatch|service|secrets|net|metrics)\/|\/node_modules\/(fastify|pg|better-sqlite3|pino|undici|cli-table3)\//.test(
        u,
      ),
    );
    expect(heavy).toEqual([]);
  });
});

describe('the documentation', () => {
  it('runs the command as ./punctual: no `npx punctual` in a command of README.md or docs/', () => {
    const pages = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];
    const found: string[] = [];
    for (const page of pages) {
      // The fenced blocks (what a reader copies and runs); prose may explain why not npx.
      for (const block of readFileSync(join(ROOT, page), 'utf8').matchAll(/^```[^\n]*\n([\s\S]*?)^```/gm)) {
        for (const line of block[1]!.split('\n')) if (/npx\s+punctual/.test(line)) found.push(`${page}: ${line}`);
      }
    }
    expect(found).toEqual([]);
    expect(readFileSync(join(ROOT, 'docs', 'cli.md'), 'utf8')).toContain('./punctual --version');
    expect(readFileSync(join(ROOT, 'README.md'), 'utf8')).toContain('./punctual serve');
  });
});
