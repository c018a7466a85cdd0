/**
 * The parameter and answer types of the store's pages and triggers (`Store.schedulePage`,
 * `Store.cronPage`, `Store.executionList`, `Store.jobTrigger`); store.ts re-exports them.
 */
import type { AuditRecord } from '../../domain/audit.js';
import type { CronJob, Execution, JobType, Schedule } from '../../domain/types.js';

/** A page of a job's executions (`Store.executionList`); `cursor` as that method says. */
export interface ExecutionListParams {
  jobType: JobType;
  jobId: string;
  limit: number;
  cursor: string | null;
}

/** A page of schedules, oldest first; `nextCursor` is null on the last page. */
export interface SchedulePage {
  schedules: Schedule[];
  nextCursor: string | null;
}

/** A page of cron jobs, oldest first; `nextCursor` is null on the last page. */
export interface CronJobPage {
  cronJobs: CronJob[];
  nextCursor: string | null;
}

/** A page of executions, newest first; `nextCursor` is null on the last page. */
export interface ExecutionPage {
  executions: Execution[];
  nextCursor: string | null;
}

/** A run of a job now (`Store.jobTrigger`): `id` of the new execution, `now` epoch ms (UTC). */
export interface JobTriggerParams {
  /** When given, the trigger writes this audit event in its transaction (store/rules/audit.ts). */
  audit?: AuditRecord;
  jobType: JobType;
  jobId: string;
  id: string;
  now: number;
}
