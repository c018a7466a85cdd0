/**
 * Every call the console makes to the Punctual API, in one place, with the wire shapes of
 * src/http/schemas/*.ts. The API key is read from sessionStorage ({@link session}) and sent as
 * `Authorization: Bearer`; errors are RFC 9457 problem details, thrown as {@link ApiError}.
 *
 * Lists (`GET /schedules`, `GET /cron`) are paged and filtered by the service (issue #6 §4): the
 * console sends `limit`, `cursor`, `status`, `tag` (repeated) and `name`, and follows `nextCursor`.
 */

export type ScheduleStatus = 'Pending' | 'Running' | 'Succeeded' | 'Failed';
export type CronStatus = 'Active' | 'Paused';
export type ExecutionStatus = 'Pending' | 'Running' | 'Retrying' | 'Succeeded' | 'Failed' | 'Skipped';
export type JobType = 'schedule' | 'cron';
export type JsonObject = Record<string, unknown>;

/** Retry policy of a job; delays in ms. */
export interface RetryPolicy {
  maxAttempts: number;
  initialDelayMs: number;
  maxDelayMs: number;
}

/** A one-time job. Instants are ISO 8601 UTC strings. */
export interface Schedule {
  id: string;
  name: string;
  scheduledAt: string;
  status: ScheduleStatus;
  endpoint: string;
  data: JsonObject;
  tags: string[];
  createdAt: string;
  retry: RetryPolicy;
  timeoutMs: number;
}

export type MisfirePolicy = 'skip' | 'once' | 'all';
export type OverlapPolicy = 'allow' | 'skip';

/** A recurring job. */
export interface CronJob {
  id: string;
  expression: string;
  name: string | null;
  invocations: number;
  timezone: string | null;
  status: CronStatus;
  endpoint: string;
  data: JsonObject | null;
  createdAt: string;
  nextInvocation: string;
  retry: RetryPolicy;
  timeoutMs: number;
  misfire: MisfirePolicy;
  overlap: OverlapPolicy;
  lastInvocation: string | null;
  lastStatus: ExecutionStatus | null;
}

/** One call of an endpoint. */
export interface Attempt {
  number: number;
  startedAt: string;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
  responseBody: string | null;
}

/** One firing of a job, with its attempts (oldest first). */
export interface Execution {
  id: string;
  jobType: JobType;
  jobId: string;
  scheduledFor: string;
  status: ExecutionStatus;
  triggered: boolean;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  lateMs: number | null;
  attempts: Attempt[];
}

/** A page of a list; `nextCursor` is null on the last page (a page may be short while it is not). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** A problem with one input field: `path` is a JSON Pointer (`/name`, `/retry/maxAttempts`, `/query/count`). */
export interface FieldProblem {
  path: string;
  message: string;
}

/** RFC 9457 problem details, as the API answers every error. */
export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string;
  errors?: FieldProblem[];
}

/** A failed API call: the problem the service answered, or one made up for a network failure (status 0). */
export class ApiError extends Error {
  constructor(readonly problem: Problem) {
    super(problem.detail || problem.title);
    this.name = 'ApiError';
  }
  get status(): number {
    return this.problem.status;
  }
  get fieldErrors(): FieldProblem[] {
    return this.problem.errors ?? [];
  }
}

const TOKEN_KEY = 'punctual.apiKey';

/** The API key of this tab: sessionStorage only (gone when the tab closes or on sign-out). */
export const session = {
  get(): string | null {
    return sessionStorage.getItem(TOKEN_KEY);
  },
  set(token: string): void {
    sessionStorage.setItem(TOKEN_KEY, token);
  },
  clear(): void {
    sessionStorage.removeItem(TOKEN_KEY);
  },
};

let unauthorizedListener: ((problem: Problem) => void) | null = null;

/** Called when the service refuses the stored key (401 or 403), e.g. to go back to sign-in. */
export function onUnauthorized(listener: (problem: Problem) => void): void {
  unauthorizedListener = listener;
}

function isProblem(value: unknown): value is Problem {
  return typeof value === 'object' && value !== null && 'status' in value && 'title' in value;
}

async function request<T>(method: string, path: string, body?: unknown, token = session.get()): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  let res: Response;
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  } catch (err) {
    throw new ApiError({
      type: 'about:blank',
      title: 'Network error',
      status: 0,
      detail: `Could not reach Punctual (${(err as Error).message}).`,
    });
  }
  const text = await res.text();
  let parsed: unknown = undefined;
  if (text !== '') {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = undefined;
    }
  }
  if (!res.ok) {
    const problem: Problem = isProblem(parsed)
      ? parsed
      : { type: 'about:blank', title: res.statusText || 'Error', status: res.status, detail: text.slice(0, 200) };
    if ((res.status === 401 || res.status === 403) && token === session.get()) unauthorizedListener?.(problem);
    throw new ApiError(problem);
  }
  return parsed as T;
}

// ---- Keys -------------------------------------------------------------------------------------

/** Checks a key with `GET /schedules` (any authenticated read would do); throws the ApiError on refusal. */
export async function verifyKey(token: string): Promise<void> {
  await request('GET', '/schedules', undefined, token);
}

// ---- Lists --------------------------------------------------------------------------------------

/**
 * Filters and paging of a list (issue #6 §4). `tag`: every tag must match. `name`: a substring,
 * the letters A–Z in either case. `limit`: 1–1,000 (the service's default is 100).
 */
export interface ListQuery {
  limit?: number;
  cursor?: string | null;
  status?: string;
  tag?: string[];
  name?: string;
}

function queryString(q: ListQuery): string {
  const p = new URLSearchParams();
  if (q.limit !== undefined) p.set('limit', String(q.limit));
  if (q.cursor) p.set('cursor', q.cursor);
  if (q.status) p.set('status', q.status);
  for (const t of q.tag ?? []) if (t) p.append('tag', t);
  if (q.name) p.set('name', q.name);
  const s = p.toString();
  return s ? `?${s}` : '';
}

async function list<T>(path: string, key: string, q: ListQuery): Promise<Page<T>> {
  const answer = await request<Record<string, unknown> & { nextCursor: string | null }>('GET', path + queryString(q));
  return { items: answer[key] as T[], nextCursor: answer.nextCursor };
}

/** A page of schedules (oldest first). */
export function listSchedules(q: ListQuery = {}): Promise<Page<Schedule>> {
  return list<Schedule>('/schedules', 'schedules', q);
}

/** A page of cron jobs (oldest first). `tag` does not apply: cron jobs have no tags. */
export function listCronJobs(q: ListQuery = {}): Promise<Page<CronJob>> {
  return list<CronJob>('/cron', 'cronJobs', { ...q, tag: undefined });
}

/** Every item of a list (at most `max`), page by page from the service. */
export async function listAll<T>(fetchPage: (q: ListQuery) => Promise<Page<T>>, max = 5_000): Promise<T[]> {
  const all: T[] = [];
  let cursor: string | null = null;
  do {
    const page: Page<T> = await fetchPage({ limit: 1_000, cursor });
    all.push(...page.items);
    cursor = page.nextCursor;
  } while (cursor && all.length < max);
  return all.slice(0, max);
}

// ---- Schedules ----------------------------------------------------------------------------------

/** Body of POST /schedules and PATCH /schedules/{id} (in a PATCH, absent fields keep their values). */
export interface ScheduleInput {
  name?: string;
  scheduledAt?: string;
  endpoint?: string;
  data?: JsonObject;
  tags?: string[];
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
}

export const getSchedule = (id: string) => request<Schedule | null>('GET', `/schedules/${encodeURIComponent(id)}`);
export const createSchedule = (input: ScheduleInput) => request<Schedule>('POST', '/schedules', input);
export const updateSchedule = (id: string, input: ScheduleInput) =>
  request<Schedule>('PATCH', `/schedules/${encodeURIComponent(id)}`, input);
export const deleteSchedule = (id: string) => request<void>('DELETE', `/schedules/${encodeURIComponent(id)}`);

// ---- Cron jobs ----------------------------------------------------------------------------------

/** Body of POST /cron and PATCH /cron/{id}; null sets a nullable field to null. */
export interface CronInput {
  expression?: string;
  name?: string | null;
  timezone?: string | null;
  status?: CronStatus;
  endpoint?: string;
  data?: JsonObject | null;
  retry?: Partial<RetryPolicy>;
  timeoutMs?: number;
  misfire?: MisfirePolicy;
  overlap?: OverlapPolicy;
}

export const getCronJob = (id: string) => request<CronJob | null>('GET', `/cron/${encodeURIComponent(id)}`);
export const createCronJob = (input: CronInput) => request<CronJob>('POST', '/cron', input);
export const updateCronJob = (id: string, input: CronInput) =>
  request<CronJob>('PATCH', `/cron/${encodeURIComponent(id)}`, input);
export const deleteCronJob = (id: string) => request<void>('DELETE', `/cron/${encodeURIComponent(id)}`);

/** The next `count` occurrences (ISO UTC) of `expression` in `timezone` (UTC when empty), after `from` (now). */
export async function previewCron(expression: string, timezone: string | null, count = 5, from?: string): Promise<string[]> {
  const p = new URLSearchParams({ expression, count: String(count) });
  if (timezone) p.set('timezone', timezone);
  if (from) p.set('from', from);
  return (await request<{ occurrences: string[] }>('GET', `/cron/preview?${p.toString()}`)).occurrences;
}

// ---- Executions ---------------------------------------------------------------------------------

const jobPath = (jobType: JobType, id: string) =>
  `${jobType === 'schedule' ? '/schedules' : '/cron'}/${encodeURIComponent(id)}`;

/** A page of a job's executions, newest first (`limit` 1–100). */
export async function listExecutions(
  jobType: JobType,
  id: string,
  opts: { limit?: number; cursor?: string | null } = {},
): Promise<Page<Execution>> {
  const p = new URLSearchParams();
  if (opts.limit) p.set('limit', String(opts.limit));
  if (opts.cursor) p.set('cursor', opts.cursor);
  const qs = p.toString();
  const answer = await request<{ executions: Execution[]; nextCursor: string | null }>(
    'GET',
    `${jobPath(jobType, id)}/executions${qs ? `?${qs}` : ''}`,
  );
  return { items: answer.executions, nextCursor: answer.nextCursor };
}

/** Runs a job now (POST …/trigger); answers the new execution. */
export const triggerJob = (jobType: JobType, id: string) => request<Execution>('POST', `${jobPath(jobType, id)}/trigger`);
