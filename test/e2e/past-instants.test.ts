import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordDeliveries, type Deliveries } from '../support/deliveries.js';
import { parseExposition, valueOf } from '../support/prometheus.js';
import { startReceiver, type Receiver } from '../support/receiver.js';
import { startTestServer, TEST_TOKEN, type TestServer } from '../support/server.js';
import { STORES } from '../support/stores.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

interface ScheduleBody {
  id: string;
  scheduledAt: string;
  runsImmediately: boolean;
}
interface Problem {
  errors: { path: string; message: string }[];
}

/**
 * Schedules with a past `scheduledAt` (docs/interface.md, "Past instants"), through a real server
 * on a socket and a real receiver on 127.0.0.1, on every store: such a schedule runs at once and
 * says so; its lateness counts from when it was stored or moved, not from its instant; an instant
 * further back than `PUNCTUAL_MAX_PAST` is a 400 naming the field that creates nothing.
 */
describe.each(STORES)('past instants ($name)', (store) => {
  let server: TestServer;
  let receiver: Receiver;
  let deliveries: Deliveries;
  const deliveryOf = (scheduleId: string) => deliveries.ofJob(scheduleId, 20_000);

  beforeAll(async () => {
    receiver = await startReceiver();
    server = await startTestServer({ PUNCTUAL_MAX_PAST: '30d' }, { store });
    deliveries = recordDeliveries(server);
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.close();
  });

  const create = (scheduledAt: number | string, path = '/past') =>
    server.api('POST', '/schedules', {
      name: 'past',
      scheduledAt: typeof scheduledAt === 'string' ? scheduledAt : new Date(scheduledAt).toISOString(),
      endpoint: receiver.url + path,
    });

  const lateness = async () => {
    const res = await fetch(`${server.url}/metrics`, { headers: { authorization: `Bearer ${TEST_TOKEN}` } });
    const e = parseExposition(await res.text());
    return { count: valueOf(e, 'punctual_execution_lateness_seconds_count'), sum: valueOf(e, 'punctual_execution_lateness_seconds_sum') };
  };

  it('a schedule 10 days in the past runs at once, says so, and adds under 1 s to the lateness metric', async () => {
    receiver.respond('/past', { status: 200 });
    const before = await lateness();
    const instant = Date.now() - 10 * DAY;
    const res = await create(instant);
    expect(res.status).toBe(201);
    const s = res.body as ScheduleBody;
    expect(s.runsImmediately).toBe(true);
    expect(Date.parse(s.scheduledAt)).toBe(instant); // the instant is kept as given

    const d = await deliveryOf(s.id);
    expect(d.claim.scheduledFor).toBe(instant);
    const after = await lateness();
    expect(after.count - before.count).toBe(1);
    expect(after.sum - before.sum).toBeLessThan(1);
    expect(after.sum - before.sum).toBeGreaterThanOrEqual(0);

    const page = await server.api('GET', `/schedules/${s.id}/executions`);
    const [execution] = (page.body as { executions: { scheduledFor: string; lateMs: number }[] }).executions;
    expect(Date.parse(execution!.scheduledFor)).toBe(instant);
    expect(execution!.lateMs).toBeGreaterThanOrEqual(0);
    expect(execution!.lateMs).toBeLessThan(1_000);
    expect(((await server.api('GET', `/schedules/${s.id}`)).body as ScheduleBody).runsImmediately).toBe(true);
  });

  it('a future schedule does not run immediately; moved into the past by PATCH, it runs at once and says so', async () => {
    receiver.respond('/moved', { status: 200 });
    const created = await create(Date.now() + DAY, '/moved');
    expect(created.status).toBe(201);
    const s = created.body as ScheduleBody;
    expect(s.runsImmediately).toBe(false);
    const patched = await server.api('PATCH', `/schedules/${s.id}`, { scheduledAt: new Date(Date.now() - HOUR).toISOString() });
    expect(patched.status).toBe(200);
    expect((patched.body as ScheduleBody).runsImmediately).toBe(true);
    await deliveryOf(s.id);
    const page = await server.api('GET', `/schedules/${s.id}/executions`);
    expect((page.body as { executions: { lateMs: number }[] }).executions[0]!.lateMs).toBeLessThan(1_000);
  });

  it('an instant further back than PUNCTUAL_MAX_PAST is a 400 naming /scheduledAt, and creates or changes nothing', async () => {
    const listed = async () => ((await server.api('GET', '/schedules?limit=1000')).body as { size: number }).size;
    const count = await listed();
    const res = await create(Date.now() - 31 * DAY);
    expect(res.status).toBe(400);
    const problem = res.body as Problem;
    expect(problem.errors).toEqual([{ path: '/scheduledAt', message: expect.stringMatching(/30 days in the past \(PUNCTUAL_MAX_PAST\)/) }]);
    expect(await listed()).toBe(count);

    const future = (await create(Date.now() + DAY, '/never')).body as ScheduleBody;
    const patch = await server.api('PATCH', `/schedules/${future.id}`, { scheduledAt: new Date(Date.now() - 40 * DAY).toISOString() });
    expect(patch.status).toBe(400);
    expect((patch.body as Problem).errors.map((e) => e.path)).toEqual(['/scheduledAt']);
    expect(((await server.api('GET', `/schedules/${future.id}`)).body as ScheduleBody).scheduledAt).toBe(future.scheduledAt);
    // Just inside the bound is accepted (and runs at once).
    receiver.respond('/inside', { status: 200 });
    const inside = await create(Date.now() - 29 * DAY, '/inside');
    expect(inside.status).toBe(201);
    await deliveryOf((inside.body as ScheduleBody).id);
  });
});
