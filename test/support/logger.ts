/**
 * The one capture logger of the tests: a real pino logger whose output stays in memory, for
 * tests that read what a part of the service logged.
 */
import { Writable } from 'node:stream';
import { pino, type Logger, type LoggerOptions } from 'pino';

/** A pino logger, and what it has written so far. */
export interface CapturedLogger {
  /** The logger to hand the part under test. */
  logger: Logger;
  /**
   * Every line written, in order: one JSON record each (pino's), without its newline. The same
   * array for the logger's whole life, so a test may keep a reference to it.
   */
  readonly lines: string[];
  /**
   * `lines` parsed, one object per record: pino's fields (`level` 10–60, `time` epoch ms, `msg`,
   * unless `options` say otherwise) and those the call gave.
   */
  records(): Record<string, unknown>[];
}

/**
 * A pino logger writing into memory.
 * @param options pino's options, e.g. `{ level: 'trace' }`, a `redact` or `base: null`; pino's
 *   defaults otherwise (level `info`)
 */
export function captureLogger(options: LoggerOptions = {}): CapturedLogger {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer | string, _enc, done) {
      for (const line of String(chunk).split('\n')) if (line !== '') lines.push(line);
      done();
    },
  });
  return {
    logger: pino(options, sink),
    lines,
    records: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>),
  };
}
