import { Worker } from 'node:worker_threads';

/**
 * Young generation of each worker's V8 heap, at most (MB). Each thread is an isolate of its own,
 * and V8 lets a busy one's young generation grow to tens of MB: with the store thread at V8's
 * default, the service's RSS peaked at 257-263 MB in `npm run bench -- --scenario scale` (goal
 * ≤ 256 MB), against 212 MB with 8 MB (2026-11-21, docs/benchmarks.md). The threads keep little
 * alive (a claim's rows, a batch of outcomes), so a smaller young generation costs a few more
 * scavenges, nothing else.
 */
const WORKER_YOUNG_GENERATION_MB = 8;

/**
 * Starts the worker thread whose module is `name` beside `base` (a module's `import.meta.url`):
 * the compiled `<name>.js` when `base` is compiled, else the `<name>.ts` source run through tsx
 * (tests, `npm run bench`). From the sources the worker registers tsx itself, because Node 20
 * does not apply the parent's `--import tsx` to a worker.
 * @param workerData cloned into the worker's `workerData` (structured clone: plain data only)
 * @returns the worker, its young generation capped at {@link WORKER_YOUNG_GENERATION_MB}
 */
export function startWorker(name: string, base: string, workerData: unknown): Worker {
  const fromSource = base.endsWith('.ts');
  const url = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, base);
  const resourceLimits = { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB };
  if (!fromSource) return new Worker(url, { workerData, resourceLimits });
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(code, { eval: true, workerData, resourceLimits });
}
