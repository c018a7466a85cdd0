/**
 * What the console's cron helper hands to cronstrue, and its own reading of `@every`
 * (docs/cron.md, "Every accepted form"). cronstrue reads `L`, `LW`, `nW`, `nL` and `n#k` itself;
 * this spells out what it reads differently: nicknames, `FRI#L` (written `FRIL` for it), and steps
 * larger than their range (Vixie cron: only the range's start, which cronstrue would call
 * "every 100 days").
 */

const NICKNAMES: Record<string, string> = {
  '@yearly': '0 0 1 1 *',
  '@annually': '0 0 1 1 *',
  '@monthly': '0 0 1 * *',
  '@weekly': '0 0 * * 0',
  '@daily': '0 0 * * *',
  '@midnight': '0 0 * * *',
  '@hourly': '0 * * * *',
};

/** Lowest and highest value `*` stands for, per field of a 6-field expression. */
const BOUNDS: Array<[number, number]> = [
  [0, 59],
  [0, 59],
  [0, 23],
  [1, 31],
  [1, 12],
  [0, 6],
];

const UNITS: Array<[string, string]> = [
  ['d', 'day'],
  ['h', 'hour'],
  ['m', 'minute'],
  ['s', 'second'],
];

/**
 * The reading of `@every <duration>` ("Every 1 hour 30 minutes, counted from the job's start"),
 * or null when `expression` is not one Punctual accepts the shape of (the service has the last word).
 */
export function describeEvery(expression: string): string | null {
  const m = /^@every\s+(?:(\d+)d)?(?:(\d+)h)?(?:(\d+)m)?(?:(\d+)s)?$/i.exec(expression.trim());
  if (!m || m.slice(1).every((p) => p === undefined)) return null;
  const parts: string[] = [];
  UNITS.forEach(([, name], i) => {
    const n = m[i + 1] === undefined ? 0 : Number(m[i + 1]);
    if (n > 0) parts.push(`${n} ${name}${n === 1 ? '' : 's'}`);
  });
  if (parts.length === 0) return null;
  return `Every ${parts.join(' ')}, counted from the job's start (absolute time: DST does not apply)`;
}

/** `expression` rewritten for cronstrue: nicknames spelt out, `X#L` as `XL`, large steps as their start. */
export function forCronstrue(expression: string): string {
  const expr = expression.trim();
  const nick = NICKNAMES[expr.toLowerCase()];
  if (nick) return nick;
  const fields = expr.split(/\s+/);
  if (fields.length !== 5 && fields.length !== 6) return expr;
  const offset = fields.length === 5 ? 1 : 0;
  return fields
    .map((field, i) => {
      const [lo, hi] = BOUNDS[i + offset]!;
      return field
        .split(',')
        .map((item) => rewriteItem(item, lo, hi))
        .join(',');
    })
    .join(' ');
}

function rewriteItem(item: string, lo: number, hi: number): string {
  const nthLast = /^([0-9]+|[a-z]+)#l$/i.exec(item);
  if (nthLast) return `${nthLast[1]}L`;
  const step = /^(\*|[0-9]+)(?:-([0-9]+))?\/([0-9]+)$/.exec(item);
  if (!step) return item;
  const from = step[1] === '*' ? lo : Number(step[1]);
  const to = step[2] !== undefined ? Number(step[2]) : hi;
  return Number(step[3]) > to - from ? String(from) : item;
}
