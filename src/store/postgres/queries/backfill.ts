/**
 * PostgreSQL's backfill of cron jobs (`Store.cronBackfill`): only SQL; which occurrences and how
 * they are paced is store/rules/backfill.ts.
 */
import { newId } from '../../../domain/ids.js';
import type { Execution, OverlapPolicy } from '../../../domain/types.js';
import { backfillRows } from '../../rules/backfill.js';
import { PASS_THROUGH } from '../../rows/jobs.js';
import * as execRows from '../../rows/executions.js';
import type { CronBackfillParams } from '../../contract/executions.js';
import type { PgContext, NotifyContext, Sql } from '../connection.js';
import { notifySql } from '../notify.js';
import type { Operations } from '../../sql-store.js';

/**
 * See `Store.cronBackfill`; runs in the caller's transaction. The job's row is locked (FOR UPDATE),
 * so no claim inserts its occurrences meanwhile (claims skip locked jobs); the rows go in with one
 * INSERT … ON CONFLICT DO NOTHING (executions_occurrence), and the first due instant is announced.
 */
export async function cronBackfill(sql: Sql, n: NotifyContext, p: CronBackfillParams): Promise<Execution[] | 'not_found'> {
  const [job] = await sql.rows<{ overlap: OverlapPolicy; in_progress: boolean }>(
    `SELECT c.overlap, EXISTS (SELECT 1 FROM executions x
                                WHERE x.job_type = 'cron' AND x.job_id = c.id AND x.status IN ('Pending', 'Running', 'Retrying')) AS in_progress
       FROM cron_jobs c WHERE c.id = $1 FOR UPDATE OF c`,
    [p.jobId],
  );
  if (!job) return 'not_found';
  if (p.occurrences.length === 0) return [];
  const now = Math.floor(p.now);
  const have = new Set(
    (
      await sql.rows<{ scheduled_for: number }>(
        `SELECT scheduled_for FROM executions
          WHERE job_type = 'cron' AND job_id = $1 AND scheduled_for = ANY($2::bigint[]) AND NOT triggered`,
        [p.jobId, p.occurrences],
      )
    ).map((r) => Number(r.scheduled_for)),
  );
  const rows = backfillRows(p.occurrences, (o) => have.has(o), job.overlap, () => job.in_progress, now);
  if (rows.length === 0) return [];
  const inserted = await sql.rows<execRows.ExecutionRow>(
    `INSERT INTO executions (id, job_type, job_id, scheduled_for, due_at, triggered, backfill, status, attempt, created_at, next_attempt_at,
                             flow_control_key)
     SELECT r.id, 'cron', $1, r.scheduled_for, $2, false, true, 'Pending', 0, $2, r.next_attempt_at,
            (SELECT flow_control_key FROM cron_jobs WHERE id = $1)
       FROM unnest($3::text[], $4::bigint[], $5::bigint[]) WITH ORDINALITY AS r(id, scheduled_for, next_attempt_at, ord)
      ORDER BY r.ord
     ON CONFLICT (job_type, job_id, scheduled_for) WHERE NOT triggered DO NOTHING
     RETURNING ${execRows.EXECUTION_COLUMNS}`,
    [p.jobId, now, rows.map(() => newId()), rows.map((r) => r.scheduledFor), rows.map((r) => r.nextAttemptAt)],
  );
  const first = Math.min(...rows.map((r) => r.nextAttemptAt));
  await sql.rows(`SELECT ${notifySql('$1::bigint', '$2', n.clock)} AS notified`, [first, n.channel]);
  return inserted.map((r) => execRows.executionFromRow(PASS_THROUGH, r, [])).sort((a, b) => a.scheduledFor - b.scheduledFor);
}

/** The store operations of the backfill of cron jobs (store/sql-store.ts). */
export const backfillOperations = {
  cronBackfill: async (c, p) => {
    const n = await c.notifyContext();
    return c.tx((sql) => cronBackfill(sql, n, p));
  },
} satisfies Partial<Operations<PgContext>>;
