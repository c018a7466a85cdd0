/**
 * The audit log (docs/keys-and-audit.md): one event per change made through the API or the CLI, and per
 * change the service makes by itself (an auto-pause), written in the transaction of the change.
 * The closed lists of actions and resource types live here; the rules of the rows (the diff, the
 * redaction, the SQL valid in both dialects) are src/store/rules/audit.ts.
 */

/**
 * Every action an audit event may record, as `<resource>.<verb>`. Closed: an event with another
 * action cannot be written. `auth.failure` counts the failed sign-ins of one source address within
 * one minute (one event per address and minute, its `changes.count.after` the count). A bulk
 * action (`schedule.bulk`, `cron.bulk`, `execution.bulkReplay`) is one event whose `resourceId` is
 * `*` and whose changes are its parameters and the count of rows it changed.
 */
export const AUDIT_ACTIONS = [
  'schedule.create',
  'schedule.update',
  'schedule.delete',
  'schedule.trigger',
  'cron.create',
  'cron.update',
  'cron.pause',
  'cron.resume',
  'cron.delete',
  'cron.trigger',
  'cron.autoPause',
  'cron.backfill',
  'schedule.bulk',
  'cron.bulk',
  'execution.replay',
  'execution.bulkReplay',
  'apiKey.create',
  'apiKey.update',
  'apiKey.delete',
  'apiKey.rotate',
  'channel.create',
  'channel.update',
  'channel.delete',
  'auth.failure',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** What an event is about: the kind of its `resourceId`. `address` is a source address (`auth.failure`). */
export const AUDIT_RESOURCE_TYPES = ['schedule', 'cronJob', 'execution', 'apiKey', 'channel', 'address'] as const;
export type AuditResourceType = (typeof AUDIT_RESOURCE_TYPES)[number];

/**
 * Who made a change: an API key (its id and its name at the time), `cli` (a command that writes
 * the store directly, e.g. `punctual keys create --local`) or `system` (the service itself: an
 * auto-pause, the count of failed sign-ins).
 */
export type AuditActor = { keyId: string; keyName: string } | 'cli' | 'system';

/** One changed field: its value before (absent for a create) and after (absent for a delete). */
export interface AuditFieldChange {
  before?: unknown;
  after?: unknown;
}

/** An event of the audit log. Instants are epoch ms (UTC). */
export interface AuditEvent {
  /** UUID v7 (ids.ts). */
  id: string;
  occurredAt: number;
  actor: AuditActor;
  action: AuditAction;
  resourceType: AuditResourceType;
  resourceId: string;
  /** The id of the HTTP request that made the change (`X-Request-Id`), or null (CLI, system). */
  requestId: string | null;
  /** The client's address (`request.ip`), or null (CLI, system). */
  sourceAddress: string | null;
  /** Field name → change; secrets are `"[redacted]"` (src/store/rules/audit.ts, `redact`). */
  changes: Record<string, AuditFieldChange>;
}

/**
 * Who and where, as the HTTP layer (or the CLI) knows it: what a use case passes on to the store
 * with the action it performs. See `auditRecord`.
 */
export interface AuditContext {
  actor: AuditActor;
  requestId: string | null;
  sourceAddress: string | null;
}

/**
 * What a store operation that changes something takes to write its audit event (params field
 * `audit`): the context, the action and the instant (epoch ms, UTC). The store adds the resource
 * and the changes, from the rows before and after, inside its transaction.
 */
export interface AuditRecord extends AuditContext {
  action: AuditAction;
  at: number;
}

/**
 * The record of `action` at `at` for a change made in `ctx`, or undefined when there is no
 * context (a caller that does not audit: tests, tools), so that use cases pass it on in one line.
 */
export function auditRecord(ctx: AuditContext | undefined, action: AuditAction, at: number): AuditRecord | undefined {
  return ctx && { ...ctx, action, at };
}
