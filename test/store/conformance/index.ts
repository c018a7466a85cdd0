/**
 * The Store conformance suite (after River's `riverdrivertest.Exercise`): one set of tests that
 * every store implementation must pass. It uses only the `Store` interface, so the PostgreSQL
 * store (PostgreSQL) runs exactly these tests by calling {@link exerciseStore} with its factory.
 * Each area of the contract is a file of this folder, registered below; what they share (`T0`,
 * the jobs' policies, the claim and create helpers) is fixtures.ts.
 *
 * Time is a fixed value (`T0`) plus offsets: the store takes `now` as a parameter and reads no
 * clock, so nothing here sleeps. Cron occurrences come from the real cron engine (each store calls
 * it through src/store/rules/claim.ts), with expressions whose occurrences are whole minutes or
 * seconds from T0; the rules themselves, broken engines included, are unit-tested in
 * test/unit/claim-rules.test.ts.
 */
import { afterEach, beforeEach, describe } from 'vitest';
import type { Store } from '../../../src/store/store.js';
import { describeAhead } from './ahead.js';
import { describeKeys } from './api-key-scopes.js';
import { describeApiKeys } from './api-keys.js';
import { describeAudit } from './audit.js';
import { describeBackfill } from './backfill.js';
import { describeBatch, describeGroupCommit } from './batch.js';
import { describeBulk } from './bulk.js';
import { describeClaimDue } from './claim-due.js';
import { describeCronJobs } from './cron-jobs.js';
import { describeCronPolicies } from './cron-policies.js';
import { describeDueCount } from './due-count.js';
import { describeExecutionReads } from './execution-reads.js';
import { describeExecutionSearch } from './execution-search.js';
import { describeFinish } from './finish.js';
import { describeFlowControl } from './flow-control.js';
import { describeFlowControlClaim } from './flow-control-claim.js';
import { describeIdempotency } from './idempotency.js';
import { describeJobKeys } from './job-keys.js';
import { describeLeasesRelease } from './leases-release.js';
import { describeLife } from './life.js';
import { describeLifecycle } from './lifecycle.js';
import { describeLists } from './lists.js';
import { describeNextDue } from './next-due.js';
import { describeNodes } from './nodes.js';
import { describeNotifications } from './notifications.js';
import { describeOutcomes } from './outcomes.js';
import { describePrune } from './prune.js';
import { describeRequest } from './request.js';
import { describeRetries } from './retries.js';
import { describeSchedules } from './schedules.js';
import { describeSecrets } from './secrets.js';
import { describeSettings } from './settings.js';
import { describeTrigger } from './trigger.js';

export { T0 } from './fixtures.js';

/** What a store factory hands the suite. */
export interface StoreUnderTest {
  /** A store on a fresh, empty database; opened, migrated or not (the suite migrates). */
  store: Store;
  /** Releases the store and its database; must tolerate a store already closed. */
  cleanup: () => Promise<void>;
}

/**
 * Registers the conformance tests of the `Store` contract (src/store/store.ts) for one store.
 * @param name shown in the describe block, e.g. `sqlite`
 * @param factory called before each test for a fresh store on an empty database
 */
export function exerciseStore(name: string, factory: () => Promise<StoreUnderTest>): void {
  describe(`Store conformance: ${name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;

    beforeEach(async () => {
      ({ store, cleanup } = await factory());
      await store.migrate();
    });
    afterEach(async () => {
      await cleanup();
    });

    /** The store of the running test, for the areas: each registers its tests with it. */
    const current = (): Store => store;
    describeLists(current); // paged, filtered lists (keyset pages, bounded scans)
    describeExecutionSearch(current); // executions across jobs, and replay
    describeSecrets(current); // job secrets (secretsPage, secretsReplace)
    describeBatch(current); // batch create (scheduleCreateMany)
    describeGroupCommit(current); // concurrent creates, single and batch
    describeBulk(current); // bulk actions by filter (scheduleBulk, cronBulk)
    describeJobKeys(current); // job keys (key, managedBy, the key filter)
    describeIdempotency(current); // idempotency records (begin, finish, abandon, prune)
    describeNodes(current); // node liveness (heartbeats, reaping, re-registration)
    describeFlowControl(current); // flow-control keys (put, get, list, pause, delete)
    describeFlowControlClaim(current); // flow control at the claim (parallelism, rate, turns, pause, hold, retries)
    describeNotifications(current); // notification channels and outbox
    describeAhead(current); // claiming ahead (ClaimDueParams.aheadMs)
    describeLife(current); // start, end, limit and jitter of cron jobs
    describeBackfill(current); // backfill of cron jobs (cronBackfill)
    describeOutcomes(current); // successStatuses and the auto-pause of cron jobs
    describeKeys(current); // scopes, expiry and rotation of API keys
    describeAudit(current); // the audit log
    describeLifecycle(current); // migrate, ping, close
    describeApiKeys(current); // API keys
    describeSchedules(current); // one-time schedules
    describeCronJobs(current); // cron jobs
    describeClaimDue(current); // claimDue
    describeLeasesRelease(current); // a graceful stop hands its calls back
    describeRetries(current); // retries
    describeCronPolicies(current); // cron misfire and overlap
    describeTrigger(current); // jobTrigger
    describeExecutionReads(current); // executionGet and executionList
    describePrune(current); // executionsPrune
    describeSettings(current); // settingGetOrCreate
    describeFinish(current); // executionsFinish
    describeRequest(current); // the request of a job's calls
    describeNextDue(current); // nextDueAt
    describeDueCount(current); // dueCount (the due-but-unclaimed gauge)
  });
}
