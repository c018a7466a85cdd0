/**
 * The `key` of a job (docs/apply.md): the name its owner gives it, unique among the jobs of one
 * kind, by which `punctual apply` finds it. Pure.
 */

/** The characters and length of a key: ASCII letters, digits, `.`, `_`, `:` and `-`, 1 to 128 of them. */
export const JOB_KEY_PATTERN = '^[A-Za-z0-9._:-]{1,128}$';

const KEY_RE = new RegExp(JOB_KEY_PATTERN);

/** The message for a key that breaks {@link JOB_KEY_PATTERN}. */
export const JOB_KEY_MESSAGE = 'must be 1 to 128 of the characters A-Z a-z 0-9 . _ : -';

/** Why `value` is not a key, or null when it is one. */
export function jobKeyProblem(value: string): string | null {
  return KEY_RE.test(value) ? null : JOB_KEY_MESSAGE;
}
