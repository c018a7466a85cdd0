/**
 * Wire schemas of cron jobs (with their delivery settings, misfire and overlap policies) and of
 * the occurrence preview.
 */
import { Type, type Static } from 'typebox';
import { CRON_JOB_STATUSES, EXECUTION_STATUSES, MISFIRE_POLICIES, OVERLAP_POLICIES } from '../../domain/enums.js';
import { toIso, toIsoOrNull } from '../../domain/time.js';
import type { CronJob } from '../../domain/types.js';
import { Endpoint, Id, JsonObjectInput, JsonObjectSchema, Nullable, RuleString, StringEnum, TagsInput, Timestamp } from './common.js';
import { deliveryToWire, deliveryWireFields, requestInputFields, RetryInputSchema, TimeoutMsInput } from './delivery.js';
import { EXECUTION_STATUS_DESCRIPTION } from './executions.js';
import { cronOutcomeInputFields, cronOutcomeToWire, cronOutcomeWireFields, PausedReasonInput } from './outcome.js';
import { identityCreateFields, identityPatchFields, identityToWire, identityWireFields } from './job-identity.js';
import { jobListSchemas } from './lists.js';

const EXPRESSION_DESCRIPTION =
  'Cron expression: 5 fields (minute hour day-of-month month day-of-week), or 6 with leading seconds; ' +
  '@yearly @annually @monthly @weekly @daily @midnight @hourly; month and weekday names; lists, ranges, steps; ' +
  'in day of month L (last day), LW (last weekday), nW (nearest weekday); in day of week nL or FRIL (last Friday), ' +
  'MON#1 to MON#5 (n-th Monday). Or `@every <duration>` (units d h m s in that order, e.g. 1h30m; 1s to 366d): ' +
  'occurrences every interval of absolute time from the start. Every form: docs/cron.md. ' +
  'At most 256 characters by default (`PUNCTUAL_MAX_EXPRESSION_LENGTH`).';
const TIMEZONE_DESCRIPTION = 'IANA time zone in which the expression is evaluated; null: UTC.';
const MISFIRE_DESCRIPTION =
  'Occurrences missed while the service was down: `skip` (none run, recorded as Skipped), `once` (one run for all of them), ' +
  '`all` (each runs, oldest first, at most 1,000).';
const START_AT_DESCRIPTION =
  'No occurrence before this instant (ISO 8601 with `Z` or an offset), or null: none; also the anchor of `@every` expressions ' +
  '(else the creation instant).';
const END_AT_DESCRIPTION =
  'No occurrence at or after this instant (ISO 8601 with `Z` or an offset), or null: none; after `startAt` when both are given. ' +
  'Once it is reached the job is Completed.';
const MAX_INVOCATIONS_DESCRIPTION =
  'The job is Completed once `invocations` reaches this (1–1,000,000,000; every execution counts: Skipped ones and triggers ' +
  'included), or null: no limit.';
const JITTER_MS_DESCRIPTION =
  'Largest delay added to each occurrence, in ms (0–3,600,000; 0: none): an occurrence runs at its instant plus a delay in ' +
  '[0, jitterMs) fixed per occurrence (the same on every node and after a restart), never early. `nextInvocation`, ' +
  '`scheduledFor` and `Punctual-Scheduled-For` stay the occurrence\'s instant; the execution shows the delay as `jitterMs`.';
const OVERLAP_DESCRIPTION =
  '`allow`: every occurrence runs; `skip`: an occurrence due while the previous execution is pending, running or retrying is recorded as Skipped.';

/** A cron job on the wire. */
export const CronJobSchema = Type.Object(
  {
    id: Id,
    expression: Type.String({ description: EXPRESSION_DESCRIPTION }),
    name: Nullable(Type.String({ description: 'Name of the job, or null.' })),
    invocations: Type.Integer({ description: 'Executions so far; 0 on a new job.' }),
    timezone: Nullable(Type.String({ description: TIMEZONE_DESCRIPTION })),
    status: StringEnum(
      CRON_JOB_STATUSES,
      'Active jobs run on their schedule; Paused ones never run; Completed ones have run their last occurrence (`endAt` reached, ' +
        'or `invocations` = `maxInvocations`) and run again only when a PATCH gives them occurrences with `status` Active.',
    ),
    endpoint: Type.String({ description: 'URL called on each execution.' }),
    data: Nullable(JsonObjectSchema('JSON object sent as the body of each call, or null (then `{}` is sent).')),
    createdAt: Timestamp('When the job was created (ISO 8601, UTC).'),
    nextInvocation: Nullable(
      Timestamp(
        'Next occurrence (ISO 8601, UTC; without its jitter). For a Paused job: the occurrence it would run next if resumed now. ' +
          'Null for a Completed job.',
      ),
    ),
    startAt: Nullable(Timestamp(START_AT_DESCRIPTION)),
    endAt: Nullable(Timestamp(END_AT_DESCRIPTION)),
    maxInvocations: Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: MAX_INVOCATIONS_DESCRIPTION })),
    jitterMs: Type.Integer({ minimum: 0, maximum: 3_600_000, description: JITTER_MS_DESCRIPTION }),
    ...deliveryWireFields,
    misfire: StringEnum(MISFIRE_POLICIES, MISFIRE_DESCRIPTION),
    overlap: StringEnum(OVERLAP_POLICIES, OVERLAP_DESCRIPTION),
    lastInvocation: Nullable(
      Timestamp('The occurrence of the latest execution (ISO 8601, UTC; for a trigger, its instant); null before the first. Read-only.'),
    ),
    lastStatus: Nullable(StringEnum(EXECUTION_STATUSES, `Status of the latest execution, or null. Read-only. ${EXECUTION_STATUS_DESCRIPTION}`)),
    skippedOccurrences: Type.Integer({
      minimum: 0,
      description:
        'Occurrences dropped by misfire `skip` so far (each missed occurrence once, the one recorded as a Skipped execution ' +
        'included; at most 1,000 counted per catch-up). Overlap-skipped occurrences are not counted. Read-only.',
    }),
    ...cronOutcomeWireFields,
    tags: Type.Array(Type.String(), { description: 'Labels for organising cron jobs, as those of schedules.' }),
    ...identityWireFields,
  },
  { additionalProperties: false, title: 'CronJob', description: 'A recurring job.' },
);
export type CronJobWire = Static<typeof CronJobSchema>;

/** GET /cron: its query (`tag` as on GET /schedules) and its page. */
export const CronJobList = jobListSchemas('cronJobs', CronJobSchema, CRON_JOB_STATUSES, { one: 'cron job', many: 'cron jobs' }, 'CronJobList');
export type CronJobListQuery = Static<typeof CronJobList.query>;

const requestFields = {
  expression: RuleString('cron-expression', EXPRESSION_DESCRIPTION),
  name: Nullable(RuleString('name', 'Name of the job (not blank; at most 256 characters by default), or null.')),
  timezone: Nullable(RuleString('time-zone', TIMEZONE_DESCRIPTION)),
  endpoint: Endpoint,
  data: Nullable(JsonObjectInput('JSON object sent as the body of each call, or null; empty or null with GET and HEAD, and when `body` is given.')),
  retry: RetryInputSchema,
  timeoutMs: TimeoutMsInput,
  misfire: StringEnum(MISFIRE_POLICIES, `${MISFIRE_DESCRIPTION} Default \`once\`.`),
  overlap: StringEnum(OVERLAP_POLICIES, `${OVERLAP_DESCRIPTION} Default \`allow\`.`),
  startAt: Nullable(RuleString('instant', START_AT_DESCRIPTION)),
  endAt: Nullable(RuleString('instant', END_AT_DESCRIPTION)),
  maxInvocations: Nullable(Type.Integer({ minimum: 1, maximum: 1_000_000_000, description: MAX_INVOCATIONS_DESCRIPTION })),
  jitterMs: Type.Integer({ minimum: 0, maximum: 3_600_000, description: `${JITTER_MS_DESCRIPTION} Default 0.` }),
  tags: TagsInput('Labels (default `[]`); a patch replaces them all.'),
};

/** The fields that are optional both on POST /cron and on PATCH /cron/{id}. */
const optionalCronFields = {
  name: Type.Optional(requestFields.name),
  timezone: Type.Optional(requestFields.timezone),
  data: Type.Optional(requestFields.data),
  retry: Type.Optional(requestFields.retry),
  timeoutMs: Type.Optional(requestFields.timeoutMs),
  misfire: Type.Optional(requestFields.misfire),
  overlap: Type.Optional(requestFields.overlap),
  startAt: Type.Optional(requestFields.startAt),
  endAt: Type.Optional(requestFields.endAt),
  maxInvocations: Type.Optional(requestFields.maxInvocations),
  jitterMs: Type.Optional(requestFields.jitterMs),
  tags: Type.Optional(requestFields.tags),
  ...requestInputFields,
  ...cronOutcomeInputFields,
};

/** Body of POST /cron. */
export const CronCreateBody = Type.Object(
  { expression: requestFields.expression, endpoint: requestFields.endpoint, ...optionalCronFields, ...identityCreateFields },
  { additionalProperties: false, title: 'CronJobCreate', description: 'A new cron job (Active).' },
);
export type CronCreateBody = Static<typeof CronCreateBody>;

/** Body of PATCH /cron/{id}: absent fields keep their values; null sets a nullable field to null. */
export const CronPatchBody = Type.Object(
  {
    expression: Type.Optional(requestFields.expression),
    status: Type.Optional(
      StringEnum(
        CRON_JOB_STATUSES,
        'Paused stops the job (with an optional `pausedReason`); Active resumes it from the next occurrence after now, clears `pausedReason` ' +
          'and starts `consecutiveFailures` at 0. A Completed job stays Completed unless the patch gives Active (400 when its ' +
          '`startAt`, `endAt` and `maxInvocations` leave no occurrence after now); Completed cannot be given.',
      ),
    ),
    endpoint: Type.Optional(requestFields.endpoint),
    ...optionalCronFields,
    pausedReason: PausedReasonInput,
    ...identityPatchFields,
  },
  {
    additionalProperties: false,
    title: 'CronJobPatch',
    description: 'Partial update of a cron job. The fields of `retry` given replace those of the stored policy.',
  },
);
export type CronPatchBody = Static<typeof CronPatchBody>;

/** Query of GET /cron/preview. Numbers are digit strings: query strings are not coerced. */
export const CronPreviewQuery = Type.Object(
  {
    expression: RuleString('cron-expression', EXPRESSION_DESCRIPTION),
    timezone: Type.Optional(RuleString('time-zone', 'IANA time zone; default UTC.')),
    from: Type.Optional(
      RuleString('instant', 'ISO 8601 instant with `Z` or an offset; occurrences strictly after it. Default: now.'),
    ),
    count: Type.Optional(RuleString('preview-count', 'How many occurrences, 1 to 100 (default 5).')),
    startAt: Type.Optional(
      RuleString('instant', 'For `@every`: the instant its intervals count from (ISO 8601 with `Z` or an offset). Default: now.'),
    ),
  },
  { additionalProperties: false },
);
export type CronPreviewQuery = Static<typeof CronPreviewQuery>;

/** Answer of GET /cron/preview. */
export const CronPreviewSchema = Type.Object(
  {
    occurrences: Type.Array(Timestamp('An occurrence (ISO 8601, UTC).'), {
      description: 'The next occurrences strictly after `from`, earliest first.',
    }),
  },
  { additionalProperties: false, title: 'CronPreview', description: 'Occurrences of a cron expression.' },
);

/** The wire form of a cron job. */
export function cronJobToWire(j: CronJob): CronJobWire {
  return {
    id: j.id,
    expression: j.expression,
    name: j.name,
    invocations: j.invocations,
    timezone: j.timezone,
    status: j.status,
    endpoint: j.endpoint,
    data: j.data,
    createdAt: toIso(j.createdAt),
    nextInvocation: j.status === 'Completed' ? null : toIso(j.nextInvocation),
    startAt: toIsoOrNull(j.startAt),
    endAt: toIsoOrNull(j.endAt),
    maxInvocations: j.maxInvocations,
    jitterMs: j.jitterMs,
    ...deliveryToWire(j),
    misfire: j.misfire,
    overlap: j.overlap,
    lastInvocation: toIsoOrNull(j.lastInvocation),
    lastStatus: j.lastStatus,
    skippedOccurrences: j.skippedOccurrences,
    ...cronOutcomeToWire(j),
    tags: j.tags,
    ...identityToWire(j),
  };
}
