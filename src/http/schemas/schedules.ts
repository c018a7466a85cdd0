/** Wire schemas of schedules. */
import { Type, type Static } from 'typebox';
import { SCHEDULE_STATUSES } from '../../domain/enums.js';
import { toIso } from '../../domain/time.js';
import type { Schedule } from '../../domain/types.js';
import { Endpoint, Id, JsonObjectInput, JsonObjectSchema, RuleString, SizedList, StringEnum, TagsInput, Timestamp } from './common.js';
import { deliveryToWire, deliveryWireFields, requestInputFields, RetryInputSchema, TimeoutMsInput } from './delivery.js';
import { SuccessStatusesInput, SuccessStatusesSchema } from './outcome.js';
import { identityCreateFields, identityPatchFields, identityToWire, identityWireFields } from './job-identity.js';
import { jobListSchemas } from './lists.js';

/** A schedule on the wire. */
export const ScheduleSchema = Type.Object(
  {
    id: Id,
    name: Type.String({ description: 'Name of the schedule.' }),
    scheduledAt: Timestamp('Instant at which the endpoint is called (ISO 8601, UTC).'),
    runsImmediately: Type.Boolean({
      description:
        'True when `scheduledAt` was already past when the schedule was created or its `scheduledAt` last changed: it runs at once, and its lateness counts from that moment, not from `scheduledAt`.',
    }),
    status: StringEnum(
      SCHEDULE_STATUSES,
      'Pending until its instant (or a trigger); Running while its execution is in progress, retries included; then Succeeded (an answer listed in `successStatuses`) or Failed.',
    ),
    endpoint: Type.String({ description: 'URL called on execution.' }),
    data: JsonObjectSchema('JSON object sent as the body of the call; `{}` when none was given.'),
    tags: Type.Array(Type.String(), { description: 'Labels for organising schedules.' }),
    createdAt: Timestamp('When the schedule was created (ISO 8601, UTC).'),
    ...deliveryWireFields,
    successStatuses: SuccessStatusesSchema,
    ...identityWireFields,
  },
  { additionalProperties: false, title: 'Schedule', description: 'A one-time job.' },
);
export type ScheduleWire = Static<typeof ScheduleSchema>;

/** GET /schedules: its query and its page. */
export const ScheduleList = jobListSchemas('schedules', ScheduleSchema, SCHEDULE_STATUSES, { one: 'schedule', many: 'schedules' }, 'ScheduleList');
export type ScheduleListQuery = Static<typeof ScheduleList.query>;

const requestFields = {
  name: RuleString('name', 'Name of the schedule (not blank; at most 256 characters by default).'),
  scheduledAt: RuleString(
    'instant',
    'ISO 8601 date-time with `Z` or an offset, e.g. `2026-11-21T10:00:00Z` or `2026-11-21T11:00:00+01:00`; stored as that instant. A past instant runs at once.',
  ),
  endpoint: Endpoint,
  data: JsonObjectInput('JSON object sent as the body of the call (default `{}`); empty with GET and HEAD, and when `body` is given.'),
  tags: TagsInput('Labels (default `[]`).'),
  retry: RetryInputSchema,
  timeoutMs: TimeoutMsInput,
};

/** The fields that are optional both on POST /schedules and on PATCH /schedules/{id}, after `endpoint`. */
const optionalScheduleFields = {
  data: Type.Optional(requestFields.data),
  tags: Type.Optional(requestFields.tags),
  retry: Type.Optional(requestFields.retry),
  timeoutMs: Type.Optional(requestFields.timeoutMs),
  ...requestInputFields,
  successStatuses: Type.Optional(SuccessStatusesInput),
};

/** Body of POST /schedules. */
export const ScheduleCreateBody = Type.Object(
  {
    name: requestFields.name,
    scheduledAt: requestFields.scheduledAt,
    endpoint: requestFields.endpoint,
    ...optionalScheduleFields,
    ...identityCreateFields,
  },
  { additionalProperties: false, title: 'ScheduleCreate', description: 'A new schedule.' },
);
export type ScheduleCreateBody = Static<typeof ScheduleCreateBody>;

/** Body of PATCH /schedules/{id}: absent fields keep their values. Only a Pending schedule can change. */
export const SchedulePatchBody = Type.Object(
  {
    name: Type.Optional(requestFields.name),
    scheduledAt: Type.Optional(requestFields.scheduledAt),
    endpoint: Type.Optional(requestFields.endpoint),
    ...optionalScheduleFields,
    ...identityPatchFields,
  },
  {
    additionalProperties: false,
    title: 'SchedulePatch',
    description: 'Partial update of a Pending schedule. The fields of `retry` given replace those of the stored policy.',
  },
);
export type SchedulePatchBody = Static<typeof SchedulePatchBody>;

/** The wire form of a schedule. */
export function scheduleToWire(s: Schedule): ScheduleWire {
  return {
    id: s.id,
    name: s.name,
    scheduledAt: toIso(s.scheduledAt),
    runsImmediately: s.dueAt > s.scheduledAt,
    status: s.status,
    endpoint: s.endpoint,
    data: s.data,
    tags: s.tags,
    createdAt: toIso(s.createdAt),
    ...deliveryToWire(s),
    successStatuses: [...s.successStatuses],
    ...identityToWire(s),
  };
}

/** Body of POST /schedules/batch. */
export const ScheduleBatchBody = Type.Object(
  {
    schedules: Type.Array(ScheduleCreateBody, {
      description:
        'The schedules to create, each as the body of POST /schedules: 1 to PUNCTUAL_MAX_BATCH (1,000 by default). All are created, or none.',
    }),
  },
  { additionalProperties: false, title: 'ScheduleBatch', description: 'Schedules to create in one transaction.' },
);
export type ScheduleBatchBody = Static<typeof ScheduleBatchBody>;

/** Answer of POST /schedules/batch. */
export const ScheduleBatchSchema = SizedList('schedules', ScheduleSchema, 'The new schedules, `Pending`, in the order of the request.', {
  title: 'ScheduleBatchResult',
  description: 'The schedules a batch created.',
});
