/** How the CLI prints executions: a table of many, the detail of one, or the JSON with `--json`. */
import type { Execution } from '../client/index.js';
import { detailTable, listTable, out, printJson } from './output.js';

/** One line of an execution's outcome: the last attempt's status code or error. */
function lastResult(e: Execution): string {
  const last = e.attempts[e.attempts.length - 1];
  if (!last) return '-';
  return last.statusCode === null ? (last.error ?? '-') : `HTTP ${last.statusCode}`;
}

/** A table of executions, one per row. */
export function executionsTable(executions: Execution[]): string {
  return listTable(
    ['ID', 'STATUS', 'SCHEDULED FOR', 'TRIGGERED', 'ATTEMPTS', 'LATE MS', 'LAST RESULT'],
    executions.map((e) => [e.id, e.status, e.scheduledFor, e.triggered ? 'yes' : 'no', e.attempts.length, e.lateMs, lastResult(e)]),
  );
}

/** An execution's fields, then a table of its attempts (if any). */
export function executionDetail(e: Execution): string {
  const { attempts, ...fields } = e;
  const head = detailTable(fields);
  if (attempts.length === 0) return `${head}\nNo attempts yet.`;
  const table = listTable(
    ['ATTEMPT', 'STARTED AT', 'DURATION MS', 'STATUS CODE', 'ERROR', 'RESPONSE'],
    attempts.map((a) => [a.number, a.startedAt, a.durationMs, a.statusCode, a.error, a.responseBody?.slice(0, 80) ?? null]),
  );
  return `${head}\n${table}`;
}

/** Prints an execution: as JSON with `--json`, else its fields and attempts. */
export function printExecution(e: Execution, opts: { json?: boolean }): void {
  if (opts.json) printJson(e);
  else out(executionDetail(e));
}
