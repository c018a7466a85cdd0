/**
 * What every API command shares: `--url` (`PUNCTUAL_URL`), `--token` (`PUNCTUAL_TOKEN`) and
 * `--json`; the client made from them; and the wrapper that turns a failed action into a message
 * on stderr and an exit code (see exit.ts). The token is never printed.
 */
import { Option, type Command } from 'commander';
import { createPunctualClient, type PunctualClient } from '../client/index.js';
import { describeError, exitCodeOf, UsageError } from './exit.js';

/** Options every API command takes. */
export interface ApiOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** Adds `--url`, `--token` and `--json` to `cmd`. */
export function withApiOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--url <url>', 'base URL of the Punctual service, e.g. http://127.0.0.1:8080').env('PUNCTUAL_URL'))
    .addOption(
      new Option('--token <token>', 'API key token (pk_…); prefer the variable, a flag shows in the process list').env(
        'PUNCTUAL_TOKEN',
      ),
    )
    .option('--json', "print the API's JSON answer instead of a table");
}

/**
 * The client for `opts`.
 * @throws UsageError when the URL or the token is missing, or the URL is not an http(s) URL
 */
export function clientFrom(opts: ApiOptions): PunctualClient {
  if (!opts.url) throw new UsageError('no service URL: set PUNCTUAL_URL or pass --url (e.g. http://127.0.0.1:8080)');
  if (!opts.token) {
    throw new UsageError('no API token: set PUNCTUAL_TOKEN or pass --token (`punctual keys create <name>` makes a key)');
  }
  try {
    return createPunctualClient({ baseUrl: opts.url, token: opts.token });
  } catch (err) {
    throw new UsageError(`PUNCTUAL_URL / --url: ${err instanceof Error ? err.message : String(err)}`);
  }
}

/**
 * Wraps a commander action: an error it throws is written to stderr (see `describeError`) and
 * sets the exit code (see `exitCodeOf`). Commander passes the command itself as the last argument.
 */
export function action<A extends unknown[]>(fn: (...args: A) => Promise<void>): (...args: A) => Promise<void> {
  return async (...args: A) => {
    try {
      await fn(...args);
    } catch (err) {
      const cmd = args[args.length - 1] as Command;
      const json = Boolean((cmd.opts() as ApiOptions).json);
      process.stderr.write(`${describeError(err, json)}\n`);
      process.exitCode = exitCodeOf(err);
    }
  };
}
