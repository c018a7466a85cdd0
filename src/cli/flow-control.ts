/**
 * `punctual flow-control list|get|set|pause|resume|delete`: flow-control keys, the limits shared
 * by the calls of every job that names a key (its `flowControlKey`), through the API
 * (`PUNCTUAL_URL` and `PUNCTUAL_TOKEN`, or `--url` and `--token`). `set` is the PUT: it replaces
 * every limit of the key, so a limit (or `--paused`) it is not given is removed.
 */
import { InvalidArgumentError, type Command } from 'commander';
import type { FlowControlKey, FlowControlKeyPut } from '../client/index.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { NotFound } from './exit.js';
import { defined, durationMs, integer } from './options.js';
import { detailTable, listTable, out, printJson } from './output.js';

/**
 * Parses `--period`: a whole number of ms or a duration with a unit (`1500`, `1s`, `1m`, `1h`,
 * `1d`; options.ts `durationMs`). The service checks the range (1 s to 1 day).
 * @throws InvalidArgumentError (a usage error, exit code 2) for anything else
 */
export function periodOption(value: string): number {
  const ms = durationMs(value);
  if (ms === null) throw new InvalidArgumentError("It must be ms or a duration like '1s', '1m', '1h' or '1d'.");
  return ms;
}

/** A period in ms as people read it: `1s`, `90s`, `1m`, `1h`, `1d`, or ms when no unit fits whole. */
export function periodText(ms: number): string {
  for (const [unit, size] of [['d', 86_400_000], ['h', 3_600_000], ['m', 60_000], ['s', 1_000]] as const) {
    if (ms % size === 0) return `${ms / size}${unit}`;
  }
  return `${ms}ms`;
}

/** A key's rate in one cell: `100/1s`, or `-` without a rate. */
function rateCell(k: FlowControlKey): string {
  return k.rate === null ? '-' : `${k.rate}/${periodText(k.period)}`;
}

function keysTable(keys: FlowControlKey[]): string {
  return listTable(
    ['KEY', 'CONFIGURED', 'PARALLELISM', 'RATE', 'PAUSED', 'WAITING', 'IN FLIGHT', 'RATE USED', 'OLDEST WAITING SINCE'],
    keys.map((k) => [
      k.key,
      k.configured ? 'yes' : 'no',
      k.parallelism,
      rateCell(k),
      k.paused ? 'yes' : 'no',
      k.waiting,
      k.inFlight,
      k.rateUsed,
      k.oldestWaitingSince,
    ]),
  );
}

/** Prints a key the API answered: its JSON with `--json`, else its detail table. */
function printKey(k: FlowControlKey, opts: ApiOptions): void {
  if (opts.json) printJson(k);
  else out(detailTable({ ...k, rate: rateCell(k), period: `${k.period} ms` }));
}

interface SetOptions extends ApiOptions {
  parallelism?: number;
  rate?: number;
  period?: number;
  paused?: boolean;
}

const KEY_ARGUMENT = 'the key: 1 to 128 of A-Z a-z 0-9 . _ : -';

/** Adds the `flow-control` command group to `program`. */
export function registerFlowControlCommands(program: Command): void {
  const group = program
    .command('flow-control')
    .description('manage flow-control keys (limits shared by the calls of the jobs naming a key), through the API');

  withApiOptions(group.command('list').description('list the keys in use (configured, or named by jobs) with their limits and what waits')).action(
    action(async (opts: ApiOptions) => {
      const list = await clientFrom(opts).flowControlKeys.list();
      if (opts.json) return printJson(list);
      out(list.flowControlKeys.length === 0 ? 'No flow-control keys yet: punctual flow-control set <key> --parallelism <n>' : keysTable(list.flowControlKeys));
    }),
  );

  withApiOptions(group.command('get').argument('<key>', KEY_ARGUMENT).description('show a key: its limits and live state')).action(
    action(async (key: string, opts: ApiOptions) => {
      const k = await clientFrom(opts).flowControlKeys.get(key);
      if (opts.json) printJson(k);
      if (k === null) throw new NotFound(`no job or configuration names the flow-control key ${key}`);
      if (!opts.json) printKey(k, opts);
    }),
  );

  withApiOptions(
    group
      .command('set')
      .argument('<key>', KEY_ARGUMENT)
      .description('configure a key, replacing all its limits (a limit or --paused not given is removed); at least one limit unless --paused')
      .option('--parallelism <n>', 'most calls of the key in flight at once (1–10000)', integer)
      .option('--rate <n>', 'most calls of the key started in any window of --period (1–100000)', integer)
      .option('--period <duration>', "the window of --rate: ms, or '1s', '1m', '1h', '1d' (1s to 1d; default 1s)", periodOption)
      .option('--paused', 'the key starts no call until resumed (its calls wait)'),
  ).action(
    action(async (key: string, opts: SetOptions) => {
      const body: FlowControlKeyPut = defined({ parallelism: opts.parallelism, rate: opts.rate, period: opts.period, paused: opts.paused });
      printKey(await clientFrom(opts).flowControlKeys.put(key, body), opts);
    }),
  );

  for (const [verb, description] of [
    ['pause', 'pause a configured key: it starts no call until resumed; its calls wait, none is dropped'],
    ['resume', 'resume a paused key: its waiting calls start again, within its limits'],
  ] as const) {
    withApiOptions(group.command(verb).argument('<key>', KEY_ARGUMENT).description(description)).action(
      action(async (key: string, opts: ApiOptions) => {
        const keys = clientFrom(opts).flowControlKeys;
        printKey(verb === 'pause' ? await keys.pause(key) : await keys.resume(key), opts);
      }),
    );
  }

  withApiOptions(
    group.command('delete').argument('<key>', KEY_ARGUMENT).description("remove a key's limits: its waiting calls start at once"),
  ).action(
    action(async (key: string, opts: ApiOptions) => {
      await clientFrom(opts).flowControlKeys.delete(key);
      if (!opts.json) out(`Deleted flow-control key ${key}.`);
    }),
  );
}
