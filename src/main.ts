import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { Config } from './config.js';
import { Dispatcher } from './dispatch/dispatcher.js';
import { ExecutionPruner } from './dispatch/pruner.js';
import { DEFAULT_RETRY_POLICY } from './dispatch/retry.js';
import { resolveSigningSecrets, WebhookSigner } from './dispatch/signing.js';
import { systemClock, type Clock } from './domain/clock.js';
import { buildApp } from './http/app.js';
import { createLogger } from './logger.js';
import { ensureBootstrapKey } from './service/api-keys.js';
import { openStore } from './store/open.js';
import type { Store } from './store/store.js';
import { VERSION } from './version.js';

/** A started `punctual serve`: the HTTP API and the dispatcher on one store. */
export interface RunningServer {
  app: FastifyInstance;
  dispatcher: Dispatcher;
  store: Store;
  /** Base URL the API listens on, e.g. `http://127.0.0.1:8080`. */
  url: string;
  /**
   * Graceful stop (SIGTERM): refuses new requests and waits for those in flight, lets calls in
   * flight finish within `config.shutdownGraceMs`, then closes the store.
   */
  close(): Promise<void>;
}

/** Overrides for tests: an injected clock or logger. */
export interface StartOptions {
  clock?: Clock;
  logger?: Logger;
}

/**
 * Wires configuration → store → dispatcher → HTTP API and starts serving.
 * Opens the store, applies migrations, makes sure the bootstrap key exists when configured, then
 * listens and starts the dispatcher.
 * @throws when the store cannot be opened or migrated, or the port cannot be bound
 */
export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const clock = opts.clock ?? systemClock;
  const logger = opts.logger ?? createLogger(config.logLevel);
  const store = await openStore(config.databaseUrl, { logger });
  let signer: WebhookSigner;
  try {
    await store.migrate();
    if (config.bootstrapToken !== null) {
      await ensureBootstrapKey(store, clock, config.bootstrapToken);
      logger.info({}, 'bootstrap key is in place');
    }
    signer = new WebhookSigner(await resolveSigningSecrets(store, config.signingSecrets));
  } catch (err) {
    await store.close();
    throw err;
  }

  const dispatcher = new Dispatcher({
    store,
    clock,
    logger: logger.child({ component: 'dispatch' }),
    userAgent: `Punctual/${VERSION}`,
    signer,
    misfireThresholdMs: config.misfireThresholdMs,
    maxInFlight: config.maxInFlight,
  });
  const pruner = new ExecutionPruner({
    store,
    clock,
    logger: logger.child({ component: 'prune' }),
    retentionMs: config.executionRetentionMs,
  });
  let draining = false;
  const app = await buildApp({
    store,
    clock,
    logger,
    wake: (dueAt) => dispatcher.wake(dueAt),
    isReady: () => !draining,
    defaults: { retry: DEFAULT_RETRY_POLICY, timeoutMs: config.requestTimeoutMs },
  });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    await app.close();
    await store.close();
    throw err;
  }
  dispatcher.start();
  pruner.start();
  const address = app.server.address();
  const port = typeof address === 'object' && address !== null ? address.port : config.port;
  const host = config.host.includes(':') ? `[${config.host}]` : config.host;
  const url = `http://${host}:${port}`;
  logger.info({ url, version: VERSION, nodeId: dispatcher.nodeId }, 'punctual is serving');

  let closing: Promise<void> | null = null;
  const close = (): Promise<void> => {
    closing ??= (async () => {
      draining = true;
      await app.close();
      await pruner.stop();
      const { unfinished } = await dispatcher.stop(config.shutdownGraceMs);
      if (unfinished > 0) logger.warn({ unfinished }, 'calls still in flight at shutdown; they will be attempted again');
      await store.close();
      logger.info({}, 'punctual stopped');
    })();
    return closing;
  };
  return { app, dispatcher, store, url, close };
}
