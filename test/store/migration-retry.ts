/**
 * The retry-steps migration (SQLite 9, PostgreSQL 8), written once for both stores: jobs stored
 * before it keep the exponential policy they were created with (`delaysMs` null), their waiting
 * retries included, while new jobs store their steps. Each store's test seeds a database at the
 * version before with {@link OLD_RETRY_SEED} (SQL valid in both dialects), migrates it by opening
 * the store, then runs {@link expectOldRetryKept}.
 */
import { expect } from 'vitest';
import { newId } from '../../src/domain/ids.js';
import { DEFAULT_RETRY_POLICY } from '../../src/domain/retry-policy.js';
import type { Store } from '../../src/store/store.js';

/** The ids of the seeded rows. */
export interface OldRetryIds {
  schedule: string;
  cron: string;
  retrying: string;
  execution: string;
}

/** Epoch ms of the seed: the retrying execution's next attempt. */
export const OLD_T0 = Date.parse('2026-11-21T10:00:00.000Z');

/** New ids for a seed. */
export function oldRetryIds(): OldRetryIds {
  return { schedule: newId(), cron: newId(), retrying: newId(), execution: newId() };
}

/**
 * Statements that seed a database at the version before the migration: a Pending schedule and an
 * Active cron job with their own exponential policies, and a Running schedule whose execution is
 * Retrying, its next attempt due at {@link OLD_T0}.
 */
export function OLD_RETRY_SEED(ids: OldRetryIds): string[] {
  const t = OLD_T0;
  return [
    `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, data, tags, created_at, retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms)
     VALUES ('${ids.schedule}', 'old', ${t + 3_600_000}, 'Pending', 'https://e.example/s', '{}', '[]', ${t - 10}, 3, 2000, 60000)`,
    `INSERT INTO cron_jobs (id, expression, name, timezone, status, endpoint, data, invocations, next_invocation, created_at, retry_max_attempts, retry_initial_delay_ms, retry_max_delay_ms)
     VALUES ('${ids.cron}', '0 * * * *', NULL, NULL, 'Active', 'https://e.example/c', NULL, 0, ${t + 3_600_000}, ${t - 10}, 7, 500, 30000)`,
    `INSERT INTO schedules (id, name, scheduled_at, status, endpoint, data, tags, created_at)
     VALUES ('${ids.retrying}', 'retrying', ${t - 60_000}, 'Running', 'https://e.example/r', '{}', '[]', ${t - 120_000})`,
    `INSERT INTO executions (id, job_type, job_id, scheduled_for, status, attempt, created_at, started_at, next_attempt_at)
     VALUES ('${ids.execution}', 'schedule', '${ids.retrying}', ${t - 60_000}, 'Retrying', 1, ${t - 60_000}, ${t - 60_000}, ${t})`,
  ];
}

/** After the migration: the seeded jobs and their retry read back exponential; a new job keeps its steps. */
export async function expectOldRetryKept(store: Store, ids: OldRetryIds): Promise<void> {
  expect((await store.scheduleGet({ id: ids.schedule }))?.retry).toEqual({ maxAttempts: 3, initialDelayMs: 2000, maxDelayMs: 60_000, delaysMs: null });
  expect((await store.cronGet({ id: ids.cron }))?.retry).toEqual({ maxAttempts: 7, initialDelayMs: 500, maxDelayMs: 30_000, delaysMs: null });
  // The column defaults of the older migrations: the policy every job had then.
  const exponential = { maxAttempts: 5, initialDelayMs: 1000, maxDelayMs: 3_600_000, delaysMs: null };
  expect(await store.executionGet({ id: ids.execution })).toMatchObject({ status: 'Retrying', nextAttemptAt: OLD_T0 });
  const { claimed } = await store.claimDue({ now: OLD_T0, limit: 10, nodeId: 'n', leaseMs: 5_000, misfireThresholdMs: 60_000 });
  expect(claimed).toHaveLength(1);
  expect(claimed[0]).toMatchObject({ executionId: ids.execution, attempt: 2, retry: exponential });
  const created = await store.scheduleCreate({
    id: newId(),
    name: 'new',
    scheduledAt: OLD_T0 + 60_000,
    endpoint: 'https://e.example/n',
    data: {},
    tags: [],
    retry: DEFAULT_RETRY_POLICY,
    timeoutMs: 30_000,
    now: OLD_T0,
  });
  expect((await store.scheduleGet({ id: created.id }))?.retry).toEqual(DEFAULT_RETRY_POLICY);
}
