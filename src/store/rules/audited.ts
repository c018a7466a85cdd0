/**
 * Which store operation writes which audit event (docs/keys-and-audit.md), in one table for both
 * stores: for each audited operation of the `Store`, the target of its event (rules/audit.ts)
 * from the operation's params. Each store runs exactly these operations through its `audited`
 * (the change and its event in one transaction); an operation absent here writes no event.
 */
import type { ApiKey, CronJob, Execution, Schedule } from '../../domain/types.js';
import type { NotificationChannel } from '../../domain/notifications.js';
import type { BulkResult, CronBulkParams, ScheduleBulkParams } from '../contract/bulk.js';
import type { ExecutionsReplayParams } from '../sql/execution-search.js';
import type { JobTriggerParams } from '../contract/pages.js';
import {
  backfillTarget,
  bulkWhat,
  createTarget,
  deleteTarget,
  manyTarget,
  replayWhat,
  triggerTarget,
  updateTarget,
  type AuditTarget,
} from './audit.js';

/** The params every audited operation takes an id from. */
type Id = { id: string };

/**
 * The target of each audited operation's event, by the `Store` method's name. The type
 * parameter of each target is the operation's result, which decides the state after.
 */
export const AUDITED = {
  apiKeyCreate: (p: Id): AuditTarget<ApiKey> => createTarget('apiKey', p.id),
  apiKeyUpdate: (p: Id): AuditTarget<ApiKey | null> => updateTarget('apiKey', p.id),
  apiKeyRotate: (p: Id): AuditTarget<ApiKey | null> => updateTarget('apiKey', p.id),
  apiKeyDelete: (p: Id): AuditTarget<boolean> => deleteTarget('apiKey', p.id),
  scheduleCreate: (p: Id): AuditTarget<Schedule> => createTarget('schedule', p.id),
  scheduleUpdate: (p: Id): AuditTarget<Schedule | 'not_found' | 'not_pending'> => updateTarget('schedule', p.id),
  scheduleDelete: (p: Id): AuditTarget<boolean> => deleteTarget('schedule', p.id),
  scheduleBulk: (p: ScheduleBulkParams): AuditTarget<BulkResult> => manyTarget('schedule', bulkWhat(p), (r: BulkResult) => (p.dryRun ? 0 : r.count)),
  cronCreate: (p: Id): AuditTarget<CronJob> => createTarget('cronJob', p.id),
  cronUpdate: (p: Id): AuditTarget<CronJob | null> => updateTarget('cronJob', p.id),
  cronDelete: (p: Id): AuditTarget<boolean> => deleteTarget('cronJob', p.id),
  cronBulk: (p: CronBulkParams): AuditTarget<BulkResult> => manyTarget('cronJob', bulkWhat(p), (r: BulkResult) => (p.dryRun ? 0 : r.count)),
  cronBackfill: (p: { jobId: string }): AuditTarget<Execution[] | 'not_found'> => backfillTarget(p.jobId),
  jobTrigger: (p: JobTriggerParams): AuditTarget<Execution | 'not_found' | 'not_pending'> =>
    triggerTarget(p.jobType === 'cron' ? 'cronJob' : 'schedule', p.jobId),
  executionReplay: (p: Id): AuditTarget<Execution | 'not_found' | 'not_failed' | 'job_deleted'> => updateTarget('execution', p.id),
  executionsReplay: (p: ExecutionsReplayParams): AuditTarget<number> => manyTarget('execution', replayWhat(p), (n: number) => n),
  channelCreate: (p: Id): AuditTarget<NotificationChannel> => createTarget('channel', p.id),
  channelUpdate: (p: Id): AuditTarget<NotificationChannel | null> => updateTarget('channel', p.id),
  channelDelete: (p: Id): AuditTarget<boolean> => deleteTarget('channel', p.id),
} as const;

/** The name of an audited operation of the `Store`. */
export type AuditedOperation = keyof typeof AUDITED;
