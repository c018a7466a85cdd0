/**
 * W3C Trace Context (W3C Recommendation, version `00`) for the calls Punctual makes: the ids of an
 * attempt and its `traceparent` header (docs/calls.md, "Trace Context"). One trace per execution,
 * one span per attempt:
 * - the trace id is the execution id's 32 hex digits (a UUID v7 is 128 bits), so every attempt of
 *   an execution, on any node, after restarts and retries, is in the same trace, and the trace id
 *   can be computed from the execution id alone;
 * - the span id (the `parent-id` the receiver sees) is 8 random bytes, new for each attempt.
 *
 * Cheap by design, since it runs once per call whether traces are exported or not: a span id is 8
 * bytes of a pooled random buffer as hex, the header a string concatenation.
 */
import { createHash, randomFillSync } from 'node:crypto';

/** The name of the header (lowercase, as sent). */
export const TRACEPARENT = 'traceparent';

/** A UUID in its canonical lowercase form (as `domain/ids.ts` makes them). */
const CANONICAL_UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A trace id: 32 lowercase hex digits (16 bytes), never all zeros. */
const TRACE_ID = /^[0-9a-f]{32}$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** The ids of one attempt's span: `traceId` 32 lowercase hex digits, `spanId` 16, neither all zeros. */
export interface AttemptTraceIds {
  traceId: string;
  spanId: string;
}

/**
 * The trace id of an execution's attempts: its id without dashes, in lowercase, when that is 32
 * hex digits and not all zeros (every UUID, so every execution Punctual makes); otherwise the
 * first 16 bytes of the SHA-256 of the id, as hex (an id from elsewhere, e.g. a copied store).
 */
export function traceIdOf(executionId: string): string {
  // The common case, a UUID as Punctual writes it, without a copy per dash.
  if (executionId.length === 36 && CANONICAL_UUID.test(executionId)) {
    const id = executionId;
    const hex = id.slice(0, 8) + id.slice(9, 13) + id.slice(14, 18) + id.slice(19, 23) + id.slice(24);
    if (hex !== ZERO_TRACE_ID) return hex;
  }
  const hex = executionId.replaceAll('-', '').toLowerCase();
  if (TRACE_ID.test(hex) && hex !== ZERO_TRACE_ID) return hex;
  return createHash('sha256').update(executionId).digest('hex').slice(0, 32);
}

/** Random bytes from the CSPRNG, 4 KiB at a time, kept as hex and handed out 16 digits (8 bytes) at a time. */
const pool = Buffer.allocUnsafe(4096);
let poolHex = '';
let poolOffset = 0;

/** A new span id: 8 random bytes as 16 lowercase hex digits, never all zeros. */
export function newSpanId(): string {
  for (;;) {
    if (poolOffset + 16 > poolHex.length) {
      poolHex = randomFillSync(pool).toString('hex');
      poolOffset = 0;
    }
    const id = poolHex.slice(poolOffset, poolOffset + 16);
    poolOffset += 16;
    if (id !== ZERO_SPAN_ID) return id;
  }
}

/** The ids of a new attempt of execution `executionId`: {@link traceIdOf} and a {@link newSpanId}. */
export function attemptTraceIds(executionId: string): AttemptTraceIds {
  return { traceId: traceIdOf(executionId), spanId: newSpanId() };
}

/**
 * The value of `traceparent` (version `00`): `00-<trace id>-<span id>-<flags>`, flags `01`
 * (sampled: the attempt's span is recorded and exported) or `00` (traces are not exported).
 */
export function traceparent(ids: AttemptTraceIds, sampled: boolean): string {
  return `00-${ids.traceId}-${ids.spanId}-${sampled ? '01' : '00'}`;
}

/** A `traceparent` header as read: the caller's trace id, its span id, and its sampled flag. */
export interface ParsedTraceparent extends AttemptTraceIds {
  sampled: boolean;
}

/** version "-" trace-id "-" parent-id "-" trace-flags, all lowercase hex (W3C Trace Context, 3.2.2). */
const TRACEPARENT_FORMAT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;

/**
 * Reads a `traceparent` header (W3C Trace Context, 3.2 and 4.3): null when it is absent or not
 * valid — version `ff`, a version `00` value of other than 55 characters, uppercase hex, or an
 * all-zero trace id or parent id. A later version is read by its first four fields (anything
 * after them must start with `-`), as the Recommendation asks.
 */
export function parseTraceparent(value: string | undefined): ParsedTraceparent | null {
  if (value === undefined) return null;
  const m = TRACEPARENT_FORMAT.exec(value.trim());
  if (!m) return null;
  const [, version, traceId, spanId, flags, rest] = m as unknown as [string, string, string, string, string, string | undefined];
  if (version === 'ff' || (version === '00' && rest !== undefined)) return null;
  if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return null;
  return { traceId, spanId, sampled: (parseInt(flags, 16) & 1) === 1 };
}
