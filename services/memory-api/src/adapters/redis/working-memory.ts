import { Turn } from '@hindsight/memory-model';
import type { Redis } from 'ioredis';
import {
  type AppendOutcome,
  type ErasedSession,
  type NewTurn,
  type OpenSession,
  SessionOwnerError,
  type SessionSnapshot,
  type WorkingMemoryStore,
} from '../../working/port.ts';

/**
 * Appends atomically: checks the owner, takes sequence numbers, stores the turns and
 * refreshes the TTLs. A second replica appending at the same time gets the next
 * numbers, never the same. Both keys share the session's hash tag (one cluster slot).
 * KEYS: meta, turns. ARGV: user, ttl, now, turn JSON...
 */
const APPEND = `
local owner = redis.call('HGET', KEYS[1], 'user_id')
if owner and owner ~= ARGV[1] then return {-1, owner} end
local n = #ARGV - 3
local last = redis.call('HINCRBY', KEYS[1], 'seq', n)
local first = last - n + 1
if not owner then
  redis.call('HSET', KEYS[1], 'user_id', ARGV[1], 'created_at', ARGV[3])
end
redis.call('HSET', KEYS[1], 'updated_at', ARGV[3])
for i = 1, n do redis.call('HSET', KEYS[2], tostring(first + i - 1), ARGV[3 + i]) end
local ttl = tonumber(ARGV[2])
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
return {first, last, redis.call('HLEN', KEYS[2])}
`;

/** KEYS: turns. ARGV: through. Removes fields numbered ≤ through. */
const CLEAR_THROUGH = `
local removed = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if tonumber(field) <= tonumber(ARGV[1]) then
    redis.call('HDEL', KEYS[1], field)
    removed = removed + 1
  end
end
return removed
`;

/**
 * Working memory in Redis under `<prefix>:wm:`. Per session: a hash of turns
 * (field = sequence number) and a meta hash (owner, last sequence, times), both
 * with the session TTL; per user: a set of session ids for erasure. The session
 * part of each key is a hash tag, so a session's keys share a cluster slot.
 */
export class RedisWorkingMemory implements WorkingMemoryStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly ttlSeconds: number,
  ) {}

  private sessionKeys(tenant: string, sessionId: string) {
    const base = `${this.prefix}:wm:{${encodeURIComponent(tenant)}/${encodeURIComponent(sessionId)}}`;
    return { meta: `${base}:meta`, turns: `${base}:turns` };
  }

  private userKey(tenant: string, userId: string): string {
    return `${this.prefix}:wm:user:${encodeURIComponent(tenant)}/${encodeURIComponent(userId)}`;
  }

  async append(tenant: string, sessionId: string, userId: string, turns: readonly NewTurn[]): Promise<AppendOutcome> {
    const keys = this.sessionKeys(tenant, sessionId);
    const bodies = turns.map((t) => JSON.stringify(t));
    // The user's session index lives in another cluster slot, so it cannot join the script.
    // It is written first: a session is never stored without being findable for erasure.
    const index = this.userKey(tenant, userId);
    await this.redis.multi().sadd(index, sessionId).expire(index, this.ttlSeconds).exec();
    const reply = (await this.redis.eval(
      APPEND,
      2,
      keys.meta,
      keys.turns,
      userId,
      String(this.ttlSeconds),
      new Date().toISOString(),
      ...bodies,
    )) as [number, number | string, number?];
    if (reply[0] === -1) {
      // Not this user's session: take it back out of their index, or erasing them would erase it.
      await this.redis.srem(index, sessionId);
      throw new SessionOwnerError(String(reply[1]));
    }
    return { firstSeq: reply[0], lastSeq: Number(reply[1]), pending: Number(reply[2]) };
  }

  async read(
    tenant: string,
    sessionId: string,
    options: { throughSeq?: number; last?: number } = {},
  ): Promise<SessionSnapshot> {
    const keys = this.sessionKeys(tenant, sessionId);
    const [meta, fields, ttl] = await Promise.all([
      this.redis.hgetall(keys.meta),
      this.redis.hgetall(keys.turns),
      this.redis.ttl(keys.meta),
    ]);
    let turns = Object.entries(fields)
      .map(([field, body]) => toTurn(Number(field), body))
      .filter((t) => options.throughSeq === undefined || t.seq <= options.throughSeq)
      .sort((a, b) => a.seq - b.seq);
    if (options.last !== undefined && turns.length > options.last) turns = turns.slice(-options.last);
    return {
      userId: meta.user_id ?? null,
      lastSeq: Number(meta.seq ?? 0),
      turns,
      ttlSeconds: ttl >= 0 ? ttl : null,
    };
  }

  async clearThrough(tenant: string, sessionId: string, throughSeq: number): Promise<number> {
    const { turns } = this.sessionKeys(tenant, sessionId);
    return Number(await this.redis.eval(CLEAR_THROUGH, 1, turns, String(throughSeq)));
  }

  async deleteSession(tenant: string, sessionId: string): Promise<boolean> {
    const keys = this.sessionKeys(tenant, sessionId);
    const owner = await this.redis.hget(keys.meta, 'user_id');
    const removed = await this.redis.del(keys.meta, keys.turns);
    if (owner) await this.redis.srem(this.userKey(tenant, owner), sessionId);
    return removed > 0;
  }

  async deleteUser(tenant: string, userId: string): Promise<ErasedSession[]> {
    const index = this.userKey(tenant, userId);
    const erased: ErasedSession[] = [];
    for (const sessionId of await this.redis.smembers(index)) {
      const keys = this.sessionKeys(tenant, sessionId);
      const bodies = await this.redis.hvals(keys.turns);
      await this.redis.del(keys.meta, keys.turns);
      erased.push({ sessionId, turns: bodies.map((body) => (JSON.parse(body) as { content: string }).content) });
    }
    await this.redis.del(index);
    return erased;
  }

  async userSessions(tenant: string, userId: string): Promise<OpenSession[]> {
    const sessionIds = await this.redis.smembers(this.userKey(tenant, userId));
    const open = await Promise.all(
      sessionIds.map(async (sessionId): Promise<OpenSession | undefined> => {
        const keys = this.sessionKeys(tenant, sessionId);
        const [meta, turns] = await Promise.all([this.redis.hgetall(keys.meta), this.redis.hlen(keys.turns)]);
        // The index outlives sessions that expired or were handed to another owner: those are not the user's.
        if (meta.user_id !== userId) return undefined;
        return {
          sessionId,
          turns,
          lastSeq: Number(meta.seq ?? 0),
          updatedAt: meta.updated_at ?? meta.created_at ?? '',
        };
      }),
    );
    return open
      .filter((session): session is OpenSession => session !== undefined)
      .sort((a, b) => b.updatedAt.localeCompare(a.updatedAt) || a.sessionId.localeCompare(b.sessionId));
  }
}

function toTurn(seq: number, body: string): Turn {
  const stored = JSON.parse(body) as Omit<Turn, 'id' | 'seq'>;
  return Turn.parse({ ...stored, id: `t${seq}`, seq });
}
