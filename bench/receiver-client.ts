/** The bench's side of the receiver process: start it, arm runs, wait for arrivals, collect them. */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { ReceiverReply, ReceiverRequest } from './receiver-protocol.js';

type Progress = Extract<ReceiverReply, { type: 'progress' }>;
/** Arrivals of one run, indexed like the requests (`/r/<run>/<index>`). NaN: never arrived. */
export type Collected = Extract<ReceiverReply, { type: 'collect' }>;

type Body<T> = T extends unknown ? Omit<T, 'seq'> : never;

/** A receiver running in its own process. */
export class ReceiverProcess {
  private seq = 0;
  private readonly pending = new Map<number, { resolve(r: ReceiverReply): void; reject(e: Error): void }>();

  private constructor(
    private readonly proc: ChildProcess,
    /** Base URL, e.g. `http://127.0.0.1:41234`. */
    readonly url: string,
  ) {
    proc.on('message', (m: ReceiverReply) => {
      const p = this.pending.get(m.seq);
      if (!p) return;
      this.pending.delete(m.seq);
      if (m.type === 'error') p.reject(new Error(`receiver: ${m.message}`));
      else p.resolve(m);
    });
    proc.on('exit', () => {
      for (const p of this.pending.values()) p.reject(new Error('receiver exited'));
      this.pending.clear();
    });
  }

  /** Process id, for CPU readings. */
  get pid(): number {
    return this.proc.pid!;
  }

  /** Forks bench/receiver-process.ts (through tsx) and waits until it listens. */
  static async start(): Promise<ReceiverProcess> {
    const proc = fork(fileURLToPath(new URL('./receiver-process.ts', import.meta.url)), [], {
      execArgv: ['--import', 'tsx'],
      serialization: 'advanced',
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('receiver did not start in 20 s')), 20_000);
      proc.once('message', (m: ReceiverReply) => {
        clearTimeout(timer);
        if (m.type === 'listening') resolve(m.url);
        else reject(new Error(`receiver: unexpected first message ${m.type}`));
      });
      proc.once('exit', (code) => reject(new Error(`receiver exited with ${code}`)));
    });
    return new ReceiverProcess(proc, url);
  }

  private ask<T extends ReceiverReply>(msg: Body<ReceiverRequest>): Promise<T> {
    const seq = ++this.seq;
    return new Promise<ReceiverReply>((resolve, reject) => {
      this.pending.set(seq, { resolve, reject });
      this.proc.send({ ...msg, seq });
    }) as Promise<T>;
  }

  /** Prepares run `run` for `count` requests (each answered `delayMs` later); returns the URL prefix to append an index to. */
  async arm(run: string, count: number, delayMs = 0): Promise<string> {
    await this.ask({ type: 'arm', run, count, delayMs });
    return `${this.url}/r/${run}/`;
  }

  progress(run: string): Promise<Progress> {
    return this.ask<Progress>({ type: 'progress', run });
  }

  /**
   * Polls every `everyMs` until `count` distinct requests of `run` arrived, or `timeoutMs`
   * passed; returns the last progress either way (the caller reports a shortfall).
   */
  async waitFor(run: string, count: number, timeoutMs: number, everyMs = 200): Promise<Progress> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const p = await this.progress(run);
      if (p.received >= count || Date.now() >= deadline) return p;
      await new Promise((r) => setTimeout(r, everyMs));
    }
  }

  /** The arrays of `run` (and forgets the run). */
  collect(run: string): Promise<Collected> {
    return this.ask<Collected>({ type: 'collect', run });
  }

  async close(): Promise<void> {
    if (this.proc.exitCode !== null) return;
    const exited = new Promise((r) => this.proc.once('exit', r));
    await this.ask({ type: 'close' }).catch(() => undefined);
    await Promise.race([exited, new Promise((r) => setTimeout(r, 2_000))]);
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
  }
}
