import { Worker } from 'node:worker_threads';

/**
 * Starts the worker thread whose module is `name` beside `base` (a module's `import.meta.url`):
 * the compiled `<name>.js` when `base` is compiled, else the `<name>.ts` source run through tsx
 * (tests, `npm run bench`). From the sources the worker registers tsx itself, because Node 20
 * does not apply the parent's `--import tsx` to a worker.
 * @param workerData cloned into the worker's `workerData` (structured clone: plain data only)
 */
export function startWorker(name: string, base: string, workerData: unknown): Worker {
  const fromSource = base.endsWith('.ts');
  const url = new URL(`./${name}.${fromSource ? 'ts' : 'js'}`, base);
  if (!fromSource) return new Worker(url, { workerData });
  const tsx = import.meta.resolve('tsx/esm/api');
  const code = `import(${JSON.stringify(tsx)}).then(({ register }) => { register(); return import(${JSON.stringify(url.href)}); })`;
  return new Worker(code, { eval: true, workerData });
}
