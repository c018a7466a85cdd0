/**
 * `serve` started by npm (`npm start`, `npx punctual serve`, `npm exec`) stops when npm goes away.
 * npm runs a script through a shell (`npm → sh -c … → node`): a SIGTERM sent to npm alone is
 * forwarded to that shell, which dies of it without passing it on, and a SIGKILL of npm alone
 * forwards nothing. Either way the server would be left running, orphaned. So, when started by
 * npm, the server notes its ancestors up to npm's process and, once a second, checks that they are
 * all still there; when one is gone, it stops as on SIGTERM.
 *
 * Only under npm (the `npm_command` variable npm sets for its scripts) and only where `/proc`
 * exists (Linux): a server started otherwise (`node dist/cli.js serve`, a container, systemd,
 * `nohup … &`) keeps running when its parent ends, as daemons are expected to.
 */
import { readFileSync } from 'node:fs';

/** How often the ancestors are checked (ms). */
export const PARENT_CHECK_MS = 1_000;

/** How far up the search for npm's process goes. */
const MAX_DEPTH = 8;

/** The parent pid and state of process `pid` from /proc, or null when it is gone. */
function procStat(pid: number): { ppid: number; state: string; name: string } | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses; it ends at the last ')'.
  const close = stat.lastIndexOf(')');
  const fields = stat.slice(close + 2).split(' ');
  return { name: stat.slice(stat.indexOf('(') + 1, close), state: fields[0] ?? '', ppid: Number(fields[1]) };
}

/** Alive: listed in /proc and not a zombie (a process that ended and was not yet reaped). */
function alive(pid: number): boolean {
  const stat = procStat(pid);
  return stat !== null && stat.state !== 'Z' && stat.state !== 'X';
}

/**
 * The pids from this process's parent up to npm's process (whose name starts with `npm`), or null
 * when this process was not started by npm or /proc cannot tell.
 */
export function npmAncestors(env: NodeJS.ProcessEnv = process.env): number[] | null {
  if (env.npm_command === undefined) return null;
  const chain: number[] = [];
  let pid = process.ppid;
  for (let depth = 0; depth < MAX_DEPTH && pid > 1; depth++) {
    const stat = procStat(pid);
    if (stat === null) return null;
    chain.push(pid);
    if (stat.name.startsWith('npm')) return chain;
    pid = stat.ppid;
  }
  return null;
}

/** This process's parent and its ancestors up to npm, noted at start by {@link noteNpmAncestors}. */
export interface NpmAncestors {
  parent: number;
  chain: number[];
}

/**
 * Notes this process's ancestors up to npm, or null when it was not started by npm. Call it first
 * thing: npm's shell may die (a SIGTERM to npm) while the server is still starting, after which
 * the chain can no longer be found.
 */
export function noteNpmAncestors(): NpmAncestors | null {
  const parent = process.ppid;
  const chain = npmAncestors();
  return chain === null ? null : { parent, chain };
}

/**
 * Calls `onGone` once, at once or within {@link PARENT_CHECK_MS}, after npm or a process between
 * it and this one has ended (`noted` by {@link noteNpmAncestors}); does nothing when `noted` is
 * null. The check does not keep the process alive.
 */
export function stopWithNpm(noted: NpmAncestors | null, onGone: () => void): void {
  if (noted === null) return;
  const { parent, chain } = noted;
  const gone = () => process.ppid !== parent || !chain.every(alive);
  if (gone()) {
    onGone();
    return;
  }
  const timer = setInterval(() => {
    if (!gone()) return;
    clearInterval(timer);
    onGone();
  }, PARENT_CHECK_MS);
  timer.unref();
}
