import type { AttemptOutcome } from '../../domain/types.js';
import type { Db } from './connection.js';

/** The `executions` table outside the claim: recording outcomes. Statements prepared once. */
export class ExecutionQueries {
  private readonly finishOne;
  private readonly settleSchedule;
  private readonly finishTx;

  constructor(db: Db) {
    // Only a row still leased to this node changes. A lease that expired but was not yet taken
    // over still counts as held: the call did finish, and recording it saves a duplicate call.
    // finished_at is the end of the attempt (start + duration): the store reads no clock.
    this.finishOne = db.prepare<[object], { job_type: string; job_id: string }>(
      `UPDATE executions SET
         status = :status,
         started_at = coalesce(started_at, :startedAt),
         finished_at = :startedAt + :durationMs,
         lease_expires_at = NULL,
         last_status_code = :statusCode,
         last_error = :error,
         last_duration_ms = :durationMs,
         last_response_body = :responseBody
       WHERE id = :executionId AND lease_owner = :nodeId AND status = 'Running'
       RETURNING job_type, job_id`,
    );
    // A deleted schedule has no row to update: nothing happens.
    this.settleSchedule = db.prepare<[{ id: string; status: string }]>(
      `UPDATE schedules SET status = :status WHERE id = :id AND status = 'Running'`,
    );
    this.finishTx = db.transaction((nodeId: string, outcomes: readonly AttemptOutcome[]) => {
      for (const o of outcomes) {
        const e = this.finishOne.get({
          executionId: o.executionId,
          nodeId,
          status: o.status,
          startedAt: Math.floor(o.startedAt), // STRICT INTEGER columns: whole ms
          durationMs: Math.round(o.durationMs),
          statusCode: o.statusCode ?? null,
          error: o.error ?? null,
          responseBody: o.responseBody ?? null,
        });
        if (e?.job_type === 'schedule') this.settleSchedule.run({ id: e.job_id, status: o.status });
      }
    });
  }

  /** Records a batch of outcomes in one IMMEDIATE transaction (one fsync for the batch). */
  finish(nodeId: string, outcomes: readonly AttemptOutcome[]): void {
    if (outcomes.length > 0) this.finishTx.immediate(nodeId, outcomes);
  }
}
