/**
 * Examples of the wire shapes, for the OpenAPI document and its reference page.
 * Typed with the wire types, so the compiler refuses an example that no longer fits its schema.
 * The document gives them to the named schemas as JSON Schema `examples` (`openapi-document.ts`);
 * the route schemas themselves do not carry them (they would make the wire types circular).
 */
import type { ApiKeyCreateBody, ApiKeyCreatedWire, ApiKeyPatchBody, ApiKeyWire } from './api-keys.js';
import type { CronCreateBody, CronJobWire, CronPatchBody } from './cron-jobs.js';
import type { AttemptWire, ExecutionWire } from './executions.js';
import type { ScheduleCreateBody, SchedulePatchBody, ScheduleWire } from './schedules.js';

/** The default policy: 8 attempts, steps of 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h. */
const RETRY = {
  maxAttempts: 8,
  initialDelayMs: 1000,
  maxDelayMs: 43200000,
  delaysMs: [5000, 300000, 1800000, 7200000, 18000000, 36000000, 36000000],
};

/** An exponential policy (`delaysMs` null): a job that asked for `initialDelayMs` / `maxDelayMs`. */
const EXPONENTIAL_RETRY = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3600000, delaysMs: null };

export const SCHEDULE_EXAMPLE: ScheduleWire = {
  id: '019aa5c2-5e00-7c3a-8d2b-3f6e1a9b4c70',
  name: 'Remind Ada of invoice INV-1042',
  scheduledAt: '2026-11-21T10:00:00.000Z',
  runsImmediately: false,
  status: 'Pending',
  endpoint: 'https://billing.example.com/hooks/reminder',
  data: { invoiceId: 'INV-1042', customer: 'ada@example.com' },
  tags: ['billing', 'reminders'],
  createdAt: '2026-11-20T08:30:00.000Z',
  retry: RETRY,
  timeoutMs: 30000,
  method: 'POST',
  headers: { 'X-Tenant': 'acme' },
  body: null,
  secretHeaderNames: ['X-Api-Key'],
  auth: null,
  signingSecretSet: false,
  successStatuses: ['2xx'],
  key: null,
  managedBy: null,
  flowControlKey: null,
};

export const SCHEDULE_CREATE_EXAMPLE: ScheduleCreateBody = {
  name: 'Remind Ada of invoice INV-1042',
  scheduledAt: '2026-11-21T11:00:00+01:00',
  endpoint: 'https://billing.example.com/hooks/reminder',
  data: { invoiceId: 'INV-1042', customer: 'ada@example.com' },
  tags: ['billing', 'reminders'],
  headers: { 'X-Tenant': 'acme' },
  secretHeaders: { 'X-Api-Key': 'k_live_…' },
};

export const SCHEDULE_PATCH_EXAMPLE: SchedulePatchBody = {
  scheduledAt: '2026-11-22T09:00:00Z',
  retry: { maxAttempts: 4, delaysMs: [10000, 60000, 600000] },
};

export const CRON_JOB_EXAMPLE: CronJobWire = {
  id: '019aa5c2-7a10-7e41-9c55-0b8d2e6f1a23',
  expression: '0 9 * * MON-FRI',
  name: 'Daily digest',
  invocations: 12,
  timezone: 'Europe/Berlin',
  status: 'Active',
  endpoint: 'https://mail.example.com/hooks/digest',
  data: null,
  createdAt: '2026-11-03T16:12:45.120Z',
  nextInvocation: '2026-11-23T08:00:00.000Z',
  retry: EXPONENTIAL_RETRY,
  timeoutMs: 30000,
  method: 'PUT',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: 'list=team&format=html',
  secretHeaderNames: [],
  auth: { type: 'oauth2', tokenUrl: 'https://auth.example.com/oauth/token', clientId: 'punctual', scope: 'newsletter:send', audience: null },
  signingSecretSet: true,
  misfire: 'once',
  overlap: 'allow',
  lastInvocation: '2026-11-20T08:00:00.000Z',
  lastStatus: 'Succeeded',
  skippedOccurrences: 0,
  successStatuses: ['2xx', 304],
  pauseAfterFailures: 10,
  pausedReason: null,
  consecutiveFailures: 0,
  startAt: null,
  endAt: '2027-03-31T22:00:00.000Z',
  maxInvocations: null,
  jitterMs: 60000,
  tags: ['newsletter', 'nightly'],
  key: 'daily-digest',
  managedBy: 'apply',
  flowControlKey: null,
};

export const CRON_CREATE_EXAMPLE: CronCreateBody = {
  expression: '0 9 * * MON-FRI',
  name: 'Daily digest',
  tags: ['newsletter', 'nightly'],
  timezone: 'Europe/Berlin',
  endpoint: 'https://mail.example.com/hooks/digest',
  method: 'PUT',
  headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  body: 'list=team&format=html',
  auth: { type: 'oauth2', tokenUrl: 'https://auth.example.com/oauth/token', clientId: 'punctual', clientSecret: 's3cr3t', scope: 'newsletter:send' },
  successStatuses: ['2xx', 304],
  pauseAfterFailures: 10,
  retry: { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3600000 },
  endAt: '2027-03-31T22:00:00.000Z',
  jitterMs: 60000,
};

export const CRON_PATCH_EXAMPLE: CronPatchBody = { status: 'Paused', pausedReason: 'digest template being rewritten' };

export const ATTEMPT_EXAMPLE: AttemptWire = {
  number: 1,
  startedAt: '2026-11-21T10:00:00.012Z',
  durationMs: 184,
  statusCode: 200,
  error: null,
  responseBody: '{"ok":true}',
  method: 'POST',
  url: 'https://billing.example.com/hooks/reminder',
  traceId: '019aa8e01f407b6da1c35d9e7f2b8c04',
  spanId: '5f3a9c1e7b2d4068',
  waitedMs: null,
};

export const EXECUTION_EXAMPLE: ExecutionWire = {
  id: '019aa8e0-1f40-7b6d-a1c3-5d9e7f2b8c04',
  jobType: 'schedule',
  jobId: SCHEDULE_EXAMPLE.id,
  scheduledFor: '2026-11-21T10:00:00.000Z',
  status: 'Succeeded',
  triggered: false,
  backfill: false,
  createdAt: '2026-11-21T10:00:00.000Z',
  startedAt: '2026-11-21T10:00:00.012Z',
  finishedAt: '2026-11-21T10:00:00.196Z',
  lateMs: 12,
  jitterMs: 0,
  nextAttemptAt: null,
  missedOccurrences: null,
  flowControlKey: null,
  waitingFor: null,
  attempts: [ATTEMPT_EXAMPLE],
};

export const API_KEY_EXAMPLE: ApiKeyWire = {
  id: '019a4f10-0c00-7a2e-b7d4-8e3f5a1c6b92',
  name: 'billing-service',
  status: 'Enabled',
  createdAt: '2026-11-01T12:00:00.000Z',
  lastUsed: '2026-11-21T09:59:58.000Z',
  scopes: ['jobs:read', 'jobs:write'],
  expiresAt: '2027-11-01T00:00:00.000Z',
  previousTokenExpiresAt: null,
};

export const API_KEY_CREATED_EXAMPLE: ApiKeyCreatedWire = {
  ...API_KEY_EXAMPLE,
  lastUsed: null,
  token: 'pk_3q2-7wEXAMPLEonlyEXAMPLEonlyEXAMPLEonly-_0a',
};

export const API_KEY_CREATE_EXAMPLE: ApiKeyCreateBody = { name: 'billing-service' };

export const API_KEY_PATCH_EXAMPLE: ApiKeyPatchBody = { status: 'Disabled' };
