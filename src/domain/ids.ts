import { randomFillSync } from 'node:crypto';
import { v7 as uuidv7 } from 'uuid';

/** Random bytes drawn at once for {@link newId} (16 per id). */
const POOL_BYTES = 16 * 256;
const pool = new Uint8Array(POOL_BYTES);
let poolOffset = POOL_BYTES;

/** The monotonic state of RFC 9562 §6.2 method 1: the last id's milliseconds and counter. */
const state = { msecs: -Infinity, seq: 0 };

/**
 * A new resource identifier: a UUID version 7 (RFC 9562 §5.7), time-ordered so that new rows
 * land at the end of primary-key indexes, and monotonic within this process: two ids made in the
 * same millisecond compare in the order they were made (a 31-bit counter seeded at random each
 * millisecond, RFC 9562 §6.2 method 1 — what `uuid`'s `v7()` does without options).
 *
 * The `uuid` package lays the bytes out; the random bytes come from a pool refilled 256 ids at a
 * time. Without options, `v7()` asks `crypto.getRandomValues` for 16 bytes per id, which took
 * 9 % of the service's CPU in the bench's burst (profiled with `--cpu-prof`; the dispatcher makes
 * an execution id per claim and an attempt id per call).
 */
export function newId(): string {
  if (poolOffset === POOL_BYTES) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const random = pool.subarray(poolOffset, poolOffset + 16);
  poolOffset += 16;
  const now = Date.now();
  if (now > state.msecs) {
    state.msecs = now;
    state.seq = ((random[6]! & 0x7f) << 24) | (random[7]! << 16) | (random[8]! << 8) | random[9]!;
  } else {
    state.seq = (state.seq + 1) | 0;
    if (state.seq === 0) state.msecs++; // counter wrapped: borrow the next millisecond
  }
  return uuidv7({ msecs: state.msecs, seq: state.seq, random });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `text` has the 8-4-4-4-12 hexadecimal form of a UUID (any version). */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
