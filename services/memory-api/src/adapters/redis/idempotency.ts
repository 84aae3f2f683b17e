import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError } from '@hindsight/errors';
import type { Redis } from 'ioredis';

import type { Idempotency, StoredReply } from '../../routes/write-reply.ts';

export interface IdempotencySettings {
  /** How long a reply is replayed for retries. */
  ttlSeconds: number;
  /** How long a twin waits for the first request's reply before answering 409. */
  waitMs: number;
}

/** What a key holds: the first request still running, or its reply. */
type Entry =
  | { state: 'pending'; fingerprint: string; holder: string }
  | ({ state: 'done'; fingerprint: string } & StoredReply);

/** Writes the reply only while the key still holds this request's own pending marker. */
const FINISH = `
if redis.call('GET', KEYS[1]) == ARGV[1] then
  redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3])
  return 1
end
return 0`;

const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1`;

const FIRST_POLL_MS = 2;
const LONGEST_POLL_MS = 50;

/**
 * `Idempotency-Key` support, shared by every replica through Redis. The first request with a key
 * claims it atomically (`SET NX` of a pending marker) and runs; twins arriving meanwhile wait for
 * its reply and return that same reply; later retries replay it. Reusing a key with another body
 * is a 409. A request that fails with a 5xx (or throws) gives the key back, so a retry runs again.
 * A replica that dies mid-request blocks its key until the pending marker expires. Redis outages
 * become 503s where memory-api wires it (`redisBacked`).
 */
export class IdempotencyCache implements Idempotency {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly settings: IdempotencySettings,
  ) {}

  async run(tenant: string, key: string, body: unknown, compute: () => Promise<StoredReply>): Promise<StoredReply> {
    const redisKey = `${this.prefix}:idem:${tenant}:${createHash('sha256').update(key).digest('hex')}`;
    const fingerprint = createHash('sha256')
      .update(JSON.stringify(body ?? null))
      .digest('hex');
    const pending = JSON.stringify({ state: 'pending', fingerprint, holder: randomUUID() } satisfies Entry);
    const deadline = performance.now() + this.settings.waitMs;
    let pause = FIRST_POLL_MS;
    for (;;) {
      // The marker outlives any wait for it, so twins never see it expire under a live request.
      const claimed = await this.redis.set(redisKey, pending, 'PX', this.settings.waitMs * 2, 'NX');
      if (claimed === 'OK') return this.computeOnce(redisKey, pending, compute);
      const stored = await this.redis.get(redisKey);
      // Given back (a failed first attempt) or expired between the two calls: claim it again.
      if (stored === null) continue;
      const entry = JSON.parse(stored) as Entry;
      if (entry.fingerprint !== fingerprint) {
        throw new ConflictError('Idempotency-Key was already used with a different request body');
      }
      if (entry.state === 'done') return { statusCode: entry.statusCode, body: entry.body };
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new ConflictError(
          `a request with this Idempotency-Key is still being processed after ${this.settings.waitMs} ms; retry later for its answer`,
        );
      }
      await sleep(Math.min(left, pause));
      pause = Math.min(LONGEST_POLL_MS, pause * 2);
    }
  }

  /**
   * User erasure: drops the kept replies of a tenant that name any of `names` (the user, their
   * memory and session ids) anywhere in their body, so no retry replays what was erased. Walks
   * the tenant's keys with SCAN (erasures are rare; replies expire after the TTL anyway).
   */
  async forgetRepliesNaming(tenant: string, names: ReadonlySet<string>): Promise<number> {
    if (names.size === 0) return 0;
    const pattern = `${globEscape(`${this.prefix}:idem:${tenant}:`)}*`;
    let forgotten = 0;
    let cursor = '0';
    do {
      const [next, keys] = await this.redis.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
      cursor = next;
      for (const key of keys) {
        const stored = await this.redis.get(key);
        if (stored === null) continue;
        const entry = JSON.parse(stored) as Entry;
        if (entry.state === 'done' && namesAny(entry.body, names)) {
          forgotten += await this.redis.del(key);
        }
      }
    } while (cursor !== '0');
    return forgotten;
  }

  private async computeOnce(
    redisKey: string,
    pending: string,
    compute: () => Promise<StoredReply>,
  ): Promise<StoredReply> {
    let reply: StoredReply;
    try {
      reply = await compute();
    } catch (error) {
      await this.redis.eval(RELEASE, 1, redisKey, pending);
      throw error;
    }
    if (reply.statusCode >= 500) {
      await this.redis.eval(RELEASE, 1, redisKey, pending);
      return reply;
    }
    const { fingerprint } = JSON.parse(pending) as Entry;
    const done = JSON.stringify({ state: 'done', fingerprint, ...reply } satisfies Entry);
    await this.redis.eval(FINISH, 1, redisKey, pending, done, String(this.settings.ttlSeconds));
    return reply;
  }
}

/** Whether any string anywhere in `value` is one of `names`. */
function namesAny(value: unknown, names: ReadonlySet<string>): boolean {
  const stack = [value];
  while (stack.length > 0) {
    const next = stack.pop();
    if (typeof next === 'string' && names.has(next)) return true;
    if (typeof next === 'object' && next !== null) stack.push(...Object.values(next));
  }
  return false;
}

/** `text` matched literally by a Redis glob pattern. */
function globEscape(text: string): string {
  return text.replace(/[*?[\]\\]/g, (c) => `\\${c}`);
}
