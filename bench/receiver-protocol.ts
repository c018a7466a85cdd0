/** Messages between the bench and its receiver process (receiver-process.ts), over IPC. */

/** Parent → receiver. `seq` pairs a request with its reply. */
export type ReceiverRequest =
  | { seq: number; type: 'arm'; run: string; count: number; delayMs?: number }
  | { seq: number; type: 'progress'; run: string }
  | { seq: number; type: 'collect'; run: string }
  | { seq: number; type: 'close' };

/** Receiver → parent. `hr` and `ms` are epoch ms per index (NaN: never arrived). */
export type ReceiverReply =
  | { seq: number; type: 'listening'; url: string }
  | { seq: number; type: 'ok' }
  | { seq: number; type: 'error'; message: string }
  | {
      seq: number;
      type: 'progress';
      received: number;
      duplicates: number;
      unknown: number;
      firstHr: number;
      lastHr: number;
    }
  | {
      seq: number;
      type: 'collect';
      hr: Float64Array;
      ms: Float64Array;
      hits: Uint32Array;
      duplicates: number;
      unknown: number;
      /** Most requests of the run in flight at once (answered after the run's `delayMs`). */
      maxInFlight: number;
    };
