/**
 * Parsers and option sets shared by the job commands. A flag whose value cannot even be sent
 * (not an integer, not JSON) is a usage error (exit code 2), raised by commander or, for
 * `--data`, by its parser; ranges and every other rule are the service's to check, and come
 * back as a 400 naming the field.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import { HTTP_METHODS } from '../domain/enums.js';
import { parseSuccessStatuses, type SuccessStatus } from '../domain/success-statuses.js';
import { UsageError } from './exit.js';

/** Parses a whole number (`--timeout-ms 5000`). */
export function integer(value: string): number {
  if (!/^-?\d+$/.test(value.trim())) throw new InvalidArgumentError('It must be a whole number.');
  return Number(value);
}

/**
 * Parses `--data`: a JSON value (the service requires an object).
 * @throws UsageError (exit code 2) naming the flag and the parser's reason, as one sentence:
 *   `--data '{bad' is not valid JSON (Expected property name … at position 1).` It is not a
 *   commander error, which would prefix "option '--data <json>' argument '{bad' is invalid."
 */
export function json(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch (err) {
    const reason = err instanceof Error ? err.message.replace(/\.$/, '') : String(err);
    throw new UsageError(`--data '${value}' is not valid JSON (${reason}).`);
  }
}

const DELAY_UNIT_MS: Record<string, number> = { '': 1, ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * A duration of a flag: a whole number of ms, or a whole number with a unit `ms`, `s`, `m`, `h`
 * or `d` (`1500`, `1500ms`, `30s`, `5m`, `2h`, `1d`).
 * @returns the ms, or null when `text` is not such a duration
 */
export function durationMs(text: string): number | null {
  const m = /^(\d+)(ms|s|m|h|d)?$/.exec(text.trim());
  return m ? Number(m[1]) * DELAY_UNIT_MS[m[2] ?? '']! : null;
}

/**
 * Parses `--retry-delays`: the steps of a retry policy, comma-separated delays in ms or with a
 * unit (`5s,5m,30m,2h`), or `none` for the exponential rule (`delaysMs: null`). The service checks
 * the bounds (docs/calls.md, "Outcomes and retries").
 * @returns the steps in ms, or `'none'` (commander would turn a null into an empty string)
 * @throws InvalidArgumentError (a usage error) for an item that is not such a delay
 */
export function retryDelays(value: string): number[] | 'none' {
  if (value.trim().toLowerCase() === 'none') return 'none';
  return value.split(',').map((item) => {
    const ms = durationMs(item);
    if (ms === null) throw new InvalidArgumentError("It must be delays separated by commas, like '5s,5m,30m' or '5000,300000', or 'none'.");
    return ms;
  });
}

/** Collects a repeatable option (`--tag a --tag b`) into an array. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/**
 * Parses one `--header 'Name: value'` (repeatable) into the headers so far: the name is what
 * comes before the first colon, trimmed; the value what follows, without surrounding spaces.
 * The service checks names and values (docs/calls.md).
 * @throws InvalidArgumentError (a usage error) when there is no colon or no name
 */
export function header(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const colon = value.indexOf(':');
  const name = colon < 0 ? '' : value.slice(0, colon).trim();
  if (name === '') throw new InvalidArgumentError("It must be 'Name: value'.");
  return { ...(previous ?? {}), [name]: value.slice(colon + 1).trim() };
}

/**
 * The delivery flags of schedules and cron jobs: retries, the timeout of one attempt, and the
 * request of the calls (method, headers, body).
 */
export interface DeliveryFlags {
  retryMaxAttempts?: number;
  retryInitialDelayMs?: number;
  retryMaxDelayMs?: number;
  /** `--retry-delays`: the steps in ms, or `'none'` (the exponential rule: `delaysMs` null). */
  retryDelays?: number[] | 'none';
  timeoutMs?: number;
  method?: (typeof HTTP_METHODS)[number];
  header?: Record<string, string>;
  body?: string;
  successStatuses?: SuccessStatus[];
}

/**
 * Adds `--retry-max-attempts`, `--retry-delays`, `--retry-initial-delay-ms`, `--retry-max-delay-ms`, `--timeout-ms`,
 * `--method`, `--header` (repeatable; on `update` the headers given replace the job's), `--body`
 * and `--success-statuses` (a list like `2xx,302`, src/domain/success-statuses.ts).
 */
export function withDeliveryOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--method <method>', 'HTTP method of the calls (default POST)').choices(HTTP_METHODS))
    .addOption(
      new Option('--header <header>', "a header sent on every call, 'Name: value' (repeatable; on update, replaces the job's headers)")
        .argParser(header),
    )
    .addOption(new Option('--body <text>', 'text sent as the body instead of the JSON of --data (content type from --header)'))
    .addOption(new Option('--retry-max-attempts <n>', "attempts in all, the first included (1–20; default: the service's, 8)").argParser(integer))
    .addOption(
      new Option('--retry-delays <list>', "delays before retries 1, 2, … ('5s,5m,30m,2h'; ±20 % jitter), or 'none' for exponential backoff")
        .argParser(retryDelays),
    )
    .addOption(
      new Option('--retry-initial-delay-ms <ms>', 'exponential backoff: bound of the delay before the first retry (default 1000)').argParser(integer),
    )
    .addOption(
      new Option('--retry-max-delay-ms <ms>', 'cap of Retry-After and of exponential delays (exponential without --retry-delays)').argParser(integer),
    )
    .addOption(new Option('--timeout-ms <ms>', "timeout of one attempt (1000–900000; default: the service's)").argParser(integer))
    .addOption(
      new Option('--success-statuses <list>', 'status codes and classes that count as success, e.g. 2xx,302 (default 2xx)').argParser(
        parseSuccessStatuses,
      ),
    );
}

/**
 * `retry`, `timeoutMs`, `method`, `headers`, `body` and `successStatuses` of a request body from
 * the delivery flags given (absent flags stay absent).
 */
export function deliveryBody(flags: DeliveryFlags): {
  retry?: { maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number; delaysMs?: number[] | null };
  timeoutMs?: number;
  method?: DeliveryFlags['method'];
  headers?: Record<string, string>;
  body?: string;
  successStatuses?: SuccessStatus[];
} {
  const retry = {
    ...(flags.retryMaxAttempts === undefined ? {} : { maxAttempts: flags.retryMaxAttempts }),
    ...(flags.retryInitialDelayMs === undefined ? {} : { initialDelayMs: flags.retryInitialDelayMs }),
    ...(flags.retryMaxDelayMs === undefined ? {} : { maxDelayMs: flags.retryMaxDelayMs }),
    ...(flags.retryDelays === undefined ? {} : { delaysMs: flags.retryDelays === 'none' ? null : flags.retryDelays }),
  };
  return {
    ...(Object.keys(retry).length > 0 ? { retry } : {}),
    ...(flags.timeoutMs === undefined ? {} : { timeoutMs: flags.timeoutMs }),
    ...defined({ method: flags.method, headers: flags.header, body: flags.body, successStatuses: flags.successStatuses }),
  };
}

/** The object of `entries` without its undefined values (a PATCH sends only the fields given). */
export function defined<T extends Record<string, unknown>>(entries: T): Partial<T> {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as Partial<T>;
}
