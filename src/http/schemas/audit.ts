/**
 * Wire schemas of the audit log (`GET /audit-events`, docs/keys-and-audit.md).
 */
import { Type, type Static } from 'typebox';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES, type AuditEvent } from '../../domain/audit.js';
import { toIso } from '../../domain/time.js';
import { AUDIT_ID_MAX } from '../../service/audit.js';
import { Nullable, RuleString, StringEnum, Timestamp } from './common.js';
import { CursorPageSchema, ListCursorQuery, ListLimitQuery } from './lists.js';

const ActorSchema = Type.Union(
  [
    Type.Object(
      { keyId: Type.String({ description: 'The id of the API key.' }), keyName: Type.String({ description: 'Its name when the change was made.' }) },
      { additionalProperties: false, title: 'AuditKeyActor' },
    ),
    Type.Literal('cli', { description: 'A `punctual` command that wrote the store directly (e.g. `keys create --local`).' }),
    Type.Literal('system', { description: 'The service itself: an auto-pause, the count of failed sign-ins.' }),
  ],
  { description: 'Who made the change.' },
);

const FieldChangeSchema = Type.Object(
  {
    before: Type.Optional(Type.Unknown({ description: 'The value before (absent for a create).' })),
    after: Type.Optional(Type.Unknown({ description: 'The value after (absent for a delete).' })),
  },
  { additionalProperties: false, title: 'AuditFieldChange' },
);

/** One event. */
export const AuditEventSchema = Type.Object(
  {
    id: Type.String({ description: 'The event id (UUID v7).', format: 'uuid' }),
    occurredAt: Timestamp('When the change was made (ISO 8601, UTC); for `auth.failure`, the start of its minute.'),
    actor: ActorSchema,
    action: StringEnum(AUDIT_ACTIONS, 'What was done, `<resource>.<verb>`.'),
    resourceType: StringEnum(AUDIT_RESOURCE_TYPES, 'The kind of resource changed.'),
    resourceId: Type.String({ description: 'Its id (for `address`, the client address).' }),
    requestId: Nullable(Type.String({ description: 'The `X-Request-Id` of the request that made the change; null for the CLI and the system.' })),
    sourceAddress: Nullable(Type.String({ description: 'The client address of that request; null for the CLI and the system.' })),
    changes: Type.Record(Type.String(), FieldChangeSchema, {
      description:
        'The fields changed: `{before, after}`; a create has only `after`, a delete only `before`. Secrets (job secrets, ' +
        'channel URLs, tokens, secret-looking header values) read `"[redacted]"`. `auth.failure`: `{"count": {"after": n}}`.',
    }),
  },
  { additionalProperties: false, title: 'AuditEvent', description: 'One change recorded in the audit log.' },
);

/** A page of events. */
export const AuditEventPageSchema = CursorPageSchema(
  'events',
  AuditEventSchema,
  'The events of this page, newest first.',
  { title: 'AuditEventPage', description: 'A page of the audit log.' },
);

const idFilter = (description: string) => Type.String({ minLength: 1, maxLength: AUDIT_ID_MAX, description });

/** Query of GET /audit-events. */
export const AuditEventQuery = Type.Object(
  {
    actorKeyId: Type.Optional(idFilter('Only changes made with this API key (its id).')),
    resourceType: Type.Optional(StringEnum(AUDIT_RESOURCE_TYPES, 'Only events about this kind of resource.')),
    resourceId: Type.Optional(idFilter('Only events about this resource (its id; an address for `address`).')),
    action: Type.Optional(StringEnum(AUDIT_ACTIONS, 'Only events of this action.')),
    from: Type.Optional(RuleString('instant', 'Only events at or after this instant (ISO 8601 with `Z` or an offset; inclusive).')),
    to: Type.Optional(RuleString('instant', 'Only events before this instant (ISO 8601 with `Z` or an offset; exclusive).')),
    limit: Type.Optional(ListLimitQuery('Events')),
    cursor: Type.Optional(ListCursorQuery),
  },
  { additionalProperties: false },
);
export type AuditEventQuery = Static<typeof AuditEventQuery>;

/** The wire form of an event. */
export function auditEventToWire(e: AuditEvent): Static<typeof AuditEventSchema> {
  return { ...e, occurredAt: toIso(e.occurredAt) } as Static<typeof AuditEventSchema>;
}
