/**
 * Size limits of what a client may send (docs/security.md). Each is configurable (`config.ts`,
 * `PUNCTUAL_MAX_*`; docs/configuration.md). They keep one request from costing the service
 * (or the receivers of its calls) more than a bounded amount of memory, storage and parsing, and
 * they are checked before anything expensive is done with a value (a 1 MiB string is never
 * parsed as a URL or a cron expression).
 *
 * Lengths count characters as JSON Schema does: Unicode code points (an emoji is one character,
 * not two UTF-16 units). Sizes are bytes of UTF-8.
 */

/** The limits; every field is inclusive (exactly the limit is accepted). */
export interface InputLimits {
  /** Largest request body, bytes (`PUNCTUAL_MAX_BODY_BYTES`, default 1 MiB); larger: 413. */
  bodyBytes: number;
  /** Largest `data`, bytes of its JSON serialisation (`PUNCTUAL_MAX_DATA_BYTES`, default 256 KiB); larger: 400 on `/data`. */
  dataBytes: number;
  /** Longest `name` of a schedule, cron job or API key, characters (`PUNCTUAL_MAX_NAME_LENGTH`, default 256). */
  nameLength: number;
  /** Most `tags` of a schedule (`PUNCTUAL_MAX_TAGS`, default 32). */
  tags: number;
  /** Longest tag, characters (`PUNCTUAL_MAX_TAG_LENGTH`, default 64). */
  tagLength: number;
  /** Longest `endpoint`, characters (`PUNCTUAL_MAX_ENDPOINT_LENGTH`, default 2,048). */
  endpointLength: number;
  /** Longest cron `expression`, characters (`PUNCTUAL_MAX_EXPRESSION_LENGTH`, default 256). */
  expressionLength: number;
  /**
   * How far in the past a schedule's `scheduledAt` may be, ms (`PUNCTUAL_MAX_PAST`, default 365
   * days); further: 400 on `/scheduledAt` (a typo, not an intent). A nearer past instant runs at once.
   */
  maxPastMs: number;
  /** Most schedules in one `POST /schedules/batch` (`PUNCTUAL_MAX_BATCH`, default 1,000); more: 400 on `/schedules`. */
  batch: number;
}

/** The defaults (docs/security.md, "Limits of what a client may send"). */
export const DEFAULT_LIMITS: Readonly<InputLimits> = Object.freeze({
  bodyBytes: 1_048_576,
  dataBytes: 262_144,
  nameLength: 256,
  tags: 32,
  tagLength: 64,
  endpointLength: 2_048,
  expressionLength: 256,
  maxPastMs: 365 * 86_400_000,
  batch: 1_000,
});

/**
 * True when `text` has more than `max` characters (Unicode code points). Cheap for any length:
 * decided from the UTF-16 length alone unless `text` is between `max` and `2·max` units long.
 */
export function exceedsLength(text: string, max: number): boolean {
  if (text.length <= max) return false; // code points ≤ UTF-16 units
  if (text.length > 2 * max) return true; // code points ≥ units / 2
  let points = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    if (++points > max) return true;
  }
  return false;
}

/** The message for a string longer than `max` characters. */
export function lengthMessage(max: number): string {
  return `must be at most ${max} characters`;
}

/**
 * The size in bytes of `JSON.stringify(value)` encoded as UTF-8, computed without building the
 * string and without recursion (any nesting depth is safe), stopping early once it passes `stop`.
 * @param value a JSON value (as parsed from JSON: no `undefined`, functions or cycles)
 * @returns the size, or a number greater than `stop` as soon as the size is known to exceed it
 */
export function jsonByteLength(value: unknown, stop = Number.POSITIVE_INFINITY): number {
  let bytes = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v === 'boolean' || typeof v === 'number') {
      bytes += JSON.stringify(v).length; // ASCII only
    } else if (typeof v === 'string') {
      bytes += Buffer.byteLength(JSON.stringify(v), 'utf8');
    } else if (Array.isArray(v)) {
      bytes += 2 + Math.max(0, v.length - 1); // brackets and commas
      for (const item of v) stack.push(item);
    } else if (typeof v === 'object') {
      const keys = Object.keys(v);
      bytes += 2 + Math.max(0, keys.length - 1) + keys.length; // braces, commas, colons
      for (const key of keys) {
        bytes += Buffer.byteLength(JSON.stringify(key), 'utf8');
        stack.push((v as Record<string, unknown>)[key]);
      }
    }
    if (bytes > stop) return bytes;
  }
  return bytes;
}

/** The message for a `data` larger than `max` bytes. */
export function dataSizeMessage(max: number): string {
  return `must be at most ${max} bytes when serialised as JSON`;
}

/** The message for more than `max` tags. */
export function tagCountMessage(max: number): string {
  return `must have at most ${max} tags`;
}

/**
 * True when `text` encoded as UTF-8 is more than `max` bytes. Cheap for any length: decided from
 * the UTF-16 length alone unless `text` is between `max / 3` and `max` units long.
 */
export function exceedsBytes(text: string, max: number): boolean {
  if (text.length * 3 <= max) return false; // at most 3 bytes per UTF-16 unit
  if (text.length > max) return true; // at least 1 byte per unit
  return Buffer.byteLength(text, 'utf8') > max;
}
