/**
 * `punctual keys create|list|get|update|delete`: API keys. They go through the API when a service
 * URL is configured (`PUNCTUAL_URL` or `--url`), and otherwise, or with `--local`, straight to the
 * store in `DATABASE_URL`: that is how the first key is made, with no key and no running server
 * (the server may be running; the store takes both). Both ways print the same thing.
 */
import { Option, type Command } from 'commander';
import type { ApiKey, ApiKeyCreated, ApiKeyList } from '../client/index.js';
import { API_KEY_STATUSES } from '../domain/enums.js';
import type { ApiKey as StoredApiKey, ApiKeyStatus } from '../domain/types.js';
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
  create(name: string, status: ApiKeyStatus): Promise<ApiKeyCreated>;
  list(): Promise<ApiKeyList>;
  get(id: string): Promise<ApiKey | null>;
  update(id: string, patch: { name?: string; status?: ApiKeyStatus }): Promise<ApiKey>;
  delete(id: string): Promise<void>;
}

/** The wire form of a stored key (as GET /api-keys/{id} answers it). */
function toWire(k: StoredApiKey): ApiKey {
  return { id: k.id, name: k.name, status: k.status, createdAt: toIso(k.createdAt), lastUsed: toIsoOrNull(k.lastUsed) };
}

/**
 * Runs `fn` on the store of `DATABASE_URL`, which must exist: a keys command never creates a
 * database (a key made in a new, empty one would be refused by the server that uses another).
 */
function onStore<T>(fn: (store: Store) => Promise<T>): Promise<T> {
  return withStore(fn, { existing: true, viaApi: true });
}

/** Changes made on the store by these commands are audit events of actor `cli` (docs/audit.md). */
const CLI_AUDIT: AuditContext = { actor: 'cli', requestId: null, sourceAddress: null };

/** The keys in the store of `DATABASE_URL`, through the service's use cases (the same rules as the API). */
const localBackend: KeyBackend = {
  async create(name, status) {
    const [{ createApiKey }, { systemClock }] = await Promise.all([import('../service/api-keys.js'), import('../domain/clock.js')]);
    const { apiKey, token } = await onStore((store) => createApiKey(store, systemClock, { name, status }, undefined, CLI_AUDIT));
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
    const { updateApiKey } = await import('../service/api-keys.js');
    return toWire(await onStore((store) => updateApiKey(store, id, patch, undefined, undefined, CLI_AUDIT)));
  },
  async delete(id) {
    const { deleteApiKey } = await import('../service/api-keys.js');
    await onStore((store) => deleteApiKey(store, id, CLI_AUDIT));
  },
};

function remoteBackend(opts: ApiOptions): KeyBackend {
  const { apiKeys } = clientFrom(opts);
  return {
    create: (name, status) => apiKeys.create({ name, status }),
    list: () => apiKeys.list(),
    get: (id) => apiKeys.get(id),
    update: (id, patch) => apiKeys.update(id, patch),
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

function keysTable(keys: ApiKey[]): string {
  return listTable(
    ['ID', 'NAME', 'STATUS', 'CREATED AT', 'LAST USED'],
    keys.map((k) => [k.id, k.name, k.status, k.createdAt, k.lastUsed ?? 'never']),
  );
}

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
      .description('create an API key and print its token (shown only once)'),
  ).action(
    action(async (name: string, opts: KeyOptions & { disabled?: boolean }) => {
      const created = await backend(opts).create(name, opts.disabled ? 'Disabled' : 'Enabled');
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
      .description('rename, disable or enable an API key (applies from the next request)')
      .option('--name <name>', 'new name')
      .addOption(new Option('--status <status>', 'Disabled refuses the key; Enabled accepts it again').choices(API_KEY_STATUSES)),
  ).action(
    action(async (id: string, opts: KeyOptions & { name?: string; status?: ApiKeyStatus }) => {
      const key = await backend(opts).update(id, defined({ name: opts.name, status: opts.status }));
      if (opts.json) printJson(key);
      else out(detailTable(key));
    }),
  );

  withKeyOptions(keys.command('delete').argument('<id>', 'id of the key').description('delete an API key')).action(
    action(async (id: string, opts: KeyOptions) => {
      await backend(opts).delete(id);
      if (!opts.json) out(`Deleted API key ${id}.`);
    }),
  );
}
