/**
 * A released migration is never edited: a database migrated to version N must hold the schema
 * that every later version was written against. Each released version's SQL is pinned here by the
 * first 16 hex digits of its SHA-256; a new migration adds its line, and a change to a released
 * one fails this test. (A migration's SQL may be moved or built by a shared function, as long as
 * the statements it runs stay byte for byte the same.)
 */
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { MIGRATIONS as POSTGRES } from '../../src/store/postgres/migrations/index.js';
import { MIGRATIONS as SQLITE } from '../../src/store/sqlite/migrations/index.js';

const RELEASED = {
  sqlite: {
    1: 'f69d2f655d77e2a2', 2: 'fb6764601f149b23', 3: '6efcc05dd08516fc', 4: '42be9174a82af8dd', 5: '9c2010d2b040cec0',
    6: 'd963b8b0debb23a3', 7: 'b64b9f0609f43383', 8: '302317e849d713e3', 9: 'e15c80efd972372f', 10: '6925fb437fdd0945',
    11: 'ed8b94ec6b23fe2f', 12: '891a0e8e462ea9f3', 13: 'f1de66fc9ce92b29', 14: '7279c2e02499e0dc', 15: 'f9825b2b28617bf0',
    16: 'f5acd61be947d00e', 17: '3f6ae970b23bc309', 18: 'a5d66729a937d532', 19: '60fb8e60daeb68ae', 20: 'f0790b501aef63ca',
    21: '50ecd18856c31f41',
  },
  postgres: {
    1: 'f7ba64eab241a9e1', 2: 'ad38ffc49b8da1f0', 3: 'f0ac640388a1cabf', 4: '17538f7120b24c2d', 5: '8abfab5f0dde9428',
    6: 'f0e5965d70ba6314', 7: '302317e849d713e3', 8: 'b6e6805cba5507d3', 9: 'a9edb25f27d0b109', 10: '69137ec81c0b986c',
    11: '813500ceab35d6eb', 12: '0e0657fe9420dca0', 13: '65b56202a0273099', 14: 'f0ec4c0460f2bc2a', 15: '9d5128d2ead1b08a',
    16: 'f75a93fe29886bfb', 17: '2f9c8fe1ca379ca3', 18: 'eb7af9a58c8cdb6a', 19: '3fd2740d292323be', 20: 'e66600db62d0a9b8',
  },
} as const;

const digest = (sql: string) => createHash('sha256').update(sql).digest('hex').slice(0, 16);

describe.each([
  { name: 'sqlite', migrations: SQLITE, released: RELEASED.sqlite as Record<number, string> },
  { name: 'postgres', migrations: POSTGRES, released: RELEASED.postgres as Record<number, string> },
])('released migrations of $name', ({ migrations, released }) => {
  it('run the SQL they were released with, byte for byte', () => {
    const pinned = migrations.filter((m) => released[m.version] !== undefined);
    expect(Object.fromEntries(pinned.map((m) => [m.version, digest(m.sql)]))).toEqual(released);
  });

  it('are all pinned: a new migration adds its digest here', () => {
    expect(migrations.map((m) => m.version).filter((v) => released[v] === undefined)).toEqual([]);
  });

  it('would notice an edit', () => {
    const first = migrations[0]!;
    expect(digest(`${first.sql} `)).not.toBe(released[first.version]);
  });
});
