/** Starts bench/bare-fastify-process.ts in its own process. */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** A running bare Fastify server. */
export interface BareFastify {
  url: string;
  pid: number;
  close(): Promise<void>;
}

export async function startBareFastify(): Promise<BareFastify> {
  const proc = fork(fileURLToPath(new URL('./bare-fastify-process.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('bare Fastify did not start in 20 s')), 20_000);
    proc.once('message', (m: { type: string; url: string }) => {
      clearTimeout(timer);
      resolve(m.url);
    });
    proc.once('exit', (code) => reject(new Error(`bare Fastify exited with ${code}`)));
  });
  return {
    url,
    pid: proc.pid!,
    async close() {
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once('exit', r));
      proc.send({ type: 'close' });
      await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000))]);
      if (proc.exitCode === null) proc.kill('SIGKILL');
    },
  };
}
