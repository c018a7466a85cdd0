/**
 * Instants on the wire are ISO 8601 in UTC with milliseconds (`2026-11-21T10:00:00.000Z`);
 * inside the service they are integers, milliseconds since the Unix epoch (UTC).
 */

/** Formats epoch milliseconds (UTC) as `YYYY-MM-DDTHH:mm:ss.sssZ`. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString();
}

/** Like {@link toIso}, passing `null` through. */
export function toIsoOrNull(ms: number | null): string | null {
  return ms === null ? null : toIso(ms);
}

/**
 * RFC 3339 / ISO 8601 date-time with a mandatory `Z` or numeric offset, optional fraction.
 * Date-only and offset-less forms are refused: they name no instant.
 */
const ISO_INSTANT =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-]\d{2}:?\d{2})$/;

/**
 * Parses an ISO 8601 instant that carries `Z` or an offset (RFC 3339 §5.6).
 * @returns epoch milliseconds (UTC), or `null` when the text is not such an instant or names an
 *   impossible calendar date (e.g. `2026-02-30`). Fractions beyond milliseconds are truncated.
 */
export function parseIsoInstant(text: string): number | null {
  const m = ISO_INSTANT.exec(text);
  if (!m) return null;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  if (mo! < 1 || mo! > 12 || d! < 1 || h! > 23 || mi! > 59 || s! > 59) return null;
  const daysInMonth = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  if (d! > daysInMonth) return null;
  const frac = m[7] ? m[7].slice(0, 4) : '';
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${frac}${normaliseOffset(m[8]!)}`);
  return Number.isFinite(ms) ? ms : null;
}

function normaliseOffset(off: string): string {
  if (off === 'Z' || off === 'z') return 'Z';
  return off.includes(':') ? off : `${off.slice(0, 3)}:${off.slice(3)}`;
}
