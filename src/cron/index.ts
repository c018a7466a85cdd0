/**
 * The cron engine: parsing and validation of cron expressions and time zones, and the next
 * occurrence in an IANA zone with Vixie cron's DST rules. Pure functions, no I/O.
 * Contract: docs/cron.md.
 */
export { parseCronExpression, type ParsedCron } from './parse.js';
export { validateTimeZone } from './zone.js';
export { nextOccurrence, nextOccurrences, HORIZON_MS } from './next.js';
export { cronJobNext, lifeNext, windowNext, type JobLife, type JobTiming, type WindowNext } from './job-next.js';
