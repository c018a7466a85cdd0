/** Wire schemas of API keys. */
import { Type, type Static } from 'typebox';
import { API_KEY_SCOPES, API_KEY_STATUSES } from '../../domain/enums.js';
import { toIso, toIsoOrNull } from '../../domain/time.js';
import type { ApiKey } from '../../domain/types.js';
import { Id, Nullable, RuleString, SizedList, StringEnum, Timestamp } from './common.js';

const Status = StringEnum(API_KEY_STATUSES, 'Enabled keys authorise requests; Disabled ones are refused (403).');

const SCOPES_TEXT =
  '`jobs:read` (read schedules, cron jobs, executions), `jobs:write` (create, update, delete, trigger, replay, backfill; ' +
  'implies `jobs:read`), `keys:manage` (API keys and notification channels), `metrics:read` (metrics and the live nodes).';

/** A non-empty list of scopes. */
const Scopes = (description: string) =>
  Type.Array(StringEnum(API_KEY_SCOPES, 'A scope.'), { minItems: 1, maxItems: API_KEY_SCOPES.length, uniqueItems: true, description });

const ExpiresAtInput = RuleString(
  'instant',
  'When the key stops working (ISO 8601 with `Z` or an offset, after the current time); from then on it is refused with 401. Null: never.',
);

const fields = {
  id: Id,
  name: Type.String({ description: 'Name given at creation.' }),
  status: Status,
  createdAt: Timestamp('When the key was created (ISO 8601, UTC).'),
  lastUsed: Nullable(Timestamp('Last authenticated request (to within 5 s); null when never used.')),
  scopes: Scopes(`What the key may do, in this order: ${SCOPES_TEXT}`),
  expiresAt: Nullable(Timestamp('From this instant the key is refused (401, saying it expired); null when it never expires.')),
  previousTokenExpiresAt: Nullable(
    Timestamp('Until this instant the token replaced by the key\'s last rotation is still accepted; null when the key was never rotated.'),
  ),
};

/** An API key as listed and read: never with its token. */
export const ApiKeySchema = Type.Object(fields, { additionalProperties: false, title: 'ApiKey', description: 'An API key, without its token.' });
export type ApiKeyWire = Static<typeof ApiKeySchema>;

/** The answer to POST /api-keys: the key with its token, shown this once. */
export const ApiKeyCreatedSchema = Type.Object(
  {
    ...fields,
    token: Type.String({ description: 'The secret, `pk_…`. Shown only in this response: store it now.' }),
  },
  { additionalProperties: false, title: 'ApiKeyCreated', description: 'The new API key, with its token (shown only once).' },
);
export type ApiKeyCreatedWire = Static<typeof ApiKeyCreatedSchema>;

/** GET /api-keys. */
export const ApiKeyListSchema = SizedList('apiKeys', ApiKeySchema, 'Every API key, oldest first, without tokens.', { title: 'ApiKeyList', description: 'Every API key.' });

const KeyName = RuleString('name', 'Name of the key (not blank; at most 256 characters by default).');

/** Body of POST /api-keys. */
export const ApiKeyCreateBody = Type.Object(
  {
    name: KeyName,
    status: Type.Optional(Nullable(StringEnum(API_KEY_STATUSES, 'Initial state; null or absent: Enabled.'))),
    scopes: Type.Optional(
      Scopes(`The key's scopes; absent: those of the calling key. At most the calling key's own (403 otherwise). ${SCOPES_TEXT}`),
    ),
    expiresAt: Type.Optional(Nullable(ExpiresAtInput)),
  },
  { additionalProperties: false, title: 'ApiKeyCreate', description: 'A new API key.' },
);
export type ApiKeyCreateBody = Static<typeof ApiKeyCreateBody>;

/** Body of PATCH /api-keys/{id}: absent fields keep their values. */
export const ApiKeyPatchBody = Type.Object(
  {
    name: Type.Optional(KeyName),
    status: Type.Optional(StringEnum(API_KEY_STATUSES, 'Disabled refuses the key from the next request on.')),
    scopes: Type.Optional(Scopes('The key\'s new scopes, from the next request on; at most the calling key\'s own (403 otherwise).')),
    expiresAt: Type.Optional(Nullable(ExpiresAtInput)),
  },
  { additionalProperties: false, title: 'ApiKeyPatch', description: 'Partial update of an API key.' },
);
export type ApiKeyPatchBody = Static<typeof ApiKeyPatchBody>;

/** The wire form of a key (no token). */
export function apiKeyToWire(key: ApiKey): ApiKeyWire {
  return {
    id: key.id,
    name: key.name,
    status: key.status,
    createdAt: toIso(key.createdAt),
    lastUsed: toIsoOrNull(key.lastUsed),
    scopes: [...key.scopes],
    expiresAt: toIsoOrNull(key.expiresAt),
    previousTokenExpiresAt: toIsoOrNull(key.previousTokenExpiresAt),
  };
}

/** Body of POST /api-keys/{id}/rotate. */
export const ApiKeyRotateBody = Type.Object(
  {
    gracePeriodSeconds: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: 604_800,
        description: 'How long the replaced token is still accepted, in seconds (0 to 604,800, i.e. 7 days); absent: 3,600.',
      }),
    ),
  },
  { additionalProperties: false, title: 'ApiKeyRotate', description: 'A rotation of a key\'s token.' },
);
export type ApiKeyRotateBody = Static<typeof ApiKeyRotateBody>;
