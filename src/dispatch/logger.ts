/**
 * The logger the dispatch parts take: the few methods of pino they use, so that tests can pass a
 * recorder and the parts need not import pino or the dispatcher's façade.
 */

/** The few logger methods the dispatcher uses (pino's signature). */
export interface DispatchLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
  /** Whether `level` is logged (pino's); absent: every level is. Spares building per-call debug records. */
  isLevelEnabled?(level: string): boolean;
}
