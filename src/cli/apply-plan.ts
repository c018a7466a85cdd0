/**
 * The plan of `punctual apply` (docs/apply.md): what to create, update and delete so that the
 * service holds the jobs of the file. Pure: it compares the file with the jobs the service answered
 * and says what to send; apply.ts does the I/O.
 *
 * The rules:
 * - The file's flow-control keys come first, so that the jobs' calls find their limits: a key not
 *   configured is a `create`, one whose limits differ an `update` (both a PUT of the whole key),
 *   one as the file says nothing. `parallelism` and `rate` the file leaves out are none, `period`
 *   1,000 ms; `paused` left out is left as it is (a key paused by hand stays paused). Keys are
 *   never deleted: they carry no `managedBy`, so apply cannot tell the keys it configured.
 * - A job of the file is found by its key. None: `create` (with `managedBy: apply`).
 * - Found: `update` with the fields that differ, or nothing. A field the file leaves out is
 *   compared with its default (`name`, `timezone`, `data`, `body`, `pauseAfterFailures` null,
 *   `flowControlKey` null, `method` POST, `headers` {}, `misfire` once, `overlap` allow, `successStatuses` ["2xx"], for
 *   schedules `data` {} and `tags` []), except `retry` and `timeoutMs`, whose defaults are the
 *   service's settings: left out, they are left as they are; a `retry` given is compared field by
 *   field. A cron job's `status` (paused or not) is never touched.
 * - Secrets cannot be read back: their public part is compared (`secretHeaders` by names, `auth`
 *   without its secret, `signingSecret` set or not). The secret fields are sent on create, when
 *   their public part differs, and with `rotateSecrets` for every job of the file.
 * - A schedule that is no longer Pending (it ran) is left alone.
 * - With `prune`, the jobs with `managedBy: apply` whose key is not in the file are deleted:
 *   cron jobs whatever their status, schedules only while Pending (a schedule that ran is history).
 */
import type {
  CronJob,
  CronJobCreate,
  CronJobUpdate,
  FlowControlKey,
  FlowControlKeyPut,
  Schedule,
  ScheduleCreate,
  ScheduleUpdate,
} from '../client/index.js';
import { FLOW_CONTROL_BOUNDS } from '../domain/flow-control.js';
import type { ApplyFile, FileCron, FileFlowKey, FileOneTime } from './apply-file.js';

/** The kinds of jobs, as the plan names them. */
export type JobKind = 'cron' | 'schedule';
/** What a step of the plan acts on, as the plan names it: a job's kind, or a flow-control key. */
export type PlanKind = JobKind | 'flow-control-key';

/** One changed field, as printed: its name and both values (secrets never shown). */
export interface FieldChange {
  field: string;
  before: string;
  after: string;
}

/** One step of the plan. */
export type PlanAction =
  | { op: 'create'; kind: 'cron'; key: string; index: number; body: CronJobCreate }
  | { op: 'create'; kind: 'schedule'; key: string; index: number; body: ScheduleCreate }
  | { op: 'update'; kind: 'cron'; key: string; index: number; id: string; body: CronJobUpdate; changes: FieldChange[] }
  | { op: 'update'; kind: 'schedule'; key: string; index: number; id: string; body: ScheduleUpdate; changes: FieldChange[] }
  | { op: 'create'; kind: 'flow-control-key'; key: string; index: number; body: FlowControlKeyPut }
  | { op: 'update'; kind: 'flow-control-key'; key: string; index: number; body: FlowControlKeyPut; changes: FieldChange[] }
  | { op: 'delete'; kind: JobKind; key: string; id: string }
  | { op: 'keep'; kind: JobKind; key: string; reason: string };

/** What the plan compares with. */
export interface CurrentJobs {
  /** The service's cron jobs by key (those of the file's keys; with prune, every managed one too). */
  cron: Map<string, CronJob>;
  schedules: Map<string, Schedule>;
  /** The service's flow-control keys by name (GET /flow-control-keys; those not configured count as absent). */
  flowControlKeys: Map<string, FlowControlKey>;
}

/** Options of {@link planApply}. */
export interface PlanOptions {
  prune: boolean;
  rotateSecrets: boolean;
}

const SECRET_FIELDS = ['secretHeaders', 'auth', 'signingSecret'] as const;

/** Fields compared with a default when the file leaves them out, by kind. */
const CRON_DEFAULTS: Record<string, unknown> = {
  flowControlKey: null, name: null, timezone: null, data: null, method: 'POST', headers: {}, body: null,
  misfire: 'once', overlap: 'allow', successStatuses: ['2xx'], pauseAfterFailures: null,
  tags: [], startAt: null, endAt: null, maxInvocations: null, jitterMs: 0,
};
const SCHEDULE_DEFAULTS: Record<string, unknown> = {
  flowControlKey: null, data: {}, tags: [], method: 'POST', headers: {}, body: null, successStatuses: ['2xx'],
};

/** Fields that must be given, by kind. */
const CRON_REQUIRED = ['expression', 'endpoint'];
const SCHEDULE_REQUIRED = ['name', 'scheduledAt', 'endpoint'];

/** Fields holding an ISO 8601 instant. */
const INSTANT_FIELDS = new Set(['scheduledAt', 'startAt', 'endAt']);

/** Whether a field's wanted and stored values are the same: instants as instants, others as JSON. */
function sameValue(field: string, want: unknown, have: unknown): boolean {
  if (INSTANT_FIELDS.has(field) && typeof want === 'string' && typeof have === 'string') return Date.parse(want) === Date.parse(have);
  return sameJson(want, have);
}

/** JSON equality, objects compared without regard to the order of their properties. */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) return a.length === (b as unknown[]).length && a.every((x, i) => sameJson(x, (b as unknown[])[i]));
  const ka = Object.keys(a).sort();
  const kb = Object.keys(b).sort();
  return sameJson(ka, kb) && ka.every((k) => sameJson((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}

/** A value as the plan prints it: JSON, cut at 60 characters. */
function shown(v: unknown): string {
  const text = v === undefined ? 'none' : JSON.stringify(v);
  return text.length > 60 ? `${text.slice(0, 57)}…` : text;
}

/** The public part of an `auth` object (as the API answers it): never a secret. */
function authPublic(a: unknown): Record<string, unknown> | null {
  if (typeof a !== 'object' || a === null) return null;
  const r = a as Record<string, unknown>;
  if (r.type === 'basic') return { type: 'basic', username: r.username ?? null };
  if (r.type === 'oauth2') {
    return { type: 'oauth2', tokenUrl: r.tokenUrl ?? null, clientId: r.clientId ?? null, scope: r.scope ?? null, audience: r.audience ?? null };
  }
  return { type: r.type };
}

/** The secret fields of a file item as the API shows them (names, public parts, set or not). */
function secretsShown(item: Record<string, unknown>): Record<string, unknown> {
  const headers = item.secretHeaders as Record<string, string> | null | undefined;
  return {
    secretHeaders: Object.keys(headers ?? {}).sort(),
    auth: authPublic(item.auth),
    signingSecret: item.signingSecret !== undefined && item.signingSecret !== null,
  };
}

/** The same of a job the service answered. */
function secretsStored(job: CronJob | Schedule): Record<string, unknown> {
  return { secretHeaders: [...job.secretHeaderNames].sort(), auth: authPublic(job.auth), signingSecret: job.signingSecretSet };
}

/**
 * The fields of `item` that differ from `job`: the patch to send and the changes to print.
 * Instants (`scheduledAt`, `startAt`, `endAt`) are compared as instants: the file may write them
 * in any ISO 8601 form the API accepts.
 */
function diff(
  item: Record<string, unknown>,
  job: Record<string, unknown>,
  required: readonly string[],
  defaults: Record<string, unknown>,
  rotateSecrets: boolean,
): { patch: Record<string, unknown>; changes: FieldChange[] } {
  const patch: Record<string, unknown> = {};
  const changes: FieldChange[] = [];
  const compare = (field: string, want: unknown, have: unknown, same = sameValue(field, want, have)) => {
    if (same) return;
    patch[field] = want;
    changes.push({ field, before: shown(have), after: shown(want) });
  };
  for (const field of required) {
    const want = item[field];
    const have = job[field];
    compare(field, want, have);
  }
  for (const [field, fallback] of Object.entries(defaults)) compare(field, item[field] === undefined ? fallback : item[field], job[field]);
  if (item.timeoutMs !== undefined) compare('timeoutMs', item.timeoutMs, job.timeoutMs);
  if (item.retry !== undefined) {
    const want = item.retry as Record<string, unknown>;
    const have = (job.retry ?? {}) as Record<string, unknown>;
    const differs = Object.keys(want).some((k) => !sameJson(want[k], have[k] ?? null));
    if (differs) {
      patch.retry = want;
      // The fields the file gives, before and after.
      changes.push({ field: 'retry', before: shown(Object.fromEntries(Object.keys(want).map((k) => [k, have[k] ?? null]))), after: shown(want) });
    }
  }
  const wantSecrets = secretsShown(item);
  const haveSecrets = secretsStored(job as unknown as CronJob);
  for (const field of SECRET_FIELDS) {
    const differs = !sameJson(wantSecrets[field], haveSecrets[field]);
    if (!differs && !rotateSecrets) continue;
    if (!differs && item[field] === undefined) continue;
    patch[field] = item[field] ?? null;
    changes.push({
      field,
      before: differs ? shown(haveSecrets[field]) : 'secret',
      after: differs ? shown(wantSecrets[field]) : 'rotated',
    });
  }
  return { patch, changes };
}

/** The create body of a file item: its fields, `managedBy: apply`. */
function createBody<T extends { key: string }>(item: T): T & { managedBy: 'apply' } {
  return { ...item, managedBy: 'apply' };
}

/** What the plan does differently for each kind of job. */
interface KindRules<J> {
  kind: JobKind;
  /** Fields that must be given (compared as they are). */
  required: readonly string[];
  /** Fields compared with a default when the file leaves them out. */
  defaults: Record<string, unknown>;
  /** Why a job that differs from the file is left alone (a `keep` step), or undefined: it is updated. */
  leftAlone(job: J): string | undefined;
  /** Whether `prune` deletes a managed job that is not in the file. */
  prunable(job: J): boolean;
}

const CRON_RULES: KindRules<CronJob> = {
  kind: 'cron',
  required: CRON_REQUIRED,
  defaults: CRON_DEFAULTS,
  leftAlone: () => undefined,
  prunable: () => true,
};

const SCHEDULE_RULES: KindRules<Schedule> = {
  kind: 'schedule',
  required: SCHEDULE_REQUIRED,
  defaults: SCHEDULE_DEFAULTS,
  leftAlone: (job) => (job.status === 'Pending' ? undefined : `${job.status}: a schedule that ran is left alone`),
  prunable: (job) => job.status === 'Pending',
};

/**
 * The steps for the file's items of one kind, in the order of the file: `create` for an item
 * whose key the service does not hold, `update` (or `keep`, see `leftAlone`) for one that differs.
 * The steps' bodies are the kind's (`CronJobCreate` for a cron item, …), as `rules.kind` says.
 */
function planItems<J extends CronJob | Schedule>(
  items: readonly (FileCron | FileOneTime)[],
  current: Map<string, J>,
  rules: KindRules<J>,
  rotateSecrets: boolean,
): PlanAction[] {
  const steps: PlanAction[] = [];
  items.forEach((item, index) => {
    const job = current.get(item.key);
    if (job === undefined) {
      steps.push({ op: 'create', kind: rules.kind, key: item.key, index, body: createBody(item) } as PlanAction);
      return;
    }
    const { patch, changes } = diff(item, job, rules.required, rules.defaults, rotateSecrets);
    if (changes.length === 0) return;
    const reason = rules.leftAlone(job);
    if (reason !== undefined) steps.push({ op: 'keep', kind: rules.kind, key: item.key, reason });
    else steps.push({ op: 'update', kind: rules.kind, key: item.key, index, id: job.id, body: patch, changes } as PlanAction);
  });
  return steps;
}

/** The `delete` steps of `prune` for one kind: its managed jobs whose key is not in the file, if `prunable`. */
function planPrune<J extends CronJob | Schedule>(items: readonly { key: string }[], current: Map<string, J>, rules: KindRules<J>): PlanAction[] {
  const keys = new Set(items.map((item) => item.key));
  return [...current]
    .filter(([key, job]) => job.managedBy === 'apply' && !keys.has(key) && rules.prunable(job))
    .map(([key, job]) => ({ op: 'delete', kind: rules.kind, key, id: job.id }));
}

/** The limits of a key of the file as the service would hold them after its PUT (`paused` as it is unless given). */
function limitsWanted(item: FileFlowKey, have: FlowControlKey | undefined): Record<string, unknown> {
  return {
    parallelism: item.parallelism ?? null,
    rate: item.rate ?? null,
    period: item.period ?? FLOW_CONTROL_BOUNDS.periodDefaultMs,
    paused: item.paused ?? have?.paused ?? false,
  };
}

/**
 * The steps for the file's flow-control keys, in the order of the file: `create` for a key not
 * configured, `update` for one whose limits differ (its PUT body: the file's fields, and the pause
 * it has when the file leaves `paused` out), nothing for one as the file says.
 */
function planFlowControlKeys(items: readonly FileFlowKey[], current: Map<string, FlowControlKey>): PlanAction[] {
  const steps: PlanAction[] = [];
  items.forEach((item, index) => {
    const { key, ...fields } = item;
    const have = current.get(key);
    if (have === undefined || !have.configured) {
      steps.push({ op: 'create', kind: 'flow-control-key', key, index, body: fields });
      return;
    }
    const want = limitsWanted(item, have);
    const changes = Object.entries(want)
      .filter(([field, value]) => !sameJson(value, have[field as keyof FlowControlKey]))
      .map(([field, value]) => ({ field, before: shown(have[field as keyof FlowControlKey]), after: shown(value) }));
    if (changes.length === 0) return;
    steps.push({ op: 'update', kind: 'flow-control-key', key, index, body: { ...fields, paused: want.paused as boolean }, changes });
  });
  return steps;
}

/**
 * The plan that makes the service hold the file's keys and jobs (rules in the module's
 * description): the flow-control keys first, then creates and updates of jobs in the order of the
 * file, cron jobs first, then deletes (of jobs only).
 */
export function planApply(file: ApplyFile, current: CurrentJobs, o: PlanOptions): PlanAction[] {
  const plan = [
    ...planFlowControlKeys(file.flowControlKeys, current.flowControlKeys),
    ...planItems(file.cron, current.cron, CRON_RULES, o.rotateSecrets),
    ...planItems(file.schedules, current.schedules, SCHEDULE_RULES, o.rotateSecrets),
  ];
  if (!o.prune) return plan;
  return [...plan, ...planPrune(file.cron, current.cron, CRON_RULES), ...planPrune(file.schedules, current.schedules, SCHEDULE_RULES)];
}

/** Whether a step changes the service. */
export function changes(a: PlanAction): boolean {
  return a.op !== 'keep';
}

/**
 * A step as printed: `+ create cron nightly`, `~ update cron nightly: expression "0 2 * * *" → "0 3 * * *"`,
 * `~ update flow-control-key partner-api: rate 5 → 10`, …
 */
export function planLine(a: PlanAction): string {
  switch (a.op) {
    case 'create':
      return `+ create ${a.kind} ${a.key}`;
    case 'update':
      return `~ update ${a.kind} ${a.key}: ${a.changes.map((c) => `${c.field} ${c.before} → ${c.after}`).join(', ')}`;
    case 'delete':
      return `- delete ${a.kind} ${a.key}`;
    case 'keep':
      return `= keep ${a.kind} ${a.key} (${a.reason})`;
  }
}

/** The last line: `Plan: 1 to create, 2 to update, 0 to delete.` or `Nothing to do.` */
export function planSummary(plan: PlanAction[]): string {
  const count = (op: PlanAction['op']) => plan.filter((a) => a.op === op).length;
  if (!plan.some(changes)) return 'Nothing to do: the service holds the jobs of the file.';
  return `Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete.`;
}
