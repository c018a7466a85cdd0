/**
 * What the commands of both job kinds, `punctual schedules` (schedules.ts) and `punctual cron`
 * (cron.ts), do alike: the commands `create`, `list`, `get`, `update`, `delete`, `trigger` and
 * `executions`, which each group's module adds in the order of its help with a
 * {@link JobCommandKind} that names its kind and prints its jobs (and, for `create` and `update`,
 * the {@link JobFieldCommands} that make their bodies), and the printing of the job an API call
 * answers. The fields both kinds' `create` and `update` take are job-fields.ts; what only one
 * kind has (`cron pause`, …) stays in its module.
 */
import { Option, type Command } from 'commander';
import type { Execution, ExecutionPage, ExecutionPageQuery, PunctualClient } from '../client/index.js';
import { isBulk, runBulk, withBulkOptions, type BulkFlags } from './bulk.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { printExecution, printExecutions, withPageOptions, type PageOptions } from './executions.js';
import { NotFound, UsageError } from './exit.js';
import { withLabelRemovalOptions } from './job-fields.js';
import { collect, defined } from './options.js';
import { out, printJson } from './output.js';

/** A job as these commands need it: with a status, of its kind's (`S`). */
export interface Job<S extends string = string> {
  status: S;
}

/** The query of a job list (GET /schedules, GET /cron): its filters and paging, `S` the kind's statuses. */
export interface JobListQuery<S extends string> {
  status?: S;
  tag?: string[];
  name?: string;
  key?: string;
  limit?: number;
  cursor?: string;
}

/** The body of a bulk delete (POST /schedules/bulk, POST /cron/bulk), `S` the kind's statuses. */
export interface JobBulkDelete<S extends string> {
  action: 'delete';
  filter: { tag?: string[]; status?: S[]; ids?: string[] };
  dryRun: boolean;
}

/** One page of a job list as the API answers it: `{ size, [K]: jobs, nextCursor }`. */
export type JobList<J, K extends string> = { size: number; nextCursor: string | null } & { [P in K]: J[] };

/**
 * The calls of a kind's client group (`client.schedules`, `client.cron`) that these commands make,
 * `C` and `U` the bodies of its create and update.
 */
export interface JobCalls<J extends Job, K extends string, C = never, U = never> {
  create(body: C): Promise<J>;
  update(id: string, body: U): Promise<J>;
  list(query: JobListQuery<J['status']>): Promise<JobList<J, K>>;
  listAll(query: JobListQuery<J['status']>): AsyncIterable<J>;
  get(id: string): Promise<J | null>;
  delete(id: string): Promise<void>;
  bulk(body: JobBulkDelete<J['status']>): Promise<{ count: number }>;
  trigger(id: string): Promise<Execution>;
  executions(id: string, query: ExecutionPageQuery): Promise<ExecutionPage>;
}

/** A job kind, as the shared commands name it in their help and messages and print its jobs. */
export interface JobCommandKind<J extends Job, K extends string, C = never, U = never> {
  /** The first segment of its API paths, e.g. `cron` (`POST /cron/bulk`). */
  path: 'schedules' | 'cron';
  /** One job, e.g. `cron job`; the plural adds an s. */
  noun: string;
  /** One job in the help of `list` and `executions`, e.g. `job` (`only jobs in this state`). */
  short: string;
  /** The field of a list page that holds the jobs, e.g. `cronJobs`. */
  listKey: K;
  /** The choices of `--status`. */
  statuses: readonly J['status'][];
  /** A job as a two-column table. */
  detail(job: J): string;
  /** Jobs as a table, one row each. */
  table(jobs: J[]): string;
  /** The kind's calls on `client`. */
  calls(client: PunctualClient): JobCalls<J, K, C, U>;
}

/** How a kind's `create` and `update` take their fields: from the flags `F` to the bodies `C` and `U`. */
export interface JobFieldCommands<F extends ApiOptions, C, U> {
  /** Adds the kind's field flags (the API's included) to `create` (`required` true) or to `update`. */
  withFieldOptions(cmd: Command, required: boolean): Command;
  /** The help of `create`. */
  createDescription: string;
  /** The flags without which `create` is a UsageError, e.g. `['expression', 'endpoint']`. */
  required: readonly (keyof F & string)[];
  /** The body of a create from the flags. */
  createBody(opts: F): C;
  /** The help of `update`. */
  updateDescription: string;
  /**
   * Adds `update`'s own `--no-…` flags after the field flags, each after its `--x`: defined
   * first, it would make the field default to true. `--no-tag` and `--no-key` come after them.
   */
  withClearOptions?: (cmd: Command) => Command;
  /** The body of an update from the flags: only the fields given. */
  updateBody(opts: F): U;
}

/**
 * Adds `<group> create`, `list`, `get` and `update <id>`, in this order: `create` and `update`
 * send the bodies of `fields` and print the job the API answers.
 * @throws UsageError from `create` without a flag of `fields.required`
 */
export function registerEditCommands<J extends Job, K extends string, F extends ApiOptions, C, U>(
  group: Command,
  kind: JobCommandKind<J, K, C, U>,
  fields: JobFieldCommands<F, C, U>,
): void {
  fields.withFieldOptions(group.command('create').description(fields.createDescription), true).action(
    action(async (opts: F) => {
      const missing = fields.required.filter((f) => opts[f] === undefined);
      if (missing.length > 0) throw new UsageError(`${group.name()} create needs ${missing.map((f) => `--${f}`).join(', ')}`);
      const body = fields.createBody(opts);
      printJob(await kind.calls(clientFrom(opts)).create(body), opts, kind);
    }),
  );
  registerListCommand(group, kind);
  registerGetCommand(group, kind);
  const update = fields.withFieldOptions(
    group.command('update').argument('<id>', `id of the ${kind.noun}`).description(fields.updateDescription),
    false,
  );
  withLabelRemovalOptions(fields.withClearOptions?.(update) ?? update).action(
    action(async (id: string, opts: F) => {
      const body = fields.updateBody(opts);
      printJob(await kind.calls(clientFrom(opts)).update(id, body), opts, kind);
    }),
  );
}

/** Prints the job an API call answered: its JSON with `--json`, else its detail table. */
export function printJob<J extends Job, K extends string>(job: J, opts: ApiOptions, kind: JobCommandKind<J, K>): void {
  if (opts.json) printJson(job);
  else out(kind.detail(job));
}

/** Adds `<group> list`: one page of jobs (`--limit`, `--cursor`) or every page (`--all`), filtered. */
export function registerListCommand<J extends Job, K extends string>(group: Command, kind: JobCommandKind<J, K>): void {
  const plural = `${kind.noun}s`;
  withPageOptions(
    withApiOptions(group.command('list').description(`list ${plural}, oldest first`))
      .addOption(new Option('--status <status>', `only ${kind.short}s in this state`).choices(kind.statuses))
      .addOption(new Option('--tag <tag>', `only ${kind.short}s with this tag (repeatable: all must match)`).argParser(collect))
      .addOption(new Option('--name <text>', `only ${kind.short}s whose name contains this`))
      .addOption(new Option('--key <key>', `only the ${kind.short} with this key`)),
    plural,
    '1–1000, default 100',
  ).action(
    action(async (opts: PageOptions & { status?: J['status']; tag?: string[]; name?: string; key?: string }) => {
      const calls = kind.calls(clientFrom(opts));
      const query: JobListQuery<J['status']> = defined({ status: opts.status, tag: opts.tag, name: opts.name, key: opts.key, limit: opts.limit });
      let result: JobList<J, K>;
      if (opts.all) {
        const all: J[] = [];
        for await (const j of calls.listAll(query)) all.push(j);
        result = { size: all.length, [kind.listKey]: all, nextCursor: null } as JobList<J, K>;
      } else {
        result = await calls.list({ ...query, ...defined({ cursor: opts.cursor }) });
      }
      if (opts.json) return printJson(result);
      const jobs: J[] = result[kind.listKey];
      out(jobs.length === 0 ? `No ${plural}.` : kind.table(jobs));
      if (result.nextCursor) out(`More: --cursor ${result.nextCursor} (or --all)`);
    }),
  );
}

/** Adds `<group> get <id>`: the job, or NotFound (exit code `EXIT.notFound`, exit.ts), after printing `null` under `--json`. */
export function registerGetCommand<J extends Job, K extends string>(group: Command, kind: JobCommandKind<J, K>): void {
  withApiOptions(group.command('get').argument('<id>', `id of the ${kind.noun}`).description(`show a ${kind.noun}`)).action(
    action(async (id: string, opts: ApiOptions) => {
      const job = await kind.calls(clientFrom(opts)).get(id);
      if (opts.json) printJson(job);
      if (job === null) throw new NotFound(`no ${kind.noun} has the id ${id}`);
      if (!opts.json) out(kind.detail(job));
    }),
  );
}

/** Adds `<group> delete [ids...]`: DELETE for one id, the bulk delete (bulk.ts) for a filter or several ids. */
export function registerDeleteCommand<J extends Job, K extends string>(group: Command, kind: JobCommandKind<J, K>): void {
  const plural = `${kind.noun}s`;
  withBulkOptions(
    withApiOptions(
      group
        .command('delete')
        .argument('[ids...]', `ids of the ${plural}`)
        .description(`delete ${plural} (one id: DELETE; a filter or several ids: POST /${kind.path}/bulk)`),
    ),
    kind.noun,
    kind.statuses,
  ).action(
    action(async (ids: string[], opts: ApiOptions & BulkFlags) => {
      const calls = kind.calls(clientFrom(opts));
      if (isBulk(ids, opts)) {
        return runBulk(plural, 'delete', ids, opts, (filter, dryRun) =>
          calls.bulk({ action: 'delete', filter, dryRun } as JobBulkDelete<J['status']>),
        );
      }
      await calls.delete(ids[0]!);
      if (!opts.json) out(`Deleted ${kind.noun} ${ids[0]}.`);
    }),
  );
}

/** Adds `<group> trigger <id>` (described by `description`): runs the job now and prints the new execution. */
export function registerTriggerCommand<J extends Job, K extends string>(
  group: Command,
  kind: JobCommandKind<J, K>,
  description: string,
): void {
  withApiOptions(group.command('trigger').argument('<id>', `id of the ${kind.noun}`).description(description)).action(
    action(async (id: string, opts: ApiOptions) => {
      printExecution(await kind.calls(clientFrom(opts)).trigger(id), opts);
    }),
  );
}

/** Adds `<group> executions <id>`: the job's executions, newest first, a page or (`--all`) every one. */
export function registerExecutionsCommand<J extends Job, K extends string>(group: Command, kind: JobCommandKind<J, K>): void {
  withPageOptions(
    withApiOptions(
      group
        .command('executions')
        .argument('<id>', `id of the ${kind.noun}`)
        .description(`list the ${kind.short}'s executions, newest first`),
    ),
    'executions',
    '1–100, default 20',
  ).action(
    action(async (id: string, opts: PageOptions) => {
      const calls = kind.calls(clientFrom(opts));
      await printExecutions((query) => calls.executions(id, query), opts);
    }),
  );
}
