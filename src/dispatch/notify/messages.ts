/**
 * The messages notification channels receive (docs/when-calls-fail.md, "Payloads"): the JSON of a
 * `webhook` channel (`{type, id, occurredAt, data}`, signed with Standard Webhooks) and the Slack
 * incoming-webhook message of a `slack` channel (`text` plus `blocks`), for one event, for the
 * digest of grouped events, and for the test of `POST /notification-channels/{id}/test`. Pure.
 */
import { DIGEST_TYPE, TEST_TYPE, type NotificationChannel, type NotificationEvent, type OutboxNotification } from '../../domain/notifications.js';
import { toIso } from '../../domain/time.js';
import type { CronJob, Execution, Schedule } from '../../domain/types.js';

/**
 * The wire forms of the resources, as the API shows them (src/http/schemas; injected, since the
 * dispatcher does not import the HTTP layer). They never hold secrets.
 */
export interface NotificationWire {
  execution(e: Execution): unknown;
  schedule(s: Schedule): unknown;
  cron(c: CronJob): unknown;
}

/** What an event is about, read from the store when it is sent (null: deleted or pruned since). */
export interface EventSubject {
  notification: OutboxNotification;
  execution: Execution | null;
  job: { type: 'schedule'; value: Schedule } | { type: 'cron'; value: CronJob } | null;
}

/** A message ready to send: its id (`webhook-id`) and its JSON body. */
export interface OutgoingMessage {
  id: string;
  body: string;
}

/** Most jobs a digest lists one by one; the others are counted in `jobsOmitted`. */
export const DIGEST_MAX_JOBS = 20;

const TITLES: Record<NotificationEvent, string> = {
  'execution.failed': 'Execution failed',
  'execution.succeeded': 'Execution succeeded',
  'job.recovered': 'Job recovered',
  'cron.auto_paused': 'Cron job paused',
};

/** The wire id of an outbox notification (its `webhook-id`): `ntf_<seq>`, the same on every attempt. */
export function notificationId(n: Pick<OutboxNotification, 'seq'>): string {
  return `ntf_${n.seq}`;
}

/**
 * The message of one event.
 * @param publicUrl `PUNCTUAL_PUBLIC_URL` (no trailing slash), for the console link of Slack messages, or null
 */
export function eventMessage(channel: NotificationChannel, s: EventSubject, wire: NotificationWire, publicUrl: string | null): OutgoingMessage {
  const n = s.notification;
  const id = notificationId(n);
  if (channel.type === 'webhook') {
    const job = s.job === null ? null : s.job.type === 'schedule' ? wire.schedule(s.job.value) : wire.cron(s.job.value);
    const data: Record<string, unknown> = { execution: s.execution && wire.execution(s.execution), job };
    if (n.reason !== null) data.reason = n.reason;
    return { id, body: JSON.stringify({ type: n.eventType, id, occurredAt: toIso(n.occurredAt), data }) };
  }
  return { id, body: JSON.stringify(slackEvent(s, publicUrl)) };
}

/** The Slack message of one event: a title, the job, its endpoint, the status and error, a console link. */
function slackEvent(s: EventSubject, publicUrl: string | null): { text: string; blocks: unknown[] } {
  const n = s.notification;
  const name = jobName(s);
  const title = `${TITLES[n.eventType]}: ${name}`;
  const last = s.execution?.attempts.at(-1) ?? null;
  const fields: string[] = [`*Job*\n${escapeMrkdwn(name)}`];
  if (s.job) fields.push(`*Endpoint*\n${escapeMrkdwn(s.job.value.endpoint)}`);
  if (s.execution) {
    const code = last?.statusCode != null ? ` (HTTP ${last.statusCode})` : '';
    fields.push(`*Status*\n${s.execution.status}${code}`);
  }
  if (last?.error) fields.push(`*Error*\n${escapeMrkdwn(last.error.slice(0, 500))}`);
  if (n.reason !== null) fields.push(`*Reason*\n${escapeMrkdwn(n.reason)}`);
  const blocks: unknown[] = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(title)}*` } },
    { type: 'section', fields: fields.map((text) => ({ type: 'mrkdwn', text })) },
  ];
  const link = publicUrl === null ? null : `${publicUrl}/console/${n.jobType === 'schedule' ? 'schedules' : 'cron'}/${n.jobId}`;
  const context = [`${toIso(n.occurredAt)}`];
  if (link) context.push(`<${link}|Open in the console>`);
  blocks.push({ type: 'context', elements: context.map((text) => ({ type: 'mrkdwn', text })) });
  return { text: title, blocks };
}

/** A job's name for people: its name, else a cron job's expression, else its id. */
function jobName(s: EventSubject): string {
  if (s.job === null) return s.notification.jobId;
  if (s.job.type === 'schedule') return s.job.value.name;
  return s.job.value.name ?? `${s.job.value.expression} (${s.job.value.id})`;
}

/** Slack's mrkdwn escapes (`&`, `<`, `>`). */
function escapeMrkdwn(text: string): string {
  return text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');
}

/** The grouped events of one digest, by type and by job. */
export interface DigestContent {
  /** Events grouped. */
  total: number;
  /** Event type → count. */
  counts: Partial<Record<NotificationEvent, number>>;
  /** The jobs, most events first, at most {@link DIGEST_MAX_JOBS}. */
  jobs: { jobType: 'schedule' | 'cron'; jobId: string; counts: Partial<Record<NotificationEvent, number>> }[];
  /** Jobs not listed. */
  jobsOmitted: number;
  /** Epoch ms (UTC) of the first and last grouped event. */
  from: number;
  to: number;
}

/** Counts grouped notifications (not empty) by type and job. */
export function digestContent(rows: readonly OutboxNotification[]): DigestContent {
  const counts: Partial<Record<NotificationEvent, number>> = {};
  const jobs = new Map<string, DigestContent['jobs'][number] & { total: number }>();
  let from = Infinity;
  let to = -Infinity;
  for (const r of rows) {
    counts[r.eventType] = (counts[r.eventType] ?? 0) + 1;
    const key = `${r.jobType}:${r.jobId}`;
    let j = jobs.get(key);
    if (!j) jobs.set(key, (j = { jobType: r.jobType, jobId: r.jobId, counts: {}, total: 0 }));
    j.counts[r.eventType] = (j.counts[r.eventType] ?? 0) + 1;
    j.total++;
    from = Math.min(from, r.occurredAt);
    to = Math.max(to, r.occurredAt);
  }
  const sorted = [...jobs.values()].sort((a, b) => b.total - a.total);
  return {
    total: rows.length,
    counts,
    jobs: sorted.slice(0, DIGEST_MAX_JOBS).map(({ jobType, jobId, counts: c }) => ({ jobType, jobId, counts: c })),
    jobsOmitted: Math.max(0, sorted.length - DIGEST_MAX_JOBS),
    from,
    to,
  };
}

/**
 * The digest of grouped notifications (not empty): id `ntf_<first seq>_digest`.
 * @param now epoch ms (UTC): its `occurredAt`
 */
export function digestMessage(channel: NotificationChannel, rows: readonly OutboxNotification[], now: number): OutgoingMessage {
  const first = Math.min(...rows.map((r) => r.seq));
  const id = `ntf_${first}_digest`;
  const d = digestContent(rows);
  if (channel.type === 'webhook') {
    const data = { total: d.total, counts: d.counts, jobs: d.jobs, jobsOmitted: d.jobsOmitted, from: toIso(d.from), to: toIso(d.to) };
    return { id, body: JSON.stringify({ type: DIGEST_TYPE, id, occurredAt: toIso(now), data }) };
  }
  const byType = Object.entries(d.counts)
    .map(([type, count]) => `${count} × ${type}`)
    .join(', ');
  const text = `${d.total} more events grouped (past the channel's rate): ${byType}`;
  const jobLines = d.jobs.map((j) => `• ${j.jobType} ${j.jobId}: ${Object.entries(j.counts).map(([t, c]) => `${c} × ${t}`).join(', ')}`);
  if (d.jobsOmitted > 0) jobLines.push(`• and ${d.jobsOmitted} more jobs`);
  const blocks = [
    { type: 'section', text: { type: 'mrkdwn', text: `*${escapeMrkdwn(text)}*` } },
    { type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(jobLines.join('\n')) } },
    { type: 'context', elements: [{ type: 'mrkdwn', text: `${toIso(d.from)} – ${toIso(d.to)}` }] },
  ];
  return { id, body: JSON.stringify({ text, blocks }) };
}

/** The message of `POST /notification-channels/{id}/test`. */
export function testMessage(channel: NotificationChannel, id: string, now: number): OutgoingMessage {
  if (channel.type === 'webhook') {
    return { id, body: JSON.stringify({ type: TEST_TYPE, id, occurredAt: toIso(now), data: { channel: { id: channel.id, name: channel.name } } }) };
  }
  const text = `Test message from Punctual for the channel ${channel.name}`;
  return { id, body: JSON.stringify({ text, blocks: [{ type: 'section', text: { type: 'mrkdwn', text: escapeMrkdwn(text) } }] }) };
}
