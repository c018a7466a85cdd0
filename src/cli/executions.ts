/**
 * `punctual executions list [job-id] | get <id> | replay [id]`, and the execution output shared
 * with `schedules executions|trigger` and `cron executions|trigger`. The list across jobs and the
 * replays are `execution-filters.ts`.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { Execution, ExecutionListQuery, ExecutionPage, ExecutionPageQuery, PunctualClient } from '../client/index.js';
import { EXECUTION_STATUSES, type JobType } from '../domain/enums.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { filterQuery, registerReplayCommand, withFilterOptions, type FilterOptions } from './execution-filters.js';
import { executionsTable, printExecution } from './execution-output.js';
export { printExecution } from './execution-output.js';
import { NotFound } from './exit.js';
import { integer } from './options.js';
import { out, printJson } from './output.js';

/** Options of the execution lists. */
export interface PageOptions extends ApiOptions {
  limit?: number;
  cursor?: string;
  all?: boolean;
}

/** Adds `--limit`, `--cursor` and `--all` (a list command's paging). */
export function withPageOptions(cmd: Command, what: string, limits: string): Command {
  return cmd
    .addOption(new Option('--limit <n>', `${what} per page (${limits})`).argParser(integer))
    .addOption(new Option('--cursor <cursor>', 'the nextCursor of the previous page'))
    .addOption(new Option('--all', 'follow nextCursor and print every page').conflicts('cursor'));
}

/**
 * Prints a job's executions: one page (`--limit`, `--cursor`) or, with `--all`, every page. With
 * `--json`, the page as the API answered it (with `--all`: every execution in one page whose
 * `nextCursor` is null).
 */
export async function printExecutions<Q extends ExecutionPageQuery | ExecutionListQuery>(
  page: (query: Q) => Promise<ExecutionPage>,
  opts: PageOptions,
): Promise<void> {
  const query = { ...(opts.limit === undefined ? {} : { limit: opts.limit }) } as Q;
  let result: ExecutionPage;
  if (opts.all) {
    const executions: Execution[] = [];
    let cursor: string | null | undefined;
    do {
      const p = await page({ ...query, ...(cursor ? { cursor } : {}) });
      executions.push(...p.executions);
      cursor = p.nextCursor;
    } while (cursor);
    result = { size: executions.length, executions, nextCursor: null };
  } else {
    result = await page({ ...query, ...(opts.cursor === undefined ? {} : { cursor: opts.cursor }) });
  }
  if (opts.json) return printJson(result);
  if (result.executions.length === 0) out('No executions.');
  else out(executionsTable(result.executions));
  if (result.nextCursor) out(`More: --cursor ${result.nextCursor} (or --all)`);
}

/** The schedule or cron job with this id, or NotFound. */
async function findJob(client: PunctualClient, id: string): Promise<JobType> {
  if (await client.schedules.get(id)) return 'schedule';
  if (await client.cron.get(id)) return 'cron';
  throw new NotFound(`no schedule or cron job has the id ${id}`);
}

/** Adds the `executions` command group to `program`. */
export function registerExecutionCommands(program: Command): void {
  const executions = program.command('executions').description('the executions of schedules and cron jobs, with their attempts');

  withFilterOptions(
    withPageOptions(
      withApiOptions(
        executions
          .command('list')
          .argument('[job-id]', "id of a schedule or a cron job: that job's executions only (as --job)")
          .description(
            'list executions, newest first: of one job (its id), or across jobs filtered by --status, --job, --type, ' +
              '--since or --from/--to',
          ),
      ),
      'executions',
      '1–1000, default 100; with a job id and no filter flag: 1–100, default 20',
    ),
    'only executions',
  )
    .addOption(new Option('--status <status>', 'only executions in this status (repeatable: any of them), e.g. failed').argParser(statusList))
    .action(
      action(async (jobId: string | undefined, opts: PageOptions & FilterOptions & { status?: string[] }) => {
        const client = clientFrom(opts);
        const filtered = opts.status !== undefined || opts.job !== undefined || opts.type !== undefined || opts.since !== undefined ||
          opts.from !== undefined || opts.to !== undefined;
        if (jobId !== undefined && !filtered) {
          const kind = await findJob(client, jobId);
          const jobs = kind === 'schedule' ? client.schedules : client.cron;
          return printExecutions((query) => jobs.executions(jobId, query), opts);
        }
        const filter = await filterQuery({ ...opts, job: opts.job ?? jobId });
        const query: ExecutionListQuery = { ...filter, ...(opts.status ? { status: opts.status as ExecutionListQuery['status'] } : {}) };
        await printExecutions<ExecutionListQuery>((q) => client.executions.list({ ...query, ...q }), opts);
      }),
    );

  withApiOptions(
    executions
      .command('get')
      .argument('<id>', 'id of the execution (the webhook-id of its calls)')
      .description('show an execution and each of its attempts'),
  ).action(
    action(async (id: string, opts: ApiOptions) => {
      const execution = await clientFrom(opts).executions.get(id);
      if (execution === null) {
        if (opts.json) printJson(execution);
        throw new NotFound(`no execution has the id ${id} (or it was pruned)`);
      }
      printExecution(execution, opts);
    }),
  );

  registerReplayCommand(executions);
}

/** Collects `--status` values (repeatable), each matched to an execution status whatever its case (`failed` → `Failed`). */
function statusList(value: string, previous: string[] | undefined): string[] {
  const status = EXECUTION_STATUSES.find((s) => s.toLowerCase() === value.trim().toLowerCase());
  if (!status) throw new InvalidArgumentError(`Allowed choices are ${EXECUTION_STATUSES.map((s) => s.toLowerCase()).join(', ')}.`);
  return [...(previous ?? []), status];
}
