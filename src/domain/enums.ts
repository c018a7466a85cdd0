/**
 * The closed lists of values of the interface, each written once: the service checks input
 * against them, the HTTP schemas (and so docs/openapi.json) enumerate them, the CLI offers them as
 * choices. Each list is a `const` array in the order the OpenAPI document gives it; its type is
 * derived from it.
 */

/** API key states: `Enabled` keys authorise requests, `Disabled` ones are refused (403). */
export const API_KEY_STATUSES = ['Enabled', 'Disabled'] as const;
/** One of {@link API_KEY_STATUSES}. */
export type ApiKeyStatus = (typeof API_KEY_STATUSES)[number];

/**
 * Schedule states: `Pending` until its instant (or a trigger), `Running` while its execution is
 * in progress (retries included), then `Succeeded` (an answer its `successStatuses` lists, 2xx by
 * default) or `Failed`.
 */
export const SCHEDULE_STATUSES = ['Pending', 'Running', 'Succeeded', 'Failed'] as const;
/** One of {@link SCHEDULE_STATUSES}. */
export type ScheduleStatus = (typeof SCHEDULE_STATUSES)[number];

/**
 * Cron job states: `Active` jobs run on their schedule, `Paused` ones never run, `Completed` ones
 * have run their last occurrence (their `endAt` reached, or `invocations` = `maxInvocations`) and
 * never run again unless a PATCH gives them future occurrences with `status` `Active`
 * (docs/cron.md, "Start, end and limits").
 */
export const CRON_JOB_STATUSES = ['Active', 'Paused', 'Completed'] as const;
/** One of {@link CRON_JOB_STATUSES}. */
export type CronJobStatus = (typeof CRON_JOB_STATUSES)[number];

/**
 * Execution states, in the order an execution goes through them: `Pending` (created, e.g. by a
 * trigger, not yet claimed) → `Running` (an attempt in flight, leased) → `Retrying` (waiting for
 * its next attempt) → `Running` … → `Succeeded` | `Failed`; `Skipped`: an occurrence that did not
 * run (overlap or misfire `skip`).
 */
export const EXECUTION_STATUSES = ['Pending', 'Running', 'Retrying', 'Succeeded', 'Failed', 'Skipped'] as const;
/** One of {@link EXECUTION_STATUSES}. */
export type ExecutionStatus = (typeof EXECUTION_STATUSES)[number];

/** Kinds of job an execution belongs to: a one-time `schedule` or a recurring `cron` job. */
export const JOB_TYPES = ['schedule', 'cron'] as const;
/** One of {@link JOB_TYPES}. */
export type JobType = (typeof JOB_TYPES)[number];

/**
 * What happens to cron occurrences missed while the service was down: `skip` none run (each is
 * recorded as `Skipped`), `once` one run for all of them (the default), `all` each runs, oldest
 * first (at most 1,000).
 */
export const MISFIRE_POLICIES = ['skip', 'once', 'all'] as const;
/** One of {@link MISFIRE_POLICIES}. */
export type MisfirePolicy = (typeof MISFIRE_POLICIES)[number];

/**
 * `allow` (the default): occurrences run whatever the previous execution does; `skip`: an
 * occurrence is recorded as `Skipped` while the job's previous execution is still pending,
 * running or retrying.
 */
export const OVERLAP_POLICIES = ['allow', 'skip'] as const;
/** One of {@link OVERLAP_POLICIES}. */
export type OverlapPolicy = (typeof OVERLAP_POLICIES)[number];

/**
 * The HTTP methods a job's calls may use (RFC 9110, section 9.3); `POST` is the default. `GET` and
 * `HEAD` calls carry no body (docs/calls.md).
 */
export const HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
/** One of {@link HTTP_METHODS}. */
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** The methods whose calls carry no body: a job with one has no `body` and an empty `data`. */
export const BODILESS_METHODS: readonly HttpMethod[] = ['GET', 'HEAD'];

/**
 * What an API key may do (docs/keys-and-audit.md, "Scopes"): `jobs:read` reads schedules, cron
 * jobs and executions; `jobs:write` changes them (create, update, delete, trigger, replay,
 * backfill, bulk actions) and implies `jobs:read`; `keys:manage` manages API keys and
 * notification channels; `metrics:read` reads the metrics and the live nodes. A key holds a
 * non-empty subset; keys made on the server (`punctual keys create`, `PUNCTUAL_BOOTSTRAP_TOKEN`)
 * and keys made before scopes existed hold all of them.
 */
export const API_KEY_SCOPES = ['jobs:read', 'jobs:write', 'keys:manage', 'metrics:read'] as const;
/** One of {@link API_KEY_SCOPES}. */
export type ApiKeyScope = (typeof API_KEY_SCOPES)[number];

/**
 * What may manage a job (its `managedBy`, set at create and never changed): `apply`, the
 * `punctual apply` command (docs/apply.md), which deletes with `--prune` only the jobs it manages.
 */
export const JOB_MANAGERS = ['apply'] as const;
/** One of {@link JOB_MANAGERS}. */
export type JobManager = (typeof JOB_MANAGERS)[number];
