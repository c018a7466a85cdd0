/**
 * The filter flags of `punctual executions list` and `punctual executions replay` (`--job`,
 * `--type`, `--since`, `--from`, `--to`), and `executions replay [id]`: one Failed execution, or
 * every Failed execution the flags name (docs/cli.md, "Executions").
 */
import { Option, type Command } from 'commander';
import type { ExecutionsReplayFilter } from '../client/index.js';
import { JOB_TYPES } from '../domain/enums.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { UsageError } from './exit.js';
import { printExecution } from './execution-output.js';
import { out, printJson } from './output.js';

/** The filter flags as commander gives them. */
export interface FilterOptions {
  job?: string;
  type?: (typeof JOB_TYPES)[number];
  /** A duration (`2h`, `30m`, `7d`): from that long ago. */
  since?: string;
  from?: string;
  to?: string;
}

/** Adds the filter flags; `what` starts their help (e.g. `only executions`). */
export function withFilterOptions(cmd: Command, what: string): Command {
  return cmd
    .addOption(new Option('--job <id>', `${what} of this schedule or cron job`))
    .addOption(new Option('--type <type>', `${what} of this kind of job`).choices(JOB_TYPES))
    .addOption(new Option('--since <duration>', `${what} scheduled for the last <duration> (e.g. 30m, 2h, 7d)`).conflicts('from'))
    .addOption(new Option('--from <instant>', `${what} scheduled for this instant or later (ISO 8601)`))
    .addOption(new Option('--to <instant>', `${what} scheduled for before this instant (ISO 8601)`));
}

/**
 * The filter of the flags, as the API takes it: `--since` becomes `from` = now − the duration
 * (the duration parser of the configuration: `500ms`, `30s`, `15m`, `12h`, `7d`). Instants are
 * passed as given: the service checks them (a 400 naming the field).
 * @throws UsageError (exit code 2) for a `--since` that is not such a duration
 */
export async function filterQuery(opts: FilterOptions): Promise<ExecutionsReplayFilter> {
  let from = opts.from;
  if (opts.since !== undefined) {
    // config.ts is loaded only by the commands that need it (docs/architecture.md, the CLI's row).
    const { parseDuration } = await import('../config.js');
    const ms = parseDuration(opts.since);
    if (ms === null) throw new UsageError(`--since '${opts.since}' is not a duration (e.g. 30m, 2h, 7d).`);
    from = new Date(Date.now() - ms).toISOString();
  }
  return {
    ...(opts.job === undefined ? {} : { jobId: opts.job }),
    ...(opts.type === undefined ? {} : { jobType: opts.type }),
    ...(from === undefined ? {} : { from }),
    ...(opts.to === undefined ? {} : { to: opts.to }),
  };
}

/** Adds `executions replay [id]` to the `executions` group. */
export function registerReplayCommand(executions: Command): void {
  withFilterOptions(
    withApiOptions(
      executions
        .command('replay')
        .argument('[id]', 'id of a Failed execution')
        .description(
          'replay a Failed execution (its attempt numbers continue, the same webhook-id, a fresh attempt budget), or, ' +
            'without an id, every Failed execution the filter flags name (at least one; at most 10,000 at once)',
        ),
    ),
    'replay the Failed executions',
  ).action(
    action(async (id: string | undefined, opts: ApiOptions & FilterOptions) => {
      const client = clientFrom(opts);
      const filter = await filterQuery(opts);
      if (id !== undefined) {
        if (Object.keys(filter).length > 0) throw new UsageError('give an execution id or filter flags, not both.');
        return printExecution(await client.executions.replay(id), opts);
      }
      if (Object.keys(filter).length === 0) {
        throw new UsageError('give an execution id, or at least one of --job, --type, --since, --from, --to.');
      }
      const result = await client.executions.replayMany(filter);
      if (opts.json) return printJson(result);
      out(`replayed ${result.count} execution${result.count === 1 ? '' : 's'}`);
    }),
  );
}
