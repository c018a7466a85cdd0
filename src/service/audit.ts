/**
 * The audit log's list (`GET /audit-events`, docs/keys-and-audit.md). Events are written by the use cases
 * that change things (their `audit` parameter, domain/audit.ts) inside the store's transactions.
 */
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES, type AuditAction, type AuditResourceType } from '../domain/audit.js';
import { parseIsoInstant } from '../domain/time.js';
import type { AuditPage } from '../store/contract/audit.js';
import type { Store } from '../store/store.js';
import { LIST_LIMIT_DEFAULT } from './job-lists.js';
import { Checks, LIST_LIMIT_MAX, LIST_LIMIT_MIN, wholeNumberMessage } from './rules.js';

/** Input of {@link listAuditEvents}: filters combine with AND; absent: any. */
export interface AuditListInput {
  actorKeyId?: string;
  resourceType?: string;
  resourceId?: string;
  action?: string;
  /** ISO 8601 with Z or an offset: `occurredAt >= from`. */
  from?: string;
  /** ISO 8601 with Z or an offset: `occurredAt < to`. */
  to?: string;
  /** 1–1,000; default 100. */
  limit?: number;
  cursor?: string | null;
}

/** Longest id accepted in a filter (`actorKeyId`, `resourceId`: an address or a UUID). */
export const AUDIT_ID_MAX = 200;

/**
 * A page of audit events, newest first (by `occurredAt`, then id), `limit` at a time.
 * @param pathPrefix prefixed to the field paths of errors (`/query` for a query string)
 * @throws InvalidInputError naming every faulty parameter: `limit` out of 1–1,000 or not whole,
 *   an `action` or `resourceType` not of the closed lists (domain/audit.ts), a `from` or `to`
 *   that is not an ISO 8601 instant, an id longer than {@link AUDIT_ID_MAX} or holding U+0000;
 *   a cursor the store did not make (`/query/cursor`)
 */
export async function listAuditEvents(store: Store, input: AuditListInput, pathPrefix = ''): Promise<AuditPage> {
  const limit = input.limit ?? LIST_LIMIT_DEFAULT;
  const checks = new Checks();
  if (!Number.isInteger(limit) || limit < LIST_LIMIT_MIN || limit > LIST_LIMIT_MAX) {
    checks.add(`${pathPrefix}/limit`, wholeNumberMessage(LIST_LIMIT_MIN, LIST_LIMIT_MAX));
  }
  checks.oneOf(`${pathPrefix}/action`, input.action, AUDIT_ACTIONS);
  checks.oneOf(`${pathPrefix}/resourceType`, input.resourceType, AUDIT_RESOURCE_TYPES);
  checks.rule(`${pathPrefix}/from`, 'instant', input.from);
  checks.rule(`${pathPrefix}/to`, 'instant', input.to);
  for (const k of ['actorKeyId', 'resourceId'] as const) {
    const v = input[k];
    if (v !== undefined && (v.length === 0 || v.length > AUDIT_ID_MAX || v.includes('\u0000'))) {
      checks.add(`${pathPrefix}/${k}`, `must be 1 to ${AUDIT_ID_MAX} characters`);
    }
  }
  checks.throwIfAny();
  return store.auditPage({
    limit,
    cursor: input.cursor ?? null,
    actorKeyId: input.actorKeyId ?? null,
    resourceType: (input.resourceType as AuditResourceType | undefined) ?? null,
    resourceId: input.resourceId ?? null,
    action: (input.action as AuditAction | undefined) ?? null,
    from: input.from === undefined ? null : parseIsoInstant(input.from),
    to: input.to === undefined ? null : parseIsoInstant(input.to),
  });
}
