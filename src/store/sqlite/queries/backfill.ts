/**
 * SQLite's backfill of cron jobs (`Store.cronBackfill`): only SQL; which occurrences and how they
 * are paced is store/rules/backfill.ts.
 */
import type { Execution, OverlapPolicy } from '../../../domain/types.js';
import { backfillRows } from '../../rules/backfill.js';
import * as execRows from '../../rows/executions.js';
import type { CronBackfillParams } from '../../contract/executions.js';
import { IN_PROGRESS_SQL } from '../claim/sql.js';
import type { Db } from '../connection.js';
import { newId } from '../../../domain/ids.js';
import { SQLITE_CODEC } from '../connection.js';
import type { Operations } from '../../sql-store.js';

/** The statements of a backfill. */
export class BackfillQueries {
  private readonly overlap;
  private readonly existing;
  private readonly inProgress;
  private readonly insert;
  private readonly tx;

  constructor(db: Db) {
    this.overlap = db.prepare<[string], { overlap: OverlapPolicy }>('SELECT overlap FROM cron_jobs WHERE id = ?');
    // A range of executions_by_job: the job's occurrences between the first and the last asked.
    this.existing = db.prepare<[string, number, number], { scheduled_for: number }>(
      `SELECT scheduled_for FROM executions
        WHERE job_type = 'cron' AND job_id = ? AND scheduled_for >= ? AND scheduled_for <= ? AND triggered = 0`,
    );
    this.inProgress = db.prepare<[string], { one: number }>(IN_PROGRESS_SQL);
    this.insert = db.prepare<[{ id: string; jobId: string; scheduledFor: number; now: number; nextAttemptAt: number }], execRows.ExecutionRow>(
      `INSERT INTO executions (id, job_type, job_id, scheduled_for, due_at, triggered, backfill, status, attempt, created_at, next_attempt_at,
         flow_control_key)
       VALUES (:id, 'cron', :jobId, :scheduledFor, :now, 0, 1, 'Pending', 0, :now, :nextAttemptAt,
         (SELECT flow_control_key FROM cron_jobs WHERE id = :jobId))
       ON CONFLICT (job_type, job_id, scheduled_for) WHERE triggered = 0 DO NOTHING
       RETURNING ${execRows.EXECUTION_COLUMNS}`,
    );
    this.tx = db.transaction((p: CronBackfillParams): Execution[] | 'not_found' => {
      const job = this.overlap.get(p.jobId);
      if (!job) return 'not_found';
      if (p.occurrences.length === 0) return [];
      const now = Math.floor(p.now);
      const have = new Set(
        this.existing.all(p.jobId, p.occurrences[0]!, p.occurrences[p.occurrences.length - 1]!).map((r) => r.scheduled_for),
      );
      const rows = backfillRows(p.occurrences, (o) => have.has(o), job.overlap, () => this.inProgress.get(p.jobId) !== undefined, now);
      const out: Execution[] = [];
      for (const r of rows) {
        const row = this.insert.get({ id: newId(), jobId: p.jobId, scheduledFor: r.scheduledFor, now, nextAttemptAt: r.nextAttemptAt });
        if (row) out.push(execRows.executionFromRow(SQLITE_CODEC, row, []));
      }
      return out;
    });
  }

  /** See `Store.cronBackfill`. One IMMEDIATE transaction. */
  backfill(p: CronBackfillParams): Execution[] | 'not_found' {
    return this.tx.immediate(p);
  }
}

/** The store operations of the backfill of cron jobs (../../sql-store.ts), on the statements of BackfillQueries. */
export const backfillOperations = {
  cronBackfill: (q, p) => q.backfill.backfill(p),
} satisfies Partial<Operations<{ backfill: BackfillQueries }>>;
