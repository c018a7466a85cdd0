/**
 * podman for the container tests: finding it, the settings this machine needs
 * (containers.conf beside this file), the base images (scripts/container-base.sh), building the
 * image, and a receiver on the host that containers can reach.
 */
import { execFile, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** The repository's root. */
export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The environment of every podman command: CONTAINERS_CONF points at this directory's settings. */
export const PODMAN_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? fileURLToPath(new URL('./containers.conf', import.meta.url)),
};

/** True when `podman` runs on this machine. */
export function podmanPresent(): boolean {
  return spawnSync('podman', ['--version'], { stdio: 'ignore' }).status === 0;
}

/** Output and exit code of a command. */
export interface Run {
  stdout: string;
  stderr: string;
  code: number;
}

/** Runs `cmd args` in the repository's root with {@link PODMAN_ENV}; never throws for an exit code. */
export function run(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    execFile(
      cmd,
      args,
      { cwd: ROOT, env: { ...PODMAN_ENV, ...opts.env }, maxBuffer: 64 * 1024 * 1024, timeout: opts.timeoutMs ?? 0 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === 'number' ? err.code : 1) : 0;
        resolve({ stdout: stdout.toString(), stderr: stderr.toString(), code });
      },
    );
  });
}

/** `podman args`; throws with its stderr when it fails. Returns stdout, trimmed. */
export async function podman(...args: string[]): Promise<string> {
  const r = await run('podman', args);
  if (r.code !== 0) throw new Error(`podman ${args.join(' ')} failed (${r.code}): ${r.stderr.trim()}`);
  return r.stdout.trim();
}

/** The base images made by scripts/container-base.sh (built and cached when missing). */
export interface Bases {
  BUILD_IMAGE: string;
  BASE_IMAGE: string;
  POSTGRES_IMAGE: string;
}

/** Runs scripts/container-base.sh and reads the images it names. */
export async function ensureBases(): Promise<Bases> {
  const r = await run('bash', ['scripts/container-base.sh']);
  if (r.code !== 0) throw new Error(`scripts/container-base.sh failed (${r.code}): ${r.stderr}`);
  const vars = Object.fromEntries(r.stdout.trim().split('\n').map((l) => l.split('=', 2) as [string, string]));
  return vars as unknown as Bases;
}

/**
 * Builds the repository's Dockerfile as `tag` on the given bases, with the host's CA bundle
 * mounted for the build only (outbound TLS is re-signed by a local CA here). `--format docker`
 * keeps the HEALTHCHECK. Returns the build's duration in ms.
 */
export async function buildImage(tag: string, bases: Bases): Promise<number> {
  const started = Date.now();
  const r = await run('podman', [
    'build', '--format', 'docker', '--layers', '-t', tag,
    '--build-arg', `BUILD_IMAGE=${bases.BUILD_IMAGE}`,
    '--build-arg', `BASE_IMAGE=${bases.BASE_IMAGE}`,
    '-v', '/etc/ssl/certs/ca-certificates.crt:/etc/ssl/certs/ca-certificates.crt:ro',
    '.',
  ]);
  if (r.code !== 0) throw new Error(`podman build failed (${r.code}):\n${r.stdout.slice(-4000)}\n${r.stderr.slice(-4000)}`);
  return Date.now() - started;
}

/** The gateway address of a podman network: the host's own address on that bridge. */
export async function gatewayOf(network: string): Promise<string> {
  const out = await podman('network', 'inspect', network, '--format', '{{range .Subnets}}{{.Gateway}} {{end}}');
  const ipv4 = out.split(/\s+/).find((a) => /^\d+\.\d+\.\d+\.\d+$/.test(a));
  if (!ipv4) throw new Error(`network ${network} has no IPv4 gateway: ${out}`);
  return ipv4;
}

/** Polls `probe` every `everyMs` until it returns true; throws `what` after `timeoutMs`. */
export async function poll(what: string, probe: () => Promise<boolean>, timeoutMs: number, everyMs = 100): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `podman healthcheck run` until healthy; returns when it is (the HEALTHCHECK of the image). */
export function waitHealthy(container: string, timeoutMs = 60_000): Promise<void> {
  return poll(`${container} healthy`, async () => (await run('podman', ['healthcheck', 'run', container])).code === 0, timeoutMs);
}

