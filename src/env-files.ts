/**
 * The `<NAME>_FILE` convention of Docker and Kubernetes secrets (docs/configuration.md, "Secrets
 * in files"): for each variable of {@link FILE_VARIABLES}, `<NAME>_FILE=/path` makes the file's
 * content the variable's value, so the secret is mounted as a file instead of being put in the
 * environment.
 */
import { readFileSync, statSync } from 'node:fs';

/** The variables that may be given as `<NAME>_FILE`: every secret the service reads from its environment. */
export const FILE_VARIABLES = ['DATABASE_URL', 'PUNCTUAL_ENCRYPTION_KEYS', 'PUNCTUAL_SIGNING_SECRET', 'PUNCTUAL_BOOTSTRAP_TOKEN'] as const;

/** Largest file read for a variable: a secret, not a document. */
export const MAX_FILE_BYTES = 65_536;

/** Where a variable's value came from: `NAME` itself, `NAME_FILE` (with the file's path), or nowhere. */
export type VariableSource = { from: 'env' } | { from: 'file'; path: string } | { from: 'unset' };

/** The environment with the `_FILE` variables read, and what went wrong. */
export interface ResolvedEnv {
  /** `env` with each `<NAME>` of {@link FILE_VARIABLES} given as `<NAME>_FILE` set to the file's content. */
  env: NodeJS.ProcessEnv;
  /** Where each variable of {@link FILE_VARIABLES} came from. */
  sources: Record<(typeof FILE_VARIABLES)[number], VariableSource>;
  /** One line per variable that could not be resolved; names variables and paths, never a file's content. */
  problems: string[];
}

/**
 * Reads the `_FILE` variables of `env` (which is not changed). A file's content, with its trailing
 * line breaks removed, becomes the value. An empty variable counts as unset.
 * Problems: `NAME` and `NAME_FILE` both set (the message names both); a file that cannot be read
 * (named with the error code, e.g. `ENOENT`, `EACCES`), is empty (a mount gone wrong: the default
 * must not be used silently) or is larger than {@link MAX_FILE_BYTES}.
 */
export function resolveFileEnv(env: NodeJS.ProcessEnv): ResolvedEnv {
  const out: NodeJS.ProcessEnv = { ...env };
  const problems: string[] = [];
  const sources = {} as ResolvedEnv['sources'];
  for (const name of FILE_VARIABLES) {
    const path = env[`${name}_FILE`];
    const direct = env[name];
    sources[name] = direct ? { from: 'env' } : { from: 'unset' };
    if (!path) continue;
    if (direct) {
      problems.push(`${name} and ${name}_FILE are both set: set only one of them`);
      continue;
    }
    try {
      if (statSync(path).size > MAX_FILE_BYTES) {
        problems.push(`${name}_FILE=${path}: the file is larger than ${MAX_FILE_BYTES} bytes`);
        continue;
      }
      const value = readFileSync(path, 'utf8').replace(/[\r\n]+$/, '');
      if (value.trim() === '') {
        problems.push(`${name}_FILE=${path}: the file is empty`);
        continue;
      }
      out[name] = value;
      sources[name] = { from: 'file', path };
    } catch (err) {
      problems.push(`${name}_FILE=${path}: the file cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
    }
  }
  return { env: out, sources, problems };
}
