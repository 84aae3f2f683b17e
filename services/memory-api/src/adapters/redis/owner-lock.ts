import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { BusyError } from '@hindsight/errors';
import type { Logger } from '@hindsight/logger';
import type { Redis } from 'ioredis';
import type { OwnerLock } from '../../memory/owner-lock.ts';

export interface OwnerLockSettings {
  /** How long a lock outlives a holder that stopped renewing it (a crashed replica). */
  leaseMs: number;
  /** How long a writer waits for a held lock before answering 503 busy. */
  waitMs: number;
}

/** Takes every key or none: a batch never holds some owners while waiting for others. */
const ACQUIRE = `
for i = 1, #KEYS do
  if redis.call('EXISTS', KEYS[i]) == 1 then return 0 end
end
for i = 1, #KEYS do
  redis.call('SET', KEYS[i], ARGV[1], 'PX', ARGV[2])
end
return 1`;

/** Touches only keys still holding this holder's token: a lease that expired and was taken is left alone. */
const RENEW = `
local held = 0
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then
    redis.call('PEXPIRE', KEYS[i], ARGV[2])
    held = held + 1
  end
end
return held`;

const RELEASE = `
for i = 1, #KEYS do
  if redis.call('GET', KEYS[i]) == ARGV[1] then redis.call('DEL', KEYS[i]) end
end
return 1`;

const FIRST_RETRY_MS = 1;
const LONGEST_RETRY_MS = 16;

/**
 * The owner lock in Redis, shared by every memory-api replica: one key per (tenant, user) holding
 * a random token with a lease, renewed while the work runs and deleted (only by its holder) after.
 * Keys of one tenant share a hash slot (`{…}`), so the all-or-nothing scripts also run on a Redis
 * cluster. Redis outages become 503s where memory-api wires it (`redisBacked`).
 */
export class RedisOwnerLock implements OwnerLock {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly settings: OwnerLockSettings,
    private readonly log: Logger,
  ) {}

  async hold<T>(tenant: string, userIds: readonly string[], work: () => Promise<T>): Promise<T> {
    const keys = this.keysOf(tenant, userIds);
    const token = randomUUID();
    await this.acquire(keys, token, tenant);
    const renewal = setInterval(() => void this.renew(keys, token), Math.max(1, Math.floor(this.settings.leaseMs / 3)));
    renewal.unref();
    try {
      return await work();
    } finally {
      clearInterval(renewal);
      // Not awaited: the answer need not wait for the release round trip (it logs its own failure).
      void this.release(keys, token);
    }
  }

  private keysOf(tenant: string, userIds: readonly string[]): string[] {
    return [...new Set(userIds)].sort().map((user) => ownerLockKey(this.prefix, tenant, user));
  }

  private async acquire(keys: readonly string[], token: string, tenant: string): Promise<void> {
    const deadline = performance.now() + this.settings.waitMs;
    let pause = FIRST_RETRY_MS;
    for (;;) {
      const taken = await this.script(ACQUIRE, keys, token);
      if (taken === 1) return;
      const left = deadline - performance.now();
      if (left <= 0) {
        throw new BusyError(
          `another write for the same user is still being decided after ${this.settings.waitMs} ms; retry shortly`,
          { tenant, owners: keys.length },
        );
      }
      // Jittered, growing pauses: waiters for one owner spread out instead of polling in lockstep.
      await sleep(Math.min(left, pause * (0.5 + Math.random())));
      pause = Math.min(LONGEST_RETRY_MS, pause * 2);
    }
  }

  private async renew(keys: readonly string[], token: string): Promise<void> {
    try {
      const held = await this.script(RENEW, keys, token);
      if (held !== keys.length)
        this.log.warn({ held, wanted: keys.length }, 'an owner lock lapsed while its write ran');
    } catch (error) {
      this.log.warn({ err: error }, 'renewing an owner lock failed; its lease may lapse');
    }
  }

  private async release(keys: readonly string[], token: string): Promise<void> {
    try {
      await this.script(RELEASE, keys, token);
    } catch (error) {
      // The write itself is done; the lease frees the owner shortly.
      this.log.warn({ err: error }, 'releasing an owner lock failed; it frees itself when its lease ends');
    }
  }

  private script(source: string, keys: readonly string[], token: string): Promise<unknown> {
    return this.redis.eval(source, keys.length, ...keys, token, String(this.settings.leaseMs));
  }
}

/** The Redis key of one owner's lock (hash-tagged by tenant). */
export function ownerLockKey(prefix: string, tenant: string, userId: string): string {
  return `${prefix}:owner-lock:{${digest(tenant)}}:${digest(userId)}`;
}

function digest(value: string): string {
  return createHash('sha256').update(value).digest('hex').slice(0, 32);
}
