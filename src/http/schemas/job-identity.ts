/**
 * Wire schemas of a job's `key` and `managedBy` (docs/apply.md), shared by schedules and cron jobs:
 * the key is checked by a `pattern` (the rule of src/domain/job-key.ts), so that the JSON Schema of
 * `punctual apply`'s file (schemas/punctual-file.ts) states it too.
 */
import { Type } from 'typebox';
import { JOB_MANAGERS } from '../../domain/enums.js';
import { JOB_KEY_PATTERN } from '../../domain/job-key.js';
import { FLOW_CONTROL_KEY_PATTERN } from '../../domain/flow-control.js';
import type { JobIdentity } from '../../domain/types.js';
import { Nullable, StringEnum } from './common.js';

const KEY_DESCRIPTION =
  'Your name for the job, unique among jobs of its kind: 1 to 128 of the characters A-Z a-z 0-9 . _ : - ' +
  '(`punctual apply` finds jobs by it). A key another job of the kind has is a 409 naming `key`.';

const MANAGED_BY_DESCRIPTION =
  '`apply` for a job created by `punctual apply` (the only jobs its `--prune` deletes), else null. Set at create, never changed.';

const FLOW_CONTROL_KEY_DESCRIPTION =
  'The flow-control key its calls count against (docs/flow-control.md): 1 to 128 of the characters A-Z a-z 0-9 . _ : -. ' +
  'Calls of all jobs naming one key share its limits; a key never configured has none.';

/** `flowControlKey` in a create or patch body: a key, or null (none). */
export const FlowControlKeyInput = Nullable(Type.String({ pattern: FLOW_CONTROL_KEY_PATTERN, description: `${FLOW_CONTROL_KEY_DESCRIPTION} Default null.` }));

/** `key` in a create or patch body: a key, or null (none; a PATCH with null removes it). */
export const KeyInput = Nullable(Type.String({ pattern: JOB_KEY_PATTERN, description: `${KEY_DESCRIPTION} Default null.` }));

/** `managedBy` in a create body. */
export const ManagedByInput = Nullable(StringEnum(JOB_MANAGERS, `${MANAGED_BY_DESCRIPTION} Default null.`));

/** The identity fields of a create body. */
export const identityCreateFields = {
  key: Type.Optional(KeyInput),
  managedBy: Type.Optional(ManagedByInput),
  flowControlKey: Type.Optional(FlowControlKeyInput),
};

/** The identity fields of a patch body (`managedBy` cannot change). */
export const identityPatchFields = { key: Type.Optional(KeyInput), flowControlKey: Type.Optional(FlowControlKeyInput) };

/** The identity fields of a job in a response. */
export const identityWireFields = {
  key: Nullable(Type.String({ description: `${KEY_DESCRIPTION} Null: none.` })),
  managedBy: Nullable(StringEnum(JOB_MANAGERS, `${MANAGED_BY_DESCRIPTION} Read-only.`)),
  flowControlKey: Nullable(Type.String({ description: `${FLOW_CONTROL_KEY_DESCRIPTION} Null: none.` })),
};

/** `key` in a list's query: only the job with this key. */
export function KeyQuery(what: string) {
  return Type.String({ pattern: JOB_KEY_PATTERN, description: `Only the ${what} with this key (exact; at most one).` });
}

/** The identity fields of a job on the wire. */
export function identityToWire(j: JobIdentity): JobIdentity {
  return { key: j.key, managedBy: j.managedBy, flowControlKey: j.flowControlKey };
}
