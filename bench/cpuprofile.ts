/**
 * Sums a V8 `.cpuprofile` (from `--service-node-args='--cpu-prof --cpu-prof-dir=<dir>'`, one file
 * per thread: the event loop's, the SQLite store thread's, the slow lane's) by file or package and
 * by function: self time, and with `--incl` the time each function is on the stack. Times are the
 * sampler's (wall clock while the thread runs JavaScript or native code; `(idle)` while it waits).
 *
 *   node --import tsx bench/cpuprofile.ts <file> [--from <regex>] [--abs <start>,<end>] [--top <n>] [--incl] [--children <regex>]
 *
 * --from <regex>      only the samples from the first to the last whose stack has a function whose
 *                     name matches (e.g. '^(deliver|sendCall)$': the burst on the event loop's thread)
 * --abs <start>,<end> only the samples in this window (µs on the profiles' clock, as printed by a
 *                     run with --from): the same window in another thread's profile
 * --children <regex>  the time of each direct callee of the matching functions
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    from: { type: 'string' },
    abs: { type: 'string' },
    top: { type: 'string', default: '40' },
    incl: { type: 'boolean', default: false },
    children: { type: 'string' },
  },
});
if (positionals.length !== 1) throw new Error('usage: bench/cpuprofile.ts <file.cpuprofile> [options] (see the comment at the top)');
const profile = JSON.parse(readFileSync(positionals[0]!, 'utf8')) as Profile;
const top = Number(values.top);

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const times: number[] = [];
let at = profile.startTime;
for (const d of profile.timeDeltas) times.push((at += d));

/** `undici`, `node:net`, `dist/dispatch/deliver.js`, `(native/vm)`. */
function fileOf(url: string): string {
  if (!url) return '(native/vm)';
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg) return pkg[1]!;
  if (url.startsWith('node:')) return url;
  return url.replace(/^file:\/\//, '').replace(/.*\/(dist|src)\//, '$1/');
}
function nameOf(id: number): string {
  const f = byId.get(id)!.callFrame;
  return `${f.functionName || '(anonymous)'} ${fileOf(f.url)}:${f.lineNumber + 1}`;
}
function stackOf(id: number): number[] {
  const stack: number[] = [];
  for (let n: number | undefined = id; n !== undefined; n = parent.get(n)) stack.unshift(n);
  return stack;
}

let start = 0;
let end = profile.samples.length;
if (values.from !== undefined) {
  const re = new RegExp(values.from);
  const hit = (i: number) => stackOf(profile.samples[i]!).some((id) => re.test(byId.get(id)!.callFrame.functionName));
  start = profile.samples.findIndex((_, i) => hit(i));
  if (start < 0) throw new Error(`no sample has a function matching ${values.from}`);
  while (end > start && !hit(end - 1)) end--;
}
if (values.abs !== undefined) {
  const [a, b] = values.abs.split(',').map(Number) as [number, number];
  start = times.findIndex((t) => t >= a);
  const after = times.findIndex((t) => t > b);
  end = after < 0 ? times.length : after;
}
const span = (i: number) => (times[i + 1] ?? times[i]!) - times[i]!;

const self = new Map<string, number>();
const files = new Map<string, number>();
const inclusive = new Map<string, number>();
const children = new Map<string, number>();
const childRe = values.children === undefined ? null : new RegExp(values.children);
let total = 0;
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
for (let i = start; i < end; i++) {
  const dt = span(i);
  const id = profile.samples[i]!;
  total += dt;
  add(self, nameOf(id), dt);
  add(files, fileOf(byId.get(id)!.callFrame.url), dt);
  if (!values.incl && childRe === null) continue;
  const stack = stackOf(id);
  if (values.incl) for (const k of new Set(stack.map(nameOf))) add(inclusive, k, dt);
  if (childRe !== null) {
    const j = stack.findIndex((n) => childRe.test(byId.get(n)!.callFrame.functionName));
    if (j >= 0) add(children, stack[j + 1] === undefined ? '(self)' : nameOf(stack[j + 1]!), dt);
  }
}

const print = (m: Map<string, number>, title: string) => {
  process.stdout.write(`\n== ${title}\n`);
  for (const [k, v] of [...m].sort((x, y) => y[1] - x[1]).slice(0, top)) {
    process.stdout.write(`${(v / 1000).toFixed(1).padStart(9)} ms ${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}\n`);
  }
};
process.stdout.write(`window ${times[start]},${times[end - 1]} (${((times[end - 1]! - times[start]!) / 1000).toFixed(0)} ms, µs on the profile's clock)\n`);
print(files, 'self time per file or package');
print(self, 'self time per function');
if (values.incl) print(inclusive, 'time on the stack per function');
if (childRe !== null) print(children, `callees of ${values.children}`);
