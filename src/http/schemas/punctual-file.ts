/**
 * The file of `punctual apply` (docs/apply.md): cron jobs and schedules as code, each with its
 * `key`, and the flow-control keys their calls count against. Each job is the body of `POST /cron`
 * or `POST /schedules` with `key` required and without `managedBy` (apply sets it), each
 * flow-control key the body of `PUT /flow-control-keys/{key}` with its `key`, built from those
 * bodies' TypeBox schemas so that the file's JSON Schema cannot drift from the API. Published at {@link PUNCTUAL_FILE_SCHEMA_PATH} (routes/schemas.ts)
 * for editors, and used by the command to check a file before it asks the service anything.
 */
import { Type, type Static, type TProperties, type TSchema } from 'typebox';
import { JOB_KEY_PATTERN } from '../../domain/job-key.js';
import { CronCreateBody } from './cron-jobs.js';
import { FlowControlKeyBody, FlowControlKeyParams } from './flow-control.js';
import { ScheduleCreateBody } from './schedules.js';

/** Where the service publishes the file's JSON Schema. */
export const PUNCTUAL_FILE_SCHEMA_PATH = '/schemas/punctual-file.json';

/** The only version of the file so far. */
export const PUNCTUAL_FILE_VERSION = 1;

const ItemKey = Type.String({
  pattern: JOB_KEY_PATTERN,
  description:
    'Your name for the job (1 to 128 of A-Z a-z 0-9 . _ : -), unique among the jobs of its kind: `punctual apply` finds the job by it.',
});

/** An item of the file: a create body with `key` required first, and no `managedBy`. */
function fileItem<P extends TProperties>(body: { properties: P }, title: string, description: string) {
  const { managedBy: _managedBy, key: _key, ...fields } = body.properties as P & { managedBy?: TSchema; key?: TSchema };
  return Type.Object({ key: ItemKey, ...fields }, { additionalProperties: false, title, description });
}

/** A cron job of the file: the body of `POST /cron`, with `key`. */
export const FileCronJob = fileItem(
  CronCreateBody,
  'PunctualFileCronJob',
  'A cron job: the fields of POST /cron (secrets as ${ENV_VAR} references), and its key.',
);

/** A schedule of the file: the body of `POST /schedules`, with `key`. */
export const FileSchedule = fileItem(
  ScheduleCreateBody,
  'PunctualFileSchedule',
  'A one-time schedule: the fields of POST /schedules (secrets as ${ENV_VAR} references), and its key.',
);

/** A flow-control key of the file: the body of `PUT /flow-control-keys/{key}`, with `key`. */
export const FileFlowControlKey = Type.Object(
  { key: FlowControlKeyParams.properties.key, ...FlowControlKeyBody.properties },
  {
    additionalProperties: false,
    title: 'PunctualFileFlowControlKey',
    description:
      'A flow-control key: the fields of PUT /flow-control-keys/{key} (at least one of parallelism and rate unless paused; ' +
      'absent limits are none, period 1000 ms, paused false), and its key.',
  },
);

/** The whole file. */
export const PunctualFileSchema = Type.Object(
  {
    $schema: Type.Optional(Type.String({ description: 'The URL of this schema, for editors (ignored by punctual apply).' })),
    version: Type.Literal(PUNCTUAL_FILE_VERSION, { description: 'Version of the file format: 1.' }),
    cron: Type.Optional(Type.Array(FileCronJob, { description: 'The cron jobs, each with a key unique among them.' })),
    schedules: Type.Optional(Type.Array(FileSchedule, { description: 'The one-time schedules, each with a key unique among them.' })),
    flowControlKeys: Type.Optional(
      Type.Array(FileFlowControlKey, { description: 'The flow-control keys, each once: configured before the jobs are created or updated.' }),
    ),
  },
  {
    additionalProperties: false,
    title: 'PunctualFile',
    description:
      'Cron jobs, schedules and flow-control keys as code, for `punctual apply -f punctual.yaml` (docs/apply.md). Any string may hold ' +
      '${ENV_VAR} references, read from the environment when the file is applied (`$${` writes `${`); secret fields must be one.',
  },
);
export type PunctualFile = Static<typeof PunctualFileSchema>;

/** `value` without the keywords only this service's validator knows (`x-rule`, `x-check`, …), deeply. */
function withoutPrivateKeywords(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutPrivateKeywords);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => !k.startsWith('x-'))
      .map(([k, v]) => [k, withoutPrivateKeywords(v)]),
  );
}

/**
 * The file's JSON Schema (draft 2020-12) as published: the TypeBox schema as plain JSON, without
 * this service's own keywords (their rules are checked by the service when the file is applied).
 */
export function punctualFileJsonSchema(): Record<string, unknown> {
  const plain = withoutPrivateKeywords(JSON.parse(JSON.stringify(PunctualFileSchema))) as Record<string, unknown>;
  return { $schema: 'https://json-schema.org/draft/2020-12/schema', ...plain };
}
