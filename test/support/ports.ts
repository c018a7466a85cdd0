/**
 * Ports of 127.0.0.1 for tests: one free now (to give a server, or to call where nothing
 * listens: the connection is refused), and whether one is free.
 */
import { createServer } from 'node:net';

/**
 * A TCP port free on 127.0.0.1 right now: bound on an ephemeral port, then released. Nothing
 * listens on it when this resolves, so a call to it is refused until something binds it.
 * @returns the port number (1–65535)
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

/**
 * Whether `port` can be bound on 127.0.0.1 within `timeoutMs` (a process that was just killed may
 * still be closing its files when it no longer shows in /proc as alive).
 */
export async function portFreed(port: number, timeoutMs = 2_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await portIsFree(port)) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Whether `port` can be bound on 127.0.0.1 now (nothing listens on it). */
export async function portIsFree(port: number): Promise<boolean> {
  const server = createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}
