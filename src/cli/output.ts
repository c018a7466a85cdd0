/**
 * What the API commands print: tables for people (cli-table3, no colours), or with `--json` the
 * API's JSON exactly as it answered (indented by 2 spaces), for scripts.
 */
import { createRequire } from 'node:module';
import type TableType from 'cli-table3';

/**
 * cli-table3, loaded at the first table rather than at start: `--version`, `--help` and `--json`
 * output do not need it, and it is one of the larger parts of the command's start.
 */
let TableClass: typeof TableType | undefined;
function newTable(options: ConstructorParameters<typeof TableType>[0]): InstanceType<typeof TableType> {
  TableClass ??= createRequire(import.meta.url)('cli-table3') as typeof TableType;
  return new TableClass(options);
}

/** Writes a line (or lines) to stdout. */
export function out(text: string): void {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`);
}

/** Writes `value` as JSON (2-space indent) to stdout. */
export function printJson(value: unknown): void {
  out(JSON.stringify(value, null, 2));
}

/** A cell: null and undefined as `-`, strings as they are, arrays of strings comma-separated, anything else as JSON. */
export function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value.length === 0 ? '-' : value.join(', ');
  return JSON.stringify(value);
}

const STYLE = { head: [] as string[], border: [] as string[], compact: true };

/** A table with a header row and one row per item. */
export function listTable(head: string[], rows: unknown[][]): string {
  const table = newTable({ head, style: STYLE });
  for (const row of rows) table.push(row.map(cell));
  return table.toString();
}

/** A two-column table, one row per field: `field │ value`. */
export function detailTable(fields: Record<string, unknown>): string {
  const table = newTable({ style: { ...STYLE, compact: false } });
  for (const [name, value] of Object.entries(fields)) table.push({ [name]: cell(value) });
  return table.toString();
}

/**
 * `retry` of a job in one cell: `8 attempts, steps 5000, 300000, … ms` for a policy with steps
 * (`delaysMs`), `5 attempts, delays 1000–3600000 ms` for the exponential rule.
 */
export function retryCell(retry: { maxAttempts: number; initialDelayMs: number; maxDelayMs: number; delaysMs?: number[] | null }): string {
  if (retry.delaysMs) return `${retry.maxAttempts} attempts, steps ${retry.delaysMs.join(', ')} ms`;
  return `${retry.maxAttempts} attempts, delays ${retry.initialDelayMs}–${retry.maxDelayMs} ms`;
}

/** The public part of a job's `auth`, as the API shows it (no secret). */
type AuthShown = { type: string; username?: string; tokenUrl?: string; clientId?: string; scope?: string | null; audience?: string | null };

/**
 * The cells of a job's request that read better than their JSON: `headers` one `Name: value` per
 * line, and `auth` as its type and public part, e.g. `oauth2, client punctual at https://…/token,
 * scope jobs`. Secret values are never in a job's answer, so never here.
 */
export function requestCells(j: { headers: Record<string, string>; auth: AuthShown | null }): { headers: string; auth: string | null } {
  const headers = Object.entries(j.headers).map(([name, value]) => `${name}: ${value}`).join('\n');
  const a = j.auth;
  let auth: string | null = null;
  if (a !== null) {
    const parts = [a.type];
    if (a.username !== undefined) parts.push(`user ${a.username}`);
    if (a.clientId !== undefined) parts.push(`client ${a.clientId} at ${a.tokenUrl}`);
    if (a.scope) parts.push(`scope ${a.scope}`);
    if (a.audience) parts.push(`audience ${a.audience}`);
    auth = parts.join(', ');
  }
  return { headers: headers === '' ? '-' : headers, auth };
}
