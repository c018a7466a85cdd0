/**
 * Notification channel use cases (docs/when-calls-fail.md): create, read, list, update, delete.
 * The URL keeps the rule of job endpoints (`endpoint`: an absolute http(s) URL under the SSRF
 * guard's policy); `events` is a non-empty list of known events; `jobIds` a list of UUIDs or null.
 */
import { auditRecord, type AuditContext } from '../domain/audit.js';
import type { Clock } from '../domain/clock.js';
import { NotFoundError } from '../domain/errors.js';
import { isUuid, newId } from '../domain/ids.js';
import { CHANNEL_TYPES, NOTIFICATION_EVENTS, type ChannelType, type NotificationChannel, type NotificationEvent } from '../domain/notifications.js';
import type { Store } from '../store/store.js';
import { Checks, DEFAULT_RULE_CONTEXT, type RuleContext } from './rules.js';

/** Most job ids a channel may be limited to. */
export const CHANNEL_JOB_IDS_MAX = 100;

/** Input of {@link createChannel}. */
export interface ChannelInput {
  name: string;
  type: ChannelType;
  url: string;
  events: NotificationEvent[];
  jobIds?: string[] | null;
}

/** Input of {@link updateChannel}: absent fields keep their values; `jobIds: null` means every job. */
export type ChannelPatch = Partial<ChannelInput>;

const NOT_FOUND = 'No notification channel has this id.';

function check(rules: RuleContext, input: ChannelPatch): void {
  const c = new Checks(rules).rule('/name', 'name', input.name).oneOf('/type', input.type, CHANNEL_TYPES).rule('/url', 'endpoint', input.url);
  if (input.events !== undefined) {
    if (!Array.isArray(input.events) || input.events.length === 0) c.add('/events', 'must be a non-empty list of events');
    else input.events.forEach((e, i) => c.oneOf(`/events/${i}`, e, NOTIFICATION_EVENTS));
  }
  if (input.jobIds !== undefined && input.jobIds !== null) {
    if (!Array.isArray(input.jobIds)) c.add('/jobIds', 'must be a list of job ids or null');
    else if (input.jobIds.length > CHANNEL_JOB_IDS_MAX) c.add('/jobIds', `must have at most ${CHANNEL_JOB_IDS_MAX} items`);
    else input.jobIds.forEach((id, i) => (isUuid(id) ? undefined : c.add(`/jobIds/${i}`, 'must be a UUID')));
  }
  c.throwIfAny();
}

/** Job ids once each, lowercase (UUIDs compare so). */
function uniqueIds(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.toLowerCase()))];
}

/**
 * Creates a channel.
 * @throws InvalidInputError naming each faulty field (`/name`, `/type`, `/url`, `/events`, `/jobIds`)
 */
export async function createChannel(
  store: Store,
  clock: Clock,
  input: ChannelInput,
  rules: RuleContext = DEFAULT_RULE_CONTEXT,
  audit?: AuditContext,
): Promise<NotificationChannel> {
  new Checks(rules).required('/name', input.name).required('/type', input.type).required('/url', input.url).required('/events', input.events).throwIfAny();
  check(rules, input);
  return store.channelCreate({
    id: newId(),
    name: input.name,
    type: input.type,
    url: input.url,
    events: input.events,
    jobIds: input.jobIds == null ? null : uniqueIds(input.jobIds),
    now: clock.now(),
    audit: auditRecord(audit, 'channel.create', clock.now()),
  });
}

/** The channel with this id, or null (also for ids that are not UUIDs). */
export async function getChannel(store: Store, id: string): Promise<NotificationChannel | null> {
  return isUuid(id) ? store.channelGet({ id }) : null;
}

/** Every channel, oldest first. */
export function listChannels(store: Store): Promise<NotificationChannel[]> {
  return store.channelList();
}

/**
 * Updates a channel.
 * @throws InvalidInputError naming each faulty field; NotFoundError for an unknown id
 */
export async function updateChannel(
  store: Store,
  id: string,
  patch: ChannelPatch,
  rules: RuleContext = DEFAULT_RULE_CONTEXT,
  audit?: AuditContext,
): Promise<NotificationChannel> {
  check(rules, patch);
  if (!isUuid(id)) throw new NotFoundError(NOT_FOUND);
  const updated = await store.channelUpdate({
    id,
    name: patch.name,
    type: patch.type,
    url: patch.url,
    events: patch.events,
    jobIds: patch.jobIds === undefined ? undefined : patch.jobIds === null ? null : uniqueIds(patch.jobIds),
    audit: auditRecord(audit, 'channel.update', Date.now()),
  });
  if (updated === null) throw new NotFoundError(NOT_FOUND);
  return updated;
}

/**
 * Deletes a channel and its notifications not yet sent.
 * @throws NotFoundError for an unknown id
 */
export async function deleteChannel(store: Store, id: string, audit?: AuditContext): Promise<void> {
  if (!isUuid(id) || !(await store.channelDelete({ id, audit: auditRecord(audit, 'channel.delete', Date.now()) }))) throw new NotFoundError(NOT_FOUND);
}

/**
 * The channel to test (`POST /notification-channels/{id}/test`).
 * @throws NotFoundError for an unknown id
 */
export async function channelToTest(store: Store, id: string): Promise<NotificationChannel> {
  const channel = await getChannel(store, id);
  if (channel === null) throw new NotFoundError(NOT_FOUND);
  return channel;
}
