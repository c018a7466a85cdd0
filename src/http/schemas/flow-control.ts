/** Wire schemas of flow-control keys (docs/flow-control.md). */
import { Type, type Static } from 'typebox';
import { FLOW_CONTROL_BOUNDS, FLOW_CONTROL_KEY_PATTERN } from '../../domain/flow-control.js';
import { toIso } from '../../domain/time.js';
import type { FlowControlKeyView } from '../../service/flow-control.js';
import { Nullable, SizedList, Timestamp } from './common.js';

const B = FLOW_CONTROL_BOUNDS;

/** The path parameter `key`. */
export const FlowControlKeyParams = Type.Object(
  { key: Type.String({ pattern: FLOW_CONTROL_KEY_PATTERN, description: 'The key: 1 to 128 of A-Z a-z 0-9 . _ : -' }) },
  { additionalProperties: false },
);

const Parallelism = Nullable(
  Type.Integer({ minimum: 1, maximum: B.parallelismMax, description: `Most calls of the key in flight at once (1–${B.parallelismMax}); null: no bound.` }),
);
const Rate = Nullable(
  Type.Integer({ minimum: 1, maximum: B.rateMax, description: `Most calls of the key started in any window of \`period\` ms (1–${B.rateMax}); null: no bound.` }),
);
const Period = Type.Integer({
  minimum: B.periodMinMs,
  maximum: B.periodMaxMs,
  description: `The window of \`rate\`, ms (${B.periodMinMs}–${B.periodMaxMs}); default ${B.periodDefaultMs}.`,
});
const Paused = Type.Boolean({ description: 'True: the key starts no call until resumed; its calls wait. Default false.' });

/** Body of PUT /flow-control-keys/{key}: all the key's limits (a PUT replaces them). */
export const FlowControlKeyBody = Type.Object(
  { parallelism: Type.Optional(Parallelism), rate: Type.Optional(Rate), period: Type.Optional(Period), paused: Type.Optional(Paused) },
  {
    additionalProperties: false,
    title: 'FlowControlKeyPut',
    description: 'The limits of a key: at least one of `parallelism` and `rate` unless `paused`. Absent limits are null.',
  },
);
export type FlowControlKeyBody = Static<typeof FlowControlKeyBody>;

/** A key as read, with its live state. */
export const FlowControlKeySchema = Type.Object(
  {
    key: Type.String({ description: 'The key.' }),
    configured: Type.Boolean({ description: 'False for a key named by jobs but never configured: it has no limits.' }),
    parallelism: Parallelism,
    rate: Rate,
    period: Type.Integer({ description: 'The window of `rate`, ms.' }),
    paused: Type.Boolean({ description: 'True: the key starts no call until resumed.' }),
    holdUntil: Nullable(Timestamp('Until when a receiver that answered 429 or 503 with `Retry-After` holds the key (ISO 8601, UTC); null: no hold.')),
    waiting: Type.Integer({ description: 'Calls of the key due and waiting for its limits (`status` Pending or Retrying, `waitingFor: flowControl`).' }),
    inFlight: Type.Integer({ description: 'Calls of the key in flight now.' }),
    rateUsed: Nullable(Type.Integer({ description: 'Calls of the key started in the window of `period` that ends now; null without a `rate`.' })),
    oldestWaitingSince: Nullable(Timestamp('When the oldest waiting call of the key became due (ISO 8601, UTC); null when none waits.')),
    createdAt: Nullable(Timestamp('When the key was first configured (ISO 8601, UTC); null when it is not configured.')),
    updatedAt: Nullable(Timestamp('When its limits or its pause last changed (ISO 8601, UTC); null when it is not configured.')),
  },
  { additionalProperties: false, title: 'FlowControlKey', description: 'A flow-control key: its limits and what it has under way.' },
);
export type FlowControlKeyWire = Static<typeof FlowControlKeySchema>;

/** GET /flow-control-keys. */
export const FlowControlKeyListSchema = SizedList('flowControlKeys', FlowControlKeySchema, 'Every key in use, in byte order of their names.', {
  title: 'FlowControlKeyList',
  description: 'Every flow-control key: configured, or named by a job or an execution.',
});

const iso = (ms: number | null) => (ms === null ? null : toIso(ms));

/** The wire form of a key's view. */
export function flowControlKeyToWire(v: FlowControlKeyView): FlowControlKeyWire {
  return {
    key: v.key,
    configured: v.configured,
    parallelism: v.parallelism,
    rate: v.rate,
    period: v.periodMs,
    paused: v.paused,
    holdUntil: iso(v.holdUntil),
    waiting: v.waiting,
    inFlight: v.inFlight,
    rateUsed: v.rateUsed,
    oldestWaitingSince: iso(v.oldestWaitingSince),
    createdAt: iso(v.createdAt),
    updatedAt: iso(v.updatedAt),
  };
}
