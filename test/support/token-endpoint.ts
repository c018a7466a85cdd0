import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { startReceiver, type Receiver } from './receiver.js';
import { startTestServer, type TestServer } from './server.js';
import type { StoreKind } from './stores.js';

/** One answer of a {@link TokenEndpoint}. */
export interface TokenAnswer {
  /** The HTTP status. */
  status: number;
  /** Sent as it is when a string, else as JSON. */
  body: unknown;
  /** The `content-type` of the answer (default `application/json`). */
  contentType?: string;
  /** Wait before answering, ms (default none). */
  delayMs?: number;
}

/** A real OAuth 2.0 token endpoint on 127.0.0.1 (RFC 6749 §4.4), for the tests of calls with OAuth 2. */
export interface TokenEndpoint {
  /** `http://127.0.0.1:<port>/token`; any path is served the same way. */
  url: string;
  /** The form of each request, in order (`grant_type`, `scope`, …). */
  requests: URLSearchParams[];
  /** The `Authorization` header of each request (the client's HTTP Basic, RFC 6749 §2.3.1). */
  authorizations: (string | undefined)[];
  /** The `Content-Type` header of each request. */
  contentTypes: (string | undefined)[];
  /** Answers given in turn before the default one (a new token). */
  answers: TokenAnswer[];
  /** Every access token handed out so far, in order (the default answers'). */
  issued: string[];
  /** Forgets the requests and the queued answers; `issued` goes on counting. */
  reset(): void;
  close(): Promise<void>;
}

/**
 * Starts a token endpoint that records each request and answers the queued `answers` first, then
 * `200 {"access_token": "<prefix><n>", "token_type": "Bearer", "expires_in": 3600}` with n = 1, 2, ….
 * @param prefix start of the access tokens handed out (default `tok-`)
 */
export async function startTokenEndpoint(prefix = 'tok-'): Promise<TokenEndpoint> {
  const requests: URLSearchParams[] = [];
  const authorizations: (string | undefined)[] = [];
  const contentTypes: (string | undefined)[] = [];
  const answers: TokenAnswer[] = [];
  const issued: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      requests.push(new URLSearchParams(text));
      authorizations.push(req.headers.authorization);
      contentTypes.push(req.headers['content-type']);
      let a = answers.shift();
      if (a === undefined) {
        const token = `${prefix}${issued.length + 1}`;
        issued.push(token);
        a = { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: 3600 } };
      }
      const answer = a;
      const send = () => {
        if (res.destroyed) return;
        res.writeHead(answer.status, { 'content-type': answer.contentType ?? 'application/json' });
        res.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    requests,
    authorizations,
    contentTypes,
    answers,
    issued,
    reset: () => {
      for (const list of [requests, authorizations, contentTypes, answers]) list.length = 0;
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A test server with a receiver and a token endpoint, for the suites of job secrets. */
export interface SecretsRig {
  server: TestServer;
  receiver: Receiver;
  tokens: TokenEndpoint;
}

/**
 * Starts a receiver, a token endpoint and a test server of `store` with `env` before the tests of
 * the calling `describe`, and stops them after; the fields are set once the tests run.
 */
export function secretsRig(store: StoreKind, env: Record<string, string>): SecretsRig {
  const rig = {} as SecretsRig;
  beforeAll(async () => {
    rig.receiver = await startReceiver();
    rig.tokens = await startTokenEndpoint();
    rig.server = await startTestServer(env, { store });
  });
  afterAll(async () => {
    await rig.server?.stop();
    await rig.receiver?.close();
    await rig.tokens?.close();
  });
  return rig;
}
