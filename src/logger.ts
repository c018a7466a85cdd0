import { pino, type Logger } from 'pino';
import type { LogLevel } from './config.js';

/**
 * Paths pino removes from every log line: tokens and Authorization headers never reach the logs
 * (docs/security.md, "What is logged"). Fastify's request serializer logs no headers; these are the
 * second line of defence for objects logged by hand.
 */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'token',
  '*.token',
  'bootstrapToken',
  '*.bootstrapToken',
];

/** A pino logger writing JSON lines to stdout at `level`, with secrets redacted. */
export function createLogger(level: LogLevel): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}
