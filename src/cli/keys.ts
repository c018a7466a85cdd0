/**
 * `punctual keys create|list|get|update|rotate|delete`: API keys, with their scopes, expiry and
 * rotation (docs/keys-and-audit.md). They go through the API when a service
 * URL is configured (`PUNCTUAL_URL` or `--url`), and otherwise, or with `--local`, straight to the
 * store in `DATABASE_URL`: that is how the first key is made, with no key and no running server
 * (the server may be running; the store takes both). Both ways print the same thing.
 */
import { Option, type Command } from 'commander';
import type { ApiKey, ApiKeyCreate, ApiKeyCreated, ApiKeyList, ApiKeyUpdate } from '../client/index.js';
import { API_KEY_SCOPES, API_KEY_STATUSES, type ApiKeyScope } from '../domain/enums.js';
import type { ApiKey as StoredApiKey } from '../domain/types.js';
import { toIso, toIsoOrNull } from '../domain/time.js';
import type { AuditContext } from '../domain/audit.js';
import type { Store } from '../store/store.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { NotFound, UsageError } from './exit.js';
import { defined } from './options.js';
import { detailTable, listTable, out, printJson } from './output.js';
import { withStore } from './server.js';

/** What the keys commands do, through the API or on the store. */
interface KeyBackend {
  create(body: ApiKeyCreate): Promise<ApiKeyCreated>;
  list(): Promise<ApiKeyList>;
  get(id: string): Promise<ApiKey | null>;
  update(id: string, patch: ApiKeyUpdate): Promise<ApiKey>;
  rotate(id: string, gracePeriodSeconds: number | undefined): Promise<ApiKeyCreated>;
  delete(id: string): Promise<void>;
}

/** The wire form of a stored key (as GET /api-keys/{id} answers it). */
function toWire(k: StoredApiKey): ApiKey {
  return {
    id: k.id,
    name: k.name,
    status: k.status,
    createdAt: toIso(k.createdAt),
    lastUsed: toIsoOrNull(k.lastUsed),
    scopes: [...k.scopes],
    expiresAt: toIsoOrNull(k.expiresAt),
    previousTokenExpiresAt: toIsoOrNull(k.previousTokenExpiresAt),
  };
}

/**
 * `--scopes jobs:read,jobs:write` → the scopes.
 * @throws UsageError naming the values that are no scope
 */
export function parseScopesOption(text: string): ApiKeyScope[] {
  const parts = text.split(',').map((p) => p.trim()).filter((p) => p !== '');
  const unknown = parts.filter((p) => !(API_KEY_SCOPES as readonly string[]).includes(p));
  if (parts.length === 0 || unknown.length > 0) {
    throw new UsageError(`--scopes must list scopes separated by commas, among ${API_KEY_SCOPES.join(', ')}${unknown.length ? ` (not: ${unknown.join(', ')})` : ''}`);
  }
  return parts as ApiKeyScope[];
}

/**
 * `--grace 1h` → seconds: a duration with a unit (`30m`, `1h`, `7d`, `90s`) or a whole number of
 * seconds. The service checks the range (0 to 604,800).
 * @throws UsageError for anything else
 */
export async function parseGraceOption(text: string): Promise<number> {
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const { parseDuration } = await import('../config.js');
  const ms = parseDuration(text);
  if (ms === null || ms % 1000 !== 0) throw new UsageError(`--grace must be seconds or a duration like 30m, 1h or 7d (not ${JSON.stringify(text)})`);
  return ms / 1000;
}

/** `--expires`: an instant (ISO 8601 with Z or an offset), or `never` (null). The service checks the instant. */
function expiresOption(text: string | undefined): string | null | undefined {
  if (text === undefined) return undefined;
  return text.trim().toLowerCase() === 'never' ? null : text.trim();
}

/**
 * Runs `fn` on the store of `DATABASE_URL`, which must exist: a keys command never creates a
 * database (a key made in a new, empty one would be refused by the server that uses another).
 */
function onStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  return withStore(fn, { existing: true, viaApi: true });
}

/** Changes made on the store by these commands are audit events of actor `cli` (docs/keys-and-audit.md). */
const CLI_AUDIT: AuditContext = { actor: 'cli', requestId: null, sourceAddress: null };

/** The keys in the store of `DATABASE_URL`, through the service's use cases (the same rules as the API). */
const localBackend: KeyBackend = {
  async create(body) {
    const [{ createApiKey }, { systemClock }] = await Promise.all([import('../service/api-keys.js'), import('../domain/clock.js')]);
    // On the store, the command acts as the operator: the key holds every scope unless --scopes says otherwise.
    const { apiKey, token } = await onStore((store) => createApiKey(store, systemClock, body, undefined, undefined, CLI_AUDIT));
    return { ...toWire(apiKey), token };
  },
  async list() {
    const { listApiKeys } = await import('../service/api-keys.js');
    const keys = (await onStore((store) => listApiKeys(store))).map(toWire);
    return { size: keys.length, apiKeys: keys };
  },
  async get(id) {
    const { getApiKey } = await import('../service/api-keys.js');
    const key = await onStore((store) => getApiKey(store, id));
    return key && toWire(key);
  },
  async update(id, patch) {
    const [{ updateApiKey }, { systemClock }] = await Promise.all([import('../service/api-keys.js'), import('../domain/clock.js')]);
    return toWire(await onStore((store) => updateApiKey(store, id, patch, undefined, undefined, { clock: systemClock, audit: CLI_AUDIT })));
  },
  async rotate(id, gracePeriodSeconds) {
    const [{ rotateApiKey }, { systemClock }, { ALL_SCOPES }] = await Promise.all([
      import('../service/api-key-rotation.js'),
      import('../domain/clock.js'),
      import('../domain/scopes.js'),
    ]);
    const input = gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds };
    const { apiKey, token } = await onStore((store) => rotateApiKey(store, systemClock, id, input, ALL_SCOPES, CLI_AUDIT));
    return { ...toWire(apiKey), token };
  },
  async delete(id) {
    const { deleteApiKey } = await import('../service/api-keys.js');
    await onStore((store) => deleteApiKey(store, id, CLI_AUDIT));
  },
};

function remoteBackend(opts: ApiOptions): KeyBackend {
  const { apiKeys } = clientFrom(opts);
  return {
    create: (body) => apiKeys.create(body),
    list: () => apiKeys.list(),
    get: (id) => apiKeys.get(id),
    update: (id, patch) => apiKeys.update(id, patch),
    rotate: (id, gracePeriodSeconds) => apiKeys.rotate(id, gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds }),
    delete: (id) => apiKeys.delete(id),
  };
}

interface KeyOptions extends ApiOptions {
  local?: boolean;
}

/** The store with `--local` or without a service URL; the API otherwise. */
function backend(opts: KeyOptions): KeyBackend {
  if (opts.local || !opts.url) return localBackend;
  if (!opts.token) {
    throw new UsageError(
      'no API token: set PUNCTUAL_TOKEN or pass --token, or add --local to work on the store in DATABASE_URL (the first key)',
    );
  }
  return remoteBackend(opts);
}

function withKeyOptions(cmd: Command): Command {
  return withApiOptions(cmd).option(
    '--local',
    'work on the store in DATABASE_URL directly, not through the API (the default when no service URL is set)',
  );
}

function keysTable(keys: ApiKey[], now = Date.now()): string {
  return listTable(
    ['ID', 'NAME', 'STATUS', 'SCOPES', 'EXPIRES AT', 'CREATED AT', 'LAST USED'],
    keys.map((k) => [
      k.id,
      k.name,
      k.status,
      k.scopes.join(','),
      k.expiresAt === null ? 'never' : Date.parse(k.expiresAt) <= now ? `${k.expiresAt} (expired)` : k.expiresAt,
      k.createdAt,
      k.lastUsed ?? 'never',
    ]),
  );
}

const SCOPES_HELP = `comma-separated scopes among ${API_KEY_SCOPES.join(', ')}`;

/** Adds the `keys` command group to `program`. */
export function registerKeyCommands(program: Command): void {
  const keys = program
    .command('keys')
    .description('manage API keys: through the API when PUNCTUAL_URL is set, otherwise (or with --local) in the store itself');

  withKeyOptions(
    keys
      .command('create')
      .argument('<name>', 'name of the key')
      .option('--disabled', 'create the key Disabled')
      .option('--scopes <list>', `${SCOPES_HELP} (default: every scope with --local, else those of the calling key)`)
      .option('--expires <instant>', 'when the key stops working, ISO 8601 with Z or an offset (default: never)')
      .description('create an API key and print its token (shown only once)'),
  ).action(
    action(async (name: string, opts: KeyOptions & { disabled?: boolean; scopes?: string; expires?: string }) => {
      const body: ApiKeyCreate = {
        name,
        status: opts.disabled ? 'Disabled' : 'Enabled',
        ...defined({ scopes: opts.scopes === undefined ? undefined : parseScopesOption(opts.scopes), expiresAt: expiresOption(opts.expires) }),
      };
      const created = await backend(opts).create(body);
      if (opts.json) return printJson(created);
      out(
        `Created API key "${created.name}" (${created.id}, ${created.status}).\n` +
          `Token (shown only this once; store it now):\n${created.token}`,
      );
    }),
  );

  withKeyOptions(keys.command('list').description('list API keys (never their tokens)')).action(
    action(async (opts: KeyOptions) => {
      const list = await backend(opts).list();
      if (opts.json) return printJson(list);
      out(list.apiKeys.length === 0 ? 'No API keys yet: punctual keys create <name>' : keysTable(list.apiKeys));
    }),
  );

  withKeyOptions(keys.command('get').argument('<id>', 'id of the key').description('show an API key (never its token)')).action(
    action(async (id: string, opts: KeyOptions) => {
      const key = await backend(opts).get(id);
      if (opts.json) printJson(key);
      if (key === null) throw new NotFound(`no API key has the id ${id}`);
      if (!opts.json) out(detailTable(key));
    }),
  );

  withKeyOptions(
    keys
      .command('update')
      .argument('<id>', 'id of the key')
      .description('rename, disable or enable an API key, or set its scopes or expiry (applies from the next request)')
      .option('--name <name>', 'new name')
      .addOption(new Option('--status <status>', 'Disabled refuses the key; Enabled accepts it again').choices(API_KEY_STATUSES))
      .option('--scopes <list>', SCOPES_HELP)
      .option('--expires <instant>', 'when the key stops working (ISO 8601 with Z or an offset), or never'),
  ).action(
    action(async (id: string, opts: KeyOptions & { name?: string; status?: ApiKey['status']; scopes?: string; expires?: string }) => {
      const patch: ApiKeyUpdate = defined({
        name: opts.name,
        status: opts.status,
        scopes: opts.scopes === undefined ? undefined : parseScopesOption(opts.scopes),
        expiresAt: expiresOption(opts.expires),
      });
      const key = await backend(opts).update(id, patch);
      if (opts.json) printJson(key);
      else out(detailTable(key));
    }),
  );

  withKeyOptions(
    keys
      .command('rotate')
      .argument('<id>', 'id of the key')
      .option('--grace <duration>', 'how long the old token still works: seconds, or 30m, 1h, 7d (at most 7d; default 1h)')
      .description('give an API key a new token (printed once); the old one keeps working for the grace period'),
  ).action(
    action(async (id: string, opts: KeyOptions & { grace?: string }) => {
      const grace = opts.grace === undefined ? undefined : await parseGraceOption(opts.grace);
      const rotated = await backend(opts).rotate(id, grace);
      if (opts.json) return printJson(rotated);
      out(
        `Rotated API key "${rotated.name}" (${rotated.id}); the old token works until ${rotated.previousTokenExpiresAt ?? 'now'}.\n` +
          `New token (shown only this once; store it now):\n${rotated.token}`,
      );
    }),
  );

  withKeyOptions(keys.command('delete').argument('<id>', 'id of the key').description('delete an API key')).action(
    action(async (id: string, opts: KeyOptions) => {
      await backend(opts).delete(id);
      if (!opts.json) out(`Deleted API key ${id}.`);
    }),
  );
}
