/**
 * What counts as success for a job's calls (docs/calls.md, "What counts as success"): its
 * `successStatuses`, a list of HTTP status codes (100–599) and status classes (`1xx` … `5xx`).
 * An answer whose status is listed, by code or by class, is a success; any other answer follows
 * the retry rules of src/dispatch/call/retry.ts. Pure: shared by the service (the checks), the
 * dispatcher (the classification) and the CLI (the flag).
 */
import type { FieldProblem } from './errors.js';

/** The status classes a list may hold, `1xx` … `5xx`. */
export const STATUS_CLASSES = ['1xx', '2xx', '3xx', '4xx', '5xx'] as const;
/** One of {@link STATUS_CLASSES}. */
export type StatusClass = (typeof STATUS_CLASSES)[number];

/** An item of `successStatuses`: a status code (an integer, 100–599) or a {@link StatusClass}. */
export type SuccessStatus = number | StatusClass;

/** The list of a job that gives none: every 2xx, as before the field existed. */
export const DEFAULT_SUCCESS_STATUSES: readonly SuccessStatus[] = ['2xx'];

/** Most items a list may hold. */
export const SUCCESS_STATUSES_MAX = 50;

/** Lowest and highest status code an item may name (RFC 9110 §15: three digits, 1xx–5xx). */
export const STATUS_CODE_LIMITS = { min: 100, max: 599 } as const;

/**
 * Whether an answer with `statusCode` is a success for a job with `list`: the code is listed, or
 * its class (`Math.floor(code / 100)` followed by `xx`) is.
 */
export function isListedSuccess(statusCode: number, list: readonly SuccessStatus[]): boolean {
  const cls = `${Math.floor(statusCode / 100)}xx`;
  return list.some((item) => item === statusCode || item === cls);
}

/**
 * Why a `successStatuses` value breaks the rules, as field problems (`path` for the whole list,
 * `path/N` for item N, 0-based), or an empty list: an array of 1 to {@link SUCCESS_STATUSES_MAX}
 * items, each an integer from 100 to 599 or one of {@link STATUS_CLASSES}, none repeated.
 */
export function successStatusesProblems(path: string, value: unknown): FieldProblem[] {
  if (!Array.isArray(value)) return [{ path, message: 'must be an array of status codes (100–599) and classes (1xx–5xx)' }];
  if (value.length === 0) return [{ path, message: 'must list at least one status code or class' }];
  if (value.length > SUCCESS_STATUSES_MAX) return [{ path, message: `must have at most ${SUCCESS_STATUSES_MAX} items` }];
  const out: FieldProblem[] = [];
  const seen = new Set<unknown>();
  value.forEach((item: unknown, i) => {
    const at = `${path}/${i}`;
    if (typeof item === 'number') {
      if (!Number.isInteger(item) || item < STATUS_CODE_LIMITS.min || item > STATUS_CODE_LIMITS.max) {
        out.push({ path: at, message: `must be an integer status code from ${STATUS_CODE_LIMITS.min} to ${STATUS_CODE_LIMITS.max}` });
        return;
      }
    } else if (typeof item !== 'string' || !(STATUS_CLASSES as readonly string[]).includes(item)) {
      out.push({ path: at, message: `must be a status code (${STATUS_CODE_LIMITS.min}–${STATUS_CODE_LIMITS.max}) or one of ${STATUS_CLASSES.join(', ')}` });
      return;
    }
    if (seen.has(item)) out.push({ path: at, message: `repeats ${JSON.stringify(item)}` });
    seen.add(item);
  });
  return out;
}

/**
 * A list as a command line gives it (`2xx,302`): comma-separated items, whitespace ignored, an
 * item of digits a status code, any other as written (the API checks the list).
 */
export function parseSuccessStatuses(text: string): SuccessStatus[] {
  return text
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
    .map((s) => (/^\d+$/.test(s) ? Number(s) : (s as StatusClass)));
}
