/**
 * `punctual apply -f punctual.yaml [--dry-run] [--prune] [--rotate-secrets]`: cron jobs,
 * schedules and flow-control keys as code (docs/apply.md). Reads the file (apply-file.ts), reads
 * the jobs of its keys from the service (and with `--prune` every job, to find the managed ones)
 * and, when the file has flow-control keys, the service's keys; prints the plan (apply-plan.ts) and
 * applies it unless `--dry-run`.
 *
 * Exit codes of this command (for CI): 0 nothing to do, or the plan applied; 2 with `--dry-run`
 * when the plan changes something; 1 on any error (a faulty file, naming the field; an answer of
 * the API other than success, naming the job and its field in the file; no URL or token; the
 * service unreachable). Steps run one after the other and stop at the first error: those before
 * it are applied (running apply again continues from there).
 */
import type { Command } from 'commander';
import type { CronJob, FlowControlKey, PunctualClient, Schedule } from '../client/index.js';
import { PunctualProblem } from '../client/index.js';
import type { ApplyFile } from './apply-file.js';
import type { CurrentJobs, PlanAction } from './apply-plan.js';
import { clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { describeError } from './exit.js';

/** Exit codes of `punctual apply`. */
export const APPLY_EXIT = { ok: 0, error: 1, changesPending: 2 } as const;

/** The flags of `punctual apply`. */
export interface ApplyFlags extends ApiOptions {
  file: string;
  dryRun?: boolean;
  prune?: boolean;
  rotateSecrets?: boolean;
}

/** Where the command writes and what it reads references from (the process's, unless a test says). */
export interface ApplyIo {
  /** Writes text to standard output. */
  out: (text: string) => void;
  /** Writes text to standard error. */
  err: (text: string) => void;
  env: Record<string, string | undefined>;
}

const PROCESS_IO: ApplyIo = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  env: process.env,
};

/** Lookups of the file's keys made at once. */
const LOOKUPS_IN_FLIGHT = 8;

/** Runs `fn` over `items`, at most `limit` at once. */
async function inBatches<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += limit) await Promise.all(items.slice(i, i + limit).map(fn));
}

/**
 * The service's jobs the plan compares with: those of the file's keys (one `?key=` lookup each,
 * through the unique index), and with `prune` every job with a key (the whole lists, paged); and
 * the service's flow-control keys when the file has some (one list, never pruned).
 */
async function currentJobs(client: PunctualClient, file: ApplyFile, prune: boolean): Promise<CurrentJobs> {
  const current: CurrentJobs = { cron: new Map(), schedules: new Map(), flowControlKeys: new Map() };
  if (file.flowControlKeys.length > 0) {
    for (const k of (await client.flowControlKeys.list()).flowControlKeys) current.flowControlKeys.set(k.key, k);
  }
  if (prune) {
    for await (const j of client.cron.listAll({ limit: 1000 })) if (j.key !== null) current.cron.set(j.key, j);
    for await (const s of client.schedules.listAll({ limit: 1000 })) if (s.key !== null) current.schedules.set(s.key, s);
    return current;
  }
  await inBatches(file.cron, LOOKUPS_IN_FLIGHT, async (item) => {
    const [job] = (await client.cron.list({ key: item.key, limit: 1 })).cronJobs;
    if (job !== undefined) current.cron.set(item.key, job);
  });
  await inBatches(file.schedules, LOOKUPS_IN_FLIGHT, async (item) => {
    const [job] = (await client.schedules.list({ key: item.key, limit: 1 })).schedules;
    if (job !== undefined) current.schedules.set(item.key, job);
  });
  return current;
}

/** Sends one step. */
async function run(client: PunctualClient, a: PlanAction): Promise<CronJob | Schedule | FlowControlKey | void> {
  if (a.kind === 'flow-control-key') return client.flowControlKeys.put(a.key, a.body);
  switch (a.op) {
    case 'create':
      return a.kind === 'cron' ? client.cron.create(a.body) : client.schedules.create(a.body);
    case 'update':
      return a.kind === 'cron' ? client.cron.update(a.id, a.body) : client.schedules.update(a.id, a.body);
    case 'delete':
      return a.kind === 'cron' ? client.cron.delete(a.id) : client.schedules.delete(a.id);
    case 'keep':
      return;
  }
}

/** The list of the file that holds the items of a kind. */
const FILE_LIST = { cron: 'cron', schedule: 'schedules', 'flow-control-key': 'flowControlKeys' } as const;

/** A step's failure, its fields named by their path in the file (`/cron/0/expression`, `/flowControlKeys/0/rate`). */
function failure(a: PlanAction, err: unknown): string {
  const where = `${a.kind} ${a.key}`;
  if (err instanceof PunctualProblem && 'index' in a) {
    const base = `/${FILE_LIST[a.kind]}/${a.index}`;
    const fields = err.errors.map((e) => `\n  ${base}${e.path}: ${e.message}`).join('');
    return `punctual: ${where}: ${err.status} ${err.title}: ${err.detail}${fields}`;
  }
  return `punctual: ${where}: ${describeError(err, false).replace(/^punctual: /, '')}`;
}

/**
 * The action of `punctual apply`.
 * @returns the exit code ({@link APPLY_EXIT})
 */
export async function applyCommand(flags: ApplyFlags, io: ApplyIo = PROCESS_IO): Promise<number> {
  const out = (line: string) => io.out(`${line}\n`);
  const [{ ApplyFileError, readApplyFile }, { changes, planApply, planLine, planSummary }] = await Promise.all([
    import('./apply-file.js'),
    import('./apply-plan.js'),
  ]);
  let plan: PlanAction[];
  let client: PunctualClient;
  try {
    const file = await readApplyFile(flags.file, io.env);
    client = clientFrom(flags);
    const current = await currentJobs(client, file, Boolean(flags.prune));
    plan = planApply(file, current, { prune: Boolean(flags.prune), rotateSecrets: Boolean(flags.rotateSecrets) });
  } catch (err) {
    io.err(`${err instanceof ApplyFileError ? err.describe() : describeError(err, false)}\n`);
    return APPLY_EXIT.error;
  }
  const pending = plan.filter(changes);
  if (flags.json) {
    out(JSON.stringify({ dryRun: Boolean(flags.dryRun), actions: plan.map(({ op, kind, key, ...rest }) => ({ op, kind, key, ...('changes' in rest && { changes: rest.changes }), ...('reason' in rest && { reason: rest.reason }) })) }, null, 2));
  } else {
    for (const a of plan) out(planLine(a));
    out(planSummary(plan));
  }
  if (pending.length === 0) return APPLY_EXIT.ok;
  if (flags.dryRun) return APPLY_EXIT.changesPending;
  let done = 0;
  for (const a of pending) {
    try {
      await run(client, a);
      done += 1;
    } catch (err) {
      io.err(`${failure(a, err)}\n`);
      io.err(`punctual: ${done} of ${pending.length} changes applied; stopped at the first error.\n`);
      return APPLY_EXIT.error;
    }
  }
  if (!flags.json) out(`Applied: ${done} change${done === 1 ? '' : 's'}.`);
  return APPLY_EXIT.ok;
}

/** Registers `punctual apply`. */
export function registerApplyCommand(program: Command): void {
  const cmd = withApiOptions(
    program
      .command('apply')
      .description('configure flow-control keys, create, update and (with --prune) delete cron jobs and schedules to match a file (docs/apply.md)')
      .requiredOption('-f, --file <path>', 'the file of jobs: YAML, or JSON (.json)')
      .option('--dry-run', 'print the plan only; exit code 2 when it would change something')
      .option('--prune', 'also delete the jobs created by apply whose key is no longer in the file (never flow-control keys)')
      .option('--rotate-secrets', "send every job's secrets again (their values cannot be compared)"),
  )
    // Any failure is exit code 1 here: 2 means "changes pending" under --dry-run.
    .exitOverride((err) => process.exit(err.exitCode === 0 ? APPLY_EXIT.ok : APPLY_EXIT.error))
    .addHelpText(
      'after',
      '\nExit codes: 0 nothing to do or applied, 2 changes pending (--dry-run), 1 any error.\n' +
        'Secrets in the file are ${ENV_VAR} references, read from the environment.',
    );
  cmd.action(async (flags: ApplyFlags) => {
    process.exitCode = await applyCommand(flags);
  });
}
