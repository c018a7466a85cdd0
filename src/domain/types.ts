/**
 * The resources of the interface (schedules, cron jobs, executions, API keys) as the service
 * holds them: instants are epoch milliseconds (UTC) here and become ISO 8601 strings only at the
 * HTTP edge. Their statuses, policies and job types are the lists of `enums.ts`, re-exported here.
 */
import type { ApiKeyScope, ApiKeyStatus, CronJobStatus, ExecutionStatus, HttpMethod, JobManager, JobType, MisfirePolicy, OverlapPolicy, ScheduleStatus } from './enums.js';
import type { SuccessStatus } from './success-statuses.js';

export type { ApiKeyScope, ApiKeyStatus, CronJobStatus, ExecutionStatus, HttpMethod, JobManager, JobType, MisfirePolicy, OverlapPolicy, ScheduleStatus } from './enums.js';
export type { StatusClass, SuccessStatus } from './success-statuses.js';

/** A JSON object, as accepted in `data` (a record: any JSON object). */
export type JsonObject = { [key: string]: unknown };

/** An API key without its secret. The store keeps only the SHA-256 digest of the token. */
export interface ApiKey {
  id: string;
  name: string;
  status: ApiKeyStatus;
  /** Epoch ms (UTC). */
  createdAt: number;
  /** Epoch ms (UTC) of the last authenticated request, or null when never used. */
  lastUsed: number | null;
  /** What the key may do: a non-empty list, in the order of `API_KEY_SCOPES` (domain/scopes.ts). */
  scopes: ApiKeyScope[];
  /** Epoch ms (UTC) from which the key is refused (401), or null when it never expires. */
  expiresAt: number | null;
  /**
   * Epoch ms (UTC) until which the token replaced by the last rotation is still accepted, or null
   * when the key was never rotated. A past instant: the old token is refused.
   */
  previousTokenExpiresAt: number | null;
}

/**
 * Retry settings of a job. Delays in ms. Stored with the job, defaults filled in at creation
 * (DEFAULT_RETRY_POLICY of retry-policy.ts, or the configuration's). Two rules of delay
 * (src/dispatch/call/retry.ts): explicit steps (`delaysMs`) with a ±20 % jitter, or, when `delaysMs` is
 * null, exponential backoff with full jitter from `initialDelayMs` up to `maxDelayMs`.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1–20). */
  maxAttempts: number;
  /** Upper bound of the first retry's delay (full jitter); used only when `delaysMs` is null. */
  initialDelayMs: number;
  /** Cap of an exponential delay and of a `Retry-After`; explicit steps are not capped by it. */
  maxDelayMs: number;
  /**
   * The delay before retry n is `delaysMs[n − 1]` (the last step repeated when `maxAttempts`
   * needs more), each with its jitter; 1–19 steps of 100–86,400,000 ms. Null (or absent, as in
   * policies written before steps existed): the exponential rule.
   */
  delaysMs?: number[] | null;
}

/** How a job's calls are made: its retry policy and the timeout of one attempt (ms). */
export interface DeliverySettings {
  retry: RetryPolicy;
  /** Timeout of one attempt in ms (1,000–900,000; default 30,000). */
  timeoutMs: number;
}

/**
 * The public part of how a job's calls authenticate to its target: the type and the fields that
 * are not secret (the password, token or client secret are {@link SealedSecrets}). Stored and
 * passed to the dispatcher; not on the HTTP API yet.
 */
export type TargetAuthPublic =
  | { type: 'basic'; username: string }
  | { type: 'bearer' }
  | { type: 'oauth2'; tokenUrl: string; clientId: string; scope: string | null; audience: string | null };

/**
 * A job's secrets, each sealed (encrypted) text by field name. Opaque to the store and the
 * service, which only keep and pass them on; never shown on the wire.
 */
export type SealedSecrets = Record<string, string>;

/**
 * What a job's calls send besides the endpoint (docs/calls.md): the method, the headers of every
 * attempt, a body given as text, and the target's authentication with its sealed secrets.
 */
export interface JobRequest {
  /** `POST` unless the job says. */
  method: HttpMethod;
  /** Header name (as given; names are case-insensitive) → value; `{}` when none. */
  headers: Record<string, string>;
  /** Sent as it is instead of the JSON of `data`, or null (then `data` is sent). */
  body: string | null;
  /** The public part of the target's authentication, or null for none. */
  auth: TargetAuthPublic | null;
  /** Sealed secrets of the target's authentication, or null for none. */
  secrets: SealedSecrets | null;
}

/** A one-time job. */
export interface Schedule extends DeliverySettings, JobRequest, JobIdentity {
  id: string;
  name: string;
  /** Epoch ms (UTC) at which the endpoint is called. */
  scheduledAt: number;
  status: ScheduleStatus;
  endpoint: string;
  /** Sent as the request body; `{}` when none was given. */
  data: JsonObject;
  tags: string[];
  /** Epoch ms (UTC). */
  createdAt: number;
  /**
   * Epoch ms (UTC) from which the schedule is due to the service: the later of `scheduledAt` and
   * the moment it was stored or its `scheduledAt` last changed. Lateness counts from here
   * (docs/interface.md, "Past instants").
   */
  dueAt: number;
  /**
   * What counts as success for the calls: status codes (100–599) and classes (`1xx` … `5xx`),
   * non-empty, no repeats; `['2xx']` unless the job says (success-statuses.ts, docs/calls.md).
   */
  successStatuses: SuccessStatus[];
}

/**
 * How a job is named by its owner and who manages it (docs/apply.md): `key`, unique among the jobs
 * of one kind (`[A-Za-z0-9._:-]{1,128}`, src/domain/job-key.ts), or null; `managedBy`, `apply`
 * for a job created by `punctual apply`, else null (set at create only); `flowControlKey`, the
 * flow-control key its calls count against (domain/flow-control.ts, docs/flow-control.md), or null.
 */
export interface JobIdentity {
  key: string | null;
  managedBy: JobManager | null;
  flowControlKey: string | null;
}

/** A recurring job. */
export interface CronJob extends DeliverySettings, JobRequest, JobIdentity {
  id: string;
  expression: string;
  name: string | null;
  /** Executions so far (claimed occurrences). */
  invocations: number;
  /** IANA time zone name; null means UTC. */
  timezone: string | null;
  status: CronJobStatus;
  endpoint: string;
  /** Sent as the request body (`{}` when null). */
  data: JsonObject | null;
  /** Epoch ms (UTC). */
  createdAt: number;
  /**
   * Epoch ms (UTC) of the next occurrence the dispatcher waits for. For a `Paused` job this is
   * the value stored when it was paused; the HTTP layer shows the occurrence it would run next.
   */
  nextInvocation: number;
  misfire: MisfirePolicy;
  overlap: OverlapPolicy;
  /** Epoch ms (UTC): `scheduledFor` of the job's latest execution, or null when it has none. */
  lastInvocation: number | null;
  /** Status of that execution, or null. */
  lastStatus: ExecutionStatus | null;
  /**
   * Occurrences dropped by misfire `skip` so far (each missed occurrence once, its Skipped
   * execution's included; counts of {@link MissedOccurrences.count}, so each claim adds at most
   * 1,000). Overlap-skipped occurrences are not counted here (they are Skipped executions). Only
   * the claim writes it; rules in docs/cron.md.
   */
  skippedOccurrences: number;
  /**
   * What counts as success for the calls: status codes (100–599) and classes (`1xx` … `5xx`),
   * non-empty, no repeats; `['2xx']` unless the job says (success-statuses.ts, docs/calls.md).
   */
  successStatuses: SuccessStatus[];
  /**
   * Consecutive `Failed` executions after which the job pauses itself (1–1,000), or null: never
   * (src/store/rules/outcome.ts, docs/cron.md "Auto-pause").
   */
  pauseAfterFailures: number | null;
  /**
   * Why the job is `Paused` (at most 512 characters): given by the PATCH that paused it, or set
   * by an auto-pause; null for an `Active` job and for one paused without a reason.
   */
  pausedReason: string | null;
  /**
   * `Failed` executions since the job's last `Succeeded` one (or since it was created or last
   * resumed); `Skipped` ones change nothing. Only the outcome writes it (store/rules/outcome.ts).
   */
  consecutiveFailures: number;
  /**
   * Epoch ms (UTC) before which the job has no occurrence, or null (docs/cron.md, "Start, end and
   * limits"); also the anchor of `@every` expressions (else `createdAt`).
   */
  startAt: number | null;
  /** Epoch ms (UTC) at and after which the job has no occurrence, or null; after `startAt` when both are set. */
  endAt: number | null;
  /** The job is `Completed` once `invocations` reaches this (1–1,000,000,000), or null: no limit. */
  maxInvocations: number | null;
  /**
   * Largest delay added to each occurrence, ms (0–3,600,000; 0: none): an occurrence runs at its
   * instant plus a delay in [0, jitterMs) fixed per occurrence (src/store/rules/cron-life.ts).
   */
  jitterMs: number;
  /** Labels to find the job by, as a schedule's `tags` (exact, case-sensitive); `[]` when none. */
  tags: string[];
}

/**
 * The occurrences one catch-up execution stands for (misfire `once`, docs/cron.md): present only
 * when it stands for two or more. Instants: epoch ms (UTC).
 */
export interface MissedOccurrences {
  /**
   * How many occurrences the execution stands for, its own (`first`, its `scheduledFor`)
   * included: >= 2. Counted up to 1,000 (`MISSED_COUNT_MAX`); when more were missed `capped` is
   * true and `count` is 1,000, a lower bound.
   */
  count: number;
  /** The oldest missed occurrence: the execution's `scheduledFor`. */
  first: number;
  /** The newest missed occurrence (at or before the claim), exact even when `capped`. */
  last: number;
  /** True when the count stopped at its cap (then the true count is larger). */
  capped: boolean;
}

/** One attempt of an execution. Times: epoch ms (UTC) and ms. */
export interface Attempt {
  /** 1 for the first attempt. */
  number: number;
  startedAt: number;
  durationMs: number;
  /** HTTP status, or null when no answer came. */
  statusCode: number | null;
  error: string | null;
  /** First 1 KiB of the response body, as text, or null. */
  responseBody: string | null;
  /** The method the attempt used (`POST` for attempts recorded before methods were kept). */
  method: HttpMethod;
  /** The URL the attempt called, or null for an attempt recorded before URLs were kept. */
  url: string | null;
  /**
   * The attempt's W3C Trace Context ids (domain/trace-context.ts): the trace id (32 lowercase hex
   * digits, the execution's) and the span id sent as `traceparent`'s parent-id (16), or null for
   * an attempt recorded before they were kept.
   */
  traceId: string | null;
  spanId: string | null;
  /**
   * How long the attempt waited for its flow-control key's limits before it started, ms (from the
   * instant it was due to the claim that started it); null for a call without a key.
   */
  waitedMs: number | null;
}

/** Every firing of a schedule and every occurrence of a cron job. */
export interface Execution {
  id: string;
  jobType: JobType;
  jobId: string;
  /** Epoch ms (UTC): the occurrence (for a trigger: the instant of the trigger). */
  scheduledFor: number;
  status: ExecutionStatus;
  /** True when made by `POST …/trigger` rather than by the job's time. */
  triggered: boolean;
  /**
   * True when made by a cron job's backfill (`POST /cron/{id}/backfill`, docs/cron.md "Backfill")
   * for a past occurrence that had no execution; false for every other execution.
   */
  backfill: boolean;
  createdAt: number;
  /** First attempt's start, or null before it. */
  startedAt: number | null;
  /** When it reached `Succeeded`, `Failed` or `Skipped`, or null. */
  finishedAt: number | null;
  /** Epoch ms (UTC) when its next attempt is due while it is `Retrying`; null in every other status. */
  nextAttemptAt: number | null;
  /**
   * First attempt's start minus the instant it was due (ms): `scheduledFor` plus its jitter, or a
   * schedule's `dueAt`; null before it.
   */
  lateMs: number | null;
  /**
   * The jitter applied to a cron occurrence (ms, in [0, the job's `jitterMs`)): it was due at
   * `scheduledFor` plus this. 0 for every other execution (no jitter, a trigger, a schedule).
   */
  jitterMs: number;
  /** The occurrences a catch-up execution stands for (misfire `once`), or null for one that stands for itself. */
  missedOccurrences: MissedOccurrences | null;
  /** The flow-control key its calls count against (copied from its job when it was made), or null. */
  flowControlKey: string | null;
  /**
   * `flowControl` for an execution of a key that is Pending or Retrying: its next call starts
   * when due and admitted by its key's limits (docs/flow-control.md); null otherwise.
   */
  waitingFor: 'flowControl' | null;
  /** Oldest first. */
  attempts: Attempt[];
}

/**
 * Work handed to the dispatcher by a claim: one attempt of one execution, with a snapshot of what
 * to call. The claimer holds a lease on it until `leaseExpiresAt`.
 */
export interface ClaimedExecution extends JobRequest {
  executionId: string;
  jobType: JobType;
  jobId: string;
  /** Epoch ms (UTC): the occurrence this execution is for. */
  scheduledFor: number;
  /**
   * Epoch ms (UTC) from which the execution was due to the service: `scheduledFor`, or later for
   * a schedule stored with a past instant (`Schedule.dueAt`). Lateness counts from here.
   */
  dueAt: number;
  /** 1 for the first attempt. */
  attempt: number;
  /**
   * Attempts made before the current attempt budget began (a replay starts a fresh budget,
   * docs/interface.md, "Replay"): the retry policy counts `attempt - retryBase`. Absent: 0.
   */
  retryBase?: number;
  /**
   * Epoch ms (UTC, the store's time) before which this attempt must not start: present only when
   * the claim took it before it was due (`ClaimDueParams.aheadMs`); absent, it may start at once.
   */
  notBefore?: number;
  endpoint: string;
  data: JsonObject;
  /** The job's retry policy and timeout, as they were when claimed. */
  retry: RetryPolicy;
  timeoutMs: number;
  /** The job's `successStatuses`, as they were when claimed. */
  successStatuses: SuccessStatus[];
  /** Epoch ms (UTC). */
  leaseExpiresAt: number;
  /**
   * The occurrences this execution stands for (sent on every attempt as
   * `Punctual-Missed-Occurrences`, docs/calls.md); absent for an execution that stands for itself.
   */
  missedOccurrences?: MissedOccurrences;
  /**
   * The flow-control key the execution counts against (domain/flow-control.ts); absent: none. A
   * 429 or 503 answer with `Retry-After` holds the key (`AttemptOutcome.flowControlHoldUntil`).
   */
  flowControlKey?: string;
  /**
   * How long this attempt waited for its key's limits before the claim started it, ms (from the
   * instant it was due to the claim); absent for a call without a key.
   */
  waitedMs?: number;
}

/** The outcome of one attempt, as recorded by the dispatcher. */
export interface AttemptOutcome {
  executionId: string;
  /** The attempt's number (1-based), as claimed. */
  attempt: number;
  /**
   * `Succeeded` (a status the job lists in `successStatuses`), `Retrying` (a retryable failure
   * with attempts left), `Failed`. A `Failed` outcome with `statusCode` 410 is *gone*: the store
   * pauses its cron job (src/store/rules/outcome.ts).
   */
  status: 'Succeeded' | 'Failed' | 'Retrying';
  /** Epoch ms (UTC) of the next attempt when `status` is `Retrying`, else null. */
  nextAttemptAt: number | null;
  /** Epoch ms (UTC) when the attempt started. */
  startedAt: number;
  durationMs: number;
  /** HTTP status, or null when no answer came (connection error, timeout). */
  statusCode: number | null;
  /** Why the attempt failed, or null. */
  error: string | null;
  /** First 1 KiB of the response body, as text. */
  responseBody: string | null;
  /** The method of the call made (the claim's); absent: `POST`. */
  method?: HttpMethod;
  /** The URL called (the claim's endpoint); absent: not known (recorded as null). */
  url?: string;
  /** The attempt's trace id and span id, as sent in `traceparent`; absent: not known (recorded as null). */
  traceId?: string;
  spanId?: string;
  /** The claimed item's `waitedMs` (recorded with the attempt); absent: it did not wait for a key. */
  waitedMs?: number;
  /**
   * For a call with a flow-control key answered 429 or 503 with `Retry-After`: the instant until
   * which its key starts no call (epoch ms, UTC; docs/flow-control.md, "429 and 503"); absent otherwise.
   */
  flowControlHoldUntil?: number;
  /** The claimed item's `flowControlKey`; absent: none. */
  flowControlKey?: string;
}
