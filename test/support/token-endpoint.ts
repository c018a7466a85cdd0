import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A real OAuth 2.0 token endpoint (RFC 6749 §4.4) on 127.0.0.1. */
export interface TokenEndpoint {
  /** `http://127.0.0.1:<port>/token`. */
  url: string;
  /** The form of every request so far (`grant_type`, `client_id`, …). */
  requests: URLSearchParams[];
  /** Answers to give next, in turn, before the default one (a new token). */
  answers: { status: number; body: unknown }[];
  /** Every access token handed out so far, in order. */
  issued: string[];
  close(): Promise<void>;
}

/**
 * Starts a token endpoint that records each request and answers the queued `answers` first, then
 * `200 {"access_token": "<prefix><n>", "token_type": "Bearer", "expires_in": 3600}` with n = 1, 2, ….
 * @param prefix start of the access tokens handed out (default `tok-`)
 */
export async function startTokenEndpoint(prefix = 'tok-'): Promise<TokenEndpoint> {
  const requests: URLSearchParams[] = [];
  const answers: { status: number; body: unknown }[] = [];
  const issued: string[] = [];
  const server: Server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      requests.push(new URLSearchParams(text));
      let a = answers.shift();
      if (a === undefined) {
        const token = `${prefix}${issued.length + 1}`;
        issued.push(token);
        a = { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: 3600 } };
      }
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/token`,
    requests,
    answers,
    issued,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
