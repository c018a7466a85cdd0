/**
 * The fields that `create` and `update` of both job kinds (`punctual schedules`, `punctual cron`)
 * take from the same flags: the labels (`--tag`, `--key`, `--flow-control-key`), the delivery (options.ts) and the
 * secrets (secret-options.ts); each kind's module adds its own fields around them.
 */
import { Option, type Command } from 'commander';
import type { ApiOptions } from './connect.js';
import { collect, defined, deliveryBody, withDeliveryOptions, type DeliveryFlags } from './options.js';
import { secretsBody, withSecretOptions, type SecretFlags, type SecretsBody } from './secret-options.js';

/** The label flags as commander gives them. */
export interface LabelFlags {
  /** Labels (repeatable), or false for `--no-tag` (update: none). */
  tag?: string[] | false;
  /** A key, or false for `--no-key` (update: remove it). */
  key?: string | false;
  /** A flow-control key, or false for `--no-flow-control-key` (update: none). */
  flowControlKey?: string | false;
}

/** The flags both job kinds' `create` and `update` take: the API's, the labels, delivery and secrets. */
export interface SharedFieldFlags extends ApiOptions, LabelFlags, DeliveryFlags, SecretFlags {}

/** `--tag`, a label (repeatable); on `update` the tags given replace the job's. */
export function tagOption(update: boolean): Option {
  return new Option('--tag <tag>', update ? 'a label (repeatable; replaces the tags)' : 'a label (repeatable)').argParser(collect);
}

/** `--key`, the job's unique name (docs/apply.md); `noun` names the job in the help, e.g. `schedule`. */
export function keyOption(noun: string): Option {
  return new Option('--key <key>', `your unique name for the ${noun} (1–128 of A-Z a-z 0-9 . _ : -; docs/apply.md)`);
}

/** `--flow-control-key`, the key whose limits the job's calls count against (`punctual flow-control`). */
function flowControlKeyOption(): Option {
  return new Option(
    '--flow-control-key <key>',
    "the flow-control key the job's calls count against (1–128 of A-Z a-z 0-9 . _ : -; limits: punctual flow-control set)",
  );
}

/**
 * Adds `--no-tag`, `--no-key` and `--no-flow-control-key` to an `update` command, whose `--tag`,
 * `--key` and `--flow-control-key` must be defined already: defined first, each would make its
 * field default to true.
 */
export function withLabelRemovalOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--no-tag', 'remove every tag'))
    .addOption(new Option('--no-key', 'remove the key'))
    .addOption(new Option('--no-flow-control-key', 'remove the flow-control key (flowControlKey null: its calls have no shared limits)'));
}

/**
 * `tags`, `key` and `flowControlKey` of a body from the label flags (absent flags stay absent). On
 * `update`, `--no-tag` sends no tags (`[]`), `--no-key` and `--no-flow-control-key` a null; on
 * create, an empty key is left out.
 */
function labelsBody(opts: LabelFlags, update: boolean): { tags?: string[]; key?: string | null; flowControlKey?: string | null } {
  if (!update) return defined({ tags: opts.tag || undefined, key: opts.key || undefined, flowControlKey: opts.flowControlKey || undefined });
  const orNull = <T>(v: T | false | undefined) => (v === false ? null : v);
  return defined({ tags: opts.tag === false ? [] : opts.tag, key: orNull(opts.key), flowControlKey: orNull(opts.flowControlKey) });
}

/**
 * Adds `--flow-control-key`, the delivery flags (options.ts) and the secret flags
 * (secret-options.ts) to a `create` or `update` command; with `update`, also the `--no-…` flags
 * of the secrets.
 */
export function withSharedFieldOptions(cmd: Command, update: boolean): Command {
  return withSecretOptions(withDeliveryOptions(cmd.addOption(flowControlKeyOption())), update);
}

/** The fields of a body that {@link sharedFieldsBody} makes. */
export type SharedFieldsBody = ReturnType<typeof labelsBody> & ReturnType<typeof deliveryBody> & SecretsBody;

/**
 * The fields of a create (`update` false) or update body from the label flags and the flags of
 * {@link withSharedFieldOptions}, absent flags staying absent: `tags`, `key` and `flowControlKey` (see labelsBody),
 * the delivery fields, and the secrets, the values of the `-env` flags read from the environment.
 * @throws UsageError as `secretsBody` does: a variable not set or empty, a mixed or incomplete auth
 */
export function sharedFieldsBody(opts: SharedFieldFlags, update: boolean): SharedFieldsBody {
  return { ...labelsBody(opts, update), ...deliveryBody(opts), ...secretsBody(opts) };
}
