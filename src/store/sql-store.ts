/**
 * One `Store` over two databases: what both SQL stores do alike is written here once, the SQL of
 * each database is its query modules'. A store operation is one function of the database's
 * {@link Operations}, named as the `Store` method, taking the database's context and the method's
 * params; {@link SqlStore} defines the method from it, running it through the database's
 * {@link SqlExecutor}:
 * - the guard: a closed store refuses, and the driver's errors become `StoreUnavailableError`
 *   (or the contract's own errors), by the executor's `run`;
 * - the audit: an operation the table of store/rules/audited.ts lists runs, when its params carry
 *   `audit`, in one transaction with its event (the executor's `audited`);
 * - the group commit of schedule creates (group-commit.ts), single and batch, through the
 *   `scheduleCreateMany` operation;
 * - the warning of the cron jobs a claim paused (rules/claim.ts `warnPaused`).
 *
 * What stays with each database's store: opening, `migrate`, `close`, `ping`, `now`, `onWork`.
 */
import type { AuditRecord } from '../domain/audit.js';
import type { Schedule } from '../domain/types.js';
import { GROUP_MAX_ROWS, GroupCommit } from './group-commit.js';
import { AUDITED, type AuditedOperation } from './rules/audited.js';
import { warnPaused, type ClaimResult } from './rules/claim.js';
import type { AuditTarget } from './rules/audit.js';
import type { ScheduleCreateParams, Store } from './store.js';

/** The `Store` methods each database's store writes itself (they are no query). */
type Lifecycle = 'migrate' | 'close' | 'ping' | 'now' | 'onWork';

/**
 * The name of a store operation: a `Store` method that runs queries. `scheduleCreate` is one
 * `scheduleCreateMany` of one row (the group commit writes both).
 */
export type OperationName = Exclude<keyof Store, Lifecycle | 'scheduleCreate'>;

/** The params of the `Store` method `K` (`undefined` for a method without). */
export type OperationParams<K extends OperationName> = Parameters<Store[K]>[0];

/** What the operation `K` gives: the `Store` method's result; a claim also gives the cron jobs it paused. */
export type OperationResult<K extends OperationName> = K extends 'claimDue' ? ClaimResult : Awaited<ReturnType<Store[K]>>;

/**
 * Every store operation of a database, as the `Store` method of its name does it, in the
 * database's context `C` (its prepared statements, or its SQL runner): synchronous or not. The
 * audit and the guard are not theirs ({@link SqlStore}); `scheduleCreateMany` writes one group of
 * creates in one transaction, every row or none.
 */
export type Operations<C> = { [K in OperationName]: (c: C, p: OperationParams<K>) => OperationResult<K> | Promise<OperationResult<K>> };

/** The intersection of the members of the union `U`. */
type Intersection<U> = (U extends unknown ? (x: U) => void : never) extends (x: infer I) => void ? I : never;

/**
 * One object of every operation of `modules` (a database's `queries/index.ts`, imported as a
 * namespace: each export one subject's operations). Typed as the intersection of the subjects,
 * so that assigning it to {@link Operations} checks at compile time that every operation is there.
 */
export function operationsOf<M extends Record<string, object>>(modules: M): Intersection<M[keyof M]> {
  return Object.assign({}, ...Object.values(modules)) as Intersection<M[keyof M]>;
}

/** How a store runs its operations on its database. */
export interface SqlExecutor<C> {
  /**
   * Runs `fn` in the context of the database (outside any transaction).
   * @throws StoreUnavailableError when the store is closed or the database cannot be reached;
   *   the contract's own errors (driver errors mapped by the database's `toStoreError`)
   */
  run<T>(fn: (c: C) => T | Promise<T>): T | Promise<T>;
  /**
   * Runs `apply` and, when `record` is given, the event of `target` (rules/audit.ts), in one
   * transaction: `apply` then gets the context of that transaction. Without `record`, `apply`
   * in `c`.
   */
  audited<T>(c: C, record: AuditRecord | undefined, target: AuditTarget<T>, apply: (c: C) => T | Promise<T>): T | Promise<T>;
  /**
   * Runs `write` (a group of schedule creates) and the events of the rows carrying `audit`
   * (`schedule.create`) in one transaction; without any, `write` in `c`.
   */
  createsAudited(c: C, rows: readonly ScheduleCreateParams[], write: (c: C) => Schedule[] | Promise<Schedule[]>): Schedule[] | Promise<Schedule[]>;
  /** Most groups of creates written at once (group-commit.ts): 1 for one writer. */
  readonly createsInFlight: number;
  /** Where the cron jobs a claim paused are reported. */
  readonly logger: { warn(obj: object, msg?: string): void } | undefined;
}

/** The `Store` methods {@link SqlStore} defines from the operations. */
type OperationMethods = Pick<Store, OperationName | 'scheduleCreate'>;

// The methods are defined by the constructor, one per operation: the interface says they exist.
// eslint-disable-next-line @typescript-eslint/no-unused-vars, @typescript-eslint/no-empty-object-type
export interface SqlStore<C> extends OperationMethods {}

/**
 * The store operations of a SQL database (see the module's description): every `Store` method
 * but the {@link Lifecycle} ones, which the database's store (its subclass) writes.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class SqlStore<C> {
  /** Schedule creates, single and batch, written in groups (group-commit.ts). */
  private readonly creates: GroupCommit<ScheduleCreateParams, Schedule>;

  /**
   * @param exec the database's executor
   * @param ops the database's operations, one for each {@link OperationName}
   */
  protected constructor(exec: SqlExecutor<C>, ops: Operations<C>) {
    this.creates = new GroupCommit<ScheduleCreateParams, Schedule>({
      write: (rows) => exec.run((c) => exec.createsAudited(c, rows, (t) => ops.scheduleCreateMany(t, rows))),
      maxRows: GROUP_MAX_ROWS,
      maxInFlight: exec.createsInFlight,
    });
    for (const name of Object.keys(ops) as OperationName[]) {
      if (name === 'scheduleCreateMany' || name === 'claimDue') continue;
      const op = ops[name] as (c: C, p: unknown) => unknown;
      const target = (AUDITED as Partial<Record<string, (p: unknown) => AuditTarget<unknown>>>)[name as AuditedOperation];
      const method = target
        ? async (p: { audit?: AuditRecord }) => exec.run((c) => exec.audited(c, p.audit, target(p), (t) => op(t, p)))
        : async (p: unknown) => exec.run((c) => op(c, p));
      Object.defineProperty(this, name, { value: method, writable: true, configurable: true });
    }
    this.claimDue = async (p) => {
      const { paused, ...result } = await exec.run((c) => ops.claimDue(c, p));
      warnPaused(exec.logger, paused);
      return result;
    };
  }

  async scheduleCreate(p: ScheduleCreateParams): Promise<Schedule> {
    return (await this.creates.add([p]))[0]!;
  }

  async scheduleCreateMany(p: ScheduleCreateParams[]): Promise<Schedule[]> {
    return this.creates.add(p);
  }
}
