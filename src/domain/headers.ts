/**
 * The header-name policy of a job's calls, shared by the service (which refuses a job's headers
 * that break it) and the dispatcher (which builds the request): which names are tokens, which are
 * Punctual's own or belong to the connection, and the limits. Rules in docs/calls.md ("Headers").
 */

/** Most headers a job may set. */
export const MAX_JOB_HEADERS = 32;

/** Largest value of one header, bytes of UTF-8 (8 KiB). */
export const MAX_HEADER_VALUE_BYTES = 8_192;

/**
 * Header names a job may not set, lowercase: those of the connection and of its framing
 * (RFC 9110 section 7.6.1, RFC 9112 section 6), which the HTTP client writes itself, and
 * Punctual's own, which every attempt carries (the Standard Webhooks trio, and the W3C Trace
 * Context of the attempt: `traceparent`, with `tracestate`, which only the sender of a
 * `traceparent` may give; domain/trace-context.ts). Names starting with one of
 * {@link RESERVED_HEADER_PREFIXES} are refused too.
 */
export const RESERVED_HEADER_NAMES: readonly string[] = [
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'trailer',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
  'traceparent',
  'tracestate',
];

/** Prefixes (lowercase) of header names a job may not set: proxy headers and Punctual's own. */
export const RESERVED_HEADER_PREFIXES: readonly string[] = ['proxy-', 'punctual-'];

/** RFC 9110 section 5.6.2: `token = 1*tchar`. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** True when `name` is an RFC 9110 token, the syntax of a header name. */
export function isHeaderName(name: string): boolean {
  return TOKEN.test(name);
}

/** True when a job may not set the header `name` (any case): see {@link RESERVED_HEADER_NAMES}. */
export function isReservedHeader(name: string): boolean {
  const lower = name.toLowerCase();
  return RESERVED_HEADER_NAMES.includes(lower) || RESERVED_HEADER_PREFIXES.some((p) => lower.startsWith(p));
}

/**
 * Why a header value cannot be sent, or null: it must hold only visible ASCII characters, spaces
 * and horizontal tabs (RFC 9110 section 5.5, without `obs-text`), so no CR, LF or NUL can split
 * or cut the request, and at most {@link MAX_HEADER_VALUE_BYTES} bytes.
 */
export function headerValueProblem(value: string): string | null {
  if (Buffer.byteLength(value, 'utf8') > MAX_HEADER_VALUE_BYTES) return `must be at most ${MAX_HEADER_VALUE_BYTES} bytes`;
  if (/[\r\n\0]/.test(value)) return 'must not contain CR, LF or NUL characters';
  if (/[^\t\x20-\x7e]/.test(value)) return 'must contain only visible ASCII characters, spaces and tabs';
  return null;
}

/** The value of header `name` in `headers`, matched ignoring case, or undefined. */
export function headerValue(headers: Readonly<Record<string, string>>, name: string): string | undefined {
  const lower = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === lower) return value;
  return undefined;
}
