/**
 * `punctual schedules import <file|->`: schedules from NDJSON (one `POST /schedules` body per
 * line), sent in batches of up to 1,000 through `POST /schedules/batch` (docs/cli.md).
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import type { PunctualClient, ScheduleCreate } from '../client/index.js';
import { PunctualProblem } from '../client/index.js';
import { action, clientFrom, withApiOptions, type ApiOptions } from './connect.js';
import { EXIT } from './exit.js';
import { integer } from './options.js';
import { printJson } from './output.js';

/** Schedules per request, at most (the service's default `PUNCTUAL_MAX_BATCH`). */
export const IMPORT_BATCH = 1_000;

/** A line that was not imported: its number (1-based) and why. */
export interface ImportFailure {
  line: number;
  error: string;
}

/** What an import did. */
export interface ImportSummary {
  created: number;
  failed: ImportFailure[];
}

interface Item {
  line: number;
  body: ScheduleCreate;
}

/**
 * Sends `batch` as one request. A batch is all or nothing: when the service names faulty items
 * (`/schedules/<index>/…`), they are recorded as failures and the rest is sent once more.
 */
async function send(client: PunctualClient, batch: Item[], summary: ImportSummary): Promise<void> {
  try {
    summary.created += (await client.schedules.createMany(batch.map((i) => i.body))).length;
  } catch (err) {
    const items = err instanceof PunctualProblem && err.status === 400 ? faultyItems(err) : null;
    if (items === null || items.size === 0) throw err;
    for (const [index, messages] of items) summary.failed.push({ line: batch[index]!.line, error: messages.join('; ') });
    const rest = batch.filter((_, i) => !items.has(i));
    if (rest.length > 0) await send(client, rest, summary);
  }
}

/** The items a 400 names, by index → its problems (`<field>: <message>`); null when it names none. */
function faultyItems(problem: PunctualProblem): Map<number, string[]> | null {
  const out = new Map<number, string[]>();
  for (const e of problem.errors) {
    const m = /^\/schedules\/(\d+)(\/.*)?$/.exec(e.path);
    if (!m) return null;
    const index = Number(m[1]);
    out.set(index, [...(out.get(index) ?? []), `${m[2] ?? '/'}: ${e.message}`]);
  }
  return out;
}

/**
 * Imports the NDJSON of `input` (a file path, or `-` for standard input): blank lines are skipped;
 * a line that is not a JSON object is a failure, never sent.
 * @param progress told the lines done so far (for a progress line on a terminal)
 */
export async function importSchedules(
  client: PunctualClient,
  input: NodeJS.ReadableStream,
  batchSize = IMPORT_BATCH,
  progress: (done: number, summary: ImportSummary) => void = () => undefined,
): Promise<ImportSummary> {
  const summary: ImportSummary = { created: 0, failed: [] };
  let batch: Item[] = [];
  let line = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const items = batch;
    batch = [];
    await send(client, items, summary);
    progress(line, summary);
  };
  for await (const text of createInterface({ input, crlfDelay: Infinity })) {
    line++;
    if (text.trim() === '') continue;
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      summary.failed.push({ line, error: 'not valid JSON' });
      continue;
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      summary.failed.push({ line, error: 'must be a JSON object (the body of POST /schedules)' });
      continue;
    }
    batch.push({ line, body: body as ScheduleCreate });
    if (batch.length >= batchSize) await flush();
  }
  await flush();
  summary.failed.sort((a, b) => a.line - b.line);
  return summary;
}

/** Registers `schedules import` on the `schedules` command of `program`. */
export function registerScheduleImport(program: Command): void {
  const schedules = program.commands.find((c) => c.name() === 'schedules');
  if (!schedules) throw new Error('the schedules command is registered first');
  withApiOptions(
    schedules
      .command('import')
      .argument('<file>', 'NDJSON file: one schedule per line, as the body of POST /schedules; - for standard input')
      .option('--batch-size <n>', `schedules per request, 1–${IMPORT_BATCH}`, integer, IMPORT_BATCH)
      .description('create many schedules from NDJSON, in batches (each batch all or nothing; faulty lines are reported and skipped)'),
  ).action(
    action(async (file: string, opts: ApiOptions & { batchSize: number }) => {
      const input = file === '-' ? process.stdin : createReadStream(file);
      const tty = process.stderr.isTTY === true && !opts.json;
      const summary = await importSchedules(clientFrom(opts), input, Math.min(Math.max(1, opts.batchSize), IMPORT_BATCH), (done, s) => {
        if (tty) process.stderr.write(`\r${done} lines read, ${s.created} created, ${s.failed.length} failed`);
      });
      if (tty) process.stderr.write('\n');
      if (opts.json) printJson(summary);
      else {
        for (const f of summary.failed) process.stderr.write(`line ${f.line}: ${f.error}\n`);
        process.stdout.write(`${summary.created} schedules created, ${summary.failed.length} lines failed\n`);
      }
      // Some lines refused: exit 1, as when the API refuses a single command.
      if (summary.failed.length > 0) process.exitCode = EXIT.apiError;
    }),
  );
}
