/**
 * Reading the file of `punctual apply` (docs/apply.md): YAML or JSON (by the `yaml` package; a
 * `.json` file by `JSON.parse`), `${ENV_VAR}` references replaced from the environment, then
 * checked against the file's schema (src/http/schemas/punctual-file.ts, the API's create bodies
 * with `key`, and the bodies of flow-control keys), keys unique per kind (flow-control keys listed
 * once), and every secret field (`secretHeaders` values,
 * `auth.password`, `auth.token`, `auth.clientSecret`, `signingSecret`) holding at least one
 * reference, so that no secret is written in the file. Every problem is reported with the path of
 * its field (`/cron/0/expression`); nothing is sent to the service when there is one. The rules the
 * service checks beyond the schema (a cron expression, an endpoint's host…) are checked when the
 * plan is applied, and reported with the same paths.
 */
import { readFile } from 'node:fs/promises';
import { Value } from 'typebox/value';
import { parse as parseYaml } from 'yaml';
import { PunctualFileSchema, type FileCronJob, type FileFlowControlKey, type FileSchedule } from '../http/schemas/punctual-file.js';
import type { Static } from 'typebox';

/** A cron job of the file, references replaced. */
export type FileCron = Static<typeof FileCronJob>;
/** A schedule of the file, references replaced. */
export type FileOneTime = Static<typeof FileSchedule>;
/** A flow-control key of the file: `key`, and the body of its PUT (`parallelism`, `rate`, `period` ms, `paused`). */
export type FileFlowKey = Static<typeof FileFlowControlKey>;

/** The file once read and checked (a list the file leaves out is empty). */
export interface ApplyFile {
  cron: FileCron[];
  schedules: FileOneTime[];
  flowControlKeys: FileFlowKey[];
}

/** One problem of the file: the JSON Pointer of the field, and what is wrong. */
export interface FileProblem {
  path: string;
  message: string;
}

/** A file that cannot be applied: each problem names its field (exit code 1). */
export class ApplyFileError extends Error {
  constructor(
    readonly file: string,
    readonly problems: FileProblem[],
  ) {
    super(`${file}: ${problems.length === 1 ? '1 problem' : `${problems.length} problems`}`);
    this.name = 'ApplyFileError';
  }

  /** The message and one line per problem: `  /cron/0/expression: must be string`. */
  describe(): string {
    return [`punctual: ${this.message}`, ...this.problems.map((p) => `  ${p.path || '/'}: ${p.message}`)].join('\n');
  }
}

/** `${NAME}`, or `$${` (a literal `${`). */
const REFERENCE = /\$\$\{|\$\{([^}]*)\}/g;
const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The secret fields of an item: a path below the item, `*` for every property of an object. */
const SECRET_PATHS = [['secretHeaders', '*'], ['auth', 'password'], ['auth', 'token'], ['auth', 'clientSecret'], ['signingSecret']] as const;

/**
 * `text` with its references replaced from `env`.
 * @returns the text, and whether it held a reference; problems are added for each unset variable
 */
export function substitute(
  text: string,
  env: Record<string, string | undefined>,
  path: string,
  problems: FileProblem[],
): { text: string; referenced: boolean } {
  let referenced = false;
  const replaced = text.replace(REFERENCE, (whole, name: string | undefined) => {
    if (whole === '$${') return '${';
    referenced = true;
    if (name === undefined || !VARIABLE.test(name)) {
      problems.push({ path, message: `\${${name ?? ''}} is not a reference to an environment variable (letters, digits and _)` });
      return '';
    }
    const value = env[name];
    if (value === undefined || value === '') {
      problems.push({ path, message: `the environment variable ${name} is not set` });
      return '';
    }
    return value;
  });
  return { text: replaced, referenced };
}

/** Every string of `value` with its references replaced; `referenced` collects the paths that held one. */
function substituteAll(
  value: unknown,
  env: Record<string, string | undefined>,
  path: string,
  problems: FileProblem[],
  referenced: Set<string>,
): unknown {
  if (typeof value === 'string') {
    const r = substitute(value, env, path, problems);
    if (r.referenced) referenced.add(path);
    return r.text;
  }
  if (Array.isArray(value)) return value.map((v, i) => substituteAll(v, env, `${path}/${i}`, problems, referenced));
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, substituteAll(v, env, `${path}/${pointerToken(k)}`, problems, referenced)]),
    );
  }
  return value;
}

/** A property name as a JSON Pointer token (RFC 6901). */
function pointerToken(name: string): string {
  return name.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The file's text → its value: JSON for a `.json` file, YAML otherwise (JSON is YAML too). */
function parseText(file: string, text: string): unknown {
  try {
    return file.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new ApplyFileError(file, [{ path: '', message: `cannot be parsed: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}` }]);
  }
}

/** Schema problems of `value`, one per field: the JSON Pointer and the validator's message. */
function schemaProblems(value: unknown): FileProblem[] {
  const problems: FileProblem[] = [];
  for (const e of Value.Errors(PunctualFileSchema, value)) {
    // An unknown property is reported twice: on itself ("schema is false") and on its object.
    if (e.keyword === 'additionalProperties') continue;
    const message = e.keyword === 'boolean' ? 'is not a field of the file here' : e.message;
    if (!problems.some((p) => p.path === e.instancePath && p.message === message)) problems.push({ path: e.instancePath, message });
  }
  return problems;
}

/** Problems of keys given twice within the list `/${list}` of the file. */
function duplicateKeys(list: keyof ApplyFile, items: readonly { key: string }[]): FileProblem[] {
  const problems: FileProblem[] = [];
  const seen = new Map<string, number>();
  items.forEach((item, i) => {
    const first = seen.get(item.key);
    if (first !== undefined) problems.push({ path: `/${list}/${i}/key`, message: `is already the key of /${list}/${first}` });
    else seen.set(item.key, i);
  });
  return problems;
}

/** Problems of keys given twice within one list, and of secret fields written without a reference. */
function itemProblems(file: ApplyFile, referenced: Set<string>): FileProblem[] {
  const problems: FileProblem[] = duplicateKeys('flowControlKeys', file.flowControlKeys);
  for (const kind of ['cron', 'schedules'] as const) {
    problems.push(...duplicateKeys(kind, file[kind]));
    file[kind].forEach((item, i) => {
      for (const [field, sub] of SECRET_PATHS) {
        const v = (item as Record<string, unknown>)[field];
        if (v === undefined || v === null) continue;
        const entries: [string, unknown][] =
          sub === undefined ? [[`/${field}`, v]]
          : sub === '*' ? Object.entries(v as object).map(([k, x]) => [`/${field}/${pointerToken(k)}`, x])
          : [[`/${field}/${sub}`, (v as Record<string, unknown>)[sub]]];
        for (const [p, x] of entries) {
          const path = `/${kind}/${i}${p}`;
          if (typeof x === 'string' && !referenced.has(path)) {
            problems.push({ path, message: 'is a secret: write it as a ${ENV_VAR} reference, read from the environment' });
          }
        }
      }
    });
  }
  return problems;
}

/**
 * Reads, substitutes and checks the file at `file`.
 * @param env the environment references are read from
 * @throws ApplyFileError naming every faulty field (or the file, when it cannot be read or parsed)
 */
export async function readApplyFile(file: string, env: Record<string, string | undefined>): Promise<ApplyFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    throw new ApplyFileError(file, [{ path: '', message: `cannot be read: ${(err as NodeJS.ErrnoException).code ?? String(err)}` }]);
  }
  return checkApplyFile(file, parseText(file, text), env);
}

/**
 * Substitutes and checks a parsed file (see {@link readApplyFile}).
 * @throws ApplyFileError naming every faulty field
 */
export function checkApplyFile(file: string, parsed: unknown, env: Record<string, string | undefined>): ApplyFile {
  const problems: FileProblem[] = [];
  const referenced = new Set<string>();
  const value = substituteAll(parsed, env, '', problems, referenced);
  problems.push(...schemaProblems(value));
  if (problems.length > 0) throw new ApplyFileError(file, problems);
  const v = value as { cron?: FileCron[]; schedules?: FileOneTime[]; flowControlKeys?: FileFlowKey[] };
  const checked: ApplyFile = { cron: v.cron ?? [], schedules: v.schedules ?? [], flowControlKeys: v.flowControlKeys ?? [] };
  const more = itemProblems(checked, referenced);
  if (more.length > 0) throw new ApplyFileError(file, more);
  return checked;
}
