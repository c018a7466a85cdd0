/**
 * The jitter of cron occurrences (docs/cron.md, "Jitter"), for both stores and every node: the
 * delay of an occurrence is a function of the job's id and the occurrence's instant alone, so a
 * restart, a retry of the claim or another node computes the same one. Pure: no clock, no I/O.
 */
import { createHash } from 'node:crypto';

/** 2^48: the first 6 bytes of the digest, as a whole number below this, are mapped to [0, jitterMs). */
const SPAN = 2 ** 48;

/**
 * The delay of one occurrence, in whole ms in [0, `jitterMs`): the first 48 bits of SHA-256 of
 * `${jobId}:${occurrenceMs}` (the occurrence in decimal epoch ms) scaled to [0, jitterMs) and
 * floored, so it is uniform over that range to within 2^-48 and never reaches `jitterMs`.
 * @param jobId the cron job's id
 * @param occurrenceMs the occurrence, epoch ms (UTC), whole
 * @param jitterMs the job's `jitterMs` (0–3,600,000); 0 or less gives 0
 */
export function occurrenceJitterMs(jobId: string, occurrenceMs: number, jitterMs: number): number {
  if (!(jitterMs > 0)) return 0;
  const digest = createHash('sha256').update(`${jobId}:${occurrenceMs}`).digest();
  return Math.floor((digest.readUIntBE(0, 6) / SPAN) * jitterMs);
}
