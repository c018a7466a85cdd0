/**
 * How an attempt is labelled in `punctual_attempts_total` (docs/metrics.md), from the outcome the
 * dispatcher recorded (`dispatch:delivered`). The kinds follow the retry rules of
 * src/dispatch/call/retry.ts and the error texts of src/dispatch/call/deliver.ts.
 */
import type { AttemptOutcome } from '../domain/types.js';

/**
 * What an attempt produced:
 * - `success`: a 2xx answer (by its class, whatever the job's `successStatuses`: a listed 302 is
 *   an `http_error` of class `3xx` here, and its execution a `succeeded` one);
 * - `http_error`: any other answer (3xx, 4xx, 5xx; see `status_class`);
 * - `timeout`: no answer within the job's `timeoutMs` (deliver.ts: `timeout after … ms`);
 * - `refused`: the SSRF guard refused the address (`refused: …`), never retried;
 * - `connection_error`: no answer for another reason (DNS, refused connection, reset…).
 */
export type AttemptResultLabel = 'success' | 'http_error' | 'timeout' | 'connection_error' | 'refused';

/** `2xx` … `5xx` for an answer (`1xx` too, in theory), `none` when no answer came. */
export type StatusClassLabel = `${1 | 2 | 3 | 4 | 5}xx` | 'none';

/** The labels of one attempt in `punctual_attempts_total`. */
export interface AttemptLabels {
  result: AttemptResultLabel;
  status_class: StatusClassLabel;
}

/** Labels `outcome` (see {@link AttemptResultLabel}). */
export function attemptLabels(outcome: Pick<AttemptOutcome, 'statusCode' | 'error'>): AttemptLabels {
  const code = outcome.statusCode;
  if (code !== null) {
    const cls = Math.min(5, Math.max(1, Math.floor(code / 100))) as 1 | 2 | 3 | 4 | 5;
    return { result: cls === 2 ? 'success' : 'http_error', status_class: `${cls}xx` };
  }
  const error = outcome.error ?? '';
  const result: AttemptResultLabel = error.startsWith('refused')
    ? 'refused'
    : error.startsWith('timeout')
      ? 'timeout'
      : 'connection_error';
  return { result, status_class: 'none' };
}
