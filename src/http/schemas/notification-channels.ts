/** Wire schemas of notification channels (docs/when-calls-fail.md) and the wire forms notifications carry. */
import { Type, type Static } from 'typebox';
import { CHANNEL_TYPES, NOTIFICATION_EVENTS, type NotificationChannel } from '../../domain/notifications.js';
import { toIso } from '../../domain/time.js';
import { CHANNEL_JOB_IDS_MAX } from '../../service/notification-channels.js';
import { cronJobToWire } from './cron-jobs.js';
import { executionToWire } from './executions.js';
import { scheduleToWire } from './schedules.js';
import { Id, Nullable, RuleString, SizedList, StringEnum, Timestamp } from './common.js';


const ChannelType = StringEnum(
  CHANNEL_TYPES,
  '`webhook`: a JSON POST signed with Standard Webhooks; `slack`: a Slack incoming-webhook message (`text` and `blocks`), which Mattermost and Discord (`…/slack`) accept too.',
);
const Event = StringEnum(
  NOTIFICATION_EVENTS,
  '`execution.failed`: an execution ended Failed; `execution.succeeded`: one ended Succeeded; `job.recovered`: the first success of a job ' +
    'after a failure; `cron.auto_paused`: a cron job was paused by Punctual.',
);
const Events = Type.Array(Event, {
  minItems: 1,
  maxItems: 16,
  description: 'The events sent to this channel: at least one (a repeated event counts once).',
});
const JobIds = Nullable(
  Type.Array(Type.String({ format: 'uuid', description: 'A schedule or cron job id.' }), {
    maxItems: CHANNEL_JOB_IDS_MAX,
    description: `Only events of these jobs (at most ${CHANNEL_JOB_IDS_MAX}); null or absent: every job.`,
  }),
);
const Url = RuleString(
  'endpoint',
  'Where notifications are POSTed: an absolute http or https URL, under the same SSRF guard as job endpoints ' +
    '(`PUNCTUAL_ALLOW_PRIVATE_ENDPOINTS`, `PUNCTUAL_ALLOWED_NETWORKS`).',
);
const Name = RuleString('name', 'Name of the channel (not blank; at most 256 characters by default).');

/** A notification channel as read. */
export const ChannelSchema = Type.Object(
  {
    id: Id,
    name: Type.String({ description: 'Name given at creation.' }),
    type: ChannelType,
    url: Type.String({
      description:
        'Where notifications are POSTed, masked: scheme, host, port and the first path segment, the rest as `…` ' +
        '(a Slack, Mattermost or Discord webhook URL is itself a secret). The full URL is write-only: a PATCH gives it again to change it.',
    }),
    events: Type.Array(Event, { description: 'The events sent to this channel.' }),
    jobIds: Nullable(Type.Array(Type.String(), { description: 'Only events of these jobs; null: every job.' })),
    createdAt: Timestamp('When the channel was created (ISO 8601, UTC).'),
  },
  { additionalProperties: false, title: 'NotificationChannel', description: 'Where Punctual sends notifications, and which.' },
);
export type ChannelWire = Static<typeof ChannelSchema>;

/** GET /notification-channels. */
export const ChannelListSchema = SizedList('notificationChannels', ChannelSchema, 'Every channel, oldest first.', {
  title: 'NotificationChannelList',
  description: 'Every notification channel.',
});

/** Body of POST /notification-channels. */
export const ChannelCreateBody = Type.Object(
  { name: Name, type: ChannelType, url: Url, events: Events, jobIds: Type.Optional(JobIds) },
  { additionalProperties: false, title: 'NotificationChannelCreate', description: 'A new notification channel.' },
);
export type ChannelCreateBody = Static<typeof ChannelCreateBody>;

/** Body of PATCH /notification-channels/{id}: absent fields keep their values. */
export const ChannelPatchBody = Type.Object(
  { name: Type.Optional(Name), type: Type.Optional(ChannelType), url: Type.Optional(Url), events: Type.Optional(Events), jobIds: Type.Optional(JobIds) },
  { additionalProperties: false, title: 'NotificationChannelPatch', description: 'Partial update of a notification channel.' },
);
export type ChannelPatchBody = Static<typeof ChannelPatchBody>;

/** The answer of POST /notification-channels/{id}/test. */
export const ChannelTestSchema = Type.Object(
  {
    statusCode: Nullable(Type.Integer({ description: 'The status the receiver answered; null when none answered.' })),
    durationMs: Type.Integer({ description: 'Milliseconds from the request to the end of the answer (or the failure).' }),
    error: Nullable(Type.String({ description: 'Null on a 2xx; otherwise why the message was not accepted (`HTTP 404`, `timed out`, …).' })),
  },
  { additionalProperties: false, title: 'NotificationChannelTest', description: 'How the receiver took the test message.' },
);
export type ChannelTestWire = Static<typeof ChannelTestSchema>;

/**
 * A channel URL as responses show it: scheme, host, port and the first path segment; anything
 * after them (more path, a query, a fragment) becomes `…`, and user info is dropped. Incoming-webhook
 * URLs carry their secret in the path (Slack's `/services/T…/B…/<token>`, Discord's
 * `/api/webhooks/<id>/<token>`) or the query, so the full URL is write-only, as every other secret
 * of the API. E.g. `https://hooks.slack.com/services/T1/B2/x` → `https://hooks.slack.com/services/…`.
 */
export function maskedChannelUrl(url: string): string {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return '…';
  }
  const [first = '', ...more] = u.pathname.split('/').slice(1);
  const hidden = more.length > 0 || u.search !== '' || u.hash !== '';
  return `${u.protocol}//${u.host}/${first}${hidden ? (first === '' ? '…' : '/…') : ''}`;
}

/** The wire form of a channel (its URL masked: {@link maskedChannelUrl}). */
export function channelToWire(c: NotificationChannel): ChannelWire {
  return {
    id: c.id,
    name: c.name,
    type: c.type,
    url: maskedChannelUrl(c.url),
    events: [...c.events],
    jobIds: c.jobIds && [...c.jobIds],
    createdAt: toIso(c.createdAt),
  };
}

/**
 * The wire forms a webhook notification carries (`data.execution`, `data.job`): those of the API,
 * which hold no secret (src/dispatch/notify/messages.ts, `NotificationWire`).
 */
export const NOTIFICATION_WIRE = { execution: executionToWire, schedule: scheduleToWire, cron: cronJobToWire };
