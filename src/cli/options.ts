/**
 * Parsers and option sets shared by the job commands. A flag whose value cannot even be sent
 * (not an integer, not JSON) is a usage error (exit code 2), raised by commander or, for
 * `--data`, by its parser; ranges and every other rule are the service's to check, and come
 * back as a 400 naming the field.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
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

/** Collects a repeatable option (`--tag a --tag b`) into an array. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

/** The delivery flags of schedules and cron jobs: retries and the timeout of one attempt. */
export interface DeliveryFlags {
  retryMaxAttempts?: number;
  retryInitialDelayMs?: number;
  retryMaxDelayMs?: number;
  timeoutMs?: number;
}

/** Adds `--retry-max-attempts`, `--retry-initial-delay-ms`, `--retry-max-delay-ms` and `--timeout-ms`. */
export function withDeliveryOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--retry-max-attempts <n>', 'attempts in all, the first included (1–20; default 5)').argParser(integer))
    .addOption(
      new Option('--retry-initial-delay-ms <ms>', 'bound of the delay before the first retry (default 1000)').argParser(integer),
    )
    .addOption(new Option('--retry-max-delay-ms <ms>', 'cap of every retry delay (default 3600000)').argParser(integer))
    .addOption(new Option('--timeout-ms <ms>', "timeout of one attempt (1000–900000; default: the service's)").argParser(integer));
}

/** `retry` and `timeoutMs` of a request body from the delivery flags given (absent flags stay absent). */
export function deliveryBody(flags: DeliveryFlags): {
  retry?: { maxAttempts?: number; initialDelayMs?: number; maxDelayMs?: number };
  timeoutMs?: number;
} {
  const retry = {
    ...(flags.retryMaxAttempts === undefined ? {} : { maxAttempts: flags.retryMaxAttempts }),
    ...(flags.retryInitialDelayMs === undefined ? {} : { initialDelayMs: flags.retryInitialDelayMs }),
    ...(flags.retryMaxDelayMs === undefined ? {} : { maxDelayMs: flags.retryMaxDelayMs }),
  };
  return {
    ...(Object.keys(retry).length > 0 ? { retry } : {}),
    ...(flags.timeoutMs === undefined ? {} : { timeoutMs: flags.timeoutMs }),
  };
}

/** The object of `entries` without its undefined values (a PATCH sends only the fields given). */
export function defined<T extends Record<string, unknown>>(entries: T): Partial<T> {
  return Object.fromEntries(Object.entries(entries).filter(([, v]) => v !== undefined)) as Partial<T>;
}
