/** Formatting of instants, durations and JSON for display; conversion of form values. */

/** The browser's IANA time zone (`Europe/Berlin`), or UTC. */
export const LOCAL_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';

/** How finely an instant is shown: to the minute, the second, or the millisecond. */
type Precision = 'minute' | 'second' | 'ms';

const formats = new Map<string, Intl.DateTimeFormat>();
function dateFormat(zone: string, precision: Precision): Intl.DateTimeFormat {
  const key = `${zone}|${precision}`;
  let f = formats.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(undefined, {
      timeZone: zone,
      weekday: 'short',
      year: 'numeric',
      month: 'short',
      day: 'numeric',
      hour: '2-digit',
      minute: '2-digit',
      second: precision === 'minute' ? undefined : '2-digit',
      fractionalSecondDigits: precision === 'ms' ? 3 : undefined,
      hourCycle: 'h23',
    });
    formats.set(key, f);
  }
  return f;
}

function format(iso: string | null, zone: string, precision: Precision): string {
  if (!iso) return '—';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  try {
    return dateFormat(zone, precision).format(d);
  } catch {
    return dateFormat('UTC', precision).format(d) + ' UTC';
  }
}

/** `Mon, 23 Nov 2026, 09:00:00` in `zone` (default: the browser's); without seconds when `seconds` is false. */
export function formatInstant(iso: string | null, zone = LOCAL_ZONE, seconds = true): string {
  return format(iso, zone, seconds ? 'second' : 'minute');
}

/** `Mon, 23 Nov 2026, 09:00:00.123` in `zone` (default: the browser's): an instant to the millisecond, e.g. an attempt's start. */
export function formatInstantMs(iso: string | null, zone = LOCAL_ZONE): string {
  return format(iso, zone, 'ms');
}

const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** `in 5 minutes`, `2 hours ago`, relative to `now` (epoch ms). */
export function formatRelative(iso: string | null, now = Date.now()): string {
  if (!iso) return '';
  const diff = new Date(iso).getTime() - now;
  const abs = Math.abs(diff);
  const units: Array<[Intl.RelativeTimeFormatUnit, number]> = [
    ['day', 86_400_000],
    ['hour', 3_600_000],
    ['minute', 60_000],
    ['second', 1_000],
  ];
  for (const [unit, ms] of units) {
    if (abs >= ms || unit === 'second') return relative.format(Math.round(diff / ms), unit);
  }
  return '';
}

/** `12 ms`, `1.4 s`, `30 s`, `3 min 20 s`, `1 h`. */
export function formatDuration(ms: number | null): string {
  if (ms === null || ms === undefined) return '—';
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${Number((ms / 1_000).toFixed(ms < 10_000 ? 2 : 1))} s`;
  const totalS = Math.round(ms / 1_000);
  const min = Math.floor(totalS / 60);
  const s = totalS % 60;
  if (min < 60) return s ? `${min} min ${s} s` : `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 ? `${h} h ${min % 60} min` : `${h} h`;
}

/** `2026-11-23T09:00:05` (the value of a `datetime-local` input) in the browser's zone, from an ISO instant. */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return (
    `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}` +
    `T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`
  );
}

/** The ISO instant (UTC) of a `datetime-local` value read in the browser's zone; null when invalid. */
export function fromLocalInput(value: string): string | null {
  if (!value) return null;
  const d = new Date(value);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** Every IANA zone the browser knows (for a datalist), or a few when it cannot tell. */
export function timeZones(): string[] {
  const intl = Intl as unknown as { supportedValuesOf?: (key: string) => string[] };
  try {
    const zones = intl.supportedValuesOf?.('timeZone');
    if (zones && zones.length) return zones.includes('UTC') ? zones : ['UTC', ...zones];
  } catch {
    // older browsers
  }
  return ['UTC', 'Europe/London', 'Europe/Berlin', 'America/New_York', 'America/Los_Angeles', 'Asia/Tokyo'];
}
