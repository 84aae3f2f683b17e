import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';

/** How often each phrase occurs in `bytes` (UTF-8). */
export function occurrences(bytes: Buffer, phrases: readonly string[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const phrase of phrases) {
    const needle = Buffer.from(phrase);
    let count = 0;
    for (let at = bytes.indexOf(needle); at !== -1; at = bytes.indexOf(needle, at + 1)) count += 1;
    counts[phrase] = count;
  }
  return counts;
}

/** The SQLite store's files as they are on disk: the database, its WAL and shared-memory index. */
export function sqliteFiles(databasePath: string): Record<string, Buffer> {
  const files: Record<string, Buffer> = {};
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      files[`memory.db${suffix}`] = readFileSync(`${databasePath}${suffix}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return files;
}

/**
 * Every value under the given key prefixes, read by type (strings, hashes, lists, sets, sorted
 * sets, streams entry by entry), as one buffer per key: what a Redis client can still get back.
 */
export async function redisValues(redis: Redis, prefixes: readonly string[]): Promise<Map<string, Buffer>> {
  const values = new Map<string, Buffer>();
  for (const prefix of prefixes) {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
      cursor = next;
      for (const key of keys) values.set(key, await readValue(redis, key));
    } while (cursor !== '0');
  }
  return values;
}

async function readValue(redis: Redis, key: string): Promise<Buffer> {
  switch (await redis.type(key)) {
    case 'string':
      return (await redis.getBuffer(key)) ?? Buffer.alloc(0);
    case 'hash':
      return Buffer.concat(
        await redis.hgetallBuffer(key).then((h) => Object.entries(h).flatMap(([f, v]) => [Buffer.from(f), v])),
      );
    case 'list':
      return Buffer.concat(await redis.lrangeBuffer(key, 0, -1));
    case 'set':
      return Buffer.concat(await redis.smembersBuffer(key));
    case 'zset':
      return Buffer.concat((await redis.zrangeBuffer(key, 0, -1, 'WITHSCORES')).map((v) => Buffer.from(v)));
    case 'stream': {
      const entries = (await redis.xrange(key, '-', '+')) as Array<[string, string[]]>;
      return Buffer.from(entries.map(([id, fields]) => `${id} ${fields.join(' ')}`).join('\n'));
    }
    default:
      return Buffer.alloc(0);
  }
}

/** The keys whose values hold any of the phrases, with the counts: what an erase left behind. */
export function keysHolding(
  values: Map<string, Buffer>,
  phrases: readonly string[],
): Record<string, Record<string, number>> {
  const found: Record<string, Record<string, number>> = {};
  for (const [key, value] of values) {
    const counts = occurrences(value, phrases);
    if (Object.values(counts).some((n) => n > 0)) found[key] = counts;
  }
  return found;
}
