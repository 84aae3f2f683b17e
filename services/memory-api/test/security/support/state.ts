import type { MemoryRecord } from '@hindsight/memory-model';
import type { Dependencies } from '../../../src/dependencies.ts';

/**
 * The Redis of the security suites: the test Redis, database 7, so that scanning this
 * deployment's keys walks only what these suites wrote (other suites use database 0).
 */
export function securityRedisUrl(): string {
  const url = new URL(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  url.pathname = '/7';
  return url.toString();
}

/** What a rejected request must not change, per tenant: every long-term row, working memory, queued jobs. */
export interface StoreState {
  /** Rows by id, without the read statistics a search updates in the background. */
  rows: Map<string, string>;
  working: Map<string, string>;
  jobs: string;
}

const JOB_STATES = ['waiting', 'delayed', 'prioritized', 'active', 'completed', 'failed'] as const;

export async function stateOf(
  deps: Dependencies,
  tenants: readonly string[],
  redisPrefix: string,
): Promise<StoreState> {
  const rows = new Map<string, string>();
  for (const tenant of tenants) {
    let cursor: string | undefined;
    do {
      const page = await deps.store.list({ tenant }, 1000, cursor);
      for (const record of page.items)
        rows.set(`${tenant}/${record.id}`, JSON.stringify(withoutReadStatistics(record)));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
  }
  const working = new Map<string, string>();
  let scan = '0';
  do {
    const [next, keys] = await deps.redis.scan(scan, 'MATCH', `${redisPrefix}:wm:*`, 'COUNT', 1000);
    scan = next;
    for (const key of keys) {
      const type = await deps.redis.type(key);
      const value =
        type === 'hash'
          ? await deps.redis.hgetall(key)
          : type === 'set'
            ? (await deps.redis.smembers(key)).sort()
            : await deps.redis.get(key);
      // The session's updated_at moves with every append, which is a change; its TTL is not.
      working.set(key, JSON.stringify(value));
    }
  } while (scan !== '0');
  const jobs = JSON.stringify(await deps.dashboardQueues[0]!.getJobCounts());
  return { rows, working, jobs };
}

function withoutReadStatistics(record: MemoryRecord): Omit<MemoryRecord, 'access_count' | 'last_accessed_at'> {
  const { access_count: _count, last_accessed_at: _at, ...rest } = record;
  return rest;
}

/** What changed between two states, for a failure message; empty when nothing did. */
export function stateChanges(before: StoreState, after: StoreState): string[] {
  const changes: string[] = [];
  const compare = (what: string, a: Map<string, string>, b: Map<string, string>) => {
    for (const [key, value] of a) {
      if (!b.has(key)) changes.push(`${what} ${key} removed`);
      else if (b.get(key) !== value) changes.push(`${what} ${key} changed`);
    }
    for (const key of b.keys()) if (!a.has(key)) changes.push(`${what} ${key} added`);
  };
  compare('memory', before.rows, after.rows);
  compare('working memory', before.working, after.working);
  if (before.jobs !== after.jobs) changes.push('queued jobs changed');
  return changes;
}

/**
 * Removes every row, working-memory session and job of a tenant, straight from the stores:
 * each fuzzed operation starts from freshly seeded data, and the per-request state stays small.
 */
export async function purgeTenant(deps: Dependencies, tenant: string, redisPrefix: string): Promise<void> {
  const queue = deps.dashboardQueues[0]!;
  const jobs = await queue.getJobs([...JOB_STATES], 0, 10_000);
  for (const job of jobs) if ((job.data as { tenant?: unknown } | undefined)?.tenant === tenant) await job.remove();
  for (;;) {
    const ids = await deps.store.listIds({ tenant }, 1000);
    if (ids.length === 0) break;
    await deps.store.deleteMany(tenant, ids);
  }
  const owner = encodeURIComponent(tenant);
  for (const pattern of [`${redisPrefix}:wm:{${owner}/*`, `${redisPrefix}:wm:user:${owner}/*`]) {
    let scan = '0';
    do {
      const [next, keys] = await deps.redis.scan(scan, 'MATCH', pattern, 'COUNT', 1000);
      scan = next;
      if (keys.length > 0) await deps.redis.del(...keys);
    } while (scan !== '0');
  }
}

/**
 * One tenant's part of everything: its rows, its working-memory keys and its jobs (by payload
 * tenant). Another tenant's requests may change the rest, never this.
 */
export async function tenantState(deps: Dependencies, tenant: string, redisPrefix: string): Promise<StoreState> {
  const all = await stateOf(deps, [tenant], redisPrefix);
  const owner = encodeURIComponent(tenant);
  const working = new Map(
    [...all.working].filter(([key]) => key.includes(`:wm:{${owner}/`) || key.includes(`:wm:user:${owner}/`)),
  );
  const jobs = await deps.dashboardQueues[0]!.getJobs([...JOB_STATES], 0, 10_000);
  const own = jobs
    .filter((job) => (job.data as { tenant?: unknown } | undefined)?.tenant === tenant)
    .map((job) => `${job.id}:${JSON.stringify(job.data)}`)
    .sort();
  return { rows: all.rows, working, jobs: JSON.stringify(own) };
}
