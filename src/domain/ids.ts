import { v7 as uuidv7 } from 'uuid';

/**
 * A new resource identifier: a UUID version 7 (RFC 9562 §5.7), time-ordered so that new rows
 * land at the end of primary-key indexes.
 */
export function newId(): string {
  return uuidv7();
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** True when `text` has the 8-4-4-4-12 hexadecimal form of a UUID (any version). */
export function isUuid(text: string): boolean {
  return UUID.test(text);
}
