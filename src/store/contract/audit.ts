/**
 * The audit-log operations of a store (docs/keys-and-audit.md). Events themselves are written by the
 * operations that change things, in their own transaction, when their params carry `audit`
 * (domain/audit.ts `AuditRecord`; the row and the diff by store/rules/audit.ts); these read, count and
 * prune them. Part of the `Store` contract (store.ts extends {@link AuditStore}).
 */
import type { AuditAction, AuditEvent, AuditResourceType } from '../../domain/audit.js';

/** Params of {@link AuditStore.auditPage}. Filters combine with AND; null: any. Instants epoch ms (UTC). */
export interface AuditPageParams {
  /** Events per page (the API allows 1–1,000). */
  limit: number;
  /** The `nextCursor` of the previous page, or null for the first. */
  cursor: string | null;
  actorKeyId: string | null;
  resourceType: AuditResourceType | null;
  resourceId: string | null;
  action: AuditAction | null;
  /** Only events with `occurredAt >= from`. */
  from: number | null;
  /** Only events with `occurredAt < to`. */
  to: number | null;
}

/** A page of events, newest first. */
export interface AuditPage {
  events: AuditEvent[];
  nextCursor: string | null;
}

export interface AuditStore {
  /**
   * A page of events, newest first (by `occurredAt`, then id), keyset-paged (paging.ts cursors),
   * each filter answered by an index (store/rules/audit.ts `auditPageSql`).
   * @throws InvalidInputError (path `/query/cursor`) for a cursor this store did not make
   */
  auditPage(p: AuditPageParams): Promise<AuditPage>;
  /**
   * Counts one failed sign-in from `address` at `now` (epoch ms): one `auth.failure` event per
   * address and minute, its count raised by one (store/rules/audit.ts `authFailureRow`). Atomic.
   */
  auditAuthFailure(p: { address: string; now: number }): Promise<void>;
  /**
   * Deletes events older than `before` (epoch ms), at most `limit`, oldest first.
   * @returns how many were deleted
   */
  auditPrune(p: { before: number; limit: number }): Promise<number>;
}
