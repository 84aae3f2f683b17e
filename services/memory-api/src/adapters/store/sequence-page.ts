import { BadRequestError } from '@hindsight/errors';
import type { Page } from '../../memory/store-port.ts';

/** The largest row sequence either SQL store hands out (a signed 64-bit integer). */
const MAX_SEQUENCE = 9223372036854775807n;

/** Where a newest-first page starts: below the cursor's sequence, or above every sequence on the first page. */
export function sequenceBefore(cursor: string | undefined): string {
  return cursor === undefined ? MAX_SEQUENCE.toString() : decodeSequenceCursor(cursor);
}

/**
 * A page of a listing ordered by a row sequence (SQLite's rowid, PostgreSQL's identity column):
 * `rows` holds up to `limit + 1` rows, the extra one telling that more follow.
 */
export function pageBySequence<R, T>(
  rows: readonly R[],
  limit: number,
  toRecord: (row: R) => T,
  sequenceOf: (row: R) => number | string,
): Page<T> {
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map(toRecord),
    nextCursor: rows.length > limit && last !== undefined ? encodeSequenceCursor(sequenceOf(last)) : null,
  };
}

export function encodeSequenceCursor(sequence: number | string): string {
  return Buffer.from(String(sequence)).toString('base64url');
}

/** The sequence a cursor stands for, as decimal digits; anything else is a 400. */
export function decodeSequenceCursor(cursor: string): string {
  const decoded = Buffer.from(cursor, 'base64url').toString();
  if (!/^\d{1,19}$/.test(decoded) || BigInt(decoded) > MAX_SEQUENCE) {
    throw new BadRequestError('cursor is not one this API returned');
  }
  return decoded;
}
