/**
 * The secret flags of `schedules create|update` and `cron create|update` (docs/cli.md, "Secrets
 * and authentication"; the fields: docs/calling-other-apis.md), parsed once for both job kinds,
 * and the `signing-secret <id>` command of both groups.
 *
 * A secret value is never taken from the command line, where the process list and the shell's
 * history would show it: each is read from an environment variable named by its flag
 * (`--bearer-env VAR`), except `--secret-header 'Name: value'`, offered for values that are not
 * secret enough to hide. There is no flag reading standard input: `VAR=$(cat file) punctual …` or
 * `read -rs VAR` does the same with the `-env` flags. A variable that is not set, or empty, is a
 * usage error (exit code 2) naming the variable and its flag, never a value; so is a mix of two
 * kinds of `auth`, or an incomplete one. Nothing is sent then.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ScheduleCreate } from '../client/index.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { UsageError } from './exit.js';
import { header } from './options.js';
import { out, printJson } from './output.js';

/** The secret flags as commander gives them (`false`: the `--no-…` flag of `update`). */
export interface SecretFlags {
  secretHeader?: Record<string, string>;
  /** Header name → name of the environment variable holding its value. */
  secretHeaderEnv?: Record<string, string>;
  secretHeaders?: boolean;
  basicUser?: string;
  basicPasswordEnv?: string;
  bearerEnv?: string;
  oauth2TokenUrl?: string;
  oauth2ClientId?: string;
  oauth2ClientSecretEnv?: string;
  oauth2Scope?: string;
  oauth2Audience?: string;
  auth?: boolean;
  signingSecretEnv?: string;
  signingSecret?: boolean;
}

/** The secret fields of a create or patch body (absent: unchanged; null: removed). */
export type SecretsBody = Pick<ScheduleCreate, 'secretHeaders' | 'auth' | 'signingSecret'>;

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Checks an environment variable's name (`--bearer-env VAR`). */
function variableName(value: string): string {
  if (!VARIABLE.test(value)) throw new InvalidArgumentError('It must be the name of an environment variable, e.g. API_TOKEN.');
  return value;
}

/**
 * Parses one `--secret-header-env 'Name=VAR'` (repeatable) into the pairs so far. The name is what
 * precedes the first `=` (a header name cannot hold one, RFC 9110 §5.1), trimmed.
 * @throws InvalidArgumentError (a usage error) without a name or with a bad variable name
 */
export function headerFromEnv(value: string, previous: Record<string, string> | undefined): Record<string, string> {
  const eq = value.indexOf('=');
  const name = eq < 0 ? '' : value.slice(0, eq).trim();
  if (name === '') throw new InvalidArgumentError("It must be 'Name=VARIABLE', e.g. 'X-Api-Key=API_KEY'.");
  return { ...(previous ?? {}), [name]: variableName(value.slice(eq + 1).trim()) };
}

/**
 * Adds the secret flags to `cmd`; with `update`, also `--no-secret-headers`, `--no-auth` and
 * `--no-signing-secret` (each sends null: removes it).
 */
export function withSecretOptions(cmd: Command, update: boolean): Command {
  const opt = <T>(flags: string, text: string, parse?: (value: string, previous: T) => T) => {
    const o = new Option(flags, text);
    cmd.addOption(parse ? o.argParser(parse) : o);
  };
  const env = (flags: string, text: string) => opt(flags, `${text}, read from environment variable VAR`, variableName);
  opt('--secret-header <header>', "a secret header, 'Name: value' (repeatable; stored encrypted, never shown)", header);
  opt('--secret-header-env <Name=VAR>', 'a secret header whose value is in environment variable VAR (repeatable)', headerFromEnv);
  opt('--basic-user <user>', 'HTTP Basic authentication (RFC 7617): the user id, with --basic-password-env');
  env('--basic-password-env <VAR>', 'HTTP Basic: the password');
  env('--bearer-env <VAR>', 'a bearer token (RFC 6750): Authorization: Bearer <token>');
  opt('--oauth2-token-url <url>', 'OAuth 2.0 client credentials (RFC 6749 §4.4): the token endpoint');
  opt('--oauth2-client-id <id>', 'OAuth 2.0: the client id');
  env('--oauth2-client-secret-env <VAR>', 'OAuth 2.0: the client secret');
  opt('--oauth2-scope <scope>', 'OAuth 2.0: the scope requested (optional)');
  opt('--oauth2-audience <aud>', 'OAuth 2.0: the audience requested (optional)');
  env('--signing-secret-env <VAR>', "the job's own signing secret (whsec_…)");
  if (update) {
    opt('--no-secret-headers', 'remove every secret header');
    opt('--no-auth', 'remove the authentication');
    opt('--no-signing-secret', "sign with the deployment's secret again");
  }
  return cmd;
}

/** The flags of each kind of `auth`, in the order they are named in messages. */
const AUTH_FLAGS = {
  basic: [['basicUser', '--basic-user'], ['basicPasswordEnv', '--basic-password-env']],
  bearer: [['bearerEnv', '--bearer-env']],
  oauth2: [
    ['oauth2TokenUrl', '--oauth2-token-url'],
    ['oauth2ClientId', '--oauth2-client-id'],
    ['oauth2ClientSecretEnv', '--oauth2-client-secret-env'],
    ['oauth2Scope', '--oauth2-scope'],
    ['oauth2Audience', '--oauth2-audience'],
  ],
} as const satisfies Record<string, readonly (readonly [keyof SecretFlags, string])[]>;

/** The value of environment variable `name`, given by `flag`. @throws UsageError when unset or empty */
function fromEnv(env: NodeJS.ProcessEnv, name: string, flag: string): string {
  const value = env[name];
  if (value === undefined) throw new UsageError(`${flag}: environment variable ${name} is not set`);
  if (value === '') throw new UsageError(`${flag}: environment variable ${name} is empty`);
  return value;
}

/** `a and b` cannot be combined. */
function conflict(a: string, b: string): UsageError {
  return new UsageError(`${a} cannot be combined with ${b}`);
}

/** The `auth` of the flags: absent, null (`--no-auth`) or one kind, complete. */
function authOf(flags: SecretFlags, env: NodeJS.ProcessEnv): SecretsBody['auth'] {
  const given = Object.entries(AUTH_FLAGS)
    .map(([kind, list]) => ({ kind, flags: list.filter(([key]) => flags[key] !== undefined).map(([, flag]) => flag) }))
    .filter((k) => k.flags.length > 0);
  if (flags.auth === false && given.length > 0) throw conflict('--no-auth', given[0]!.flags[0]!);
  if (flags.auth === false) return null;
  if (given.length > 1) throw new UsageError(`${given[0]!.flags[0]} cannot be combined with ${given[1]!.flags[0]}: a job has one kind of auth`);
  const kind = given[0]?.kind;
  const need = (required: (keyof SecretFlags)[]) => {
    const missing = AUTH_FLAGS[kind as keyof typeof AUTH_FLAGS].filter(([key]) => required.includes(key) && flags[key] === undefined);
    if (missing.length > 0) throw new UsageError(`${given[0]!.flags.join(', ')} also needs ${missing.map(([, f]) => f).join(', ')}`);
  };
  if (kind === 'basic') {
    need(['basicUser', 'basicPasswordEnv']);
    return { type: 'basic', username: flags.basicUser!, password: fromEnv(env, flags.basicPasswordEnv!, '--basic-password-env') };
  }
  if (kind === 'bearer') return { type: 'bearer', token: fromEnv(env, flags.bearerEnv!, '--bearer-env') };
  if (kind === 'oauth2') {
    need(['oauth2TokenUrl', 'oauth2ClientId', 'oauth2ClientSecretEnv']);
    return {
      type: 'oauth2',
      tokenUrl: flags.oauth2TokenUrl!,
      clientId: flags.oauth2ClientId!,
      clientSecret: fromEnv(env, flags.oauth2ClientSecretEnv!, '--oauth2-client-secret-env'),
      ...(flags.oauth2Scope === undefined ? {} : { scope: flags.oauth2Scope }),
      ...(flags.oauth2Audience === undefined ? {} : { audience: flags.oauth2Audience }),
    };
  }
  return undefined;
}

/**
 * `secretHeaders`, `auth` and `signingSecret` of a request body from the secret flags given
 * (absent flags stay absent), the values of `-env` flags read from `env`. `--secret-header` and
 * `--secret-header-env` together make one object (on `update` it replaces the job's secret headers).
 * @throws UsageError naming the flag and the variable (never a value): a variable not set or
 *   empty, two kinds of auth, an incomplete auth, a `--no-…` flag with a value of its field
 */
export function secretsBody(flags: SecretFlags, env: NodeJS.ProcessEnv = process.env): SecretsBody {
  const body: SecretsBody = {};
  const fromFlags = { ...(flags.secretHeader ?? {}) };
  for (const [name, variable] of Object.entries(flags.secretHeaderEnv ?? {})) fromFlags[name] = fromEnv(env, variable, '--secret-header-env');
  const headersGiven = flags.secretHeader !== undefined || flags.secretHeaderEnv !== undefined;
  if (flags.secretHeaders === false && headersGiven) throw conflict('--no-secret-headers', '--secret-header');
  if (flags.secretHeaders === false) body.secretHeaders = null;
  else if (headersGiven) body.secretHeaders = fromFlags;
  const auth = authOf(flags, env);
  if (auth !== undefined) body.auth = auth;
  if (flags.signingSecret === false && flags.signingSecretEnv !== undefined) throw conflict('--no-signing-secret', '--signing-secret-env');
  if (flags.signingSecret === false) body.signingSecret = null;
  else if (flags.signingSecretEnv !== undefined) body.signingSecret = fromEnv(env, flags.signingSecretEnv, '--signing-secret-env');
  return body;
}

/**
 * Adds `<group> signing-secret <id>`: `POST /{schedules|cron}/{id}/signing-secret`, a new signing
 * secret of the job's own, printed once (`--json`: `{"signingSecret": "whsec_…"}`).
 */
export function registerSigningSecretCommand(
  group: Command,
  noun: string,
  generate: (opts: ApiOptions, id: string) => Promise<{ signingSecret: string }>,
): void {
  withApiOptions(
    group
      .command('signing-secret')
      .argument('<id>', `id of the ${noun}`)
      .description(`give the ${noun} a new signing secret of its own and print it (shown this once; its calls are signed with it from now on)`),
  ).action(
    action(async (id: string, opts: ApiOptions) => {
      const answer = await generate(opts, id);
      if (opts.json) printJson(answer);
      else out(answer.signingSecret);
    }),
  );
}

/** The client call of {@link registerSigningSecretCommand} for `schedules` or `cron`. */
export const newSigningSecret = (kind: 'schedules' | 'cron') => (opts: ApiOptions, id: string) =>
  clientFrom(opts)[kind].newSigningSecret(id);
