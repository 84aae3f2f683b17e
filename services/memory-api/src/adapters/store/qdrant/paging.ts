import { BadRequestError } from '@hindsight/errors';

/** `items` in slices of `size` (one request each). */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(pointId: string): string {
  return Buffer.from(pointId).toString('base64url');
}

export function decodeCursor(cursor: string): string {
  const pointId = Buffer.from(cursor, 'base64url').toString();
  if (!UUID.test(pointId)) throw new BadRequestError('cursor is not one this API returned');
  return pointId;
}
