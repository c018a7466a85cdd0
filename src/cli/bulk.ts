/**
 * The bulk form of `punctual cron pause|resume|delete` and `punctual schedules delete`
 * (docs/cli.md, "Bulk actions"): with a filter flag (`--tag`, `--status`) or several ids, the
 * command sends one `POST /cron/bulk` or `POST /schedules/bulk` instead of acting on one id.
 *
 * Confirmation: `--dry-run` prints the count and changes nothing; `--yes` acts at once; otherwise,
 * on a terminal (stdin a TTY), a dry run first, then "N cron jobs match; pause them? [y/N]", and
 * only `y` or `yes` acts; not on a terminal, the command refuses (exit code 2, nothing sent).
 */
import { createInterface } from 'node:readline/promises';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { UsageError } from './exit.js';
import { collect, defined } from './options.js';
import { out, printJson } from './output.js';

/** The flags of a command that may act in bulk. */
export interface BulkFlags {
  tag?: string[];
  status?: string[];
  dryRun?: boolean;
  yes?: boolean;
  json?: boolean;
}

/** Adds `--tag`, `--status` (of `statuses`), `--dry-run` and `--yes` to a command. */
export function withBulkOptions(cmd: Command, jobs: string, statuses: readonly string[]): Command {
  return cmd
    .addOption(new Option('--tag <tag>', `act on every ${jobs} with this tag (repeatable: all must match)`).argParser(collect))
    .addOption(
      new Option('--status <status>', `act on every ${jobs} in this state, one of ${statuses.join(', ')} (repeatable: any of them)`).argParser(
        (value: string, previous: string[] | undefined) => {
          if (!statuses.includes(value)) throw new InvalidArgumentError(`Allowed choices are ${statuses.join(', ')}.`);
          return collect(value, previous);
        },
      ),
    )
    .addOption(new Option('--dry-run', `print how many ${jobs}s would be affected; change nothing`))
    .addOption(new Option('--yes', 'do not ask for confirmation'));
}

/** Whether the command acts in bulk: a filter flag, `--dry-run`, or other than exactly one id. */
export function isBulk(ids: string[], f: BulkFlags): boolean {
  return f.tag !== undefined || f.status !== undefined || f.dryRun === true || ids.length !== 1;
}

/** How a bulk command reads the terminal: overridable by tests. */
export interface Terminal {
  isTTY: boolean;
  /** Asks `question` and answers the line typed. */
  ask(question: string): Promise<string>;
}

/** The process's terminal: stdin, the question on stderr. */
export const PROCESS_TERMINAL: Terminal = {
  get isTTY() {
    return process.stdin.isTTY === true;
  },
  async ask(question) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return await rl.question(question);
    } finally {
      rl.close();
    }
  },
};

/**
 * Runs a bulk action: builds the filter from the ids and flags, confirms as described above, sends
 * it, and prints the count (`{"count": n}` with `--json`).
 * @param noun the jobs, plural (`cron jobs`, `schedules`)
 * @param verb the action (`pause`, `resume`, `delete`)
 * @param send sends the bulk request (`dryRun` as given)
 * @throws UsageError without any filter, or without `--yes` when stdin is not a terminal (nothing sent)
 */
export async function runBulk(
  noun: string,
  verb: string,
  ids: string[],
  f: BulkFlags,
  send: (filter: Record<string, unknown>, dryRun: boolean) => Promise<{ count: number }>,
  terminal: Terminal = PROCESS_TERMINAL,
): Promise<void> {
  const filter = defined({ tag: f.tag, status: f.status, ids: ids.length > 0 ? ids : undefined });
  if (Object.keys(filter).length === 0) throw new UsageError(`${verb} needs an id, --tag or --status`);
  const report = (count: number, done: string) => (f.json ? printJson({ count }) : out(`${count} ${noun} ${done}.`));
  if (f.dryRun) return report((await send(filter, true)).count, 'match');
  if (!f.yes) {
    if (!terminal.isTTY) throw new UsageError(`not a terminal: add --yes to ${verb} every matching ${noun.replace(/s$/, '')} (or --dry-run to count them)`);
    const { count } = await send(filter, true);
    const answer = await terminal.ask(`${count} ${noun} match; ${verb} them? [y/N] `);
    if (!/^y(es)?$/i.test(answer.trim())) {
      out('Nothing changed.');
      return;
    }
  }
  report((await send(filter, false)).count, `${verb === 'pause' ? 'paused' : verb === 'resume' ? 'resumed' : 'deleted'}`);
}
