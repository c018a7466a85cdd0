/**
 * The idempotency records of the API (docs/interface.md, "Idempotency-Key"): the first answer to a
 * request carrying an `Idempotency-Key`, kept per API key, method, path and key, so that a retry
 * gets the same answer instead of doing the work twice. Part of the `Store` contract (store.ts
 * extends {@link IdempotencyStore}); the rules shared by both databases are in
 * store/rules/idempotency.ts.
 */

/** Whose record: the API key's id, the request's method and path (with its query), the header's value. */
export interface IdempotencyRef {
  apiKeyId: string;
  method: string;
  path: string;
  /** The `Idempotency-Key` value: 1–255 printable ASCII characters (checked by the HTTP layer). */
  key: string;
}

/** Params of {@link IdempotencyStore.idempotencyBegin}. */
export interface IdempotencyBeginParams extends IdempotencyRef {
  /** SHA-256 (lowercase hex) of the JSON of the parsed request body. */
  fingerprint: string;
  /** Epoch ms (UTC) of the request. */
  now: number;
}

/**
 * What {@link IdempotencyStore.idempotencyBegin} found:
 * - `new`: no live record; one is now `running`, started at `startedAt` (epoch ms), and the
 *   request is to be done, then finished or abandoned with that `startedAt`;
 * - `running`: the same request is still in progress elsewhere;
 * - `mismatch`: the key was used with another body (another fingerprint);
 * - `done`: the kept answer, its status and body text, to be replayed.
 */
export type IdempotencyBegin =
  | { state: 'new'; startedAt: number }
  | { state: 'running' }
  | { state: 'mismatch' }
  | { state: 'done'; status: number; body: string };

/** Params of {@link IdempotencyStore.idempotencyFinish}. */
export interface IdempotencyFinishParams extends IdempotencyRef {
  /** The `startedAt` that `idempotencyBegin` answered: only that run may finish the record. */
  startedAt: number;
  /** The answer's status code (a 2xx or 4xx: the HTTP layer keeps no 5xx). */
  status: number;
  /** The answer's body, as sent. */
  body: string;
}

/** Params of {@link IdempotencyStore.idempotencyAbandon}. */
export interface IdempotencyAbandonParams extends IdempotencyRef {
  /** The `startedAt` that `idempotencyBegin` answered. */
  startedAt: number;
}

/** The idempotency operations of a store (see the module's description). */
export interface IdempotencyStore {
  /**
   * In one transaction, looks up the record of `p` and decides by `beginDecision`
   * (store/rules/idempotency.ts): with no record, or one expired (started `IDEMPOTENCY_RETENTION_MS`
   * ago or more) or abandoned (`running` since `IDEMPOTENCY_ABANDON_MS` or more), a `running` record
   * with `p.fingerprint` and `startedAt = p.now` is written and `new` answered; otherwise
   * `mismatch` for another fingerprint, else `running` or `done` with the kept answer. Of two
   * concurrent calls for one record, exactly one gets `new`.
   */
  idempotencyBegin(p: IdempotencyBeginParams): Promise<IdempotencyBegin>;
  /**
   * Keeps the answer: the record of `p`, if still `running` with `p.startedAt`, becomes `done`
   * with `p.status` and `p.body`.
   * @returns false when the record is gone or was taken over (then nothing changes)
   */
  idempotencyFinish(p: IdempotencyFinishParams): Promise<boolean>;
  /**
   * Deletes the record of `p` if still `running` with `p.startedAt` (the request failed with a
   * 5xx: the client may retry with the same key at once).
   * @returns false when the record is gone or was taken over (then nothing changes)
   */
  idempotencyAbandon(p: IdempotencyAbandonParams): Promise<boolean>;
  /**
   * Deletes records, whatever their state, started before `p.before` (epoch ms, UTC), at most
   * `p.limit` (≥ 1), oldest first.
   * @returns how many were deleted
   */
  idempotencyPrune(p: { before: number; limit: number }): Promise<number>;
}
