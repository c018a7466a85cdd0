/**
 * The pure parts of notifications: which events an outcome causes (src/store/rules/notifications.ts)
 * and the messages channels receive (src/dispatch/notify/messages.ts).
 */
import { describe, expect, it } from 'vitest';
import { digestContent, digestMessage, eventMessage, testMessage, type NotificationWire } from '../../src/dispatch/notify/messages.js';
import type { NotificationChannel, OutboxNotification } from '../../src/domain/notifications.js';
import type { Execution, Schedule } from '../../src/domain/types.js';
import { columnToList, listToColumn, normalEvents, outcomeEvents } from '../../src/store/rules/notifications.js';

const T0 = Date.UTC(2030, 0, 1);
const WIRE: NotificationWire = { execution: (e) => ({ wire: e.id }), schedule: (s) => ({ wire: s.id }), cron: (c) => ({ wire: c.id }) };

const channel = (type: 'webhook' | 'slack'): NotificationChannel => ({
  id: 'c1',
  name: 'ops',
  type,
  url: 'https://hooks.example.com/x',
  events: ['execution.failed'],
  jobIds: null,
  createdAt: T0,
});

const row = (seq: number, o: Partial<OutboxNotification> = {}): OutboxNotification => ({
  seq,
  channelId: 'c1',
  eventType: 'execution.failed',
  jobType: 'schedule',
  jobId: `job-${seq % 3}`,
  executionId: `e${seq}`,
  reason: null,
  occurredAt: T0 + seq,
  attempts: 0,
  digest: false,
  ...o,
});

describe('outcomeEvents', () => {
  it('Failed causes execution.failed; Succeeded causes execution.succeeded, and job.recovered after a failure; others nothing', () => {
    expect(outcomeEvents('Failed', null)).toEqual(['execution.failed']);
    expect(outcomeEvents('Failed', 'Failed')).toEqual(['execution.failed']);
    expect(outcomeEvents('Succeeded', null)).toEqual(['execution.succeeded']);
    expect(outcomeEvents('Succeeded', 'Succeeded')).toEqual(['execution.succeeded']);
    expect(outcomeEvents('Succeeded', 'Failed')).toEqual(['execution.succeeded', 'job.recovered']);
    expect(outcomeEvents('Retrying', 'Failed')).toEqual([]);
    expect(outcomeEvents('Skipped', 'Failed')).toEqual([]);
  });

  it('stores lists between commas, events once each in their order', () => {
    expect(listToColumn(['a', 'b'])).toBe(',a,b,');
    expect(columnToList(',a,b,')).toEqual(['a', 'b']);
    expect(normalEvents(['cron.auto_paused', 'execution.failed', 'cron.auto_paused'])).toEqual(['execution.failed', 'cron.auto_paused']);
  });
});

describe('notification messages', () => {
  const schedule = { id: 's1', name: 'nightly <report>', endpoint: 'https://api.example.com/a&b' } as Schedule;
  const execution = {
    id: 'e1',
    status: 'Failed',
    attempts: [{ number: 1, statusCode: 502, error: 'HTTP 502', durationMs: 5, startedAt: T0, responseBody: null, method: 'POST', url: null }],
  } as unknown as Execution;

  it('a webhook event carries type, id, occurredAt and the wire forms; a pause its reason', () => {
    const m = eventMessage(channel('webhook'), { notification: row(7), execution, job: { type: 'schedule', value: schedule } }, WIRE, null);
    expect(m.id).toBe('ntf_7');
    expect(JSON.parse(m.body)).toEqual({
      type: 'execution.failed',
      id: 'ntf_7',
      occurredAt: '2030-01-01T00:00:00.007Z',
      data: { execution: { wire: 'e1' }, job: { wire: 's1' } },
    });
    const paused = eventMessage(channel('webhook'), { notification: row(8, { eventType: 'cron.auto_paused', reason: '410 Gone', executionId: null }), execution: null, job: null }, WIRE, null);
    expect(JSON.parse(paused.body).data).toEqual({ execution: null, job: null, reason: '410 Gone' });
  });

  it('a Slack event has text and blocks with the job, endpoint, status and error escaped, and the console link when a public URL is set', () => {
    const m = JSON.parse(eventMessage(channel('slack'), { notification: row(7), execution, job: { type: 'schedule', value: schedule } }, WIRE, 'https://p.example.com').body) as {
      text: string;
      blocks: unknown[];
    };
    expect(m.text).toBe('Execution failed: nightly <report>');
    const text = JSON.stringify(m.blocks);
    expect(text).toContain('nightly &lt;report&gt;');
    expect(text).toContain('https://api.example.com/a&amp;b');
    expect(text).toContain('Failed (HTTP 502)');
    expect(text).toContain('<https://p.example.com/console/schedules/job-1|Open in the console>');
    const noLink = eventMessage(channel('slack'), { notification: row(7), execution, job: null }, WIRE, null).body;
    expect(noLink).not.toContain('Open in the console');
    expect(noLink).toContain('job-1'); // a deleted job is named by its id
  });

  it('a digest counts by type and job (most events first, at most 20 jobs listed)', () => {
    const rows = Array.from({ length: 60 }, (_, i) => row(i + 1, { jobId: `job-${i % 25}`, eventType: i % 2 ? 'execution.failed' : 'job.recovered' }));
    const d = digestContent(rows);
    expect(d).toMatchObject({ total: 60, counts: { 'execution.failed': 30, 'job.recovered': 30 }, jobsOmitted: 5, from: T0 + 1, to: T0 + 60 });
    expect(d.jobs).toHaveLength(20);
    expect(d.jobs[0]!.counts).toEqual({ 'job.recovered': 2, 'execution.failed': 1 });
    const webhook = digestMessage(channel('webhook'), rows, T0 + 61_000);
    expect(webhook.id).toBe('ntf_1_digest');
    expect(JSON.parse(webhook.body)).toMatchObject({ type: 'notifications.digest', id: 'ntf_1_digest', data: { total: 60, jobsOmitted: 5 } });
    const slack = JSON.parse(digestMessage(channel('slack'), rows, T0).body) as { text: string };
    expect(slack.text).toBe("60 more events grouped (past the channel's rate): 30 × job.recovered, 30 × execution.failed");
  });

  it('the test message names the channel', () => {
    expect(JSON.parse(testMessage(channel('webhook'), 'test_1', T0).body)).toEqual({
      type: 'notifications.test',
      id: 'test_1',
      occurredAt: '2030-01-01T00:00:00.000Z',
      data: { channel: { id: 'c1', name: 'ops' } },
    });
    expect(JSON.parse(testMessage(channel('slack'), 'test_1', T0).body).text).toBe('Test message from Punctual for the channel ops');
  });
});
