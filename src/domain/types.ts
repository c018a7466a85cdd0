/**
 * The resources of the interface (spec §2) as the service holds them: instants are epoch
 * milliseconds (UTC) here and become ISO 8601 strings only at the HTTP edge.
 */

/** A JSON object, as accepted in `data` (spec §2: "record (JSON object)"). */
export type JsonObject = { [key: string]: unknown };

/** API key states (spec §3). */
export type ApiKeyStatus = 'Enabled' | 'Disabled';

/** An API key without its secret. The store keeps only the SHA-256 digest of the token. */
export interface ApiKey {
  id: string;
  name: string;
  status: ApiKeyStatus;
  /** Epoch ms (UTC). */
  createdAt: number;
  /** Epoch ms (UTC) of the last authenticated request, or null when never used. */
  lastUsed: number | null;
}

/**
 * Schedule states. The spec names `Pending`; the rest follow issue #2:
 * `Pending` → `Running` (call in flight) → `Succeeded` (2xx) | `Failed`.
 */
export type ScheduleStatus = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

/** A one-time job (spec §2 "Schedule"). */
export interface Schedule {
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
}

/** Cron job states (spec §3). */
export type CronJobStatus = 'Active' | 'Paused';

/** A recurring job (spec §2 "Cron job"). */
export interface CronJob {
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
}

/** Kinds of job an execution belongs to. */
export type JobType = 'schedule' | 'cron';

/** Execution states (issue #3 adds `Retrying`). */
export type ExecutionStatus = 'Pending' | 'Running' | 'Retrying' | 'Succeeded' | 'Failed';

/**
 * Work handed to the dispatcher by a claim: one attempt of one execution, with a snapshot of what
 * to call. The claimer holds a lease on it until `leaseExpiresAt`.
 */
export interface ClaimedExecution {
  executionId: string;
  jobType: JobType;
  jobId: string;
  /** Epoch ms (UTC): the occurrence this execution is for. */
  scheduledFor: number;
  /** 1 for the first attempt. */
  attempt: number;
  endpoint: string;
  data: JsonObject;
  /** Epoch ms (UTC). */
  leaseExpiresAt: number;
}

/** The outcome of one attempt, as recorded by the dispatcher. */
export interface AttemptOutcome {
  executionId: string;
  /** `Succeeded` on a 2xx answer, `Failed` otherwise (issue #3 adds retries). */
  status: 'Succeeded' | 'Failed';
  /** Epoch ms (UTC) when the attempt started. */
  startedAt: number;
  durationMs: number;
  /** HTTP status, or null when no answer came (connection error, timeout). */
  statusCode: number | null;
  /** Why the attempt failed, or null. */
  error: string | null;
  /** First 1 KiB of the response body, as text. */
  responseBody: string | null;
}
