import { createHash } from 'node:crypto';

/** Hash of normalised content: exact duplicates differ only in case and whitespace. */
export function contentHash(content: string): string {
  const normalised = content.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim();
  return createHash('sha256').update(normalised).digest('hex').slice(0, 32);
}
