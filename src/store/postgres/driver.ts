import type { DatabaseTarget, StoreDriver } from '../driver.js';

/**
 * The PostgreSQL store at `target.url` (which may carry `schema=<name>`). Opening creates the
 * pool and checks the server answers. The dispatcher uses the store itself. The store's modules
 * (and `pg`) are imported when a PostgreSQL store is opened, so that a SQLite start does not load
 * them (docs/benchmarks.md, "Start time").
 */
export const postgresDriver: StoreDriver<Extract<DatabaseTarget, { kind: 'postgres' }>> = {
  async open(target, opts) {
    const { PostgresStore } = await import('./store.js');
    const store = PostgresStore.open(target.url, {
      ...(opts.logger && { logger: opts.logger }),
      clock: opts.clock ?? 'database',
    });
    try {
      await store.ping();
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  },
  openTransferSource: async (target) => (await import('./queries/transfer.js')).openPostgresTransferSource(target.url),
  openTransferTarget: async (target) => (await import('./queries/transfer.js')).openPostgresTransferTarget(target.url),
  serveDispatchStore: () => null,
  describe(target) {
    try {
      const u = new URL(target.url);
      const user = u.username ? `${u.username}@` : '';
      // The schema tells apart two stores in one database (`schema=`, or `options=-c search_path=`);
      // a schema name is no secret, unlike the rest of the query (passwords, key files).
      const schema = u.searchParams.get('schema') ?? /(?:^|\s)-c\s*search_path=([^\s,]+)/.exec(u.searchParams.get('options') ?? '')?.[1];
      const safeSchema = schema && /^[A-Za-z0-9_$"]{1,64}$/.test(schema) ? ` (schema ${schema})` : '';
      return `PostgreSQL ${u.protocol}//${user}${u.host}${u.pathname}${safeSchema}`;
    } catch {
      return 'PostgreSQL (unparseable URL)';
    }
  },
};
