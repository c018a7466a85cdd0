/**
 * A small, strict reader of the Prometheus text exposition format 0.0.4 (what `GET /metrics`
 * answers), for the metrics tests: prom-client writes the format but has no parser. Any line that
 * is not a comment, a blank line or a well-formed sample is an error, so a malformed answer fails
 * the test instead of being skipped.
 */

/** One sample line: `name{label="value",…} value`. */
export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

/** A parsed exposition: the samples, and each metric family's `# TYPE` and `# HELP`. */
export interface Exposition {
  samples: Sample[];
  types: Map<string, string>;
  helps: Map<string, string>;
}

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

function parseValue(text: string, line: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  if (/^nan$/i.test(text)) return NaN;
  const n = Number(text);
  if (text === '' || !Number.isFinite(n)) throw new Error(`bad sample value in: ${line}`);
  return n;
}

/** Parses `text`; throws on any malformed line. */
export function parseExposition(text: string): Exposition {
  const samples: Sample[] = [];
  const types = new Map<string, string>();
  const helps = new Map<string, string>();
  for (const line of text.split('\n')) {
    if (line.trim() === '') continue;
    if (line.startsWith('#')) {
      const m = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.*)$/.exec(line);
      if (m) (m[1] === 'TYPE' ? types : helps).set(m[2]!, m[3]!);
      continue;
    }
    const name = NAME.exec(line)?.[0];
    if (name === undefined) throw new Error(`bad sample line: ${line}`);
    let i = name.length;
    const labels: Record<string, string> = {};
    if (line[i] === '{') {
      i++;
      while (line[i] !== '}') {
        const label = LABEL_NAME.exec(line.slice(i))?.[0];
        if (label === undefined || line[i + label.length] !== '=' || line[i + label.length + 1] !== '"') {
          throw new Error(`bad label in: ${line}`);
        }
        i += label.length + 2;
        let value = '';
        for (;;) {
          const c = line[i];
          if (c === undefined) throw new Error(`unterminated label value in: ${line}`);
          i++;
          if (c === '"') break;
          if (c === '\\') {
            const e = line[i++];
            value += e === 'n' ? '\n' : e === '\\' ? '\\' : e === '"' ? '"' : `\\${e ?? ''}`;
          } else value += c;
        }
        labels[label] = value;
        if (line[i] === ',') i++;
        else if (line[i] !== '}') throw new Error(`bad label list in: ${line}`);
      }
      i++;
    }
    if (line[i] !== ' ') throw new Error(`no value in: ${line}`);
    const [valueText, timestamp, ...rest] = line.slice(i + 1).split(' ');
    if (rest.length > 0 || (timestamp !== undefined && !/^-?\d+$/.test(timestamp))) throw new Error(`bad sample line: ${line}`);
    samples.push({ name, labels, value: parseValue(valueText!, line) });
  }
  return { samples, types, helps };
}

/** The samples named `name` whose labels include every pair of `labels`. */
export function samplesOf(e: Exposition, name: string, labels: Record<string, string> = {}): Sample[] {
  return e.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
}

/**
 * The value of the one sample named `name` with exactly `labels`; throws when there is none or
 * several (a test asking for a series expects exactly that series).
 */
export function valueOf(e: Exposition, name: string, labels: Record<string, string> = {}): number {
  const found = e.samples.filter(
    (s) => s.name === name && Object.keys(s.labels).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  );
  if (found.length !== 1) throw new Error(`${found.length} samples ${name}${JSON.stringify(labels)}`);
  return found[0]!.value;
}
